// GRADCHECK: {"args": {"x0": "normal"}}
func.func @forward(%x0: tensor<2x3x4xf64> {mx.param}, %r0: tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>) {
  %y0 = mx.clip %x0 {a_min = -0.5 : f64, a_max = 0.7 : f64} : tensor<2x3x4xf64>
  %o0 = mx.binary %y0, %r0 {op = "mul"} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  return %o0 : tensor<2x3x4xf64>
}
