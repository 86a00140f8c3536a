// GRADCHECK: {}
func.func @forward(%x: tensor<2x3xf64> {mx.param}, %y: tensor<3xf64> {mx.param}, %c: tensor<2x3xf64>, %r0: tensor<2x3xf64>) -> (tensor<2x3xf64>) {
  %zero = mx.scalar %c {op = "mul", scalar = 0.0 : f64} : tensor<2x3xf64>
  %cond = mx.compare %c, %zero {op = "greater"} : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xi1>
  %w = mx.where %cond, %x, %y : (tensor<2x3xi1>, tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  %o0 = mx.binary %w, %r0 {op = "mul"} : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  return %o0 : tensor<2x3xf64>
}
