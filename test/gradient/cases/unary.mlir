// GRADCHECK: {"args": {"x0": "normal", "x1": "normal", "x2": "normal", "x3": "normal", "x4": "normal", "x5": "normal", "x6": "normal", "x7": "normal", "x8": "normal", "x9": "normal"}}
func.func @forward(%x0: tensor<2x3x4xf64> {mx.param}, %x1: tensor<2x3x4xf64> {mx.param}, %x2: tensor<2x3x4xf64> {mx.param}, %x3: tensor<2x3x4xf64> {mx.param}, %x4: tensor<2x3x4xf64> {mx.param}, %x5: tensor<2x3x4xf64> {mx.param}, %x6: tensor<2x3x4xf64> {mx.param}, %x7: tensor<2x3x4xf64> {mx.param}, %x8: tensor<2x3x4xf64> {mx.param}, %x9: tensor<2x3x4xf64> {mx.param}, %r0: tensor<2x3x4xf64>, %r1: tensor<2x3x4xf64>, %r2: tensor<2x3x4xf64>, %r3: tensor<2x3x4xf64>, %r4: tensor<2x3x4xf64>, %r5: tensor<2x3x4xf64>, %r6: tensor<2x3x4xf64>, %r7: tensor<2x3x4xf64>, %r8: tensor<2x3x4xf64>, %r9: tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>) {
  %y0 = mx.unary %x0 {op = "exp"} : tensor<2x3x4xf64>
  %y1 = mx.unary %x1 {op = "square"} : tensor<2x3x4xf64>
  %y2 = mx.unary %x2 {op = "abs"} : tensor<2x3x4xf64>
  %y3 = mx.unary %x3 {op = "negative"} : tensor<2x3x4xf64>
  %y4 = mx.unary %x4 {op = "sigmoid"} : tensor<2x3x4xf64>
  %y5 = mx.unary %x5 {op = "tanh"} : tensor<2x3x4xf64>
  %y6 = mx.unary %x6 {op = "erf"} : tensor<2x3x4xf64>
  %y7 = mx.unary %x7 {op = "softrelu"} : tensor<2x3x4xf64>
  %y8 = mx.unary %x8 {op = "softsign"} : tensor<2x3x4xf64>
  %y9 = mx.unary %x9 {op = "relu"} : tensor<2x3x4xf64>
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
