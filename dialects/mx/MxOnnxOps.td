// SPDX-License-Identifier: Apache-2.0
// ONNX operators beyond MXNet's set that no composition of other mx ops
// expresses exactly: element-wise gathers and scatters along an axis,
// GatherND / ScatterND, running sums, triangle masks and max pooling with the
// positions of the maxima. Included at the end of
// MxOps.td; inference lives in MxOnnxOps.cpp, lowering in passes/lowering/linalg/.
#ifndef MXC_DIALECTS_MX_MXONNXOPS_TD
#define MXC_DIALECTS_MX_MXONNXOPS_TD

def Mx_GatherElementsOp : Mx_Op<"gather_elements"> {
  let summary = "picks one data element per index along an axis";
  let description = [{
    ONNX GatherElements (PyTorch gather): out has the indices' shape and
    out[i_0, ..., i_r-1] = data[i_0, ..., indices[i_0, ..., i_r-1], ...],
    the index replacing position `axis`; negative indices count from the end.

    C1: axis is in [-rank, rank).
    C2: indices has the data's rank, and every extent but the axis's is at
        most the data's.

    ```mlir
    %y = mx.gather_elements %x, %i {axis = 1 : i64}
        : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, Mx_IntTensor:$indices,
                   DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_ScatterElementsOp : Mx_Op<"scatter_elements"> {
  let summary = "writes one update per index along an axis into a copy of data";
  let description = [{
    ONNX ScatterElements: out = data, then for every position p of updates
    (in row-major order) out[p with p[axis] = indices[p]] = updates[p], or
    combined with the value already there by `reduction` (add, mul, max,
    min). Negative indices count from the end; with reduction none a later
    duplicate index wins.

    C1: axis is in [-rank, rank).
    C2: indices and updates have the same shape, of the data's rank, and
        every extent but the axis's is at most the data's.
    C3: updates have the data's element type.
    C4: reduction is none, add, mul, max or min.

    ```mlir
    %y = mx.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "add"}
        : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, Mx_IntTensor:$indices,
                   Mx_AnyTensor:$updates,
                   DefaultValuedAttr<I64Attr, "0">:$axis,
                   DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_ScatterNDOp : Mx_Op<"scatter_nd"> {
  let summary = "writes slices of updates at index tuples into a copy of data";
  let description = [{
    ONNX ScatterND: with q = indices.shape[-1], out = data, then for every
    position (i..., s...) of updates (row-major) the element at
    data[indices[i..., :]..., s...] becomes the update, or is combined with
    it by `reduction` (add, mul, max, min). Negative tuple entries count from
    the end; with reduction none a later duplicate tuple wins.

    C1: 1 <= q <= rank of data.
    C2: updates shape = indices.shape[:-1] + data.shape[q:].
    C3: updates have the data's element type.
    C4: reduction is none, add, mul, max or min.

    ```mlir
    %y = mx.scatter_nd %x, %i, %u
        : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, Mx_IntTensor:$indices,
                   Mx_AnyTensor:$updates,
                   DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_GatherNDOp : Mx_Op<"gather_nd"> {
  let summary = "gathers slices of data at index tuples (ONNX GatherND)";
  let description = [{
    With b = batch_dims and q = indices.shape[-1], each tuple
    indices[i..., :] addresses data[i_0, ..., i_b-1, t_0, ..., t_q-1, ...];
    out shape = indices.shape[:-1] + data.shape[b + q:]. Negative tuple
    entries count from the end.

    C1: 0 <= batch_dims < min(rank of data, rank of indices).
    C2: the first batch_dims extents of data and indices are equal.
    C3: indices.shape[-1] is at most rank of data - batch_dims.

    ```mlir
    %y = mx.gather_nd %x, %i : (tensor<2x3x4xf32>, tensor<5x2xi64>) -> tensor<5x4xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, Mx_IntTensor:$indices,
                   DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_CumSumOp : Mx_Op<"cumsum"> {
  let summary = "running sum along an axis (ONNX CumSum)";
  let description = [{
    out[..., i, ...] = sum of data[..., j, ...] over j <= i, or j < i with
    `exclusive`; `reverse` sums from the end (j >= i, or j > i).

    C1: axis is in [-rank, rank) and the data has rank >= 1.

    ```mlir
    %y = mx.cumsum %x {axis = 1 : i64, exclusive = true}
        : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data,
                   DefaultValuedAttr<I64Attr, "0">:$axis,
                   DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                   DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "$data attr-dict `:` functional-type(operands, results)";
}

def Mx_TriluOp : Mx_Op<"trilu"> {
  let summary = "keeps the upper or lower triangle of the last two axes";
  let description = [{
    ONNX Trilu: element (i, j) of every matrix (the last two axes) is kept
    where j - i >= k (`upper`) or j - i <= k (lower), else it becomes 0.

    C1: the data has rank >= 2.

    ```mlir
    %y = mx.trilu %x {upper = false, k = -1 : i64}
        : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data,
                   DefaultValuedAttr<BoolAttr, "true">:$upper,
                   DefaultValuedAttr<I64Attr, "0">:$k);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "$data attr-dict `:` functional-type(operands, results)";
}

def Mx_MaxPoolWithIndicesOp : Mx_Op<"max_pool_with_indices"> {
  let summary = "max pooling that also returns where each maximum was (ONNX MaxPool)";
  let description = [{
    ONNX MaxPool with its Indices output, over N, C and any number of
    spatial axes. Window o reads the input at o * stride - pad_begin +
    k * dilate along each spatial axis; positions outside the input are
    skipped. `output` is the window's maximum, `indices` the flat int64
    index of the element it came from in the whole input: row-major over
    (N, C, spatial...) with storage_order 0, and with storage_order 1
    (N * C + c) * prod(spatial) plus the spatial position read column-major
    (the first spatial axis fastest). The window is scanned row-major and
    only a strictly greater element replaces the maximum, so the first
    maximal element wins. Output extent per spatial axis, with the dilated
    kernel k' = (k - 1) * dilate + 1: floor((x + pb + pe - k') / s) + 1, or
    ceil(...) + 1 with ceil_mode.

    C1: data has rank >= 3 and len(kernel) = rank - 2, kernel values >= 1.
    C2: stride and dilate are empty or len(kernel) long, with values >= 1;
        pad is empty or 2 * len(kernel) long (all begins, then all ends),
        with values >= 0.
    C3: storage_order is 0 or 1.
    C4: data is float or integer (not boolean).
    C5: the padded input is at least as large as the dilated kernel, and
        every window reads at least one input element.

    ```mlir
    %y, %i = mx.max_pool_with_indices %x {kernel = array<i64: 2, 2>,
        stride = array<i64: 2, 2>, storage_order = 1 : i64}
        : (tensor<1x1x5x5xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, DenseI64ArrayAttr:$kernel,
                   Mx_I64Array:$stride, Mx_I64Array:$dilate, Mx_I64Array:$pad,
                   DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                   DefaultValuedAttr<I64Attr, "0">:$storage_order);
  let results = (outs Mx_AnyTensor:$output, I64Tensor:$indices);
  let assemblyFormat = "$data attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// Stride, dilation and padding (begins, then ends) with the defaults
    /// filled in.
    llvm::SmallVector<int64_t> getStrides();
    llvm::SmallVector<int64_t> getDilations();
    llvm::SmallVector<int64_t> getPadding();
  }];
}

def Mx_ReshapeToExtentsOp : Mx_Op<"reshape_to_extents"> {
  let summary = "reshape to extents computed at run time from other tensors'";
  let description = [{
    A shape computed from `Shape` of tensors with dynamic extents (ONNX
    Shape -> Gather -> Concat -> Reshape chains that MXNet's codes do not
    express). Output axis i is `extents[i]`: [k], a constant k >= 0, or
    [coef, div, offset, j0, a0, j1, a1, ...], the run-time value
    coef * (extent a0 of operand j0) * (extent a1 of operand j1) * ... / div
    + offset, where operand j is `sources[j - 1]` (whose values are not
    read). The element count is the data's.

    C1: every entry is one constant >= 0 or a term of coef, div >= 1, offset
        and pairs naming a source and one of its axes.

    ```mlir
    %y = mx.reshape_to_extents %x, %s {extents = [array<i64: 1, 1, 0, 1, 0>,
        array<i64: 1, 1, 0, 1, 1>, array<i64: 64>]}
        : (tensor<?x64xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, Variadic<Mx_AnyTensor>:$sources,
                   ArrayAttr:$extents);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_FillToExtentsOp : Mx_Op<"fill_to_extents"> {
  let summary = "a constant or a range of a shape computed at run time";
  let description = [{
    ONNX ConstantOfShape and Range whose shape or limit comes from `Shape` of
    tensors with dynamic extents. The result's extents are `extents`, as
    mx.reshape_to_extents's (operand j is `sources[j - 1]`, whose values are
    not read); every element is `value`, or with `iota` (rank 1) element i is
    value + i * delta. The result's element type is the op's.

    C1: as reshape_to_extents's C1; with iota the result has rank 1.

    ```mlir
    %y = mx.fill_to_extents %s {extents = [array<i64: 1, 1, 0, 1, 1>],
        value = 0.0 : f64, delta = 1.0 : f64, iota = true}
        : (tensor<?x?xi64>) -> tensor<?xi64>
    ```
  }];
  let arguments = (ins Variadic<Mx_AnyTensor>:$sources, ArrayAttr:$extents,
                   F64Attr:$value, DefaultValuedAttr<F64Attr, "1.0">:$delta,
                   DefaultValuedAttr<BoolAttr, "false">:$iota,
                   TypeAttr:$element_type);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_TopKOp : Mx_Op<"top_k"> {
  let summary = "the positions of an axis's k best elements, k at run time";
  let description = [{
    ONNX TopK's selection where k is known only at run time or the axis's
    extent is data-dependent: along `axis`, among the first `count` elements
    (a data-dependent extent), the positions of the min(k, k_bound, count)
    largest (smallest without `largest`), best first, ties to the lower
    position, NaN above every number; then 0 up to k_bound. The values are
    a gather_elements of the data at these positions. Lowered to a runtime
    kernel (mxrt_kernel_topk_f32).

    C1: data is float32 of rank >= 1 with a static shape, axis is in
        [-rank, rank); count and k are int64 scalars; 0 <= k_bound <= the
        axis's extent.

    ```mlir
    %i = mx.top_k %x, %n, %k {axis = 0 : i64, k_bound = 300 : i64}
        : (tensor<3234xf32>, tensor<i64>, tensor<i64>) -> tensor<300xi64>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$data, Mx_IntTensor:$count,
                   Mx_IntTensor:$k, DefaultValuedAttr<I64Attr, "-1">:$axis,
                   I64Attr:$k_bound,
                   DefaultValuedAttr<BoolAttr, "true">:$largest);
  let results = (outs Mx_IntTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_NonMaxSuppressionOp : Mx_Op<"non_max_suppression"> {
  let summary = "greedy non-maximum suppression per batch and class";
  let description = [{
    ONNX NonMaxSuppression's selection: boxes (batches, n, 4), scores
    (batches, classes, n), float32; only the first `count` boxes take part,
    and only those scoring above `score_threshold` when given. Per (batch,
    class) the boxes are taken best first (ties to the lower index), each
    dropping the others that overlap it by an IoU above `iou_threshold`,
    until `max_per_class` are taken; the result (batches, classes, n) holds
    the taken box indices in that order, then -1. Boxes are two corners, or
    (x center, y center, width, height) with center_point_box. Lowered to a
    runtime kernel (mxrt_kernel_nms_f32).

    C1: static shapes as above; count and max_per_class int64 scalars,
        the thresholds float32 scalars.

    ```mlir
    %s = mx.non_max_suppression %b, %sc, %n, %m, %iou
        : (tensor<1x100x4xf32>, tensor<1x2x100xf32>, tensor<i64>,
           tensor<i64>, tensor<f32>) -> tensor<1x2x100xi64>
    ```
  }];
  let arguments = (ins Mx_AnyTensor:$boxes, Mx_AnyTensor:$scores,
                   Mx_IntTensor:$count, Mx_IntTensor:$max_per_class,
                   Mx_AnyTensor:$iou_threshold,
                   Optional<Mx_AnyTensor>:$score_threshold,
                   DefaultValuedAttr<BoolAttr, "false">:$center_point_box);
  let results = (outs Mx_IntTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Mx_RandomOp : Mx_Op<"random"> {
  let summary = "random numbers, uniform or normal, of a static shape";
  let description = [{
    ONNX RandomUniform, RandomNormal and their Like forms (and Bernoulli's
    draws): element i is a + (b - a) u (dist "uniform": u in [0, 1)) or
    a + b z (dist "normal": z standard normal, Box-Muller), where u and z
    come from splitmix64 of (seed, salt, i). When `seeded` the numbers are
    the same on every call; otherwise each call draws a fresh seed from the
    runtime (mxrt_kernel_random_seed). `salt` keeps ops of equal attributes
    apart (the importer gives each node its own).

    C1: dist is "uniform" or "normal"; the element type is a float type.

    ```mlir
    %u = mx.random {dist = "uniform", a = 0.0 : f64, b = 1.0 : f64,
        salt = 3 : i64, shape = array<i64: 2, 3>, element_type = f32}
        : () -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins StrAttr:$dist, F64Attr:$a, F64Attr:$b,
                   DefaultValuedAttr<BoolAttr, "false">:$seeded,
                   DefaultValuedAttr<I64Attr, "0">:$seed, I64Attr:$salt,
                   DenseI64ArrayAttr:$shape, TypeAttr:$element_type);
  let results = (outs Mx_AnyTensor:$output);
  let assemblyFormat = "attr-dict `:` functional-type(operands, results)";
}

#endif // MXC_DIALECTS_MX_MXONNXOPS_TD
