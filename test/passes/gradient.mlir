// RUN: %mxc-opt --split-input-file --mxc-gradient %s | FileCheck %s
// --mxc-gradient adds @forward_grad: the forward's results, then one
// gradient per parameter (mx.param arguments), built op by op in reverse.

// FullyConnected into SoftmaxOutput: the loss head gives softmax - one_hot,
// the dense layer turns it into dW (dot, transpose_a) and db (reduce sum);
// the data and label get no gradient.
// CHECK-LABEL: func.func @forward_grad(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x3xf32>, %[[W:[a-z0-9]+]]: tensor<4x3xf32> {mx.param}, %[[B:[a-z0-9]+]]: tensor<4xf32> {mx.param}, %[[L:[a-z0-9]+]]: tensor<2xf32>)
// CHECK:         %[[H:.*]] = mx.FullyConnected %[[X]], %[[W]], %[[B]]
// CHECK:         %[[Y:.*]] = mx.SoftmaxOutput %[[H]], %[[L]]
// CHECK:         %[[DH:.*]] = mx.SoftmaxOutputGrad %[[Y]], %[[L]]
// CHECK:         %[[DW:.*]] = mx.dot %[[DH]], %[[X]] {transpose_a = true}
// CHECK:         %[[DB:.*]] = mx.reduce %[[DH]] {axis = array<i64: 0>, op = "sum"}
// CHECK:         return %[[Y]], %[[DW]], %[[DB]]
func.func @forward(%x: tensor<2x3xf32>, %w: tensor<4x3xf32> {mx.param}, %b: tensor<4xf32> {mx.param}, %label: tensor<2xf32>) -> tensor<2x4xf32> {
  %h = mx.FullyConnected %x, %w, %b {num_hidden = 4 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %y = mx.SoftmaxOutput %h, %label : (tensor<2x4xf32>, tensor<2xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// A value with two consumers: both gradients reach %x and are summed.
// CHECK-LABEL: func.func @forward_grad(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<3xf32> {mx.param})
// CHECK:         %[[ONE:.*]] = mx.grad_elemwise %{{.*}} {alpha = 1.000000e+00 : f64, fn = "fill"}
// CHECK-DAG:     %[[G1:.*]] = mx.grad_elemwise %[[X]], %{{.*}} {fn = "unary.exp"}
// CHECK-DAG:     %[[G2:.*]] = mx.grad_elemwise %[[X]], %{{.*}} {fn = "unary.tanh"}
// CHECK:         %[[SUM:.*]] = mx.binary %{{.*}}, %{{.*}} {op = "add"}
// CHECK:         return %{{.*}}, %[[SUM]]
func.func @forward(%x: tensor<3xf32> {mx.param}) -> tensor<3xf32> {
  %a = mx.unary %x {op = "exp"} : tensor<3xf32>
  %b = mx.unary %x {op = "tanh"} : tensor<3xf32>
  %y = mx.binary %a, %b {op = "add"} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// BlockGrad stops the walk: only the direct path through mul reaches %x.
// CHECK-LABEL: func.func @forward_grad(
// CHECK:         %[[E:.*]] = mx.unary %{{.*}} {op = "exp"}
// CHECK:         %[[S:.*]] = mx.BlockGrad %[[E]]
// CHECK-NOT:     fn = "unary.exp"
// CHECK:         %[[D:.*]] = mx.binary %{{.*}}, %[[S]] {op = "mul"}
// CHECK-NOT:     mx.binary {{.*}} {op = "add"}
// CHECK:         return %{{.*}}, %[[D]]
func.func @forward(%x: tensor<3xf32> {mx.param}) -> tensor<3xf32> {
  %e = mx.unary %x {op = "exp"} : tensor<3xf32>
  %s = mx.BlockGrad %e : tensor<3xf32>
  %y = mx.binary %s, %x {op = "mul"} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// Broadcast add: the (3) operand's gradient is summed over the broadcast
// axis and reshaped back; the (2x3) operand takes the gradient as it is.
// CHECK-LABEL: func.func @forward_grad(
// CHECK:         %[[R:.*]] = mx.reduce %{{.*}} {axis = array<i64: 0>, keepdims = true, op = "sum"} : (tensor<2x3xf32>) -> tensor<1x3xf32>
// CHECK:         %[[V:.*]] = mx.Reshape %[[R]] {shape = array<i64: 3>} : (tensor<1x3xf32>) -> tensor<3xf32>
// CHECK:         return %{{.*}}, %{{.*}}, %[[V]]
func.func @forward(%a: tensor<2x3xf32> {mx.param}, %b: tensor<3xf32> {mx.param}) -> tensor<2x3xf32> {
  %y = mx.binary %a, %b {op = "add"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Must not fire: a module without @forward is left alone.
// CHECK-LABEL: func.func @predict(
// CHECK-NOT:   forward_grad
func.func @predict(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// -----

// max_pool_with_indices with column-major indices: the gradient recomputes
// row-major ones and scatter-adds dy at them into a flat zero tensor. The
// integer indices output gets no zero gradient (a float-only fill would not
// verify).
// CHECK-LABEL: func.func @forward_grad(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<1x1x3x2xf32> {mx.param})
// CHECK:         %[[Y:[a-z0-9_]+]], %{{.*}} = mx.max_pool_with_indices %[[X]] {kernel = array<i64: 2, 2>, storage_order = 1 : i64}
// CHECK:         %[[DY:.*]] = mx.grad_elemwise %[[Y]] {alpha = 1.000000e+00 : f64, fn = "fill"}
// CHECK:         %{{.*}}, %[[I:[a-z0-9_]+]] = mx.max_pool_with_indices %[[X]] {kernel = array<i64: 2, 2>} :
// CHECK:         %[[Z:.*]] = mx.grad_elemwise %[[X]] {fn = "fill"}
// CHECK:         %[[ZF:.*]] = mx.Reshape %[[Z]] {shape = array<i64: 6>}
// CHECK:         %[[IF:.*]] = mx.Reshape %[[I]] {shape = array<i64: 2>}
// CHECK:         %[[DYF:.*]] = mx.Reshape %[[DY]] {shape = array<i64: 2>}
// CHECK:         %[[DXF:.*]] = mx.scatter_elements %[[ZF]], %[[IF]], %[[DYF]] {reduction = "add"}
// CHECK:         %[[DX:.*]] = mx.Reshape %[[DXF]] {shape = array<i64: 1, 1, 3, 2>}
// CHECK:         return %[[Y]], %[[DX]]
func.func @forward(%x: tensor<1x1x3x2xf32> {mx.param}) -> tensor<1x1x2x1xf32> {
  %y, %i = mx.max_pool_with_indices %x {kernel = array<i64: 2, 2>, storage_order = 1 : i64} : (tensor<1x1x3x2xf32>) -> (tensor<1x1x2x1xf32>, tensor<1x1x2x1xi64>)
  return %y : tensor<1x1x2x1xf32>
}
