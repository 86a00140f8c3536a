// GRADCHECK: {"values": {"p": [[[1], [3], [1]], [[0], [-1], [2]]], "s": [[[1, 0], [3, 2], [1, 0]], [[0, 1], [-1, -1], [2, 0]]]}}
// gather_nd with batch_dims: 1 with rows (row 1 of batch 0 taken twice, so
// its gradients add up; -1 is row 3), 2 with single elements, and 1 with
// element pairs ((1, 0) twice in batch 0).
func.func @forward(%x: tensor<2x4x3xf64> {mx.param}, %y: tensor<2x3x4xf64> {mx.param}, %z: tensor<2x4x3xf64> {mx.param}, %p: tensor<2x3x1xi64>, %s: tensor<2x3x2xi64>, %r0: tensor<2x3x3xf64>, %r1: tensor<2x3xf64>, %r2: tensor<2x3xf64>) -> (tensor<2x3x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>) {
  %a = mx.gather_nd %x, %p {batch_dims = 1 : i64} : (tensor<2x4x3xf64>, tensor<2x3x1xi64>) -> tensor<2x3x3xf64>
  %o0 = mx.binary %a, %r0 {op = "mul"} : (tensor<2x3x3xf64>, tensor<2x3x3xf64>) -> tensor<2x3x3xf64>
  %b = mx.gather_nd %y, %p {batch_dims = 2 : i64} : (tensor<2x3x4xf64>, tensor<2x3x1xi64>) -> tensor<2x3xf64>
  %o1 = mx.binary %b, %r1 {op = "mul"} : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %c = mx.gather_nd %z, %s {batch_dims = 1 : i64} : (tensor<2x4x3xf64>, tensor<2x3x2xi64>) -> tensor<2x3xf64>
  %o2 = mx.binary %c, %r2 {op = "mul"} : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  return %o0, %o1, %o2 : tensor<2x3x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>
}
