// GRADCHECK: {}
func.func @forward(%x: tensor<2x3x4xf64> {mx.param}, %c: tensor<2x2x4xf64> {mx.param}, %r0: tensor<2x5x4xf64>) -> (tensor<2x5x4xf64>) {
  %cc = mx.Concat %x, %c {dim = 1 : i64} : (tensor<2x3x4xf64>, tensor<2x2x4xf64>) -> tensor<2x5x4xf64>
  %o0 = mx.binary %cc, %r0 {op = "mul"} : (tensor<2x5x4xf64>, tensor<2x5x4xf64>) -> tensor<2x5x4xf64>
  return %o0 : tensor<2x5x4xf64>
}
