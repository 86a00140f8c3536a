// SPDX-License-Identifier: Apache-2.0
// --mxc-hoist-constant-loads: a bilinear row gather as convert-linalg-to-parallel-loops
// leaves it. The row index and weight (loads of mxc.constant parameters at the outer
// induction variable) and the clamp on the index move out of the innermost loop; the
// load of the image (not a constant) and the one indexed by the innermost variable stay.
// RUN: %mxc-opt --split-input-file --mxc-hoist-constant-loads %s | FileCheck %s

// CHECK-LABEL: func.func @rows
// CHECK: scf.parallel (%[[C:.*]], %[[Y:.*]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}})
// CHECK:   %[[I:.*]] = memref.load %arg1[%[[Y]]] : memref<8xi64>
// CHECK:   %[[W:.*]] = memref.load %arg2[%[[Y]]] : memref<8xf32>
// CHECK:   arith.minsi %[[I]]
// CHECK:   %[[ROW:.*]] = arith.index_cast
// CHECK:   scf.parallel (%[[X:.*]]) = (%{{.*}}) to (%{{.*}})
// CHECK-NEXT: memref.load %arg0[%[[C]], %[[ROW]], %[[X]]] : memref<3x4x8xf32>
// CHECK-NEXT: memref.load %arg3[%[[X]]] : memref<8xf32>
// CHECK: memref.store %{{.*}}, %arg4[%[[C]], %[[Y]], %[[X]]]
func.func @rows(%img: memref<3x4x8xf32>, %idx: memref<8xi64> {mxc.constant},
                %w: memref<8xf32> {mxc.constant}, %col: memref<8xf32> {mxc.constant},
                %out: memref<3x8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c3_i64 = arith.constant 3 : i64
  scf.parallel (%c, %y, %x) = (%c0, %c0, %c0) to (%c3, %c8, %c8) step (%c1, %c1, %c1) {
    %i = memref.load %idx[%y] : memref<8xi64>
    %wy = memref.load %w[%y] : memref<8xf32>
    %clamped = arith.minsi %i, %c3_i64 : i64
    %row = arith.index_cast %clamped : i64 to index
    %v = memref.load %img[%c, %row, %x] : memref<3x4x8xf32>
    %cx = memref.load %col[%x] : memref<8xf32>
    %p = arith.mulf %v, %wy : f32
    %q = arith.mulf %p, %cx : f32
    memref.store %q, %out[%c, %y, %x] : memref<3x8x8xf32>
    scf.reduce
  }
  return
}

// -----

// Nothing constant to load: the nest stays whole.
// CHECK-LABEL: func.func @plain
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
// CHECK-NOT: scf.parallel
func.func @plain(%a: memref<4x8xf32>, %b: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<4x8xf32>
    memref.store %v, %b[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  return
}
