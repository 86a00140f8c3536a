// GRADCHECK: {}
// Distinct indices from cumsum over ones: [[2, 1]] per row for the element
// scatter, rows [3, 1] for the nd ops (reduction none would pick one of
// several updates aimed at one place).
func.func @forward(%d: tensor<3x4xf64> {mx.param}, %u: tensor<3x2xf64> {mx.param}, %g: tensor<4x3xf64> {mx.param}, %v: tensor<2x3xf64> {mx.param}, %r0: tensor<3x4xf64>, %r1: tensor<2x3xf64>, %r2: tensor<4x3xf64>, %r3: tensor<4x3xf64>) -> (tensor<3x4xf64>, tensor<2x3xf64>, tensor<4x3xf64>, tensor<4x3xf64>) {
  %z = mx.scalar %u {op = "mul", scalar = 0.0 : f64} : tensor<3x2xf64>
  %one = mx.scalar %z {op = "add", scalar = 1.0 : f64} : tensor<3x2xf64>
  %cs = mx.cumsum %one {axis = 1 : i64, exclusive = true, reverse = true} : (tensor<3x2xf64>) -> tensor<3x2xf64>
  %c1 = mx.scalar %cs {op = "add", scalar = 1.0 : f64} : tensor<3x2xf64>
  %ie = mx.cast %c1 {to = i64} : (tensor<3x2xf64>) -> tensor<3x2xi64>
  %se = mx.scatter_elements %d, %ie, %u {axis = 1 : i64} : (tensor<3x4xf64>, tensor<3x2xi64>, tensor<3x2xf64>) -> tensor<3x4xf64>
  %o0 = mx.binary %se, %r0 {op = "mul"} : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %col = mx.slice %one {begin = array<i64: 0, 0>, end = array<i64: 2, 1>} : (tensor<3x2xf64>) -> tensor<2x1xf64>
  %cn = mx.cumsum %col {axis = 0 : i64, exclusive = true, reverse = true} : (tensor<2x1xf64>) -> tensor<2x1xf64>
  %c2 = mx.scalar %cn {op = "mul", scalar = 2.0 : f64} : tensor<2x1xf64>
  %c3 = mx.scalar %c2 {op = "add", scalar = 1.0 : f64} : tensor<2x1xf64>
  %in = mx.cast %c3 {to = i64} : (tensor<2x1xf64>) -> tensor<2x1xi64>
  %gn = mx.gather_nd %g, %in : (tensor<4x3xf64>, tensor<2x1xi64>) -> tensor<2x3xf64>
  %o1 = mx.binary %gn, %r1 {op = "mul"} : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %sn = mx.scatter_nd %g, %in, %v : (tensor<4x3xf64>, tensor<2x1xi64>, tensor<2x3xf64>) -> tensor<4x3xf64>
  %o2 = mx.binary %sn, %r2 {op = "mul"} : (tensor<4x3xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
  %sa = mx.scatter_nd %g, %in, %v {reduction = "add"} : (tensor<4x3xf64>, tensor<2x1xi64>, tensor<2x3xf64>) -> tensor<4x3xf64>
  %o3 = mx.binary %sa, %r3 {op = "mul"} : (tensor<4x3xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
  return %o0, %o1, %o2, %o3 : tensor<3x4xf64>, tensor<2x3xf64>, tensor<4x3xf64>, tensor<4x3xf64>
}
