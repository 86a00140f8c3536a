// GRADCHECK: {}
func.func @forward(%x: tensor<2x3x4xf64> {mx.param}, %x2: tensor<2x3x4xf64> {mx.param}, %x3: tensor<2x3x4xf64> {mx.param}, %x4: tensor<2x3x4xf64> {mx.param}, %r0: tensor<3xf64>, %r1: tensor<2x1x4xf64>, %r2: tensor<2x3xf64>, %r3: tensor<3xf64>) -> (tensor<3xf64>, tensor<2x1x4xf64>, tensor<2x3xf64>, tensor<3xf64>) {
  %y = mx.reduce %x {op = "sum", axis = array<i64: 0, 2>} : (tensor<2x3x4xf64>) -> tensor<3xf64>
  %z = mx.reduce %x2 {op = "mean", axis = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf64>) -> tensor<2x1x4xf64>
  %w = mx.reduce %x3 {op = "max", axis = array<i64: 2>} : (tensor<2x3x4xf64>) -> tensor<2x3xf64>
  %v = mx.reduce %x4 {op = "min", axis = array<i64: 1>, exclude = true} : (tensor<2x3x4xf64>) -> tensor<3xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %o1 = mx.binary %z, %r1 {op = "mul"} : (tensor<2x1x4xf64>, tensor<2x1x4xf64>) -> tensor<2x1x4xf64>
  %o2 = mx.binary %w, %r2 {op = "mul"} : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %o3 = mx.binary %v, %r3 {op = "mul"} : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %o0, %o1, %o2, %o3 : tensor<3xf64>, tensor<2x1x4xf64>, tensor<2x3xf64>, tensor<3xf64>
}
