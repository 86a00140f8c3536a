// GRADCHECK: {"values": {"j": [[1], [3], [-3]], "k": [[0, 1], [2, 2], [0, 1], [3, 0]], "gm": [[0.7, -1.1, 0.4], [0, 1.3, -0.9], [1.5, 0.6, -0.8], [-1.2, 0.9, 1.1]], "vm": [[0.8, 0, 1.1], [0, -0.6, 0.9], [1.2, 0, -0.5]]}}
// scatter_nd with reduction mul, max and min. Rows 1 and -3 are one row, so
// two update rows meet there; max scatters single elements ((0, 1) twice).
// mul: row 1 has a zero in the data (column 0), zeros in both updates
// (column 1) and none (column 2); row 3 a zero in its update. max / min:
// drawn values, no ties.
func.func @forward(%gm: tensor<4x3xf64> {mx.param}, %vm: tensor<3x3xf64> {mx.param}, %gx: tensor<4x3xf64> {mx.param}, %vx: tensor<4xf64> {mx.param}, %gn: tensor<4x3xf64> {mx.param}, %vn: tensor<3x3xf64> {mx.param}, %j: tensor<3x1xi64>, %k: tensor<4x2xi64>, %r0: tensor<4x3xf64>, %r1: tensor<4x3xf64>, %r2: tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<4x3xf64>, tensor<4x3xf64>) {
  %m = mx.scatter_nd %gm, %j, %vm {reduction = "mul"} : (tensor<4x3xf64>, tensor<3x1xi64>, tensor<3x3xf64>) -> tensor<4x3xf64>
  %o0 = mx.binary %m, %r0 {op = "mul"} : (tensor<4x3xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
  %x = mx.scatter_nd %gx, %k, %vx {reduction = "max"} : (tensor<4x3xf64>, tensor<4x2xi64>, tensor<4xf64>) -> tensor<4x3xf64>
  %o1 = mx.binary %x, %r1 {op = "mul"} : (tensor<4x3xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
  %n = mx.scatter_nd %gn, %j, %vn {reduction = "min"} : (tensor<4x3xf64>, tensor<3x1xi64>, tensor<3x3xf64>) -> tensor<4x3xf64>
  %o2 = mx.binary %n, %r2 {op = "mul"} : (tensor<4x3xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
  return %o0, %o1, %o2 : tensor<4x3xf64>, tensor<4x3xf64>, tensor<4x3xf64>
}
