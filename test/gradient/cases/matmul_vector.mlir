// GRADCHECK: {}
// 1-D operands: vector x batch of matrices, matrix x vector, vector x vector.
func.func @forward(%v: tensor<4xf64> {mx.param}, %m: tensor<2x4x3xf64> {mx.param}, %w: tensor<3xf64> {mx.param}, %u: tensor<3xf64> {mx.param}, %r0: tensor<2x3xf64>, %r1: tensor<2x4xf64>, %r2: tensor<f64>) -> (tensor<2x3xf64>, tensor<2x4xf64>, tensor<f64>) {
  %a = mx.matmul %v, %m : (tensor<4xf64>, tensor<2x4x3xf64>) -> tensor<2x3xf64>
  %o0 = mx.binary %a, %r0 {op = "mul"} : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %c = mx.matmul %m, %w : (tensor<2x4x3xf64>, tensor<3xf64>) -> tensor<2x4xf64>
  %o1 = mx.binary %c, %r1 {op = "mul"} : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  %d = mx.matmul %w, %u : (tensor<3xf64>, tensor<3xf64>) -> tensor<f64>
  %o2 = mx.binary %d, %r2 {op = "mul"} : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %o0, %o1, %o2 : tensor<2x3xf64>, tensor<2x4xf64>, tensor<f64>
}
