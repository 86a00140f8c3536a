// SPDX-License-Identifier: Apache-2.0
// Function arguments (inputs, parameters) are read only: after the mx
// lowering mxc-read-only-args marks them bufferization.writable = false, so an op that
// updates a tensor in place (here a scatter into an argument, the last use)
// works on a copy instead of the caller's buffer.
// RUN: %mxc-opt --pass-pipeline='builtin.module(func.func(mxc-convert-mx-to-linalg),func.func(mxc-read-only-args),one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map})' %s | FileCheck %s

// CHECK-LABEL: func.func @scatter_into_arg(
// CHECK-SAME:    %[[G:[a-z0-9]+]]: memref<4x3xf64>
// CHECK:         %[[COPY:.*]] = memref.alloc()
// CHECK:         memref.copy %[[G]], %[[COPY]]
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[COPY]])
// CHECK-NOT:     memref.store {{.*}}, %[[G]]
func.func @scatter_into_arg(%g: tensor<4x3xf64>, %in: tensor<2x1xi64>, %v: tensor<2x3xf64>) -> tensor<4x3xf64> {
  %s = mx.scatter_nd %g, %in, %v {reduction = "add"} : (tensor<4x3xf64>, tensor<2x1xi64>, tensor<2x3xf64>) -> tensor<4x3xf64>
  return %s : tensor<4x3xf64>
}
