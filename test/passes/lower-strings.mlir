// SPDX-License-Identifier: Apache-2.0
// mxc-lower-strings: casts from numbers to strings call the runtime's
// formatter per element after widening (f32 -> f64, keeping the width in an
// argument); casts from strings parse per element, then narrow; a string
// argument passed through (Identity) becomes an i64 handle tensor.
// RUN: %mxc-opt --mxc-lower-strings --split-input-file --verify-diagnostics %s | FileCheck %s

// CHECK-DAG:   func.func private @mxrt_string_from_float(f64, i32) -> i64
// CHECK-DAG:   func.func private @mxrt_string_to_int(i64, i32) -> i64
// CHECK-LABEL: func.func @casts(
// CHECK-SAME:    %[[X:.*]]: tensor<3xf32>, %[[S:.*]]: tensor<2xi64>)
// CHECK-SAME:    -> (tensor<3xi64>, tensor<2xui8>, tensor<2xi64>)
// CHECK:         %[[W:.*]] = mx.cast %[[X]] {to = f64}
// CHECK:         %[[T:.*]] = linalg.generic {{.*}} ins(%[[W]] : tensor<3xf64>) outs(%{{.*}} : tensor<3xi64>)
// CHECK:           %[[BITS:.*]] = arith.constant 32 : i32
// CHECK:           func.call @mxrt_string_from_float(%{{.*}}, %[[BITS]])
// CHECK:         %[[P:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<2xi64>) outs(%{{.*}} : tensor<2xi64>)
// CHECK:           func.call @mxrt_string_to_int
// CHECK:         %[[U:.*]] = mx.cast %[[P]] {to = ui8} : (tensor<2xi64>) -> tensor<2xui8>
// CHECK:         return %[[T]], %[[U]], %[[S]]
// CHECK-NOT:     !mx.string
func.func @casts(%x: tensor<3xf32>, %s: tensor<2x!mx.string>) -> (tensor<3x!mx.string>, tensor<2xui8>, tensor<2x!mx.string>) {
  %t = mx.cast %x {to = !mx.string} : (tensor<3xf32>) -> tensor<3x!mx.string>
  %u = mx.cast %s {to = ui8} : (tensor<2x!mx.string>) -> tensor<2xui8>
  return %t, %u, %s : tensor<3x!mx.string>, tensor<2xui8>, tensor<2x!mx.string>
}

// -----

// Integers format as integers; uint64 says so (its bits do not fit int64).
// CHECK-LABEL: func.func @from_uint64(
// CHECK:         %[[ONE:.*]] = arith.constant 1 : i32
// CHECK:         func.call @mxrt_string_from_int(%{{.*}}, %[[ONE]])
func.func @from_uint64(%x: tensor<3xui64>) -> tensor<3x!mx.string> {
  %t = mx.cast %x {to = !mx.string} : (tensor<3xui64>) -> tensor<3x!mx.string>
  return %t : tensor<3x!mx.string>
}

// -----

// Floats parse at the target's precision.
// CHECK-LABEL: func.func @to_double(
// CHECK:         %[[B:.*]] = arith.constant 64 : i32
// CHECK:         func.call @mxrt_string_to_float(%{{.*}}, %[[B]])
// CHECK-NOT:     mx.cast
func.func @to_double(%s: tensor<3x!mx.string>) -> tensor<3xf64> {
  %t = mx.cast %s {to = f64} : (tensor<3x!mx.string>) -> tensor<3xf64>
  return %t : tensor<3xf64>
}
