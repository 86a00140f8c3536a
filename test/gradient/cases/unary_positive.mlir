// GRADCHECK: {"args": {"x0": "positive", "x1": "positive", "x2": "positive", "x3": "positive"}}
func.func @forward(%x0: tensor<2x3x4xf64> {mx.param}, %x1: tensor<2x3x4xf64> {mx.param}, %x2: tensor<2x3x4xf64> {mx.param}, %x3: tensor<2x3x4xf64> {mx.param}, %r0: tensor<2x3x4xf64>, %r1: tensor<2x3x4xf64>, %r2: tensor<2x3x4xf64>, %r3: tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>) {
  %y0 = mx.unary %x0 {op = "log"} : tensor<2x3x4xf64>
  %y1 = mx.unary %x1 {op = "sqrt"} : tensor<2x3x4xf64>
  %y2 = mx.unary %x2 {op = "rsqrt"} : tensor<2x3x4xf64>
  %y3 = mx.unary %x3 {op = "reciprocal"} : tensor<2x3x4xf64>
  %o0 = mx.binary %y0, %r0 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o1 = mx.binary %y1, %r1 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o2 = mx.binary %y2, %r2 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o3 = mx.binary %y3, %r3 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  return %o0, %o1, %o2, %o3 : tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>
}
