// GRADCHECK: {"expect": "[x['r0'] * np.exp(x['x'])]"}
func.func @forward(%x: tensor<3x4xf64> {mx.param}, %r0: tensor<3x4xf64>) -> (tensor<3x4xf64>) {
  %s = mx.unary %x {op = "exp"} : tensor<3x4xf64>
  %b = mx.BlockGrad %s : tensor<3x4xf64>
  %t = mx.binary %b, %x {op = "mul"} : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %o0 = mx.binary %t, %r0 {op = "mul"} : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %o0 : tensor<3x4xf64>
}
