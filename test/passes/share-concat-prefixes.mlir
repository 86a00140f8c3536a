// SPDX-License-Identifier: Apache-2.0
// --mxc-share-concat-prefixes: a Concat whose leading inputs an earlier
// Concat joined (a DenseNet block's layers) reads that Concat instead.
// RUN: %mxc-opt --split-input-file --mxc-share-concat-prefixes %s | FileCheck %s

// Three layers of a dense block: each Concat extends the one before it.
// CHECK-LABEL: func.func @dense_block
// CHECK-SAME: (%[[A:.*]]: tensor<1x2x4x4xf32>, %[[B:.*]]: tensor<1x1x4x4xf32>, %[[C:.*]]: tensor<1x1x4x4xf32>, %[[D:.*]]: tensor<1x1x4x4xf32>)
// CHECK: %[[AB:.*]] = mx.Concat %[[A]], %[[B]] : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x3x4x4xf32>
// CHECK: %[[ABC:.*]] = mx.Concat %[[AB]], %[[C]] : (tensor<1x3x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK: %[[ABCD:.*]] = mx.Concat %[[ABC]], %[[D]] : (tensor<1x4x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x5x4x4xf32>
// CHECK: return %[[AB]], %[[ABC]], %[[ABCD]]
func.func @dense_block(%a: tensor<1x2x4x4xf32>, %b: tensor<1x1x4x4xf32>, %c: tensor<1x1x4x4xf32>, %d: tensor<1x1x4x4xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x5x4x4xf32>) {
  %ab = mx.Concat %a, %b {dim = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x3x4x4xf32>
  %abc = mx.Concat %a, %b, %c {dim = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x4x4x4xf32>
  %abcd = mx.Concat %a, %b, %c, %d {dim = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x5x4x4xf32>
  return %ab, %abc, %abcd : tensor<1x3x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x5x4x4xf32>
}

// -----

// The longest prefix wins, and a negative axis is the same axis.
// CHECK-LABEL: func.func @longest_prefix
// CHECK: %[[AB:.*]] = mx.Concat %arg0, %arg1 :
// CHECK: %[[ABC:.*]] = mx.Concat %[[AB]], %arg2 {dim = -1
// CHECK: mx.Concat %[[ABC]], %arg0 :
func.func @longest_prefix(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x3xf32>) -> (tensor<2x6xf32>, tensor<2x9xf32>, tensor<2x12xf32>) {
  %ab = mx.Concat %a, %b {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  %abc = mx.Concat %a, %b, %c {dim = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
  %abca = mx.Concat %a, %b, %c, %a {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x12xf32>
  return %ab, %abc, %abca : tensor<2x6xf32>, tensor<2x9xf32>, tensor<2x12xf32>
}

// -----

// Not rewritten: another axis, inputs in another order, a later Concat, a
// single shared input (nothing to save).
// CHECK-LABEL: func.func @no_prefix
// CHECK: mx.Concat %arg0, %arg1 {dim = 0
// CHECK: mx.Concat %arg0, %arg1, %arg0 :
// CHECK: mx.Concat %arg1, %arg0, %arg0 :
// CHECK: mx.Concat %arg0, %arg1 :
func.func @no_prefix(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<4x3xf32>, tensor<2x9xf32>, tensor<2x9xf32>, tensor<2x6xf32>) {
  %r = mx.Concat %a, %b {dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %s = mx.Concat %a, %b, %a {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
  %t = mx.Concat %b, %a, %a {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
  %u = mx.Concat %a, %b {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %r, %s, %t, %u : tensor<4x3xf32>, tensor<2x9xf32>, tensor<2x9xf32>, tensor<2x6xf32>
}
