// GRADCHECK: {"values": {"i": [[1, 1, 0], [2, -1, 2]], "j": [[1], [3], [-3]]}}
// scatter_elements and scatter_nd with reduction none and repeated indices
// (also through negative ones): of the updates aimed at one element the
// last written wins, and only it has a gradient.
func.func @forward(%d: tensor<2x4xf64> {mx.param}, %u: tensor<2x3xf64> {mx.param}, %g: tensor<4x3xf64> {mx.param}, %v: tensor<3x3xf64> {mx.param}, %i: tensor<2x3xi64>, %j: tensor<3x1xi64>, %r0: tensor<2x4xf64>, %r1: tensor<4x3xf64>) -> (tensor<2x4xf64>, tensor<4x3xf64>) {
  %se = mx.scatter_elements %d, %i, %u {axis = 1 : i64} : (tensor<2x4xf64>, tensor<2x3xi64>, tensor<2x3xf64>) -> tensor<2x4xf64>
  %o0 = mx.binary %se, %r0 {op = "mul"} : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  %sn = mx.scatter_nd %g, %j, %v : (tensor<4x3xf64>, tensor<3x1xi64>, tensor<3x3xf64>) -> tensor<4x3xf64>
  %o1 = mx.binary %sn, %r1 {op = "mul"} : (tensor<4x3xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
  return %o0, %o1 : tensor<2x4xf64>, tensor<4x3xf64>
}
