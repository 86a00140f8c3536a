// SPDX-License-Identifier: Apache-2.0
// Axis constraints on 0-d data: [-rank, rank) is empty for rank 0, so every
// axis must be rejected (an accepted axis 0 would index an empty shape).
// RUN: %mxc-opt --split-input-file --verify-diagnostics %s

// bn_c1: no axis exists on 0-d data.
func.func @bn_c1_rank0(%x: tensor<f32>, %s: tensor<1xf32>) -> tensor<f32> {
  // expected-error @+2 {{axis 0 is out of range for rank 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.BatchNorm %x, %s, %s, %s, %s {axis = 0 : i64} : (tensor<f32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// softmax_c1: no axis exists on 0-d data.
func.func @softmax_c1_rank0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{axis 0 is out of range for rank 0}}
  %y = mx.softmax %x {axis = 0 : i64, temperature = 1.0 : f64} : tensor<f32>
  return %y : tensor<f32>
}

// -----

// reduce_c2: no axis exists on 0-d data.
func.func @reduce_c2_rank0(%x: tensor<f32>) -> tensor<1xf32> {
  // expected-error @+2 {{axis 0 is out of range for rank 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.reduce %x {op = "sum", axis = array<i64: 0>} : (tensor<f32>) -> tensor<1xf32>
  return %y : tensor<1xf32>
}

// -----

// squeeze_c1: no axis exists on 0-d data.
func.func @squeeze_c1_rank0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{axis 0 is out of range for rank 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.squeeze %x {axis = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// concat_c2: no dim exists on 0-d data.
func.func @concat_c2_rank0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{dim 0 is out of range for rank 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.Concat %x, %x {dim = 0 : i64} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// slicechannel_c1: no axis exists on 0-d data.
func.func @slicechannel_c1_rank0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{axis 0 is out of range for rank 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.SliceChannel %x {num_outputs = 1 : i64, axis = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// gather_c1: no axis exists on 0-d data.
func.func @gather_c1_rank0(%x: tensor<f32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  // expected-error @+2 {{axis 0 is out of range for rank 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.gather %x, %i : (tensor<f32>, tensor<2xi64>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// argreduce_c2: no axis exists on 0-d data.
func.func @argreduce_c2_rank0(%x: tensor<f32>) -> tensor<i64> {
  // expected-error @+2 {{axis 0 is out of range for rank 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.argreduce %x {op = "max"} : (tensor<f32>) -> tensor<i64>
  return %y : tensor<i64>
}

// -----

// layernorm_c1: no axis exists on 0-d data.
func.func @layernorm_c1_rank0(%x: tensor<f32>, %g: tensor<1xf32>) -> tensor<f32> {
  // expected-error @+2 {{axis 0 is out of range for rank 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = mx.LayerNorm %x, %g, %g {axis = 0 : i64} : (tensor<f32>, tensor<1xf32>, tensor<1xf32>) -> tensor<f32>
  return %y : tensor<f32>
}
