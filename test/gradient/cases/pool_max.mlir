// GRADCHECK: {}
func.func @forward(%x: tensor<1x2x5x5xf64> {mx.param}, %r0: tensor<1x2x3x3xf64>) -> (tensor<1x2x3x3xf64>) {
  %y = mx.Pooling %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, pool_type = "max"} : (tensor<1x2x5x5xf64>) -> tensor<1x2x3x3xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<1x2x3x3xf64>, tensor<1x2x3x3xf64>) -> tensor<1x2x3x3xf64>
  return %o0 : tensor<1x2x3x3xf64>
}
