// SPDX-License-Identifier: Apache-2.0
// --mxc-kernels-to-calls: bufferized kernel ops become calls of the
// runtime's kernels with each buffer's address and strides (in elements):
// a transposed operand swaps its row and column strides, a rank-2 operand
// of a batched product and a broadcast bias axis get stride 0, a view's
// offset moves the address.
// RUN: %mxc-opt --split-input-file --mxc-kernels-to-calls --canonicalize %s | FileCheck %s

// CHECK: func.func private @mxrt_kernel_sgemm(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, i32)
// CHECK-LABEL: func.func @fc
// CHECK-DAG: %[[RELU:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i64
// CHECK: call @mxrt_kernel_sgemm(%[[C1]], %[[C2]], %[[C4]], %[[C8]], %{{.*}}, %[[C0]], %[[C8]], %[[C1]], %{{.*}}, %[[C0]], %[[C1]], %[[C8]], %{{.*}}, %[[C0]], %[[C4]], %[[C1]], %{{.*}}, %[[C0]], %[[C0]], %[[C1]], %[[RELU]])
// CHECK-NOT: mx.kernel
func.func @fc(%x: memref<2x8xf32>, %w: memref<4x8xf32>, %b: memref<4xf32>, %y: memref<2x4xf32>) {
  mx.kernel.matmul %x, %w, %b into %y {transpose_b = true, relu = true} : memref<2x8xf32>, memref<4x8xf32>, memref<4xf32> into memref<2x4xf32>
  return
}

// -----

// Batched A, shared B, the output a view at offset 6 of a larger buffer,
// accumulating.
// CHECK-LABEL: func.func @batched
// CHECK-DAG: %[[ACC:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[C24:.*]] = arith.constant 24 : index
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<3x2x5xf32, strided<[10, 5, 1], offset: 6>>
// CHECK: %[[ADDR:.*]] = arith.addi %[[P]], %[[C24]]
// CHECK: %[[I:.*]] = arith.index_cast %[[ADDR]] : index to i64
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[I]]
// CHECK: call @mxrt_kernel_sgemm(%c3_i64, %c2_i64, %c5_i64, %c4_i64, %{{.*}}, %c8_i64, %c4_i64, %c1_i64, %{{.*}}, %c0_i64, %c5_i64, %c1_i64, %[[PTR]], %c10_i64, %c5_i64, %c1_i64, %{{.*}}, %c0_i64, %c0_i64, %c0_i64, %[[ACC]])
func.func @batched(%a: memref<3x2x4xf32>, %b: memref<4x5xf32>, %big: memref<40xf32>) {
  %v = memref.subview %big[6] [30] [1] : memref<40xf32> to memref<30xf32, strided<[1], offset: 6>>
  %y = memref.expand_shape %v [[0, 1, 2]] output_shape [3, 2, 5] : memref<30xf32, strided<[1], offset: 6>> into memref<3x2x5xf32, strided<[10, 5, 1], offset: 6>>
  mx.kernel.matmul %a, %b into %y {accumulate = true} : memref<3x2x4xf32>, memref<4x5xf32> into memref<3x2x5xf32, strided<[10, 5, 1], offset: 6>>
  return
}

// -----

// An inference model's weights (mxc.constant arguments), also through a
// view, are flagged constant (MXRT_KERNEL_CONST_A = 4, _CONST_B = 8); an
// input is not.
// CHECK-LABEL: func.func @constant
// CHECK-DAG: %[[CONSTB:.*]] = arith.constant 8 : i32
// CHECK-DAG: %[[CONSTA:.*]] = arith.constant 4 : i32
// CHECK: call @mxrt_kernel_sgemm({{.*}}, %[[CONSTB]])
// CHECK: call @mxrt_kernel_sgemm({{.*}}, %[[CONSTA]])
func.func @constant(%x: memref<2x8xf32>, %w: memref<4x8xf32> {mxc.constant}, %y: memref<2x4xf32>, %z: memref<4x2xf32>) {
  mx.kernel.matmul %x, %w into %y {transpose_b = true} : memref<2x8xf32>, memref<4x8xf32> into memref<2x4xf32>
  %v = memref.collapse_shape %w [[0, 1]] : memref<4x8xf32> into memref<32xf32>
  %w2 = memref.expand_shape %v [[0, 1]] output_shape [4, 8] : memref<32xf32> into memref<4x8xf32>
  mx.kernel.matmul %w2, %x into %z {transpose_b = true} : memref<4x8xf32>, memref<2x8xf32> into memref<4x2xf32>
  return
}

// -----

// CHECK: func.func private @mxrt_kernel_sconv2d(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32)
// CHECK-LABEL: func.func @conv
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// n c h w f oh ow kh kw sh sw ph pw dh dw groups
// CHECK: call @mxrt_kernel_sconv2d(%c1_i64, %c4_i64, %c9_i64, %c9_i64, %c6_i64, %c5_i64, %c5_i64, %c3_i64, %c3_i64, %c2_i64, %c1_i64, %c1_i64, %c0_i64, %c1_i64, %c2_i64, %c2_i64, %{{.*}}, %{{.*}}, %[[NULL]], %{{.*}}, %c0_i32)
func.func @conv(%x: memref<1x4x9x9xf32>, %w: memref<6x2x3x3xf32>, %y: memref<1x6x5x5xf32>) {
  mx.kernel.conv2d %x, %w into %y {strides = array<i64: 2, 1>, pads = array<i64: 1, 0>, dilations = array<i64: 1, 2>, groups = 2 : i64} : memref<1x4x9x9xf32>, memref<6x2x3x3xf32> into memref<1x6x5x5xf32>
  return
}

// -----

// A training library's weight (an mx.param argument) in its inference
// function "forward" may stay packed between calls (MXRT_KERNEL_PARAM_A =
// 256); in grad / train_step, and for an activation, no flag.
// CHECK-LABEL: func.func @forward
// CHECK: call @mxrt_kernel_sconv2d({{.*}}, %c256_i32)
// CHECK-LABEL: func.func @grad
// CHECK: call @mxrt_kernel_sconv2d({{.*}}, %c0_i32)
// CHECK: call @mxrt_kernel_sconv2d({{.*}}, %c0_i32)
func.func @forward(%x: memref<1x2x5x5xf32>, %w: memref<3x2x3x3xf32> {mx.param}, %y: memref<1x3x3x3xf32>) {
  mx.kernel.conv2d %x, %w into %y {strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : memref<1x2x5x5xf32>, memref<3x2x3x3xf32> into memref<1x3x3x3xf32>
  return
}
func.func @grad(%x: memref<1x2x5x5xf32>, %w: memref<3x2x3x3xf32> {mx.param}, %y: memref<1x3x3x3xf32>, %a: memref<3x2x3x3xf32>) {
  mx.kernel.conv2d %x, %w into %y {strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : memref<1x2x5x5xf32>, memref<3x2x3x3xf32> into memref<1x3x3x3xf32>
  mx.kernel.conv2d %x, %a into %y {strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : memref<1x2x5x5xf32>, memref<3x2x3x3xf32> into memref<1x3x3x3xf32>
  return
}

// -----

// Pooling: the shapes, window, strides and pads, then each buffer's address
// and its four strides in elements (a channels-last view here: any strides
// go), then the flags: mean (MXRT_KERNEL_POOL_AVG = 32) with the padding
// counted (_COUNT_PAD = 128) and ReLU (2).
// CHECK: func.func private @mxrt_kernel_spool2d(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, i32)
// CHECK-LABEL: func.func @pool
// n c h w oh ow kh kw sh sw ph pw, x and its strides, y and its strides
// CHECK: call @mxrt_kernel_spool2d(%c2_i64, %c3_i64, %c6_i64, %c5_i64, %c3_i64, %c3_i64, %c2_i64, %c3_i64, %c2_i64, %c2_i64, %c0_i64, %c1_i64, %{{.*}}, %c90_i64, %c1_i64, %c15_i64, %c3_i64, %{{.*}}, %c27_i64, %c9_i64, %c3_i64, %c1_i64, %c162_i32)
func.func @pool(%nhwc: memref<2x6x5x3xf32>, %y: memref<2x3x3x3xf32>) {
  %x = memref.transpose %nhwc (n, h, w, c) -> (n, c, h, w) : memref<2x6x5x3xf32> to memref<2x3x6x5xf32, strided<[90, 1, 15, 3]>>
  mx.kernel.pool2d %x into %y {kernel = array<i64: 2, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 1>, pool_type = "avg", count_include_pad = true, relu = true} : memref<2x3x6x5xf32, strided<[90, 1, 15, 3]>> into memref<2x3x3x3xf32>
  return
}

// -----

// Convolution gradients call mxrt_kernel_sconv2d_backward with the
// forward's geometry (n c h w, f oh ow, kh kw, strides, pads, dilations,
// groups), then x, weight, dy, dx, dweight: NULL where the gradient does
// not read or write them.
// CHECK: func.func private @mxrt_kernel_sconv2d_backward(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32)
// CHECK-LABEL: func.func @conv_grads
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @mxrt_kernel_sconv2d_backward(%c2_i64, %c4_i64, %c8_i64, %c8_i64, %c6_i64, %c4_i64, %c4_i64, %c3_i64, %c3_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c2_i64, %[[NULL]], %[[W:.*]], %[[DY:.*]], %[[DX:.*]], %[[NULL]], %c0_i32)
// CHECK: call @mxrt_kernel_sconv2d_backward(%c2_i64, %c4_i64, %c8_i64, %c8_i64, %c6_i64, %c4_i64, %c4_i64, %c3_i64, %c3_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c2_i64, %[[X:.*]], %[[NULL]], %{{.*}}, %[[NULL]], %[[DW:.*]], %c1_i32)
func.func @conv_grads(%x: memref<2x4x8x8xf32>, %w: memref<6x2x3x3xf32>, %dy: memref<2x6x4x4xf32>, %dx: memref<2x4x8x8xf32>, %dw: memref<6x2x3x3xf32>) {
  mx.kernel.conv2d_grad %dy, %w into %dx {wrt = "data", strides = array<i64: 2, 2>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64} : memref<2x6x4x4xf32>, memref<6x2x3x3xf32> into memref<2x4x8x8xf32>
  mx.kernel.conv2d_grad %dy, %x into %dw {wrt = "weight", strides = array<i64: 2, 2>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64, accumulate = true} : memref<2x6x4x4xf32>, memref<2x4x8x8xf32> into memref<6x2x3x3xf32>
  return
}

// -----

// Channels last: the same geometry read from the NHWC shapes, flag 16.
// CHECK-LABEL: func.func @conv_grads_nhwc
// CHECK: call @mxrt_kernel_sconv2d_backward(%c2_i64, %c4_i64, %c8_i64, %c8_i64, %c6_i64, %c4_i64, %c4_i64, %c3_i64, %c3_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c2_i64, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c16_i32)
// CHECK: call @mxrt_kernel_sconv2d_backward(%c2_i64, %c4_i64, %c8_i64, %c8_i64, %c6_i64, %c4_i64, %c4_i64, %c3_i64, %c3_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c2_i64, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c17_i32)
func.func @conv_grads_nhwc(%x: memref<2x8x8x4xf32>, %w: memref<6x2x3x3xf32>, %dy: memref<2x4x4x6xf32>, %dx: memref<2x8x8x4xf32>, %dw: memref<6x2x3x3xf32>) {
  mx.kernel.conv2d_grad %dy, %w into %dx {wrt = "data", strides = array<i64: 2, 2>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64, nhwc = true} : memref<2x4x4x6xf32>, memref<6x2x3x3xf32> into memref<2x8x8x4xf32>
  mx.kernel.conv2d_grad %dy, %x into %dw {wrt = "weight", strides = array<i64: 2, 2>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64, accumulate = true, nhwc = true} : memref<2x4x4x6xf32>, memref<2x8x8x4xf32> into memref<6x2x3x3xf32>
  return
}

// -----

// The pooling gradient: the forward's geometry, then x, y, dy and dx; avg
// with count_include_pad and accumulate gives flags 32 | 128 | 1.
// CHECK: func.func private @mxrt_kernel_spool2d_backward(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32)
// CHECK-LABEL: func.func @pool_grad
// CHECK: call @mxrt_kernel_spool2d_backward(%c2_i64, %c3_i64, %c8_i64, %c8_i64, %c4_i64, %c4_i64, %c3_i64, %c3_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c161_i32)
func.func @pool_grad(%x: memref<2x3x8x8xf32>, %y: memref<2x3x4x4xf32>, %dy: memref<2x3x4x4xf32>, %dx: memref<2x3x8x8xf32>) {
  mx.kernel.pool2d_grad %x, %y, %dy into %dx {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1>, pool_type = "avg", count_include_pad = true, accumulate = true} : memref<2x3x8x8xf32>, memref<2x3x4x4xf32>, memref<2x3x4x4xf32> into memref<2x3x8x8xf32>
  return
}


// -----

// With a scale (a BatchNorm folded in), mxrt_kernel_sconv2d_scaled: the
// scale's pointer after the weight's, then the bias (the shift).
// CHECK-LABEL: func.func @forward
// CHECK: %[[W:.*]] = memref.extract_aligned_pointer_as_index %arg1
// CHECK: %[[S:.*]] = memref.extract_aligned_pointer_as_index %arg3
// CHECK: %[[B:.*]] = memref.extract_aligned_pointer_as_index %arg2
// CHECK: call @mxrt_kernel_sconv2d_scaled({{.*}}, %c256_i32)
func.func @forward(%x: memref<1x2x5x5xf32>, %w: memref<3x2x3x3xf32> {mx.param}, %shift: memref<3xf32>, %scale: memref<3xf32>, %y: memref<1x3x3x3xf32>) {
  mx.kernel.conv2d %x, %w, %shift, %scale into %y {strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : memref<1x2x5x5xf32>, memref<3x2x3x3xf32>, memref<3xf32>, memref<3xf32> into memref<1x3x3x3xf32>
  return
}
