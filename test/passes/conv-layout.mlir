// SPDX-License-Identifier: Apache-2.0
// --mxc-conv-layout: convolutions linked directly (one's result another's
// input or accumulator) form a chain; a chain of two or more small ones
// runs channels last (nhwc = true), transposed only where it meets the
// rest of the function. Small layers, and 3x3 stride-1 layers with
// constant weights (NHWC Winograd), may join a chain; a lone convolution,
// 1x1 stride-1 ones (plain products in NCHW) and large layers the NHWC
// kernels do not take keep NCHW; policy=all takes every convolution.
// RUN: %mxc-opt --split-input-file --pass-pipeline='builtin.module(func.func(mxc-convert-mx-to-linalg),canonicalize,func.func(mxc-fuse-kernel-epilogues),func.func(mxc-conv-layout))' %s | FileCheck %s
// RUN: %mxc-opt --split-input-file --pass-pipeline='builtin.module(func.func(mxc-convert-mx-to-linalg),canonicalize,func.func(mxc-fuse-kernel-epilogues),func.func(mxc-conv-layout{policy=all}))' %s | FileCheck %s --check-prefix=ALL
// RUN: %mxc-opt --split-input-file --pass-pipeline='builtin.module(func.func(mxc-convert-mx-to-linalg),canonicalize,func.func(mxc-fuse-kernel-epilogues),func.func(mxc-conv-layout{precision=bf16}))' %s | FileCheck %s --check-prefix=BF16
// RUN: not %mxc-opt --pass-pipeline='builtin.module(func.func(mxc-conv-layout{policy=sideways}))' %s 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not %mxc-opt --pass-pipeline='builtin.module(func.func(mxc-conv-layout{precision=fp16}))' %s 2>&1 | FileCheck %s --check-prefix=BAD-PRECISION

// BAD: mxc-conv-layout: policy must be auto, all or none, not 'sideways'
// BAD-PRECISION: mxc-conv-layout: precision must be fp32 or bf16, not 'fp16'

// A residual block: conv -> relu -> conv accumulating into the block's
// input. The input goes channels last once (read by the first conv, the
// second's accumulator), the result comes back once; nothing else moves.
// CHECK-LABEL: func.func @block
// CHECK-SAME: (%[[X:.*]]: tensor<1x16x8x8xf32>,
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<1x16x8x8xf32>) outs(%{{.*}} : tensor<1x8x8x16xf32>) permutation = [0, 2, 3, 1]
// CHECK: %[[A:.*]] = mx.kernel.conv2d %[[XT]], {{.*}} into %{{.*}} {dilations = {{.*}}nhwc = true{{.*}}relu = true{{.*}} : tensor<1x8x8x16xf32>, {{.*}} into tensor<1x8x8x16xf32>
// CHECK: %[[B:.*]] = mx.kernel.conv2d %[[A]], {{.*}} into %[[XT]] {accumulate = true, {{.*}}nhwc = true{{.*}}relu = true
// CHECK: %[[Y:.*]] = linalg.transpose ins(%[[B]] : tensor<1x8x8x16xf32>) outs(%{{.*}} : tensor<1x16x8x8xf32>) permutation = [0, 3, 1, 2]
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: linalg.transpose
func.func @block(%x: tensor<1x16x8x8xf32>, %w1: tensor<16x16x3x3xf32>, %w2: tensor<16x16x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x8x8xf32> {
  %c1 = mx.Convolution %x, %w1, %b {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 16 : i64} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  %r1 = mx.Activation %c1 {act_type = "relu"} : tensor<1x16x8x8xf32>
  %c2 = mx.Convolution %r1, %w2, %b {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 16 : i64} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  %a = mx.binary %x, %c2 {op = "add"} : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %r2 = mx.Activation %a {act_type = "relu"} : tensor<1x16x8x8xf32>
  return %r2 : tensor<1x16x8x8xf32>
}

// -----

// A lone convolution gains nothing from its own transposes: NCHW (but
// policy=all takes it).
// CHECK-LABEL: func.func @lone
// CHECK-NOT: linalg.transpose
// CHECK-NOT: nhwc = true
// ALL-LABEL: func.func @lone
// ALL: linalg.transpose
// ALL: mx.kernel.conv2d {{.*}}nhwc = true
// ALL: linalg.transpose
func.func @lone(%x: tensor<1x16x8x8xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32> {
  %c = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 16 : i64, no_bias = true} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  return %c : tensor<1x16x8x8xf32>
}

// -----

// Must not change: large layers the NHWC kernels do not take (3x3 of 128
// channels whose weights are not constant: no NHWC Winograd, and NHWC
// direct is slower there), even linked.
// CHECK-LABEL: func.func @large_link
// CHECK-NOT: linalg.transpose
// CHECK-NOT: nhwc = true
func.func @large_link(%x: tensor<1x128x8x8xf32>, %w1: tensor<128x128x3x3xf32>, %w2: tensor<128x128x3x3xf32>) -> tensor<1x128x8x8xf32> {
  %c1 = mx.Convolution %x, %w1 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 128 : i64, no_bias = true} : (tensor<1x128x8x8xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x8x8xf32>
  %c2 = mx.Convolution %c1, %w2 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 128 : i64, no_bias = true} : (tensor<1x128x8x8xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x8x8xf32>
  return %c2 : tensor<1x128x8x8xf32>
}

// -----

// Must not change: small 1x1 stride-1 layers, linked: NCHW computes them as
// plain products on the packed GEMM (policy=all still takes them, and so
// does precision=bf16: bfloat16 layers of 16 channels and more go
// channels last).
// CHECK-LABEL: func.func @pointwise_link
// CHECK-NOT: linalg.transpose
// CHECK-NOT: nhwc = true
// ALL-LABEL: func.func @pointwise_link
// ALL: mx.kernel.conv2d {{.*}}nhwc = true
// BF16-LABEL: func.func @pointwise_link
// BF16: linalg.transpose
// BF16: mx.kernel.conv2d {{.*}}nhwc = true
// BF16: mx.kernel.conv2d {{.*}}nhwc = true
// BF16: linalg.transpose
func.func @pointwise_link(%x: tensor<1x40x14x14xf32>, %w1: tensor<120x40x1x1xf32>, %w2: tensor<40x120x1x1xf32>) -> tensor<1x40x14x14xf32> {
  %c1 = mx.Convolution %x, %w1 {kernel = array<i64: 1, 1>, num_filter = 120 : i64, no_bias = true} : (tensor<1x40x14x14xf32>, tensor<120x40x1x1xf32>) -> tensor<1x120x14x14xf32>
  %c2 = mx.Convolution %c1, %w2 {kernel = array<i64: 1, 1>, num_filter = 40 : i64, no_bias = true} : (tensor<1x120x14x14xf32>, tensor<40x120x1x1xf32>) -> tensor<1x40x14x14xf32>
  return %c2 : tensor<1x40x14x14xf32>
}

// -----

// Must not change: 64-channel 3x3 stride-1 layers on a 56x56 image with
// weights that are not constant: not small, no NHWC Winograd, and the NHWC
// direct kernel's fits are for stride 2 only.
// CHECK-LABEL: func.func @large_image
// CHECK-NOT: linalg.transpose
// CHECK-NOT: nhwc = true
func.func @large_image(%x: tensor<1x64x56x56xf32>, %w1: tensor<64x64x3x3xf32>, %w2: tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> {
  %c1 = mx.Convolution %x, %w1 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 64 : i64, no_bias = true} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
  %c2 = mx.Convolution %c1, %w2 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 64 : i64, no_bias = true} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
  return %c2 : tensor<1x64x56x56xf32>
}

// -----

// Constant weights (an inference library's): 3x3 stride-1 layers take
// NHWC Winograd and chain whatever their size; the 3x3/2 of 128 channels
// between two such pairs does not fit, so it stays NCHW and splits the
// chain in two, with transposes around it.
// CHECK-LABEL: func.func @winograd_stages
// CHECK: %[[A:.*]] = mx.kernel.conv2d {{.*}}nhwc = true{{.*}} : tensor<1x14x14x128xf32>
// CHECK: %[[B:.*]] = mx.kernel.conv2d %[[A]], {{.*}}nhwc = true{{.*}} : tensor<1x14x14x128xf32>
// CHECK: %[[BT:.*]] = linalg.transpose ins(%[[B]] : tensor<1x14x14x128xf32>) outs(%{{.*}} : tensor<1x128x14x14xf32>)
// CHECK: %[[C:.*]] = mx.kernel.conv2d %[[BT]], {{.*}}strides = array<i64: 2, 2>} : tensor<1x128x14x14xf32>
// CHECK: %[[CT:.*]] = linalg.transpose ins(%[[C]] : tensor<1x256x7x7xf32>) outs(%{{.*}} : tensor<1x7x7x256xf32>)
// CHECK: %[[D:.*]] = mx.kernel.conv2d %[[CT]], {{.*}}nhwc = true{{.*}} : tensor<1x7x7x256xf32>
// CHECK: mx.kernel.conv2d %[[D]], {{.*}}nhwc = true{{.*}} : tensor<1x7x7x256xf32>
func.func @winograd_stages(%x: tensor<1x128x14x14xf32>, %w1: tensor<128x128x3x3xf32> {mxc.constant}, %w2: tensor<128x128x3x3xf32> {mxc.constant}, %w3: tensor<256x128x3x3xf32> {mxc.constant}, %w4: tensor<256x256x3x3xf32> {mxc.constant}, %w5: tensor<256x256x3x3xf32> {mxc.constant}) -> tensor<1x256x7x7xf32> {
  %c1 = mx.Convolution %x, %w1 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 128 : i64, no_bias = true} : (tensor<1x128x14x14xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x14x14xf32>
  %c2 = mx.Convolution %c1, %w2 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 128 : i64, no_bias = true} : (tensor<1x128x14x14xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x14x14xf32>
  %c3 = mx.Convolution %c2, %w3 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>, num_filter = 256 : i64, no_bias = true} : (tensor<1x128x14x14xf32>, tensor<256x128x3x3xf32>) -> tensor<1x256x7x7xf32>
  %c4 = mx.Convolution %c3, %w4 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 256 : i64, no_bias = true} : (tensor<1x256x7x7xf32>, tensor<256x256x3x3xf32>) -> tensor<1x256x7x7xf32>
  %c5 = mx.Convolution %c4, %w5 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 256 : i64, no_bias = true} : (tensor<1x256x7x7xf32>, tensor<256x256x3x3xf32>) -> tensor<1x256x7x7xf32>
  return %c5 : tensor<1x256x7x7xf32>
}

// -----

// Must not change: one of the pair's weights is not constant (a training
// library's), so that layer has no NHWC Winograd and the other is alone.
// CHECK-LABEL: func.func @one_constant
// CHECK-NOT: linalg.transpose
// CHECK-NOT: nhwc = true
func.func @one_constant(%x: tensor<1x128x14x14xf32>, %w1: tensor<128x128x3x3xf32> {mxc.constant}, %w2: tensor<128x128x3x3xf32>) -> tensor<1x128x14x14xf32> {
  %c1 = mx.Convolution %x, %w1 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 128 : i64, no_bias = true} : (tensor<1x128x14x14xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x14x14xf32>
  %c2 = mx.Convolution %c1, %w2 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 128 : i64, no_bias = true} : (tensor<1x128x14x14xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x14x14xf32>
  return %c2 : tensor<1x128x14x14xf32>
}

// -----

// A training library's weights (mx.param) in its inference function
// "forward" are kept packed between calls (MXRT_KERNEL_PARAM_A), so they
// chain as constant ones do; in grad / train_step they change every call.
// CHECK-LABEL: func.func @forward
// CHECK: mx.kernel.conv2d {{.*}}nhwc = true
// CHECK: mx.kernel.conv2d {{.*}}nhwc = true
// CHECK-LABEL: func.func @grad
// CHECK-NOT: nhwc = true
func.func @forward(%x: tensor<1x128x14x14xf32>, %w1: tensor<128x128x3x3xf32> {mx.param}, %w2: tensor<128x128x3x3xf32> {mx.param}) -> tensor<1x128x14x14xf32> {
  %c1 = mx.Convolution %x, %w1 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 128 : i64, no_bias = true} : (tensor<1x128x14x14xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x14x14xf32>
  %c2 = mx.Convolution %c1, %w2 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 128 : i64, no_bias = true} : (tensor<1x128x14x14xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x14x14xf32>
  return %c2 : tensor<1x128x14x14xf32>
}
func.func @grad(%x: tensor<1x128x14x14xf32>, %w1: tensor<128x128x3x3xf32> {mx.param}, %w2: tensor<128x128x3x3xf32> {mx.param}) -> tensor<1x128x14x14xf32> {
  %c1 = mx.Convolution %x, %w1 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 128 : i64, no_bias = true} : (tensor<1x128x14x14xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x14x14xf32>
  %c2 = mx.Convolution %c1, %w2 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 128 : i64, no_bias = true} : (tensor<1x128x14x14xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x14x14xf32>
  return %c2 : tensor<1x128x14x14xf32>
}

// -----

// A chain's inner result that the function also returns comes back to
// NCHW for that reader; the next convolution still reads it channels last.
// CHECK-LABEL: func.func @inner_result
// CHECK: %[[A:.*]] = mx.kernel.conv2d {{.*}}nhwc = true
// CHECK-DAG: %[[B:.*]] = mx.kernel.conv2d %[[A]], {{.*}}nhwc = true
// CHECK-DAG: %[[AT:.*]] = linalg.transpose ins(%[[A]] : tensor<1x6x6x8xf32>) outs(%{{.*}} : tensor<1x8x6x6xf32>)
// CHECK: return %[[AT]], %{{.*}} : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>
func.func @inner_result(%x: tensor<1x4x6x6xf32>, %w1: tensor<8x4x3x3xf32>, %w2: tensor<8x8x3x3xf32>) -> (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) {
  %c1 = mx.Convolution %x, %w1 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 8 : i64, no_bias = true} : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %c2 = mx.Convolution %c1, %w2 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 8 : i64, no_bias = true} : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %c1, %c2 : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>
}

// -----

// Gradients stay NCHW by default; policy=all runs them channels last too:
// dy and the weight gradient's x transposed once each (one transpose of dy
// serves both), the data gradient's result transposed back, the weights
// as they are.
// CHECK-LABEL: func.func @grads
// CHECK-NOT: linalg.transpose
// CHECK-NOT: nhwc = true
// ALL-LABEL: func.func @grads
// ALL-DAG: %[[DY:.*]] = linalg.transpose ins(%arg2 : tensor<2x6x4x4xf32>) outs(%{{.*}} : tensor<2x4x4x6xf32>) permutation = [0, 2, 3, 1]
// ALL-DAG: %[[X:.*]] = linalg.transpose ins(%arg0 : tensor<2x4x8x8xf32>) outs(%{{.*}} : tensor<2x8x8x4xf32>) permutation = [0, 2, 3, 1]
// ALL-DAG: %[[DX:.*]] = mx.kernel.conv2d_grad %[[DY]], %arg1 into %{{.*}} {{{.*}}nhwc = true{{.*}}wrt = "data"} : tensor<2x4x4x6xf32>, tensor<6x2x3x3xf32> into tensor<2x8x8x4xf32>
// ALL-DAG: %[[DW:.*]] = mx.kernel.conv2d_grad %[[DY]], %[[X]] into %{{.*}} {{{.*}}nhwc = true{{.*}}wrt = "weight"} : tensor<2x4x4x6xf32>, tensor<2x8x8x4xf32> into tensor<6x2x3x3xf32>
// ALL-DAG: %[[DXT:.*]] = linalg.transpose ins(%[[DX]] : tensor<2x8x8x4xf32>) outs(%{{.*}} : tensor<2x4x8x8xf32>) permutation = [0, 3, 1, 2]
// ALL: return %[[DXT]], %[[DW]]
func.func @grads(%x: tensor<2x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %dy: tensor<2x6x4x4xf32>) -> (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>) {
  %dx = mx.ConvolutionGradData %dy, %w {data_shape = array<i64: 2, 4, 8, 8>, kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 2 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x8x8xf32>
  %dw = mx.ConvolutionGradWeight %x, %dy {kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 2 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x4x8x8xf32>, tensor<2x6x4x4xf32>) -> tensor<6x2x3x3xf32>
  return %dx, %dw : tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>
}

// -----

// precision=bf16: a 3-channel stem stays NCHW (its 3-float taps gather
// slowly channels last), and its bfloat16 neighbours (a 1x1 layer, a 3x3
// stride-2 one) chain without it; a large 3x3 stride-1 layer (float32
// Winograd, weights not constant: no NHWC Winograd) does not join them.
// With float32, all four stay NCHW.
// BF16-LABEL: func.func @bf16_stem
// BF16: mx.kernel.conv2d %{{.*}} {{{.*}}pads = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<1x3x96x96xf32>
// BF16: linalg.transpose
// BF16: mx.kernel.conv2d {{.*}}nhwc = true{{.*}} into tensor<1x48x48x32xf32>
// BF16: mx.kernel.conv2d {{.*}}nhwc = true{{.*}} into tensor<1x24x24x128xf32>
// BF16: linalg.transpose
// BF16: mx.kernel.conv2d %{{.*}} {{{.*}}pads = array<i64: 1, 1>, strides = array<i64: 1, 1>} : tensor<1x128x24x24xf32>
// BF16-NOT: nhwc = true
// CHECK-LABEL: func.func @bf16_stem
// CHECK-NOT: nhwc = true
func.func @bf16_stem(%x: tensor<1x3x96x96xf32>, %w0: tensor<32x3x7x7xf32>, %w1: tensor<32x32x1x1xf32>, %w2: tensor<128x32x3x3xf32>, %w3: tensor<128x128x3x3xf32>) -> tensor<1x128x24x24xf32> {
  %c0 = mx.Convolution %x, %w0 {kernel = array<i64: 7, 7>, stride = array<i64: 2, 2>, pad = array<i64: 3, 3>, num_filter = 32 : i64, no_bias = true} : (tensor<1x3x96x96xf32>, tensor<32x3x7x7xf32>) -> tensor<1x32x48x48xf32>
  %c1 = mx.Convolution %c0, %w1 {kernel = array<i64: 1, 1>, num_filter = 32 : i64, no_bias = true} : (tensor<1x32x48x48xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x48x48xf32>
  %c2 = mx.Convolution %c1, %w2 {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, num_filter = 128 : i64, no_bias = true} : (tensor<1x32x48x48xf32>, tensor<128x32x3x3xf32>) -> tensor<1x128x24x24xf32>
  %c3 = mx.Convolution %c2, %w3 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 128 : i64, no_bias = true} : (tensor<1x128x24x24xf32>, tensor<128x128x3x3xf32>) -> tensor<1x128x24x24xf32>
  return %c3 : tensor<1x128x24x24xf32>
}
