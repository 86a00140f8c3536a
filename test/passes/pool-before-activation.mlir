// SPDX-License-Identifier: Apache-2.0
// --mxc-pool-before-activation: max pooling of a monotonic activation
// becomes the activation of the max pooling, which then runs on the pooled
// (smaller) tensor; the cases that must stay are below.
// RUN: %mxc-opt --split-input-file --mxc-pool-before-activation %s | FileCheck %s

// LeNet's tanh -> 2x2/2 max pooling.
// CHECK-LABEL: func.func @tanh_pool
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x8x8xf32>)
// CHECK: %[[P:.*]] = mx.Pooling %[[X]] {{.*}} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
// CHECK: %[[A:.*]] = mx.Activation %[[P]] {act_type = "tanh"} : tensor<2x3x4x4xf32>
// CHECK: return %[[A]]
func.func @tanh_pool(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32> {
  %a = mx.Activation %x {act_type = "tanh"} : tensor<2x3x8x8xf32>
  %y = mx.Pooling %a {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pool_type = "max"} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return %y : tensor<2x3x4x4xf32>
}

// -----

// Padding is fine while every window reaches into the input.
// CHECK-LABEL: func.func @sigmoid_padded
// CHECK: mx.Pooling %arg0
// CHECK: mx.Activation %{{.*}} {act_type = "sigmoid"} : tensor<1x2x4x4xf32>
func.func @sigmoid_padded(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32> {
  %a = mx.Activation %x {act_type = "sigmoid"} : tensor<1x2x7x7xf32>
  %y = mx.Pooling %a {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, pool_type = "max"} : (tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// Stays: the activation has another use; a mean pools to a different
// value; ReLU (the convolution's epilogue takes it); a "full" last window
// of padding only (stride 3 over a 3-wide input: window 1 is [3, 5)).
// CHECK-LABEL: func.func @stays
// CHECK-COUNT-2: mx.Activation %arg0
// CHECK: mx.Pooling
// CHECK: mx.Pooling
// CHECK: mx.Activation %arg1 {act_type = "relu"}
// CHECK: mx.Pooling
// CHECK: mx.Activation %arg2 {act_type = "tanh"}
// CHECK: mx.Pooling
// CHECK-NOT: mx.Activation
// CHECK: return
func.func @stays(%x: tensor<1x1x8x8xf32>, %r: tensor<1x1x8x8xf32>, %z: tensor<1x1x1x3xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x8x8xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x1x2xf32>) {
  %a = mx.Activation %x {act_type = "tanh"} : tensor<1x1x8x8xf32>
  %b = mx.Activation %x {act_type = "tanh"} : tensor<1x1x8x8xf32>
  %p = mx.Pooling %a {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pool_type = "max"} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  %m = mx.Pooling %b {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pool_type = "avg"} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  %c = mx.Activation %r {act_type = "relu"} : tensor<1x1x8x8xf32>
  %q = mx.Pooling %c {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pool_type = "max"} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  %d = mx.Activation %z {act_type = "tanh"} : tensor<1x1x1x3xf32>
  %w = mx.Pooling %d {kernel = array<i64: 1, 2>, stride = array<i64: 1, 3>, pooling_convention = "full", pool_type = "max"} : (tensor<1x1x1x3xf32>) -> tensor<1x1x1x2xf32>
  return %p, %a, %m, %q, %w : tensor<1x1x4x4xf32>, tensor<1x1x8x8xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x1x2xf32>
}
