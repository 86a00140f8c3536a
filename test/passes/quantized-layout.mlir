// SPDX-License-Identifier: Apache-2.0
// --mxc-quantized-layout: every 8-bit convolution of at least 16 channels
// runs channels last (nhwc = true); the transposes back to NCHW move below
// the elementwise ops between them whose rank-4 operands are no wider than
// the channels-last input (a quantized residual add: 8-bit in and out; a
// per-channel operand read through the renamed loops) and cancel against
// the next convolution's; a dequantization to float keeps its input's
// transpose; a 3-channel stem stays NCHW; an 8-bit max pooling follows its
// input's layout.
// RUN: %mxc-opt --split-input-file --pass-pipeline='builtin.module(func.func(mxc-quantized-layout))' %s | FileCheck %s

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @residual
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x16x8x8xi8>
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<1x16x8x8xi8>) outs(%{{.*}} : tensor<1x8x8x16xi8>) permutation = [0, 2, 3, 1]
// CHECK: %[[C1:.*]] = mx.kernel.qconv2d %[[XT]], {{.*}}nhwc = true{{.*}} into tensor<1x8x8x16xi8> -> tensor<1x8x8x16xi8>
// CHECK: %[[A:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[CH]], #[[ID]]], {{.*}} ins(%[[C1]], %[[XT]], %{{.*}} : tensor<1x8x8x16xi8>, tensor<1x8x8x16xi8>, tensor<16xi8>) outs(%{{.*}} : tensor<1x8x8x16xi8>)
// CHECK: %[[C2:.*]] = mx.kernel.qconv2d %[[A]], {{.*}}nhwc = true{{.*}} -> tensor<1x8x8x16xi8>
// CHECK: %[[Y:.*]] = linalg.transpose ins(%[[C2]] : tensor<1x8x8x16xi8>) outs(%{{.*}} : tensor<1x16x8x8xi8>) permutation = [0, 3, 1, 2]
// CHECK: %[[F:.*]] = linalg.generic {{.*}} ins(%[[Y]] : tensor<1x16x8x8xi8>) outs(%{{.*}} : tensor<1x16x8x8xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NOT: linalg.transpose
// CHECK: return %[[F]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @residual(%x: tensor<1x16x8x8xi8>, %zx: tensor<i32>, %w1: tensor<16x16x3x3xi8>, %w2: tensor<16x16x3x3xi8>, %zw: tensor<i32>, %bias: tensor<16xi32>, %m: tensor<f32>, %zy: tensor<f32>, %shift: tensor<16xi8>) -> tensor<1x16x8x8xf32> {
  %e1 = tensor.empty() : tensor<1x16x8x8xi8>
  %c1 = mx.kernel.qconv2d %x, %zx, %w1, %zw, %bias scale %m, %zy into %e1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, requant = true} : tensor<1x16x8x8xi8>, tensor<i32>, tensor<16x16x3x3xi8>, tensor<i32>, tensor<16xi32> scale tensor<f32>, tensor<f32> into tensor<1x16x8x8xi8> -> tensor<1x16x8x8xi8>
  %e2 = tensor.empty() : tensor<1x16x8x8xi8>
  %a = linalg.generic {indexing_maps = [#id, #id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1, %x, %shift : tensor<1x16x8x8xi8>, tensor<1x16x8x8xi8>, tensor<16xi8>) outs(%e2 : tensor<1x16x8x8xi8>) {
  ^bb0(%p: i8, %q: i8, %s: i8, %o: i8):
    %sum = arith.addi %p, %q : i8
    %r = arith.addi %sum, %s : i8
    linalg.yield %r : i8
  } -> tensor<1x16x8x8xi8>
  %e3 = tensor.empty() : tensor<1x16x8x8xi8>
  %c2 = mx.kernel.qconv2d %a, %zx, %w2, %zw, %bias scale %m, %zy into %e3 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, requant = true} : tensor<1x16x8x8xi8>, tensor<i32>, tensor<16x16x3x3xi8>, tensor<i32>, tensor<16xi32> scale tensor<f32>, tensor<f32> into tensor<1x16x8x8xi8> -> tensor<1x16x8x8xi8>
  %e4 = tensor.empty() : tensor<1x16x8x8xf32>
  %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c2 : tensor<1x16x8x8xi8>) outs(%e4 : tensor<1x16x8x8xf32>) {
  ^bb0(%p: i8, %o: f32):
    %v = arith.uitofp %p : i8 to f32
    linalg.yield %v : f32
  } -> tensor<1x16x8x8xf32>
  return %f : tensor<1x16x8x8xf32>
}

// -----

// A stem of 3 channels: taps of 3 bytes are too short to gather; NCHW.
// CHECK-LABEL: func.func @stem
// CHECK-NOT: linalg.transpose
// CHECK-NOT: nhwc = true
// CHECK: return
func.func @stem(%x: tensor<1x3x16x16xi8>, %zx: tensor<i32>, %w: tensor<16x3x7x7xi8>, %zw: tensor<i32>) -> tensor<1x16x8x8xi32> {
  %e = tensor.empty() : tensor<1x16x8x8xi32>
  %m = tensor.empty() : tensor<f32>
  %c = mx.kernel.qconv2d %x, %zx, %w, %zw scale %m, %m into %e {strides = array<i64: 2, 2>, pads = array<i64: 3, 3>, dilations = array<i64: 1, 1>} : tensor<1x3x16x16xi8>, tensor<i32>, tensor<16x3x7x7xi8>, tensor<i32> scale tensor<f32>, tensor<f32> into tensor<1x16x8x8xi32> -> tensor<1x16x8x8xi32>
  return %c : tensor<1x16x8x8xi32>
}

// -----

// An 8-bit max pooling goes channels last where its input comes so (after a
// channels-last convolution), and stays NCHW after an NCHW producer (the
// next convolution then transposes the smaller pooled tensor).
// CHECK-LABEL: func.func @pool_between
// CHECK: %[[C:.*]] = mx.kernel.qconv2d {{.*}}nhwc = true{{.*}} -> tensor<1x8x8x16xi8>
// CHECK-NEXT: %{{.*}} = tensor.empty() : tensor<1x4x4x16xi8>
// CHECK-NEXT: %[[P:.*]] = mx.kernel.qmaxpool2d %[[C]] into %{{.*}} {kernel = array<i64: 3, 3>, nhwc = true, pads = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<1x8x8x16xi8> into tensor<1x4x4x16xi8>
// CHECK: %[[Y:.*]] = linalg.transpose ins(%[[P]] : tensor<1x4x4x16xi8>)
// CHECK-NEXT: return %[[Y]]
// CHECK-LABEL: func.func @pool_first
// CHECK: mx.kernel.qmaxpool2d %{{.*}} : tensor<1x16x8x8xi8> into tensor<1x16x4x4xi8>
// CHECK: linalg.transpose
// CHECK: mx.kernel.qconv2d {{.*}}nhwc = true
func.func @pool_between(%x: tensor<1x16x8x8xi8>, %zx: tensor<i32>, %w: tensor<16x16x3x3xi8>, %zw: tensor<i32>, %m: tensor<f32>, %zy: tensor<f32>) -> tensor<1x16x4x4xi8> {
  %e1 = tensor.empty() : tensor<1x16x8x8xi8>
  %c = mx.kernel.qconv2d %x, %zx, %w, %zw scale %m, %zy into %e1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, requant = true} : tensor<1x16x8x8xi8>, tensor<i32>, tensor<16x16x3x3xi8>, tensor<i32> scale tensor<f32>, tensor<f32> into tensor<1x16x8x8xi8> -> tensor<1x16x8x8xi8>
  %e2 = tensor.empty() : tensor<1x16x4x4xi8>
  %p = mx.kernel.qmaxpool2d %c into %e2 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1>} : tensor<1x16x8x8xi8> into tensor<1x16x4x4xi8> -> tensor<1x16x4x4xi8>
  return %p : tensor<1x16x4x4xi8>
}
func.func @pool_first(%x: tensor<1x16x8x8xi8>, %zx: tensor<i32>, %w: tensor<16x16x3x3xi8>, %zw: tensor<i32>, %m: tensor<f32>, %zy: tensor<f32>) -> tensor<1x16x4x4xi8> {
  %e1 = tensor.empty() : tensor<1x16x4x4xi8>
  %p = mx.kernel.qmaxpool2d %x into %e1 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1>} : tensor<1x16x8x8xi8> into tensor<1x16x4x4xi8> -> tensor<1x16x4x4xi8>
  %e2 = tensor.empty() : tensor<1x16x4x4xi8>
  %c = mx.kernel.qconv2d %p, %zx, %w, %zw scale %m, %zy into %e2 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, requant = true} : tensor<1x16x4x4xi8>, tensor<i32>, tensor<16x16x3x3xi8>, tensor<i32> scale tensor<f32>, tensor<f32> into tensor<1x16x4x4xi8> -> tensor<1x16x4x4xi8>
  return %c : tensor<1x16x4x4xi8>
}
