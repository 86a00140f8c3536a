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
// Every kernel in one module (mxc-merge-gpu-modules): one ptxas run.
// CHECK:         gpu.launch_func @mxc_kernels::@forward_kernel
// CHECK:         gpu.launch_func @mxc_kernels::@forward_kernel_0
// CHECK-NOT:     gpu.binary
// CHECK:         gpu.binary @mxc_kernels  [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80"{{.*}}assembly = "{{.*}}.target sm_90{{.*}}.visible .entry forward_kernel({{.*}}.visible .entry forward_kernel_0({{.*}}.visible .entry conv_kernel(
// CHECK-NOT:     gpu.binary

// The FullyConnected: its bias broadcast into the output by a kernel, then
// cuBLAS through libmxrt's wrapper, accumulating onto it (flags 1).
// HOST-LABEL: llvm.func @forward(
// HOST-NOT:   llvm.load
// HOST-NOT:   llvm.store
// HOST:       %[[ACC:.*]] = llvm.mlir.constant(1 : i32) : i32
// HOST:       gpu.launch_func @mxc_kernels::@forward_kernel
// HOST-NOT:   llvm.load
// HOST-NOT:   llvm.store
// HOST:       llvm.call @mxrt_cuda_sgemm({{.*}}, %[[ACC]]) :
// HOST-NOT:   llvm.load
// HOST-NOT:   llvm.store
// HOST-NOT:   llvm.call
// HOST:       llvm.return

// A convolution with a bias: cuDNN through mxrt_cuda_sconv2d onto the
// broadcast bias; without one, onto nothing (flags 0).
// HOST-LABEL: llvm.func @conv(
// HOST-DAG:   %[[ACC2:.*]] = llvm.mlir.constant(1 : i32) : i32
// HOST-DAG:   %[[NONE:.*]] = llvm.mlir.zero : !llvm.ptr
// HOST:       gpu.launch_func
// HOST:       llvm.call @mxrt_cuda_sconv2d({{.*}}, %[[NONE]], %{{.*}}, %[[ACC2]]) :
// HOST:       llvm.return
// HOST-LABEL: llvm.func @conv_no_bias(
// HOST:       %[[OVER:.*]] = llvm.mlir.constant(0 : i32) : i32
// HOST-NOT:   gpu.launch_func
// HOST:       llvm.call @mxrt_cuda_sconv2d({{.*}}, %[[OVER]]) :
// HOST-NEXT:  llvm.return

// FATBIN: gpu.binary @mxc_kernels  [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80"{{.*}}"P\EDU\BA

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

func.func @conv(%x: tensor<2x3x8x8xf32> {mx.name = "data"},
                %w: tensor<4x3x3x3xf32> {mx.name = "conv_weight"},
                %b: tensor<4xf32> {mx.name = "conv_bias"})
    -> tensor<2x4x8x8xf32> {
  %0 = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>,
      pad = array<i64: 1, 1>, num_filter = 4 : i64}
      : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
      -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

func.func @conv_no_bias(%x: tensor<2x3x8x8xf32> {mx.name = "data"},
                        %w: tensor<4x3x3x3xf32> {mx.name = "conv_weight"})
    -> tensor<2x4x4x4xf32> {
  %0 = mx.Convolution %x, %w {kernel = array<i64: 3, 3>,
      stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, num_filter = 4 : i64,
      no_bias = true}
      : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
  return %0 : tensor<2x4x4x4xf32>
}
