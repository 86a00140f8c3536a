// GRADCHECK: {}
func.func @forward(%x: tensor<3x1xf64> {mx.param}, %r0: tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>) {
  %b = mx.broadcast_to %x {shape = array<i64: 2, 3, 4>} : (tensor<3x1xf64>) -> tensor<2x3x4xf64>
  %o0 = mx.binary %b, %r0 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  return %o0 : tensor<2x3x4xf64>
}
