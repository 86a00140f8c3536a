// GRADCHECK: {}
func.func @forward(%x: tensor<2x3x5xf64> {mx.param}, %w: tensor<4x5xf64> {mx.param}, %b: tensor<4xf64> {mx.param}, %r0: tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>) {
  %y = mx.FullyConnected %x, %w, %b {num_hidden = 4 : i64, flatten = false} : (tensor<2x3x5xf64>, tensor<4x5xf64>, tensor<4xf64>) -> tensor<2x3x4xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  return %o0 : tensor<2x3x4xf64>
}
