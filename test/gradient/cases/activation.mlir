// GRADCHECK: {"args": {"x0": "normal", "x1": "normal", "x2": "normal", "x3": "normal", "x4": "normal"}}
func.func @forward(%x0: tensor<2x3x4xf64> {mx.param}, %x1: tensor<2x3x4xf64> {mx.param}, %x2: tensor<2x3x4xf64> {mx.param}, %x3: tensor<2x3x4xf64> {mx.param}, %x4: tensor<2x3x4xf64> {mx.param}, %r0: tensor<2x3x4xf64>, %r1: tensor<2x3x4xf64>, %r2: tensor<2x3x4xf64>, %r3: tensor<2x3x4xf64>, %r4: tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>) {
  %y0 = mx.Activation %x0 {act_type = "relu"} : tensor<2x3x4xf64>
  %y1 = mx.Activation %x1 {act_type = "sigmoid"} : tensor<2x3x4xf64>
  %y2 = mx.Activation %x2 {act_type = "tanh"} : tensor<2x3x4xf64>
  %y3 = mx.Activation %x3 {act_type = "softrelu"} : tensor<2x3x4xf64>
  %y4 = mx.Activation %x4 {act_type = "softsign"} : tensor<2x3x4xf64>
  %o0 = mx.binary %y0, %r0 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o1 = mx.binary %y1, %r1 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o2 = mx.binary %y2, %r2 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o3 = mx.binary %y3, %r3 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o4 = mx.binary %y4, %r4 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  return %o0, %o1, %o2, %o3, %o4 : tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>
}
