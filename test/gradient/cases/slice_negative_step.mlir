// GRADCHECK: {}
func.func @forward(%x: tensor<2x5x4xf64> {mx.param}, %r0: tensor<2x2x4xf64>) -> (tensor<2x2x4xf64>) {
  %s = mx.slice %x {begin = array<i64: 1, 4, 0>, end = array<i64: -3, 0, 4>, step = array<i64: -1, -2, 1>} : (tensor<2x5x4xf64>) -> tensor<2x2x4xf64>
  %o0 = mx.binary %s, %r0 {op = "mul"} : (tensor<2x2x4xf64>, tensor<2x2x4xf64>) -> tensor<2x2x4xf64>
  return %o0 : tensor<2x2x4xf64>
}
