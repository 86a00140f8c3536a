// SPDX-License-Identifier: Apache-2.0
// The memory planner's decisions on small bufferized functions: in-place
// reuse taken and refused, co-sharing of disjoint lifetimes, and buffers that
// must not share. Every 16 x f32 buffer is 64 bytes.
// RUN: %mxc-opt --split-input-file --mxc-plan-memory="strategy=both" %s | FileCheck %s
// RUN: %mxc-opt --split-input-file --mxc-plan-memory="strategy=naive" %s | FileCheck %s --check-prefix=NAIVE
// RUN: %mxc-opt --split-input-file --mxc-plan-memory="strategy=best print=true" %s | FileCheck %s --check-prefix=PRINT

#id = affine_map<(d0) -> (d0)>

// The elementwise op reading %a is its last use, so %b is written in place
// over %a: both views sit at offset 0 of a 64-byte arena.
// CHECK-LABEL: func.func @inplace_taken(
// CHECK-SAME:    %[[ARENA:[a-z0-9_]+]]: memref<64xi8>)
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         memref.view %[[ARENA]][%[[C0]]][] : memref<64xi8> to memref<16xf32>
// CHECK:         %[[C0B:.*]] = arith.constant 0 : index
// CHECK:         memref.view %[[ARENA]][%[[C0B]]][] : memref<64xi8> to memref<16xf32>
// NAIVE-LABEL: func.func @inplace_taken(
// NAIVE-SAME:    memref<128xi8>)
// PRINT-LABEL: memory plan for @inplace_taken (2 intermediate buffers)
// PRINT:         naive {{ *}}128 bytes
// PRINT:         best {{ *}}64 bytes  <- chosen
// PRINT:         bound {{ *}}64 bytes
func.func @inplace_taken(%in: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%in : memref<16xf32>) outs(%a : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  %b = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<16xf32>) outs(%b : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : memref<16xf32>) outs(%out : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

// %a is read again after %b is written, so %b must not reuse %a's memory:
// two offsets, 128 bytes.
// CHECK-LABEL: func.func @inplace_refused_still_live(
// CHECK-SAME:    %[[ARENA:[a-z0-9_]+]]: memref<128xi8>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG:     memref.view %[[ARENA]][%[[C0]]][]
// CHECK-DAG:     memref.view %[[ARENA]][%[[C64]]][]
func.func @inplace_refused_still_live(%in: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%in : memref<16xf32>) outs(%a : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  %b = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<16xf32>) outs(%b : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : memref<16xf32>, memref<16xf32>) outs(%out : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0) -> (d0)>
#sum = affine_map<(d0) -> ()>

// %a dies at a reduction (not elementwise: no in-place); %c is allocated
// after that, so co-sharing gives it %a's block at offset 0, while the scalar
// %s, alive across both, gets its own: 128 bytes in all.
// CHECK-LABEL: func.func @coshare_disjoint(
// CHECK-SAME:    %[[ARENA:[a-z0-9_]+]]: memref<128xi8>)
// CHECK:         %[[OA:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.view %[[ARENA]][%[[OA]]][] : memref<128xi8> to memref<16xf32>
// CHECK:         %[[OS:.*]] = arith.constant 64 : index
// CHECK-NEXT:    memref.view %[[ARENA]][%[[OS]]][] : memref<128xi8> to memref<f32>
// CHECK:         %[[OC:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.view %[[ARENA]][%[[OC]]][] : memref<128xi8> to memref<16xf32>
func.func @coshare_disjoint(%in: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%in : memref<16xf32>) outs(%a : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  %s = memref.alloc() : memref<f32>
  linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction"]}
      ins(%a : memref<16xf32>) outs(%s : memref<f32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %x, %y : f32
    linalg.yield %t : f32
  }
  %c = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [#sum, #id], iterator_types = ["parallel"]}
      ins(%s : memref<f32>) outs(%c : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%c : memref<16xf32>) outs(%out : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

// A dynamic reshape's shape lives in a buffer of `index` elements (8 bytes
// each): it is planned like any other, and the function is planned at all
// (such a buffer made the planner leave every buffer of a decode step on
// the heap).
// CHECK-LABEL: func.func @index_shape(
// CHECK-SAME:    %[[ARENA:[a-z0-9_]+]]: memref<128xi8>)
// CHECK-NOT:     memref.alloc
// CHECK:         memref.view %[[ARENA]][%{{.*}}][] : memref<128xi8> to memref<2xindex>
// CHECK:         memref.view %[[ARENA]][%{{.*}}][] : memref<128xi8> to memref<16xf32>
func.func @index_shape(%in: memref<16xf32>, %out: memref<4x4xf32>) {
  %c4 = arith.constant 4 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %shape = memref.alloc() : memref<2xindex>
  memref.store %c4, %shape[%c0] : memref<2xindex>
  memref.store %c4, %shape[%c1] : memref<2xindex>
  %a = memref.alloc() : memref<16xf32>
  memref.copy %in, %a : memref<16xf32> to memref<16xf32>
  %r = memref.reshape %a(%shape) : (memref<16xf32>, memref<2xindex>) -> memref<4x4xf32>
  memref.copy %r, %out : memref<4x4xf32> to memref<4x4xf32>
  return
}
