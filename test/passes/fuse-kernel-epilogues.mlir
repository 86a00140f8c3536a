// SPDX-License-Identifier: Apache-2.0
// --mxc-fuse-kernel-epilogues: a residual add and a ReLU after a kernel op
// fold into it (accumulate into the residual, relu = true); a kernel result
// that something else also reads is left alone.
// RUN: %mxc-opt --split-input-file --pass-pipeline='builtin.module(func.func(mxc-convert-mx-to-linalg),canonicalize,func.func(mxc-fuse-kernel-epilogues))' %s | FileCheck %s

// ResNet's block tail: conv -> + shortcut -> relu is one kernel call that
// accumulates into the shortcut.
// CHECK-LABEL: func.func @block
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[S:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<4x4x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[Y:.*]] = mx.kernel.conv2d %[[X]], %[[W]], %[[B]] into %[[S]] {accumulate = true, {{.*}}relu = true
// CHECK-NEXT: return %[[Y]]
func.func @block(%x: tensor<1x4x8x8xf32>, %s: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %c = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %a = mx.binary %s, %c {op = "add"} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r = mx.Activation %a {act_type = "relu"} : tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// FullyConnected -> relu.
// CHECK-LABEL: func.func @fc_relu
// CHECK: mx.kernel.matmul {{.*}} {relu = true, transpose_b = true}
// CHECK-NOT: linalg.generic
func.func @fc_relu(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %y = mx.FullyConnected %x, %w, %b {num_hidden = 4 : i64} : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %r = mx.Activation %y {act_type = "relu"} : tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

// Must not fuse: the conv's result is also returned, so folding the ReLU
// (or the add) would change the other reader's value.
// CHECK-LABEL: func.func @two_readers
// CHECK: %[[C:.*]] = mx.kernel.conv2d
// CHECK-NOT: relu = true
// CHECK-NOT: accumulate = true
// CHECK: linalg.generic {{.*}} ins(%[[C]]
func.func @two_readers(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %c = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 4 : i64, no_bias = true} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %r = mx.Activation %c {act_type = "relu"} : tensor<1x4x8x8xf32>
  return %r, %c : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}

// -----

// Must not fuse: the add broadcasts its other operand (a bias per channel),
// which is no residual of the output's shape; the ReLU before the add is
// not the block's tail either.
// CHECK-LABEL: func.func @broadcast_add
// CHECK: mx.kernel.matmul {{.*}} {relu = true, transpose_b = true}
// CHECK-NOT: accumulate = true
// CHECK: linalg.generic
func.func @broadcast_add(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>, %c: tensor<1x4xf32>) -> tensor<2x4xf32> {
  %y = mx.FullyConnected %x, %w {num_hidden = 4 : i64, no_bias = true} : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  %r = mx.Activation %y {act_type = "relu"} : tensor<2x4xf32>
  %a = mx.binary %r, %c {op = "add"} : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  return %a : tensor<2x4xf32>
}

// -----

// A product without a bias plus one step of a larger tensor (a recurrent
// network's input projection): the step is read in place as the kernel's
// bias, not copied into its output to accumulate onto.
// CHECK-LABEL: func.func @step_of_projection
// CHECK: %[[STEP:.*]] = tensor.collapse_shape
// CHECK: mx.kernel.matmul %{{.*}}, %{{.*}}, %[[STEP]] into
// CHECK-NOT: accumulate = true
// CHECK-NOT: linalg.generic
func.func @step_of_projection(%xw: tensor<3x2x4xf32>, %h: tensor<2x8xf32>, %r: tensor<4x8xf32>) -> tensor<2x4xf32> {
  %s = mx.slice %xw {begin = array<i64: 1, 0, 0>, end = array<i64: 2, 2, 4>} : (tensor<3x2x4xf32>) -> tensor<1x2x4xf32>
  %step = mx.Reshape %s {shape = array<i64: 2, 4>} : (tensor<1x2x4xf32>) -> tensor<2x4xf32>
  %y = mx.FullyConnected %h, %r {num_hidden = 4 : i64, no_bias = true} : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  %a = mx.binary %step, %y {op = "add"} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %a : tensor<2x4xf32>
}

// -----

// A residual of its own, read once: accumulated onto in place.
// CHECK-LABEL: func.func @own_residual
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: mx.kernel.matmul %{{.*}}, %{{.*}} into %[[T]] {accumulate = true
func.func @own_residual(%x: tensor<2x4xf32>, %h: tensor<2x8xf32>, %r: tensor<4x8xf32>) -> tensor<2x4xf32> {
  %t = mx.unary %x {op = "tanh"} : tensor<2x4xf32>
  %y = mx.FullyConnected %h, %r {num_hidden = 4 : i64, no_bias = true} : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  %a = mx.binary %t, %y {op = "add"} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %a : tensor<2x4xf32>
}
