// SPDX-License-Identifier: Apache-2.0
// One negative case per constraint of every mx op (the Cn of MxOps.td, named
// after the verifier tag in MxOps.cpp) and per other error branch. Ops whose
// result types come from functional-type(...) are checked by the verifier,
// which adds "failed to infer returned types"; ops with a single-type format
// infer while parsing and report only the constraint.
// RUN: %mxc-opt --split-input-file --verify-diagnostics %s

// A declared result type that differs from the inferred one is rejected.
func.func @wrong_result_type(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{'mx.FullyConnected' op inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<2x5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.FullyConnected %x, %w {num_hidden = 4 : i64, no_bias = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// The result element type is inferred too: f16 data cannot give an f32 result.
func.func @wrong_result_element_type(%x: tensor<2x3xf16>) -> tensor<2x3xf32> {
  // expected-error @+2 {{'mx.transpose' op inferred type(s) 'tensor<3x2xf16>' are incompatible with return type(s) of operation 'tensor<3x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.transpose %x : (tensor<2x3xf16>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// ODS: neural-network layers take float tensors only.
func.func @ods_float_tensor(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // expected-error @+1 {{operand #0 must be 0D/1D/2D/3D/4D/5D/6D/7D/8D tensor of floating-point values, but got 'tensor<2x3xi32>'}}
  %y = mx.Activation %x {act_type = "relu"} : tensor<2x3xi32>
  return %y : tensor<2x3xi32>
}

// -----

// ODS: index is neither a float nor a signless integer element type.
func.func @ods_any_tensor(%x: tensor<2x3xindex>) -> tensor<3x2xindex> {
  // expected-error @+1 {{operand #0 must be 0D/1D/2D/3D/4D/5D/6D/7D/8D tensor of floating-point or signless integer or unsigned integer values, but got 'tensor<2x3xindex>'}}
  %y = mx.transpose %x : (tensor<2x3xindex>) -> tensor<3x2xindex>
  return %y : tensor<3x2xindex>
}

// -----

// ODS: num_hidden has no default and must be given.
func.func @ods_required_attr(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'mx.FullyConnected' op requires attribute 'num_hidden'}}
  %y = mx.FullyConnected %x, %w {no_bias = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// FullyConnected needs data of rank >= 1.
func.func @fc_data_rank(%x: tensor<f32>, %w: tensor<4x1xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{data must have rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.FullyConnected %x, %w {num_hidden = 4 : i64, no_bias = true} : (tensor<f32>, tensor<4x1xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// fc_c1: weight dim 0 must be num_hidden.
func.func @fc_c1(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{weight shape (4, 3) does not match (num_hidden, K) = (5, 3) for data (2, 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.FullyConnected %x, %w {num_hidden = 5 : i64, no_bias = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// fc_c1: weight must be 2-D.
func.func @fc_c1_rank(%x: tensor<2x3xf32>, %w: tensor<4x3x1xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{weight shape (4, 3, 1) does not match (num_hidden, K) = (4, 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.FullyConnected %x, %w {num_hidden = 4 : i64, no_bias = true} : (tensor<2x3xf32>, tensor<4x3x1xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// fc_c2: with flatten, K is the product of the trailing data extents (3*4 = 12).
func.func @fc_c2(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{weight shape (5, 4) does not match (num_hidden, K) = (5, 12) for data (2, 3, 4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.FullyConnected %x, %w {num_hidden = 5 : i64, no_bias = true} : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// fc_c2: without flatten, K is the last data extent.
func.func @fc_c2_no_flatten(%x: tensor<2x3x4xf32>, %w: tensor<5x12xf32>) -> tensor<2x3x5xf32> {
  // expected-error @+2 {{weight shape (5, 12) does not match (num_hidden, K) = (5, 4) for data (2, 3, 4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.FullyConnected %x, %w {num_hidden = 5 : i64, no_bias = true, flatten = false} : (tensor<2x3x4xf32>, tensor<5x12xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// fc_c3: a bias with no_bias set.
func.func @fc_c3(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{has a bias but no_bias is set}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.FullyConnected %x, %w, %b {num_hidden = 4 : i64, no_bias = true} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// fc_c3: no bias while no_bias is false (the default).
func.func @fc_c3_missing_bias(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{needs a bias unless no_bias is set}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.FullyConnected %x, %w {num_hidden = 4 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// fc_c3: the bias has shape (num_hidden,).
func.func @fc_c3_bias_shape(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{bias shape (3,) does not match (num_hidden,) = (4,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.FullyConnected %x, %w, %b {num_hidden = 4 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// conv_c1: data must be rank 3 or 4.
func.func @conv_c1(%x: tensor<1x3x4x4x4xf32>, %w: tensor<2x3x1x1x1xf32>) -> tensor<1x2x4x4x4xf32> {
  // expected-error @+2 {{data must be NCW or NCHW (rank 3 or 4), got shape (1, 3, 4, 4, 4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Convolution %x, %w {kernel = array<i64: 1, 1, 1>, num_filter = 2 : i64, no_bias = true} : (tensor<1x3x4x4x4xf32>, tensor<2x3x1x1x1xf32>) -> tensor<1x2x4x4x4xf32>
  return %y : tensor<1x2x4x4x4xf32>
}

// -----

// conv_c1: len(kernel) = rank - 2.
func.func @conv_c1_kernel_length(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3xf32>) -> tensor<1x2x6x8xf32> {
  // expected-error @+2 {{kernel (3,) needs 1 spatial axes but data has shape (1, 3, 8, 8)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Convolution %x, %w {kernel = array<i64: 3>, num_filter = 2 : i64, no_bias = true} : (tensor<1x3x8x8xf32>, tensor<2x3x3xf32>) -> tensor<1x2x6x8xf32>
  return %y : tensor<1x2x6x8xf32>
}

// -----

// conv_c1: kernel extents are positive.
func.func @conv_c1_kernel_extent(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x0x3xf32>) -> tensor<1x2x8x6xf32> {
  // expected-error @+2 {{kernel extents must be positive, got (0, 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Convolution %x, %w {kernel = array<i64: 0, 3>, num_filter = 2 : i64, no_bias = true} : (tensor<1x3x8x8xf32>, tensor<2x3x0x3xf32>) -> tensor<1x2x8x6xf32>
  return %y : tensor<1x2x8x6xf32>
}

// -----

// conv_c2: stride has one value per spatial axis.
func.func @conv_c2(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+2 {{stride has 1 values, expected 2 (one per spatial axis)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, stride = array<i64: 2>, num_filter = 2 : i64, no_bias = true} : (tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// conv_c2: dilate is positive.
func.func @conv_c2_dilate(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x2x6x6xf32> {
  // expected-error @+2 {{dilate values must be >= 1, got (1, 0)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, dilate = array<i64: 1, 0>, num_filter = 2 : i64, no_bias = true} : (tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x6x6xf32>
  return %y : tensor<1x2x6x6xf32>
}

// -----

// conv_c2: pad is non-negative.
func.func @conv_c2_pad(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x2x6x6xf32> {
  // expected-error @+2 {{pad values must be >= 0, got (-1, 0)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, pad = array<i64: -1, 0>, num_filter = 2 : i64, no_bias = true} : (tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x6x6xf32>
  return %y : tensor<1x2x6x6xf32>
}

// -----

// conv_c3: num_group divides the data channels.
func.func @conv_c3(%x: tensor<1x3x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{num_group 2 must divide the data channels (3) and num_filter (4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, num_filter = 4 : i64, num_group = 2 : i64, no_bias = true} : (tensor<1x3x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

// conv_c3: num_group divides num_filter.
func.func @conv_c3_filters(%x: tensor<1x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32> {
  // expected-error @+2 {{num_group 2 must divide the data channels (4) and num_filter (3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, num_filter = 3 : i64, num_group = 2 : i64, no_bias = true} : (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
  return %y : tensor<1x3x6x6xf32>
}

// -----

// conv_c4: weight shape is (num_filter, C / num_group, kernel...).
func.func @conv_c4(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+2 {{weight shape (6, 4, 3, 3) does not match (num_filter, C/num_group, kernel...) = (6, 2, 3, 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 2 : i64, no_bias = true} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %y : tensor<1x6x6x6xf32>
}

// -----

// conv_c5: a bias with no_bias set.
func.func @conv_c5(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x6x6xf32> {
  // expected-error @+2 {{has a bias but no_bias is set}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, num_filter = 2 : i64, no_bias = true} : (tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>, tensor<2xf32>) -> tensor<1x2x6x6xf32>
  return %y : tensor<1x2x6x6xf32>
}

// -----

// conv_c5: no bias while no_bias is false (the default).
func.func @conv_c5_missing_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x2x6x6xf32> {
  // expected-error @+2 {{needs a bias unless no_bias is set}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, num_filter = 2 : i64} : (tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x6x6xf32>
  return %y : tensor<1x2x6x6xf32>
}

// -----

// conv_c5: the bias has shape (num_filter,).
func.func @conv_c5_bias_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>, %b: tensor<1x2xf32>) -> tensor<1x2x6x6xf32> {
  // expected-error @+2 {{bias shape (1, 2) does not match (num_filter,) = (2,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, num_filter = 2 : i64} : (tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>, tensor<1x2xf32>) -> tensor<1x2x6x6xf32>
  return %y : tensor<1x2x6x6xf32>
}

// -----

// conv_c6: the padded input (4, no padding) must cover the dilated kernel (2*(3-1)+1 = 5).
func.func @conv_c6(%x: tensor<1x3x4x8xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x2x1x4xf32> {
  // expected-error @+2 {{padded input extent 4 on spatial axis 0 is smaller than the dilated kernel (5)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, dilate = array<i64: 2, 2>, num_filter = 2 : i64, no_bias = true} : (tensor<1x3x4x8xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x1x4xf32>
  return %y : tensor<1x2x1x4xf32>
}

// -----

// pool_c1: data must be rank 3 or 4.
func.func @pool_c1(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+2 {{data must be NCW, NCHW or NCDHW (rank 3, 4 or 5), got shape (4, 8)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Pooling %x {kernel = array<i64: 2>} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// pool_c1: len(kernel) = rank - 2 without global_pool.
func.func @pool_c1_kernel_length(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+2 {{kernel (2,) needs 2 values for data of shape (1, 4, 8, 8)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Pooling %x {kernel = array<i64: 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// pool_c2: pool_type is max, avg or sum.
func.func @pool_c2(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+2 {{pool_type 'lp' is not one of max, avg, sum}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pool_type = "lp"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// pool_c2: pooling_convention is valid or full.
func.func @pool_c2_convention(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+2 {{pooling_convention 'same' is not one of valid, full}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pooling_convention = "same"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// pool_c3: stride has one value per spatial axis.
func.func @pool_c3(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+2 {{stride has 3 values, expected 2 (one per spatial axis)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// pool_c3: stride is positive.
func.func @pool_c3_stride(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+2 {{stride values must be >= 1, got (0, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 0, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// pool_c3: pad has one non-negative value per spatial axis.
func.func @pool_c3_pad(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+2 {{pad values must be >= 0, got (0, -1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, -1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// pool_c3: kernel extents are positive.
func.func @pool_c3_kernel(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+2 {{kernel values must be >= 1, got (2, 0)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Pooling %x {kernel = array<i64: 2, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// pool_c4: the padded input (3 + 2*0) must be at least the kernel (4).
func.func @pool_c4(%x: tensor<1x4x8x3xf32>) -> tensor<1x4x5x1xf32> {
  // expected-error @+2 {{padded input extent 3 on spatial axis 1 is smaller than the kernel (4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Pooling %x {kernel = array<i64: 4, 4>} : (tensor<1x4x8x3xf32>) -> tensor<1x4x5x1xf32>
  return %y : tensor<1x4x5x1xf32>
}

// -----

// act_c1: act_type is one of MXNet's Activation functions.
func.func @act_c1(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{act_type 'leaky' is not one of relu, sigmoid, tanh, softrelu, softsign}}
  %y = mx.Activation %x {act_type = "leaky"} : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// leaky_c1: act_type is one of LeakyReLU's functions.
func.func @leaky_c1(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{act_type 'relu' is not one of leaky, elu, prelu, selu, gelu}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.LeakyReLU %x {act_type = "relu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// leaky_c2: prelu needs gamma.
func.func @leaky_c2(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{prelu needs a gamma operand}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.LeakyReLU %x {act_type = "prelu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// leaky_c2: only prelu takes gamma.
func.func @leaky_c2_gamma_not_prelu(%x: tensor<2x3xf32>, %g: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{only prelu takes a gamma operand}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.LeakyReLU %x, %g {act_type = "elu"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// leaky_c2: gamma is 1-D with the axis-1 extent (or 1).
func.func @leaky_c2_gamma_shape(%x: tensor<2x3xf32>, %g: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{gamma shape (2,) must be (3,) or (1,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.LeakyReLU %x, %g {act_type = "prelu"} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// bn_c1: axis is in [-rank, rank).
func.func @bn_c1(%x: tensor<1x4x2x2xf32>, %s: tensor<4xf32>) -> tensor<1x4x2x2xf32> {
  // expected-error @+2 {{axis 4 is out of range for rank 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.BatchNorm %x, %s, %s, %s, %s {axis = 4 : i64} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  return %y : tensor<1x4x2x2xf32>
}

// -----

// bn_c1: a negative axis below -rank.
func.func @bn_c1_negative(%x: tensor<1x4x2x2xf32>, %s: tensor<4xf32>) -> tensor<1x4x2x2xf32> {
  // expected-error @+2 {{axis -5 is out of range for rank 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.BatchNorm %x, %s, %s, %s, %s {axis = -5 : i64} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  return %y : tensor<1x4x2x2xf32>
}

// -----

// bn_c2: gamma has the extent of the data's axis.
func.func @bn_c2(%x: tensor<1x4x2x2xf32>, %g: tensor<2xf32>, %s: tensor<4xf32>) -> tensor<1x4x2x2xf32> {
  // expected-error @+2 {{gamma shape (2,) does not match the data's axis extent (4,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.BatchNorm %x, %g, %s, %s, %s : (tensor<1x4x2x2xf32>, tensor<2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  return %y : tensor<1x4x2x2xf32>
}

// -----

// bn_c2: beta is checked too.
func.func @bn_c2_beta(%x: tensor<1x4x2x2xf32>, %b: tensor<1x4xf32>, %s: tensor<4xf32>) -> tensor<1x4x2x2xf32> {
  // expected-error @+2 {{beta shape (1, 4) does not match the data's axis extent (4,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.BatchNorm %x, %s, %b, %s, %s : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  return %y : tensor<1x4x2x2xf32>
}

// -----

// bn_c2: moving_mean is checked too.
func.func @bn_c2_moving_mean(%x: tensor<1x4x2x2xf32>, %m: tensor<2xf32>, %s: tensor<4xf32>) -> tensor<1x4x2x2xf32> {
  // expected-error @+2 {{moving_mean shape (2,) does not match the data's axis extent (4,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.BatchNorm %x, %s, %s, %m, %s : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  return %y : tensor<1x4x2x2xf32>
}

// -----

// bn_c2: with axis = -1 the statistics follow the last extent.
func.func @bn_c2_moving_var(%x: tensor<1x4x2x3xf32>, %s: tensor<3xf32>, %v: tensor<4xf32>) -> tensor<1x4x2x3xf32> {
  // expected-error @+2 {{moving_var shape (4,) does not match the data's axis extent (3,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.BatchNorm %x, %s, %s, %s, %v {axis = -1 : i64} : (tensor<1x4x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<1x4x2x3xf32>
  return %y : tensor<1x4x2x3xf32>
}

// -----

// dropout_c1: p = 1 drops everything and is rejected.
func.func @dropout_c1(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{p = 1.000000 is not in [0, 1)}}
  %y = mx.Dropout %x {p = 1.0 : f64} : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// dropout_c1: p is not negative.
func.func @dropout_c1_negative(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{p = -0.100000 is not in [0, 1)}}
  %y = mx.Dropout %x {p = -0.1 : f64} : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// lrn_c1: data is NCHW.
func.func @lrn_c1(%x: tensor<8x4x4xf32>) -> tensor<8x4x4xf32> {
  // expected-error @+1 {{data must be NCHW (rank 4), got shape (8, 4, 4)}}
  %y = mx.LRN %x {nsize = 3 : i64} : tensor<8x4x4xf32>
  return %y : tensor<8x4x4xf32>
}

// -----

// lrn_c2: nsize is odd.
func.func @lrn_c2(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error @+1 {{nsize 4 must be positive and odd}}
  %y = mx.LRN %x {nsize = 4 : i64} : tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// lrn_c2: nsize is positive.
func.func @lrn_c2_negative(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error @+1 {{nsize -1 must be positive and odd}}
  %y = mx.LRN %x {nsize = -1 : i64} : tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// embedding_c1: weight is (input_dim, output_dim).
func.func @embedding_c1(%ids: tensor<2x3xf32>, %w: tensor<10x5xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+2 {{weight shape (10, 5) does not match (input_dim, output_dim) = (10, 4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Embedding %ids, %w {input_dim = 10 : i64, output_dim = 4 : i64} : (tensor<2x3xf32>, tensor<10x5xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

// softmax_c1: axis is in [-rank, rank).
func.func @softmax_c1(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %y = mx.softmax %x {axis = 2 : i64, temperature = 1.0 : f64} : tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// softmax_c2: temperature is positive.
func.func @softmax_c2(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{temperature must be positive}}
  %y = mx.softmax %x {axis = -1 : i64, temperature = 0.0 : f64} : tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// softmaxoutput_c1: normalization is null, batch or valid.
func.func @softmaxoutput_c1(%x: tensor<2x10xf32>) -> tensor<2x10xf32> {
  // expected-error @+2 {{normalization 'mean' is not one of null, batch, valid}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.SoftmaxOutput %x {normalization = "mean"} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  return %y : tensor<2x10xf32>
}

// -----

// SoftmaxOutput needs rank >= 2 unless preserve_shape.
func.func @softmaxoutput_data_rank(%x: tensor<10xf32>) -> tensor<10xf32> {
  // expected-error @+2 {{data must have rank >= 2, got shape (10,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.SoftmaxOutput %x : (tensor<10xf32>) -> tensor<10xf32>
  return %y : tensor<10xf32>
}

// -----

// unary_c1: op is one of the float functions.
func.func @unary_c1(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unary function 'gamma' is not defined for floats}}
  %y = mx.unary %x {op = "gamma"} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// unary_c1: integers take only abs, negative, sign and square.
func.func @unary_c1_integer(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{unary function 'exp' is not defined for integers}}
  %y = mx.unary %x {op = "exp"} : tensor<4xi32>
  return %y : tensor<4xi32>
}

// -----

// unary_c1: booleans take only not.
func.func @unary_c1_boolean(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{unary function 'negative' is not defined for booleans}}
  %y = mx.unary %x {op = "negative"} : tensor<4xi1>
  return %y : tensor<4xi1>
}

// -----

// clip_c1: a_min <= a_max.
func.func @clip_c1(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{a_min must not exceed a_max}}
  %y = mx.clip %x {a_min = 6.0 : f64, a_max = 0.0 : f64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// binary_c1: op is one of the arithmetic functions.
func.func @binary_c1(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{binary function 'hypot' is not defined for these operands}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.binary %x, %x {op = "hypot"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// binary_c1: and, or, xor are for booleans only.
func.func @binary_c1_logical(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{binary function 'and' is not defined for these operands}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.binary %x, %x {op = "and"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// binary_c1: arithmetic is not defined on booleans.
func.func @binary_c1_boolean(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+2 {{binary function 'add' is not defined for these operands}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.binary %x, %x {op = "add"} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %y : tensor<4xi1>
}

// -----

// binary_c2: extents aligned from the right are equal or 1.
func.func @binary_c2(%x: tensor<2x3xf32>, %y: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{operand shapes (2, 3) and (2,) do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %z = mx.binary %x, %y {op = "add"} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %z : tensor<2x3xf32>
}

// -----

// binary_c3: element types are equal.
func.func @binary_c3(%x: tensor<4xf32>, %y: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+2 {{operand element types differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %z = mx.binary %x, %y {op = "mul"} : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

// scalar_c1: op is one of the arithmetic functions.
func.func @scalar_c1(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown scalar function 'hypot'}}
  %y = mx.scalar %x {op = "hypot", scalar = 2.0 : f64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// dot_c1: dot takes 2-D operands.
func.func @dot_c1(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{dot needs rank-2 operands, got (2, 3, 4) and (4, 5)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.dot %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// dot_c1: batch_dot takes 3-D operands.
func.func @dot_c1_batch(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{batch_dot needs rank-3 operands, got (2, 3) and (3, 5)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.dot %a, %b {batch = true} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// dot_c2: contracted extents agree after transpose_b.
func.func @dot_c2(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{contracted extents differ: (2, 3) and (3, 4) (after transpose_a/transpose_b)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.dot %a, %b {transpose_b = true} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// dot_c3: batch extents agree.
func.func @dot_c3(%a: tensor<2x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<2x3x6xf32> {
  // expected-error @+2 {{batch extents differ: (2, 3, 4) and (5, 4, 6)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.dot %a, %b {batch = true} : (tensor<2x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x3x6xf32>
  return %y : tensor<2x3x6xf32>
}

// -----

// reduce_c1: op is one of the listed reductions.
func.func @reduce_c1(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{unknown reduction 'argmax'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.reduce %x {op = "argmax", axis = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// reduce_c2: every axis is in [-rank, rank).
func.func @reduce_c2(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{axis -3 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.reduce %x {op = "sum", axis = array<i64: -3>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// reduce_c2: an axis appears once (1 and -1 are the same axis).
func.func @reduce_c2_twice(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{axis -1 is listed twice}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.reduce %x {op = "sum", axis = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// Flatten needs data of rank >= 1.
func.func @flatten_data_rank(%x: tensor<f32>) -> tensor<1x1xf32> {
  // expected-error @+2 {{data must have rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Flatten %x : (tensor<f32>) -> tensor<1x1xf32>
  return %y : tensor<1x1xf32>
}

// -----

// reshape_c1: code 0 needs an input axis to copy.
func.func @reshape_c1(%x: tensor<6xf32>) -> tensor<6x1xf32> {
  // expected-error @+2 {{shape (0, 0) for data (6,): code 0 has no input axis to copy}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Reshape %x {shape = array<i64: 0, 0>} : (tensor<6xf32>) -> tensor<6x1xf32>
  return %y : tensor<6x1xf32>
}

// -----

// reshape_c1: at most one -1.
func.func @reshape_c1_two_inferred(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{shape (-1, -1) for data (2, 3): more than one -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Reshape %x {shape = array<i64: -1, -1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// reshape_c1: -3 merges two input axes.
func.func @reshape_c1_merge(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  // expected-error @+2 {{shape (0, -3) for data (2, 3): code -3 needs two input axes}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Reshape %x {shape = array<i64: 0, -3>} : (tensor<2x3xf32>) -> tensor<6xf32>
  return %y : tensor<6xf32>
}

// -----

// reshape_c1: -4 is followed by two values.
func.func @reshape_c1_split_arity(%x: tensor<6xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{shape (-4, 2) for data (6,): code -4 must be followed by two values}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Reshape %x {shape = array<i64: -4, 2>} : (tensor<6xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// reshape_c1: the two values after -4 multiply to the split extent.
func.func @reshape_c1_split(%x: tensor<6xf32>) -> tensor<4x2xf32> {
  // expected-error @+2 {{shape (-4, 4, -1) for data (6,): code -4 cannot split 6 into 4 x -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Reshape %x {shape = array<i64: -4, 4, -1>} : (tensor<6xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// reshape_c1: codes below -4 do not exist.
func.func @reshape_c1_unknown(%x: tensor<6xf32>) -> tensor<6xf32> {
  // expected-error @+2 {{shape (-5,) for data (6,): unknown code -5}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Reshape %x {shape = array<i64: -5>} : (tensor<6xf32>) -> tensor<6xf32>
  return %y : tensor<6xf32>
}

// -----

// reshape_c1: -1 must divide the element count evenly.
func.func @reshape_c1_infer(%x: tensor<2x3xf32>) -> tensor<4x2xf32> {
  // expected-error @+2 {{shape (4, -1) for data (2, 3): cannot infer the -1 extent}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Reshape %x {shape = array<i64: 4, -1>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// reshape_c2: the element count is preserved.
func.func @reshape_c2(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{shape (2, 4) for data (2, 3): the element count changes (6 to 8)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Reshape %x {shape = array<i64: 2, 4>} : (tensor<2x3xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// transpose_c1: axes lists every axis.
func.func @transpose_c1(%x: tensor<2x3x4xf32>) -> tensor<3x2x4xf32> {
  // expected-error @+2 {{axes (1, 0) is not a permutation of 3 axes}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.transpose %x {axes = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  return %y : tensor<3x2x4xf32>
}

// -----

// transpose_c1: axes lists each axis once.
func.func @transpose_c1_repeated(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  // expected-error @+2 {{axes (0, 0) is not a permutation of 2 axes}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.transpose %x {axes = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// transpose_c1: axes are in [0, rank).
func.func @transpose_c1_range(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+2 {{axes (2, 0) is not a permutation of 2 axes}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.transpose %x {axes = array<i64: 2, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// expand_dims_c1: axis is in [-rank-1, rank].
func.func @expand_dims_c1(%x: tensor<2x3xf32>) -> tensor<2x3x1xf32> {
  // expected-error @+2 {{axis 3 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.expand_dims %x {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  return %y : tensor<2x3x1xf32>
}

// -----

// expand_dims_c1: the lower bound is -rank-1.
func.func @expand_dims_c1_negative(%x: tensor<2x3xf32>) -> tensor<1x2x3xf32> {
  // expected-error @+2 {{axis -4 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.expand_dims %x {axis = -4 : i64} : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
  return %y : tensor<1x2x3xf32>
}

// -----

// squeeze_c1: a listed axis is in range.
func.func @squeeze_c1(%x: tensor<2x1xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.squeeze %x {axis = array<i64: 2>} : (tensor<2x1xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// squeeze_c1: a listed axis has extent 1.
func.func @squeeze_c1_extent(%x: tensor<2x1xf32>) -> tensor<1xf32> {
  // expected-error @+2 {{axis 0 has extent 2, not 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.squeeze %x {axis = array<i64: 0>} : (tensor<2x1xf32>) -> tensor<1xf32>
  return %y : tensor<1xf32>
}

// -----

// concat_c1: at least one operand.
func.func @concat_c1() -> tensor<2xf32> {
  // expected-error @+2 {{needs at least one input}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Concat {dim = 0 : i64} : () -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// concat_c1: operands share the rank.
func.func @concat_c1_rank(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{inputs must share rank and element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Concat %a, %b : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<2x6xf32>
  return %y : tensor<2x6xf32>
}

// -----

// concat_c1: operands share the element type.
func.func @concat_c1_element_type(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) -> tensor<2x6xf32> {
  // expected-error @+2 {{inputs must share rank and element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Concat %a, %b : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x6xf32>
  return %y : tensor<2x6xf32>
}

// -----

// concat_c2: dim is in [-rank, rank).
func.func @concat_c2(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{dim -3 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Concat %a {dim = -3 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// concat_c3: extents off dim agree.
func.func @concat_c3(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{input shapes (2, 3) and (3, 3) differ off dim 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Concat %a, %b : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return %y : tensor<2x6xf32>
}

// -----

// slice_c1: begin and end have equal lengths.
func.func @slice_c1(%x: tensor<4x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{begin (0, 0), end (2,) and step () must have equal lengths of at most the rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.slice %x {begin = array<i64: 0, 0>, end = array<i64: 2>} : (tensor<4x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// slice_c1: begin is no longer than the rank.
func.func @slice_c1_rank(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{begin (0, 0), end (2, 2) and step () must have equal lengths of at most the rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.slice %x {begin = array<i64: 0, 0>, end = array<i64: 2, 2>} : (tensor<4xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// slice_c1: a non-empty step is as long as begin.
func.func @slice_c1_step(%x: tensor<4x4xf32>) -> tensor<2x2xf32> {
  // expected-error @+2 {{begin (0, 0), end (2, 2) and step (1,) must have equal lengths of at most the rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.slice %x {begin = array<i64: 0, 0>, end = array<i64: 2, 2>, step = array<i64: 1>} : (tensor<4x4xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// slice_c2: no step is 0.
func.func @slice_c2(%x: tensor<4x4xf32>) -> tensor<2x2xf32> {
  // expected-error @+2 {{step must not be 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.slice %x {begin = array<i64: 0, 0>, end = array<i64: 2, 2>, step = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// slicechannel_c1: axis is in [-rank, rank).
func.func @slicechannel_c1(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.SliceChannel %x {num_outputs = 1 : i64, axis = 2 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// slicechannel_c1: num_outputs divides the extent of axis.
func.func @slicechannel_c1_divide(%x: tensor<2x4xf32>) -> (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {
  // expected-error @+2 {{num_outputs 3 does not divide the extent 4 of axis 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y:3 = mx.SliceChannel %x {num_outputs = 3 : i64} : (tensor<2x4xf32>) -> (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return %y#0, %y#1, %y#2 : tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>
}

// -----

// slicechannel_c1: num_outputs is positive.
func.func @slicechannel_c1_zero(%x: tensor<2x4xf32>) {
  // expected-error @+2 {{num_outputs 0 does not divide the extent 4 of axis 1}}
  // expected-error @+1 {{failed to infer returned types}}
  mx.SliceChannel %x {num_outputs = 0 : i64} : (tensor<2x4xf32>) -> ()
  return
}

// -----

// slicechannel_c2: squeeze_axis needs parts of extent 1.
func.func @slicechannel_c2(%x: tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  // expected-error @+2 {{squeeze_axis needs parts of extent 1, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y:2 = mx.SliceChannel %x {num_outputs = 2 : i64, squeeze_axis = true} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  return %y#0, %y#1 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// slicechannel_c3: there are num_outputs results.
func.func @slicechannel_c3(%x: tensor<2x4xf32>) -> tensor<2x2xf32> {
  // expected-error @+2 {{'mx.SliceChannel' op inferred type(s) 'tensor<2x2xf32>', 'tensor<2x2xf32>' are incompatible with return type(s) of operation 'tensor<2x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.SliceChannel %x {num_outputs = 2 : i64} : (tensor<2x4xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// The result element type of cast is `to`.
func.func @cast_wrong_result(%x: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+2 {{'mx.cast' op inferred type(s) 'tensor<4xi64>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.cast %x {to = i64} : (tensor<4xf32>) -> tensor<4xi32>
  return %y : tensor<4xi32>
}

// -----

// Only cast takes strings.
func.func @string_operand(%s: tensor<2x!mx.string>) -> tensor<2x!mx.string> {
  // expected-error @+1 {{operand #0 must be}}
  %y = mx.Activation %s {act_type = "relu"} : tensor<2x!mx.string>
  return %y : tensor<2x!mx.string>
}

// -----

// compare_c1: op is one of the six comparisons.
func.func @compare_c1(%x: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+2 {{unknown comparison 'eq'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.compare %x, %x {op = "eq"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %y : tensor<4xi1>
}

// -----

// compare_c2: the operand shapes broadcast.
func.func @compare_c2(%x: tensor<2x3xf32>, %y: tensor<2xf32>) -> tensor<2x3xi1> {
  // expected-error @+2 {{operand shapes (2, 3) and (2,) do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %z = mx.compare %x, %y {op = "less"} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xi1>
  return %z : tensor<2x3xi1>
}

// -----

// compare_c3: the element types are equal.
func.func @compare_c3(%x: tensor<4xf32>, %y: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @+2 {{operand element types differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %z = mx.compare %x, %y {op = "equal"} : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return %z : tensor<4xi1>
}

// -----

// where_c1: condition, x and y broadcast together.
func.func @where_c1(%c: tensor<2x3xi1>, %x: tensor<2x3xf32>, %y: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{operand shapes (2, 3) and (2, 3) and (4,) do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %z = mx.where %c, %x, %y : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %z : tensor<2x3xf32>
}

// -----

// where_c2: x and y have the same element type.
func.func @where_c2(%c: tensor<3xi1>, %x: tensor<3xf32>, %y: tensor<3xf16>) -> tensor<3xf32> {
  // expected-error @+2 {{x and y element types differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %z = mx.where %c, %x, %y : (tensor<3xi1>, tensor<3xf32>, tensor<3xf16>) -> tensor<3xf32>
  return %z : tensor<3xf32>
}

// -----

// fma_c2: one float element type.
func.func @fma_c2(%x: tensor<3xi32>) -> tensor<3xi32> {
  // expected-error @+2 {{x, y and z must have one float element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %z = mx.fma %x, %x, %x : (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %z : tensor<3xi32>
}

// -----

// fma_c1: the three shapes broadcast together.
func.func @fma_c1(%x: tensor<2x3xf32>, %y: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{operand shapes (2, 3) and (4,) and (2, 3) do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %z = mx.fma %x, %y, %x : (tensor<2x3xf32>, tensor<4xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %z : tensor<2x3xf32>
}

// -----

// ODS: where's condition is boolean.
func.func @where_cond_type(%c: tensor<3xf32>, %x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{operand #0 must be 0D/1D/2D/3D/4D/5D/6D/7D/8D tensor of 1-bit signless integer values, but got 'tensor<3xf32>'}}
  %z = mx.where %c, %x, %x : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %z : tensor<3xf32>
}

// -----

// gather_c1: axis is in [-rank, rank).
func.func @gather_c1(%x: tensor<5x3xf32>, %i: tensor<2xi64>) -> tensor<5x2xf32> {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.gather %x, %i {axis = 2 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<5x2xf32>
  return %y : tensor<5x2xf32>
}

// -----

// ODS: gather's indices are integers.
func.func @gather_indices_type(%x: tensor<5x3xf32>, %i: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{operand #1 must be 0D/1D/2D/3D/4D/5D/6D/7D/8D tensor of signless integer values, but got 'tensor<2xf32>'}}
  %y = mx.gather %x, %i : (tensor<5x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// pad_c1: one count before and one after each axis.
func.func @pad_c1(%x: tensor<2x3xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{pads has 2 values, expected 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.pad %x {pads = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// pad_c2: mode is constant, reflect or edge.
func.func @pad_c2(%x: tensor<2x3xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{mode 'wrap' is not one of constant, reflect, edge}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.pad %x {pads = array<i64: 0, 1, 0, 1>, mode = "wrap"} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// pad_c3: cropping cannot make an extent negative.
func.func @pad_c3(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{pads (0, -4, 0, 0) do not fit data (2, 3) in mode constant}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.pad %x {pads = array<i64: 0, -4, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// pad_c3: reflect needs pads smaller than the extent.
func.func @pad_c3_reflect(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{pads (0, 3, 0, 0) do not fit data (2, 3) in mode reflect}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.pad %x {pads = array<i64: 0, 3, 0, 0>, mode = "reflect"} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return %y : tensor<2x6xf32>
}

// -----

// broadcast_to_c1: each data extent equals the target's or is 1.
func.func @broadcast_to_c1(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+2 {{data shape (2, 3) does not broadcast to (4, 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.broadcast_to %x {shape = array<i64: 4, 3>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// broadcast_to_c1: the target has at least the data's rank.
func.func @broadcast_to_c1_rank(%x: tensor<1x3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{data shape (1, 3) does not broadcast to (3,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.broadcast_to %x {shape = array<i64: 3>} : (tensor<1x3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// matmul_c1: operands have rank >= 1.
func.func @matmul_c1(%a: tensor<f32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{operands must have rank >= 1 and equal element types}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.matmul %a, %b : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// matmul_c1: operands have equal element types.
func.func @matmul_c1_element_type(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) -> tensor<2x4xf32> {
  // expected-error @+2 {{operands must have rank >= 1 and equal element types}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf16>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// matmul_c2: the contracted extents agree (a 1-D rhs is a column).
func.func @matmul_c2(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{contracted extents differ: (2, 3) and (4,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.matmul %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// matmul_c3: the batch axes broadcast.
func.func @matmul_c3(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) -> tensor<2x3x5xf32> {
  // expected-error @+2 {{operand shapes (2,) and (3,) do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.matmul %a, %b : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// argreduce_c1: op is max or min.
func.func @argreduce_c1(%x: tensor<2x5xf32>) -> tensor<2xi64> {
  // expected-error @+2 {{op 'sum' is not one of max, min}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.argreduce %x {op = "sum", axis = 1 : i64} : (tensor<2x5xf32>) -> tensor<2xi64>
  return %y : tensor<2xi64>
}

// -----

// argreduce_c2: axis is in [-rank, rank).
func.func @argreduce_c2(%x: tensor<2x5xf32>) -> tensor<2xi64> {
  // expected-error @+2 {{axis -3 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.argreduce %x {op = "max", axis = -3 : i64} : (tensor<2x5xf32>) -> tensor<2xi64>
  return %y : tensor<2xi64>
}

// -----

// layernorm_c1: axis is in [-rank, rank).
func.func @layernorm_c1(%x: tensor<2x4xf32>, %g: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.LayerNorm %x, %g, %g {axis = 2 : i64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// layernorm_c2: gamma and beta have the extent of axis.
func.func @layernorm_c2(%x: tensor<2x4xf32>, %g: tensor<4xf32>, %b: tensor<2xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{gamma/beta shape (2,) does not match the axis extent (4,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.LayerNorm %x, %g, %b : (tensor<2x4xf32>, tensor<4xf32>, tensor<2xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// deconv_c1: data has rank 3 or 4 and len(kernel) = rank - 2.
func.func @deconv_c1(%x: tensor<1x3x4xf32>, %w: tensor<3x4x2x2xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{data shape (1, 3, 4) must be NCW or NCHW matching kernel (2, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Deconvolution %x, %w {kernel = array<i64: 2, 2>, num_filter = 4 : i64, no_bias = true} : (tensor<1x3x4xf32>, tensor<3x4x2x2xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

// deconv_c2: stride has one value per spatial axis.
func.func @deconv_c2(%x: tensor<1x3x4x4xf32>, %w: tensor<3x4x2x2xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+2 {{stride has 1 values, expected 2 (one per spatial axis)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Deconvolution %x, %w {kernel = array<i64: 2, 2>, stride = array<i64: 2>, num_filter = 4 : i64, no_bias = true} : (tensor<1x3x4x4xf32>, tensor<3x4x2x2xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// deconv_c2: adj is non-negative.
func.func @deconv_c2_adj_negative(%x: tensor<1x3x4x4xf32>, %w: tensor<3x4x2x2xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+2 {{adj values must be >= 0, got (0, -1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Deconvolution %x, %w {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, adj = array<i64: 0, -1>, num_filter = 4 : i64, no_bias = true} : (tensor<1x3x4x4xf32>, tensor<3x4x2x2xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// deconv_c2: kernel extents are positive.
func.func @deconv_c2_kernel(%x: tensor<1x3x4x4xf32>, %w: tensor<3x4x0x2xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+2 {{kernel values must be >= 1, got (0, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Deconvolution %x, %w {kernel = array<i64: 0, 2>, num_filter = 4 : i64, no_bias = true} : (tensor<1x3x4x4xf32>, tensor<3x4x0x2xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// deconv_c2: adj < stride (the check carries the tag deconv_c6 in MxOps.cpp).
func.func @deconv_c2_adj(%x: tensor<1x3x4x4xf32>, %w: tensor<3x4x2x2xf32>) -> tensor<1x4x7x7xf32> {
  // expected-error @+2 {{adj must be smaller than stride}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Deconvolution %x, %w {kernel = array<i64: 2, 2>, adj = array<i64: 1, 1>, num_filter = 4 : i64, no_bias = true} : (tensor<1x3x4x4xf32>, tensor<3x4x2x2xf32>) -> tensor<1x4x7x7xf32>
  return %y : tensor<1x4x7x7xf32>
}

// -----

// deconv_c3: num_group divides the data channels and num_filter.
func.func @deconv_c3(%x: tensor<1x3x4x4xf32>, %w: tensor<3x2x2x2xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{num_group 2 must divide the data channels (3) and num_filter (4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Deconvolution %x, %w {kernel = array<i64: 2, 2>, num_filter = 4 : i64, num_group = 2 : i64, no_bias = true} : (tensor<1x3x4x4xf32>, tensor<3x2x2x2xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

// deconv_c4: weight is (C, num_filter / num_group, kernel...), channels first.
func.func @deconv_c4(%x: tensor<1x3x4x4xf32>, %w: tensor<4x3x2x2xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{weight shape (4, 3, 2, 2) does not match (C, num_filter/num_group, kernel...) = (3, 4, 2, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Deconvolution %x, %w {kernel = array<i64: 2, 2>, num_filter = 4 : i64, no_bias = true} : (tensor<1x3x4x4xf32>, tensor<4x3x2x2xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

// deconv_c5: a bias with no_bias set.
func.func @deconv_c5(%x: tensor<1x3x4x4xf32>, %w: tensor<3x4x2x2xf32>, %b: tensor<4xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{has a bias but no_bias is set}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Deconvolution %x, %w, %b {kernel = array<i64: 2, 2>, num_filter = 4 : i64, no_bias = true} : (tensor<1x3x4x4xf32>, tensor<3x4x2x2xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

// deconv_c5: no bias while no_bias is false (the default).
func.func @deconv_c5_missing_bias(%x: tensor<1x3x4x4xf32>, %w: tensor<3x4x2x2xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{needs a bias unless no_bias is set}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Deconvolution %x, %w {kernel = array<i64: 2, 2>, num_filter = 4 : i64} : (tensor<1x3x4x4xf32>, tensor<3x4x2x2xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

// deconv_c5: the bias has shape (num_filter,).
func.func @deconv_c5_bias_shape(%x: tensor<1x3x4x4xf32>, %w: tensor<3x4x2x2xf32>, %b: tensor<3xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{bias shape (3,) does not match (num_filter,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Deconvolution %x, %w, %b {kernel = array<i64: 2, 2>, num_filter = 4 : i64} : (tensor<1x3x4x4xf32>, tensor<3x4x2x2xf32>, tensor<3xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// -----

// deconv_c6: every output extent is positive ((1-1)*1 - 2*1 + 0 + 0 + 1 = -1).
func.func @deconv_c6(%x: tensor<1x3x1x4xf32>, %w: tensor<3x4x1x1xf32>) -> tensor<1x4x1x2xf32> {
  // expected-error @+2 {{output extent on spatial axis 0 would be -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Deconvolution %x, %w {kernel = array<i64: 1, 1>, pad = array<i64: 1, 1>, num_filter = 4 : i64, no_bias = true} : (tensor<1x3x1x4xf32>, tensor<3x4x1x1xf32>) -> tensor<1x4x1x2xf32>
  return %y : tensor<1x4x1x2xf32>
}

// -----

// pool_c3: dilate other than 1 only for max pooling.
func.func @pool_c3_dilate_avg(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{dilate (2, 2) is only supported for max pooling}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Pooling %x {kernel = array<i64: 2, 2>, dilate = array<i64: 2, 2>, pool_type = "avg"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

// pooling_grad_c3: one dilation per kernel axis.
func.func @pooling_grad_c3(%x: tensor<1x1x5x5xf32>, %y: tensor<1x1x3x3xf32>) -> tensor<1x1x5x5xf32> {
  // expected-error @+2 {{dilate needs one value >= 1 per kernel axis}}
  // expected-error @+1 {{failed to infer returned types}}
  %dx = mx.PoolingGrad %x, %y, %y {kernel = array<i64: 2, 2>, stride = array<i64: 1, 1>, pad = array<i64: 0, 0>, dilate = array<i64: 2>} : (tensor<1x1x5x5xf32>, tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x5x5xf32>
  return %dx : tensor<1x1x5x5xf32>
}

// -----

// pooling_grad_c3: dilate other than 1 only for max pooling.
func.func @pooling_grad_c3_avg(%x: tensor<1x1x5x5xf32>, %y: tensor<1x1x3x3xf32>) -> tensor<1x1x5x5xf32> {
  // expected-error @+2 {{dilate other than 1 needs max pooling}}
  // expected-error @+1 {{failed to infer returned types}}
  %dx = mx.PoolingGrad %x, %y, %y {kernel = array<i64: 2, 2>, stride = array<i64: 1, 1>, pad = array<i64: 0, 0>, dilate = array<i64: 2, 2>, pool_type = "avg"} : (tensor<1x1x5x5xf32>, tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x5x5xf32>
  return %dx : tensor<1x1x5x5xf32>
}

// -----

// pool_c4: the padded input must hold the dilated kernel.
func.func @pool_c4_dilated(%x: tensor<1x4x4x4xf32>) -> tensor<1x4x1x1xf32> {
  // expected-error @+2 {{padded input extent 4 on spatial axis 0 is smaller than the dilated kernel (5)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Pooling %x {kernel = array<i64: 3, 3>, dilate = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x1x1xf32>
  return %y : tensor<1x4x1x1xf32>
}

// -----

// pool_c5: average pooling needs floats; max pooling takes integers.
func.func @pool_c5(%x: tensor<1x4x8x8xui8>) -> tensor<1x4x4x4xui8> {
  // expected-error @+2 {{pool_type 'avg' needs float data, got ui8}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pool_type = "avg"} : (tensor<1x4x8x8xui8>) -> tensor<1x4x4x4xui8>
  return %y : tensor<1x4x4x4xui8>
}

// -----

// binary_c1: shifts are defined on integers only.
func.func @binary_c1_shift(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{binary function 'shift_left' is not defined for these operands}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.binary %x, %x {op = "shift_left"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// unary_c1: unsigned integers have no negation.
func.func @unary_c1_unsigned(%x: tensor<4xui8>) -> tensor<4xui8> {
  // expected-error @+1 {{unary function 'negative' is not defined for unsigned integers}}
  %y = mx.unary %x {op = "negative"} : tensor<4xui8>
  return %y : tensor<4xui8>
}

// -----

// Signed (si) integer types are not mx element types.
func.func @cast_signed(%x: tensor<4xf32>) -> tensor<4xsi8> {
  // expected-error @+1 {{result #0 must be 0D/1D/2D/3D/4D/5D/6D/7D/8D tensor of floating-point or signless integer or unsigned integer values or 0D/1D/2D/3D/4D/5D/6D/7D/8D tensor of a text string (ONNX's STRING elements) values, but got 'tensor<4xsi8>'}}
  %y = mx.cast %x {to = si8} : (tensor<4xf32>) -> tensor<4xsi8>
  return %y : tensor<4xsi8>
}

// -----

// gather_elements_c1: axis is in [-rank, rank).
func.func @gather_elements_c1(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  // expected-error @+2 {{axis -3 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.gather_elements %x, %i {axis = -3 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// gather_elements_c2: off the axis, indices extents are at most the data's.
func.func @gather_elements_c2(%x: tensor<3x4xf32>, %i: tensor<5x2xi64>) -> tensor<5x2xf32> {
  // expected-error @+2 {{indices shape (5, 2) does not fit data (3, 4) along axis 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<5x2xi64>) -> tensor<5x2xf32>
  return %y : tensor<5x2xf32>
}

// -----

// scatter_elements_c1: axis is in [-rank, rank).
func.func @scatter_elements_c1(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{axis 1 is out of range for rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.scatter_elements %x, %i, %u {axis = 1 : i64} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// scatter_elements_c2: indices and updates have the same shape.
func.func @scatter_elements_c2(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{indices shape (2,) differs from updates shape (3,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.scatter_elements %x, %i, %u : (tensor<4xf32>, tensor<2xi64>, tensor<3xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// scatter_elements_c3: updates have the data's element type.
func.func @scatter_elements_c3(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xi32>) -> tensor<4xf32> {
  // expected-error @+2 {{updates and data element types differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.scatter_elements %x, %i, %u : (tensor<4xf32>, tensor<2xi64>, tensor<2xi32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// scatter_elements_c4: reduction is none, add, mul, max or min.
func.func @scatter_elements_c4(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{reduction 'mean' is not one of none, add, mul, max, min}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.scatter_elements %x, %i, %u {reduction = "mean"} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// scatter_nd_c1: a tuple addresses at least one and at most rank axes.
func.func @scatter_nd_c1(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2xf32>) -> tensor<4x3xf32> {
  // expected-error @+2 {{index tuples of length 3 must address 1 to 2 axes}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.scatter_nd %x, %i, %u : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// scatter_nd_c2: updates shape = indices.shape[:-1] + data.shape[q:].
func.func @scatter_nd_c2(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4xf32>) -> tensor<4x3xf32> {
  // expected-error @+2 {{updates shape (2, 4) differs from (2, 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.scatter_nd %x, %i, %u : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// scatter_nd_c3: updates have the data's element type.
func.func @scatter_nd_c3(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf16>) -> tensor<4x3xf32> {
  // expected-error @+2 {{updates and data element types differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.scatter_nd %x, %i, %u : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf16>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// scatter_nd_c4: reduction is none, add, mul, max or min.
func.func @scatter_nd_c4(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+2 {{reduction 'sub' is not one of none, add, mul, max, min}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.scatter_nd %x, %i, %u {reduction = "sub"} : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// gather_nd_c1: batch_dims is below both ranks.
func.func @gather_nd_c1(%x: tensor<2x3xf32>, %i: tensor<2x1xi64>) -> tensor<2xf32> {
  // expected-error @+2 {{batch_dims 2 must be in [0, min(data rank, indices rank))}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.gather_nd %x, %i {batch_dims = 2 : i64} : (tensor<2x3xf32>, tensor<2x1xi64>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// gather_nd_c2: the batch extents of data and indices agree.
func.func @gather_nd_c2(%x: tensor<2x3xf32>, %i: tensor<4x1xi64>) -> tensor<4xf32> {
  // expected-error @+2 {{batch extents of data (2, 3) and indices (4, 1) differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x3xf32>, tensor<4x1xi64>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// gather_nd_c3: a tuple addresses at most the non-batch axes.
func.func @gather_nd_c3(%x: tensor<2x3xf32>, %i: tensor<4x3xi64>) -> tensor<4xf32> {
  // expected-error @+2 {{index tuples of length 3 exceed the 2 non-batch axes of the data}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.gather_nd %x, %i : (tensor<2x3xf32>, tensor<4x3xi64>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// cumsum_c1: the axis exists.
func.func @cumsum_c1(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.cumsum %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// cumsum_c1: a scalar has no axis to sum along.
func.func @cumsum_c1_scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{data must have rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.cumsum %x : (tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// trilu_c1: the data holds matrices.
func.func @trilu_c1(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{data must have rank >= 2, got (4,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.trilu %x : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// max_pool_with_indices_c1: one kernel extent per spatial axis.
func.func @max_pool_with_indices_c1(%x: tensor<1x1x4x4xf32>) -> (tensor<1x1x3xf32>, tensor<1x1x3xi64>) {
  // expected-error @+2 {{kernel (2,) needs data of rank len(kernel) + 2 >= 3, got (1, 1, 4, 4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %i = mx.max_pool_with_indices %x {kernel = array<i64: 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x3xf32>, tensor<1x1x3xi64>)
  return %y, %i : tensor<1x1x3xf32>, tensor<1x1x3xi64>
}

// -----

// max_pool_with_indices_c1: kernel extents are positive.
func.func @max_pool_with_indices_c1_kernel(%x: tensor<1x1x4xf32>) -> (tensor<1x1x5xf32>, tensor<1x1x5xi64>) {
  // expected-error @+2 {{kernel values must be >= 1, got (0,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %i = mx.max_pool_with_indices %x {kernel = array<i64: 0>} : (tensor<1x1x4xf32>) -> (tensor<1x1x5xf32>, tensor<1x1x5xi64>)
  return %y, %i : tensor<1x1x5xf32>, tensor<1x1x5xi64>
}

// -----

// max_pool_with_indices_c2: strides are positive.
func.func @max_pool_with_indices_c2_stride(%x: tensor<1x1x4xf32>) -> (tensor<1x1x3xf32>, tensor<1x1x3xi64>) {
  // expected-error @+2 {{stride values must be >= 1, got (0,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %i = mx.max_pool_with_indices %x {kernel = array<i64: 2>, stride = array<i64: 0>} : (tensor<1x1x4xf32>) -> (tensor<1x1x3xf32>, tensor<1x1x3xi64>)
  return %y, %i : tensor<1x1x3xf32>, tensor<1x1x3xi64>
}

// -----

// max_pool_with_indices_c2: pad holds a begin and an end per spatial axis.
func.func @max_pool_with_indices_c2_pad(%x: tensor<1x1x4xf32>) -> (tensor<1x1x5xf32>, tensor<1x1x5xi64>) {
  // expected-error @+2 {{pad has 1 values, expected 2 (begins, then ends)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %i = mx.max_pool_with_indices %x {kernel = array<i64: 2>, pad = array<i64: 1>} : (tensor<1x1x4xf32>) -> (tensor<1x1x5xf32>, tensor<1x1x5xi64>)
  return %y, %i : tensor<1x1x5xf32>, tensor<1x1x5xi64>
}

// -----

// max_pool_with_indices_c2: padding is not negative.
func.func @max_pool_with_indices_c2_negative_pad(%x: tensor<1x1x4xf32>) -> (tensor<1x1x2xf32>, tensor<1x1x2xi64>) {
  // expected-error @+2 {{pad values must be >= 0, got (0, -1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %i = mx.max_pool_with_indices %x {kernel = array<i64: 2>, pad = array<i64: 0, -1>} : (tensor<1x1x4xf32>) -> (tensor<1x1x2xf32>, tensor<1x1x2xi64>)
  return %y, %i : tensor<1x1x2xf32>, tensor<1x1x2xi64>
}

// -----

// max_pool_with_indices_c3: storage order is row-major (0) or column-major (1).
func.func @max_pool_with_indices_c3(%x: tensor<1x1x4x4xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>) {
  // expected-error @+2 {{storage_order must be 0 or 1, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %i = mx.max_pool_with_indices %x {kernel = array<i64: 2, 2>, storage_order = 2 : i64} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>)
  return %y, %i : tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>
}

// -----

// max_pool_with_indices_c4: booleans have no maximum to pool.
func.func @max_pool_with_indices_c4(%x: tensor<1x1x4xi1>) -> (tensor<1x1x3xi1>, tensor<1x1x3xi64>) {
  // expected-error @+2 {{data must be float or integer, got i1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %i = mx.max_pool_with_indices %x {kernel = array<i64: 2>} : (tensor<1x1x4xi1>) -> (tensor<1x1x3xi1>, tensor<1x1x3xi64>)
  return %y, %i : tensor<1x1x3xi1>, tensor<1x1x3xi64>
}

// -----

// max_pool_with_indices_c5: the dilated kernel (extent 5) fits the padded input.
func.func @max_pool_with_indices_c5(%x: tensor<1x1x3xf32>) -> (tensor<1x1x1xf32>, tensor<1x1x1xi64>) {
  // expected-error @+2 {{padded input extent 4 on spatial axis 0 is smaller than the kernel (5)}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %i = mx.max_pool_with_indices %x {kernel = array<i64: 3>, dilate = array<i64: 2>, pad = array<i64: 1, 0>} : (tensor<1x1x3xf32>) -> (tensor<1x1x1xf32>, tensor<1x1x1xi64>)
  return %y, %i : tensor<1x1x1xf32>, tensor<1x1x1xi64>
}

// -----

// max_pool_with_indices_c5: with ceil_mode the last window (starting at 5)
// would read only the end padding.
func.func @max_pool_with_indices_c5_ceil(%x: tensor<1x1x5xf32>) -> (tensor<1x1x4xf32>, tensor<1x1x4xi64>) {
  // expected-error @+2 {{window 3 on spatial axis 0 reads only padding}}
  // expected-error @+1 {{failed to infer returned types}}
  %y, %i = mx.max_pool_with_indices %x {kernel = array<i64: 2>, stride = array<i64: 2>, pad = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x1x5xf32>) -> (tensor<1x1x4xf32>, tensor<1x1x4xi64>)
  return %y, %i : tensor<1x1x4xf32>, tensor<1x1x4xi64>
}

// -----

// BatchNormTrainGrad: relu_out needs the forward's beta (and beta needs it).
func.func @batchnorm_train_grad_relu_out_no_beta(%dy: tensor<2x3x4x4xf32>, %x: tensor<2x3x4x4xf32>, %g: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  // expected-error @+2 {{beta is given exactly when relu_out is set}}
  // expected-error @+1 {{failed to infer returned types}}
  %dx, %dg, %db = mx.BatchNormTrainGrad %dy, %x, %g, %g, %g {relu_out} : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %dx : tensor<2x3x4x4xf32>
}
