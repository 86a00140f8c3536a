// SPDX-License-Identifier: Apache-2.0
// --mxc-mark-constant-params: an inference library's parameters get
// mxc.constant (so kernel calls may keep packed copies of them). From
// mxc-opt the parameters are the arguments the IR says are: marked mx.param
// or mx.aux (the MXNet frontend's roles), or carrying their data (mx.value).
// RUN: %mxc-opt --split-input-file --mxc-mark-constant-params %s | FileCheck %s

// The input stays as it is; the weight, the moving mean and a parameter
// given by its data are marked.
// CHECK-LABEL: func.func @params
// CHECK-SAME: (%{{.*}}: tensor<2x3xf32> {mx.name = "data"},
// CHECK-SAME: %{{.*}}: tensor<4x3xf32> {mx.name = "w", mx.param, mxc.constant},
// CHECK-SAME: %{{.*}}: tensor<4xf32> {mx.aux, mx.name = "mean", mxc.constant},
// CHECK-SAME: %{{.*}}: tensor<4xf32> {mx.value = dense<1.000000e+00> : tensor<4xf32>, mxc.constant})
func.func @params(%x: tensor<2x3xf32> {mx.name = "data"},
                  %w: tensor<4x3xf32> {mx.name = "w", mx.param},
                  %m: tensor<4xf32> {mx.name = "mean", mx.aux},
                  %v: tensor<4xf32> {mx.value = dense<1.0> : tensor<4xf32>}) -> tensor<2x3xf32> {
  return %x : tensor<2x3xf32>
}

// -----

// Must not fire: arguments with no parameter role are inputs.
// CHECK-LABEL: func.func @inputs
// CHECK-NOT: mxc.constant
func.func @inputs(%x: tensor<2x3xf32>, %y: tensor<2x3xf32> {mx.name = "y"}) -> tensor<2x3xf32> {
  return %x : tensor<2x3xf32>
}
