// SPDX-License-Identifier: Apache-2.0
// --mxc-outline-parallel-loops: an outermost scf.parallel with enough work
// moves into a private, internal body function run by mxrt_parallel_for
// over the first dimension with more than one iteration (here the 64
// channels); the body receives the memrefs it reads through a context
// struct, recomputes constants and views, keeps the loop's constant bounds
// and skips iterations outside [begin, end). Small loops, loops nested in
// another loop and loops that call functions stay where they are.
// RUN: %mxc-opt %s --mxc-outline-parallel-loops | FileCheck %s
// RUN: %mxc-opt %s --mxc-outline-parallel-loops="min-work=100000000" | FileCheck %s --check-prefix=NONE

// CHECK-LABEL: func.func private @big_parallel0(
// CHECK-SAME: %[[CTX:.*]]: !llvm.ptr, %[[BEGIN:.*]]: i64, %[[END:.*]]: i64)
// CHECK-SAME: attributes {llvm.linkage = #llvm.linkage<internal>}
// CHECK-DAG: %[[P0:.*]] = llvm.getelementptr %[[CTX]][0, 0]
// CHECK-DAG: %[[P1:.*]] = llvm.getelementptr %[[CTX]][0, 1]
// CHECK-DAG: %[[D0:.*]] = llvm.load %[[P0]]
// CHECK-DAG: %[[D1:.*]] = llvm.load %[[P1]]
// CHECK-DAG: %[[ARG:.*]] = builtin.unrealized_conversion_cast %[[D0]] {{.*}} to memref<1x64x56x56xf32>
// CHECK-DAG: %[[ARENA:.*]] = builtin.unrealized_conversion_cast %[[D1]] {{.*}} to memref<1000000xi8>
// CHECK-DAG: %[[VIEW:.*]] = memref.view %[[ARENA]]
// CHECK-DAG: %[[B:.*]] = arith.index_cast %[[BEGIN]] : i64 to index
// CHECK-DAG: %[[E:.*]] = arith.index_cast %[[END]] : i64 to index
// CHECK: scf.parallel (%[[N:.*]], %[[C:.*]], %[[H:.*]], %[[W:.*]]) = (%{{.*}}) to (%c1, %c64, %c56, %c56)
// CHECK: %[[LO:.*]] = arith.cmpi sge, %[[C]], %{{.*}}
// CHECK: %[[HI:.*]] = arith.cmpi slt, %[[C]], %{{.*}}
// CHECK: %[[IN:.*]] = arith.andi %[[LO]], %[[HI]]
// CHECK: scf.if %[[IN]] {
// CHECK: memref.load %[[ARG]]
// CHECK: math.tanh
// CHECK: memref.store %{{.*}}, %[[VIEW]]
// CHECK: return

// CHECK-LABEL: func.func @big(
// CHECK-SAME: %[[A0:.*]]: memref<1x64x56x56xf32>, %[[A1:.*]]: memref<1000000xi8>)
// CHECK: %[[CTXP:.*]] = llvm.alloca
// CHECK: builtin.unrealized_conversion_cast %[[A0]]
// CHECK: llvm.store
// CHECK: builtin.unrealized_conversion_cast %[[A1]]
// CHECK: llvm.store
// CHECK: %[[FN:.*]] = constant @big_parallel0 : (!llvm.ptr, i64, i64) -> ()
// CHECK: %[[TRIPS:.*]] = arith.constant 64 : i64
// CHECK: call @mxrt_parallel_for(%[[FN]], %[[CTXP]], %[[TRIPS]])
// CHECK-NOT: scf.parallel
// CHECK: return
// NONE-NOT: mxrt_parallel_for
func.func @big(%arg0: memref<1x64x56x56xf32>, %arena: memref<1000000xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c56 = arith.constant 56 : index
  %c64 = arith.constant 64 : index
  %v = memref.view %arena[%c0][] : memref<1000000xi8> to memref<1x64x56x56xf32>
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c1, %c64, %c56, %c56) step (%c1, %c1, %c1, %c1) {
    %x = memref.load %arg0[%n, %c, %h, %w] : memref<1x64x56x56xf32>
    %y = math.tanh %x : f32
    memref.store %y, %v[%n, %c, %h, %w] : memref<1x64x56x56xf32>
    scf.reduce
  }
  return
}

// Too little work: stays.
// CHECK-LABEL: func.func @small(
// CHECK: scf.parallel
// CHECK-NOT: mxrt_parallel_for
// CHECK: return
func.func @small(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    memref.store %one, %a[%i] : memref<64xf32>
    scf.reduce
  }
  return
}

// Inside another loop (it would enter the pool once per iteration): stays.
// CHECK-LABEL: func.func @nested(
// CHECK: scf.for
// CHECK: scf.parallel
// CHECK-NOT: mxrt_parallel_for
// CHECK: return
func.func @nested(%a: memref<8x100000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %cn = arith.constant 100000 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    scf.parallel (%j) = (%c0) to (%cn) step (%c1) {
      memref.store %one, %a[%i, %j] : memref<8x100000xf32>
      scf.reduce
    }
  }
  return
}

// A call inside (a kernel must not enter the pool from a pool thread):
// stays.
// CHECK-LABEL: func.func @calls(
// CHECK: scf.parallel
// CHECK: call @work
// CHECK-NOT: mxrt_parallel_for
// CHECK: return
func.func private @work(index)
func.func @calls() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant 1000000 : index
  scf.parallel (%i) = (%c0) to (%cn) step (%c1) {
    func.call @work(%i) : (index) -> ()
    scf.reduce
  }
  return
}

// Bounds known only at run time (a dynamic batch or cache axis): the body
// function is the same, the trip count of the split dimension and the
// loop's work are computed at run time, and the loop runs in place (the
// else branch) when its work is below min-work.
// CHECK-LABEL: func.func private @dynamic_parallel1(
// CHECK: scf.parallel
// CHECK: scf.if
// CHECK: math.tanh
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME: %[[A:.*]]: memref<?x256xf32>
// CHECK: %[[D:.*]] = memref.dim %[[A]], %c0
// CHECK: %[[ENOUGH:.*]] = arith.cmpi uge, %[[WORK:.*]], %c131072
// CHECK: scf.if %[[ENOUGH]] {
// CHECK: llvm.alloca
// CHECK: %[[FN:.*]] = {{(func.)?}}constant @dynamic_parallel1
// CHECK: %[[COUNT:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: call @mxrt_parallel_for(%[[FN]], %{{.*}}, %[[COUNT]])
// CHECK: } else {
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%[[D]], %c256)
// CHECK: math.tanh
// CHECK: return
// NONE-LABEL: func.func @dynamic(
// NONE: arith.cmpi uge, %{{.*}}, %c100000000
func.func @dynamic(%a: memref<?x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %d = memref.dim %a, %c0 : memref<?x256xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%d, %c256) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<?x256xf32>
    %y = math.tanh %x : f32
    memref.store %y, %a[%i, %j] : memref<?x256xf32>
    scf.reduce
  }
  return
}

// A bound computed inside the loop (read from memory per iteration): its
// work is unknown before the loop, which stays.
// CHECK-LABEL: func.func @bound_inside(
// CHECK-NOT: mxrt_parallel_for
// CHECK: return
func.func @bound_inside(%a: memref<?x256xf32>, %n: memref<?xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = memref.dim %a, %c0 : memref<?x256xf32>
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%d) step (%c1) {
    %m = memref.load %n[%i] : memref<?xindex>
    scf.for %j = %c0 to %m step %c1 {
      memref.store %one, %a[%i, %j] : memref<?x256xf32>
    }
    scf.reduce
  }
  return
}
