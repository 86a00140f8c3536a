// GRADCHECK: {}
func.func @forward(%a: tensor<3x4xf64> {mx.param}, %b: tensor<5x4xf64> {mx.param}, %c: tensor<4x3xf64> {mx.param}, %p: tensor<2x3x4xf64> {mx.param}, %q: tensor<2x4x5xf64> {mx.param}, %r0: tensor<3x5xf64>, %r1: tensor<3x3xf64>, %r2: tensor<2x3x5xf64>) -> (tensor<3x5xf64>, tensor<3x3xf64>, tensor<2x3x5xf64>) {
  %y = mx.dot %a, %b {transpose_b = true} : (tensor<3x4xf64>, tensor<5x4xf64>) -> tensor<3x5xf64>
  %z = mx.dot %c, %a {transpose_a = true, transpose_b = true} : (tensor<4x3xf64>, tensor<3x4xf64>) -> tensor<3x3xf64>
  %w = mx.dot %p, %q {batch = true} : (tensor<2x3x4xf64>, tensor<2x4x5xf64>) -> tensor<2x3x5xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<3x5xf64>, tensor<3x5xf64>) -> tensor<3x5xf64>
  %o1 = mx.binary %z, %r1 {op = "mul"} : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xf64>
  %o2 = mx.binary %w, %r2 {op = "mul"} : (tensor<2x3x5xf64>, tensor<2x3x5xf64>) -> tensor<2x3x5xf64>
  return %o0, %o1, %o2 : tensor<3x5xf64>, tensor<3x3xf64>, tensor<2x3x5xf64>
}
