// GRADCHECK: {}
func.func @forward(%x: tensor<2x2x8xf64> {mx.param}, %w: tensor<3x2x3xf64> {mx.param}, %r0: tensor<2x3x3xf64>) -> (tensor<2x3x3xf64>) {
  %y = mx.Convolution %x, %w {kernel = array<i64: 3>, stride = array<i64: 2>, num_filter = 3 : i64, no_bias = true} : (tensor<2x2x8xf64>, tensor<3x2x3xf64>) -> tensor<2x3x3xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<2x3x3xf64>, tensor<2x3x3xf64>) -> tensor<2x3x3xf64>
  return %o0 : tensor<2x3x3xf64>
}
