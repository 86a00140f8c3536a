// SPDX-License-Identifier: Apache-2.0
// --mxc-results-in-place: a result with run-time extents, computed in a
// buffer of its own and copied into the caller's output at the end (what
// buffer-results-to-out-params leaves), is computed in the output: the
// allocation and the copy go. A decode step's cache (the past copied in,
// the new row after it) is the case below; the near misses keep both.
// RUN: %mxc-opt %s --pass-pipeline='builtin.module(func.func(mxc-results-in-place))' | FileCheck %s

// CHECK-LABEL: func.func @append_row(
// CHECK-SAME: %[[PAST:[a-z0-9]+]]: memref<1xf32>, %[[ROW:[a-z0-9]+]]: memref<1x4xf32>, %[[OUT:[a-z0-9]+]]: memref<1xf32>
// CHECK: %[[PRESENT:.*]] = memref.reinterpret_cast %[[OUT]]
// CHECK-NOT: memref.alloc
// CHECK: %[[HEAD:.*]] = memref.subview %[[PRESENT]][0, 0]
// CHECK: memref.copy %{{.*}}, %[[HEAD]]
// CHECK: %[[TAIL:.*]] = memref.subview %[[PRESENT]][%{{.*}}, 0]
// CHECK: memref.copy %[[ROW]], %[[TAIL]]
// CHECK-NEXT: return
func.func @append_row(%past: memref<1xf32>, %row: memref<1x4xf32>,
                      %out: memref<1xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  %m = arith.addi %n, %c1 : index
  %p = memref.reinterpret_cast %past to offset: [0], sizes: [%n, 4], strides: [4, 1] : memref<1xf32> to memref<?x4xf32>
  %present = memref.reinterpret_cast %out to offset: [0], sizes: [%m, 4], strides: [4, 1] : memref<1xf32> to memref<?x4xf32>
  %buf = memref.alloc(%m) {alignment = 64 : i64} : memref<?x4xf32>
  %head = memref.subview %buf[0, 0] [%n, 4] [1, 1] : memref<?x4xf32> to memref<?x4xf32, strided<[4, 1]>>
  memref.copy %p, %head : memref<?x4xf32> to memref<?x4xf32, strided<[4, 1]>>
  %tail = memref.subview %buf[%n, 0] [1, 4] [1, 1] : memref<?x4xf32> to memref<1x4xf32, strided<[4, 1], offset: ?>>
  memref.copy %row, %tail : memref<1x4xf32> to memref<1x4xf32, strided<[4, 1], offset: ?>>
  memref.copy %buf, %present : memref<?x4xf32> to memref<?x4xf32>
  return
}

// The buffer is read after the copy (into a buffer of the function's
// own): kept.
// CHECK-LABEL: func.func @read_after
// CHECK: memref.alloc
// CHECK: memref.copy
// CHECK: memref.copy
func.func @read_after(%out: memref<1xf32>, %n: index) {
  %o = memref.reinterpret_cast %out to offset: [0], sizes: [%n, 4], strides: [4, 1] : memref<1xf32> to memref<?x4xf32>
  %buf = memref.alloc(%n) : memref<?x4xf32>
  %later = memref.alloc(%n) : memref<?x4xf32>
  memref.copy %buf, %o : memref<?x4xf32> to memref<?x4xf32>
  memref.copy %buf, %later : memref<?x4xf32> to memref<?x4xf32>
  return
}

// One buffer copied into two outputs: computed in the second, which is
// copied into the first.
// CHECK-LABEL: func.func @two_outputs(
// CHECK-SAME: %[[OUT:[a-z0-9]+]]: memref<1xf32>, %[[OUT2:[a-z0-9]+]]: memref<1xf32>
// CHECK: %[[O:.*]] = memref.reinterpret_cast %[[OUT]]
// CHECK: %[[O2:.*]] = memref.reinterpret_cast %[[OUT2]]
// CHECK-NOT: memref.alloc
// CHECK: memref.copy %[[O2]], %[[O]]
// CHECK-NEXT: return
func.func @two_outputs(%out: memref<1xf32>, %out2: memref<1xf32>, %n: index) {
  %o = memref.reinterpret_cast %out to offset: [0], sizes: [%n, 4], strides: [4, 1] : memref<1xf32> to memref<?x4xf32>
  %o2 = memref.reinterpret_cast %out2 to offset: [0], sizes: [%n, 4], strides: [4, 1] : memref<1xf32> to memref<?x4xf32>
  %buf = memref.alloc(%n) : memref<?x4xf32>
  memref.copy %buf, %o : memref<?x4xf32> to memref<?x4xf32>
  memref.copy %buf, %o2 : memref<?x4xf32> to memref<?x4xf32>
  return
}

// The output's view comes after the buffer: kept (it would not dominate
// the buffer's uses).
// CHECK-LABEL: func.func @view_after
// CHECK: memref.alloc
// CHECK: memref.copy
func.func @view_after(%out: memref<1xf32>, %n: index) {
  %buf = memref.alloc(%n) : memref<?x4xf32>
  %o = memref.reinterpret_cast %out to offset: [0], sizes: [%n, 4], strides: [4, 1] : memref<1xf32> to memref<?x4xf32>
  memref.copy %buf, %o : memref<?x4xf32> to memref<?x4xf32>
  return
}

// A buffer of another type than the output (a static one copied into a
// dynamic view): kept.
// CHECK-LABEL: func.func @other_type
// CHECK: memref.alloc
// CHECK: memref.copy
func.func @other_type(%out: memref<1xf32>, %n: index) {
  %o = memref.reinterpret_cast %out to offset: [0], sizes: [%n, 4], strides: [4, 1] : memref<1xf32> to memref<?x4xf32>
  %buf = memref.alloc() : memref<2x4xf32>
  %c = memref.cast %buf : memref<2x4xf32> to memref<?x4xf32>
  memref.copy %c, %o : memref<?x4xf32> to memref<?x4xf32>
  return
}
