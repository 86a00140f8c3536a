// SPDX-License-Identifier: Apache-2.0
// --mxc-fold-batchnorm: an inference BatchNorm after a convolution goes into
// the convolution's weight and bias data. Here the data is in the IR
// (arguments carrying mx.value, or arith.constant), so the folded numbers
// show; in mxc the driver's ParameterStore holds the model's parameters.
// The graph pipeline schedules the pass (second RUN line).
// RUN: %mxc-opt --split-input-file --mxc-fold-batchnorm %s | FileCheck %s
// RUN: %mxc-opt --split-input-file --mxc-graph-pipeline %s | FileCheck %s

// A biased convolution, data in mx.value: with eps = 0 the scale s = gamma /
// sqrt(var) is (1, 2), so W becomes (2, 3) * s = (2, 6) and the bias
// (b - mean) * s + beta = (0 * 1 + 0.5, -2 * 2 + 0) = (0.5, -4).
// CHECK-LABEL: func.func @biased
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x1x2x2xf32>,
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<2x1x1x1xf32> {mx.value = dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}6.000000e+00]]]]>
// CHECK-SAME: %[[B:[a-z0-9]+]]: tensor<2xf32> {mx.value = dense<[5.000000e-01, -4.000000e+00]>
// CHECK: %[[Y:.*]] = mx.Convolution %[[X]], %[[W]], %[[B]] {kernel = array<i64: 1, 1>, num_filter = 2 : i64}
// CHECK-NOT: mx.BatchNorm
// CHECK: return %[[Y]]
func.func @biased(%x: tensor<1x1x2x2xf32>,
                  %w: tensor<2x1x1x1xf32> {mx.value = dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>},
                  %b: tensor<2xf32> {mx.value = dense<[1.0, -1.0]> : tensor<2xf32>},
                  %gamma: tensor<2xf32> {mx.value = dense<[2.0, 1.0]> : tensor<2xf32>},
                  %beta: tensor<2xf32> {mx.value = dense<[0.5, 0.0]> : tensor<2xf32>},
                  %mean: tensor<2xf32> {mx.value = dense<[1.0, 1.0]> : tensor<2xf32>},
                  %var: tensor<2xf32> {mx.value = dense<[4.0, 0.25]> : tensor<2xf32>}) -> tensor<1x2x2x2xf32> {
  %c = mx.Convolution %x, %w, %b {kernel = array<i64: 1, 1>, num_filter = 2 : i64} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %y = mx.BatchNorm %c, %gamma, %beta, %mean, %var {eps = 0.0 : f64, fix_gamma = false} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// A convolution without a bias takes the BatchNorm's beta as its bias, data
// in arith.constant; fix_gamma (the default) takes gamma as 1: s =
// 1 / sqrt(var) = (2, 1), W = (1, -2) * s = (2, -2), bias = -mean * s +
// beta = (-1.5, 3).
// CHECK-LABEL: func.func @unbiased_constants
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}-2.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<[-1.500000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK: %[[Y:.*]] = mx.Convolution %arg0, %[[W]], %[[B]] {kernel = array<i64: 1, 1>, num_filter = 2 : i64}
// CHECK-NOT: mx.BatchNorm
// CHECK: return %[[Y]]
func.func @unbiased_constants(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = arith.constant dense<[[[[1.0]]], [[[-2.0]]]]> : tensor<2x1x1x1xf32>
  %gamma = arith.constant dense<[7.0, 7.0]> : tensor<2xf32>
  %beta = arith.constant dense<[0.5, 3.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %var = arith.constant dense<[0.25, 1.0]> : tensor<2xf32>
  %c = mx.Convolution %x, %w {kernel = array<i64: 1, 1>, num_filter = 2 : i64, no_bias = true} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %y = mx.BatchNorm %c, %gamma, %beta, %mean, %var {eps = 0.0 : f64} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// Stays: the convolution's result has another reader (it would see the
// folded numbers).
// CHECK-LABEL: func.func @conv_read_twice
// CHECK: mx.Convolution
// CHECK: mx.BatchNorm
func.func @conv_read_twice(%x: tensor<1x1x2x2xf32>,
                           %w: tensor<2x1x1x1xf32> {mx.value = dense<1.0> : tensor<2x1x1x1xf32>},
                           %s: tensor<2xf32> {mx.value = dense<1.0> : tensor<2xf32>},
                           %beta: tensor<2xf32> {mx.value = dense<1.0> : tensor<2xf32>}) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %c = mx.Convolution %x, %w {kernel = array<i64: 1, 1>, num_filter = 2 : i64, no_bias = true} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %y = mx.BatchNorm %c, %s, %beta, %s, %s : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %y, %c : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// Stays: the weight's data is unknown (a plain argument: an input).
// CHECK-LABEL: func.func @weight_unknown
// CHECK: mx.Convolution
// CHECK: mx.BatchNorm
func.func @weight_unknown(%x: tensor<1x1x2x2xf32>, %w: tensor<2x1x1x1xf32>,
                          %s: tensor<2xf32> {mx.value = dense<1.0> : tensor<2xf32>},
                          %beta: tensor<2xf32> {mx.value = dense<1.0> : tensor<2xf32>}) -> tensor<1x2x2x2xf32> {
  %c = mx.Convolution %x, %w {kernel = array<i64: 1, 1>, num_filter = 2 : i64, no_bias = true} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %y = mx.BatchNorm %c, %s, %beta, %s, %s : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// Stays: two convolutions share the weight (folding one would change the
// other), and a BatchNorm reads no convolution at all.
// CHECK-LABEL: func.func @shared_weight_and_no_conv
// CHECK-COUNT-2: mx.Convolution
// CHECK-COUNT-3: mx.BatchNorm
func.func @shared_weight_and_no_conv(%x: tensor<1x1x2x2xf32>,
                                     %w: tensor<2x1x1x1xf32> {mx.value = dense<1.0> : tensor<2x1x1x1xf32>},
                                     %s: tensor<2xf32> {mx.value = dense<1.0> : tensor<2xf32>},
                                     %b1: tensor<2xf32> {mx.value = dense<1.0> : tensor<2xf32>},
                                     %b2: tensor<2xf32> {mx.value = dense<1.0> : tensor<2xf32>},
                                     %b3: tensor<2xf32> {mx.value = dense<1.0> : tensor<2xf32>},
                                     %z: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %c1 = mx.Convolution %x, %w {kernel = array<i64: 1, 1>, num_filter = 2 : i64, no_bias = true} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %c2 = mx.Convolution %x, %w {kernel = array<i64: 1, 1>, num_filter = 2 : i64, no_bias = true} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %y1 = mx.BatchNorm %c1, %s, %b1, %s, %s : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %y2 = mx.BatchNorm %c2, %s, %b2, %s, %s : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %y3 = mx.BatchNorm %z, %s, %b3, %s, %s : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %y1, %y2, %y3 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// Stays: a BatchNorm along another axis than the convolution's channels.
// CHECK-LABEL: func.func @other_axis
// CHECK: mx.Convolution
// CHECK: mx.BatchNorm
func.func @other_axis(%x: tensor<1x1x2x2xf32>,
                      %w: tensor<2x1x1x1xf32> {mx.value = dense<1.0> : tensor<2x1x1x1xf32>},
                      %s: tensor<2xf32> {mx.value = dense<1.0> : tensor<2xf32>},
                      %beta: tensor<2xf32> {mx.value = dense<1.0> : tensor<2xf32>}) -> tensor<1x2x2x2xf32> {
  %c = mx.Convolution %x, %w {kernel = array<i64: 1, 1>, num_filter = 2 : i64, no_bias = true} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %y = mx.BatchNorm %c, %s, %beta, %s, %s {axis = 3 : i64} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}
