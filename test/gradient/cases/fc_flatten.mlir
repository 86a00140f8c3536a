// GRADCHECK: {}
func.func @forward(%x: tensor<2x3x2xf64> {mx.param}, %w: tensor<4x6xf64> {mx.param}, %r0: tensor<2x4xf64>) -> (tensor<2x4xf64>) {
  %y = mx.FullyConnected %x, %w {num_hidden = 4 : i64, no_bias = true} : (tensor<2x3x2xf64>, tensor<4x6xf64>) -> tensor<2x4xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  return %o0 : tensor<2x4xf64>
}
