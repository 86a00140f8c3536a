// GRADCHECK: {"loss": "softmax_ce", "label": "label", "grad_scale": 2.0, "normalization": "batch", "args": {"label": "class:5"}}
func.func @forward(%x: tensor<4x5xf64> {mx.param}, %label: tensor<4xf64>) -> (tensor<4x5xf64>) {
  %y = mx.SoftmaxOutput %x, %label {grad_scale = 2.0 : f64, normalization = "batch"} : (tensor<4x5xf64>, tensor<4xf64>) -> tensor<4x5xf64>
  return %y : tensor<4x5xf64>
}
