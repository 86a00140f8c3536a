// GRADCHECK: {}
// reflect / edge padding with negative counts (ONNX Pad crops there): the
// forward pads by the positive counts and then crops, so some reflected or
// repeated border values survive while the cropped data gets no gradient.
func.func @forward(%x: tensor<2x4x5xf64> {mx.param}, %r0: tensor<2x5x6xf64>, %r1: tensor<2x3x6xf64>) -> (tensor<2x5x6xf64>, tensor<2x3x6xf64>) {
  %p = mx.pad %x {pads = array<i64: 0, 2, -1, 0, -1, 2>, mode = "reflect"} : (tensor<2x4x5xf64>) -> tensor<2x5x6xf64>
  %o0 = mx.binary %p, %r0 {op = "mul"} : (tensor<2x5x6xf64>, tensor<2x5x6xf64>) -> tensor<2x5x6xf64>
  %q = mx.pad %x {pads = array<i64: -1, 1, 0, 1, -2, 1>, mode = "edge"} : (tensor<2x4x5xf64>) -> tensor<2x3x6xf64>
  %o1 = mx.binary %q, %r1 {op = "mul"} : (tensor<2x3x6xf64>, tensor<2x3x6xf64>) -> tensor<2x3x6xf64>
  return %o0, %o1 : tensor<2x5x6xf64>, tensor<2x3x6xf64>
}
