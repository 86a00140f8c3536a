// GRADCHECK: {}
func.func @forward(%x: tensor<3x4xf64> {mx.param}, %r0: tensor<3x4xf64>, %r1: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %t = mx.trilu %x {upper = false, k = 1 : i64} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %s = mx.cumsum %x {axis = 1 : i64, exclusive = true} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %o0 = mx.binary %t, %r0 {op = "mul"} : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %o1 = mx.binary %s, %r1 {op = "mul"} : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %o0, %o1 : tensor<3x4xf64>, tensor<3x4xf64>
}
