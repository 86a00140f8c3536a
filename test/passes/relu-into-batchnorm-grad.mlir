// SPDX-License-Identifier: Apache-2.0
// --mxc-relu-into-batchnorm-grad: the gradient of ReLU(BatchNormTrain(x))
// folds into its BatchNormTrainGrad, which takes the ReLU's output gradient
// and the forward's beta (relu_out); the cases that must stay are below.
// RUN: %mxc-opt --split-input-file --mxc-relu-into-batchnorm-grad %s | FileCheck %s

// CHECK-LABEL: func.func @folds
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3x4x4xf32>, %[[G:[^:]*]]: tensor<3xf32>, %[[B:[^:]*]]: tensor<3xf32>, %[[DA:[^:]*]]: tensor<2x3x4x4xf32>)
// CHECK: %[[Y:.*]], %[[M:.*]], %[[V:.*]] = mx.BatchNormTrain %[[X]], %[[G]], %[[B]]
// CHECK-NOT: grad_elemwise
// CHECK: mx.BatchNormTrainGrad %[[DA]], %[[X]], %[[G]], %[[M]], %[[V]], %[[B]] {eps = 1.000000e-05 : f64, fix_gamma = false, relu_out}
func.func @folds(%x: tensor<2x3x4x4xf32>, %gamma: tensor<3xf32>, %beta: tensor<3xf32>, %da: tensor<2x3x4x4xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) {
  %y, %mean, %var = mx.BatchNormTrain %x, %gamma, %beta {eps = 1.0e-5 : f64, fix_gamma = false} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  %a = mx.Activation %y {act_type = "relu"} : tensor<2x3x4x4xf32>
  %g = mx.grad_elemwise %a, %da {fn = "unary.relu"} : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  %dx, %dgamma, %dbeta = mx.BatchNormTrainGrad %g, %x, %gamma, %mean, %var {eps = 1.0e-5 : f64, fix_gamma = false} : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %a, %dx : tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>
}

// -----

// The masked gradient is read elsewhere too (a residual's shortcut): it
// stays, and the BatchNorm's gradient reads it.
// CHECK-LABEL: func.func @mask_read_twice
// CHECK: %[[MASK:.*]] = mx.grad_elemwise
// CHECK: mx.BatchNormTrainGrad %[[MASK]], %arg0, %arg1, %{{.*}}, %{{.*}} {eps
// CHECK-NOT: relu_out
func.func @mask_read_twice(%x: tensor<2x3x4x4xf32>, %gamma: tensor<3xf32>, %beta: tensor<3xf32>, %da: tensor<2x3x4x4xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) {
  %y, %mean, %var = mx.BatchNormTrain %x, %gamma, %beta {eps = 1.0e-5 : f64, fix_gamma = false} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  %a = mx.Activation %y {act_type = "relu"} : tensor<2x3x4x4xf32>
  %g = mx.grad_elemwise %a, %da {fn = "unary.relu"} : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  %dx, %dgamma, %dbeta = mx.BatchNormTrainGrad %g, %x, %gamma, %mean, %var {eps = 1.0e-5 : f64, fix_gamma = false} : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %g, %dx : tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>
}

// -----

// The ReLU reads the BatchNorm's output plus a residual, not the output:
// its mask is not the BatchNorm's to recompute.
// CHECK-LABEL: func.func @relu_of_a_sum
// CHECK: mx.grad_elemwise
// CHECK-NOT: relu_out
func.func @relu_of_a_sum(%x: tensor<2x3x4x4xf32>, %gamma: tensor<3xf32>, %beta: tensor<3xf32>, %r: tensor<2x3x4x4xf32>, %da: tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32> {
  %y, %mean, %var = mx.BatchNormTrain %x, %gamma, %beta {eps = 1.0e-5 : f64, fix_gamma = false} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  %s = mx.binary %y, %r {op = "add"} : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  %a = mx.Activation %s {act_type = "relu"} : tensor<2x3x4x4xf32>
  %g = mx.grad_elemwise %a, %da {fn = "unary.relu"} : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  %dx, %dgamma, %dbeta = mx.BatchNormTrainGrad %g, %x, %gamma, %mean, %var {eps = 1.0e-5 : f64, fix_gamma = false} : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %dx : tensor<2x3x4x4xf32>
}

// -----

// A sigmoid's gradient is no ReLU mask.
// CHECK-LABEL: func.func @not_relu
// CHECK: mx.grad_elemwise %{{.*}} {fn = "unary.sigmoid"}
// CHECK-NOT: relu_out
func.func @not_relu(%x: tensor<2x3x4x4xf32>, %gamma: tensor<3xf32>, %beta: tensor<3xf32>, %da: tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32> {
  %y, %mean, %var = mx.BatchNormTrain %x, %gamma, %beta {eps = 1.0e-5 : f64, fix_gamma = false} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  %a = mx.Activation %y {act_type = "sigmoid"} : tensor<2x3x4x4xf32>
  %g = mx.grad_elemwise %y, %da {fn = "unary.sigmoid"} : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  %dx, %dgamma, %dbeta = mx.BatchNormTrainGrad %g, %x, %gamma, %mean, %var {eps = 1.0e-5 : f64, fix_gamma = false} : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %dx : tensor<2x3x4x4xf32>
}
