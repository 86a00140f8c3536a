// GRADCHECK: {"loss": "softmax_ce", "label": "label", "use_ignore": true, "ignore_label": 0, "normalization": "valid", "args": {"label": "class:3"}}
func.func @forward(%x: tensor<6x3xf64> {mx.param}, %label: tensor<6xf64>) -> (tensor<6x3xf64>) {
  %y = mx.SoftmaxOutput %x, %label {use_ignore = true, ignore_label = 0.0 : f64, normalization = "valid"} : (tensor<6x3xf64>, tensor<6xf64>) -> tensor<6x3xf64>
  return %y : tensor<6x3xf64>
}
