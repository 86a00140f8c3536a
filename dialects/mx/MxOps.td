// SPDX-License-Identifier: Apache-2.0
// The mx dialect: MXNet's operators with MXNet's names, attributes and
// defaults, on statically shaped tensors with value semantics. Every op infers
// its result types (InferTypeOpInterface), so a frontend needs only the input
// shapes; constraints are numbered (C1, C2, ...) and the verifier branches and
// invalid.mlir cases carry the same tags.

#ifndef MXC_DIALECTS_MX_MXOPS_TD
#define MXC_DIALECTS_MX_MXOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Mx_Dialect : Dialect {
  let name = "mx";
  let cppNamespace = "::mxc::mx";
  let summary = "MXNet's operator set on value-semantic tensors";
  let description = [{
    Ops follow MXNet 1.x: the same names (where a family of MXNet ops differs
    only in a function, one op carries it as `op`), attribute names and
    defaults. Tensors are ranked with static shapes; results are inferred.
  }];
  // Attributes live in the attribute dictionary so that frontends can build
  // any op generically from its name and attributes.
  let usePropertiesForAttributes = 0;
  let useDefaultTypePrinterParser = 1;
}

def Mx_StringType : TypeDef<Mx_Dialect, "String"> {
  let mnemonic = "string";
  let summary = "a text string (ONNX's STRING elements)";
  let description = [{
    An element of a string tensor: UTF-8 text. Strings are only moved
    (forwarded to outputs) and converted to and from numbers by `mx.cast`;
    mxc-lower-strings turns them into 64-bit handles (the runtime's
    `const char *`) before the lowering to linalg.
  }];
}

// Float tensors with static shapes: the backend contract of this dialect.
def Mx_Tensor : TensorRankOf<[AnyFloat], [0, 1, 2, 3, 4, 5, 6, 7, 8]>;
// Float, integer (signless, read as signed, or unsigned: ui8 ... ui64) or
// boolean (i1) tensors: shape ops, arithmetic, casts.
def Mx_AnyTensor : TensorRankOf<[AnyFloat, AnySignlessInteger,
                                 AnyUnsignedInteger],
                                [0, 1, 2, 3, 4, 5, 6, 7, 8]>;
def Mx_StringTensor : TensorRankOf<[Mx_StringType], [0, 1, 2, 3, 4, 5, 6, 7, 8]>;
def Mx_IntTensor : TensorRankOf<[AnySignlessInteger], [0, 1, 2, 3, 4, 5, 6, 7, 8]>;
def Mx_BoolTensor : TensorRankOf<[I1], [0, 1, 2, 3, 4, 5, 6, 7, 8]>;

def Mx_I64Array : DefaultValuedAttr<DenseI64ArrayAttr, "{}">;

class Mx_Op<string mnemonic, list<Trait> traits = []>
    : Op<Mx_Dialect, mnemonic,
         !listconcat(traits, [Pure, InferTypeOpAdaptor])>;

//===----------------------------------------------------------------------===//
// Neural-network layers
//===----------------------------------------------------------------------===//

def Mx_FullyConnectedOp : Mx_Op<"FullyConnected"> {
  let summary = "dense layer: y = x W^T + b";
  let description = [{
    `weight` is (num_hidden, K). With `flatten` (default) the data is
    viewed as (d0, prod(d1..)), else the last axis is contracted.

    C1: weight is 2-D with dim 0 = num_hidden.
    C2: weight dim 1 = K, the contracted extent of data.
    C3: bias is present iff no_bias is false, and has shape (num_hidden).

    ```mlir
    %y = mx.FullyConnected %x, %w, %b {num_hidden = 10 : i64}
        : (tensor<1x64xf32>, tensor<10x64xf32>, tensor<10xf32>) -> tensor<1x10xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data, Mx_Tensor:$weight,
                   Optional<Mx_Tensor>:$bias, I64Attr:$num_hidden,
                   DefaultValuedAttr<BoolAttr, "false">:$no_bias,
                   DefaultValuedAttr<BoolAttr, "true">:$flatten);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = [{
    $data `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Mx_ConvolutionOp : Mx_Op<"Convolution"> {
  let summary = "N-D convolution (cross-correlation), NC[D]HW layout";
  let description = [{
    C1: data has rank 3 or 4 (1-D or 2-D convolution) and len(kernel) = rank-2.
    C2: stride, dilate and pad are empty (defaults 1, 1, 0) or len(kernel) long;
        stride and dilate are positive, pad non-negative.
    C3: num_group divides both the data channels and num_filter.
    C4: weight shape is (num_filter, C / num_group, kernel...).
    C5: bias is present iff no_bias is false, and has shape (num_filter).
    C6: the padded input is at least as large as the dilated kernel.

    ```mlir
    %y = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, num_filter = 16 : i64,
                                no_bias = true, pad = array<i64: 1, 1>}
        : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x32x32xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data, Mx_Tensor:$weight,
                   Optional<Mx_Tensor>:$bias, DenseI64ArrayAttr:$kernel,
                   Mx_I64Array:$stride, Mx_I64Array:$dilate, Mx_I64Array:$pad,
                   I64Attr:$num_filter,
                   DefaultValuedAttr<I64Attr, "1">:$num_group,
                   DefaultValuedAttr<BoolAttr, "false">:$no_bias);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = [{
    $data `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// Stride, dilation and padding with MXNet's defaults filled in.
    llvm::SmallVector<int64_t> getStrides();
    llvm::SmallVector<int64_t> getDilations();
    llvm::SmallVector<int64_t> getPadding();
  }];
}

def Mx_PoolingOp : Mx_Op<"Pooling"> {
  let summary = "max / avg / sum pooling, NC[D]HW layout";
  let description = [{
    Output extent per spatial axis, with the dilated kernel
    k' = (k - 1) * dilate + 1: valid = floor((x + 2p - k') / s) + 1,
    full = ceil((x + 2p - k') / s) + 1. With global_pool the kernel is the
    whole spatial extent (and stride 1, pad 0). Average pooling divides by the
    window size clipped to the padded input when count_include_pad, else by
    the number of valid input elements. Max pooling also takes integer
    tensors (padding never wins).

    C1: data has rank 3, 4 or 5; len(kernel) = rank-2 unless global_pool.
    C2: pool_type is max, avg or sum; pooling_convention is valid or full.
    C3: stride, dilate and pad are empty or len(kernel) long; stride and
        dilate positive; dilate other than 1 only for max pooling.
    C4: the padded input is at least as large as the dilated kernel.
    C5: data is float, or integer (not boolean) for max pooling.

    ```mlir
    %y = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>,
                        pool_type = "max"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, Mx_I64Array:$kernel,
                   DefaultValuedAttr<StrAttr, "\"max\"">:$pool_type,
                   Mx_I64Array:$stride, Mx_I64Array:$pad,
                   DefaultValuedAttr<BoolAttr, "false">:$global_pool,
                   DefaultValuedAttr<StrAttr, "\"valid\"">:$pooling_convention,
                   DefaultValuedAttr<BoolAttr, "true">:$count_include_pad,
                   Mx_I64Array:$dilate);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "$data attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// Kernel, stride, dilation and padding after global_pool and defaults.
    llvm::SmallVector<int64_t> getEffectiveKernel();
    llvm::SmallVector<int64_t> getStrides();
    llvm::SmallVector<int64_t> getDilations();
    llvm::SmallVector<int64_t> getPadding();
  }];
}

def Mx_ActivationOp : Mx_Op<"Activation"> {
  let summary = "elementwise activation function";
  let description = [{
    C1: act_type is relu, sigmoid, tanh, softrelu (log(1+e^x)) or softsign
        (x/(1+|x|)).

    ```mlir
    %y = mx.Activation %x {act_type = "relu"} : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data, StrAttr:$act_type);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = "$data attr-dict `:` type($data)";
}

def Mx_LeakyReLUOp : Mx_Op<"LeakyReLU"> {
  let summary = "leaky / elu / prelu / selu / gelu activations";
  let description = [{
    leaky: x > 0 ? x : slope*x; elu: x > 0 ? x : slope*(e^x - 1);
    prelu: x > 0 ? x : gamma[c]*x with gamma over axis 1; selu: the SELU
    constants; gelu: 0.5 x (1 + erf(x / sqrt 2)).

    C1: act_type is leaky, elu, prelu, selu or gelu.
    C2: gamma is present iff act_type is prelu, and is 1-D of the data's
        axis-1 extent (or of extent 1).

    ```mlir
    %y = mx.LeakyReLU %x {act_type = "leaky", slope = 0.1 : f64}
        : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data, Optional<Mx_Tensor>:$gamma,
                   DefaultValuedAttr<StrAttr, "\"leaky\"">:$act_type,
                   DefaultValuedAttr<F64Attr, "0.25">:$slope);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = [{
    $data (`,` $gamma^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Mx_BatchNormOp : Mx_Op<"BatchNorm"> {
  let summary = "batch normalization (inference uses the moving statistics)";
  let description = [{
    out = (x - mean) / sqrt(var + eps) * gamma + beta along `axis`; with
    fix_gamma, gamma is taken as 1.

    C1: axis is in [-rank, rank).
    C2: gamma, beta, moving_mean and moving_var are 1-D with the extent of
        the data's `axis`.

    ```mlir
    %y = mx.BatchNorm %x, %g, %b, %m, %v {eps = 1.0e-5 : f64}
        : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
           tensor<4xf32>) -> tensor<1x4x2x2xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data, Mx_Tensor:$gamma, Mx_Tensor:$beta,
                   Mx_Tensor:$moving_mean, Mx_Tensor:$moving_var,
                   DefaultValuedAttr<F64Attr, "1e-3">:$eps,
                   DefaultValuedAttr<F64Attr, "0.9">:$momentum,
                   DefaultValuedAttr<BoolAttr, "true">:$fix_gamma,
                   DefaultValuedAttr<BoolAttr, "false">:$use_global_stats,
                   DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_DropoutOp : Mx_Op<"Dropout"> {
  let summary = "dropout (the identity at inference)";
  let description = [{
    C1: p is in [0, 1).

    ```mlir
    %y = mx.Dropout %x {p = 0.5 : f64} : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data,
                   DefaultValuedAttr<F64Attr, "0.5">:$p);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = "$data attr-dict `:` type($data)";
}

def Mx_LRNOp : Mx_Op<"LRN"> {
  let summary = "local response normalization across channels";
  let description = [{
    out = x / (knorm + alpha / nsize * sum over nsize neighbouring channels
    of x^2) ^ beta.

    C1: data has rank 4 (NCHW).
    C2: nsize is positive and odd.

    ```mlir
    %y = mx.LRN %x {nsize = 5 : i64} : tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data,
                   DefaultValuedAttr<F64Attr, "1e-4">:$alpha,
                   DefaultValuedAttr<F64Attr, "0.75">:$beta,
                   DefaultValuedAttr<F64Attr, "2.0">:$knorm, I64Attr:$nsize);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = "$data attr-dict `:` type($data)";
}

def Mx_EmbeddingOp : Mx_Op<"Embedding"> {
  let summary = "row lookup: out[i..., :] = weight[data[i...], :]";
  let description = [{
    Ids are stored as floats (as in MXNet) and clipped to [0, input_dim).

    C1: weight has shape (input_dim, output_dim).

    ```mlir
    %y = mx.Embedding %ids, %w {input_dim = 10 : i64, output_dim = 4 : i64}
        : (tensor<2x3xf32>, tensor<10x4xf32>) -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data, Mx_Tensor:$weight, I64Attr:$input_dim,
                   I64Attr:$output_dim);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Losses and normalizations
//===----------------------------------------------------------------------===//

def Mx_SoftmaxOp : Mx_Op<"softmax"> {
  let summary = "softmax or log-softmax along an axis";
  let description = [{
    out = softmax(x / temperature) along `axis`; with `log`, its logarithm
    (MXNet's log_softmax).

    C1: axis is in [-rank, rank).
    C2: temperature is positive.

    ```mlir
    %y = mx.softmax %x {axis = -1 : i64} : tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<F64Attr, "1.0">:$temperature,
                   DefaultValuedAttr<BoolAttr, "false">:$log);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = "$data attr-dict `:` type($data)";
}

def Mx_SoftmaxOutputOp : Mx_Op<"SoftmaxOutput"> {
  let summary = "softmax with a cross-entropy loss head";
  let description = [{
    Forward: softmax over axis 1 (multi_output: per position; otherwise the
    data is viewed as (d0, prod(d1..)) unless preserve_shape, which uses the
    last axis). The label only matters for the gradient (training).

    C1: normalization is null, batch or valid.

    ```mlir
    %y = mx.SoftmaxOutput %x : (tensor<2x10xf32>) -> tensor<2x10xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data, Optional<Mx_Tensor>:$label,
                   DefaultValuedAttr<F64Attr, "1.0">:$grad_scale,
                   DefaultValuedAttr<F64Attr, "-1.0">:$ignore_label,
                   DefaultValuedAttr<BoolAttr, "false">:$multi_output,
                   DefaultValuedAttr<BoolAttr, "false">:$use_ignore,
                   DefaultValuedAttr<BoolAttr, "false">:$preserve_shape,
                   DefaultValuedAttr<StrAttr, "\"null\"">:$normalization);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = [{
    $data (`,` $label^)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise arithmetic
//===----------------------------------------------------------------------===//

def Mx_UnaryOp : Mx_Op<"unary"> {
  let summary = "unary math: MXNet's exp, log, sqrt, rsqrt, square, abs, ...";
  let description = [{
    C1: op is one of exp, log, sqrt, rsqrt, square, abs, negative,
        reciprocal, relu, sigmoid, tanh, softrelu, softsign, erf, sign, ceil,
        floor, round, sin, cos, tan, asin, acos, atan, sinh, cosh, asinh,
        acosh, atanh, log1p, expm1 (floats), or abs, negative, sign, square
        (integers), or not (booleans).

    ```mlir
    %y = mx.unary %x {op = "exp"} : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, StrAttr:$op);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "$data attr-dict `:` type($data)";
}

def Mx_ClipOp : Mx_Op<"clip"> {
  let summary = "clamps every element to [a_min, a_max]";
  let description = [{
    C1: a_min <= a_max.

    ```mlir
    %y = mx.clip %x {a_min = 0.0 : f64, a_max = 6.0 : f64} : tensor<4xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, F64Attr:$a_min, F64Attr:$a_max);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "$data attr-dict `:` type($data)";
}

def Mx_BinaryOp : Mx_Op<"binary"> {
  let summary = "binary arithmetic with NumPy broadcasting";
  let description = [{
    MXNet's elemwise_* (equal shapes), broadcast_* and _maximum-style ops.
    Shapes broadcast from the right as in NumPy.

    C1: op is add, sub, mul, div, maximum, minimum, power or mod; or and,
        or, xor on booleans; or shift_left, shift_right on integers (right
        shifts of unsigned values are logical; shifts by the bit width or
        more give 0, or -1 for negative signed values shifted right).
    C2: the operand shapes broadcast: aligned from the right, each pair of
        extents is equal or one of them is 1.
    C3: the element types are equal.

    ```mlir
    %z = mx.binary %x, %y {op = "add"}
        : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$lhs, Mx_AnyTensor:$rhs, StrAttr:$op);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_ScalarOp : Mx_Op<"scalar"> {
  let summary = "binary arithmetic with a scalar: MXNet's _*_scalar ops";
  let description = [{
    out = x op scalar, or scalar op x when `reverse` (_rminus_scalar,
    _rdiv_scalar, _rpower_scalar).

    C1: op is add, sub, mul, div, maximum, minimum, power or mod.

    ```mlir
    %y = mx.scalar %x {op = "mul", scalar = 2.0 : f64} : tensor<4xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, StrAttr:$op, F64Attr:$scalar,
                   DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "$data attr-dict `:` type($data)";
}

def Mx_BlockGradOp : Mx_Op<"BlockGrad"> {
  let summary = "identity that stops gradients";
  let description = [{
    ```mlir
    %y = mx.BlockGrad %x : tensor<4xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "$data attr-dict `:` type($data)";
}

//===----------------------------------------------------------------------===//
// Contractions and reductions
//===----------------------------------------------------------------------===//

def Mx_DotOp : Mx_Op<"dot"> {
  let summary = "matrix product of 2-D tensors (dot) or batches (batch_dot)";
  let description = [{
    With `batch`, operands are 3-D and the product is per batch entry.

    C1: both operands are 2-D (3-D with batch).
    C2: the contracted extents agree (after transpose_a / transpose_b).
    C3: with batch, the batch extents agree.

    ```mlir
    %z = mx.dot %a, %b {transpose_b = true}
        : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$lhs, Mx_Tensor:$rhs,
                   DefaultValuedAttr<BoolAttr, "false">:$transpose_a,
                   DefaultValuedAttr<BoolAttr, "false">:$transpose_b,
                   DefaultValuedAttr<BoolAttr, "false">:$batch);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_ReduceOp : Mx_Op<"reduce"> {
  let summary = "sum / mean / max / min over axes";
  let description = [{
    MXNet's sum, mean, max and min (and prod, l1, l2, sumsquare, logsumexp
    for ONNX's reductions). An empty `axis` reduces every axis
    (to shape (1,) without keepdims, as MXNet 1.x does);
    `exclude` reduces every axis not listed.

    C1: op is sum, mean, max, min, prod, l1, l2, sumsquare or logsumexp.
    C2: every axis is in [-rank, rank) and appears once.

    ```mlir
    %y = mx.reduce %x {op = "sum", axis = array<i64: 1>}
        : (tensor<2x3xf32>) -> tensor<2xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, StrAttr:$op, Mx_I64Array:$axis,
                   DefaultValuedAttr<BoolAttr, "false">:$keepdims,
                   DefaultValuedAttr<BoolAttr, "false">:$exclude);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "$data attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// Sorted, non-negative reduced axes.
    llvm::SmallVector<int64_t> getReducedAxes();
  }];
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def Mx_FlattenOp : Mx_Op<"Flatten"> {
  let summary = "collapses all axes but the first: (d0, prod(d1..))";
  let description = [{
    ```mlir
    %y = mx.Flatten %x : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "$data attr-dict `:` functional-type(operands, results)";
}

def Mx_ReshapeOp : Mx_Op<"Reshape"> {
  let summary = "reshape with MXNet's special codes 0, -1, -2, -3, -4";
  let description = [{
    0 copies an input extent, -1 infers one extent, -2 copies the rest, -3
    merges two input extents, -4 splits one into the next two values (one
    may be -1).

    C1: the codes are well formed (one -1 at most; -4 followed by two values).
    C2: the element count is preserved.

    ```mlir
    %y = mx.Reshape %x {shape = array<i64: 0, -1>}
        : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, DenseI64ArrayAttr:$shape,
                   DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "$data attr-dict `:` functional-type(operands, results)";
}

def Mx_TransposeOp : Mx_Op<"transpose"> {
  let summary = "permutes axes (reverses them when axes is empty)";
  let description = [{
    C1: axes is empty or a permutation of [0, rank).

    ```mlir
    %y = mx.transpose %x {axes = array<i64: 1, 0>}
        : (tensor<2x3xf32>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, Mx_I64Array:$axes);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "$data attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// The permutation with the default filled in.
    llvm::SmallVector<int64_t> getPermutation();
  }];
}

def Mx_ExpandDimsOp : Mx_Op<"expand_dims"> {
  let summary = "inserts an axis of extent 1";
  let description = [{
    C1: axis is in [-rank-1, rank].

    ```mlir
    %y = mx.expand_dims %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, I64Attr:$axis);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "$data attr-dict `:` functional-type(operands, results)";
}

def Mx_SqueezeOp : Mx_Op<"squeeze"> {
  let summary = "removes axes of extent 1 (all of them when axis is empty)";
  let description = [{
    C1: every listed axis is in [-rank, rank) and has extent 1.

    ```mlir
    %y = mx.squeeze %x : (tensor<2x1x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, Mx_I64Array:$axis);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "$data attr-dict `:` functional-type(operands, results)";
}

def Mx_ConcatOp : Mx_Op<"Concat"> {
  let summary = "joins tensors along `dim`";
  let description = [{
    C1: at least one operand; all have the same rank and element type.
    C2: dim is in [-rank, rank).
    C3: extents off `dim` agree.

    ```mlir
    %y = mx.Concat %a, %b {dim = 1 : i64}
        : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x7xf32>
    ```
  }];
  let arguments = (ins Variadic<Mx_AnyTensor>:$inputs,
                   DefaultValuedAttr<I64Attr, "1">:$dim);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
}

def Mx_SliceOp : Mx_Op<"slice"> {
  let summary = "strided slice with Python semantics on the leading axes";
  let description = [{
    begin/end/step follow Python slicing per axis (negative indices count
    from the end, out-of-range bounds clamp); axes past len(begin) are kept
    whole. An empty `step` means 1. Frontends resolve MXNet's None bounds.

    C1: len(end) = len(begin) <= rank; step is empty or as long.
    C2: no step is 0.

    ```mlir
    %y = mx.slice %x {begin = array<i64: 0, 1>, end = array<i64: 2, 3>}
        : (tensor<4x4xf32>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, DenseI64ArrayAttr:$begin,
                   DenseI64ArrayAttr:$end, Mx_I64Array:$step);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "$data attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// Per axis of the data: the first index, the step and the count taken.
    void getNormalized(llvm::SmallVectorImpl<int64_t> &starts,
                       llvm::SmallVectorImpl<int64_t> &steps,
                       llvm::SmallVectorImpl<int64_t> &counts);
  }];
}

def Mx_SliceChannelOp : Mx_Op<"SliceChannel"> {
  let summary = "splits a tensor into num_outputs equal parts along axis";
  let description = [{
    C1: axis is in [-rank, rank) and num_outputs divides its extent.
    C2: squeeze_axis needs parts of extent 1.
    C3: there are num_outputs results.

    ```mlir
    %a, %b = mx.SliceChannel %x {num_outputs = 2 : i64}
        : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, I64Attr:$num_outputs,
                   DefaultValuedAttr<I64Attr, "1">:$axis,
                   DefaultValuedAttr<BoolAttr, "false">:$squeeze_axis);
  let results = (outs Variadic<Mx_AnyTensor>:$outputs);
  let assemblyFormat = "$data attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Ops beyond MXNet's set, for ONNX (integer and boolean tensors included)
//===----------------------------------------------------------------------===//

def Mx_CompareOp : Mx_Op<"compare"> {
  let summary = "elementwise comparison with broadcasting, giving booleans";
  let description = [{
    C1: op is equal, not_equal, greater, greater_equal, less or less_equal.
    C2: the operand shapes broadcast (as mx.binary).
    C3: the element types are equal.

    ```mlir
    %b = mx.compare %x, %y {op = "less"}
        : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$lhs, Mx_AnyTensor:$rhs, StrAttr:$op);
  let results = (outs Mx_BoolTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_CastOp : Mx_Op<"cast"> {
  let summary = "converts every element to another element type";
  let description = [{
    Floats to integers truncate toward zero; to booleans, nonzero is true.

    Numbers convert to strings in their shortest round-trip decimal form
    (NumPy's: positional for 1e-4 <= |x| < 1e16, else scientific; "NaN",
    "INF", "-INF"); strings to numbers parse decimal or scientific text and
    ONNX's case-insensitive "NaN", "INF", "+INF" and "-INF" (an unparsable
    string fails the call).

    C1: `to` is a float, integer (incl. i1) or string element type.

    ```mlir
    %y = mx.cast %x {to = i64} : (tensor<4xf32>) -> tensor<4xi64>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Mx_AnyTensor, Mx_StringTensor]>:$data,
                   TypeAttr:$to);
  let results = (outs AnyTypeOf<[Mx_AnyTensor, Mx_StringTensor]>:$output);
  let assemblyFormat = "$data attr-dict `:` functional-type(operands, results)";
}

def Mx_WhereOp : Mx_Op<"where"> {
  let summary = "picks x where cond is true, else y (with broadcasting)";
  let description = [{
    C1: the three shapes broadcast together.
    C2: x and y have the same element type.

    ```mlir
    %z = mx.where %c, %x, %y
        : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Mx_BoolTensor:$cond, Mx_AnyTensor:$x, Mx_AnyTensor:$y);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_FmaOp : Mx_Op<"fma"> {
  let summary = "x * y + z rounded once (a fused multiply-add), with "
                "broadcasting";
  let description = [{
    C1: the three shapes broadcast together.
    C2: x, y and z have one float element type.

    The product is not rounded before the addition (math.fma): ONNX
    Runtime's quantized additions compute so, and their results depend on
    it.

    ```mlir
    %r = mx.fma %a, %s, %b
        : (tensor<2x3xf32>, tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$x, Mx_AnyTensor:$y, Mx_AnyTensor:$z);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_GatherOp : Mx_Op<"gather"> {
  let summary = "takes slices of data along axis at integer indices";
  let description = [{
    out shape = data.shape[:axis] + indices.shape + data.shape[axis+1:];
    negative indices count from the end (ONNX Gather, MXNet take).

    C1: axis is in [-rank, rank).

    ```mlir
    %y = mx.gather %x, %i {axis = 0 : i64}
        : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, Mx_IntTensor:$indices,
                   DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_PadOp : Mx_Op<"pad"> {
  let summary = "pads every axis: constant, reflect or edge";
  let description = [{
    `pads` holds the count before each axis, then after each axis (ONNX
    order); negative counts crop.

    C1: len(pads) = 2 * rank.
    C2: mode is constant, reflect or edge.
    C3: every resulting extent is non-negative; reflect needs pads smaller
        than the extent.

    ```mlir
    %y = mx.pad %x {pads = array<i64: 0, 1, 0, 1>}
        : (tensor<2x3xf32>) -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, DenseI64ArrayAttr:$pads,
                   DefaultValuedAttr<StrAttr, "\"constant\"">:$mode,
                   DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "$data attr-dict `:` functional-type(operands, results)";
}

def Mx_BroadcastToOp : Mx_Op<"broadcast_to"> {
  let summary = "broadcasts to a shape (MXNet broadcast_to, ONNX Expand)";
  let description = [{
    C1: the data shape broadcasts to `shape` (aligned from the right, each
        data extent equals the target's or is 1).

    ```mlir
    %y = mx.broadcast_to %x {shape = array<i64: 4, 3>}
        : (tensor<1x3xf32>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, DenseI64ArrayAttr:$shape);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "$data attr-dict `:` functional-type(operands, results)";
}

def Mx_MatMulOp : Mx_Op<"matmul"> {
  let summary = "NumPy matmul: batched, broadcasting, 1-D promotion";
  let description = [{
    1-D operands are promoted (a row for lhs, a column for rhs) and the
    promoted axis removed from the result; batch axes broadcast.

    C1: both operands have rank >= 1 and equal element types.
    C2: the contracted extents agree.
    C3: the batch axes broadcast.

    ```mlir
    %z = mx.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$lhs, Mx_AnyTensor:$rhs);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_ArgReduceOp : Mx_Op<"argreduce"> {
  let summary = "index of the max / min along an axis (int64)";
  let description = [{
    Ties resolve to the first index, or the last with select_last_index.

    C1: op is max or min.
    C2: axis is in [-rank, rank).

    ```mlir
    %i = mx.argreduce %x {op = "max", axis = 1 : i64}
        : (tensor<2x5xf32>) -> tensor<2xi64>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, StrAttr:$op,
                   DefaultValuedAttr<I64Attr, "0">:$axis,
                   DefaultValuedAttr<BoolAttr, "false">:$keepdims,
                   DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs Mx_IntTensor:$output);
  let assemblyFormat = "$data attr-dict `:` functional-type(operands, results)";
}

def Mx_LayerNormOp : Mx_Op<"LayerNorm"> {
  let summary = "layer normalization along one axis (MXNet LayerNorm)";
  let description = [{
    out = (x - mean) / sqrt(var + eps) * gamma + beta, statistics over
    `axis`; gamma and beta are 1-D with that axis's extent.

    C1: axis is in [-rank, rank).
    C2: gamma and beta have shape (extent of axis,).

    ```mlir
    %y = mx.LayerNorm %x, %g, %b {axis = -1 : i64}
        : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data, Mx_Tensor:$gamma, Mx_Tensor:$beta,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_DeconvolutionOp : Mx_Op<"Deconvolution"> {
  let summary = "transposed convolution (MXNet Deconvolution, ONNX ConvTranspose)";
  let description = [{
    Output extent per spatial axis: (x - 1) * stride - 2 * pad +
    dilate * (kernel - 1) + adj + 1.

    C1: data has rank 3 or 4 and len(kernel) = rank - 2.
    C2: stride, dilate, pad, adj are empty or len(kernel) long; adj < stride.
    C3: num_group divides the data channels and num_filter.
    C4: weight shape is (C, num_filter / num_group, kernel...).
    C5: bias is present iff no_bias is false, and has shape (num_filter).
    C6: every output extent is positive.

    ```mlir
    %y = mx.Deconvolution %x, %w {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>,
                                  num_filter = 4 : i64, no_bias = true}
        : (tensor<1x3x4x4xf32>, tensor<3x4x2x2xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Mx_Tensor:$data, Mx_Tensor:$weight,
                   Optional<Mx_Tensor>:$bias, DenseI64ArrayAttr:$kernel,
                   Mx_I64Array:$stride, Mx_I64Array:$dilate, Mx_I64Array:$pad,
                   Mx_I64Array:$adj, I64Attr:$num_filter,
                   DefaultValuedAttr<I64Attr, "1">:$num_group,
                   DefaultValuedAttr<BoolAttr, "false">:$no_bias);
  let results = (outs Mx_Tensor:$output);
  let assemblyFormat = [{
    $data `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

// Training: loss heads and backward ops.
include "MxGradOps.td"

// ONNX only: element gathers and scatters, GatherND, CumSum, Trilu.
include "MxOnnxOps.td"

// Calls into the runtime's CPU kernels, made by the lowering.
include "MxKernelOps.td"

#endif // MXC_DIALECTS_MX_MXOPS_TD
