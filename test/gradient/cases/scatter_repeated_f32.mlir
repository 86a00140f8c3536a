// GRADCHECK: {"values": {"i": [[1, 1, 0], [2, -1, 2]]}, "expect": "[x['r0'] * np.array([[0, 0, 1, 1], [1, 1, 0, 0]]), np.array([[0, x['r0'][0, 1], x['r0'][0, 0]], [0, x['r0'][1, 3], x['r0'][1, 2]]])]"}
// scatter_elements with reduction none and repeated indices in f32 (the
// updates are numbered in f64 to find the last written; finite differences
// are too coarse in f32, so the gradient is compared with its formula).
func.func @forward(%d: tensor<2x4xf32> {mx.param}, %u: tensor<2x3xf32> {mx.param}, %i: tensor<2x3xi64>, %r0: tensor<2x4xf32>) -> (tensor<2x4xf32>) {
  %se = mx.scatter_elements %d, %i, %u {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<2x4xf32>
  %o0 = mx.binary %se, %r0 {op = "mul"} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %o0 : tensor<2x4xf32>
}
