// SPDX-License-Identifier: Apache-2.0
// --mxc-convert-mx-to-linalg (kernels=true, the default): float32
// contractions become mx.kernel.* ops, with the operands' layouts expressed
// as transposes; other element types keep their loop nests.
// RUN: %mxc-opt --split-input-file --mxc-convert-mx-to-linalg %s | FileCheck %s

// FullyConnected: x W^T + bias, W used as stored (transposed B).
// CHECK-LABEL: func.func @fc
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<5x12xf32>, %[[B:.*]]: tensor<5xf32>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]]
// CHECK: %[[X2:.*]] = tensor.expand_shape %[[FLAT]] {{.*}} into tensor<2x12xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x5xf32>
// CHECK: mx.kernel.matmul %[[X2]], %[[W]], %[[B]] into %[[E]] {transpose_b = true}
// CHECK-NOT: linalg.generic
func.func @fc(%x: tensor<2x3x4xf32>, %w: tensor<5x12xf32>, %b: tensor<5xf32>) -> tensor<2x5xf32> {
  %y = mx.FullyConnected %x, %w, %b {num_hidden = 5 : i64} : (tensor<2x3x4xf32>, tensor<5x12xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// Convolution: padding, strides and dilations travel as attributes (the
// kernel pads implicitly; no tensor.pad).
// CHECK-LABEL: func.func @conv
// CHECK-NOT: tensor.pad
// CHECK: mx.kernel.conv2d %{{.*}}, %{{.*}} into %{{.*}} {dilations = array<i64: 1, 2>, groups = 2 : i64, pads = array<i64: 1, 0>, strides = array<i64: 2, 1>}
// CHECK-SAME: tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32> into tensor<1x6x5x5xf32>
func.func @conv(%x: tensor<1x4x9x9xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x5x5xf32> {
  %y = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, stride = array<i64: 2, 1>, dilate = array<i64: 1, 2>, pad = array<i64: 1, 0>, num_filter = 6 : i64, num_group = 2 : i64, no_bias = true} : (tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x5x5xf32>
  return %y : tensor<1x6x5x5xf32>
}

// -----

// batch_dot with transpose_a.
// CHECK-LABEL: func.func @batch_dot
// CHECK: mx.kernel.matmul %{{.*}}, %{{.*}} into %{{.*}} {transpose_a = true} : tensor<3x4x2xf32>, tensor<3x4x5xf32> into tensor<3x2x5xf32>
func.func @batch_dot(%a: tensor<3x4x2xf32>, %b: tensor<3x4x5xf32>) -> tensor<3x2x5xf32> {
  %y = mx.dot %a, %b {batch = true, transpose_a = true} : (tensor<3x4x2xf32>, tensor<3x4x5xf32>) -> tensor<3x2x5xf32>
  return %y : tensor<3x2x5xf32>
}

// -----

// NumPy matmul of a stack of rows by one matrix: the stack folds into M.
// CHECK-LABEL: func.func @matmul_stack
// CHECK: %[[A:.*]] = tensor.expand_shape {{.*}} into tensor<6x4xf32>
// CHECK: %[[Y:.*]] = mx.kernel.matmul %[[A]], %{{.*}} into %{{.*}} : tensor<6x4xf32>, tensor<4x5xf32> into tensor<6x5xf32>
// CHECK: tensor.collapse_shape %[[Y]]
func.func @matmul_stack(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %y = mx.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// Not float32: the loop nest stays.
// CHECK-LABEL: func.func @fc_f64
// CHECK-NOT: mx.kernel
// CHECK: linalg.generic
func.func @fc_f64(%x: tensor<2x4xf64>, %w: tensor<3x4xf64>) -> tensor<2x3xf64> {
  %y = mx.FullyConnected %x, %w {num_hidden = 3 : i64, no_bias = true} : (tensor<2x4xf64>, tensor<3x4xf64>) -> tensor<2x3xf64>
  return %y : tensor<2x3xf64>
}
