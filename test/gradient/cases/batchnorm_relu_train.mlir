// GRADCHECK: {"training": true, "aux_args": ["mm", "mv"], "args": {"mv": "positive"}}
// BatchNorm -> ReLU: the ReLU's gradient folds into BatchNormTrainGrad
// (mxc-relu-into-batchnorm-grad), which recomputes the mask from x.
func.func @forward(%x: tensor<4x3x2x2xf64> {mx.param}, %gamma: tensor<3xf64> {mx.param}, %beta: tensor<3xf64> {mx.param}, %mm: tensor<3xf64>, %mv: tensor<3xf64>, %r0: tensor<4x3x2x2xf64>) -> (tensor<4x3x2x2xf64>) {
  %y = mx.BatchNorm %x, %gamma, %beta, %mm, %mv {eps = 1.0e-3 : f64, momentum = 0.9 : f64, fix_gamma = false} : (tensor<4x3x2x2xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<4x3x2x2xf64>
  %a = mx.Activation %y {act_type = "relu"} : tensor<4x3x2x2xf64>
  %o0 = mx.binary %a, %r0 {op = "mul"} : (tensor<4x3x2x2xf64>, tensor<4x3x2x2xf64>) -> tensor<4x3x2x2xf64>
  return %o0 : tensor<4x3x2x2xf64>
}
