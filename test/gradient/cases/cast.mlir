// GRADCHECK: {"eps": 0.01, "tol": 0.001}
func.func @forward(%x: tensor<2x3xf64> {mx.param}, %r0: tensor<2x3xf32>) -> (tensor<2x3xf32>) {
  %c = mx.cast %x {to = f32} : (tensor<2x3xf64>) -> tensor<2x3xf32>
  %o0 = mx.binary %c, %r0 {op = "mul"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %o0 : tensor<2x3xf32>
}
