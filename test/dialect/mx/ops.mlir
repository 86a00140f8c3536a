// SPDX-License-Identifier: Apache-2.0
// Round trip of every mx op: the custom form parses, prints and parses again,
// default-valued attributes are elided, optional operands and multiple results
// survive, and the generic form (all attributes spelled out) reads back the same.
// RUN: %mxc-opt --split-input-file %s | %mxc-opt --split-input-file | FileCheck %s
// RUN: %mxc-opt --split-input-file --mlir-print-op-generic %s | %mxc-opt --split-input-file | FileCheck %s
// RUN: %mxc-opt --split-input-file --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC

// Explicit defaults (no_bias = false, flatten = true) are elided when printed.
// CHECK-LABEL: func.func @fully_connected(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<10x12xf32>, %[[B:.*]]: tensor<10xf32>)
// CHECK:         mx.FullyConnected %[[X]], %[[W]], %[[B]] {num_hidden = 10 : i64} : (tensor<2x3x4xf32>, tensor<10x12xf32>, tensor<10xf32>) -> tensor<2x10xf32>
func.func @fully_connected(%x: tensor<2x3x4xf32>, %w: tensor<10x12xf32>, %b: tensor<10xf32>) -> tensor<2x10xf32> {
  %y = mx.FullyConnected %x, %w, %b {num_hidden = 10 : i64, no_bias = false, flatten = true} : (tensor<2x3x4xf32>, tensor<10x12xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  return %y : tensor<2x10xf32>
}

// -----

// Without the optional bias and with flatten = false (contracts the last axis).
// CHECK-LABEL: func.func @fully_connected_no_bias(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<5x4xf32>)
// CHECK:         mx.FullyConnected %[[X]], %[[W]] {flatten = false, no_bias = true, num_hidden = 5 : i64} : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x3x5xf32>
func.func @fully_connected_no_bias(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>) -> tensor<2x3x5xf32> {
  %y = mx.FullyConnected %x, %w {num_hidden = 5 : i64, no_bias = true, flatten = false} : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// 2-D convolution with a bias and padding; empty stride/dilate and num_group = 1 are defaults.
// CHECK-LABEL: func.func @convolution(
// CHECK-SAME:    %[[X:.*]]: tensor<1x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK:         mx.Convolution %[[X]], %[[W]], %[[B]] {kernel = array<i64: 3, 3>, num_filter = 4 : i64, pad = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
func.func @convolution(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %y = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, num_filter = 4 : i64, pad = array<i64: 1, 1>, stride = array<i64>, dilate = array<i64>, num_group = 1 : i64, no_bias = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// Grouped, strided, dilated 2-D convolution without a bias.
// CHECK-LABEL: func.func @convolution_grouped(
// CHECK-SAME:    %[[X:.*]]: tensor<1x4x9x9xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>)
// CHECK:         mx.Convolution %[[X]], %[[W]] {dilate = array<i64: 2, 2>, kernel = array<i64: 3, 3>, no_bias = true, num_filter = 6 : i64, num_group = 2 : i64, stride = array<i64: 2, 2>} : (tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32>
func.func @convolution_grouped(%x: tensor<1x4x9x9xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32> {
  %y = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 2 : i64, stride = array<i64: 2, 2>, dilate = array<i64: 2, 2>, no_bias = true} : (tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32>
  return %y : tensor<1x6x3x3xf32>
}

// -----

// 1-D convolution (NCW data).
// CHECK-LABEL: func.func @convolution_1d(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x10xf32>, %[[W:.*]]: tensor<5x3x4xf32>)
// CHECK:         mx.Convolution %[[X]], %[[W]] {kernel = array<i64: 4>, no_bias = true, num_filter = 5 : i64} : (tensor<2x3x10xf32>, tensor<5x3x4xf32>) -> tensor<2x5x7xf32>
func.func @convolution_1d(%x: tensor<2x3x10xf32>, %w: tensor<5x3x4xf32>) -> tensor<2x5x7xf32> {
  %y = mx.Convolution %x, %w {kernel = array<i64: 4>, num_filter = 5 : i64, no_bias = true} : (tensor<2x3x10xf32>, tensor<5x3x4xf32>) -> tensor<2x5x7xf32>
  return %y : tensor<2x5x7xf32>
}

// -----

// Max pooling: pool_type = "max" and pooling_convention = "valid" are defaults.
// CHECK-LABEL: func.func @pooling_max(
// CHECK-SAME:    %[[X:.*]]: tensor<1x4x8x8xf32>)
// CHECK:         mx.Pooling %[[X]] {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
func.func @pooling_max(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %y = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pool_type = "max", pooling_convention = "valid", global_pool = false, count_include_pad = true} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// Average pooling with padding, the "full" convention and count_include_pad = false.
// CHECK-LABEL: func.func @pooling_avg_full(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x5x5xf32>)
// CHECK:         mx.Pooling %[[X]] {count_include_pad = false, kernel = array<i64: 2, 2>, pad = array<i64: 1, 1>, pool_type = "avg", pooling_convention = "full", stride = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x4x4xf32>
func.func @pooling_avg_full(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x4x4xf32> {
  %y = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, pool_type = "avg", pooling_convention = "full", count_include_pad = false} : (tensor<1x2x5x5xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// Global sum pooling needs no kernel and gives extent 1 per spatial axis.
// CHECK-LABEL: func.func @pooling_global(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x7xf32>)
// CHECK:         mx.Pooling %[[X]] {global_pool = true, pool_type = "sum"} : (tensor<2x3x7xf32>) -> tensor<2x3x1xf32>
func.func @pooling_global(%x: tensor<2x3x7xf32>) -> tensor<2x3x1xf32> {
  %y = mx.Pooling %x {global_pool = true, pool_type = "sum"} : (tensor<2x3x7xf32>) -> tensor<2x3x1xf32>
  return %y : tensor<2x3x1xf32>
}

// -----

// Activation has a single-type format: the result type is the data type, for any float type.
// CHECK-LABEL: func.func @activation(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>, %[[H:.*]]: tensor<2x3xf16>)
// CHECK:         mx.Activation %[[X]] {act_type = "relu"} : tensor<2x3xf32>
// CHECK:         mx.Activation %[[H]] {act_type = "softsign"} : tensor<2x3xf16>
func.func @activation(%x: tensor<2x3xf32>, %h: tensor<2x3xf16>) -> (tensor<2x3xf32>, tensor<2x3xf16>) {
  %y = mx.Activation %x {act_type = "relu"} : tensor<2x3xf32>
  %z = mx.Activation %h {act_type = "softsign"} : tensor<2x3xf16>
  return %y, %z : tensor<2x3xf32>, tensor<2x3xf16>
}

// -----

// LeakyReLU: act_type = "leaky" and slope = 0.25 are defaults; elu keeps its slope.
// CHECK-LABEL: func.func @leaky_relu(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>)
// CHECK:         mx.LeakyReLU %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         mx.LeakyReLU %[[X]] {act_type = "elu", slope = 1.000000e-01 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @leaky_relu(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %y = mx.LeakyReLU %x {act_type = "leaky", slope = 2.500000e-01 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %z = mx.LeakyReLU %x {act_type = "elu", slope = 1.000000e-01 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y, %z : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// prelu takes the optional gamma operand.
// CHECK-LABEL: func.func @leaky_relu_prelu(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>, %[[G:.*]]: tensor<3xf32>)
// CHECK:         mx.LeakyReLU %[[X]], %[[G]] {act_type = "prelu"} : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
func.func @leaky_relu_prelu(%x: tensor<2x3x4xf32>, %g: tensor<3xf32>) -> tensor<2x3x4xf32> {
  %y = mx.LeakyReLU %x, %g {act_type = "prelu"} : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

// BatchNorm with only defaults prints no attribute dictionary; the generic
// form spells every default out.
// GENERIC-LABEL: "func.func"() <{function_type = {{.*}}, sym_name = "batch_norm"}>
// GENERIC:         "mx.BatchNorm"(%{{.*}}) {axis = 1 : i64, eps = 1.000000e-03 : f64, fix_gamma = true, momentum = 9.000000e-01 : f64, use_global_stats = false}
// CHECK-LABEL: func.func @batch_norm(
// CHECK-SAME:    %[[X:.*]]: tensor<1x4x2x2xf32>, %[[G:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[M:.*]]: tensor<4xf32>, %[[V:.*]]: tensor<4xf32>)
// CHECK:         mx.BatchNorm %[[X]], %[[G]], %[[B]], %[[M]], %[[V]] : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
func.func @batch_norm(%x: tensor<1x4x2x2xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<1x4x2x2xf32> {
  %y = mx.BatchNorm %x, %g, %b, %m, %v {eps = 1.000000e-03 : f64, momentum = 9.000000e-01 : f64, fix_gamma = true, use_global_stats = false, axis = 1 : i64} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  return %y : tensor<1x4x2x2xf32>
}

// -----

// BatchNorm along the last axis (negative axis) with every attribute set.
// CHECK-LABEL: func.func @batch_norm_attrs(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x5xf32>, %[[G:.*]]: tensor<5xf32>, %[[B:.*]]: tensor<5xf32>, %[[M:.*]]: tensor<5xf32>, %[[V:.*]]: tensor<5xf32>)
// CHECK:         mx.BatchNorm %[[X]], %[[G]], %[[B]], %[[M]], %[[V]] {axis = -1 : i64, eps = 1.000000e-05 : f64, fix_gamma = false, momentum = 0.98999999999999999 : f64, use_global_stats = true} : (tensor<2x3x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
func.func @batch_norm_attrs(%x: tensor<2x3x5xf32>, %g: tensor<5xf32>, %b: tensor<5xf32>, %m: tensor<5xf32>, %v: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %y = mx.BatchNorm %x, %g, %b, %m, %v {eps = 1.000000e-05 : f64, momentum = 0.99 : f64, fix_gamma = false, use_global_stats = true, axis = -1 : i64} : (tensor<2x3x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// Dropout keeps a non-default p (the default is covered in ops-default-elision.mlir).
// CHECK-LABEL: func.func @dropout(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>)
// CHECK:         mx.Dropout %[[X]] {p = 0.000000e+00 : f64} : tensor<2x3xf32>
func.func @dropout(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = mx.Dropout %x {p = 0.0 : f64} : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// LRN: only nsize is required; alpha, beta and knorm keep non-default values.
// CHECK-LABEL: func.func @lrn(
// CHECK-SAME:    %[[X:.*]]: tensor<1x8x4x4xf32>)
// CHECK:         mx.LRN %[[X]] {nsize = 5 : i64} : tensor<1x8x4x4xf32>
// CHECK:         mx.LRN %[[X]] {alpha = 1.000000e-03 : f64, beta = 5.000000e-01 : f64, knorm = 1.000000e+00 : f64, nsize = 3 : i64} : tensor<1x8x4x4xf32>
func.func @lrn(%x: tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %y = mx.LRN %x {nsize = 5 : i64} : tensor<1x8x4x4xf32>
  %z = mx.LRN %x {nsize = 3 : i64, alpha = 1.0e-3 : f64, beta = 0.5 : f64, knorm = 1.0 : f64} : tensor<1x8x4x4xf32>
  return %y, %z : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// -----

// Embedding appends output_dim to the id shape.
// CHECK-LABEL: func.func @embedding(
// CHECK-SAME:    %[[IDS:.*]]: tensor<2x3xf32>, %[[W:.*]]: tensor<10x4xf32>)
// CHECK:         mx.Embedding %[[IDS]], %[[W]] {input_dim = 10 : i64, output_dim = 4 : i64} : (tensor<2x3xf32>, tensor<10x4xf32>) -> tensor<2x3x4xf32>
func.func @embedding(%ids: tensor<2x3xf32>, %w: tensor<10x4xf32>) -> tensor<2x3x4xf32> {
  %y = mx.Embedding %ids, %w {input_dim = 10 : i64, output_dim = 4 : i64} : (tensor<2x3xf32>, tensor<10x4xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

// softmax with non-default axis and temperature; log = false is a default and is elided.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:    %[[X:.*]]: tensor<2x5xf32>)
// CHECK:         mx.softmax %[[X]] {axis = 0 : i64, temperature = 2.000000e+00 : f64} : tensor<2x5xf32>
// CHECK:         mx.softmax %[[X]] {axis = 1 : i64, log = true, temperature = 5.000000e-01 : f64} : tensor<2x5xf32>
func.func @softmax(%x: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>) {
  %y = mx.softmax %x {axis = 0 : i64, temperature = 2.0 : f64, log = false} : tensor<2x5xf32>
  %z = mx.softmax %x {axis = 1 : i64, temperature = 0.5 : f64, log = true} : tensor<2x5xf32>
  return %y, %z : tensor<2x5xf32>, tensor<2x5xf32>
}

// -----

// SoftmaxOutput without a label prints no attributes.
// CHECK-LABEL: func.func @softmax_output(
// CHECK-SAME:    %[[X:.*]]: tensor<2x10xf32>)
// CHECK:         mx.SoftmaxOutput %[[X]] : (tensor<2x10xf32>) -> tensor<2x10xf32>
func.func @softmax_output(%x: tensor<2x10xf32>) -> tensor<2x10xf32> {
  %y = mx.SoftmaxOutput %x {normalization = "null", grad_scale = 1.0 : f64, ignore_label = -1.0 : f64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  return %y : tensor<2x10xf32>
}

// -----

// SoftmaxOutput with the optional label and non-default attributes.
// CHECK-LABEL: func.func @softmax_output_label(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>, %[[L:.*]]: tensor<2x4xf32>)
// CHECK:         mx.SoftmaxOutput %[[X]], %[[L]] {grad_scale = 2.000000e+00 : f64, ignore_label = 0.000000e+00 : f64, multi_output = true, normalization = "valid", preserve_shape = true, use_ignore = true} : (tensor<2x3x4xf32>, tensor<2x4xf32>) -> tensor<2x3x4xf32>
func.func @softmax_output_label(%x: tensor<2x3x4xf32>, %l: tensor<2x4xf32>) -> tensor<2x3x4xf32> {
  %y = mx.SoftmaxOutput %x, %l {multi_output = true, use_ignore = true, ignore_label = 0.0 : f64, normalization = "valid", grad_scale = 2.0 : f64, preserve_shape = true} : (tensor<2x3x4xf32>, tensor<2x4xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

// unary and clip keep their function / bounds; BlockGrad has no attributes.
// CHECK-LABEL: func.func @elementwise_unary(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>)
// CHECK:         %[[A:.*]] = mx.unary %[[X]] {op = "exp"} : tensor<4xf32>
// CHECK:         %[[B:.*]] = mx.clip %[[A]] {a_max = 6.000000e+00 : f64, a_min = 0.000000e+00 : f64} : tensor<4xf32>
// CHECK:         mx.BlockGrad %[[B]] : tensor<4xf32>
func.func @elementwise_unary(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = mx.unary %x {op = "exp"} : tensor<4xf32>
  %b = mx.clip %a {a_min = 0.0 : f64, a_max = 6.0 : f64} : tensor<4xf32>
  %c = mx.BlockGrad %b : tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// binary broadcasts NumPy-style; scalar's reverse = false is a default.
// CHECK-LABEL: func.func @elementwise_binary(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<3xf32>)
// CHECK:         %[[A:.*]] = mx.binary %[[X]], %[[Y]] {op = "add"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK:         mx.scalar %[[A]] {op = "mul", scalar = 2.000000e+00 : f64} : tensor<2x3xf32>
// CHECK:         mx.scalar %[[A]] {op = "sub", reverse = true, scalar = 1.000000e+00 : f64} : tensor<2x3xf32>
func.func @elementwise_binary(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = mx.binary %x, %y {op = "add"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %b = mx.scalar %a {op = "mul", scalar = 2.0 : f64, reverse = false} : tensor<2x3xf32>
  %c = mx.scalar %a {op = "sub", scalar = 1.0 : f64, reverse = true} : tensor<2x3xf32>
  return %a, %b, %c : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// dot with transposes and batch_dot; false flags are defaults.
// CHECK-LABEL: func.func @dot(
// CHECK-SAME:    %[[A:.*]]: tensor<3x2xf32>, %[[B:.*]]: tensor<4x3xf32>, %[[C:.*]]: tensor<5x2x3xf32>, %[[D:.*]]: tensor<5x3x4xf32>)
// CHECK:         mx.dot %[[A]], %[[B]] {transpose_a = true, transpose_b = true} : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
// CHECK:         mx.dot %[[C]], %[[D]] {batch = true} : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
func.func @dot(%a: tensor<3x2xf32>, %b: tensor<4x3xf32>, %c: tensor<5x2x3xf32>, %d: tensor<5x3x4xf32>) -> (tensor<2x4xf32>, tensor<5x2x4xf32>) {
  %y = mx.dot %a, %b {transpose_a = true, transpose_b = true} : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %z = mx.dot %c, %d {batch = true, transpose_a = false} : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  return %y, %z : tensor<2x4xf32>, tensor<5x2x4xf32>
}

// -----

// reduce over listed axes, with keepdims, with exclude, and over all axes.
// CHECK-LABEL: func.func @reduce(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK:         mx.reduce %[[X]] {axis = array<i64: 1>, op = "sum"} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK:         mx.reduce %[[X]] {axis = array<i64: -2>, keepdims = true, op = "mean"} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK:         mx.reduce %[[X]] {axis = array<i64: 1>, exclude = true, op = "max"} : (tensor<2x3x4xf32>) -> tensor<3xf32>
// CHECK:         mx.reduce %[[X]] {op = "min"} : (tensor<2x3x4xf32>) -> tensor<1xf32>
func.func @reduce(%x: tensor<2x3x4xf32>) -> (tensor<2x4xf32>, tensor<2x1x4xf32>, tensor<3xf32>, tensor<1xf32>) {
  %a = mx.reduce %x {op = "sum", axis = array<i64: 1>, keepdims = false, exclude = false} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %b = mx.reduce %x {op = "mean", axis = array<i64: -2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %c = mx.reduce %x {op = "max", axis = array<i64: 1>, exclude = true} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %d = mx.reduce %x {op = "min", axis = array<i64>} : (tensor<2x3x4xf32>) -> tensor<1xf32>
  return %a, %b, %c, %d : tensor<2x4xf32>, tensor<2x1x4xf32>, tensor<3xf32>, tensor<1xf32>
}

// -----

// Flatten and Reshape with the special codes, forwards and reversed.
// CHECK-LABEL: func.func @reshape(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK:         mx.Flatten %[[X]] : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK:         mx.Reshape %[[X]] {shape = array<i64: -3, -2>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK:         mx.Reshape %[[X]] {shape = array<i64: 0, 0, -4, 2, -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x2x2xf32>
// CHECK:         mx.Reshape %[[X]] {reverse = true, shape = array<i64: -1, 0>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
func.func @reshape(%x: tensor<2x3x4xf32>) -> (tensor<2x12xf32>, tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<6x4xf32>) {
  %a = mx.Flatten %x : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %b = mx.Reshape %x {shape = array<i64: -3, -2>, reverse = false} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %c = mx.Reshape %x {shape = array<i64: 0, 0, -4, 2, -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x2x2xf32>
  %d = mx.Reshape %x {shape = array<i64: -1, 0>, reverse = true} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %a, %b, %c, %d : tensor<2x12xf32>, tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<6x4xf32>
}

// -----

// transpose reverses the axes when axes is empty (the default).
// CHECK-LABEL: func.func @transpose(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK:         mx.transpose %[[X]] : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK:         mx.transpose %[[X]] {axes = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
func.func @transpose(%x: tensor<2x3x4xf32>) -> (tensor<4x3x2xf32>, tensor<3x2x4xf32>) {
  %a = mx.transpose %x {axes = array<i64>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %b = mx.transpose %x {axes = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  return %a, %b : tensor<4x3x2xf32>, tensor<3x2x4xf32>
}

// -----

// expand_dims (negative axis counts from rank + 1) and squeeze (all unit axes by default).
// CHECK-LABEL: func.func @expand_squeeze(
// CHECK-SAME:    %[[X:.*]]: tensor<2x1x3xf32>)
// CHECK:         mx.expand_dims %[[X]] {axis = -1 : i64} : (tensor<2x1x3xf32>) -> tensor<2x1x3x1xf32>
// CHECK:         mx.squeeze %[[X]] : (tensor<2x1x3xf32>) -> tensor<2x3xf32>
// CHECK:         mx.squeeze %[[X]] {axis = array<i64: 1>} : (tensor<2x1x3xf32>) -> tensor<2x3xf32>
func.func @expand_squeeze(%x: tensor<2x1x3xf32>) -> (tensor<2x1x3x1xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = mx.expand_dims %x {axis = -1 : i64} : (tensor<2x1x3xf32>) -> tensor<2x1x3x1xf32>
  %b = mx.squeeze %x : (tensor<2x1x3xf32>) -> tensor<2x3xf32>
  %c = mx.squeeze %x {axis = array<i64: 1>} : (tensor<2x1x3xf32>) -> tensor<2x3xf32>
  return %a, %b, %c : tensor<2x1x3x1xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Concat: dim = 1 is the default; a single input and a negative dim are fine.
// CHECK-LABEL: func.func @concat(
// CHECK-SAME:    %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x4xf32>, %[[C:.*]]: tensor<2x1xf32>)
// CHECK:         mx.Concat %[[A]], %[[B]], %[[C]] : (tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
// CHECK:         mx.Concat %[[A]] {dim = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>, %c: tensor<2x1xf32>) -> (tensor<2x8xf32>, tensor<2x3xf32>) {
  %y = mx.Concat %a, %b, %c {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %z = mx.Concat %a {dim = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y, %z : tensor<2x8xf32>, tensor<2x3xf32>
}

// -----

// slice with Python bounds: an empty step is the default; negative steps reverse.
// CHECK-LABEL: func.func @slice(
// CHECK-SAME:    %[[X:.*]]: tensor<4x5x6xf32>)
// CHECK:         mx.slice %[[X]] {begin = array<i64: 0, 1>, end = array<i64: 2, 3>} : (tensor<4x5x6xf32>) -> tensor<2x2x6xf32>
// CHECK:         mx.slice %[[X]] {begin = array<i64: -1>, end = array<i64: -5>, step = array<i64: -2>} : (tensor<4x5x6xf32>) -> tensor<2x5x6xf32>
func.func @slice(%x: tensor<4x5x6xf32>) -> (tensor<2x2x6xf32>, tensor<2x5x6xf32>) {
  %a = mx.slice %x {begin = array<i64: 0, 1>, end = array<i64: 2, 3>, step = array<i64>} : (tensor<4x5x6xf32>) -> tensor<2x2x6xf32>
  %b = mx.slice %x {begin = array<i64: -1>, end = array<i64: -5>, step = array<i64: -2>} : (tensor<4x5x6xf32>) -> tensor<2x5x6xf32>
  return %a, %b : tensor<2x2x6xf32>, tensor<2x5x6xf32>
}

// -----

// SliceChannel has one result per output; axis = 1 and squeeze_axis = false are defaults.
// CHECK-LABEL: func.func @slice_channel(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4xf32>)
// CHECK:         %[[R:.*]]:2 = mx.SliceChannel %[[X]] {num_outputs = 2 : i64} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
// CHECK:         return %[[R]]#0, %[[R]]#1 : tensor<2x2xf32>, tensor<2x2xf32>
func.func @slice_channel(%x: tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %r:2 = mx.SliceChannel %x {num_outputs = 2 : i64, axis = 1 : i64, squeeze_axis = false} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  return %r#0, %r#1 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// SliceChannel with squeeze_axis drops the split axis.
// CHECK-LABEL: func.func @slice_channel_squeeze(
// CHECK-SAME:    %[[X:.*]]: tensor<3x2xf32>)
// CHECK:         %[[R:.*]]:3 = mx.SliceChannel %[[X]] {axis = 0 : i64, num_outputs = 3 : i64, squeeze_axis = true} : (tensor<3x2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK:         return %[[R]]#0, %[[R]]#1, %[[R]]#2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
func.func @slice_channel_squeeze(%x: tensor<3x2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %r:3 = mx.SliceChannel %x {num_outputs = 3 : i64, axis = 0 : i64, squeeze_axis = true} : (tensor<3x2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %r#0, %r#1, %r#2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Integer and boolean tensors: unary, binary and reduce accept them.
// CHECK-LABEL: func.func @integer_ops(
// CHECK-SAME:    %[[I:.*]]: tensor<2x3xi32>, %[[B:.*]]: tensor<3xi1>)
// CHECK:         %[[A:.*]] = mx.unary %[[I]] {op = "abs"} : tensor<2x3xi32>
// CHECK:         %[[M:.*]] = mx.binary %[[A]], %[[I]] {op = "mod"} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
// CHECK:         %[[N:.*]] = mx.unary %[[B]] {op = "not"} : tensor<3xi1>
// CHECK:         mx.binary %[[N]], %[[B]] {op = "xor"} : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
// CHECK:         mx.reduce %[[M]] {axis = array<i64: 0>, op = "prod"} : (tensor<2x3xi32>) -> tensor<3xi32>
func.func @integer_ops(%i: tensor<2x3xi32>, %b: tensor<3xi1>) -> (tensor<2x3xi32>, tensor<2x3xi32>, tensor<3xi1>, tensor<3xi32>) {
  %a = mx.unary %i {op = "abs"} : tensor<2x3xi32>
  %m = mx.binary %a, %i {op = "mod"} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %n = mx.unary %b {op = "not"} : tensor<3xi1>
  %x = mx.binary %n, %b {op = "xor"} : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %s = mx.reduce %m {op = "prod", axis = array<i64: 0>} : (tensor<2x3xi32>) -> tensor<3xi32>
  return %a, %m, %x, %s : tensor<2x3xi32>, tensor<2x3xi32>, tensor<3xi1>, tensor<3xi32>
}

// -----

// compare broadcasts and gives booleans; where picks with a broadcast condition.
// CHECK-LABEL: func.func @compare_where(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<3xf32>, %[[Z:.*]]: tensor<f32>)
// CHECK:         %[[C:.*]] = mx.compare %[[X]], %[[Y]] {op = "less"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK:         mx.where %[[C]], %[[X]], %[[Z]] : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
func.func @compare_where(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %z: tensor<f32>) -> tensor<2x3xf32> {
  %c = mx.compare %x, %y {op = "less"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %w = mx.where %c, %x, %z : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %w : tensor<2x3xf32>
}

// -----

// cast carries the target element type as a type attribute.
// CHECK-LABEL: func.func @cast(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>)
// CHECK:         %[[A:.*]] = mx.cast %[[X]] {to = i64} : (tensor<4xf32>) -> tensor<4xi64>
// CHECK:         mx.cast %[[A]] {to = i1} : (tensor<4xi64>) -> tensor<4xi1>
func.func @cast(%x: tensor<4xf32>) -> (tensor<4xi64>, tensor<4xi1>) {
  %a = mx.cast %x {to = i64} : (tensor<4xf32>) -> tensor<4xi64>
  %b = mx.cast %a {to = i1} : (tensor<4xi64>) -> tensor<4xi1>
  return %a, %b : tensor<4xi64>, tensor<4xi1>
}

// -----

// Strings (!mx.string) are cast to and from numbers.
// CHECK-LABEL: func.func @cast_strings(
// CHECK-SAME:    %[[S:.*]]: tensor<2x!mx.string>)
// CHECK:         %[[F:.*]] = mx.cast %[[S]] {to = f32} : (tensor<2x!mx.string>) -> tensor<2xf32>
// CHECK:         mx.cast %[[F]] {to = !mx.string} : (tensor<2xf32>) -> tensor<2x!mx.string>
func.func @cast_strings(%s: tensor<2x!mx.string>) -> tensor<2x!mx.string> {
  %f = mx.cast %s {to = f32} : (tensor<2x!mx.string>) -> tensor<2xf32>
  %t = mx.cast %f {to = !mx.string} : (tensor<2xf32>) -> tensor<2x!mx.string>
  return %t : tensor<2x!mx.string>
}

// -----

// gather: axis = 0 is the default; indices of any rank and integer type.
// CHECK-LABEL: func.func @gather(
// CHECK-SAME:    %[[X:.*]]: tensor<5x3xf32>, %[[I:.*]]: tensor<2xi64>, %[[J:.*]]: tensor<2x2xi32>)
// CHECK:         mx.gather %[[X]], %[[I]] : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
// CHECK:         mx.gather %[[X]], %[[J]] {axis = -1 : i64} : (tensor<5x3xf32>, tensor<2x2xi32>) -> tensor<5x2x2xf32>
func.func @gather(%x: tensor<5x3xf32>, %i: tensor<2xi64>, %j: tensor<2x2xi32>) -> (tensor<2x3xf32>, tensor<5x2x2xf32>) {
  %a = mx.gather %x, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %b = mx.gather %x, %j {axis = -1 : i64} : (tensor<5x3xf32>, tensor<2x2xi32>) -> tensor<5x2x2xf32>
  return %a, %b : tensor<2x3xf32>, tensor<5x2x2xf32>
}

// -----

// pad: mode = "constant" and value = 0 are defaults; negative counts crop.
// CHECK-LABEL: func.func @pad(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>)
// CHECK:         mx.pad %[[X]] {pads = array<i64: 0, 1, 0, 1>} : (tensor<2x3xf32>) -> tensor<2x5xf32>
// CHECK:         mx.pad %[[X]] {mode = "edge", pads = array<i64: 1, 0, 1, -1>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
func.func @pad(%x: tensor<2x3xf32>) -> (tensor<2x5xf32>, tensor<4x2xf32>) {
  %a = mx.pad %x {pads = array<i64: 0, 1, 0, 1>, mode = "constant", value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  %b = mx.pad %x {pads = array<i64: 1, 0, 1, -1>, mode = "edge"} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return %a, %b : tensor<2x5xf32>, tensor<4x2xf32>
}

// -----

// broadcast_to may add leading axes.
// CHECK-LABEL: func.func @broadcast_to(
// CHECK-SAME:    %[[X:.*]]: tensor<1x3xf32>)
// CHECK:         mx.broadcast_to %[[X]] {shape = array<i64: 2, 4, 3>} : (tensor<1x3xf32>) -> tensor<2x4x3xf32>
func.func @broadcast_to(%x: tensor<1x3xf32>) -> tensor<2x4x3xf32> {
  %y = mx.broadcast_to %x {shape = array<i64: 2, 4, 3>} : (tensor<1x3xf32>) -> tensor<2x4x3xf32>
  return %y : tensor<2x4x3xf32>
}

// -----

// matmul broadcasts batch axes and promotes a 1-D operand.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:    %[[A:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<4x5xf32>, %[[V:.*]]: tensor<4xf32>)
// CHECK:         mx.matmul %[[A]], %[[B]] : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
// CHECK:         mx.matmul %[[A]], %[[V]] : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
func.func @matmul(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>, %v: tensor<4xf32>) -> (tensor<2x3x5xf32>, tensor<2x3xf32>) {
  %y = mx.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %z = mx.matmul %a, %v : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %y, %z : tensor<2x3x5xf32>, tensor<2x3xf32>
}

// -----

// argreduce gives i64 indices; axis = 0 and the false flags are defaults.
// CHECK-LABEL: func.func @argreduce(
// CHECK-SAME:    %[[X:.*]]: tensor<2x5xf32>)
// CHECK:         mx.argreduce %[[X]] {op = "max"} : (tensor<2x5xf32>) -> tensor<5xi64>
// CHECK:         mx.argreduce %[[X]] {axis = 1 : i64, keepdims = true, op = "min", select_last_index = true} : (tensor<2x5xf32>) -> tensor<2x1xi64>
func.func @argreduce(%x: tensor<2x5xf32>) -> (tensor<5xi64>, tensor<2x1xi64>) {
  %a = mx.argreduce %x {op = "max", axis = 0 : i64, keepdims = false, select_last_index = false} : (tensor<2x5xf32>) -> tensor<5xi64>
  %b = mx.argreduce %x {op = "min", axis = 1 : i64, keepdims = true, select_last_index = true} : (tensor<2x5xf32>) -> tensor<2x1xi64>
  return %a, %b : tensor<5xi64>, tensor<2x1xi64>
}

// -----

// LayerNorm: axis = -1 and eps = 1e-5 are defaults.
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4xf32>, %[[G:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[H:.*]]: tensor<2xf32>)
// CHECK:         mx.LayerNorm %[[X]], %[[G]], %[[B]] : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK:         mx.LayerNorm %[[X]], %[[H]], %[[H]] {axis = 0 : i64, eps = 1.000000e-03 : f64} : (tensor<2x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x4xf32>
func.func @layer_norm(%x: tensor<2x4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %h: tensor<2xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %y = mx.LayerNorm %x, %g, %b {axis = -1 : i64, eps = 1.0e-5 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %z = mx.LayerNorm %x, %h, %h {axis = 0 : i64, eps = 1.0e-3 : f64} : (tensor<2x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x4xf32>
  return %y, %z : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Deconvolution without a bias; empty dilate/pad/adj and num_group = 1 are defaults.
// CHECK-LABEL: func.func @deconvolution(
// CHECK-SAME:    %[[X:.*]]: tensor<1x3x4x4xf32>, %[[W:.*]]: tensor<3x4x2x2xf32>)
// CHECK:         mx.Deconvolution %[[X]], %[[W]] {kernel = array<i64: 2, 2>, no_bias = true, num_filter = 4 : i64, stride = array<i64: 2, 2>} : (tensor<1x3x4x4xf32>, tensor<3x4x2x2xf32>) -> tensor<1x4x8x8xf32>
func.func @deconvolution(%x: tensor<1x3x4x4xf32>, %w: tensor<3x4x2x2xf32>) -> tensor<1x4x8x8xf32> {
  %y = mx.Deconvolution %x, %w {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, dilate = array<i64>, pad = array<i64>, adj = array<i64>, num_group = 1 : i64, num_filter = 4 : i64, no_bias = true} : (tensor<1x3x4x4xf32>, tensor<3x4x2x2xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// Grouped 1-D Deconvolution with a bias, padding and adj.
// CHECK-LABEL: func.func @deconvolution_bias(
// CHECK-SAME:    %[[X:.*]]: tensor<1x4x5xf32>, %[[W:.*]]: tensor<4x3x3xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK:         mx.Deconvolution %[[X]], %[[W]], %[[B]] {adj = array<i64: 1>, kernel = array<i64: 3>, num_filter = 6 : i64, num_group = 2 : i64, pad = array<i64: 1>, stride = array<i64: 2>} : (tensor<1x4x5xf32>, tensor<4x3x3xf32>, tensor<6xf32>) -> tensor<1x6x10xf32>
func.func @deconvolution_bias(%x: tensor<1x4x5xf32>, %w: tensor<4x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x10xf32> {
  %y = mx.Deconvolution %x, %w, %b {kernel = array<i64: 3>, stride = array<i64: 2>, pad = array<i64: 1>, adj = array<i64: 1>, num_group = 2 : i64, num_filter = 6 : i64} : (tensor<1x4x5xf32>, tensor<4x3x3xf32>, tensor<6xf32>) -> tensor<1x6x10xf32>
  return %y : tensor<1x6x10xf32>
}

// -----

// gather_elements: axis = 0 is the default; the result has the indices' shape.
// CHECK-LABEL: func.func @gather_elements(
// CHECK-SAME:    %[[X:.*]]: tensor<3x4xf32>, %[[I:.*]]: tensor<3x2xi64>, %[[J:.*]]: tensor<2x4xi32>)
// CHECK:         mx.gather_elements %[[X]], %[[I]] {axis = -1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
// CHECK:         mx.gather_elements %[[X]], %[[J]] : (tensor<3x4xf32>, tensor<2x4xi32>) -> tensor<2x4xf32>
func.func @gather_elements(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %j: tensor<2x4xi32>) -> (tensor<3x2xf32>, tensor<2x4xf32>) {
  %a = mx.gather_elements %x, %i {axis = -1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  %b = mx.gather_elements %x, %j {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2x4xi32>) -> tensor<2x4xf32>
  return %a, %b : tensor<3x2xf32>, tensor<2x4xf32>
}

// -----

// scatter_elements: axis = 0 and reduction = "none" are defaults.
// CHECK-LABEL: func.func @scatter_elements(
// CHECK-SAME:    %[[X:.*]]: tensor<3x4xi32>, %[[I:.*]]: tensor<3x2xi64>, %[[U:.*]]: tensor<3x2xi32>)
// CHECK:         mx.scatter_elements %[[X]], %[[I]], %[[U]] {axis = 1 : i64, reduction = "max"} : (tensor<3x4xi32>, tensor<3x2xi64>, tensor<3x2xi32>) -> tensor<3x4xi32>
// CHECK:         mx.scatter_elements %[[X]], %[[I]], %[[U]] : (tensor<3x4xi32>, tensor<3x2xi64>, tensor<3x2xi32>) -> tensor<3x4xi32>
func.func @scatter_elements(%x: tensor<3x4xi32>, %i: tensor<3x2xi64>, %u: tensor<3x2xi32>) -> (tensor<3x4xi32>, tensor<3x4xi32>) {
  %a = mx.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "max"} : (tensor<3x4xi32>, tensor<3x2xi64>, tensor<3x2xi32>) -> tensor<3x4xi32>
  %b = mx.scatter_elements %x, %i, %u {axis = 0 : i64, reduction = "none"} : (tensor<3x4xi32>, tensor<3x2xi64>, tensor<3x2xi32>) -> tensor<3x4xi32>
  return %a, %b : tensor<3x4xi32>, tensor<3x4xi32>
}

// -----

// scatter_nd: reduction = "none" is the default; tuples may address slices.
// CHECK-LABEL: func.func @scatter_nd(
// CHECK-SAME:    %[[X:.*]]: tensor<4x3xf32>, %[[I:.*]]: tensor<2x1xi64>, %[[U:.*]]: tensor<2x3xf32>, %[[J:.*]]: tensor<2x2xi32>, %[[V:.*]]: tensor<2xf32>)
// CHECK:         mx.scatter_nd %[[X]], %[[I]], %[[U]] : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK:         mx.scatter_nd %[[X]], %[[J]], %[[V]] {reduction = "min"} : (tensor<4x3xf32>, tensor<2x2xi32>, tensor<2xf32>) -> tensor<4x3xf32>
func.func @scatter_nd(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>, %j: tensor<2x2xi32>, %v: tensor<2xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %a = mx.scatter_nd %x, %i, %u {reduction = "none"} : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %b = mx.scatter_nd %x, %j, %v {reduction = "min"} : (tensor<4x3xf32>, tensor<2x2xi32>, tensor<2xf32>) -> tensor<4x3xf32>
  return %a, %b : tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// gather_nd: whole tuples address elements; batch_dims = 0 is the default.
// CHECK-LABEL: func.func @gather_nd(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>, %[[I:.*]]: tensor<5x3xi64>, %[[J:.*]]: tensor<2x1xi64>)
// CHECK:         mx.gather_nd %[[X]], %[[I]] : (tensor<2x3x4xf32>, tensor<5x3xi64>) -> tensor<5xf32>
// CHECK:         mx.gather_nd %[[X]], %[[J]] {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1xi64>) -> tensor<2x4xf32>
func.func @gather_nd(%x: tensor<2x3x4xf32>, %i: tensor<5x3xi64>, %j: tensor<2x1xi64>) -> (tensor<5xf32>, tensor<2x4xf32>) {
  %a = mx.gather_nd %x, %i : (tensor<2x3x4xf32>, tensor<5x3xi64>) -> tensor<5xf32>
  %b = mx.gather_nd %x, %j {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1xi64>) -> tensor<2x4xf32>
  return %a, %b : tensor<5xf32>, tensor<2x4xf32>
}

// -----

// cumsum: axis = 0, exclusive = false and reverse = false are defaults.
// CHECK-LABEL: func.func @cumsum(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>)
// CHECK:         mx.cumsum %[[X]] {axis = -1 : i64, exclusive = true, reverse = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         mx.cumsum %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @cumsum(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = mx.cumsum %x {axis = -1 : i64, exclusive = true, reverse = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = mx.cumsum %x {axis = 0 : i64, exclusive = false, reverse = false} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// trilu: upper = true and k = 0 are defaults; booleans are fine.
// CHECK-LABEL: func.func @trilu(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xi1>)
// CHECK:         mx.trilu %[[X]] {k = -1 : i64, upper = false} : (tensor<2x3x4xi1>) -> tensor<2x3x4xi1>
// CHECK:         mx.trilu %[[X]] : (tensor<2x3x4xi1>) -> tensor<2x3x4xi1>
// GENERIC-LABEL: "func.func"() <{function_type = {{.*}}, sym_name = "trilu"}>
// GENERIC:         "mx.trilu"(%{{.*}}) {k = -1 : i64, upper = false}
// GENERIC:         "mx.trilu"(%{{.*}}) {k = 0 : i64, upper = true}
func.func @trilu(%x: tensor<2x3x4xi1>) -> (tensor<2x3x4xi1>, tensor<2x3x4xi1>) {
  %a = mx.trilu %x {upper = false, k = -1 : i64} : (tensor<2x3x4xi1>) -> tensor<2x3x4xi1>
  %b = mx.trilu %x : (tensor<2x3x4xi1>) -> tensor<2x3x4xi1>
  return %a, %b : tensor<2x3x4xi1>, tensor<2x3x4xi1>
}

// -----

// max_pool_with_indices: two results; empty stride, dilate and pad and the
// default ceil_mode and storage_order are elided.
// CHECK-LABEL: func.func @max_pool_with_indices(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x5x5xf32>)
// CHECK:         %{{.*}}, %{{.*}} = mx.max_pool_with_indices %[[X]] {ceil_mode = true, kernel = array<i64: 2, 2>, pad = array<i64: 0, 1, 1, 0>, storage_order = 1 : i64, stride = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
// CHECK:         %{{.*}}, %{{.*}} = mx.max_pool_with_indices %[[X]] {kernel = array<i64: 3, 3>} : (tensor<1x2x5x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
// GENERIC-LABEL: "func.func"() <{function_type = {{.*}}, sym_name = "max_pool_with_indices"}>
// GENERIC:         "mx.max_pool_with_indices"(%{{.*}}) {ceil_mode = false, dilate = array<i64>, kernel = array<i64: 3, 3>, pad = array<i64>, storage_order = 0 : i64, stride = array<i64>}
func.func @max_pool_with_indices(%x: tensor<1x2x5x5xf32>) -> (tensor<1x2x3x3xi64>, tensor<1x2x3x3xf32>) {
  %a, %i = mx.max_pool_with_indices %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 1, 1, 0>, ceil_mode = true, storage_order = 1 : i64} : (tensor<1x2x5x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
  %b, %j = mx.max_pool_with_indices %x {kernel = array<i64: 3, 3>} : (tensor<1x2x5x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
  return %i, %b : tensor<1x2x3x3xi64>, tensor<1x2x3x3xf32>
}
