// GRADCHECK: {"loss": "softmax_ce", "label": "label", "multi_output": true, "args": {"label": "class:3"}}
func.func @forward(%x: tensor<2x3x4xf64> {mx.param}, %label: tensor<2x4xf64>) -> (tensor<2x3x4xf64>) {
  %y = mx.SoftmaxOutput %x, %label {multi_output = true} : (tensor<2x3x4xf64>, tensor<2x4xf64>) -> tensor<2x3x4xf64>
  return %y : tensor<2x3x4xf64>
}
