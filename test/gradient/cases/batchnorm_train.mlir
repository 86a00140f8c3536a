// GRADCHECK: {"training": true, "aux_args": ["mm", "mv"], "args": {"mv": "positive"}, "check_aux": "[0.9 * x['mm'] + 0.1 * x['x'].mean(axis=(0, 2, 3)), 0.9 * x['mv'] + 0.1 * x['x'].var(axis=(0, 2, 3))]"}
func.func @forward(%x: tensor<4x3x2x2xf64> {mx.param}, %gamma: tensor<3xf64> {mx.param}, %beta: tensor<3xf64> {mx.param}, %mm: tensor<3xf64>, %mv: tensor<3xf64>, %r0: tensor<4x3x2x2xf64>) -> (tensor<4x3x2x2xf64>) {
  %y = mx.BatchNorm %x, %gamma, %beta, %mm, %mv {eps = 1.0e-3 : f64, momentum = 0.9 : f64, fix_gamma = false} : (tensor<4x3x2x2xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<4x3x2x2xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<4x3x2x2xf64>, tensor<4x3x2x2xf64>) -> tensor<4x3x2x2xf64>
  return %o0 : tensor<4x3x2x2xf64>
}
