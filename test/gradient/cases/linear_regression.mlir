// GRADCHECK: {"loss": "l2", "label": "label", "grad_scale": 0.5}
func.func @forward(%x: tensor<4x2xf64> {mx.param}, %label: tensor<4x2xf64>) -> (tensor<4x2xf64>) {
  %y = mx.LinearRegressionOutput %x, %label {grad_scale = 0.5 : f64} : (tensor<4x2xf64>, tensor<4x2xf64>) -> tensor<4x2xf64>
  return %y : tensor<4x2xf64>
}
