// GRADCHECK: {"loss": "softmax_ce", "label": "label", "args": {"label": "class:4"}}
func.func @forward(%x: tensor<3x5xf64>, %w: tensor<4x5xf64> {mx.param}, %b: tensor<4xf64> {mx.param}, %label: tensor<3xf64>) -> tensor<3x4xf64> {
  %h = mx.FullyConnected %x, %w, %b {num_hidden = 4 : i64} : (tensor<3x5xf64>, tensor<4x5xf64>, tensor<4xf64>) -> tensor<3x4xf64>
  %y = mx.SoftmaxOutput %h, %label : (tensor<3x4xf64>, tensor<3xf64>) -> tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
