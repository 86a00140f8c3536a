// GRADCHECK: {"loss": "sum", "grad_scale": 3.0}
func.func @forward(%x: tensor<3x4xf64> {mx.param}) -> (tensor<3x4xf64>) {
  %s = mx.unary %x {op = "square"} : tensor<3x4xf64>
  %t = mx.binary %s, %x {op = "mul"} : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %y = mx.MakeLoss %t {grad_scale = 3.0 : f64} : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
