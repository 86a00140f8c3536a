// SPDX-License-Identifier: Apache-2.0
// --mxc-cuda-pipeline end to end on a small MLP (FullyConnected, ReLU,
// softmax): every loop nest becomes a GPU kernel, lowered through NVVM to
// PTX for sm_90 (the isa variant keeps the PTX text, so the test needs no
// CUDA toolkit), and the host function keeps the CPU library's calling
// convention (bare pointers: inputs, parameters, the output, the arena)
// and only launches kernels: it reads and writes no memory itself, since
// every pointer it gets is device memory.
// RUN: %mxc-opt --mxc-cuda-ptx-pipeline %s | FileCheck %s
// RUN: %mxc-opt --mxc-cuda-ptx-pipeline %s | FileCheck %s --check-prefix=HOST
// With the toolkit's ptxas and fatbinary, the binaries are fatbins (their
// magic 0xBA55ED50, little-endian) holding sm_90 machine code and PTX.
// RUN: %if cuda-toolkit %{ %mxc-opt --mxc-cuda-pipeline %s | FileCheck %s --check-prefix=FATBIN %}

// CHECK-LABEL: llvm.func @forward(
// CHECK-SAME:    %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) {
// CHECK:         gpu.launch_func @forward_kernel::@forward_kernel
// CHECK:         gpu.binary @forward_kernel  [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80"{{.*}}assembly = "{{.*}}.target sm_90{{.*}}.visible .entry forward_kernel(

// HOST-LABEL: llvm.func @forward(
// HOST-NOT:   llvm.load
// HOST-NOT:   llvm.store
// HOST-NOT:   llvm.call
// HOST:       llvm.return

// FATBIN: gpu.binary @forward_kernel  [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80"{{.*}}"P\EDU\BA

func.func @forward(%data: tensor<4x16xf32> {mx.name = "data"},
                   %w: tensor<8x16xf32> {mx.name = "fc_weight"},
                   %b: tensor<8xf32> {mx.name = "fc_bias"})
    -> tensor<4x8xf32> {
  %0 = mx.FullyConnected %data, %w, %b {num_hidden = 8 : i64}
      : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = mx.Activation %0 {act_type = "relu"} : tensor<4x8xf32>
  %2 = mx.SoftmaxOutput %1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
