// GRADCHECK: {}
func.func @forward(%x: tensor<2x3x4xf64> {mx.param}, %r0: tensor<2x5x3xf64>) -> (tensor<2x5x3xf64>) {
  %p = mx.pad %x {pads = array<i64: 0, 1, -1, 0, 1, 0>, value = 1.5 : f64} : (tensor<2x3x4xf64>) -> tensor<2x5x3xf64>
  %o0 = mx.binary %p, %r0 {op = "mul"} : (tensor<2x5x3xf64>, tensor<2x5x3xf64>) -> tensor<2x5x3xf64>
  return %o0 : tensor<2x5x3xf64>
}
