// SPDX-License-Identifier: Apache-2.0
// mxc-gpu-tile-loops: the innermost dimension of each outermost
// scf.parallel split into blocks of threads (as wide as that dimension in
// whole warps, at most 256), guarded rather than min-bounded, and the loops
// mapped: the tile's last dimension to thread x, the tiles from the
// innermost dimension outwards to block x, y and z (y and z only up to
// 65535), the rest serial.
// RUN: %mxc-opt --pass-pipeline="builtin.module(func.func(mxc-gpu-tile-loops))" %s | FileCheck %s

// A 16 x 1000 loop: 4 tiles of 256 along the rows, 16 rows.
// CHECK-LABEL: func.func @rows
// CHECK:       scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%c16, %c1000) step (%{{.*}}, %{{.*}})
// CHECK:         scf.parallel
// CHECK:           scf.if
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = sequential, {{.*}}>, #gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK:       } {mapping = [#gpu.loop_dim_map<processor = block_y, {{.*}}>, #gpu.loop_dim_map<processor = block_x, {{.*}}>]}
func.func @rows(%a: memref<16x1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c1000 = arith.constant 1000 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c1000) step (%c1, %c1) {
    memref.store %zero, %a[%i, %j] : memref<16x1000xf32>
  }
  return
}

// An NCHW image loop 2 x 16 x 32 x 32: 32 threads a row (one warp); the
// row's one tile, the rows and the channels as block x, y and z; the batch
// serial in each thread.
// CHECK-LABEL: func.func @image
// CHECK:       %[[W:.*]] = arith.constant 32 : index
// CHECK:       } {mapping = [#gpu.loop_dim_map<processor = sequential, {{.*}}>, #gpu.loop_dim_map<processor = sequential, {{.*}}>, #gpu.loop_dim_map<processor = sequential, {{.*}}>, #gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK:       } {mapping = [#gpu.loop_dim_map<processor = sequential, {{.*}}>, #gpu.loop_dim_map<processor = block_z, {{.*}}>, #gpu.loop_dim_map<processor = block_y, {{.*}}>, #gpu.loop_dim_map<processor = block_x, {{.*}}>]}
func.func @image(%a: memref<2x16x32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c2, %c16, %c32, %c32) step (%c1, %c1, %c1, %c1) {
    memref.store %zero, %a[%n, %c, %h, %w] : memref<2x16x32x32xf32>
  }
  return
}

// 100000 rows do not fit the grid's y (at most 65535): they run serially.
// CHECK-LABEL: func.func @tall
// CHECK:       } {mapping = [#gpu.loop_dim_map<processor = sequential, {{.*}}>, #gpu.loop_dim_map<processor = block_x, {{.*}}>]}
func.func @tall(%a: memref<100000x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %rows = arith.constant 100000 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %c64) step (%c1, %c1) {
    memref.store %zero, %a[%i, %j] : memref<100000x64xf32>
  }
  return
}
