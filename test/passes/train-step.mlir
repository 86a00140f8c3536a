// SPDX-License-Identifier: Apache-2.0
// mxc-train-step after mxc-gradient: @grad returns the outputs and the
// gradients of the mx.param arguments (not of mx.aux moving statistics, not
// the dropout counter's advance); @train_step takes the learning rate after
// the inputs and optimizer states (here momentum, one per learned parameter)
// after the dropout counter, and returns the outputs, every parameter in
// argument order (learned ones stepped, moving statistics updated), then
// every state. The source functions are gone.
// RUN: %mxc-opt --mxc-gradient --mxc-train-step='optimizer=momentum wd=0.5' %s | FileCheck %s

// CHECK-LABEL: func.func @grad(
// CHECK-SAME:    %{{.*}}: tensor<i64> {mx.name = "dropout_counter", mx.state})
// CHECK-SAME:    -> (tensor<2x4xf32>, tensor<4x3xf32> {mx.grad_of = 1 : i64}, tensor<4xf32> {mx.grad_of = 4 : i64}, tensor<4xf32> {mx.grad_of = 5 : i64})
// CHECK:         mx.dropout_mask
// CHECK-NOT:     mx.scalar %arg6 {op = "add"
// CHECK:         return
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME:    %{{.*}}: tensor<2x3xf32> {mx.name = "data"}, %[[LR:[a-z0-9]+]]: tensor<f32> {mx.name = "learning_rate"}, %[[W:[a-z0-9]+]]: tensor<4x3xf32> {mx.name = "w", mx.param}
// CHECK-SAME:    %[[C:[a-z0-9]+]]: tensor<i64> {mx.name = "dropout_counter", mx.state}, %[[MW:[a-z0-9]+]]: tensor<4x3xf32> {mx.name = "w_momentum", mx.state}, %{{.*}}: tensor<4xf32> {mx.name = "g_momentum", mx.state}, %{{.*}}: tensor<4xf32> {mx.name = "b_momentum", mx.state})
// CHECK-SAME:    -> (tensor<2x4xf32>, tensor<4x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<4x3xf32>, tensor<4xf32>, tensor<4xf32>)
// The counter advances by one.
// CHECK:         %[[C2:.*]] = mx.scalar %[[C]] {op = "add", scalar = 1.000000e+00 : f64}
// Weight decay, then momentum: m' = 0.9 m - lr g'; w' = w + m'.
// CHECK:         %[[WD:.*]] = mx.scalar %[[W]] {op = "mul", scalar = 5.000000e-01 : f64}
// CHECK:         %[[G:.*]] = mx.binary %{{.*}}, %[[WD]] {op = "add"}
// CHECK:         %[[LRG:.*]] = mx.binary %[[G]], %[[LR]] {op = "mul"}
// CHECK:         %[[M:.*]] = mx.scalar %[[MW]] {op = "mul", scalar = 9.000000e-01 : f64}
// CHECK:         %[[M2:.*]] = mx.binary %[[M]], %[[LRG]] {op = "sub"}
// CHECK:         %[[W2:.*]] = mx.binary %[[W]], %[[M2]] {op = "add"}
// CHECK:         return %{{.*}}, %[[W2]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[C2]], %[[M2]], %{{.*}}, %{{.*}} :
// CHECK-NOT:   func.func @forward_grad
func.func @forward(%x: tensor<2x3xf32> {mx.name = "data"}, %w: tensor<4x3xf32> {mx.name = "w", mx.param}, %mm: tensor<4xf32> {mx.name = "mm", mx.aux}, %mv: tensor<4xf32> {mx.name = "mv", mx.aux}, %g: tensor<4xf32> {mx.name = "g", mx.param}, %b: tensor<4xf32> {mx.name = "b", mx.param}) -> tensor<2x4xf32> {
  %h = mx.FullyConnected %x, %w {num_hidden = 4 : i64, no_bias = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %y = mx.BatchNorm %h, %g, %b, %mm, %mv {fix_gamma = false, axis = 1 : i64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %d = mx.Dropout %y {p = 0.5 : f64} : tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}
