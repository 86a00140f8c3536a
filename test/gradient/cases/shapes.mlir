// GRADCHECK: {}
func.func @forward(%x: tensor<2x3x4xf64> {mx.param}, %r0: tensor<2x12xf64>, %r1: tensor<4x2x3xf64>, %r2: tensor<2x1x4xf64>, %r3: tensor<2x3x2xf64>, %r4: tensor<2x6xf64>) -> (tensor<2x12xf64>, tensor<4x2x3xf64>, tensor<2x1x4xf64>, tensor<2x3x2xf64>, tensor<2x6xf64>) {
  %a = mx.Reshape %x {shape = array<i64: 0, -1>} : (tensor<2x3x4xf64>) -> tensor<2x12xf64>
  %b = mx.transpose %x {axes = array<i64: 2, 0, 1>} : (tensor<2x3x4xf64>) -> tensor<4x2x3xf64>
  %d = mx.slice %x {begin = array<i64: 0, 1, 0>, end = array<i64: 2, 5, 4>, step = array<i64: 1, 2, 1>} : (tensor<2x3x4xf64>) -> tensor<2x1x4xf64>
  %e:2 = mx.SliceChannel %x {num_outputs = 2 : i64, axis = 2 : i64} : (tensor<2x3x4xf64>) -> (tensor<2x3x2xf64>, tensor<2x3x2xf64>)
  %f = mx.expand_dims %e#1 {axis = 1 : i64} : (tensor<2x3x2xf64>) -> tensor<2x1x3x2xf64>
  %g = mx.Flatten %f : (tensor<2x1x3x2xf64>) -> tensor<2x6xf64>
  %o0 = mx.binary %a, %r0 {op = "mul"} : (tensor<2x12xf64>, tensor<2x12xf64>) -> tensor<2x12xf64>
  %o1 = mx.binary %b, %r1 {op = "mul"} : (tensor<4x2x3xf64>, tensor<4x2x3xf64>) -> tensor<4x2x3xf64>
  %o2 = mx.binary %d, %r2 {op = "mul"} : (tensor<2x1x4xf64>, tensor<2x1x4xf64>) -> tensor<2x1x4xf64>
  %o3 = mx.binary %e#0, %r3 {op = "mul"} : (tensor<2x3x2xf64>, tensor<2x3x2xf64>) -> tensor<2x3x2xf64>
  %o4 = mx.binary %g, %r4 {op = "mul"} : (tensor<2x6xf64>, tensor<2x6xf64>) -> tensor<2x6xf64>
  return %o0, %o1, %o2, %o3, %o4 : tensor<2x12xf64>, tensor<4x2x3xf64>, tensor<2x1x4xf64>, tensor<2x3x2xf64>, tensor<2x6xf64>
}
