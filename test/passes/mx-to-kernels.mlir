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

// Per-head products (batch x heads x rows x depth): the batch axes fold into
// one; batch axes that differ (broadcast) keep the loop nest.
// CHECK-LABEL: func.func @matmul_heads
// CHECK: %[[Q:.*]] = tensor.expand_shape {{.*}} into tensor<6x5x4xf32>
// CHECK: %[[K:.*]] = tensor.expand_shape {{.*}} into tensor<6x4x7xf32>
// CHECK: %[[Y:.*]] = mx.kernel.matmul %[[Q]], %[[K]] into %{{.*}} : tensor<6x5x4xf32>, tensor<6x4x7xf32> into tensor<6x5x7xf32>
// CHECK: tensor.expand_shape {{.*}} into tensor<2x3x5x7xf32>
func.func @matmul_heads(%q: tensor<2x3x5x4xf32>, %k: tensor<2x3x4x7xf32>) -> tensor<2x3x5x7xf32> {
  %y = mx.matmul %q, %k : (tensor<2x3x5x4xf32>, tensor<2x3x4x7xf32>) -> tensor<2x3x5x7xf32>
  return %y : tensor<2x3x5x7xf32>
}

// CHECK-LABEL: func.func @matmul_heads_broadcast
// CHECK-NOT: mx.kernel
// CHECK: linalg.generic
func.func @matmul_heads_broadcast(%q: tensor<2x3x5x4xf32>, %k: tensor<1x3x4x7xf32>) -> tensor<2x3x5x7xf32> {
  %y = mx.matmul %q, %k : (tensor<2x3x5x4xf32>, tensor<1x3x4x7xf32>) -> tensor<2x3x5x7xf32>
  return %y : tensor<2x3x5x7xf32>
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

// -----

// 2-D float32 pooling: kernel, strides and low padding travel as
// attributes (no tensor.pad, no padded copy); the output extent carries the
// convention ("full" here: 4 rows where "valid" has 3).
// CHECK-LABEL: func.func @max_pool
// CHECK-NOT: tensor.pad
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x3x4x3xf32>
// CHECK: mx.kernel.pool2d %{{.*}} into %[[E]] {kernel = array<i64: 3, 3>, pads = array<i64: 1, 0>, strides = array<i64: 2, 2>}
// CHECK-SAME: tensor<1x3x7x7xf32> into tensor<1x3x4x3xf32>
// CHECK-NOT: linalg.generic
func.func @max_pool(%x: tensor<1x3x7x7xf32>) -> tensor<1x3x4x3xf32> {
  %y = mx.Pooling %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 0>, pooling_convention = "full", pool_type = "max"} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x3xf32>
  return %y : tensor<1x3x4x3xf32>
}

// -----

// Mean pooling keeps count_include_pad (false here; only means count).
// CHECK-LABEL: func.func @avg_pool
// CHECK: mx.kernel.pool2d %{{.*}} into %{{.*}} {kernel = array<i64: 2, 2>, pads = array<i64: 1, 1>, pool_type = "avg", strides = array<i64: 2, 2>}
func.func @avg_pool(%x: tensor<2x3x5x6xf32>) -> tensor<2x3x3x4xf32> {
  %a = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, count_include_pad = false, pool_type = "avg"} : (tensor<2x3x5x6xf32>) -> tensor<2x3x3x4xf32>
  return %a : tensor<2x3x3x4xf32>
}

// -----

// No kernel for windows inside the input (LeNet's 2x2/2, global pooling:
// the loops' static trip counts vectorize better), dilated windows, other
// element types or 1-D / 3-D pooling: those keep their loop nests.
// CHECK-LABEL: func.func @pools_without_kernel
// CHECK-NOT: mx.kernel.pool2d
// CHECK: linalg.generic
// CHECK-NOT: mx.kernel.pool2d
// CHECK: return
func.func @pools_without_kernel(%x: tensor<1x2x6x6xf32>, %d: tensor<1x2x6x6xf64>, %i: tensor<1x2x6x6xi32>, %v: tensor<1x2x4x4x4xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x4x4xf64>, tensor<1x2x4x4xi32>, tensor<1x2x3x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) {
  %a = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, dilate = array<i64: 2, 2>, pool_type = "max"} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
  %b = mx.Pooling %d {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, pool_type = "avg"} : (tensor<1x2x6x6xf64>) -> tensor<1x2x4x4xf64>
  %c = mx.Pooling %i {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, pool_type = "max"} : (tensor<1x2x6x6xi32>) -> tensor<1x2x4x4xi32>
  %e = mx.Pooling %v {kernel = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, pad = array<i64: 1, 1, 1>, pool_type = "max"} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x3x3x3xf32>
  %f = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pool_type = "max"} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
  %g = mx.Pooling %x {kernel = array<i64: 1, 1>, global_pool = true, pool_type = "sum"} : (tensor<1x2x6x6xf32>) -> tensor<1x2x1x1xf32>
  return %a, %b, %c, %e, %f, %g : tensor<1x2x3x3xf32>, tensor<1x2x4x4xf64>, tensor<1x2x4x4xi32>, tensor<1x2x3x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>
}
