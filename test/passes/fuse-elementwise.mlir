// SPDX-License-Identifier: Apache-2.0
// mxc-fuse-elementwise: a chain of pointwise ops (broadcast bias add, ReLU,
// scale) becomes one linalg.generic; a value with two consumers (exp, read
// by ReLU and log) stays its own loop nest, computed once.
// RUN: %mxc-opt --pass-pipeline='builtin.module(func.func(mxc-convert-mx-to-linalg),canonicalize,func.func(mxc-fuse-elementwise))' %s | FileCheck %s

// CHECK-LABEL: func.func @chain(
// CHECK-COUNT-1: linalg.generic
// CHECK:           arith.addf
// CHECK-NEXT:      arith.maxnumf
// CHECK-NEXT:      arith.mulf
// CHECK-NOT:     linalg.generic
// CHECK:         return

// CHECK-LABEL: func.func @shared(
// CHECK:         %[[E:.*]] = linalg.generic
// CHECK:           math.exp
// CHECK:         linalg.generic {{.*}} ins(%[[E]] :
// CHECK:           arith.maxnumf
// CHECK:         linalg.generic {{.*}} ins(%[[E]] :
// CHECK:           math.log
// CHECK:         return
func.func @chain(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = mx.binary %x, %b {op = "add"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = mx.Activation %0 {act_type = "relu"} : tensor<2x3xf32>
  %2 = mx.scalar %1 {op = "mul", scalar = 2.0 : f64} : tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}
func.func @shared(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = mx.unary %x {op = "exp"} : tensor<2x3xf32>
  %1 = mx.Activation %0 {act_type = "relu"} : tensor<2x3xf32>
  %2 = mx.unary %0 {op = "log"} : tensor<2x3xf32>
  return %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>
}
