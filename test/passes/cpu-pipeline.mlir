// SPDX-License-Identifier: Apache-2.0
// --mxc-cpu-pipeline end to end: mx on tensors becomes LLVM dialect with the
// calling convention libmxrt relies on (bare pointers, results written through
// trailing out-parameters, nothing returned) and no call into MLIR's C runner
// library (memrefCopy), even for the strided copy tensor.pad bufferizes to.
// Intermediate buffers live in the arena, a last pointer argument (the memory
// plan), so the kernels call no malloc.
// RUN: %mxc-opt --split-input-file --mxc-cpu-pipeline %s | FileCheck %s
// RUN: %mxc-opt --split-input-file --mxc-cpu-pipeline %s | FileCheck %s --check-prefix=NOCOPY

// NOCOPY-NOT: memrefCopy
// NOCOPY-NOT: llvm.call @malloc

// relu then padded average pooling: one bare-pointer input, the output as a
// trailing out-parameter that the pooling kernel writes into (the relu's
// result in the arena), the arena, and a void return.
// CHECK-LABEL: llvm.func @relu_pool(
// CHECK-SAME:    %[[IN:[a-z0-9_]+]]: !llvm.ptr, %[[OUT:[a-z0-9_]+]]: !llvm.ptr, %[[ARENA:[a-z0-9_]+]]: !llvm.ptr) {
// CHECK:         llvm.insertvalue %[[OUT]], %{{.*}}[1] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)>
// CHECK:         llvm.insertvalue %[[IN]], %{{.*}}[1] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)>
// CHECK:         llvm.store
// CHECK:         llvm.call @mxrt_kernel_spool2d(
// CHECK:         llvm.return{{$}}
func.func @relu_pool(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x2x2xf32> {
  %a = mx.Activation %x {act_type = "relu"} : tensor<1x2x3x3xf32>
  %y = mx.Pooling %a {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, pool_type = "avg"} : (tensor<1x2x3x3xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// Dilated pooling has no kernel: its loops read a padded copy of the input,
// a strided copy that must not call memrefCopy (NOCOPY).
// CHECK-LABEL: llvm.func @dilated_pool(
// CHECK-NOT:     llvm.call @mxrt_kernel_spool2d
// CHECK:         llvm.intr.maximum
// CHECK:         llvm.return{{$}}
func.func @dilated_pool(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %y = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, dilate = array<i64: 2, 2>, pool_type = "max"} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// Two results become two out-parameters after the input, then the arena;
// nothing is returned.
// CHECK-LABEL: llvm.func @two_results(
// CHECK-SAME:    %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) {
// CHECK:         llvm.return{{$}}
func.func @two_results(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x2xf32>) {
  %a = mx.Activation %x {act_type = "relu"} : tensor<2x4xf32>
  %s:2 = mx.SliceChannel %a {num_outputs = 2 : i64} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  return %a, %s#1 : tensor<2x4xf32>, tensor<2x2xf32>
}
