// SPDX-License-Identifier: Apache-2.0
// --mxc-kernels-to-calls{precision=bf16}: convolutions and products call the
// runtime with MXRT_KERNEL_BF16 (16384), but 3x3 stride-1 convolutions of
// more than 64 output pixels a channel, which stay float32 (Winograd); a
// 7x7 or 8x8 output (NCHW or NHWC, +16) takes bfloat16.
// RUN: %mxc-opt --split-input-file --mxc-kernels-to-calls=precision=bf16 --canonicalize %s | FileCheck %s
// RUN: not %mxc-opt --mxc-kernels-to-calls=precision=fp16 %s 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: mxc-kernels-to-calls: precision must be fp32 or bf16, not 'fp16'

// CHECK-LABEL: func.func @convs
// CHECK: call @mxrt_kernel_sconv2d({{.*}}, %c16384_i32)
// CHECK: call @mxrt_kernel_sconv2d({{.*}}, %c0_i32)
// CHECK: call @mxrt_kernel_sconv2d({{.*}}, %c16384_i32)
// CHECK: call @mxrt_kernel_sconv2d({{.*}}, %c16384_i32)
// CHECK: call @mxrt_kernel_sconv2d({{.*}}, %c16400_i32)
// CHECK: call @mxrt_kernel_sconv2d({{.*}}, %c16_i32)
func.func @convs(%x8: memref<1x4x8x8xf32>, %x9: memref<1x4x9x9xf32>, %w: memref<4x4x3x3xf32>, %w1: memref<4x4x1x1xf32>,
                 %y8: memref<1x4x8x8xf32>, %y9: memref<1x4x9x9xf32>, %y4: memref<1x4x4x4xf32>,
                 %h7: memref<1x7x7x4xf32>, %z7: memref<1x7x7x4xf32>, %h9: memref<1x9x9x4xf32>, %z9: memref<1x9x9x4xf32>) {
  // 3x3 stride 1: 8 x 8 outputs bfloat16, 9 x 9 float32.
  mx.kernel.conv2d %x8, %w into %y8 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : memref<1x4x8x8xf32>, memref<4x4x3x3xf32> into memref<1x4x8x8xf32>
  mx.kernel.conv2d %x9, %w into %y9 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : memref<1x4x9x9xf32>, memref<4x4x3x3xf32> into memref<1x4x9x9xf32>
  // Strided and 1x1: bfloat16 at any size.
  mx.kernel.conv2d %x8, %w into %y4 {strides = array<i64: 2, 2>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : memref<1x4x8x8xf32>, memref<4x4x3x3xf32> into memref<1x4x4x4xf32>
  mx.kernel.conv2d %x9, %w1 into %y9 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : memref<1x4x9x9xf32>, memref<4x4x1x1xf32> into memref<1x4x9x9xf32>
  // Channels last: the output's extents are dimensions 1 and 2.
  mx.kernel.conv2d %h7, %w into %z7 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64, nhwc = true} : memref<1x7x7x4xf32>, memref<4x4x3x3xf32> into memref<1x7x7x4xf32>
  mx.kernel.conv2d %h9, %w into %z9 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64, nhwc = true} : memref<1x9x9x4xf32>, memref<4x4x3x3xf32> into memref<1x9x9x4xf32>
  return
}
