// GRADCHECK: {}
func.func @forward(%x: tensor<2x3x4x4xf64> {mx.param}, %x2: tensor<2x3x4x4xf64> {mx.param}, %r0: tensor<2x3x3x3xf64>, %r1: tensor<2x3x1x1xf64>) -> (tensor<2x3x3x3xf64>, tensor<2x3x1x1xf64>) {
  %y = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 1, 1>, pool_type = "sum"} : (tensor<2x3x4x4xf64>) -> tensor<2x3x3x3xf64>
  %z = mx.Pooling %x2 {global_pool = true, pool_type = "max"} : (tensor<2x3x4x4xf64>) -> tensor<2x3x1x1xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<2x3x3x3xf64>, tensor<2x3x3x3xf64>) -> tensor<2x3x3x3xf64>
  %o1 = mx.binary %z, %r1 {op = "mul"} : (tensor<2x3x1x1xf64>, tensor<2x3x1x1xf64>) -> tensor<2x3x1x1xf64>
  return %o0, %o1 : tensor<2x3x3x3xf64>, tensor<2x3x1x1xf64>
}
