// GRADCHECK: {"args": {"mv": "positive"}}
func.func @forward(%x: tensor<4x3x2x2xf64> {mx.param}, %gamma: tensor<3xf64> {mx.param}, %beta: tensor<3xf64> {mx.param}, %mm: tensor<3xf64>, %mv: tensor<3xf64>, %r0: tensor<4x3x2x2xf64>) -> (tensor<4x3x2x2xf64>) {
  %y = mx.BatchNorm %x, %gamma, %beta, %mm, %mv {eps = 1.0e-3 : f64, fix_gamma = false, use_global_stats = true} : (tensor<4x3x2x2xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<4x3x2x2xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<4x3x2x2xf64>, tensor<4x3x2x2xf64>) -> tensor<4x3x2x2xf64>
  return %o0 : tensor<4x3x2x2xf64>
}
