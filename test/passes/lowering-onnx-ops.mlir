// SPDX-License-Identifier: Apache-2.0
// --mxc-convert-mx-to-linalg on the ops added for ONNX and on integer and
// boolean element types: which arith / math / tensor ops each one becomes.
// Numerics are checked end to end elsewhere; here only the shape of the IR.
// RUN: %mxc-opt --split-input-file --mxc-convert-mx-to-linalg %s | FileCheck %s
// RUN: %mxc-opt --split-input-file --mxc-convert-mx-to-linalg %s | FileCheck %s --check-prefix=NOBF16
// No bfloat16 conversion is left for LLVM (see @cast_bf16).
// NOBF16-NOT: {{arith.(extf|truncf) .*bf16}}

// Comparisons: floats use ordered predicates except not_equal (true for NaN),
// integers signed ones, booleans unsigned ones (false < true).
// CHECK-LABEL: func.func @compare(
// CHECK:         arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK:         arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK:         arith.cmpi ugt, %{{.*}}, %{{.*}} : i1
func.func @compare(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %a: tensor<3xi32>, %b: tensor<3xi32>, %p: tensor<3xi1>, %q: tensor<3xi1>) -> (tensor<2x3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %0 = mx.compare %x, %y {op = "not_equal"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %1 = mx.compare %a, %b {op = "less"} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  %2 = mx.compare %p, %q {op = "greater"} : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return %0, %1, %2 : tensor<2x3xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

// Casts: float -> int truncates (fptosi), to bool is `!= 0`, bool -> float is
// unsigned, int narrowing truncates; a cast to the same type is no op at all.
// CHECK-LABEL: func.func @cast(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<4xf32>
// CHECK:         arith.fptosi %{{.*}} : f32 to i64
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         arith.cmpf une, %{{.*}}, %[[ZERO]] : f32
// CHECK:         arith.uitofp %{{.*}} : i1 to f32
// CHECK:         arith.trunci %{{.*}} : i64 to i32
// CHECK:         arith.truncf %{{.*}} : f32 to f16
// CHECK:         return {{.*}}, %[[X]] :
func.func @cast(%x: tensor<4xf32>, %b: tensor<4xi1>, %i: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi1>, tensor<4xf32>, tensor<4xi32>, tensor<4xf16>, tensor<4xf32>) {
  %0 = mx.cast %x {to = i64} : (tensor<4xf32>) -> tensor<4xi64>
  %1 = mx.cast %x {to = i1} : (tensor<4xf32>) -> tensor<4xi1>
  %2 = mx.cast %b {to = f32} : (tensor<4xi1>) -> tensor<4xf32>
  %3 = mx.cast %i {to = i32} : (tensor<4xi64>) -> tensor<4xi32>
  %4 = mx.cast %x {to = f16} : (tensor<4xf32>) -> tensor<4xf16>
  %5 = mx.cast %x {to = f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi64>, tensor<4xi1>, tensor<4xf32>, tensor<4xi32>, tensor<4xf16>, tensor<4xf32>
}

// -----

// bfloat16 converts only to and from f32, as integer code (no compiler-rt
// call): f32 -> bf16 adds 0x7FFF plus the kept lowest bit before dropping
// 16 bits (round to nearest even, NaN kept quiet); bf16 -> f32 shifts the
// bits up; bf16 -> i32 goes through f32, f64 -> bf16 through f32 rounded to
// odd, so that it rounds once.
// CHECK-LABEL: func.func @cast_bf16(
// CHECK:         linalg.generic
// CHECK:           arith.constant 32767 : i32
// CHECK:           %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK:           %[[ROUNDED:.*]] = arith.addi %[[BITS]], %{{.*}} : i32
// CHECK:           %[[KEPT:.*]] = arith.shrui %[[ROUNDED]], %{{.*}} : i32
// CHECK:           %[[HALF:.*]] = arith.trunci %[[KEPT]] : i32 to i16
// CHECK:           %[[SAFE:.*]] = arith.select %{{.*}}, %{{.*}}, %[[HALF]] : i16
// CHECK:           arith.bitcast %[[SAFE]] : i16 to bf16
// CHECK-NOT:       arith.truncf
// CHECK:         linalg.generic
// CHECK:           arith.bitcast %{{.*}} : bf16 to i16
// CHECK:           arith.extui %{{.*}} : i16 to i32
// CHECK:           arith.shli
// CHECK:           %[[F32:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK:           arith.fptosi %[[F32]] : f32 to i32
// CHECK:         linalg.generic
// CHECK:           arith.truncf %{{.*}} : f64 to f32
// CHECK:           arith.ori
// CHECK:           arith.bitcast %{{.*}} : i16 to bf16
func.func @cast_bf16(%x: tensor<4xf32>, %h: tensor<4xbf16>, %d: tensor<4xf64>) -> (tensor<4xbf16>, tensor<4xi32>, tensor<4xbf16>) {
  %0 = mx.cast %x {to = bf16} : (tensor<4xf32>) -> tensor<4xbf16>
  %1 = mx.cast %h {to = i32} : (tensor<4xbf16>) -> tensor<4xi32>
  %2 = mx.cast %d {to = bf16} : (tensor<4xf64>) -> tensor<4xbf16>
  return %0, %1, %2 : tensor<4xbf16>, tensor<4xi32>, tensor<4xbf16>
}

// -----

// where: one generic over the broadcast shape reading all three operands
// through broadcasting maps (a rank-0 operand through the empty map).
// CHECK-DAG:   #[[$C:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG:   #[[$X:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG:   #[[$Y:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @where(
// CHECK:         linalg.generic {indexing_maps = [#[[$C]], #[[$X]], #[[$Y]], #{{.*}}]
// CHECK:           arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
func.func @where(%c: tensor<2x1xi1>, %x: tensor<3xf32>, %y: tensor<f32>) -> tensor<2x3xf32> {
  %0 = mx.where %c, %x, %y : (tensor<2x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// fma: one generic over the broadcast operands, the product added without
// rounding it first (math.fma).
// CHECK-LABEL: func.func @fma
// CHECK:         linalg.generic
// CHECK:           math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-NOT:       arith.mulf
func.func @fma(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = mx.fma %x, %s, %z : (tensor<2x3xf32>, tensor<f32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// gather: a generic over the output reads the indices through a map; the
// body wraps negative indices, clamps into [0, 2] and reads the data with
// tensor.extract.
// CHECK-DAG:   #[[$IDX:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @gather(
// CHECK-SAME:    %[[DATA:[a-z0-9_]+]]: tensor<5x3xf32>, %[[I:[a-z0-9_]+]]: tensor<2xi32>)
// CHECK:         linalg.generic {indexing_maps = [#[[$IDX]], #{{.*}}]{{.*}} ins(%[[I]] : tensor<2xi32>)
// CHECK:           arith.extsi %{{.*}} : i32 to i64
// CHECK:           arith.maxsi
// CHECK:           %[[TWO:.*]] = arith.constant 2 : i64
// CHECK:           %[[CLAMPED:.*]] = arith.minsi %{{.*}}, %[[TWO]] : i64
// CHECK:           %[[ROW:.*]] = linalg.index 0 : index
// CHECK:           %[[COL:.*]] = arith.index_cast %[[CLAMPED]] : i64 to index
// CHECK:           tensor.extract %[[DATA]][%[[ROW]], %[[COL]]] : tensor<5x3xf32>
func.func @gather(%x: tensor<5x3xf32>, %i: tensor<2xi32>) -> tensor<5x2xf32> {
  %0 = mx.gather %x, %i {axis = 1 : i64} : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

// Constant pad with a negative count: crop with tensor.extract_slice, then
// tensor.pad with the value as an integer of the element type.
// CHECK-LABEL: func.func @pad_constant(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<4x3xi32>)
// CHECK:         %[[CROP:.*]] = tensor.extract_slice %[[X]][1, 0] [3, 3] [1, 1] : tensor<4x3xi32> to tensor<3x3xi32>
// CHECK:         %[[SEVEN:.*]] = arith.constant 7 : i32
// CHECK:         tensor.pad %[[CROP]] low[0, 1] high[0, 2]
// CHECK:           tensor.yield %[[SEVEN]] : i32
func.func @pad_constant(%x: tensor<4x3xi32>) -> tensor<3x6xi32> {
  %0 = mx.pad %x {pads = array<i64: -1, 1, 0, 2>, value = 7.0 : f64} : (tensor<4x3xi32>) -> tensor<3x6xi32>
  return %0 : tensor<3x6xi32>
}

// -----

// Reflect pad: a generic with no inputs computes each source index from
// linalg.index and reads it with tensor.extract.
// CHECK-LABEL: func.func @pad_reflect(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<4x3xf32>)
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<4x7xf32>)
// CHECK:           linalg.index 1 : index
// CHECK:           tensor.extract %[[X]]
func.func @pad_reflect(%x: tensor<4x3xf32>) -> tensor<4x7xf32> {
  %0 = mx.pad %x {pads = array<i64: 0, 2, 0, 2>, mode = "reflect"} : (tensor<4x3xf32>) -> tensor<4x7xf32>
  return %0 : tensor<4x7xf32>
}

// -----

// broadcast_to: a copy through a broadcasting map.
// CHECK-DAG:   #[[$IN:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func.func @broadcast_to(
// CHECK:         linalg.generic {indexing_maps = [#[[$IN]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
func.func @broadcast_to(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = mx.broadcast_to %x {shape = array<i64: 2, 3, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// matmul of a vector with a batch of integer matrices: the vector becomes a
// 1x4 row read without batch axes, the contraction accumulates with
// muli / addi into zeros, and the promoted axis is dropped by a reshape.
// CHECK-DAG:   #[[$A:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-DAG:   #[[$B:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG:   #[[$Y:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @matmul(
// CHECK:         %[[ROW:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [1, 4] : tensor<4xi32> into tensor<1x4xi32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : i32)
// CHECK:         linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$Y]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[ROW]], %{{.*}} : tensor<1x4xi32>, tensor<2x4x5xi32>) outs(%[[INIT]] : tensor<2x1x5xi32>)
// CHECK:           arith.muli
// CHECK:           arith.addi
// CHECK:         tensor.expand_shape {{.*}} : tensor<10xi32> into tensor<2x5xi32>
func.func @matmul(%a: tensor<4xi32>, %b: tensor<2x4x5xi32>) -> tensor<2x5xi32> {
  %0 = mx.matmul %a, %b : (tensor<4xi32>, tensor<2x4x5xi32>) -> tensor<2x5xi32>
  return %0 : tensor<2x5xi32>
}

// -----

// argreduce: one generic with two outputs (the running max, from -inf, and
// its index, from 0); ties go to the smaller index; keepdims is a reshape.
// CHECK-LABEL: func.func @argreduce(
// CHECK:         %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[VALS:.*]] = linalg.fill ins(%[[NEGINF]] : f32)
// CHECK:         %[[IDXS:.*]] = linalg.fill ins(%{{.*}} : i64)
// CHECK:         %[[R:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      outs(%[[VALS]], %[[IDXS]] : tensor<2xf32>, tensor<2xi64>)
// CHECK:           arith.cmpf ogt
// CHECK:           arith.cmpi slt
// CHECK:           linalg.yield %{{.*}}, %{{.*}} : f32, i64
// CHECK:         tensor.expand_shape %[[R]]#1 {{.*}} into tensor<2x1xi64>
func.func @argreduce(%x: tensor<2x5xf32>) -> tensor<2x1xi64> {
  %0 = mx.argreduce %x {op = "max", axis = 1 : i64, keepdims = true} : (tensor<2x5xf32>) -> tensor<2x1xi64>
  return %0 : tensor<2x1xi64>
}

// -----

// LayerNorm: the mean, the sum of squared deviations and rsqrt(var + eps)
// on the reduced shape, then one generic normalizing and applying gamma and
// beta along the axis.
// CHECK-DAG:   #[[$CH:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<2x4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>, %[[B:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:         math.rsqrt
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}, #[[$CH]], #[[$CH]], #{{.*}}]
// CHECK-SAME:      ins(%[[X]], %{{.*}}, %{{.*}}, %[[G]], %[[B]] :
func.func @layer_norm(%x: tensor<2x4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = mx.LayerNorm %x, %g, %b {axis = -1 : i64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Deconvolution with stride 2 and kernel 2: the input is scattered with
// stride 2 into zeros padded by dilate * (k - 1) - pad = 1 (a strided
// tensor.insert_slice), the weight is flipped and transposed per group, and
// a stride-1 convolution follows.
// CHECK-DAG:   #[[$FLIP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, -d3 + 1, -d4 + 1)>
// CHECK-DAG:   #[[$CONV_X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
// CHECK-LABEL: func.func @deconvolution(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<1x2x3x3xf32>
// CHECK:         %[[ZEROS:.*]] = linalg.fill {{.*}} -> tensor<1x2x7x7xf32>
// CHECK:         tensor.insert_slice %[[X]] into %[[ZEROS]][0, 0, 1, 1] [1, 2, 3, 3] [1, 1, 2, 2]
// CHECK:         linalg.generic {indexing_maps = [#[[$FLIP]], #{{.*}}]
// CHECK-SAME:      ins(%{{.*}} : tensor<1x2x4x2x2xf32>) outs(%{{.*}} : tensor<1x4x2x2x2xf32>)
// CHECK:         linalg.generic {indexing_maps = [#[[$CONV_X]], #{{.*}}, #{{.*}}]
// CHECK-SAME:      outs(%{{.*}} : tensor<1x1x4x6x6xf32>)
func.func @deconvolution(%x: tensor<1x2x3x3xf32>, %w: tensor<2x4x2x2xf32>) -> tensor<1x4x6x6xf32> {
  %0 = mx.Deconvolution %x, %w {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, num_filter = 4 : i64, no_bias = true} : (tensor<1x2x3x3xf32>, tensor<2x4x2x2xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// Deconvolution with stride 1 needs no scatter: plain tensor.pad.
// CHECK-LABEL: func.func @deconvolution_stride_1(
// CHECK-NOT:     tensor.insert_slice
// CHECK:         tensor.pad %{{.*}} low[0, 0, 2] high[0, 0, 2]
func.func @deconvolution_stride_1(%x: tensor<1x2x5xf32>, %w: tensor<2x3x3xf32>) -> tensor<1x3x7xf32> {
  %0 = mx.Deconvolution %x, %w {kernel = array<i64: 3>, num_filter = 3 : i64, no_bias = true} : (tensor<1x2x5xf32>, tensor<2x3x3xf32>) -> tensor<1x3x7xf32>
  return %0 : tensor<1x3x7xf32>
}

// -----

// Integer division divides by 1 where the divisor is 0 or -1 (which would
// trap) and patches those results; mod is Python's (the divisor's sign);
// power loops over the exponent's 32 bits.
// CHECK-LABEL: func.func @int_binary(
// CHECK:         arith.divsi %{{.*}}, %{{.*}} : i32
// CHECK:         %[[REM:.*]] = arith.remsi %{{.*}}, %{{.*}} : i32
// CHECK:         %[[FIXED:.*]] = arith.addi %[[REM]], %{{.*}} : i32
// CHECK:         arith.select %{{.*}}, %[[FIXED]], %[[REM]] : i32
// CHECK:         %[[BITS:.*]] = arith.constant 32 : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[BITS]]
// CHECK:           arith.muli
// CHECK:           arith.shrui
func.func @int_binary(%x: tensor<4xi32>, %y: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = mx.binary %x, %y {op = "div"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = mx.binary %x, %y {op = "mod"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = mx.binary %x, %y {op = "power"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// -----

// Float mod is C's fmod (the dividend's sign).
// CHECK-LABEL: func.func @float_mod(
// CHECK:         arith.remf %{{.*}}, %{{.*}} : f32
func.func @float_mod(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mx.binary %x, %y {op = "mod"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Unary functions: round is half-to-even, integer abs is math.absi, not is
// xor with true, and f16 computes transcendental functions in f32.
// CHECK-LABEL: func.func @unary(
// CHECK:         math.roundeven %{{.*}} : f32
// CHECK:         math.absi %{{.*}} : i8
// CHECK:         %[[TRUE:.*]] = arith.constant true
// CHECK:         arith.xori %{{.*}}, %[[TRUE]] : i1
// CHECK:         %[[WIDE:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK:         %[[SIN:.*]] = math.sin %[[WIDE]] : f32
// CHECK:         arith.truncf %[[SIN]] : f32 to f16
func.func @unary(%x: tensor<4xf32>, %i: tensor<4xi8>, %b: tensor<4xi1>, %h: tensor<4xf16>) -> (tensor<4xf32>, tensor<4xi8>, tensor<4xi1>, tensor<4xf16>) {
  %0 = mx.unary %x {op = "round"} : tensor<4xf32>
  %1 = mx.unary %i {op = "abs"} : tensor<4xi8>
  %2 = mx.unary %b {op = "not"} : tensor<4xi1>
  %3 = mx.unary %h {op = "sin"} : tensor<4xf16>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xi8>, tensor<4xi1>, tensor<4xf16>
}

// -----

// A scalar on integers is truncated toward zero: 2.7 adds 2.
// CHECK-LABEL: func.func @scalar_int(
// CHECK:         %[[TWO:.*]] = arith.constant 2 : i32
// CHECK:         arith.addi %{{.*}}, %[[TWO]] : i32
func.func @scalar_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = mx.scalar %x {op = "add", scalar = 2.7 : f64} : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Integer reductions start from the type's identities: INT64_MIN for max,
// 1 for prod.
// CHECK-LABEL: func.func @reduce_int(
// CHECK:         %[[MIN:.*]] = arith.constant -9223372036854775808 : i64
// CHECK:         linalg.fill ins(%[[MIN]] : i64)
// CHECK:           arith.maxsi
// CHECK:         %[[ONE:.*]] = arith.constant 1 : i64
// CHECK:         linalg.fill ins(%[[ONE]] : i64)
// CHECK:           arith.muli
func.func @reduce_int(%x: tensor<2x3xi64>) -> (tensor<2xi64>, tensor<2xi64>) {
  %0 = mx.reduce %x {op = "max", axis = array<i64: 1>} : (tensor<2x3xi64>) -> tensor<2xi64>
  %1 = mx.reduce %x {op = "prod", axis = array<i64: 1>} : (tensor<2x3xi64>) -> tensor<2xi64>
  return %0, %1 : tensor<2xi64>, tensor<2xi64>
}

// -----

// logsumexp subtracts the maximum (0 where it is not finite) before exp.
// CHECK-LABEL: func.func @reduce_logsumexp(
// CHECK:         arith.maximumf
// CHECK:         %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK:         arith.cmpf olt, %{{.*}}, %[[INF]] : f32
// CHECK:         arith.subf
// CHECK:         math.exp
// CHECK:         math.log
func.func @reduce_logsumexp(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = mx.reduce %x {op = "logsumexp", axis = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// slice is a strided tensor.extract_slice; a negative step takes the same
// elements and reverses them with a generic.
// CHECK-DAG:   #[[$REV:.*]] = affine_map<(d0, d1) -> (-d0 + 1, d1)>
// CHECK-LABEL: func.func @slice(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<4x5xf32>)
// CHECK:         %[[EVEN:.*]] = tensor.extract_slice %[[X]][0, 0] [2, 5] [2, 1]
// CHECK:         %[[ODD:.*]] = tensor.extract_slice %[[X]][1, 0] [2, 5] [2, 1]
// CHECK:         linalg.generic {indexing_maps = [#[[$REV]], #{{.*}}]{{.*}} ins(%[[ODD]] : tensor<2x5xf32>)
// CHECK:         return %[[EVEN]], %{{.*}}
func.func @slice(%x: tensor<4x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>) {
  %0 = mx.slice %x {begin = array<i64: 0>, end = array<i64: 4>, step = array<i64: 2>} : (tensor<4x5xf32>) -> tensor<2x5xf32>
  %1 = mx.slice %x {begin = array<i64: 3>, end = array<i64: 0>, step = array<i64: -2>} : (tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0, %1 : tensor<2x5xf32>, tensor<2x5xf32>
}

// -----

// Unsigned element types become signless, and the ops that read them pick
// unsigned division, extremes, comparison and conversion.
// CHECK-LABEL: func.func @unsigned(
// CHECK-SAME:    %{{.*}}: tensor<4xi8>, %{{.*}}: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi8>, tensor<4xi1>, tensor<4xf32>, tensor<4xi8>)
// CHECK:         arith.divui %{{.*}}, %{{.*}} : i8
// CHECK:         arith.maxui %{{.*}}, %{{.*}} : i8
// CHECK:         arith.cmpi ugt, %{{.*}}, %{{.*}} : i8
// CHECK:         arith.uitofp %{{.*}} : i8 to f32
// CHECK:         arith.shrui %{{.*}}, %{{.*}} : i8
func.func @unsigned(%x: tensor<4xui8>, %y: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xui8>, tensor<4xi1>, tensor<4xf32>, tensor<4xui8>) {
  %0 = mx.binary %x, %y {op = "div"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = mx.binary %x, %y {op = "maximum"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %2 = mx.compare %x, %y {op = "greater"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  %3 = mx.cast %x {to = f32} : (tensor<4xui8>) -> tensor<4xf32>
  %4 = mx.binary %x, %y {op = "shift_right"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0, %1, %2, %3, %4 : tensor<4xui8>, tensor<4xui8>, tensor<4xi1>, tensor<4xf32>, tensor<4xui8>
}

// -----

// Integer max pooling pads with the type's lowest value (0 for ui8, -128 for
// i8) and takes maxui / maxsi; dilation spaces the window's slices. (Dilated:
// undilated 8-bit max pooling is the runtime's, mx.kernel.qmaxpool2d.)
// CHECK-LABEL: func.func @int_max_pool(
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK:         tensor.pad
// CHECK:           tensor.yield %[[ZERO]] : i8
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 0, 2] [1, 1, 3, 3] [1, 1, 2, 2] : tensor<1x1x7x7xi8> to tensor<1x1x3x3xi8>
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 2, 2] [1, 1, 3, 3] [1, 1, 2, 2]
// CHECK:         linalg.generic
// CHECK:           arith.maxui %{{.*}}, %{{.*}} : i8
// CHECK:         %[[LOW:.*]] = arith.constant -128 : i8
// CHECK:         tensor.pad
// CHECK:           tensor.yield %[[LOW]] : i8
// CHECK:           arith.maxsi %{{.*}}, %{{.*}} : i8
func.func @int_max_pool(%x: tensor<1x1x5x5xui8>, %s: tensor<1x1x5x5xi8>) -> (tensor<1x1x3x3xui8>, tensor<1x1x3x3xi8>) {
  %0 = mx.Pooling %x {kernel = array<i64: 2, 2>, dilate = array<i64: 2, 2>, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x1x5x5xui8>) -> tensor<1x1x3x3xui8>
  %1 = mx.Pooling %s {kernel = array<i64: 2, 2>, dilate = array<i64: 2, 2>, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x1x5x5xi8>) -> tensor<1x1x3x3xi8>
  return %0, %1 : tensor<1x1x3x3xui8>, tensor<1x1x3x3xi8>
}
