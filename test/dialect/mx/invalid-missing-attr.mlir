// SPDX-License-Identifier: Apache-2.0
// A missing required attribute in the custom form of an op whose result type
// is inferred while parsing (format `: type($data)`): the generated parser
// infers before it checks attributes, so inference must read them null-safely
// and report the attribute instead of crashing.
//
// RUN: %mxc-opt --split-input-file --verify-diagnostics %s

// Activation without act_type is an error, not a crash.
func.func @act_missing_act_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{act_type}}
  %y = mx.Activation %x : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// unary without op is an error, not a crash.
func.func @unary_missing_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{op}}
  %y = mx.unary %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// clip without a_max is an error, not a crash.
func.func @clip_missing_a_max(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{a_max}}
  %y = mx.clip %x {a_min = 0.0 : f64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// LRN without nsize is an error, not a crash.
func.func @lrn_missing_nsize(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error @+1 {{nsize}}
  %y = mx.LRN %x : tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// scalar without scalar's op is an error, not a crash.
func.func @scalar_missing_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{op}}
  %y = mx.scalar %x {scalar = 2.0 : f64} : tensor<4xf32>
  return %y : tensor<4xf32>
}
