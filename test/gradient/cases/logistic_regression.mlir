// GRADCHECK: {"loss": "logistic", "label": "label", "args": {"label": "int:2"}}
func.func @forward(%x: tensor<4x1xf64> {mx.param}, %label: tensor<4xf64>) -> (tensor<4x1xf64>) {
  %y = mx.LogisticRegressionOutput %x, %label : (tensor<4x1xf64>, tensor<4xf64>) -> tensor<4x1xf64>
  return %y : tensor<4x1xf64>
}
