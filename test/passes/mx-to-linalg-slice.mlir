// SPDX-License-Identifier: Apache-2.0
// Lowering of mx.slice when the taken range starts at 0 with step 1 but is
// shorter than the axis (x[:2]): an input map of d0 * 1 + 0 folds to d0, so a
// generic reading through it would take its loop range from the input (4)
// instead of the 2-long output; the lowering must not produce that.
// RUN: %mxc-opt --split-input-file --mxc-convert-mx-to-linalg %s | FileCheck %s

// A prefix slice lowers to valid IR with no mx op left.
// CHECK-LABEL: func.func @slice_prefix(
// CHECK-NOT:     mx.slice
// CHECK:         return %{{.*}} : tensor<2x4xf32>
func.func @slice_prefix(%x: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %y = mx.slice %x {begin = array<i64: 0>, end = array<i64: 2>} : (tensor<4x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// A prefix on the second axis as well.
// CHECK-LABEL: func.func @slice_prefix_inner(
// CHECK-NOT:     mx.slice
// CHECK:         return %{{.*}} : tensor<4x3xf32>
func.func @slice_prefix_inner(%x: tensor<4x5xf32>) -> tensor<4x3xf32> {
  %y = mx.slice %x {begin = array<i64: 0, 0>, end = array<i64: 4, 3>} : (tensor<4x5xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}
