// GRADCHECK: {"values": {"p": [[[0.0, 1.3, -0.7, 1.1], [0.9, -1.2, 0.8, 1.4], [0.0, 0.5, 0.0, -1.1]], [[1.2, -0.6, 0.7, 1.5], [-0.9, 1.1, 0.0, 0.6], [1.3, 0.8, -1.4, 0.9]]]}}
// ONNX's other reductions: prod (slices with no zero, one zero and two
// zeros: the derivative is the product of the other elements, formed
// without dividing by a zero), l1 (random inputs, of both signs), l2, sumsquare and
// logsumexp, over reduced and kept axes.
func.func @forward(%p: tensor<2x3x4xf64> {mx.param}, %a: tensor<2x3x4xf64> {mx.param}, %c: tensor<2x3x4xf64> {mx.param}, %d: tensor<2x3x4xf64> {mx.param}, %e: tensor<2x3x4xf64> {mx.param}, %r0: tensor<2x3xf64>, %r1: tensor<2x1x4xf64>, %r2: tensor<3xf64>, %r3: tensor<2x3x1xf64>, %r4: tensor<2x4xf64>) -> (tensor<2x3xf64>, tensor<2x1x4xf64>, tensor<3xf64>, tensor<2x3x1xf64>, tensor<2x4xf64>) {
  %y0 = mx.reduce %p {op = "prod", axis = array<i64: 2>} : (tensor<2x3x4xf64>) -> tensor<2x3xf64>
  %y1 = mx.reduce %a {op = "l1", axis = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf64>) -> tensor<2x1x4xf64>
  %y2 = mx.reduce %c {op = "l2", axis = array<i64: 0, 2>} : (tensor<2x3x4xf64>) -> tensor<3xf64>
  %y3 = mx.reduce %d {op = "sumsquare", axis = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf64>) -> tensor<2x3x1xf64>
  %y4 = mx.reduce %e {op = "logsumexp", axis = array<i64: 1>} : (tensor<2x3x4xf64>) -> tensor<2x4xf64>
  %o0 = mx.binary %y0, %r0 {op = "mul"} : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %o1 = mx.binary %y1, %r1 {op = "mul"} : (tensor<2x1x4xf64>, tensor<2x1x4xf64>) -> tensor<2x1x4xf64>
  %o2 = mx.binary %y2, %r2 {op = "mul"} : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %o3 = mx.binary %y3, %r3 {op = "mul"} : (tensor<2x3x1xf64>, tensor<2x3x1xf64>) -> tensor<2x3x1xf64>
  %o4 = mx.binary %y4, %r4 {op = "mul"} : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  return %o0, %o1, %o2, %o3, %o4 : tensor<2x3xf64>, tensor<2x1x4xf64>, tensor<3xf64>, tensor<2x3x1xf64>, tensor<2x4xf64>
}
