// GRADCHECK: {}
func.func @forward(%x: tensor<2x3x4xf64> {mx.param}, %gamma: tensor<3xf64> {mx.param}, %r0: tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>) {
  %y = mx.LeakyReLU %x, %gamma {act_type = "prelu"} : (tensor<2x3x4xf64>, tensor<3xf64>) -> tensor<2x3x4xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  return %o0 : tensor<2x3x4xf64>
}
