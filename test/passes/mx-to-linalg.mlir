// SPDX-License-Identifier: Apache-2.0
// --mxc-convert-mx-to-linalg on representative ops: the shape of the linalg
// each one becomes (iterators, indexing maps, what initializes the output)
// and the compile-time decisions it makes (padding, pool divisors, BatchNorm
// folding). Scalar bodies are checked only where they carry the formula.
// Contractions as loop nests (kernels=false); their kernel-call form is in
// mx-to-kernels.mlir.
// RUN: %mxc-opt --split-input-file --mxc-convert-mx-to-linalg=kernels=false %s | FileCheck %s

// FullyConnected: the data is flattened to (2, 12), the output starts as the
// broadcast bias, and one generic contracts K with a reduction iterator.
// CHECK-DAG:   #[[$FC_BIAS:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG:   #[[$FC_X:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[$FC_W:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[$FC_Y:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @fully_connected(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<10x12xf32>, %[[B:.*]]: tensor<10xf32>)
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK:         %[[X2:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [2, 12]
// CHECK:         %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[$FC_BIAS]], #{{.*}}], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[B]] : tensor<10xf32>)
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$FC_X]], #[[$FC_W]], #[[$FC_Y]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X2]], %[[W]] : tensor<2x12xf32>, tensor<10x12xf32>) outs(%[[INIT]] : tensor<2x10xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         return %[[Y]] : tensor<2x10xf32>
func.func @fully_connected(%x: tensor<2x3x4xf32>, %w: tensor<10x12xf32>, %b: tensor<10xf32>) -> tensor<2x10xf32> {
  %y = mx.FullyConnected %x, %w, %b {num_hidden = 10 : i64} : (tensor<2x3x4xf32>, tensor<10x12xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  return %y : tensor<2x10xf32>
}

// -----

// FullyConnected without a bias accumulates into a zero-filled output; 2-D
// data needs no reshape.
// CHECK-LABEL: func.func @fully_connected_no_bias(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4xf32>, %[[W:.*]]: tensor<5x4xf32>)
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<2x5xf32>)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]], %[[W]] : tensor<2x4xf32>, tensor<5x4xf32>) outs(%[[INIT]] : tensor<2x5xf32>)
func.func @fully_connected_no_bias(%x: tensor<2x4xf32>, %w: tensor<5x4xf32>) -> tensor<2x5xf32> {
  %y = mx.FullyConnected %x, %w {num_hidden = 5 : i64, no_bias = true} : (tensor<2x4xf32>, tensor<5x4xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// Convolution with padding, stride 2 and two groups: the data is zero-padded
// by tensor.pad, data and weight get an explicit group axis, and one generic
// (n, g, f, oh, ow | c, kh, kw) reads the input at o * stride + k.
// CHECK-DAG:   #[[$CONV_BIAS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2)>
// CHECK-DAG:   #[[$CONV_X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * 2 + d6, d4 * 2 + d7)>
// CHECK-DAG:   #[[$CONV_W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
// CHECK-DAG:   #[[$CONV_Y:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @convolution(
// CHECK-SAME:    %[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:           tensor.yield %[[ZERO]] : f32
// CHECK:         } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
// CHECK:         %[[XG:.*]] = tensor.expand_shape {{.*}} : tensor<400xf32> into tensor<1x2x2x10x10xf32>
// CHECK:         %[[WG:.*]] = tensor.expand_shape {{.*}} : tensor<108xf32> into tensor<2x3x2x3x3xf32>
// CHECK:         %[[BG:.*]] = tensor.expand_shape %[[B]] {{\[}}[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
// CHECK:         %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[$CONV_BIAS]], #{{.*}}]
// CHECK-SAME:      ins(%[[BG]] : tensor<2x3xf32>)
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$CONV_X]], #[[$CONV_W]], #[[$CONV_Y]]],
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:      ins(%[[XG]], %[[WG]] : tensor<1x2x2x10x10xf32>, tensor<2x3x2x3x3xf32>) outs(%[[INIT]] : tensor<1x2x3x4x4xf32>)
// CHECK:         tensor.expand_shape {{.*}} : tensor<96xf32> into tensor<1x6x4x4xf32>
func.func @convolution(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x4x4xf32> {
  %y = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 2 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x4xf32>
  return %y : tensor<1x6x4x4xf32>
}

// -----

// Convolution without padding emits no tensor.pad.
// CHECK-LABEL: func.func @convolution_no_pad(
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
func.func @convolution_no_pad(%x: tensor<1x3x8xf32>, %w: tensor<2x3x3xf32>) -> tensor<1x2x6xf32> {
  %y = mx.Convolution %x, %w {kernel = array<i64: 3>, num_filter = 2 : i64, no_bias = true} : (tensor<1x3x8xf32>, tensor<2x3x3xf32>) -> tensor<1x2x6xf32>
  return %y : tensor<1x2x6xf32>
}

// -----

// Average pooling with count_include_pad = false: the window sum is divided
// by a constant holding the number of valid inputs per output position
// (corner 1, edges 2, inner 4 for a 3x3 input, kernel 2, stride 2, pad 1).
// A window of at most 16 elements is unrolled: each position a strided
// slice of the padded input, summed from 0 in one elementwise loop nest.
// CHECK-DAG:   #[[$POOL_DIV:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func.func @pooling_avg(
// CHECK-SAME:    %[[X:.*]]: tensor<1x1x3x3xf32>)
// CHECK:         %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 0, 0]
// CHECK:         %[[S0:.*]] = tensor.extract_slice %[[PAD]][0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 2, 2] : tensor<1x1x4x4xf32> to tensor<1x1x2x2xf32>
// CHECK:         %[[S1:.*]] = tensor.extract_slice %[[PAD]][0, 0, 0, 1] [1, 1, 2, 2] [1, 1, 2, 2]
// CHECK:         %[[S2:.*]] = tensor.extract_slice %[[PAD]][0, 0, 1, 0] [1, 1, 2, 2] [1, 1, 2, 2]
// CHECK:         %[[S3:.*]] = tensor.extract_slice %[[PAD]][0, 0, 1, 1] [1, 1, 2, 2] [1, 1, 2, 2]
// CHECK:         %[[SUM:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[S0]], %[[S1]], %[[S2]], %[[S3]] :
// CHECK-COUNT-4:   arith.addf
// CHECK:         %[[DIV:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK:         %[[AVG:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[$POOL_DIV]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[SUM]], %[[DIV]] : tensor<1x1x2x2xf32>, tensor<2x2xf32>)
// CHECK:           arith.divf
// CHECK:         return %[[AVG]]
func.func @pooling_avg(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32> {
  %y = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, pool_type = "avg", count_include_pad = false} : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  return %y : tensor<1x1x2x2xf32>
}

// -----

// A window of more than 16 elements (5x5) stays a reduction over the
// window's loops, reading the padded input at o * stride + k.
// CHECK-DAG:   #[[$POOL_X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-LABEL: func.func @pooling_large_window(
// CHECK-NOT:     tensor.extract_slice
// CHECK:         linalg.generic {indexing_maps = [#[[$POOL_X]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK:           arith.maximumf
func.func @pooling_large_window(%x: tensor<1x2x9x9xf32>) -> tensor<1x2x3x3xf32> {
  %y = mx.Pooling %x {kernel = array<i64: 5, 5>, stride = array<i64: 2, 2>, pool_type = "max"} : (tensor<1x2x9x9xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// Max pooling pads with -inf, starts from -inf and needs no divisor.
// CHECK-LABEL: func.func @pooling_max(
// CHECK:         %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         tensor.pad
// CHECK:           tensor.yield %[[NEG_INF]] : f32
// CHECK:         linalg.generic
// CHECK:           arith.maximumf
// CHECK-NOT:     arith.divf
// CHECK:         return
func.func @pooling_max(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32> {
  %y = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  return %y : tensor<1x1x2x2xf32>
}

// -----

// BatchNorm folds to a per-channel scale = gamma * rsqrt(var + eps) and
// shift = beta - mean * scale, then one elementwise generic x * scale + shift
// that reads both along the channel axis.
// CHECK-DAG:   #[[$BN_C:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm(
// CHECK-SAME:    %[[X:.*]]: tensor<1x4x2x2xf32>, %[[G:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[M:.*]]: tensor<4xf32>, %[[V:.*]]: tensor<4xf32>)
// CHECK:         %[[SCALE:.*]] = linalg.generic {{.*}} ins(%[[G]], %[[V]] : tensor<4xf32>, tensor<4xf32>)
// CHECK:           %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK:           %[[VE:.*]] = arith.addf %{{.*}}, %[[EPS]]
// CHECK:           %[[R:.*]] = math.rsqrt %[[VE]]
// CHECK:           arith.mulf %{{.*}}, %[[R]]
// CHECK:         %[[SHIFT:.*]] = linalg.generic {{.*}} ins(%[[B]], %[[M]], %[[SCALE]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.subf
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[$BN_C]], #[[$BN_C]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[X]], %[[SCALE]], %[[SHIFT]] : tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         return %[[Y]]
func.func @batch_norm(%x: tensor<1x4x2x2xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<1x4x2x2xf32> {
  %y = mx.BatchNorm %x, %g, %b, %m, %v {eps = 1.0e-5 : f64, fix_gamma = false} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  return %y : tensor<1x4x2x2xf32>
}

// -----

// BatchNorm with fix_gamma (the default) ignores gamma: the scale is rsqrt alone.
// CHECK-LABEL: func.func @batch_norm_fix_gamma(
// CHECK:         linalg.generic
// CHECK:           %[[R:.*]] = math.rsqrt
// CHECK-NEXT:      linalg.yield %[[R]] : f32
func.func @batch_norm_fix_gamma(%x: tensor<1x4x2x2xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<1x4x2x2xf32> {
  %y = mx.BatchNorm %x, %g, %b, %m, %v : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  return %y : tensor<1x4x2x2xf32>
}

// -----

// Reshape is a view: collapse to 1-D, expand to the inferred (4, 6).
// CHECK-LABEL: func.func @reshape(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK:         %[[Y:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[Y]]
func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %y = mx.Reshape %x {shape = array<i64: 4, -1>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}

// -----

// Concat inserts each input at its running offset along dim.
// CHECK-LABEL: func.func @concat(
// CHECK-SAME:    %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x4xf32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x7xf32>
// CHECK:         %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 3] [1, 1]
// CHECK:         %[[I1:.*]] = tensor.insert_slice %[[B]] into %[[I0]][0, 3] [2, 4] [1, 1]
// CHECK:         return %[[I1]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<2x7xf32> {
  %y = mx.Concat %a, %b : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x7xf32>
  return %y : tensor<2x7xf32>
}

// -----

// softmax along the last axis is three generics: a max reduction from -inf,
// a sum of exp(x - max) from 0, and an elementwise exp(x - max) / sum.
// CHECK-DAG:   #[[$SM_ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[$SM_RED:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:    %[[X:.*]]: tensor<2x5xf32>)
// CHECK:         %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[MAX_INIT:.*]] = linalg.fill ins(%[[NEG_INF]] : f32)
// CHECK:         %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[$SM_ID]], #[[$SM_RED]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]] : tensor<2x5xf32>) outs(%[[MAX_INIT]] : tensor<2xf32>)
// CHECK:           arith.maxnumf
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$SM_ID]], #[[$SM_RED]], #[[$SM_RED]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[MAX]] : tensor<2x5xf32>, tensor<2xf32>)
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:           arith.addf
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$SM_ID]], #[[$SM_RED]], #[[$SM_RED]], #[[$SM_ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<2x5xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:           arith.divf
// CHECK:         return %[[Y]]
func.func @softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %y = mx.softmax %x {axis = -1 : i64, temperature = 1.0 : f64} : tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// log softmax subtracts log(sum) instead of dividing.
// CHECK-LABEL: func.func @log_softmax(
// CHECK:         linalg.generic
// CHECK:         linalg.generic
// CHECK:         linalg.generic
// CHECK:           %[[S:.*]] = arith.subf
// CHECK:           %[[L:.*]] = math.log
// CHECK:           arith.subf %[[S]], %[[L]]
// CHECK-NOT:       arith.divf
// CHECK:         return
func.func @log_softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %y = mx.softmax %x {axis = 1 : i64, temperature = 1.0 : f64, log = true} : tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// The pass must not fire on non-mx ops: a function without mx ops is unchanged.
// CHECK-LABEL: func.func @no_mx_ops(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[Y:.*]] = arith.addf %[[X]], %[[X]] : tensor<4xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4xf32>
func.func @no_mx_ops(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A constant exponent of 2 squares with a multiply (LayerNorm's variance);
// another stays powf, and so does a tensor exponent.
// CHECK-LABEL: func.func @square
// CHECK: linalg.generic
// CHECK: %[[SQ:.*]] = arith.mulf %[[IN:.*]], %[[IN]] : f32
// CHECK-NOT: math.powf
// CHECK: linalg.yield %[[SQ]]
// CHECK: linalg.generic
// CHECK: math.powf
// CHECK: linalg.generic
// CHECK: math.powf
func.func @square(%x: tensor<4xf32>, %e: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = mx.scalar %x {op = "power", scalar = 2.0 : f64} : tensor<4xf32>
  %1 = mx.scalar %x {op = "power", scalar = 3.0 : f64} : tensor<4xf32>
  %2 = mx.binary %x, %e {op = "power"}
      : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
