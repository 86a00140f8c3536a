// SPDX-License-Identifier: Apache-2.0
// Round trip of ops whose custom form infers the result type while a
// default-valued attribute is elided: the parser infers before it fills in
// defaults, so inference must apply the defaults itself.
// RUN: %mxc-opt --split-input-file %s | %mxc-opt --split-input-file | FileCheck %s

// Dropout's default p = 0.5 is elided, and the elided form parses again.
// CHECK-LABEL: func.func @dropout_default(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>)
// CHECK:         mx.Dropout %[[X]] : tensor<2x3xf32>
func.func @dropout_default(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = mx.Dropout %x : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// softmax with every attribute at its default prints no attribute dictionary.
// CHECK-LABEL: func.func @softmax_default(
// CHECK-SAME:    %[[X:.*]]: tensor<2x5xf32>)
// CHECK:         mx.softmax %[[X]] : tensor<2x5xf32>
func.func @softmax_default(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %y = mx.softmax %x {axis = -1 : i64, temperature = 1.0 : f64, log = false} : tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// The example in softmax's description: temperature is left at its default.
// CHECK-LABEL: func.func @softmax_doc_example(
// CHECK-SAME:    %[[X:.*]]: tensor<2x5xf32>)
// CHECK:         mx.softmax %[[X]] : tensor<2x5xf32>
func.func @softmax_doc_example(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %y = mx.softmax %x {axis = -1 : i64} : tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}
