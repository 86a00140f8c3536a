// GRADCHECK: {"values": {"i": [[0, 2, 2], [1, 1, -1], [3, 0, -1]], "dm": [[0, 0.7, -1.2, 0.9], [1.1, -0.8, 0.6, 1.3], [0.5, -1.4, 0.8, 1.2]], "um": [[1.5, -0.9, 1.2], [0, 1.3, -0.7], [0, 0.6, 0]]}}
// scatter_elements with reduction add, mul, max and min along axis 1;
// indices repeat (also through -1 = 3), so several updates meet at one
// element.
// mul: zeros in the data ([0, 0]: the only zero of its element), in one
// update of [1, 1] and in both updates of [2, 3] (two zeros: every
// derivative there is 0). max / min: drawn values, no ties.
func.func @forward(%dm: tensor<3x4xf64> {mx.param}, %um: tensor<3x3xf64> {mx.param}, %dx: tensor<3x4xf64> {mx.param}, %ux: tensor<3x3xf64> {mx.param}, %dn: tensor<3x4xf64> {mx.param}, %un: tensor<3x3xf64> {mx.param}, %da: tensor<3x4xf64> {mx.param}, %ua: tensor<3x3xf64> {mx.param}, %i: tensor<3x3xi64>, %r0: tensor<3x4xf64>, %r1: tensor<3x4xf64>, %r2: tensor<3x4xf64>, %r3: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) {
  %m = mx.scatter_elements %dm, %i, %um {axis = 1 : i64, reduction = "mul"} : (tensor<3x4xf64>, tensor<3x3xi64>, tensor<3x3xf64>) -> tensor<3x4xf64>
  %o0 = mx.binary %m, %r0 {op = "mul"} : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %x = mx.scatter_elements %dx, %i, %ux {axis = 1 : i64, reduction = "max"} : (tensor<3x4xf64>, tensor<3x3xi64>, tensor<3x3xf64>) -> tensor<3x4xf64>
  %o1 = mx.binary %x, %r1 {op = "mul"} : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %n = mx.scatter_elements %dn, %i, %un {axis = 1 : i64, reduction = "min"} : (tensor<3x4xf64>, tensor<3x3xi64>, tensor<3x3xf64>) -> tensor<3x4xf64>
  %o2 = mx.binary %n, %r2 {op = "mul"} : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %a = mx.scatter_elements %da, %i, %ua {axis = 1 : i64, reduction = "add"} : (tensor<3x4xf64>, tensor<3x3xi64>, tensor<3x3xf64>) -> tensor<3x4xf64>
  %o3 = mx.binary %a, %r3 {op = "mul"} : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %o0, %o1, %o2, %o3 : tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>
}
