// GRADCHECK: {}
// Indices drawn from the (not differentiated) input %r: floor(|r| * 3) mod n,
// so some repeat (their gradients add up) and some rows get none.
func.func @forward(%x: tensor<4x3xf64> {mx.param}, %e: tensor<3x4xf64> {mx.param}, %r: tensor<2x2xf64>, %q: tensor<3x2xf64>, %r0: tensor<2x2x3xf64>, %r1: tensor<3x2xf64>) -> (tensor<2x2x3xf64>, tensor<3x2xf64>) {
  %a = mx.unary %r {op = "abs"} : tensor<2x2xf64>
  %s = mx.scalar %a {op = "mul", scalar = 3.0 : f64} : tensor<2x2xf64>
  %f = mx.unary %s {op = "floor"} : tensor<2x2xf64>
  %m = mx.scalar %f {op = "mod", scalar = 4.0 : f64} : tensor<2x2xf64>
  %k = mx.cast %m {to = i64} : (tensor<2x2xf64>) -> tensor<2x2xi64>
  %g = mx.gather %x, %k {axis = 0 : i64} : (tensor<4x3xf64>, tensor<2x2xi64>) -> tensor<2x2x3xf64>
  %o0 = mx.binary %g, %r0 {op = "mul"} : (tensor<2x2x3xf64>, tensor<2x2x3xf64>) -> tensor<2x2x3xf64>
  %qa = mx.unary %q {op = "abs"} : tensor<3x2xf64>
  %qs = mx.scalar %qa {op = "mul", scalar = 3.0 : f64} : tensor<3x2xf64>
  %qf = mx.unary %qs {op = "floor"} : tensor<3x2xf64>
  %qm = mx.scalar %qf {op = "mod", scalar = 4.0 : f64} : tensor<3x2xf64>
  %j = mx.cast %qm {to = i64} : (tensor<3x2xf64>) -> tensor<3x2xi64>
  %ge = mx.gather_elements %e, %j {axis = 1 : i64} : (tensor<3x4xf64>, tensor<3x2xi64>) -> tensor<3x2xf64>
  %o1 = mx.binary %ge, %r1 {op = "mul"} : (tensor<3x2xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
  return %o0, %o1 : tensor<2x2x3xf64>, tensor<3x2xf64>
}
