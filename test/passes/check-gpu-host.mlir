// SPDX-License-Identifier: Apache-2.0
// mxc-check-gpu-host: in the CUDA pipeline a host function's buffers are
// device memory, so memory ops left outside a GPU kernel are refused at
// compile time, naming the op; inside gpu.launch they are the kernel's.
// RUN: %mxc-opt --split-input-file --verify-diagnostics --pass-pipeline="builtin.module(func.func(mxc-check-gpu-host))" %s

func.func @serial_loop(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    // expected-error @+1 {{the CUDA target would run 'memref.store' on the host, on device memory: no GPU kernel took it}}
    memref.store %zero, %a[%i] : memref<8xf32>
  }
  return
}

// -----

func.func @in_a_kernel(%a: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c8, %v = %c1, %w = %c1) {
    memref.store %zero, %a[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}
