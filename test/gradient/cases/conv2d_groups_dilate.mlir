// GRADCHECK: {}
func.func @forward(%x: tensor<1x4x7x7xf64> {mx.param}, %w: tensor<6x2x3x3xf64> {mx.param}, %r0: tensor<1x6x3x3xf64>) -> (tensor<1x6x3x3xf64>) {
  %y = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, dilate = array<i64: 2, 2>, num_filter = 6 : i64, num_group = 2 : i64, no_bias = true} : (tensor<1x4x7x7xf64>, tensor<6x2x3x3xf64>) -> tensor<1x6x3x3xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<1x6x3x3xf64>, tensor<1x6x3x3xf64>) -> tensor<1x6x3x3xf64>
  return %o0 : tensor<1x6x3x3xf64>
}
