// SPDX-License-Identifier: Apache-2.0
// Training ops of the mx dialect: MXNet's loss heads beyond SoftmaxOutput,
// and the backward ops the gradient pass emits where a gradient is no
// composition of forward ops (MXNet's _backward_* operators). Included at
// the end of MxOps.td; inference lives in MxGradOps.cpp.
#ifndef MXC_DIALECTS_MX_MXGRADOPS_TD
#define MXC_DIALECTS_MX_MXGRADOPS_TD

//===----------------------------------------------------------------------===//
// Loss heads
//===----------------------------------------------------------------------===//

def Mx_LinearRegressionOutputOp : Mx_Op<"LinearRegressionOutput"> {
  let summary = "identity with a squared-error loss head";
  let description = [{
    Forward: out = data. Gradient: (out - label) * grad_scale / num_output,
    num_output = label.size / label.shape[0] (MXNet's regression_output).

    C1: the label has the data's element count.

    ```mlir
    %y = mx.LinearRegressionOutput %x, %l : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data, Optional<Mx_Tensor>:$label,
                   DefaultValuedAttr<F64Attr, "1.0">:$grad_scale);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = [{
    $data (`,` $label^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Mx_LogisticRegressionOutputOp : Mx_Op<"LogisticRegressionOutput"> {
  let summary = "sigmoid with a logistic (binary cross-entropy) loss head";
  let description = [{
    Forward: out = sigmoid(data). Gradient: (out - label) * grad_scale /
    num_output.

    C1: the label has the data's element count.

    ```mlir
    %y = mx.LogisticRegressionOutput %x, %l : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data, Optional<Mx_Tensor>:$label,
                   DefaultValuedAttr<F64Attr, "1.0">:$grad_scale);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = [{
    $data (`,` $label^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Mx_MAERegressionOutputOp : Mx_Op<"MAERegressionOutput"> {
  let summary = "identity with an absolute-error (L1) loss head";
  let description = [{
    Forward: out = data. Gradient: sign(out - label) * grad_scale /
    num_output.

    C1: the label has the data's element count.

    ```mlir
    %y = mx.MAERegressionOutput %x, %l : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data, Optional<Mx_Tensor>:$label,
                   DefaultValuedAttr<F64Attr, "1.0">:$grad_scale);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = [{
    $data (`,` $label^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Mx_MakeLossOp : Mx_Op<"MakeLoss"> {
  let summary = "marks a value as a loss: identity whose gradient is grad_scale";
  let description = [{
    Forward: out = data. Gradient: grad_scale, divided by the batch size
    (normalization = batch) or by the count of elements above valid_thresh
    (valid), as MXNet's MakeLoss.

    C1: normalization is null, batch or valid.

    ```mlir
    %l = mx.MakeLoss %x {grad_scale = 1.0 : f64} : tensor<4xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data,
                   DefaultValuedAttr<F64Attr, "1.0">:$grad_scale,
                   DefaultValuedAttr<F64Attr, "0.0">:$valid_thresh,
                   DefaultValuedAttr<StrAttr, "\"null\"">:$normalization);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = "$data attr-dict `:` type($data)";
}

//===----------------------------------------------------------------------===//
// Backward ops
//===----------------------------------------------------------------------===//

def Mx_GradElemwiseOp : Mx_Op<"grad_elemwise"> {
  let summary = "elementwise backward formula with broadcasting";
  let description = [{
    The pointwise part of a backward op: out = fn(inputs...) elementwise, the
    inputs broadcast NumPy-style to a common shape. `fn` names the
    derivative, e.g. `Activation.relu` (x, dy -> dy * (x > 0)),
    `binary.div.rhs` (a, b, dy -> -dy * a / b^2), `eq_select` (x, y, dy ->
    x == y ? dy : 0), `fill` (x -> alpha). `alpha` and `beta` carry the
    forward op's scalars (slope, a_min / a_max, the scalar operand).

    C1: one to three inputs of one element type, whose shapes broadcast.
    C2: fn is a known derivative with that many inputs.

    ```mlir
    %dx = mx.grad_elemwise %x, %dy {fn = "Activation.relu"}
        : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Variadic<Mx_Tensor>:$inputs, StrAttr:$fn,
                   DefaultValuedAttr<F64Attr, "0.0">:$alpha,
                   DefaultValuedAttr<F64Attr, "0.0">:$beta);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
}

def Mx_DropoutMaskOp : Mx_Op<"dropout_mask"> {
  let summary = "seeded random dropout mask (training)";
  let description = [{
    A tensor of `like`'s type (whose values are not read): each element is
    1 / (1 - p) with probability 1 - p, else 0. Element i's draw is a
    counter-based hash (splitmix64) of (seed, counter, i), so a counter value
    always gives the same mask; the train step advances the counter, a state
    of the model instance.

    C1: p is in [0, 1).

    ```mlir
    %m = mx.dropout_mask %x, %counter {p = 0.5 : f64, seed = 3 : i64}
        : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$like, 0DTensorOf<[I64]>:$counter,
                   DefaultValuedAttr<F64Attr, "0.5">:$p,
                   DefaultValuedAttr<I64Attr, "0">:$seed);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = "$like `,` $counter attr-dict `:` functional-type(operands, results)";
}

def Mx_BatchNormTrainOp : Mx_Op<"BatchNormTrain"> {
  let summary = "batch normalization with the batch's own statistics";
  let description = [{
    BatchNorm in training mode (what the gradient pass makes of one): mean
    and var are the mean and the population variance over every axis but
    `axis`, and output = (data - mean) / sqrt(var + eps) * gamma + beta
    (gamma taken as 1 with fix_gamma). Its gradient is one
    BatchNormTrainGrad.

    C1: axis is in [-rank, rank); gamma and beta are 1-D with its extent.

    ```mlir
    %y, %mean, %var = mx.BatchNormTrain %x, %g, %b {eps = 1.0e-5 : f64}
        : (tensor<8x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>)
        -> (tensor<8x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>)
    ```
  }];
  let arguments = (ins Mx_Tensor:$data, Mx_Tensor:$gamma, Mx_Tensor:$beta,
                   DefaultValuedAttr<F64Attr, "1e-3">:$eps,
                   DefaultValuedAttr<BoolAttr, "true">:$fix_gamma,
                   DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Mx_Tensor:$output, Mx_Tensor:$mean, Mx_Tensor:$var);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_BatchNormTrainGradOp : Mx_Op<"BatchNormTrainGrad"> {
  let summary = "gradients of BatchNormTrain's data, gamma and beta";
  let description = [{
    With xhat = (data - mean) / sqrt(var + eps), M the elements per channel
    and the sums over every axis but `axis`: beta_grad = sum(dy),
    gamma_grad = sum(dy * xhat) (0 with fix_gamma) and data_grad = gamma /
    sqrt(var + eps) * (dy - beta_grad / M - xhat * sum(dy * xhat) / M).

    With `relu_out` (and the forward's beta as a sixth operand), out_grad
    is the gradient of ReLU(BatchNormTrain's output) instead, and dy is
    out_grad where that output, recomputed from data as BatchNormTrain
    computes it (data * scale + shift), is positive, else 0: the ReLU's
    gradient folded in (mxc-relu-into-batchnorm-grad), so that neither the
    masked gradient nor the ReLU's output is read or written.

    C1: as BatchNormTrain's; mean and var (and beta) are 1-D with the
    axis's extent; beta is given exactly when relu_out is set.
  }];
  let arguments = (ins Mx_Tensor:$out_grad, Mx_Tensor:$data, Mx_Tensor:$gamma,
                   Mx_Tensor:$mean, Mx_Tensor:$var,
                   Optional<Mx_Tensor>:$beta,
                   DefaultValuedAttr<F64Attr, "1e-3">:$eps,
                   DefaultValuedAttr<BoolAttr, "true">:$fix_gamma,
                   DefaultValuedAttr<I64Attr, "1">:$axis,
                   UnitAttr:$relu_out);
  let results = (outs Mx_Tensor:$data_grad, Mx_Tensor:$gamma_grad,
                      Mx_Tensor:$beta_grad);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_PoolingGradOp : Mx_Op<"PoolingGrad"> {
  let summary = "backward of Pooling (MXNet _backward_Pooling)";
  let description = [{
    Gradient of the pooling input given the input, the output and the output
    gradient: max pooling routes each output gradient to the window elements
    equal to the window's maximum; avg / sum spread it over the window,
    divided as the forward divided. The attributes are the forward's; an
    empty `dilate` means 1 on every spatial axis.

    C1: the forward attributes are valid for data and give output's shape.
    C2: out_grad has the output's type.
    C3: dilate is empty or one value >= 1 per spatial axis, other than 1
        only for max pooling (as Pooling's C3).

    ```mlir
    %dx = mx.PoolingGrad %x, %y, %dy {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>}
        : (tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data, Mx_Tensor:$output, Mx_Tensor:$out_grad,
                   Mx_I64Array:$kernel,
                   DefaultValuedAttr<StrAttr, "\"max\"">:$pool_type,
                   Mx_I64Array:$stride, Mx_I64Array:$dilate, Mx_I64Array:$pad,
                   DefaultValuedAttr<BoolAttr, "false">:$global_pool,
                   DefaultValuedAttr<StrAttr, "\"valid\"">:$pooling_convention,
                   DefaultValuedAttr<BoolAttr, "true">:$count_include_pad);
  let results = (outs Mx_Tensor:$data_grad);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_ConvolutionGradDataOp : Mx_Op<"ConvolutionGradData"> {
  let summary = "gradient of a Convolution's input";
  let description = [{
    dx[n, c, x] = sum over f in c's group and k with x + pad = o*stride +
    k*dilate of dy[n, f, o] * w[f, c, k]: a transposed convolution whose
    output has `data_shape` (so rows the forward skipped get zeros).

    C1: out_grad and weight have the shapes Convolution gives for data_shape.

    ```mlir
    %dx = mx.ConvolutionGradData %dy, %w {kernel = array<i64: 3, 3>, num_filter = 4 : i64,
                                          data_shape = array<i64: 1, 2, 5, 5>}
        : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x5x5xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$out_grad, Mx_Tensor:$weight,
                   DenseI64ArrayAttr:$kernel, Mx_I64Array:$stride,
                   Mx_I64Array:$dilate, Mx_I64Array:$pad, I64Attr:$num_filter,
                   DefaultValuedAttr<I64Attr, "1">:$num_group,
                   DenseI64ArrayAttr:$data_shape);
  let results = (outs Mx_Tensor:$data_grad);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_ConvolutionGradWeightOp : Mx_Op<"ConvolutionGradWeight"> {
  let summary = "gradient of a Convolution's weight";
  let description = [{
    dw[f, c, k] = sum over n, o of dy[n, f, o] * xpad[n, g*C/G + c,
    o*stride + k*dilate], g = f's group.

    C1: out_grad has the shape Convolution gives for data.

    ```mlir
    %dw = mx.ConvolutionGradWeight %x, %dy {kernel = array<i64: 3, 3>, num_filter = 4 : i64}
        : (tensor<1x2x5x5xf32>, tensor<1x4x3x3xf32>) -> tensor<4x2x3x3xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data, Mx_Tensor:$out_grad,
                   DenseI64ArrayAttr:$kernel, Mx_I64Array:$stride,
                   Mx_I64Array:$dilate, Mx_I64Array:$pad, I64Attr:$num_filter,
                   DefaultValuedAttr<I64Attr, "1">:$num_group);
  let results = (outs Mx_Tensor:$weight_grad);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_SoftmaxOutputGradOp : Mx_Op<"SoftmaxOutputGrad"> {
  let summary = "gradient of SoftmaxOutput: (softmax - one_hot(label)) * scale";
  let description = [{
    From SoftmaxOutput's output (the probabilities) and its label (float
    class ids, shape = output's without the class axis: axis 1 with
    multi_output, else the last). Positions whose label equals
    ignore_label get 0 when use_ignore; the result is multiplied by
    grad_scale and divided by 1 (null), the batch size (batch) or the count
    of non-ignored labels (valid).

    C1: label's shape is output's without the class axis.
    C2: normalization is null, batch or valid.

    ```mlir
    %dx = mx.SoftmaxOutputGrad %p, %l : (tensor<2x5xf32>, tensor<2xf32>) -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$output, Mx_Tensor:$label,
                   DefaultValuedAttr<F64Attr, "1.0">:$grad_scale,
                   DefaultValuedAttr<F64Attr, "-1.0">:$ignore_label,
                   DefaultValuedAttr<BoolAttr, "false">:$multi_output,
                   DefaultValuedAttr<BoolAttr, "false">:$use_ignore,
                   DefaultValuedAttr<StrAttr, "\"null\"">:$normalization);
  let results = (outs Mx_Tensor:$data_grad);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_EmbeddingGradOp : Mx_Op<"EmbeddingGrad"> {
  let summary = "gradient of an Embedding's weight: scatter-add of rows";
  let description = [{
    dw[v, :] = sum of out_grad[i..., :] over the positions whose (clipped)
    id is v.

    C1: out_grad's shape is data's followed by output_dim.

    ```mlir
    %dw = mx.EmbeddingGrad %ids, %dy {input_dim = 10 : i64, output_dim = 4 : i64}
        : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<10x4xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data, Mx_Tensor:$out_grad, I64Attr:$input_dim,
                   I64Attr:$output_dim);
  let results = (outs Mx_Tensor:$weight_grad);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_SliceGradOp : Mx_Op<"SliceGrad"> {
  let summary = "gradient of slice: out_grad placed into zeros of data_shape";
  let description = [{
    out = zeros(data_shape) with out[starts + i * steps] = out_grad[i] (the
    normalized slice of the forward).

    C1: starts and steps have one entry per axis; steps are positive.
    C2: the slice lies inside data_shape.

    ```mlir
    %dx = mx.SliceGrad %dy {data_shape = array<i64: 4>, starts = array<i64: 1>, steps = array<i64: 2>}
        : (tensor<2xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$out_grad, DenseI64ArrayAttr:$data_shape,
                   DenseI64ArrayAttr:$starts, DenseI64ArrayAttr:$steps);
  let results = (outs Mx_Tensor:$data_grad);
  let assemblyFormat = "$out_grad attr-dict `:` functional-type(operands, results)";
}

#endif // MXC_DIALECTS_MX_MXGRADOPS_TD
