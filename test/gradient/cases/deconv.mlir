// GRADCHECK: {}
func.func @forward(%x: tensor<2x4x3x3xf64> {mx.param}, %w: tensor<4x3x3x2xf64> {mx.param}, %bias: tensor<6xf64> {mx.param}, %r0: tensor<2x6x6x6xf64>) -> (tensor<2x6x6x6xf64>) {
  %y = mx.Deconvolution %x, %w, %bias {kernel = array<i64: 3, 2>, stride = array<i64: 2, 2>, pad = array<i64: 1, 0>, adj = array<i64: 1, 0>, num_filter = 6 : i64, num_group = 2 : i64} : (tensor<2x4x3x3xf64>, tensor<4x3x3x2xf64>, tensor<6xf64>) -> tensor<2x6x6x6xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<2x6x6x6xf64>, tensor<2x6x6x6xf64>) -> tensor<2x6x6x6xf64>
  return %o0 : tensor<2x6x6x6xf64>
}
