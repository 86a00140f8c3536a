// SPDX-License-Identifier: Apache-2.0
// Empty memref arguments of rank > 1 become memref<0xT> (func-to-llvm has no
// bare pointer for their zero strides); their uses read an empty alloca.
// Non-empty and rank-1 empty arguments keep their types.
// RUN: %mxc-opt --pass-pipeline='builtin.module(func.func(mxc-flatten-empty-memref-args))' %s | FileCheck %s

// CHECK-LABEL: func.func @empty(
// CHECK-SAME:    %[[A:[a-z0-9]+]]: memref<0xf32>, %[[B:[a-z0-9]+]]: memref<0xi64>, %[[C:[a-z0-9]+]]: memref<2x3xf32>, %[[D:[a-z0-9]+]]: memref<0xf32>)
// CHECK:         %[[EMPTY:.*]] = memref.alloca() : memref<2x0x3xf32>
// CHECK:         memref.collapse_shape %[[EMPTY]]
// CHECK:         memref.copy %[[EMPTY]], %[[EMPTY]]
// CHECK:         memref.copy %[[B]], %[[B]]
func.func @empty(%a: memref<2x0x3xf32>, %b: memref<0xi64>, %c: memref<2x3xf32>, %d: memref<0xf32>) {
  %v = memref.collapse_shape %a [[0, 1, 2]] : memref<2x0x3xf32> into memref<0xf32>
  memref.copy %a, %a : memref<2x0x3xf32> to memref<2x0x3xf32>
  memref.copy %b, %b : memref<0xi64> to memref<0xi64>
  return
}
