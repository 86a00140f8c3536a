// GRADCHECK: {}
func.func @forward(%a: tensor<2x1x3x4xf64> {mx.param}, %b: tensor<3x4x5xf64> {mx.param}, %r0: tensor<2x3x3x5xf64>) -> (tensor<2x3x3x5xf64>) {
  %m = mx.matmul %a, %b : (tensor<2x1x3x4xf64>, tensor<3x4x5xf64>) -> tensor<2x3x3x5xf64>
  %o0 = mx.binary %m, %r0 {op = "mul"} : (tensor<2x3x3x5xf64>, tensor<2x3x3x5xf64>) -> tensor<2x3x3x5xf64>
  return %o0 : tensor<2x3x3x5xf64>
}
