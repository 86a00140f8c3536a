// GRADCHECK: {"args": {"ids": "int:6"}}
func.func @forward(%w: tensor<6x3xf64> {mx.param}, %ids: tensor<2x4xf64>, %r0: tensor<2x4x3xf64>) -> (tensor<2x4x3xf64>) {
  %y = mx.Embedding %ids, %w {input_dim = 6 : i64, output_dim = 3 : i64} : (tensor<2x4xf64>, tensor<6x3xf64>) -> tensor<2x4x3xf64>
  %o0 = mx.binary %y, %r0 {op = "mul"} : (tensor<2x4x3xf64>, tensor<2x4x3xf64>) -> tensor<2x4x3xf64>
  return %o0 : tensor<2x4x3xf64>
}
