// GRADCHECK: {}
func.func @forward(%x: tensor<2x3x4xf64> {mx.param}, %x2: tensor<2x3x4xf64> {mx.param}, %r0: tensor<2x3x4xf64>, %r1: tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<2x3x4xf64>) {
  %y = mx.softmax %x {axis = 1 : i64, temperature = 2.0 : f64} : tensor<2x3x4xf64>
  %z = mx.softmax %x2 {axis = -1 : i64, log = true} : tensor<2x3x4xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %o1 = mx.binary %z, %r1 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  return %o0, %o1 : tensor<2x3x4xf64>, tensor<2x3x4xf64>
}
