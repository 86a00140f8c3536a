// GRADCHECK: {}
func.func @forward(%x: tensor<2x6x3x3xf64> {mx.param}, %r0: tensor<2x6x3x3xf64>) -> (tensor<2x6x3x3xf64>) {
  %y = mx.LRN %x {nsize = 5 : i64, alpha = 0.5 : f64, beta = 0.75 : f64, knorm = 2.0 : f64} : tensor<2x6x3x3xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<2x6x3x3xf64>, tensor<2x6x3x3xf64>) -> tensor<2x6x3x3xf64>
  return %o0 : tensor<2x6x3x3xf64>
}
