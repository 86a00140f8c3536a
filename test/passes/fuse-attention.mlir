// SPDX-License-Identifier: Apache-2.0
// --mxc-select-cpu-kernels fuses scaled dot-product attention, softmax(scale
// q k^T + mask) v, into one mx.kernel.attention (mxrt_kernel_sattention, the
// scores never stored) in the forms torch.onnx.export writes, and leaves
// near misses to the separate kernels.
// RUN: %mxc-opt --split-input-file --mxc-select-cpu-kernels %s | FileCheck %s

// nn.MultiheadAttention (rank 3, heads in the batch): q divided by a
// constant before the product.
// CHECK-LABEL: func.func @encoder
// CHECK-SAME: (%[[Q:.*]]: tensor<4x16x8xf32>, %[[KT:.*]]: tensor<4x8x16xf32>, %[[V:.*]]: tensor<4x16x8xf32>, %[[S:.*]]: tensor<f32> {mxc.constant})
// CHECK-NOT: mx.softmax
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x16x8xf32>
// CHECK: %[[O:.*]] = mx.kernel.attention %[[Q]], %[[KT]], %[[V]], %[[S]] into %[[E]] {divide = true, transpose_k = true}
// CHECK-NOT: mx.kernel.matmul
// CHECK: return %[[O]]
func.func @encoder(%q: tensor<4x16x8xf32>, %kt: tensor<4x8x16xf32>, %v: tensor<4x16x8xf32>, %s: tensor<f32> {mxc.constant}) -> tensor<4x16x8xf32> {
  %0 = mx.binary %q, %s {op = "div"} : (tensor<4x16x8xf32>, tensor<f32>) -> tensor<4x16x8xf32>
  %1 = mx.matmul %0, %kt : (tensor<4x16x8xf32>, tensor<4x8x16xf32>) -> tensor<4x16x16xf32>
  %2 = mx.softmax %1 {axis = 2 : i64} : tensor<4x16x16xf32>
  %3 = mx.matmul %2, %v : (tensor<4x16x16xf32>, tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %3 : tensor<4x16x8xf32>
}

// -----

// A GPT-2 block (rank 4): the scores divided, then Where(not causal, -inf,
// scores); the mask becomes an additive one of the condition's shape.
// CHECK-LABEL: func.func @causal
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x5x4xf32>, %[[KT:.*]]: tensor<1x2x4x7xf32>, %[[V:.*]]: tensor<1x2x7x3xf32>, %[[S:.*]]: tensor<f32> {mxc.constant}, %[[C:.*]]: tensor<5x7xi1>, %[[F:.*]]: tensor<f32> {mxc.constant})
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%[[C]], %[[F]] : tensor<5x7xi1>, tensor<f32>)
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: mx.kernel.attention %[[Q]], %[[KT]], %[[V]], %[[S]], %[[M]] into %{{.*}} {divide = true, transpose_k = true} : tensor<1x2x5x4xf32>, tensor<1x2x4x7xf32>, tensor<1x2x7x3xf32>, tensor<f32>, tensor<5x7xf32> into tensor<1x2x5x3xf32>
// CHECK-NOT: mx.softmax
// CHECK-NOT: mx.where
func.func @causal(%q: tensor<1x2x5x4xf32>, %kt: tensor<1x2x4x7xf32>, %v: tensor<1x2x7x3xf32>, %s: tensor<f32> {mxc.constant}, %c: tensor<5x7xi1>, %fill: tensor<f32> {mxc.constant}) -> tensor<1x2x5x3xf32> {
  %0 = mx.matmul %q, %kt : (tensor<1x2x5x4xf32>, tensor<1x2x4x7xf32>) -> tensor<1x2x5x7xf32>
  %1 = mx.binary %0, %s {op = "div"} : (tensor<1x2x5x7xf32>, tensor<f32>) -> tensor<1x2x5x7xf32>
  %2 = mx.where %c, %fill, %1 : (tensor<5x7xi1>, tensor<f32>, tensor<1x2x5x7xf32>) -> tensor<1x2x5x7xf32>
  %3 = mx.softmax %2 {axis = 3 : i64} : tensor<1x2x5x7xf32>
  %4 = mx.matmul %3, %v : (tensor<1x2x5x7xf32>, tensor<1x2x7x3xf32>) -> tensor<1x2x5x3xf32>
  return %4 : tensor<1x2x5x3xf32>
}

// -----

// An additive mask (Hugging Face's form) and a scale from mx.scalar
// (MXNet's _mul_scalar): the scale becomes a constant tensor.
// CHECK-LABEL: func.func @additive
// CHECK-SAME: %[[MASK:[^:]*]]: tensor<1x1x5x7xf32>
// CHECK: %[[S:.*]] = arith.constant dense<1.250000e-01> : tensor<f32>
// CHECK: mx.kernel.attention %{{.*}}, %{{.*}}, %{{.*}}, %[[S]], %[[MASK]] into %{{.*}} {transpose_k = true}
func.func @additive(%q: tensor<1x2x5x4xf32>, %kt: tensor<1x2x4x7xf32>, %v: tensor<1x2x7x3xf32>, %mask: tensor<1x1x5x7xf32>) -> tensor<1x2x5x3xf32> {
  %0 = mx.matmul %q, %kt : (tensor<1x2x5x4xf32>, tensor<1x2x4x7xf32>) -> tensor<1x2x5x7xf32>
  %1 = mx.scalar %0 {op = "mul", scalar = 1.250000e-01 : f64} : tensor<1x2x5x7xf32>
  %2 = mx.binary %mask, %1 {op = "add"} : (tensor<1x1x5x7xf32>, tensor<1x2x5x7xf32>) -> tensor<1x2x5x7xf32>
  %3 = mx.softmax %2 {axis = -1 : i64} : tensor<1x2x5x7xf32>
  %4 = mx.matmul %3, %v : (tensor<1x2x5x7xf32>, tensor<1x2x7x3xf32>) -> tensor<1x2x5x3xf32>
  return %4 : tensor<1x2x5x3xf32>
}

// -----

// MXNet 1.x: batch_dot(q, k, transpose_b=True), _mul_scalar, softmax,
// batch_dot(att, v): k is read as it is (no transpose_k).
// CHECK-LABEL: func.func @mxnet_batch_dot
// CHECK-SAME: (%[[Q:.*]]: tensor<6x5x4xf32>, %[[K:.*]]: tensor<6x7x4xf32>, %[[V:.*]]: tensor<6x7x3xf32>)
// CHECK: %[[S:.*]] = arith.constant dense<5.000000e-01> : tensor<f32>
// CHECK: mx.kernel.attention %[[Q]], %[[K]], %[[V]], %[[S]] into %{{.*}} : tensor<6x5x4xf32>, tensor<6x7x4xf32>, tensor<6x7x3xf32>, tensor<f32> into tensor<6x5x3xf32>
// CHECK-NOT: mx.dot
func.func @mxnet_batch_dot(%q: tensor<6x5x4xf32>, %k: tensor<6x7x4xf32>, %v: tensor<6x7x3xf32>) -> tensor<6x5x3xf32> {
  %0 = mx.dot %q, %k {batch = true, transpose_b = true} : (tensor<6x5x4xf32>, tensor<6x7x4xf32>) -> tensor<6x5x7xf32>
  %1 = mx.scalar %0 {op = "mul", scalar = 5.000000e-01 : f64} : tensor<6x5x7xf32>
  %2 = mx.softmax %1 {axis = -1 : i64} : tensor<6x5x7xf32>
  %3 = mx.dot %2, %v {batch = true} : (tensor<6x5x7xf32>, tensor<6x7x3xf32>) -> tensor<6x5x3xf32>
  return %3 : tensor<6x5x3xf32>
}

// -----

// The attention's output read twice: still one kernel, read by both.
// CHECK-LABEL: func.func @output_read_twice
// CHECK: %[[O:.*]] = mx.kernel.attention
// CHECK: return %[[O]], %[[O]]
func.func @output_read_twice(%q: tensor<4x16x8xf32>, %kt: tensor<4x8x16xf32>, %v: tensor<4x16x8xf32>) -> (tensor<4x16x8xf32>, tensor<4x16x8xf32>) {
  %0 = mx.matmul %q, %kt : (tensor<4x16x8xf32>, tensor<4x8x16xf32>) -> tensor<4x16x16xf32>
  %1 = mx.softmax %0 {axis = 2 : i64} : tensor<4x16x16xf32>
  %2 = mx.matmul %1, %v : (tensor<4x16x16xf32>, tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %2, %2 : tensor<4x16x8xf32>, tensor<4x16x8xf32>
}

// -----

// Near miss: a mask of another shape, which widens the scores (two batches
// from one): the ops stay apart.
// CHECK-LABEL: func.func @mask_widens
// CHECK-NOT: mx.kernel.attention
// CHECK: mx.softmax
func.func @mask_widens(%q: tensor<1x2x5x4xf32>, %kt: tensor<1x2x4x7xf32>, %v: tensor<2x2x7x3xf32>, %mask: tensor<2x1x5x7xf32>) -> tensor<2x2x5x3xf32> {
  %0 = mx.matmul %q, %kt : (tensor<1x2x5x4xf32>, tensor<1x2x4x7xf32>) -> tensor<1x2x5x7xf32>
  %1 = mx.binary %0, %mask {op = "add"} : (tensor<1x2x5x7xf32>, tensor<2x1x5x7xf32>) -> tensor<2x2x5x7xf32>
  %2 = mx.softmax %1 {axis = -1 : i64} : tensor<2x2x5x7xf32>
  %3 = mx.matmul %2, %v : (tensor<2x2x5x7xf32>, tensor<2x2x7x3xf32>) -> tensor<2x2x5x3xf32>
  return %3 : tensor<2x2x5x3xf32>
}

// -----

// Near miss: the scale is not a constant (an input): the ops stay apart.
// CHECK-LABEL: func.func @scale_not_constant
// CHECK-NOT: mx.kernel.attention
// CHECK: mx.softmax
func.func @scale_not_constant(%q: tensor<4x16x8xf32>, %kt: tensor<4x8x16xf32>, %v: tensor<4x16x8xf32>, %s: tensor<f32>) -> tensor<4x16x8xf32> {
  %0 = mx.matmul %q, %kt : (tensor<4x16x8xf32>, tensor<4x8x16xf32>) -> tensor<4x16x16xf32>
  %1 = mx.binary %0, %s {op = "div"} : (tensor<4x16x16xf32>, tensor<f32>) -> tensor<4x16x16xf32>
  %2 = mx.softmax %1 {axis = 2 : i64} : tensor<4x16x16xf32>
  %3 = mx.matmul %2, %v : (tensor<4x16x16xf32>, tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %3 : tensor<4x16x8xf32>
}

// -----

// Near misses: a softmax over the queries, and scores read elsewhere too.
// CHECK-LABEL: func.func @softmax_axis
// CHECK-NOT: mx.kernel.attention
// CHECK-LABEL: func.func @scores_read_twice
// CHECK-NOT: mx.kernel.attention
// CHECK: return
func.func @softmax_axis(%q: tensor<4x16x8xf32>, %kt: tensor<4x8x16xf32>, %v: tensor<4x16x8xf32>) -> tensor<4x16x8xf32> {
  %0 = mx.matmul %q, %kt : (tensor<4x16x8xf32>, tensor<4x8x16xf32>) -> tensor<4x16x16xf32>
  %1 = mx.softmax %0 {axis = 1 : i64} : tensor<4x16x16xf32>
  %2 = mx.matmul %1, %v : (tensor<4x16x16xf32>, tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %2 : tensor<4x16x8xf32>
}
func.func @scores_read_twice(%q: tensor<4x16x8xf32>, %kt: tensor<4x8x16xf32>, %v: tensor<4x16x8xf32>) -> (tensor<4x16x8xf32>, tensor<4x16x16xf32>) {
  %0 = mx.matmul %q, %kt : (tensor<4x16x8xf32>, tensor<4x8x16xf32>) -> tensor<4x16x16xf32>
  %1 = mx.softmax %0 {axis = 2 : i64} : tensor<4x16x16xf32>
  %2 = mx.matmul %1, %v : (tensor<4x16x16xf32>, tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %2, %0 : tensor<4x16x8xf32>, tensor<4x16x16xf32>
}

// -----

// A decode step with a key/value cache (make_gpt_decode.py's export): the
// cache's extent is known only at run time, K arrives as the cache
// transposed by its own mx.transpose (read in place instead: the transpose
// goes), and the Where mask has run-time extents; the output and the mask
// take their extents from q, v and the condition.
// CHECK-LABEL: func.func @decode_step
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x?x4xf32>, %[[K:.*]]: tensor<1x2x?x4xf32>, %[[V:.*]]: tensor<1x2x?x3xf32>, %[[S:.*]]: tensor<f32> {mxc.constant}, %[[C:.*]]: tensor<?x?xi1>, %[[F:.*]]: tensor<f32> {mxc.constant})
// CHECK-NOT: mx.transpose
// CHECK-DAG: %[[C0:.*]] = tensor.dim %[[C]], %c0
// CHECK-DAG: %[[C1:.*]] = tensor.dim %[[C]], %c1
// CHECK: %[[ME:.*]] = tensor.empty(%[[C0]], %[[C1]]) : tensor<?x?xf32>
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%[[C]], %[[F]] : tensor<?x?xi1>, tensor<f32>) outs(%[[ME]] : tensor<?x?xf32>)
// CHECK: %[[SQ:.*]] = tensor.dim %[[Q]], %c2
// CHECK: %[[E:.*]] = tensor.empty(%[[SQ]]) : tensor<1x2x?x3xf32>
// CHECK: mx.kernel.attention %[[Q]], %[[K]], %[[V]], %[[S]], %[[M]] into %[[E]] {divide = true} : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x3xf32>, tensor<f32>, tensor<?x?xf32> into tensor<1x2x?x3xf32>
// CHECK-NOT: mx.softmax
func.func @decode_step(%q: tensor<1x2x?x4xf32>, %k: tensor<1x2x?x4xf32>, %v: tensor<1x2x?x3xf32>, %s: tensor<f32> {mxc.constant}, %c: tensor<?x?xi1>, %fill: tensor<f32> {mxc.constant}) -> tensor<1x2x?x3xf32> {
  %kt = mx.transpose %k {axes = array<i64: 0, 1, 3, 2>} : (tensor<1x2x?x4xf32>) -> tensor<1x2x4x?xf32>
  %0 = mx.matmul %q, %kt : (tensor<1x2x?x4xf32>, tensor<1x2x4x?xf32>) -> tensor<1x2x?x?xf32>
  %1 = mx.binary %0, %s {op = "div"} : (tensor<1x2x?x?xf32>, tensor<f32>) -> tensor<1x2x?x?xf32>
  %2 = mx.where %c, %fill, %1 : (tensor<?x?xi1>, tensor<f32>, tensor<1x2x?x?xf32>) -> tensor<1x2x?x?xf32>
  %3 = mx.softmax %2 {axis = 3 : i64} : tensor<1x2x?x?xf32>
  %4 = mx.matmul %3, %v : (tensor<1x2x?x?xf32>, tensor<1x2x?x3xf32>) -> tensor<1x2x?x3xf32>
  return %4 : tensor<1x2x?x3xf32>
}

// -----

// Near miss for the transpose only: K transposed and read elsewhere too
// keeps its transpose (the kernel reads the copy's columns), and the
// attention still fuses.
// CHECK-LABEL: func.func @transposed_k_read_twice
// CHECK: %[[KT:.*]] = mx.transpose
// CHECK: mx.kernel.attention %{{.*}}, %[[KT]], %{{.*}} {transpose_k = true}
// CHECK: return %{{.*}}, %[[KT]]
func.func @transposed_k_read_twice(%q: tensor<4x16x8xf32>, %k: tensor<4x16x8xf32>, %v: tensor<4x16x8xf32>) -> (tensor<4x16x8xf32>, tensor<4x8x16xf32>) {
  %kt = mx.transpose %k {axes = array<i64: 0, 2, 1>} : (tensor<4x16x8xf32>) -> tensor<4x8x16xf32>
  %0 = mx.matmul %q, %kt : (tensor<4x16x8xf32>, tensor<4x8x16xf32>) -> tensor<4x16x16xf32>
  %1 = mx.softmax %0 {axis = 2 : i64} : tensor<4x16x16xf32>
  %2 = mx.matmul %1, %v : (tensor<4x16x16xf32>, tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %2, %kt : tensor<4x16x8xf32>, tensor<4x8x16xf32>
}

// -----

// Grouped-query attention (4 query heads, 2 key and value heads each
// repeated for 2 of them, as exports write the repeat): the kernel reads the
// unrepeated keys and values, q regrouped as 2 batches of 2 heads, K and V
// as 2 batches of 1 head (broadcast across the group); the repeats go.
// CHECK-LABEL: func.func @grouped_query
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x6x8xf32>, %[[K:.*]]: tensor<1x2x6x8xf32>, %[[V:.*]]: tensor<1x2x6x8xf32>
// CHECK-NOT: mx.broadcast_to
// CHECK: %[[QC:.*]] = tensor.collapse_shape %[[Q]]
// CHECK: %[[QG:.*]] = tensor.expand_shape %[[QC]] {{.*}} into tensor<2x2x6x8xf32>
// CHECK: %[[KC:.*]] = tensor.collapse_shape %[[K]]
// CHECK: %[[KG:.*]] = tensor.expand_shape %[[KC]] {{.*}} into tensor<2x1x6x8xf32>
// CHECK: %[[VC:.*]] = tensor.collapse_shape %[[V]]
// CHECK: %[[VG:.*]] = tensor.expand_shape %[[VC]] {{.*}} into tensor<2x1x6x8xf32>
// CHECK: %[[O:.*]] = mx.kernel.attention %[[QG]], %[[KG]], %[[VG]], %{{.*}}, %{{.*}} into %{{.*}} {divide = true} : tensor<2x2x6x8xf32>, tensor<2x1x6x8xf32>, tensor<2x1x6x8xf32>, tensor<f32>, tensor<6x6xf32> into tensor<2x2x6x8xf32>
// CHECK: %[[OC:.*]] = tensor.collapse_shape %[[O]]
// CHECK: %[[Y:.*]] = tensor.expand_shape %[[OC]] {{.*}} into tensor<1x4x6x8xf32>
// CHECK-NOT: mx.broadcast_to
// CHECK: return %[[Y]]
func.func @grouped_query(%q: tensor<1x4x6x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>, %s: tensor<f32> {mxc.constant}, %c: tensor<6x6xi1>, %fill: tensor<f32> {mxc.constant}) -> tensor<1x4x6x8xf32> {
  %k1 = mx.Reshape %k {shape = array<i64: 1, 2, 1, 6, 8>} : (tensor<1x2x6x8xf32>) -> tensor<1x2x1x6x8xf32>
  %k2 = mx.broadcast_to %k1 {shape = array<i64: 1, 2, 2, 6, 8>} : (tensor<1x2x1x6x8xf32>) -> tensor<1x2x2x6x8xf32>
  %k3 = mx.Reshape %k2 {shape = array<i64: 1, 4, 6, 8>} : (tensor<1x2x2x6x8xf32>) -> tensor<1x4x6x8xf32>
  %v1 = mx.Reshape %v {shape = array<i64: 1, 2, 1, 6, 8>} : (tensor<1x2x6x8xf32>) -> tensor<1x2x1x6x8xf32>
  %v2 = mx.broadcast_to %v1 {shape = array<i64: 1, 2, 2, 6, 8>} : (tensor<1x2x1x6x8xf32>) -> tensor<1x2x2x6x8xf32>
  %v3 = mx.Reshape %v2 {shape = array<i64: 1, 4, 6, 8>} : (tensor<1x2x2x6x8xf32>) -> tensor<1x4x6x8xf32>
  %kt = mx.transpose %k3 {axes = array<i64: 0, 1, 3, 2>} : (tensor<1x4x6x8xf32>) -> tensor<1x4x8x6xf32>
  %0 = mx.matmul %q, %kt : (tensor<1x4x6x8xf32>, tensor<1x4x8x6xf32>) -> tensor<1x4x6x6xf32>
  %1 = mx.binary %0, %s {op = "div"} : (tensor<1x4x6x6xf32>, tensor<f32>) -> tensor<1x4x6x6xf32>
  %2 = mx.where %c, %fill, %1 : (tensor<6x6xi1>, tensor<f32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %3 = mx.softmax %2 {axis = 3 : i64} : tensor<1x4x6x6xf32>
  %4 = mx.matmul %3, %v3 : (tensor<1x4x6x6xf32>, tensor<1x4x6x8xf32>) -> tensor<1x4x6x8xf32>
  return %4 : tensor<1x4x6x8xf32>
}

// -----

// Near miss for the grouping only: a mask that varies by head cannot be
// shared by a group's heads, so the repeated keys and values stay (the
// attention still fuses, over 4 heads).
// CHECK-LABEL: func.func @grouped_query_mask_per_head
// CHECK: mx.broadcast_to
// CHECK: mx.broadcast_to
// CHECK: mx.kernel.attention {{.*}} : tensor<1x4x6x8xf32>, tensor<1x4x6x8xf32>, tensor<1x4x6x8xf32>, tensor<f32>, tensor<1x4x6x6xf32> into tensor<1x4x6x8xf32>
func.func @grouped_query_mask_per_head(%q: tensor<1x4x6x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>, %mask: tensor<1x4x6x6xf32>) -> tensor<1x4x6x8xf32> {
  %k1 = mx.Reshape %k {shape = array<i64: 1, 2, 1, 6, 8>} : (tensor<1x2x6x8xf32>) -> tensor<1x2x1x6x8xf32>
  %k2 = mx.broadcast_to %k1 {shape = array<i64: 1, 2, 2, 6, 8>} : (tensor<1x2x1x6x8xf32>) -> tensor<1x2x2x6x8xf32>
  %k3 = mx.Reshape %k2 {shape = array<i64: 1, 4, 6, 8>} : (tensor<1x2x2x6x8xf32>) -> tensor<1x4x6x8xf32>
  %v1 = mx.Reshape %v {shape = array<i64: 1, 2, 1, 6, 8>} : (tensor<1x2x6x8xf32>) -> tensor<1x2x1x6x8xf32>
  %v2 = mx.broadcast_to %v1 {shape = array<i64: 1, 2, 2, 6, 8>} : (tensor<1x2x1x6x8xf32>) -> tensor<1x2x2x6x8xf32>
  %v3 = mx.Reshape %v2 {shape = array<i64: 1, 4, 6, 8>} : (tensor<1x2x2x6x8xf32>) -> tensor<1x4x6x8xf32>
  %kt = mx.transpose %k3 {axes = array<i64: 0, 1, 3, 2>} : (tensor<1x4x6x8xf32>) -> tensor<1x4x8x6xf32>
  %0 = mx.matmul %q, %kt : (tensor<1x4x6x8xf32>, tensor<1x4x8x6xf32>) -> tensor<1x4x6x6xf32>
  %1 = mx.binary %0, %mask {op = "add"} : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %2 = mx.softmax %1 {axis = 3 : i64} : tensor<1x4x6x6xf32>
  %3 = mx.matmul %2, %v3 : (tensor<1x4x6x6xf32>, tensor<1x4x6x8xf32>) -> tensor<1x4x6x8xf32>
  return %3 : tensor<1x4x6x8xf32>
}
