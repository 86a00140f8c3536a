// GRADCHECK: {}
func.func @forward(%x: tensor<3x4x5xf64> {mx.param}, %g: tensor<4xf64> {mx.param}, %b: tensor<4xf64> {mx.param}, %r0: tensor<3x4x5xf64>) -> (tensor<3x4x5xf64>) {
  %y = mx.LayerNorm %x, %g, %b {axis = 1 : i64, eps = 1.0e-3 : f64} : (tensor<3x4x5xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<3x4x5xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<3x4x5xf64>, tensor<3x4x5xf64>) -> tensor<3x4x5xf64>
  return %o0 : tensor<3x4x5xf64>
}
