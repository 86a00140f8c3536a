// GRADCHECK: {}
func.func @forward(%x: tensor<2x3x6x6xf64> {mx.param}, %w: tensor<4x3x3x3xf64> {mx.param}, %b: tensor<4xf64> {mx.param}, %r0: tensor<2x4x3x3xf64>) -> (tensor<2x4x3x3xf64>) {
  %y = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, num_filter = 4 : i64} : (tensor<2x3x6x6xf64>, tensor<4x3x3x3xf64>, tensor<4xf64>) -> tensor<2x4x3x3xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<2x4x3x3xf64>, tensor<2x4x3x3xf64>) -> tensor<2x4x3x3xf64>
  return %o0 : tensor<2x4x3x3xf64>
}
