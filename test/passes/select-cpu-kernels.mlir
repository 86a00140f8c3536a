// SPDX-License-Identifier: Apache-2.0
// --mxc-select-cpu-kernels: the CPU pipeline's choice of libmxrt kernels,
// made on mx ops before their target-independent lowering. What it picks
// becomes mx.kernel.*; every other op stays an mx op for
// mxc-convert-mx-to-linalg.
// RUN: %mxc-opt --split-input-file --mxc-select-cpu-kernels %s | FileCheck %s

// A float32 FullyConnected becomes a matmul kernel with W read transposed;
// the activation after it is left alone.
// CHECK-LABEL: func.func @fc_relu
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x5xf32>
// CHECK: %[[Y:.*]] = mx.kernel.matmul %{{.*}}, %{{.*}}, %{{.*}} into %[[E]] {transpose_b = true}
// CHECK: mx.Activation %[[Y]]
// CHECK-NOT: linalg
func.func @fc_relu(%x: tensor<2x12xf32>, %w: tensor<5x12xf32>, %b: tensor<5xf32>) -> tensor<2x5xf32> {
  %y = mx.FullyConnected %x, %w, %b {num_hidden = 5 : i64} : (tensor<2x12xf32>, tensor<5x12xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  %r = mx.Activation %y {act_type = "relu"} : tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

// Must not fire: a float64 contraction has no kernel.
// CHECK-LABEL: func.func @fc_f64
// CHECK-NOT: mx.kernel
// CHECK: mx.FullyConnected
func.func @fc_f64(%x: tensor<2x4xf64>, %w: tensor<3x4xf64>) -> tensor<2x3xf64> {
  %y = mx.FullyConnected %x, %w {num_hidden = 3 : i64, no_bias = true} : (tensor<2x4xf64>, tensor<3x4xf64>) -> tensor<2x3xf64>
  return %y : tensor<2x3xf64>
}

// -----

// A pooling whose windows reach past the input runs in the kernel; one
// whose windows stay inside keeps its (vectorizable) loops.
// CHECK-LABEL: func.func @pools
// CHECK: mx.kernel.pool2d %{{.*}} into %{{.*}} {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1>, strides = array<i64: 2, 2>}
// CHECK: mx.Pooling
// CHECK-NOT: mx.kernel
func.func @pools(%x: tensor<1x2x8x8xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %a = mx.Pooling %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, pool_type = "max"} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  %b = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pool_type = "max"} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  return %a, %b : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// 8-bit max pooling (a quantized model's) runs in the 8-bit kernel, padded
// or not, uint8 or int8 (signed_x); a dilated one keeps its loops.
// CHECK-LABEL: func.func @byte_pools
// CHECK: mx.kernel.qmaxpool2d %{{.*}} into %{{.*}} {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<1x2x8x8xui8> into tensor<1x2x4x4xui8>
// CHECK: mx.kernel.qmaxpool2d %{{.*}} into %{{.*}} {kernel = array<i64: 2, 2>, pads = array<i64: 0, 0>, signed_x = true, strides = array<i64: 2, 2>} : tensor<1x2x8x8xi8> into tensor<1x2x4x4xi8>
// CHECK: mx.Pooling
func.func @byte_pools(%x: tensor<1x2x8x8xui8>, %s: tensor<1x2x8x8xi8>) -> (tensor<1x2x4x4xui8>, tensor<1x2x4x4xi8>, tensor<1x2x3x3xi8>) {
  %a = mx.Pooling %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, pool_type = "max"} : (tensor<1x2x8x8xui8>) -> tensor<1x2x4x4xui8>
  %b = mx.Pooling %s {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pool_type = "max"} : (tensor<1x2x8x8xi8>) -> tensor<1x2x4x4xi8>
  %c = mx.Pooling %s {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, dilate = array<i64: 2, 2>, pool_type = "max"} : (tensor<1x2x8x8xi8>) -> tensor<1x2x3x3xi8>
  return %a, %b, %c : tensor<1x2x4x4xui8>, tensor<1x2x4x4xi8>, tensor<1x2x3x3xi8>
}

// -----

// A 2-D float32 convolution's gradients become mx.kernel.conv2d_grad, one
// per gradient, with the forward's geometry (MXNet's pad per axis, strides
// and dilations defaulted to 1).
// CHECK-LABEL: func.func @conv_grads
// CHECK: mx.kernel.conv2d_grad %{{.*}}, %{{.*}} into %{{.*}} {dilations = array<i64: 1, 1>, groups = 2 : i64, pads = array<i64: 1, 1>, strides = array<i64: 2, 2>, wrt = "data"} : tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32> into tensor<2x4x8x8xf32>
// CHECK: mx.kernel.conv2d_grad %{{.*}}, %{{.*}} into %{{.*}} {dilations = array<i64: 1, 1>, groups = 2 : i64, pads = array<i64: 1, 1>, strides = array<i64: 2, 2>, wrt = "weight"} : tensor<2x6x4x4xf32>, tensor<2x4x8x8xf32> into tensor<6x2x3x3xf32>
// CHECK-NOT: mx.Convolution
func.func @conv_grads(%x: tensor<2x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %dy: tensor<2x6x4x4xf32>) -> (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>) {
  %dx = mx.ConvolutionGradData %dy, %w {data_shape = array<i64: 2, 4, 8, 8>, kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 2 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x8x8xf32>
  %dw = mx.ConvolutionGradWeight %x, %dy {kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 2 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x4x8x8xf32>, tensor<2x6x4x4xf32>) -> tensor<6x2x3x3xf32>
  return %dx, %dw : tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>
}

// -----

// Max pooling's gradient becomes mx.kernel.pool2d_grad with the forward's
// window; a global pooling's stays for the loops.
// CHECK-LABEL: func.func @pool_grads
// CHECK: mx.kernel.pool2d_grad %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} {kernel = array<i64: 2, 2>, pads = array<i64: 0, 0>, strides = array<i64: 2, 2>} : tensor<2x3x8x8xf32>, tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32> into tensor<2x3x8x8xf32>
// CHECK: mx.PoolingGrad %{{.*}}, %{{.*}}, %{{.*}} {global_pool = true
func.func @pool_grads(%x: tensor<2x3x8x8xf32>, %y: tensor<2x3x4x4xf32>, %dy: tensor<2x3x4x4xf32>, %g: tensor<2x3x1x1xf32>) -> (tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>) {
  %dx = mx.PoolingGrad %x, %y, %dy {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  %gy = mx.Pooling %x {global_pool = true, kernel = array<i64: 1, 1>, pool_type = "avg"} : (tensor<2x3x8x8xf32>) -> tensor<2x3x1x1xf32>
  %gx = mx.PoolingGrad %x, %gy, %g {global_pool = true, kernel = array<i64: 1, 1>, pool_type = "avg"} : (tensor<2x3x8x8xf32>, tensor<2x3x1x1xf32>, tensor<2x3x1x1xf32>) -> tensor<2x3x8x8xf32>
  return %dx, %gx : tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>
}

// -----

// An inference BatchNorm after a convolution whose weight and BatchNorm
// parameters the instance holds (a training library's forward) folds into
// the kernel: a per-filter scale gamma / sqrt(var + eps) and a shift
// (b - mean) s + beta, both made in double from the parameters, as the
// kernel's epilogue operands (bias, scale).
// CHECK-LABEL: func.func @forward
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%arg2, %arg5 : tensor<4xf32>, tensor<4xf32>)
// CHECK: math.sqrt %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%arg2, %arg5, %arg3, %arg4, %arg7 :
// CHECK: arith.subf %{{.*}}, %{{.*}} : f64
// CHECK: %[[Y:.*]] = mx.kernel.conv2d %arg0, %arg1, %[[T]], %[[S]] into
// CHECK-SAME: tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<4xf32> into tensor<2x4x6x6xf32>
// CHECK-NOT: mx.BatchNorm
// CHECK: mx.Activation %[[Y]]
func.func @forward(%x: tensor<2x3x6x6xf32>, %w: tensor<4x3x3x3xf32> {mx.param}, %gamma: tensor<4xf32> {mx.param}, %beta: tensor<4xf32> {mx.param}, %mm: tensor<4xf32> {mx.aux}, %mv: tensor<4xf32> {mx.aux}, %unused: tensor<4xf32>, %b: tensor<4xf32> {mx.param}) -> tensor<2x4x6x6xf32> {
  %y = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 4 : i64} : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x6x6xf32>
  %n = mx.BatchNorm %y, %gamma, %beta, %mm, %mv {eps = 1.0e-3 : f64, fix_gamma = false, use_global_stats = true} : (tensor<2x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x6x6xf32>
  %r = mx.Activation %n {act_type = "relu"} : tensor<2x4x6x6xf32>
  return %r : tensor<2x4x6x6xf32>
}

// -----

// Must not fold: a BatchNorm parameter the caller passes (not the
// instance's: the kernel could not keep the scaled filters), and a
// convolution whose result something else reads too.
// CHECK-LABEL: func.func @not_held
// CHECK: mx.kernel.conv2d %arg0, %arg1 into
// CHECK: mx.BatchNorm
// CHECK-LABEL: func.func @shared
// CHECK: mx.kernel.conv2d %arg0, %arg1 into
// CHECK: mx.BatchNorm
func.func @not_held(%x: tensor<2x3x6x6xf32>, %w: tensor<4x3x3x3xf32> {mx.param}, %gamma: tensor<4xf32>, %beta: tensor<4xf32> {mx.param}, %mm: tensor<4xf32> {mx.aux}, %mv: tensor<4xf32> {mx.aux}) -> tensor<2x4x6x6xf32> {
  %y = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 4 : i64, no_bias = true} : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  %n = mx.BatchNorm %y, %gamma, %beta, %mm, %mv {eps = 1.0e-3 : f64, fix_gamma = false, use_global_stats = true} : (tensor<2x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x6x6xf32>
  return %n : tensor<2x4x6x6xf32>
}
func.func @shared(%x: tensor<2x3x6x6xf32>, %w: tensor<4x3x3x3xf32> {mx.param}, %gamma: tensor<4xf32> {mx.param}, %beta: tensor<4xf32> {mx.param}, %mm: tensor<4xf32> {mx.aux}, %mv: tensor<4xf32> {mx.aux}) -> (tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>) {
  %y = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 4 : i64, no_bias = true} : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  %n = mx.BatchNorm %y, %gamma, %beta, %mm, %mv {eps = 1.0e-3 : f64, fix_gamma = false, use_global_stats = true} : (tensor<2x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x6x6xf32>
  return %n, %y : tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>
}

// -----

// A 3x3 convolution dilated by 2 with padding 2 over 24x24 (phases of 12x12):
// the input's 4 phases as one batch, an undilated conv2d kernel with padding
// 1, the phases put back. At dilation 4 the phases (6x6) are too small and
// the kernel takes the dilated window itself.
// CHECK-LABEL: func.func @dilated
// CHECK: %[[X6:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3], [4, 5]] output_shape [1, 8, 12, 2, 12, 2]
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[X6]] : tensor<1x8x12x2x12x2xf32>) outs(%{{.*}} : tensor<2x2x1x8x12x12xf32>) permutation = [3, 5, 0, 1, 2, 4]
// CHECK: %[[P:.*]] = tensor.collapse_shape %[[XT]] {{\[\[}}0, 1, 2], [3], [4], [5]] : tensor<2x2x1x8x12x12xf32> into tensor<4x8x12x12xf32>
// CHECK: %[[Y:.*]] = mx.kernel.conv2d %[[P]], %{{.*}}, %{{.*}} into %{{.*}} {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1>, strides = array<i64: 1, 1>} : tensor<4x8x12x12xf32>
// CHECK: %[[Y6:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1, 2], [3], [4], [5]] output_shape [2, 2, 1, 16, 12, 12]
// CHECK: %[[YT:.*]] = linalg.transpose ins(%[[Y6]] : tensor<2x2x1x16x12x12xf32>) outs(%{{.*}} : tensor<1x16x12x2x12x2xf32>) permutation = [2, 3, 4, 0, 5, 1]
// CHECK: tensor.collapse_shape %[[YT]] {{\[\[}}0], [1], [2, 3], [4, 5]] : tensor<1x16x12x2x12x2xf32> into tensor<1x16x24x24xf32>
// CHECK: mx.kernel.conv2d %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} {dilations = array<i64: 4, 4>, pads = array<i64: 4, 4>, strides = array<i64: 1, 1>} : tensor<1x8x24x24xf32>
func.func @dilated(%x: tensor<1x8x24x24xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>) -> (tensor<1x16x24x24xf32>, tensor<1x16x24x24xf32>) {
  %y = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, pad = array<i64: 2, 2>, dilate = array<i64: 2, 2>, num_filter = 16 : i64} : (tensor<1x8x24x24xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x24x24xf32>
  %z = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, pad = array<i64: 4, 4>, dilate = array<i64: 4, 4>, num_filter = 16 : i64} : (tensor<1x8x24x24xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x24x24xf32>
  return %y, %z : tensor<1x16x24x24xf32>, tensor<1x16x24x24xf32>
}

// -----

// An int32 product of 8-bit operands minus their zero points (the ONNX
// importer's MatMulInteger) becomes the 8-bit GEMM on the bytes themselves,
// their signedness in attributes; B's zero point may be one per column.
// CHECK-LABEL: func.func @integer_product
// CHECK-SAME: (%[[A:.*]]: tensor<2x8xui8>, %[[ZA:.*]]: tensor<i32>, %[[B:.*]]: tensor<8x4xi8>, %[[ZB:.*]]: tensor<1x4xi32>)
// CHECK: mx.kernel.qmatmul %[[A]], %[[ZA]], %[[B]], %[[ZB]] into %{{.*}} : tensor<2x8xui8>, tensor<i32>, tensor<8x4xi8>, tensor<1x4xi32> into tensor<2x4xi32>
// CHECK-NOT: signed_a = true
// CHECK-NOT: mx.matmul
func.func @integer_product(%a: tensor<2x8xui8>, %za: tensor<i32>, %b: tensor<8x4xi8>, %zb: tensor<1x4xi32>) -> tensor<2x4xi32> {
  %a32 = mx.cast %a {to = i32} : (tensor<2x8xui8>) -> tensor<2x8xi32>
  %ac = mx.binary %a32, %za {op = "sub"} : (tensor<2x8xi32>, tensor<i32>) -> tensor<2x8xi32>
  %b32 = mx.cast %b {to = i32} : (tensor<8x4xi8>) -> tensor<8x4xi32>
  %bc = mx.binary %b32, %zb {op = "sub"} : (tensor<8x4xi32>, tensor<1x4xi32>) -> tensor<8x4xi32>
  %y = mx.matmul %ac, %bc : (tensor<2x8xi32>, tensor<8x4xi32>) -> tensor<2x4xi32>
  return %y : tensor<2x4xi32>
}

// -----

// int8 A without a zero point gets 0 and signed_a; a uint8 B, unsigned_b.
// CHECK-LABEL: func.func @signed_a_unsigned_b
// CHECK: %[[Z:.*]] = arith.constant dense<0> : tensor<i32>
// CHECK: mx.kernel.qmatmul %{{.*}}, %[[Z]], %{{.*}}, %[[Z]] into %{{.*}} {signed_a = true, unsigned_b = true}
func.func @signed_a_unsigned_b(%a: tensor<3x5xi8>, %b: tensor<5x2xui8>) -> tensor<3x2xi32> {
  %a32 = mx.cast %a {to = i32} : (tensor<3x5xi8>) -> tensor<3x5xi32>
  %b32 = mx.cast %b {to = i32} : (tensor<5x2xui8>) -> tensor<5x2xi32>
  %y = mx.matmul %a32, %b32 : (tensor<3x5xi32>, tensor<5x2xi32>) -> tensor<3x2xi32>
  return %y : tensor<3x2xi32>
}

// -----

// A zero point per row of A stays a generic integer product.
// CHECK-LABEL: func.func @row_zero_points
// CHECK-NOT: mx.kernel.qmatmul
// CHECK: mx.matmul
func.func @row_zero_points(%a: tensor<2x8xui8>, %za: tensor<2x1xi32>, %b: tensor<8x4xi8>) -> tensor<2x4xi32> {
  %a32 = mx.cast %a {to = i32} : (tensor<2x8xui8>) -> tensor<2x8xi32>
  %ac = mx.binary %a32, %za {op = "sub"} : (tensor<2x8xi32>, tensor<2x1xi32>) -> tensor<2x8xi32>
  %b32 = mx.cast %b {to = i32} : (tensor<8x4xi8>) -> tensor<8x4xi32>
  %y = mx.matmul %ac, %b32 : (tensor<2x8xi32>, tensor<8x4xi32>) -> tensor<2x4xi32>
  return %y : tensor<2x4xi32>
}

// -----

// The importer's integer convolution (an int32 cast of a float64 Convolution
// of 8-bit values minus their zero points, plus an int32 bias) and the
// requantization after it (QLinearConv's: to f32, times the multiplier,
// round, plus the zero point, clip, to uint8, a Relu's maximum with the zero
// point) become one 8-bit kernel writing uint8.
// CHECK-LABEL: func.func @requantized_convolution
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x6x6xui8>, %[[ZX:.*]]: tensor<i32>, %[[W:.*]]: tensor<3x4x3x3xi8>, %[[B:.*]]: tensor<3xi32>, %[[M:.*]]: tensor<1x3x1x1xf32>, %[[ZY:.*]]: tensor<ui8>)
// CHECK: %[[ZYF:.*]] = mx.cast %[[ZY]] {to = f32}
// CHECK: %[[Y:.*]] = mx.kernel.qconv2d %[[X]], %[[ZX]], %[[W]], %{{.*}}, %[[B]] scale %[[M]], %[[ZYF]] into %{{.*}} {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1>, relu = true, requant = true, strides = array<i64: 1, 1>}
// CHECK-SAME: into tensor<1x3x6x6xui8>
// CHECK-NOT: mx.clip
// CHECK-NOT: mx.Convolution
// CHECK: return %[[Y]]
func.func @requantized_convolution(%x: tensor<1x4x6x6xui8>, %zx: tensor<i32>, %w: tensor<3x4x3x3xi8>, %b: tensor<3xi32>, %m: tensor<1x3x1x1xf32>, %zy: tensor<ui8>) -> tensor<1x3x6x6xui8> {
  %x64 = mx.cast %x {to = f64} : (tensor<1x4x6x6xui8>) -> tensor<1x4x6x6xf64>
  %zx64 = mx.cast %zx {to = f64} : (tensor<i32>) -> tensor<f64>
  %xc = mx.binary %x64, %zx64 {op = "sub"} : (tensor<1x4x6x6xf64>, tensor<f64>) -> tensor<1x4x6x6xf64>
  %w64 = mx.cast %w {to = f64} : (tensor<3x4x3x3xi8>) -> tensor<3x4x3x3xf64>
  %b64 = mx.cast %b {to = f64} : (tensor<3xi32>) -> tensor<3xf64>
  %c = mx.Convolution %xc, %w64, %b64 {dilate = array<i64: 1, 1>, kernel = array<i64: 3, 3>, num_filter = 3 : i64, pad = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x4x6x6xf64>, tensor<3x4x3x3xf64>, tensor<3xf64>) -> tensor<1x3x6x6xf64>
  %s = mx.cast %c {to = i32} : (tensor<1x3x6x6xf64>) -> tensor<1x3x6x6xi32>
  %f = mx.cast %s {to = f32} : (tensor<1x3x6x6xi32>) -> tensor<1x3x6x6xf32>
  %p = mx.binary %f, %m {op = "mul"} : (tensor<1x3x6x6xf32>, tensor<1x3x1x1xf32>) -> tensor<1x3x6x6xf32>
  %r = mx.unary %p {op = "round"} : tensor<1x3x6x6xf32>
  %zyf = mx.cast %zy {to = f32} : (tensor<ui8>) -> tensor<f32>
  %a = mx.binary %r, %zyf {op = "add"} : (tensor<1x3x6x6xf32>, tensor<f32>) -> tensor<1x3x6x6xf32>
  %k = mx.clip %a {a_max = 2.550000e+02 : f64, a_min = 0.000000e+00 : f64} : tensor<1x3x6x6xf32>
  %q = mx.cast %k {to = ui8} : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xui8>
  %y = mx.binary %q, %zy {op = "maximum"} : (tensor<1x3x6x6xui8>, tensor<ui8>) -> tensor<1x3x6x6xui8>
  return %y : tensor<1x3x6x6xui8>
}
