// GRADCHECK: {}
func.func @forward(%x: tensor<1x2x7x8xf64> {mx.param}, %x2: tensor<2x3x10xf64> {mx.param}, %r0: tensor<1x2x4x7xf64>, %r1: tensor<2x3x4xf64>) -> (tensor<1x2x4x7xf64>, tensor<2x3x4xf64>) {
  %y = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 1>, dilate = array<i64: 2, 3>, pad = array<i64: 1, 1>, pool_type = "max"} : (tensor<1x2x7x8xf64>) -> tensor<1x2x4x7xf64>
  %z = mx.Pooling %x2 {kernel = array<i64: 3>, stride = array<i64: 2>, dilate = array<i64: 2>, pool_type = "max", pooling_convention = "full"} : (tensor<2x3x10xf64>) -> tensor<2x3x4xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<1x2x4x7xf64>, tensor<1x2x4x7xf64>) -> tensor<1x2x4x7xf64>
  %o1 = mx.binary %z, %r1 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  return %o0, %o1 : tensor<1x2x4x7xf64>, tensor<2x3x4xf64>
}
