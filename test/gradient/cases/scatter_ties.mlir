// GRADCHECK: {"values": {"d": [[1, 5, 2]], "u": [[5, 5, 2]], "i": [[1, 1, 0]], "e": [[1, 2], [3, 4], [5, 6]], "v": [[1, 0], [1, 7]], "j": [[0], [0]]}, "expect": "[x['r0'] * np.array([[0, 1/3, 1]]), np.array([[x['r0'][0, 1] / 3, x['r0'][0, 1] / 3, x['r0'][0, 0]]]), x['r1'] * np.array([[1/3, 0], [1, 1], [1, 1]]), np.array([[x['r1'][0, 0] / 3, x['r1'][0, 1]], [x['r1'][0, 0] / 3, 0]])]"}
// The tie rule of scatter max / min, which finite differences cannot see:
// the contributors equal to an output element share its gradient evenly.
// max: d[0, 1] and both updates give 5 (a third each); u[0, 2] = 2 beats
// d[0, 0] = 1. min: e[0, 0] and both update rows' first elements give 1.
func.func @forward(%d: tensor<1x3xf64> {mx.param}, %u: tensor<1x3xf64> {mx.param}, %e: tensor<3x2xf64> {mx.param}, %v: tensor<2x2xf64> {mx.param}, %i: tensor<1x3xi64>, %j: tensor<2x1xi64>, %r0: tensor<1x3xf64>, %r1: tensor<3x2xf64>) -> (tensor<1x3xf64>, tensor<3x2xf64>) {
  %x = mx.scatter_elements %d, %i, %u {axis = 1 : i64, reduction = "max"} : (tensor<1x3xf64>, tensor<1x3xi64>, tensor<1x3xf64>) -> tensor<1x3xf64>
  %o0 = mx.binary %x, %r0 {op = "mul"} : (tensor<1x3xf64>, tensor<1x3xf64>) -> tensor<1x3xf64>
  %n = mx.scatter_nd %e, %j, %v {reduction = "min"} : (tensor<3x2xf64>, tensor<2x1xi64>, tensor<2x2xf64>) -> tensor<3x2xf64>
  %o1 = mx.binary %n, %r1 {op = "mul"} : (tensor<3x2xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
  return %o0, %o1 : tensor<1x3xf64>, tensor<3x2xf64>
}
