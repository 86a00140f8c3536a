// SPDX-License-Identifier: Apache-2.0
// mxc-contiguous-kernel-operands: a strided view (a slice of a Concat's
// buffer) handed to a kernel that reads contiguous buffers is copied to a
// fresh buffer before it (the memory plan places it), and init back after
// it (it may be accumulated onto); contiguous operands and the kernels that
// take strides (matmul, forward pooling) are left alone.
// RUN: %mxc-opt --pass-pipeline='builtin.module(func.func(mxc-contiguous-kernel-operands))' %s | FileCheck %s

// CHECK-LABEL: func.func @pool_grad_strided
// CHECK: %[[X:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x3x8x8xf32>
// CHECK: memref.copy %[[XV:.*]], %[[X]] : memref<2x3x8x8xf32, strided<[320, 64, 8, 1], offset: 128>> to memref<2x3x8x8xf32>
// CHECK: %[[DX:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x3x8x8xf32>
// CHECK: memref.copy %[[DXV:.*]], %[[DX]]
// CHECK: mx.kernel.pool2d_grad %[[X]], %arg1, %arg2 into %[[DX]]
// CHECK-NEXT: memref.copy %[[DX]], %[[DXV]] : memref<2x3x8x8xf32> to memref<2x3x8x8xf32, strided<[320, 64, 8, 1], offset: 128>>
// CHECK-NOT: memref.copy
// CHECK: mx.kernel.pool2d %[[XV]]
func.func @pool_grad_strided(%xcat: memref<2x5x8x8xf32>, %y: memref<2x3x4x4xf32>, %dy: memref<2x3x4x4xf32>, %dxcat: memref<2x5x8x8xf32>, %out: memref<2x3x4x4xf32>) {
  %x = memref.subview %xcat[0, 2, 0, 0] [2, 3, 8, 8] [1, 1, 1, 1] : memref<2x5x8x8xf32> to memref<2x3x8x8xf32, strided<[320, 64, 8, 1], offset: 128>>
  %dx = memref.subview %dxcat[0, 2, 0, 0] [2, 3, 8, 8] [1, 1, 1, 1] : memref<2x5x8x8xf32> to memref<2x3x8x8xf32, strided<[320, 64, 8, 1], offset: 128>>
  mx.kernel.pool2d_grad %x, %y, %dy into %dx {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0>, pool_type = "max"} : memref<2x3x8x8xf32, strided<[320, 64, 8, 1], offset: 128>>, memref<2x3x4x4xf32>, memref<2x3x4x4xf32> into memref<2x3x8x8xf32, strided<[320, 64, 8, 1], offset: 128>>
  mx.kernel.pool2d %x into %out {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0>, pool_type = "max"} : memref<2x3x8x8xf32, strided<[320, 64, 8, 1], offset: 128>> into memref<2x3x4x4xf32>
  return
}
