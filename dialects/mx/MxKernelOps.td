// SPDX-License-Identifier: Apache-2.0
// Calls into the runtime's CPU kernels (runtime/include/mxrt/kernels.h):
// float32 contractions with fused epilogues, made by the mx -> linalg
// lowering and the epilogue fusion, bufferized like linalg ops (the result
// is written into `init`), and turned into calls by mxc-kernels-to-calls.
// They work on tensors (one result) and on memrefs (no result). Included at
// the end of MxOps.td; verifiers and bufferization live in MxKernelOps.cpp.
#ifndef MXC_DIALECTS_MX_MXKERNELOPS_TD
#define MXC_DIALECTS_MX_MXKERNELOPS_TD

include "mlir/Interfaces/DestinationStyleOpInterface.td"

def Mx_KernelOperand : AnyTypeOf<[RankedTensorOf<[F32]>, MemRefOf<[F32]>]>;

class Mx_KernelOp<string mnemonic>
    : Op<Mx_Dialect, mnemonic,
         [DestinationStyleOpInterface,
          DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  // BufferizableOpInterface: one external model for every kernel op
  // (KernelBufferization in MxKernelOps.cpp, attached with the dialect).
  let results = (outs Optional<RankedTensorOf<[F32]>>:$result);
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    mlir::MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    /// The runtime flags (MXRT_KERNEL_*) of the epilogue.
    int32_t getKernelFlags();
  }];
}

def Mx_MatmulKernelOp : Mx_KernelOp<"kernel.matmul"> {
  let summary = "init = epilogue(op(a) op(b) + bias), batched";
  let description = [{
    a is (M, K) or (B, M, K), or its last two axes swapped with transpose_a;
    b is (K, N) or (B, K, N), or swapped with transpose_b; init is (M, N) or
    (B, M, N), and a rank-2 operand is shared by every batch. bias, when
    present, broadcasts to init (right-aligned, extent-1 axes repeat). The
    result is op(a) op(b) + bias, plus init's old value when accumulate, and
    max(., 0) of that when relu.

    ```mlir
    %y = mx.kernel.matmul %x, %w, %bias into %init {transpose_b = true}
        : tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32> into tensor<2x4xf32>
        -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Mx_KernelOperand:$a, Mx_KernelOperand:$b,
                   Optional<Mx_KernelOperand>:$bias, Mx_KernelOperand:$init,
                   DefaultValuedAttr<BoolAttr, "false">:$transpose_a,
                   DefaultValuedAttr<BoolAttr, "false">:$transpose_b,
                   DefaultValuedAttr<BoolAttr, "false">:$accumulate,
                   DefaultValuedAttr<BoolAttr, "false">:$relu);
  let assemblyFormat = [{
    $a `,` $b (`,` $bias^)? `into` $init attr-dict `:` type($a) `,` type($b)
    (`,` type($bias)^)? `into` type($init) (`->` type($result)^)?
  }];
}

def Mx_Conv2DKernelOp : Mx_KernelOp<"kernel.conv2d"> {
  let summary = "init = epilogue(conv2d(x, weight) + bias), NCHW or NHWC";
  let description = [{
    x (N, C, H, W), weight (F, C / groups, KH, KW), bias (F), init
    (N, F, OH, OW) with OH = (H + pad_h + pad_after - dilation_h (KH - 1) - 1)
    / stride_h + 1 for some pad_after >= 0 (zeros), and likewise OW. Epilogue
    as kernel.matmul's. With nhwc, x is (N, H, W, C) and init (N, OH, OW, F),
    channels last (mxc-conv-layout); the weight keeps its layout. The
    epilogue operands are none, the bias, or the bias and a scale (F): then
    filter f's weights are taken times scale[f] (an inference BatchNorm
    folded in whose parameters are the instance's, see
    mxc-select-cpu-kernels; the scale must be made from parameters only).

    ```mlir
    %y = mx.kernel.conv2d %x, %w, %shift, %scale into %init {
        strides = array<i64: 1, 1>, pads = array<i64: 1, 1>,
        dilations = array<i64: 1, 1>} : tensor<1x8x6x6xf32>,
        tensor<4x8x3x3xf32>, tensor<4xf32>, tensor<4xf32>
        into tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
    ```
  }];
  let arguments = (ins Mx_KernelOperand:$x, Mx_KernelOperand:$weight,
                   Variadic<Mx_KernelOperand>:$epilogue, Mx_KernelOperand:$init,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations,
                   DefaultValuedAttr<I64Attr, "1">:$groups,
                   DefaultValuedAttr<BoolAttr, "false">:$accumulate,
                   DefaultValuedAttr<BoolAttr, "false">:$relu,
                   DefaultValuedAttr<BoolAttr, "false">:$nhwc);
  let assemblyFormat = [{
    $x `,` $weight (`,` $epilogue^)? `into` $init attr-dict `:` type($x) `,`
    type($weight) (`,` type($epilogue)^)? `into` type($init)
    (`->` type($result)^)?
  }];
  let extraClassDeclaration = [{
    mlir::MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    int32_t getKernelFlags();
    /// The per-filter bias and scale, or null.
    mlir::Value getBias() {
      return getEpilogue().empty() ? mlir::Value() : getEpilogue()[0];
    }
    mlir::Value getScale() {
      return getEpilogue().size() < 2 ? mlir::Value() : getEpilogue()[1];
    }
    /// The epilogue operands for a bias and a scale, either null.
    static llvm::SmallVector<mlir::Value, 2> epilogueOf(mlir::Value bias,
                                                        mlir::Value scale) {
      llvm::SmallVector<mlir::Value, 2> operands;
      if (bias)
        operands.push_back(bias);
      if (scale)
        operands.push_back(scale);
      return operands;
    }
  }];
}

def Mx_Conv2DGradKernelOp : Mx_KernelOp<"kernel.conv2d_grad"> {
  let summary = "init = a gradient of kernel.conv2d, NCHW or NHWC";
  let description = [{
    From dy (N, F, OH, OW) of a kernel.conv2d (x (N, C, H, W), weight
    (F, C / groups, KH, KW)): with wrt = "data", source is the weight and
    init (N, C, H, W) = the transposed convolution of dy, what x receives;
    with wrt = "weight", source is x and init (F, C / groups, KH, KW) = the
    sum over the batch and the output positions of dy times the window of x
    it came from. Plus init's old value when accumulate. With nhwc, x and
    dy are channels last, (N, H, W, C) and (N, OH, OW, F), as kernel.conv2d
    with nhwc; the weight keeps its layout.

    ```mlir
    %dx = mx.kernel.conv2d_grad %dy, %w into %init {wrt = "data",
        strides = array<i64: 1, 1>, pads = array<i64: 1, 1>,
        dilations = array<i64: 1, 1>} : tensor<8x16x32x32xf32>,
        tensor<16x3x3x3xf32> into tensor<8x3x32x32xf32> -> tensor<8x3x32x32xf32>
    ```
  }];
  let arguments = (ins Mx_KernelOperand:$dy, Mx_KernelOperand:$source,
                   Mx_KernelOperand:$init, StrAttr:$wrt,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations,
                   DefaultValuedAttr<I64Attr, "1">:$groups,
                   DefaultValuedAttr<BoolAttr, "false">:$accumulate,
                   DefaultValuedAttr<BoolAttr, "false">:$nhwc);
  let assemblyFormat = [{
    $dy `,` $source `into` $init attr-dict `:` type($dy) `,` type($source)
    `into` type($init) (`->` type($result)^)?
  }];
  let extraClassDeclaration = [{
    mlir::MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    int32_t getKernelFlags();
    /// The forward's x and weight (one of them is init).
    mlir::Value getX() { return getWrt() == "data" ? getInit() : getSource(); }
    mlir::Value getWeight() {
      return getWrt() == "data" ? getSource() : getInit();
    }
  }];
}

def Mx_Pool2DKernelOp : Mx_KernelOp<"kernel.pool2d"> {
  let summary = "init = epilogue(pool2d(x)), max, mean or sum, NCHW";
  let description = [{
    x (N, C, H, W), init (N, C, OH, OW): each output the maximum (pool_type
    "max"; NaN propagates), mean ("avg") or sum ("sum") of the window
    x[n, c, oy * stride_h - pad_h + ky, ox * stride_w - pad_w + kx], ky <
    kernel_h, kx < kernel_w, over the positions inside the input (padding
    never wins a maximum). The mean divides by the window clipped to the
    padded input when count_include_pad, else to the input (mx.Pooling's
    divisor). Epilogue as kernel.matmul's.

    ```mlir
    %y = mx.kernel.pool2d %x into %init {kernel = array<i64: 3, 3>,
        strides = array<i64: 2, 2>, pads = array<i64: 1, 1>,
        pool_type = "max"} : tensor<1x64x112x112xf32> into
        tensor<1x64x56x56xf32> -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Mx_KernelOperand:$x, Mx_KernelOperand:$init,
                   DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$pads,
                   DefaultValuedAttr<StrAttr, "\"max\"">:$pool_type,
                   DefaultValuedAttr<BoolAttr, "false">:$count_include_pad,
                   DefaultValuedAttr<BoolAttr, "false">:$accumulate,
                   DefaultValuedAttr<BoolAttr, "false">:$relu);
  let assemblyFormat = [{
    $x `into` $init attr-dict `:` type($x) `into` type($init)
    (`->` type($result)^)?
  }];
}

def Mx_Pool2DGradKernelOp : Mx_KernelOp<"kernel.pool2d_grad"> {
  let summary = "init = the gradient of kernel.pool2d's x, NCHW";
  let description = [{
    From kernel.pool2d's x (N, C, H, W), its output y and the output's
    gradient dy (N, C, OH, OW), init (N, C, H, W) = each dy sent to its
    window's taps inside the input: for "max" to the taps equal to y (all
    of them), for "avg" divided as the forward divided, for "sum" whole.
    Plus init's old value when accumulate.
  }];
  let arguments = (ins Mx_KernelOperand:$x, Mx_KernelOperand:$y,
                   Mx_KernelOperand:$dy, Mx_KernelOperand:$init,
                   DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$pads,
                   DefaultValuedAttr<StrAttr, "\"max\"">:$pool_type,
                   DefaultValuedAttr<BoolAttr, "false">:$count_include_pad,
                   DefaultValuedAttr<BoolAttr, "false">:$accumulate);
  let assemblyFormat = [{
    $x `,` $y `,` $dy `into` $init attr-dict `:` type($x) `,` type($y) `,`
    type($dy) `into` type($init) (`->` type($result)^)?
  }];
  let extraClassDeclaration = [{
    mlir::MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    int32_t getKernelFlags();
  }];
}

def Mx_AttentionKernelOp : Mx_KernelOp<"kernel.attention"> {
  let summary = "init = softmax(scale q k^T + mask) v per head";
  let description = [{
    Scaled dot-product attention, mxrt_kernel_sattention: q is (..., Sq, D),
    k (..., Sk, D) or with transpose_k (..., D, Sk), v (..., Sk, Dv) and
    init (..., Sq, Dv), all of rank 3 or 4 with the same leading extents
    (batch, or batch and heads); scale holds one element, by which the
    scores are multiplied (divided with divide); mask, when present, is
    added to the scores (-inf masks a key out) and broadcasts to
    (..., Sq, Sk). The softmax runs over the keys. The scores are never
    stored (mxc-select-cpu-kernels makes this op from the product, scale,
    mask, softmax and product of an exported attention).

    ```mlir
    %o = mx.kernel.attention %q, %kt, %v, %scale, %mask into %init
        {transpose_k = true, divide = true} : tensor<2x16x8xf32>,
        tensor<2x8x16xf32>, tensor<2x16x8xf32>, tensor<f32>,
        tensor<16x16xf32> into tensor<2x16x8xf32> -> tensor<2x16x8xf32>
    ```
  }];
  let arguments = (ins Mx_KernelOperand:$q, Mx_KernelOperand:$k,
                   Mx_KernelOperand:$v, Mx_KernelOperand:$scale,
                   Optional<Mx_KernelOperand>:$mask, Mx_KernelOperand:$init,
                   DefaultValuedAttr<BoolAttr, "false">:$transpose_k,
                   DefaultValuedAttr<BoolAttr, "false">:$divide);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $scale (`,` $mask^)? `into` $init attr-dict `:`
    type($q) `,` type($k) `,` type($v) `,` type($scale) (`,` type($mask)^)?
    `into` type($init) (`->` type($result)^)?
  }];
  let extraClassDeclaration = [{
    mlir::MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    int32_t getKernelFlags();
    /// Never adds to init (the kernel ops' bufferization asks).
    bool getAccumulate() { return false; }
  }];
}


def Mx_QMatmulKernelOp
    : Op<Mx_Dialect, "kernel.qmatmul",
         [DestinationStyleOpInterface,
          DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "init = (a - a_zero)(b - b_zero) in int32 (mxrt_kernel_qgemm_u8s8)";
  let description = [{
    The 8-bit integer product: a and b (M, K) and (K, N) ui8 or i8, init (M, N)
    i32; a_zero an i32 scalar, b_zero an i32 scalar or one per column ((N)
    or (1, N)). Exact. signed_a and unsigned_b say how to read a's and b's
    bytes (bufferization keeps their widths, not their signedness).

    ```mlir
    %y = mx.kernel.qmatmul %a, %za, %b, %zb into %init
        : tensor<2x8xui8>, tensor<i32>, tensor<8x4xi8>, tensor<4xi32>
        into tensor<2x4xi32> -> tensor<2x4xi32>
    ```
  }];
  let arguments = (ins AnyShaped:$a, AnyShaped:$a_zero, AnyShaped:$b,
                   AnyShaped:$b_zero, AnyShaped:$init,
                   DefaultValuedAttr<BoolAttr, "false">:$signed_a,
                   DefaultValuedAttr<BoolAttr, "false">:$unsigned_b);
  let results = (outs Optional<RankedTensorOf<[I32]>>:$result);
  let hasVerifier = 1;
  let assemblyFormat = [{
    $a `,` $a_zero `,` $b `,` $b_zero `into` $init attr-dict `:` type($a) `,`
    type($a_zero) `,` type($b) `,` type($b_zero) `into` type($init)
    (`->` type($result)^)?
  }];
  let extraClassDeclaration = [{
    mlir::MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    bool getAccumulate() { return false; }
    /// MXRT_KERNEL_SIGNED_A and MXRT_KERNEL_UNSIGNED_B as the attributes say.
    int32_t getKernelFlags();
  }];
}

def Mx_QConv2DKernelOp
    : Op<Mx_Dialect, "kernel.qconv2d",
         [DestinationStyleOpInterface,
          DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary =
      "init = conv2d(x - x_zero, weight - w_zero) + bias in int32, or "
      "requantized to 8 bits (mxrt_kernel_qconv2d_u8s8[_requant])";
  let description = [{
    The 8-bit integer convolution, NCHW or NHWC: x (N, C, H, W) and weight (F, C /
    groups, KH, KW) ui8 or i8 (signed_x, unsigned_w say which: bufferized
    buffers keep only the width), x_zero an i32 scalar, w_zero i32, one
    value or one per filter, bias (F) i32, init (N, F, OH, OW) i32.
    Geometry as kernel.conv2d's. Exact.

    With `requant` (multiplier f32, one value or one per filter; y_zero an
    f32 scalar; both unread without it) init is 8-bit and takes each sum
    times its filter's multiplier, rounded half to even, plus y_zero,
    clamped to [y_min, y_max] (and, with relu, at least y_zero): the
    requantization of QLinearConv, in the kernel. With nhwc, x is (N, H, W,
    C) and init (N, OH, OW, F), channels last; the weight keeps its layout.

    ```mlir
    %y = mx.kernel.qconv2d %x, %zx, %w, %zw, %b scale %m, %zy into %init {
        strides = array<i64: 1, 1>, pads = array<i64: 1, 1>,
        dilations = array<i64: 1, 1>} : tensor<1x8x6x6xui8>, tensor<i32>,
        tensor<4x8x3x3xi8>, tensor<4x1x1x1xi32>, tensor<4xi32>
        scale tensor<f32>, tensor<f32>
        into tensor<1x4x6x6xi32> -> tensor<1x4x6x6xi32>
    ```
  }];
  let arguments = (ins AnyShaped:$x, AnyShaped:$x_zero, AnyShaped:$weight,
                   AnyShaped:$w_zero, Optional<AnyShaped>:$bias,
                   AnyShaped:$multiplier, AnyShaped:$y_zero,
                   AnyShaped:$init, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                   DefaultValuedAttr<I64Attr, "1">:$groups,
                   DefaultValuedAttr<BoolAttr, "false">:$signed_x,
                   DefaultValuedAttr<BoolAttr, "false">:$unsigned_w,
                   DefaultValuedAttr<BoolAttr, "false">:$requant,
                   DefaultValuedAttr<I64Attr, "0">:$y_min,
                   DefaultValuedAttr<I64Attr, "255">:$y_max,
                   DefaultValuedAttr<BoolAttr, "false">:$relu,
                   DefaultValuedAttr<BoolAttr, "false">:$nhwc);
  let results = (outs Optional<AnyRankedTensor>:$result);
  let hasVerifier = 1;
  let assemblyFormat = [{
    $x `,` $x_zero `,` $weight `,` $w_zero (`,` $bias^)? `scale`
    $multiplier `,` $y_zero `into` $init attr-dict `:` type($x) `,`
    type($x_zero) `,` type($weight) `,` type($w_zero) (`,` type($bias)^)?
    `scale` type($multiplier) `,` type($y_zero) `into` type($init)
    (`->` type($result)^)?
  }];
  let extraClassDeclaration = [{
    mlir::MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    bool getAccumulate() { return false; }
    /// MXRT_KERNEL_SIGNED_A and MXRT_KERNEL_UNSIGNED_B as the attributes
    /// say, MXRT_KERNEL_RELU with relu.
    int32_t getKernelFlags();
  }];
}

def Mx_QMaxPool2DKernelOp
    : Op<Mx_Dialect, "kernel.qmaxpool2d",
         [DestinationStyleOpInterface,
          DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "init = max_pool2d(x) on 8-bit integers, NCHW or NHWC "
                "(mxrt_kernel_qmaxpool2d)";
  let description = [{
    x (N, C, H, W) and init (N, C, OH, OW), 8-bit (uint8, or int8 with
    signed_x: bufferized buffers keep only the width); each output the
    maximum of its window's taps inside the input, geometry as
    kernel.pool2d's. With nhwc x is (N, H, W, C) and init (N, OH, OW, C).
    A quantized model's max pooling: the maximum commutes with a
    quantization's monotonic map, so the bytes pool as they are.
  }];
  let arguments = (ins AnyShaped:$x, AnyShaped:$init,
                   DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$pads,
                   DefaultValuedAttr<BoolAttr, "false">:$signed_x,
                   DefaultValuedAttr<BoolAttr, "false">:$nhwc);
  let results = (outs Optional<AnyRankedTensor>:$result);
  let hasVerifier = 1;
  let assemblyFormat = [{
    $x `into` $init attr-dict `:` type($x) `into` type($init)
    (`->` type($result)^)?
  }];
  let extraClassDeclaration = [{
    mlir::MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    bool getAccumulate() { return false; }
    /// MXRT_KERNEL_SIGNED_A with signed_x, MXRT_KERNEL_NHWC with nhwc.
    int32_t getKernelFlags();
  }];
}

/// The selection kernels (mx.top_k, mx.non_max_suppression): int64 box or
/// element positions out, any operand types in; no epilogue.
class Mx_SelectKernelOp<string mnemonic>
    : Op<Mx_Dialect, mnemonic,
         [DestinationStyleOpInterface,
          DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let results = (outs Optional<RankedTensorOf<[I64]>>:$result);
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    mlir::MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    bool getAccumulate() { return false; }
    int32_t getKernelFlags();
  }];
}

def Mx_TopKKernelOp : Mx_SelectKernelOp<"kernel.topk"> {
  let summary = "init = mx.top_k's positions (mxrt_kernel_topk_f32)";
  let arguments = (ins AnyShaped:$x, AnyShaped:$count, AnyShaped:$k,
                   AnyShaped:$init, I64Attr:$axis,
                   DefaultValuedAttr<BoolAttr, "true">:$largest);
  let assemblyFormat = [{
    $x `,` $count `,` $k `into` $init attr-dict `:` type($x) `,` type($count)
    `,` type($k) `into` type($init) (`->` type($result)^)?
  }];
}

def Mx_NmsKernelOp : Mx_SelectKernelOp<"kernel.nms"> {
  let summary = "init = mx.non_max_suppression's boxes (mxrt_kernel_nms_f32)";
  let arguments = (ins AnyShaped:$boxes, AnyShaped:$scores, AnyShaped:$count,
                   AnyShaped:$max_per_class, AnyShaped:$iou_threshold,
                   Optional<AnyShaped>:$score_threshold, AnyShaped:$init,
                   DefaultValuedAttr<BoolAttr, "false">:$center_point_box);
  let assemblyFormat = [{
    $boxes `,` $scores `,` $count `,` $max_per_class `,` $iou_threshold
    (`,` $score_threshold^)? `into` $init attr-dict `:` type($boxes) `,`
    type($scores) `,` type($count) `,` type($max_per_class) `,`
    type($iou_threshold) (`,` type($score_threshold)^)? `into` type($init)
    (`->` type($result)^)?
  }];
}


def Mx_RandomSeedKernelOp : Mx_SelectKernelOp<"kernel.random_seed"> {
  let summary = "init = a fresh seed (mxrt_kernel_random_seed)";
  let arguments = (ins AnyShaped:$init);
  let assemblyFormat = [{
    `into` $init attr-dict `:` type($init) (`->` type($result)^)?
  }];
}

#endif // MXC_DIALECTS_MX_MXKERNELOPS_TD
