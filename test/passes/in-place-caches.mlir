// SPDX-License-Identifier: Apache-2.0
// --mxc-in-place-caches (mxc --kv-cache=in-place): an input that a Concat
// extends along a dynamic axis, the Concat an output, becomes a cache of the
// capacity on that axis (read and written), the filled length a new argument
// after the inputs, the new rows inserted at it and the Concat's readers
// reading the cache up to the new length; the appended output goes, the
// cache and its new length are returned until bufferization. Near misses
// keep their Concat. Then --mxc-cache-results drops those results after
// bufferization: the cache written in place needs nothing, one written
// elsewhere is copied back (with a warning).
// RUN: %mxc-opt %s --split-input-file --mxc-in-place-caches=capacity=16 | FileCheck %s
// RUN: not %mxc-opt %s --split-input-file --mxc-in-place-caches 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: %mxc-opt %s --split-input-file --mxc-cache-results 2>/dev/null | FileCheck %s --check-prefix=RESULTS
// RUN: %mxc-opt %s --split-input-file --mxc-cache-results 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN

// CHECK-LABEL: func.func @decoder_layer(
// CHECK-SAME: %[[CACHE:[a-z0-9]+]]: tensor<1x2x16x4xf32> {mxc.cache}
// CHECK-SAME: %[[NEW:[a-z0-9]+]]: tensor<1x2x?x4xf32>
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<4x4xf32>
// CHECK-SAME: %[[LEN:[a-z0-9]+]]: tensor<0x?xi8> {mxc.length}
// CHECK-SAME: -> (tensor<1x2x?x4xf32>, tensor<1x2x16x4xf32> {mxc.cache_of = 0 : i64}, tensor<0x?xi8> {mxc.cache_fill_of = 0 : i64})
// CHECK: %[[P:.*]] = tensor.dim %[[LEN]], %{{.*}} : tensor<0x?xi8>
// CHECK: %[[S:.*]] = tensor.dim %[[NEW]], %{{.*}} : tensor<1x2x?x4xf32>
// CHECK: %[[UPD:.*]] = tensor.insert_slice %[[NEW]] into %[[CACHE]][0, 0, %[[P]], 0] [1, 2, %[[S]], 4] [1, 1, 1, 1]
// CHECK: %[[T:.*]] = arith.addi %[[P]], %[[S]]
// CHECK: %[[PRESENT:.*]] = tensor.extract_slice %[[UPD]][0, 0, 0, 0] [1, 2, %[[T]], 4] [1, 1, 1, 1] : tensor<1x2x16x4xf32> to tensor<1x2x?x4xf32>
// CHECK-NOT: mx.Concat
// CHECK: %[[Y:.*]] = mx.unary %[[PRESENT]]
// CHECK: %[[FILL:.*]] = tensor.empty(%[[T]]) : tensor<0x?xi8>
// CHECK: return %[[Y]], %[[UPD]], %[[FILL]]
// NONE: error: mxc-in-place-caches: no capacity given
func.func @decoder_layer(%past: tensor<1x2x?x4xf32>, %new: tensor<1x2x?x4xf32>,
                         %w: tensor<4x4xf32>)
    -> (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) {
  %present = mx.Concat %past, %new {dim = 2 : i64} : (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  %y = mx.unary %present {op = "tanh"} : tensor<1x2x?x4xf32>
  return %y, %present : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>
}

// -----

// A cache with a dynamic batch too: the view of the past reads the batch off
// the cache itself, and the past's other readers read the view.
// CHECK-LABEL: func.func @dynamic_batch(
// CHECK-SAME: %[[CACHE:[a-z0-9]+]]: tensor<?x2x16x4xf32> {mxc.cache}
// CHECK: %[[P:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<0x?xi8>
// CHECK: %[[N:.*]] = tensor.dim %[[CACHE]], %{{.*}} : tensor<?x2x16x4xf32>
// CHECK: %[[PAST:.*]] = tensor.extract_slice %[[CACHE]][0, 0, 0, 0] [%[[N]], 2, %[[P]], 4]
// CHECK: mx.unary %[[PAST]]
func.func @dynamic_batch(%past: tensor<?x2x?x4xf32>, %new: tensor<?x2x?x4xf32>)
    -> (tensor<?x2x?x4xf32>, tensor<?x2x?x4xf32>) {
  %present = mx.Concat %past, %new {dim = 2 : i64} : (tensor<?x2x?x4xf32>, tensor<?x2x?x4xf32>) -> tensor<?x2x?x4xf32>
  %old = mx.unary %past {op = "tanh"} : tensor<?x2x?x4xf32>
  return %old, %present : tensor<?x2x?x4xf32>, tensor<?x2x?x4xf32>
}

// -----

// Near misses: the Concat is no output; the input is its second operand (the
// first no input); it joins along a static axis; three operands.
// CHECK-LABEL: func.func @near_misses(
// CHECK-SAME: %{{[a-z0-9]+}}: tensor<1x2x?x4xf32>, %{{[a-z0-9]+}}: tensor<1x2x?x4xf32>, %{{[a-z0-9]+}}: tensor<1x2x?x4xf32>)
// CHECK-NOT: mxc.cache
// CHECK-COUNT-4: mx.Concat
// CHECK-NOT: tensor.insert_slice
func.func @near_misses(%a: tensor<1x2x?x4xf32>, %b: tensor<1x2x?x4xf32>,
                       %c: tensor<1x2x?x4xf32>)
    -> (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x4xf32>) {
  %unused = mx.Concat %a, %b {dim = 2 : i64} : (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  %y = mx.unary %unused {op = "tanh"} : tensor<1x2x?x4xf32>
  %second = mx.Concat %y, %b {dim = 2 : i64} : (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  %static = mx.Concat %b, %b {dim = 3 : i64} : (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) -> tensor<1x2x?x8xf32>
  %three = mx.Concat %c, %b, %b {dim = 2 : i64} : (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  return %y, %second, %static, %three : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x4xf32>
}

// -----

// After bufferization: the cache returned is the argument (in place) and
// goes with its length, whose dimension (1, from mxc.dims) is recorded.
// RESULTS-LABEL: func.func @bufferized(
// RESULTS-SAME: -> memref<2xf32>
// RESULTS-SAME: mxc.cache_fills = array<i64: 0, 1>
// RESULTS-SAME: mxc.dims = [array<i64: -1, -1>, array<i64: -1, 0>, array<i64: -1>]
// RESULTS-NOT: memref.copy
// RESULTS: return %{{.*}} : memref<2xf32>
func.func @bufferized(%cache: memref<1x16xf32> {mxc.cache}, %len: memref<0x?xi8> {mxc.length})
    -> (memref<2xf32>, memref<1x16xf32> {mxc.cache_of = 0 : i64}, memref<0x?xi8> {mxc.cache_fill_of = 0 : i64})
    attributes {mxc.dims = [array<i64: -1, -1>, array<i64: -1, 0>, array<i64: -1>, array<i64: -1, -1>, array<i64: -1, 1>]} {
  %c1 = arith.constant 1 : index
  %y = memref.alloc() : memref<2xf32>
  %fill = memref.alloc(%c1) : memref<0x?xi8>
  return %y, %cache, %fill : memref<2xf32>, memref<1x16xf32>, memref<0x?xi8>
}

// -----

// Bufferization wrote the cache elsewhere: copied back, with a warning.
// WARN: warning: cache input 0 is updated by a copy of the whole cache, not in place
// RESULTS-LABEL: func.func @copied(
// RESULTS-SAME: %[[CACHE:[a-z0-9]+]]: memref<1x16xf32> {mxc.cache}
// RESULTS: %[[ELSEWHERE:.*]] = memref.alloc() : memref<1x16xf32>
// RESULTS: memref.copy %[[ELSEWHERE]], %[[CACHE]]
// RESULTS: return %{{.*}} : memref<2xf32>
func.func @copied(%cache: memref<1x16xf32> {mxc.cache}, %len: memref<0x?xi8> {mxc.length})
    -> (memref<2xf32>, memref<1x16xf32> {mxc.cache_of = 0 : i64}, memref<0x?xi8> {mxc.cache_fill_of = 0 : i64})
    attributes {mxc.dims = [array<i64: -1, -1>, array<i64: -1, 0>, array<i64: -1>, array<i64: -1, -1>, array<i64: -1, 1>]} {
  %c1 = arith.constant 1 : index
  %y = memref.alloc() : memref<2xf32>
  %elsewhere = memref.alloc() : memref<1x16xf32>
  %fill = memref.alloc(%c1) : memref<0x?xi8>
  return %y, %elsewhere, %fill : memref<2xf32>, memref<1x16xf32>, memref<0x?xi8>
}
