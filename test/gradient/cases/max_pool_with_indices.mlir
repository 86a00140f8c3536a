// GRADCHECK: {}
func.func @forward(%x: tensor<2x2x6x6xf64> {mx.param}, %x2: tensor<1x3x5x4xf64> {mx.param}, %r0: tensor<2x2x3x3xf64>, %r1: tensor<1x3x4x3xf64>) -> (tensor<2x2x3x3xf64>, tensor<1x3x4x3xf64>) {
  %p:2 = mx.max_pool_with_indices %x {kernel = array<i64: 3, 2>, stride = array<i64: 2, 2>, dilate = array<i64: 1, 2>, pad = array<i64: 1, 0, 1, 1>} : (tensor<2x2x6x6xf64>) -> (tensor<2x2x3x3xf64>, tensor<2x2x3x3xi64>)
  %q:2 = mx.max_pool_with_indices %x2 {kernel = array<i64: 2, 2>, storage_order = 1 : i64} : (tensor<1x3x5x4xf64>) -> (tensor<1x3x4x3xf64>, tensor<1x3x4x3xi64>)
  %o0 = mx.binary %p#0, %r0 {op = "mul"} : (tensor<2x2x3x3xf64>, tensor<2x2x3x3xf64>) -> tensor<2x2x3x3xf64>
  %o1 = mx.binary %q#0, %r1 {op = "mul"} : (tensor<1x3x4x3xf64>, tensor<1x3x4x3xf64>) -> tensor<1x3x4x3xf64>
  return %o0, %o1 : tensor<2x2x3x3xf64>, tensor<1x3x4x3xf64>
}
