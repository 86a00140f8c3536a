// SPDX-License-Identifier: Apache-2.0
// Negative cases of the mx.kernel.* verifiers (MxKernelOps.cpp).
// RUN: %mxc-opt --split-input-file --verify-diagnostics %s

// The verifier: wrt names one of the two gradients; the shapes are a
// convolution's.
func.func @bad_wrt(%dy: memref<1x2x3x3xf32>, %w: memref<2x1x3x3xf32>, %dx: memref<1x1x5x5xf32>) {
  // expected-error @+1 {{wrt must be data or weight, not 'bias'}}
  mx.kernel.conv2d_grad %dy, %w into %dx {wrt = "bias", strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>} : memref<1x2x3x3xf32>, memref<2x1x3x3xf32> into memref<1x1x5x5xf32>
  return
}

// -----

func.func @bad_shapes(%dy: memref<1x3x3x3xf32>, %w: memref<2x1x3x3xf32>, %dx: memref<1x1x5x5xf32>) {
  // expected-error @+1 {{shapes do not match: x memref<1x1x5x5xf32>, weight memref<2x1x3x3xf32>, dy memref<1x3x3x3xf32>, groups 1}}
  mx.kernel.conv2d_grad %dy, %w into %dx {wrt = "data", strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>} : memref<1x3x3x3xf32>, memref<2x1x3x3xf32> into memref<1x1x5x5xf32>
  return
}

// -----

func.func @qmatmul_shapes(%a: memref<2x8xi8>, %z: memref<i32>, %b: memref<7x4xi8>, %y: memref<2x4xi32>) {
  // expected-error @+1 {{a, b and init must be (M, K), (K, N) and (M, N), got memref<2x8xi8>, memref<7x4xi8> and memref<2x4xi32>}}
  mx.kernel.qmatmul %a, %z, %b, %z into %y : memref<2x8xi8>, memref<i32>, memref<7x4xi8>, memref<i32> into memref<2x4xi32>
  return
}

// -----

func.func @qmatmul_zero(%a: memref<2x8xi8>, %z: memref<i32>, %b: memref<8x4xi8>, %zb: memref<3xi32>, %y: memref<2x4xi32>) {
  // expected-error @+1 {{b_zero must be int32, one value or one per column}}
  mx.kernel.qmatmul %a, %z, %b, %zb into %y : memref<2x8xi8>, memref<i32>, memref<8x4xi8>, memref<3xi32> into memref<2x4xi32>
  return
}

// -----

// Requantizing, init is 8-bit and the multiplier one or one per filter.
func.func @qconv2d_multipliers(%x: memref<1x4x6x6xui8>, %z: memref<i32>, %w: memref<3x4x3x3xi8>, %m: memref<2xf32>, %zy: memref<f32>, %y: memref<1x3x4x4xui8>) {
  // expected-error @+1 {{multiplier must be f32, one value or one per filter}}
  mx.kernel.qconv2d %x, %z, %w, %z scale %m, %zy into %y {strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, requant = true} : memref<1x4x6x6xui8>, memref<i32>, memref<3x4x3x3xi8>, memref<i32> scale memref<2xf32>, memref<f32> into memref<1x3x4x4xui8>
  return
}

// -----

func.func @qconv2d_requant_init(%x: memref<1x4x6x6xui8>, %z: memref<i32>, %w: memref<3x4x3x3xi8>, %m: memref<f32>, %y: memref<1x3x4x4xi32>) {
  // expected-error @+1 {{x and weight must be 8-bit integers and init 8-bit (requantized)}}
  mx.kernel.qconv2d %x, %z, %w, %z scale %m, %m into %y {strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, requant = true} : memref<1x4x6x6xui8>, memref<i32>, memref<3x4x3x3xi8>, memref<i32> scale memref<f32>, memref<f32> into memref<1x3x4x4xi32>
  return
}

// -----

// Channels last, the channels are x's and init's last axis.
func.func @qconv2d_nhwc_shapes(%x: memref<1x6x6x4xui8>, %z: memref<i32>, %w: memref<3x4x3x3xi8>, %y: memref<1x3x4x4xi32>) {
  // expected-error @+1 {{x, weight and init must be (N, H, W, C), (F, C / groups, KH, KW) and (N, OH, OW, F)}}
  mx.kernel.qconv2d %x, %z, %w, %z scale %z, %z into %y {strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, nhwc = true} : memref<1x6x6x4xui8>, memref<i32>, memref<3x4x3x3xi8>, memref<i32> scale memref<i32>, memref<i32> into memref<1x3x4x4xi32>
  return
}

// -----

func.func @qmaxpool2d_channels(%x: memref<1x4x6x6xi8>, %y: memref<1x3x3x3xi8>) {
  // expected-error @+1 {{x and init must be (N, C, H, W) and (N, C, OH, OW)}}
  mx.kernel.qmaxpool2d %x into %y {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0>} : memref<1x4x6x6xi8> into memref<1x3x3x3xi8>
  return
}

// -----

func.func @qmaxpool2d_types(%x: memref<1x4x6x6xi8>, %y: memref<1x4x3x3xi32>) {
  // expected-error @+1 {{x and init must be 8-bit integers of one type}}
  mx.kernel.qmaxpool2d %x into %y {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0>} : memref<1x4x6x6xi8> into memref<1x4x3x3xi32>
  return
}
