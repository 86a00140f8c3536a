// SPDX-License-Identifier: Apache-2.0
// mxc-train-step with a float64 parameter: the float32 learning rate is
// cast to float64 before it meets the parameter's gradient (it used to
// abort: "operand element types differ"), for every optimizer; Adam's
// step-size correction is computed in float32 and cast as a whole.
// RUN: %mxc-opt --mxc-gradient --mxc-train-step='optimizer=momentum wd=0.5' %s | FileCheck %s
// RUN: %mxc-opt --mxc-gradient --mxc-train-step='optimizer=sgd' %s | FileCheck %s
// RUN: %mxc-opt --mxc-gradient --mxc-train-step='optimizer=rmsprop' %s | FileCheck %s
// RUN: %mxc-opt --mxc-gradient --mxc-train-step='optimizer=adam' %s | FileCheck %s --check-prefix=ADAM

// CHECK-LABEL: func.func @train_step(
// CHECK-SAME:    %[[LR:[a-z0-9]+]]: tensor<f32> {mx.name = "learning_rate"}, %[[X:[a-z0-9]+]]: tensor<3x4xf64> {mx.name = "x", mx.param}
// CHECK:         %[[LR64:.*]] = mx.cast %[[LR]] {to = f64} : (tensor<f32>) -> tensor<f64>
// CHECK:         mx.binary %{{.*}}, %[[LR64]] {op = "mul"} : (tensor<3x4xf64>, tensor<f64>) -> tensor<3x4xf64>
// CHECK:         return
// ADAM-LABEL: func.func @train_step(
// ADAM-SAME:    %[[LR:[a-z0-9]+]]: tensor<f32> {mx.name = "learning_rate"}
// ADAM:         %[[C:.*]] = mx.binary {{.*}} {op = "div"} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// ADAM:         %[[C64:.*]] = mx.cast %[[C]] {to = f64} : (tensor<f32>) -> tensor<f64>
// ADAM:         mx.binary %{{.*}}, %[[C64]] {op = "mul"} : (tensor<3x4xf64>, tensor<f64>) -> tensor<3x4xf64>
// ADAM:         return
func.func @forward(%x: tensor<3x4xf64> {mx.name = "x", mx.param}) -> (tensor<3x4xf64>) {
  %s = mx.unary %x {op = "square"} : tensor<3x4xf64>
  %y = mx.MakeLoss %s {grad_scale = 1.0 : f64} : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
