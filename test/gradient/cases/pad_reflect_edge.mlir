// GRADCHECK: {}
func.func @forward(%x: tensor<2x4x5xf64> {mx.param}, %r0: tensor<2x7x6xf64>, %r1: tensor<3x7x8xf64>) -> (tensor<2x7x6xf64>, tensor<3x7x8xf64>) {
  %p = mx.pad %x {pads = array<i64: 0, 2, 0, 0, 1, 1>, mode = "reflect"} : (tensor<2x4x5xf64>) -> tensor<2x7x6xf64>
  %o0 = mx.binary %p, %r0 {op = "mul"} : (tensor<2x7x6xf64>, tensor<2x7x6xf64>) -> tensor<2x7x6xf64>
  %q = mx.pad %x {pads = array<i64: 1, 0, 2, 0, 3, 1>, mode = "edge"} : (tensor<2x4x5xf64>) -> tensor<3x7x8xf64>
  %o1 = mx.binary %q, %r1 {op = "mul"} : (tensor<3x7x8xf64>, tensor<3x7x8xf64>) -> tensor<3x7x8xf64>
  return %o0, %o1 : tensor<2x7x6xf64>, tensor<3x7x8xf64>
}
