// GRADCHECK: {"args": {"a": "positive", "b": "positive"}}
func.func @forward(%a: tensor<2x3x4xf64> {mx.param}, %b: tensor<3x1xf64> {mx.param}, %r0: tensor<2x3x4xf64>, %r1: tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<2x3x4xf64>) {
  %y = mx.binary %a, %b {op = "power"} : (tensor<2x3x4xf64>, tensor<3x1xf64>) -> tensor<2x3x4xf64>
  %z = mx.binary %b, %a {op = "power"} : (tensor<3x1xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o1 = mx.binary %z, %r1 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  return %o0, %o1 : tensor<2x3x4xf64>, tensor<2x3x4xf64>
}
