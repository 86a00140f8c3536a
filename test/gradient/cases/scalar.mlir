// GRADCHECK: {"args": {"x0": "positive", "x1": "positive", "x2": "positive", "x3": "positive", "x4": "positive", "x5": "positive", "x6": "positive", "x7": "positive", "x8": "positive", "x9": "positive"}}
func.func @forward(%x0: tensor<2x3x4xf64> {mx.param}, %x1: tensor<2x3x4xf64> {mx.param}, %x2: tensor<2x3x4xf64> {mx.param}, %x3: tensor<2x3x4xf64> {mx.param}, %x4: tensor<2x3x4xf64> {mx.param}, %x5: tensor<2x3x4xf64> {mx.param}, %x6: tensor<2x3x4xf64> {mx.param}, %x7: tensor<2x3x4xf64> {mx.param}, %x8: tensor<2x3x4xf64> {mx.param}, %x9: tensor<2x3x4xf64> {mx.param}, %r0: tensor<2x3x4xf64>, %r1: tensor<2x3x4xf64>, %r2: tensor<2x3x4xf64>, %r3: tensor<2x3x4xf64>, %r4: tensor<2x3x4xf64>, %r5: tensor<2x3x4xf64>, %r6: tensor<2x3x4xf64>, %r7: tensor<2x3x4xf64>, %r8: tensor<2x3x4xf64>, %r9: tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>) {
  %y0 = mx.scalar %x0 {op = "add", scalar = 1.5 : f64, reverse = false} : tensor<2x3x4xf64>
  %y1 = mx.scalar %x1 {op = "sub", scalar = 1.5 : f64, reverse = true} : tensor<2x3x4xf64>
  %y2 = mx.scalar %x2 {op = "mul", scalar = -2.0 : f64, reverse = false} : tensor<2x3x4xf64>
  %y3 = mx.scalar %x3 {op = "div", scalar = 4.0 : f64, reverse = false} : tensor<2x3x4xf64>
  %y4 = mx.scalar %x4 {op = "div", scalar = 2.0 : f64, reverse = true} : tensor<2x3x4xf64>
  %y5 = mx.scalar %x5 {op = "power", scalar = 3.0 : f64, reverse = false} : tensor<2x3x4xf64>
  %y6 = mx.scalar %x6 {op = "power", scalar = 1.7 : f64, reverse = true} : tensor<2x3x4xf64>
  %y7 = mx.scalar %x7 {op = "maximum", scalar = 0.1 : f64, reverse = false} : tensor<2x3x4xf64>
  %y8 = mx.scalar %x8 {op = "minimum", scalar = 0.2 : f64, reverse = false} : tensor<2x3x4xf64>
  %y9 = mx.scalar %x9 {op = "sub", scalar = 0.5 : f64, reverse = false} : tensor<2x3x4xf64>
  %o0 = mx.binary %y0, %r0 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o1 = mx.binary %y1, %r1 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o2 = mx.binary %y2, %r2 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o3 = mx.binary %y3, %r3 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o4 = mx.binary %y4, %r4 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o5 = mx.binary %y5, %r5 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o6 = mx.binary %y6, %r6 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o7 = mx.binary %y7, %r7 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o8 = mx.binary %y8, %r8 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o9 = mx.binary %y9, %r9 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  return %o0, %o1, %o2, %o3, %o4, %o5, %o6, %o7, %o8, %o9 : tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>
}
