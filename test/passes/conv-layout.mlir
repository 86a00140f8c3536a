// SPDX-License-Identifier: Apache-2.0
// --mxc-conv-layout: convolutions linked directly (one's result another's
// input or accumulator) form a chain; a chain of two or more small ones
// runs channels last (nhwc = true), transposed only where it meets the
// rest of the function. A lone convolution, and a chain with one large
// layer, keep NCHW; policy=all takes every convolution.
// RUN: %mxc-opt --split-input-file --pass-pipeline='builtin.module(func.func(mxc-convert-mx-to-linalg),canonicalize,func.func(mxc-fuse-kernel-epilogues),func.func(mxc-conv-layout))' %s | FileCheck %s
// RUN: %mxc-opt --split-input-file --pass-pipeline='builtin.module(func.func(mxc-convert-mx-to-linalg),canonicalize,func.func(mxc-fuse-kernel-epilogues),func.func(mxc-conv-layout{policy=all}))' %s | FileCheck %s --check-prefix=ALL
// RUN: not %mxc-opt --pass-pipeline='builtin.module(func.func(mxc-conv-layout{policy=sideways}))' %s 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: mxc-conv-layout: policy must be auto, all or none, not 'sideways'

// A residual block: conv -> relu -> conv accumulating into the block's
// input. The input goes channels last once (read by the first conv, the
// second's accumulator), the result comes back once; nothing else moves.
// CHECK-LABEL: func.func @block
// CHECK-SAME: (%[[X:.*]]: tensor<1x16x8x8xf32>,
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<1x16x8x8xf32>) outs(%{{.*}} : tensor<1x8x8x16xf32>) permutation = [0, 2, 3, 1]
// CHECK: %[[A:.*]] = mx.kernel.conv2d %[[XT]], {{.*}} into %{{.*}} {dilations = {{.*}}nhwc = true{{.*}}relu = true{{.*}} : tensor<1x8x8x16xf32>, {{.*}} into tensor<1x8x8x16xf32>
// CHECK: %[[B:.*]] = mx.kernel.conv2d %[[A]], {{.*}} into %[[XT]] {accumulate = true, {{.*}}nhwc = true{{.*}}relu = true
// CHECK: %[[Y:.*]] = linalg.transpose ins(%[[B]] : tensor<1x8x8x16xf32>) outs(%{{.*}} : tensor<1x16x8x8xf32>) permutation = [0, 3, 1, 2]
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: linalg.transpose
func.func @block(%x: tensor<1x16x8x8xf32>, %w1: tensor<16x16x3x3xf32>, %w2: tensor<16x16x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x8x8xf32> {
  %c1 = mx.Convolution %x, %w1, %b {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 16 : i64} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  %r1 = mx.Activation %c1 {act_type = "relu"} : tensor<1x16x8x8xf32>
  %c2 = mx.Convolution %r1, %w2, %b {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 16 : i64} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  %a = mx.binary %x, %c2 {op = "add"} : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %r2 = mx.Activation %a {act_type = "relu"} : tensor<1x16x8x8xf32>
  return %r2 : tensor<1x16x8x8xf32>
}

// -----

// A lone convolution gains nothing from its own transposes: NCHW (but
// policy=all takes it).
// CHECK-LABEL: func.func @lone
// CHECK-NOT: linalg.transpose
// CHECK-NOT: nhwc = true
// ALL-LABEL: func.func @lone
// ALL: linalg.transpose
// ALL: mx.kernel.conv2d {{.*}}nhwc = true
// ALL: linalg.transpose
func.func @lone(%x: tensor<1x16x8x8xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32> {
  %c = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 16 : i64, no_bias = true} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  return %c : tensor<1x16x8x8xf32>
}

// -----

// Must not change: a chain with one large layer (128 x 64 x 3 x 3 weights:
// NCHW's Winograd and blocked GEMM are faster there), so the whole chain
// stays NCHW rather than transposing between its layers.
// CHECK-LABEL: func.func @large_link
// CHECK-NOT: linalg.transpose
// CHECK-NOT: nhwc = true
func.func @large_link(%x: tensor<1x64x8x8xf32>, %w1: tensor<64x64x3x3xf32>, %w2: tensor<128x64x3x3xf32>) -> tensor<1x128x8x8xf32> {
  %c1 = mx.Convolution %x, %w1 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 64 : i64, no_bias = true} : (tensor<1x64x8x8xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x8x8xf32>
  %c2 = mx.Convolution %c1, %w2 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 128 : i64, no_bias = true} : (tensor<1x64x8x8xf32>, tensor<128x64x3x3xf32>) -> tensor<1x128x8x8xf32>
  return %c2 : tensor<1x128x8x8xf32>
}

// -----

// A chain's inner result that the function also returns comes back to
// NCHW for that reader; the next convolution still reads it channels last.
// CHECK-LABEL: func.func @inner_result
// CHECK: %[[A:.*]] = mx.kernel.conv2d {{.*}}nhwc = true
// CHECK-DAG: %[[B:.*]] = mx.kernel.conv2d %[[A]], {{.*}}nhwc = true
// CHECK-DAG: %[[AT:.*]] = linalg.transpose ins(%[[A]] : tensor<1x6x6x8xf32>) outs(%{{.*}} : tensor<1x8x6x6xf32>)
// CHECK: return %[[AT]], %{{.*}} : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>
func.func @inner_result(%x: tensor<1x4x6x6xf32>, %w1: tensor<8x4x3x3xf32>, %w2: tensor<8x8x1x1xf32>) -> (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) {
  %c1 = mx.Convolution %x, %w1 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 8 : i64, no_bias = true} : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %c2 = mx.Convolution %c1, %w2 {kernel = array<i64: 1, 1>, num_filter = 8 : i64, no_bias = true} : (tensor<1x8x6x6xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x6x6xf32>
  return %c1, %c2 : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>
}
