// SPDX-License-Identifier: Apache-2.0
// A function with dynamic extents through the passes that serve them
// (docs/dynamic-shapes.md): mxc-shape-functions derives the outputs'
// extents from the inputs' (result 0's are a stride-2 convolution's, derived
// dimensions 2 and 3; result 1's are the input's own, dimensions 0 and 1),
// mxc-bind-dims passes every buffer as a bare pointer viewed with extents
// read from the dimension array, and mxc-plan-memory places the buffers of
// dynamic size after the static arena at offsets computed on entry, with a
// sibling @fcn_scratch giving the bytes a call needs.
// RUN: %mxc-opt --pass-pipeline='builtin.module(func.func(mxc-select-cpu-kernels,mxc-convert-mx-to-linalg{kernels=false}),canonicalize,mxc-shape-functions,eliminate-empty-tensors,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},buffer-results-to-out-params{hoist-static-allocs=true modify-public-functions=true},mxc-bind-dims,canonicalize,mxc-plan-memory,canonicalize,cse)' %s | FileCheck %s
// RUN: %mxc-opt --mxc-cpu-pipeline %s | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @fcn(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<1xf32>, %{{.*}}: memref<4x3x3x3xf32>, %{{.*}}: memref<4xf32>, %{{.*}}: memref<1xf32>, %{{.*}}: memref<1xf32>, %[[DIMS:[a-z0-9]+]]: memref<4xi64>, %[[ARENA:[a-z0-9]+]]: memref<1xi8>)
// CHECK-SAME:    mxc.dims = [array<i64: -1, -1, 0, 1>, array<i64>, array<i64>, array<i64: -1, -1, 2, 3>, array<i64: -1, -1, 0, 1>]
// CHECK-DAG:     memref.load %[[DIMS]][%c0]
// CHECK-DAG:     memref.load %[[DIMS]][%c1]
// CHECK:         memref.reinterpret_cast %[[X]] to offset: [0], sizes: [1, 3, %{{.*}}, %{{.*}}]
// CHECK-NOT:     memref.alloc
// CHECK:         memref.view %[[ARENA]][%{{.*}}][%{{.*}}, %{{.*}}] : memref<1xi8> to memref<1x4x?x?xf32>
// CHECK:         mx.kernel.conv2d
// CHECK-LABEL: func.func @fcn_scratch(
// CHECK-SAME:    %{{.*}}: memref<4xi64>) -> index
// CHECK:         arith.andi
// CHECK-LABEL: func.func @fcn_shapes(
// CHECK-SAME:    %[[D:[a-z0-9]+]]: memref<4xi64>)
// CHECK-SAME:    mxc.shape_of = array<i64: 2, 3>
// CHECK:         arith.divsi
// CHECK:         memref.store %{{.*}}, %[[D]][%c2]
// CHECK:         memref.store %{{.*}}, %[[D]][%c3]
// CHECK:         return{{$}}

// LLVM-NOT: @malloc
// LLVM: llvm.func @fcn(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// LLVM: llvm.call @mxrt_kernel_sconv2d
// LLVM: llvm.func @fcn_scratch(%{{.*}}: !llvm.ptr) -> i64
// LLVM: llvm.func @fcn_shapes(%{{.*}}: !llvm.ptr)
func.func @fcn(%x: tensor<1x3x?x?xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<1x4x?x?xf32>, tensor<1x3x?x?xf32>) attributes {mxc.dims = [array<i64: -1, -1, 0, 1>, array<i64>, array<i64>, array<i64: -1, -1, 0, 0>, array<i64: -1, -1, 0, 0>], mxc.num_dims = 2 : i64} {
  %c = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, num_filter = 4 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x3x?x?xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x?x?xf32>
  %s = mx.Activation %c {act_type = "sigmoid"} : tensor<1x4x?x?xf32>
  %t = mx.Activation %x {act_type = "tanh"} : tensor<1x3x?x?xf32>
  return %s, %t : tensor<1x4x?x?xf32>, tensor<1x3x?x?xf32>
}
