// SPDX-License-Identifier: Apache-2.0
// --mxc-distinct-results: a buffer a function returns more than once is
// returned once and then as copies (static and run-time extents), which
// buffer-results-to-out-params can make out-parameters of; the whole
// CPU pipeline then compiles such a function.
// RUN: %mxc-opt --mxc-distinct-results %s | FileCheck %s
// RUN: %mxc-opt --mxc-distinct-results --buffer-results-to-out-params=modify-public-functions=true %s | FileCheck %s --check-prefix=OUT

// CHECK-LABEL: func.func @twice
// CHECK-SAME: (%[[A:.*]]: memref<2x3xf32>, %[[N:.*]]: index)
// CHECK: %[[B:.*]] = memref.alloc(%[[N]]) : memref<?xf32>
// CHECK: %[[C:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK: memref.copy %[[A]], %[[C]]
// CHECK: %[[D:.*]] = memref.dim %[[B]], %{{.*}} : memref<?xf32>
// CHECK: %[[E:.*]] = memref.alloc(%[[D]]) : memref<?xf32>
// CHECK: memref.copy %[[B]], %[[E]]
// CHECK: %[[F:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK: memref.copy %[[A]], %[[F]]
// CHECK: return %[[A]], %[[C]], %[[B]], %[[E]], %[[F]]
// Then every result becomes an out-parameter.
// OUT-LABEL: func.func @twice(%{{.*}}: memref<2x3xf32>, %{{.*}}: index, %{{.*}}: memref<2x3xf32>, %{{.*}}: memref<2x3xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<2x3xf32>) {
// OUT: return{{$}}
func.func @twice(%a: memref<2x3xf32>, %n: index) -> (memref<2x3xf32>, memref<2x3xf32>, memref<?xf32>, memref<?xf32>, memref<2x3xf32>) {
  %b = memref.alloc(%n) : memref<?xf32>
  return %a, %a, %b, %b, %a : memref<2x3xf32>, memref<2x3xf32>, memref<?xf32>, memref<?xf32>, memref<2x3xf32>
}

// CHECK-LABEL: func.func @once
// CHECK-NOT: memref.copy
func.func @once(%a: memref<2x3xf32>, %b: memref<2x3xf32>) -> (memref<2x3xf32>, memref<2x3xf32>) {
  return %a, %b : memref<2x3xf32>, memref<2x3xf32>
}
