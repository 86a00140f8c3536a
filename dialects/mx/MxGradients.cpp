// SPDX-License-Identifier: Apache-2.0
// The gradient of every differentiable mx op (MXNet's FGradient), as
// GradientOpInterface models attached when the dialect loads. Gradients are
// built from mx ops -- forward ops where the derivative is a composition of
// them (dot for FullyConnected, reduce for broadcasting), backward ops of
// MxGradOps.td where it is not (pooling, convolution, elementwise
// derivatives) -- so they lower, fuse and plan memory like the forward.
#include "dialects/mx/InferUtil.h"
#include "dialects/mx/MxDialect.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mxc::mx;

#include "dialects/mx/MxInterfaces.cpp.inc"

namespace {

using Grads = SmallVector<Value>;

RankedTensorType tensorOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

NamedAttribute strAttr(OpBuilder &b, StringRef name, StringRef value) {
  return b.getNamedAttr(name, b.getStringAttr(value));
}
NamedAttribute f64Attr(OpBuilder &b, StringRef name, double value) {
  return b.getNamedAttr(name, b.getF64FloatAttr(value));
}
NamedAttribute boolAttr(OpBuilder &b, StringRef name, bool value) {
  return b.getNamedAttr(name, b.getBoolAttr(value));
}
NamedAttribute i64Attr(OpBuilder &b, StringRef name, int64_t value) {
  return b.getNamedAttr(name, b.getI64IntegerAttr(value));
}
NamedAttribute arrAttr(OpBuilder &b, StringRef name, ArrayRef<int64_t> value) {
  return b.getNamedAttr(name, b.getDenseI64ArrayAttr(value));
}

/// A view of `v` with `shape` (same element count).
Value reshape(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  if (tensorOf(v).getShape() == shape)
    return v;
  return createInferred<ReshapeOp>(b, loc, v, {arrAttr(b, "shape", shape)});
}

Value binary(OpBuilder &b, Location loc, StringRef op, Value x, Value y) {
  return createInferred<BinaryOp>(b, loc, {x, y}, {strAttr(b, "op", op)});
}

Value scalar(OpBuilder &b, Location loc, StringRef op, Value x, double s) {
  return createInferred<ScalarOp>(
      b, loc, x, {strAttr(b, "op", op), f64Attr(b, "scalar", s)});
}

/// grad_elemwise: the pointwise derivative `fn` of the inputs.
Value gradEw(OpBuilder &b, Location loc, StringRef fn, ValueRange inputs,
             double alpha = 0.0, double beta = 0.0) {
  return createInferred<GradElemwiseOp>(b, loc, inputs,
                                        {strAttr(b, "fn", fn),
                                         f64Attr(b, "alpha", alpha),
                                         f64Attr(b, "beta", beta)});
}

/// A tensor like `v` holding `value` everywhere.
Value filled(OpBuilder &b, Location loc, Value v, double value) {
  return gradEw(b, loc, "fill", v, value);
}

/// Sums `g` (of the broadcast result shape) down to `shape`: over the
/// leading axes the operand lacks and the axes it broadcast from extent 1
/// (the transpose of NumPy broadcasting).
Value sumTo(OpBuilder &b, Location loc, Value g, ArrayRef<int64_t> shape) {
  auto gt = tensorOf(g);
  if (gt.getShape() == shape)
    return g;
  int64_t off = gt.getRank() - shape.size();
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < gt.getRank(); ++i)
    if (i < off || (shape[i - off] == 1 && gt.getDimSize(i) != 1))
      axes.push_back(i);
  Value r = g;
  if (!axes.empty())
    r = createInferred<ReduceOp>(b, loc, g,
                                 {strAttr(b, "op", "sum"),
                                  arrAttr(b, "axis", axes),
                                  boolAttr(b, "keepdims", true)});
  return reshape(b, loc, r, shape);
}

/// The gradient of a reduction's result as a keepdims-shaped tensor.
Value keepDims(OpBuilder &b, Location loc, Value g, ArrayRef<int64_t> inShape,
               ArrayRef<int64_t> axes) {
  SmallVector<int64_t> shape(inShape);
  for (int64_t a : axes)
    shape[a] = 1;
  return reshape(b, loc, g, shape);
}

/// Sum over every axis of `x` but `axis`, as a 1-D tensor.
Value sumExcept(OpBuilder &b, Location loc, Value x, int64_t axis) {
  Value r = createInferred<ReduceOp>(b, loc, x,
                                     {strAttr(b, "op", "sum"),
                                      arrAttr(b, "axis", {axis}),
                                      boolAttr(b, "exclude", true)});
  return reshape(b, loc, r, {tensorOf(x).getDimSize(axis)});
}

/// A 1-D per-channel tensor shaped to broadcast along `axis` of rank `rank`.
Value channelView(OpBuilder &b, Location loc, Value v, int64_t rank,
                  int64_t axis) {
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = tensorOf(v).getNumElements();
  return reshape(b, loc, v, shape);
}

//===----------------------------------------------------------------------===//
// Gradients, one function per op
//===----------------------------------------------------------------------===//

Grads gradientOf(FullyConnectedOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  auto xt = tensorOf(op.getData());
  int64_t k = tensorOf(op.getWeight()).getDimSize(1);
  int64_t h = op.getNumHidden();
  int64_t m = xt.getNumElements() / k;
  // y = x2 W^T + b with x2 the (M, K) view of the data.
  Value x2 = reshape(b, loc, op.getData(), {m, k});
  Value dy2 = reshape(b, loc, dys[0], {m, h});
  Value dx = createInferred<DotOp>(b, loc, {dy2, op.getWeight()});
  Value dw = createInferred<DotOp>(b, loc, {dy2, x2},
                                   {boolAttr(b, "transpose_a", true)});
  Grads g = {reshape(b, loc, dx, xt.getShape()), dw};
  if (op.getBias())
    g.push_back(createInferred<ReduceOp>(
        b, loc, dy2, {strAttr(b, "op", "sum"), arrAttr(b, "axis", {0})}));
  return g;
}

Grads gradientOf(ConvolutionOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  SmallVector<NamedAttribute> attrs = {
      arrAttr(b, "kernel", op.getKernel()),
      arrAttr(b, "stride", op.getStrides()),
      arrAttr(b, "dilate", op.getDilations()),
      arrAttr(b, "pad", op.getPadding()),
      i64Attr(b, "num_filter", op.getNumFilter()),
      i64Attr(b, "num_group", op.getNumGroup())};
  SmallVector<NamedAttribute> dataAttrs(attrs);
  dataAttrs.push_back(
      arrAttr(b, "data_shape", tensorOf(op.getData()).getShape()));
  Grads g = {createInferred<ConvolutionGradDataOp>(
                 b, loc, {dys[0], op.getWeight()}, dataAttrs),
             createInferred<ConvolutionGradWeightOp>(
                 b, loc, {op.getData(), dys[0]}, attrs)};
  if (op.getBias())
    g.push_back(sumExcept(b, loc, dys[0], 1));
  return g;
}

/// Deconvolution is the adjoint of Convolution with the same weight (its
/// layout (C, F/G, k...) is a convolution's (out, in/G, k...) from F to C
/// channels): dx = conv(dy, w), and dw is that convolution's weight
/// gradient with x as its output gradient.
Grads gradientOf(DeconvolutionOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  auto xt = tensorOf(op.getData());
  size_t n = xt.getRank() - 2;
  auto orDefault = [&](ArrayRef<int64_t> v, int64_t d) {
    return v.empty() ? SmallVector<int64_t>(n, d) : SmallVector<int64_t>(v);
  };
  SmallVector<NamedAttribute> attrs = {
      arrAttr(b, "kernel", op.getKernel()),
      arrAttr(b, "stride", orDefault(op.getStride(), 1)),
      arrAttr(b, "dilate", orDefault(op.getDilate(), 1)),
      arrAttr(b, "pad", orDefault(op.getPad(), 0)),
      i64Attr(b, "num_filter", xt.getDimSize(1)),
      i64Attr(b, "num_group", op.getNumGroup())};
  SmallVector<NamedAttribute> convAttrs(attrs);
  convAttrs.push_back(boolAttr(b, "no_bias", true));
  Grads g = {createInferred<ConvolutionOp>(b, loc, {dys[0], op.getWeight()},
                                           convAttrs),
             createInferred<ConvolutionGradWeightOp>(
                 b, loc, {dys[0], op.getData()}, attrs)};
  if (op.getBias())
    g.push_back(sumExcept(b, loc, dys[0], 1));
  return g;
}

Grads gradientOf(PoolingOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  return {createInferred<PoolingGradOp>(
      b, loc, {op.getData(), op.getOutput(), dys[0]},
      {arrAttr(b, "kernel", op.getEffectiveKernel()),
       strAttr(b, "pool_type", op.getPoolType()),
       arrAttr(b, "stride", op.getStrides()),
       arrAttr(b, "dilate", op.getDilations()),
       arrAttr(b, "pad", op.getPadding()),
       strAttr(b, "pooling_convention", op.getPoolingConvention()),
       boolAttr(b, "count_include_pad", op.getCountIncludePad())})};
}

/// Each output gradient goes to the input element its flat index names,
/// adding where windows share a maximum; the indices get no gradient. With
/// storage_order 1 the indices are recomputed row-major, which the flat
/// scatter needs.
Grads gradientOf(MaxPoolWithIndicesOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  auto xt = tensorOf(op.getData());
  Value idx = op.getIndices();
  if (op.getStorageOrder() != 0) {
    auto rowMajor = cast<MaxPoolWithIndicesOp>(b.clone(*op));
    rowMajor.setStorageOrder(0);
    idx = rowMajor.getIndices();
  }
  int64_t n = xt.getNumElements(), m = tensorOf(idx).getNumElements();
  Value dx = createInferred<ScatterElementsOp>(
      b, loc,
      {reshape(b, loc, filled(b, loc, op.getData(), 0.0), {n}),
       reshape(b, loc, idx, {m}), reshape(b, loc, dys[0], {m})},
      {i64Attr(b, "axis", 0), strAttr(b, "reduction", "add")});
  return {reshape(b, loc, dx, xt.getShape())};
}

/// ReLU's mask reads its output (y > 0 exactly where x > 0, NaN in
/// neither): its input is then dead after the forward ReLU, which fuses
/// into the op before it (a BatchNorm's normalization: one pass and one
/// stored activation fewer per layer).
static Value maskSource(StringRef fn, Value x, Value y) {
  return fn == "relu" ? y : x;
}

Grads gradientOf(ActivationOp op, OpBuilder &b, ValueRange dys) {
  StringRef fn = op.getActType();
  return {gradEw(b, op.getLoc(), ("unary." + fn).str(),
                 {maskSource(fn, op.getData(), op.getResult()), dys[0]})};
}

Grads gradientOf(UnaryOp op, OpBuilder &b, ValueRange dys) {
  StringRef fn = op.getOp();
  return {gradEw(b, op.getLoc(), ("unary." + fn).str(),
                 {maskSource(fn, op.getData(), op.getResult()), dys[0]})};
}

Grads gradientOf(LeakyReLUOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  StringRef act = op.getActType();
  double slope = op.getSlope().convertToDouble();
  if (act != "prelu")
    return {gradEw(b, loc, ("LeakyReLU." + act).str(), {op.getData(), dys[0]},
                   slope)};
  // prelu: gamma broadcasts along axis 1 (or is one shared value).
  auto xt = tensorOf(op.getData());
  Value gamma = op.getGamma();
  Value gb = channelView(b, loc, gamma, xt.getRank(), xt.getRank() > 1 ? 1 : 0);
  Value dx = gradEw(b, loc, "LeakyReLU.prelu", {op.getData(), gb, dys[0]});
  Value pg = gradEw(b, loc, "LeakyReLU.prelu_gamma", {op.getData(), dys[0]});
  Value dg = sumTo(b, loc, pg, tensorOf(gb).getShape());
  return {dx, reshape(b, loc, dg, tensorOf(gamma).getShape())};
}

Grads gradientOf(DropoutOp, OpBuilder &, ValueRange dys) {
  // mxc-gradient rewrites training Dropout into x * mx.dropout_mask first;
  // a Dropout left here is the identity (as at inference).
  return {dys[0]};
}

Grads gradientOf(SoftmaxOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  auto t = tensorOf(op.getData());
  int64_t axis = infer::wrapAxis(op.getAxis(), t.getRank());
  double temp = op.getTemperature().convertToDouble();
  auto sum = [&](Value v) {
    return createInferred<ReduceOp>(b, loc, v,
                                    {strAttr(b, "op", "sum"),
                                     arrAttr(b, "axis", {axis}),
                                     boolAttr(b, "keepdims", true)});
  };
  Value y = op.getOutput(), dy = dys[0], dx;
  if (op.getLog()) {
    // dx = dy - softmax * sum(dy)
    Value p = createInferred<UnaryOp>(b, loc, y, {strAttr(b, "op", "exp")});
    dx = binary(b, loc, "sub", dy, binary(b, loc, "mul", p, sum(dy)));
  } else {
    // dx = y * (dy - sum(dy * y))
    Value s = sum(binary(b, loc, "mul", dy, y));
    dx = binary(b, loc, "mul", y, binary(b, loc, "sub", dy, s));
  }
  if (temp != 1.0)
    dx = scalar(b, loc, "div", dx, temp);
  return {dx};
}

Grads gradientOf(SoftmaxOutputOp op, OpBuilder &b, ValueRange) {
  Location loc = op.getLoc();
  Value label = op.getLabel();
  if (!label) {
    op.emitError("SoftmaxOutput needs its label operand to be differentiated");
    return {Value()};
  }
  auto t = tensorOf(op.getOutput());
  Value out = op.getOutput();
  SmallVector<int64_t> labelShape;
  if (op.getMultiOutput()) {
    labelShape.assign(t.getShape().begin(), t.getShape().end());
    labelShape.erase(labelShape.begin() + 1);
  } else if (op.getPreserveShape()) {
    labelShape.assign(t.getShape().begin(), t.getShape().end() - 1);
  } else {
    int64_t n = t.getDimSize(0);
    out = reshape(b, loc, out, {n, t.getNumElements() / n});
    labelShape = {n};
  }
  Value dx = createInferred<SoftmaxOutputGradOp>(
      b, loc, {out, reshape(b, loc, label, labelShape)},
      {f64Attr(b, "grad_scale", op.getGradScale().convertToDouble()),
       f64Attr(b, "ignore_label", op.getIgnoreLabel().convertToDouble()),
       boolAttr(b, "multi_output", op.getMultiOutput()),
       boolAttr(b, "use_ignore", op.getUseIgnore()),
       strAttr(b, "normalization", op.getNormalization())});
  return {reshape(b, loc, dx, t.getShape()), Value()};
}

/// LinearRegressionOutput / LogisticRegressionOutput: (out - label) *
/// grad_scale / num_output; MAERegressionOutput: sign(out - label) times
/// the same.
template <typename OpTy> Grads regressionGradient(OpTy op, OpBuilder &b) {
  Location loc = op.getLoc();
  Value label = op.getLabel();
  if (!label) {
    op.emitError() << op->getName() << " needs its label to be differentiated";
    return {Value(), Value()};
  }
  auto t = tensorOf(op.getOutput());
  int64_t numOutput = t.getRank() ? t.getNumElements() / t.getDimSize(0) : 1;
  Value diff = binary(b, loc, "sub", op.getOutput(),
                      reshape(b, loc, label, t.getShape()));
  if (isa<MAERegressionOutputOp>(op.getOperation()))
    diff = createInferred<UnaryOp>(b, loc, diff, {strAttr(b, "op", "sign")});
  return {scalar(b, loc, "mul", diff,
                 op.getGradScale().convertToDouble() / numOutput),
          Value()};
}
Grads gradientOf(LinearRegressionOutputOp op, OpBuilder &b, ValueRange) {
  return regressionGradient(op, b);
}
Grads gradientOf(LogisticRegressionOutputOp op, OpBuilder &b, ValueRange) {
  return regressionGradient(op, b);
}
Grads gradientOf(MAERegressionOutputOp op, OpBuilder &b, ValueRange) {
  return regressionGradient(op, b);
}

Grads gradientOf(MakeLossOp op, OpBuilder &b, ValueRange) {
  Location loc = op.getLoc();
  auto t = tensorOf(op.getData());
  double scale = op.getGradScale().convertToDouble();
  StringRef norm = op.getNormalization();
  if (norm == "batch" && t.getRank() > 0)
    scale /= t.getDimSize(0);
  Value g = filled(b, loc, op.getData(), scale);
  if (norm == "valid") {
    Value valid = gradEw(b, loc, "greater_scalar", op.getData(),
                         op.getValidThresh().convertToDouble());
    Value count =
        createInferred<ReduceOp>(b, loc, valid, {strAttr(b, "op", "sum")});
    g = gradEw(b, loc, "div_at_least_one", {g, count});
  }
  return {g};
}

Grads gradientOf(BinaryOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  Value l = op.getLhs(), r = op.getRhs(), dy = dys[0];
  StringRef fn = op.getOp();
  Value dl, dr;
  if (fn == "add" || fn == "sub") {
    dl = dy;
    dr = fn == "add" ? dy : scalar(b, loc, "mul", dy, -1.0);
  } else if (fn == "mul") {
    dl = binary(b, loc, "mul", dy, r);
    dr = binary(b, loc, "mul", dy, l);
  } else {
    dl = gradEw(b, loc, ("binary." + fn + ".lhs").str(), {l, r, dy});
    dr = gradEw(b, loc, ("binary." + fn + ".rhs").str(), {l, r, dy});
  }
  return {sumTo(b, loc, dl, tensorOf(l).getShape()),
          sumTo(b, loc, dr, tensorOf(r).getShape())};
}

Grads gradientOf(ScalarOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  StringRef fn = op.getOp();
  double s = op.getScalar().convertToDouble();
  if (fn == "add" || (fn == "sub" && !op.getReverse()))
    return {dys[0]};
  if (fn == "sub")
    return {scalar(b, loc, "mul", dys[0], -1.0)};
  if (fn == "mul")
    return {scalar(b, loc, "mul", dys[0], s)};
  if (fn == "div" && !op.getReverse())
    return {scalar(b, loc, "div", dys[0], s)};
  return {gradEw(b, loc,
                 ((op.getReverse() ? "rscalar." : "scalar.") + fn).str(),
                 {op.getData(), dys[0]}, s)};
}

Grads gradientOf(ClipOp op, OpBuilder &b, ValueRange dys) {
  return {gradEw(b, op.getLoc(), "clip", {op.getData(), dys[0]},
                 op.getAMin().convertToDouble(),
                 op.getAMax().convertToDouble())};
}

Grads gradientOf(DotOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  Value a = op.getLhs(), c = op.getRhs(), dy = dys[0];
  bool ta = op.getTransposeA(), tb = op.getTransposeB(), batch = op.getBatch();
  auto dot = [&](Value x, Value y, bool tx, bool ty) {
    return createInferred<DotOp>(b, loc, {x, y},
                                 {boolAttr(b, "transpose_a", tx),
                                  boolAttr(b, "transpose_b", ty),
                                  boolAttr(b, "batch", batch)});
  };
  // y = op(A) op(B): dA = dy op(B)^T (or its transpose), likewise dB.
  Value da = ta ? dot(c, dy, tb, true) : dot(dy, c, false, !tb);
  Value db = tb ? dot(dy, a, true, ta) : dot(a, dy, !ta, false);
  return {da, db};
}

Grads gradientOf(ReduceOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  auto xt = tensorOf(op.getData());
  SmallVector<int64_t> axes = op.getReducedAxes();
  StringRef fn = op.getOp();
  Value dy = keepDims(b, loc, dys[0], xt.getShape(), axes);
  if (fn == "sum" || fn == "mean") {
    int64_t count = 1;
    for (int64_t a : axes)
      count *= xt.getDimSize(a);
    return {gradEw(b, loc, "spread", {op.getData(), dy},
                   fn == "mean" ? 1.0 / count : 1.0)};
  }
  if (fn == "max" || fn == "min") {
    Value y = keepDims(b, loc, op.getOutput(), xt.getShape(), axes);
    return {gradEw(b, loc, "eq_select", {op.getData(), y, dy})};
  }
  // The rest scale dy by a pointwise factor of x (and the kept-dims y).
  Value x = op.getData();
  auto mul = [&](Value u, Value v) { return binary(b, loc, "mul", u, v); };
  auto unary = [&](StringRef f, Value v) {
    return createInferred<UnaryOp>(b, loc, v, {strAttr(b, "op", f)});
  };
  auto reduceKept = [&](StringRef f, Value v) {
    return createInferred<ReduceOp>(b, loc, v,
                                    {strAttr(b, "op", f),
                                     arrAttr(b, "axis", axes),
                                     boolAttr(b, "keepdims", true)});
  };
  Value y = keepDims(b, loc, op.getOutput(), xt.getShape(), axes);
  if (fn == "sumsquare") // d(x^2) = 2x
    return {mul(scalar(b, loc, "mul", x, 2.0), dy)};
  if (fn == "l1") // d|x| = sign(x), 0 at 0 (as PyTorch)
    return {mul(unary("sign", x), dy)};
  if (fn == "l2") // x / ||x||; y = 0 only where every x is 0: then 0
    return {
        mul(binary(b, loc, "div", x, scalar(b, loc, "maximum", y, 1e-30)), dy)};
  if (fn == "logsumexp") // softmax along the axes
    return {mul(unary("exp", binary(b, loc, "sub", x, y)), dy)};
  if (fn == "prod") {
    // The product of the other elements, formed without dividing by a
    // zero: with Z the count of zeros in the slice and P the product of its
    // nonzero elements, P / x when Z = 0, P for the only zero, else 0; that
    // is P / nz(x) where Z equals [x == 0], else 0 (nz(x) = x + [x == 0]).
    Value zero = gradEw(b, loc, "eq_select",
                        {x, filled(b, loc, x, 0.0), filled(b, loc, x, 1.0)});
    Value nz = binary(b, loc, "add", x, zero);
    Value others = gradEw(b, loc, "eq_select",
                          {zero, reduceKept("sum", zero),
                           binary(b, loc, "div", reduceKept("prod", nz), nz)});
    return {mul(others, dy)};
  }
  op.emitError("no gradient for reduce op ") << fn;
  return {Value()};
}

/// Ops that only change the shape: the gradient is the same view back.
template <typename OpTy>
Grads reshapeGradient(OpTy op, OpBuilder &b, ValueRange dys) {
  return {reshape(b, op.getLoc(), dys[0], tensorOf(op.getData()).getShape())};
}
Grads gradientOf(FlattenOp op, OpBuilder &b, ValueRange dys) {
  return reshapeGradient(op, b, dys);
}
Grads gradientOf(ReshapeOp op, OpBuilder &b, ValueRange dys) {
  return reshapeGradient(op, b, dys);
}
Grads gradientOf(ExpandDimsOp op, OpBuilder &b, ValueRange dys) {
  return reshapeGradient(op, b, dys);
}
Grads gradientOf(SqueezeOp op, OpBuilder &b, ValueRange dys) {
  return reshapeGradient(op, b, dys);
}

Grads gradientOf(TransposeOp op, OpBuilder &b, ValueRange dys) {
  SmallVector<int64_t> perm = op.getPermutation(), inv(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inv[p] = i;
  return {createInferred<TransposeOp>(b, op.getLoc(), dys[0],
                                      {arrAttr(b, "axes", inv)})};
}

/// Constant padding: dx is dy with the padding undone, i.e. dy padded by
/// the negated pads (a crop where the forward padded, zeros where it
/// cropped).
/// Reflect and edge padding, one axis at a time: the border copies of
/// `g`'s (lo, hi) padding flow back onto the elements they copied (mirrored
/// for reflect, summed onto the first / last element for edge).
Value padBorderGrad(OpBuilder &b, Location loc, Value g, int64_t axis,
                    int64_t lo, int64_t hi, int64_t n, bool reflect) {
  auto shape = tensorOf(g).getShape();
  int64_t rank = shape.size();
  auto part = [&](int64_t from, int64_t to, int64_t step) {
    SmallVector<int64_t> begin(rank, 0), end(shape), steps(rank, 1);
    begin[axis] = from;
    end[axis] = to;
    steps[axis] = step;
    return createInferred<SliceOp>(b, loc, g,
                                   {arrAttr(b, "begin", begin),
                                    arrAttr(b, "end", end),
                                    arrAttr(b, "step", steps)});
  };
  // `v` placed at [at, at + extent) of an axis of n, zeros elsewhere.
  auto place = [&](Value v, int64_t at) {
    SmallVector<int64_t> pads(2 * rank, 0);
    pads[axis] = at;
    pads[rank + axis] = n - at - tensorOf(v).getDimSize(axis);
    return createInferred<PadOp>(b, loc, v, {arrAttr(b, "pads", pads)});
  };
  auto sumAxis = [&](Value v) {
    return createInferred<ReduceOp>(b, loc, v,
                                    {strAttr(b, "op", "sum"),
                                     arrAttr(b, "axis", {axis}),
                                     boolAttr(b, "keepdims", true)});
  };
  int64_t e = shape[axis]; // lo + n + hi
  Value dx = part(lo, lo + n, 1);
  if (lo > 0) {
    // Reflect: y[j] = x[lo - j], so x[1 + k] gets g[lo - 1 - k] (g from
    // lo - 1 down to 0); edge: x[0] gets the sum of g[0, lo).
    Value back = reflect ? place(part(lo - 1, -e - 1, -1), 1)
                         : place(sumAxis(part(0, lo, 1)), 0);
    dx = binary(b, loc, "add", dx, back);
  }
  if (hi > 0) {
    // Reflect: y[lo + n + j] = x[n - 2 - j], so x[n - 1 - hi + k] gets
    // g[e - 1 - k] (g from e - 1 down to lo + n); edge: x[n - 1] gets the
    // sum of g[lo + n, e).
    Value back = reflect ? place(part(e - 1, lo + n - 1, -1), n - 1 - hi)
                         : place(sumAxis(part(lo + n, e, 1)), n - 1);
    dx = binary(b, loc, "add", dx, back);
  }
  return dx;
}

Grads gradientOf(PadOp op, OpBuilder &b, ValueRange dys) {
  ArrayRef<int64_t> allPads = op.getPads();
  if (op.getMode() != "constant") {
    auto shape = tensorOf(op.getData()).getShape();
    int64_t rank = shape.size();
    // The forward pads by the positive counts, then crops the negative
    // ones: undo the crop (zeros where it cut), then the padding.
    Value g = dys[0];
    SmallVector<int64_t> uncrop, grown;
    for (int64_t p : allPads) {
      uncrop.push_back(std::max<int64_t>(-p, 0));
      grown.push_back(std::max<int64_t>(p, 0));
    }
    if (llvm::any_of(uncrop, [](int64_t p) { return p > 0; }))
      g = createInferred<PadOp>(b, op.getLoc(), g,
                                {arrAttr(b, "pads", uncrop)});
    for (int64_t a = 0; a < rank; ++a)
      g = padBorderGrad(b, op.getLoc(), g, a, grown[a], grown[rank + a],
                        shape[a], op.getMode() == "reflect");
    return {g};
  }
  SmallVector<int64_t> pads;
  for (int64_t p : op.getPads())
    pads.push_back(-p);
  return {createInferred<PadOp>(b, op.getLoc(), dys[0],
                                {arrAttr(b, "pads", pads)})};
}

/// matmul (batch axes broadcasting): dA = dY B^T and dB = A^T dY, each
/// summed down to its operand's shape. A 1-D lhs is a row (1, K) and a 1-D
/// rhs a column (K, 1), whose axis dY lacks.
Grads gradientOf(MatMulOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  auto at = tensorOf(op.getLhs()), bt = tensorOf(op.getRhs());
  Value lhs = op.getLhs(), rhs = op.getRhs(), dy = dys[0];
  SmallVector<int64_t> dyShape(tensorOf(dy).getShape());
  if (at.getRank() == 1) {
    lhs = reshape(b, loc, lhs, {1, at.getDimSize(0)});
    dyShape.insert(dyShape.end() - (bt.getRank() == 1 ? 0 : 1), 1);
  }
  if (bt.getRank() == 1) {
    rhs = reshape(b, loc, rhs, {bt.getDimSize(0), 1});
    dyShape.push_back(1);
  }
  dy = reshape(b, loc, dy, dyShape);
  auto swapLast = [&](Value v) {
    int64_t r = tensorOf(v).getRank();
    SmallVector<int64_t> perm;
    for (int64_t i = 0; i < r; ++i)
      perm.push_back(i);
    std::swap(perm[r - 1], perm[r - 2]);
    return createInferred<TransposeOp>(b, loc, v, {arrAttr(b, "axes", perm)});
  };
  auto mm = [&](Value x, Value y) {
    return createInferred<MatMulOp>(b, loc, {x, y});
  };
  Value da = mm(dy, swapLast(rhs)), db = mm(swapLast(lhs), dy);
  auto lhsShape = tensorOf(lhs).getShape(), rhsShape = tensorOf(rhs).getShape();
  return {reshape(b, loc, sumTo(b, loc, da, lhsShape), at.getShape()),
          reshape(b, loc, sumTo(b, loc, db, rhsShape), bt.getShape())};
}

/// Element gathers: dy scattered back, adding where indices repeat.
Grads gradientOf(GatherElementsOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  return {createInferred<ScatterElementsOp>(
              b, loc,
              {filled(b, loc, op.getData(), 0.0), op.getIndices(), dys[0]},
              {b.getNamedAttr("axis", op.getAxisAttr()),
               strAttr(b, "reduction", "add")}),
          Value()};
}

/// How a scatter addresses its data: `gather(t)` reads a data-shaped `t` at
/// every update's target (giving the updates' shape), `scatter(t, u, r)`
/// combines `u` into a copy of `t` by reduction `r`.
using GatherFn = function_ref<Value(Value)>;
using ScatterFn = function_ref<Value(Value, Value, StringRef)>;

/// The data and updates gradients of out = scatter(data, updates) with
/// reduction `r` (the indices get none). Each output element p combines its
/// data element with the updates aimed at it: p's contributors.
Grads scatterGradient(OpBuilder &b, Location loc, StringRef r, Value data,
                      Value updates, Value out, Value dy, GatherFn gather,
                      ScatterFn scatter) {
  // x == y ? g : 0, and its indicator form.
  auto select = [&](Value x, Value y, Value g) {
    return gradEw(b, loc, "eq_select", {x, y, g});
  };
  auto equal = [&](Value x, Value y) {
    return select(x, y, filled(b, loc, x, 1.0));
  };
  auto cast = [&](Value v, Type to) -> Value {
    if (tensorOf(v).getElementType() == to)
      return v;
    return createInferred<CastOp>(b, loc, v,
                                  {b.getNamedAttr("to", TypeAttr::get(to))});
  };
  // add: the data and every update get dy at their targets.
  if (r == "add")
    return {dy, Value(), gather(dy)};
  if (r == "none") {
    // The data keeps dy where nothing was written. Of updates aimed at one
    // element the last written wins and alone gets dy: the updates,
    // numbered 1..n in f64 (exact), are scattered, and each compares the
    // number left at its target with its own.
    auto ut = tensorOf(updates);
    Type f64 = b.getF64Type();
    Value ones = reshape(b, loc, filled(b, loc, cast(updates, f64), 1.0),
                         {ut.getNumElements()});
    Value ids = reshape(
        b, loc, createInferred<CumSumOp>(b, loc, ones, {i64Attr(b, "axis", 0)}),
        ut.getShape());
    Value last = equal(gather(scatter(cast(data, f64), ids, "none")), ids);
    return {scatter(dy, filled(b, loc, updates, 0.0), "none"), Value(),
            binary(b, loc, "mul", gather(dy), cast(last, ut.getElementType()))};
  }
  auto div = [&](Value x, Value y) { return binary(b, loc, "div", x, y); };
  auto add = [&](Value x, Value y) { return binary(b, loc, "add", x, y); };
  if (r == "mul") {
    // out[p] = data[p] * the product of the updates at p: a contributor's
    // derivative is the product of p's other contributors, formed without
    // dividing by a zero. With Z[p] the count of zero contributors and P[p]
    // the product of the nonzero ones, the others' product for a
    // contributor v is P / v when Z = 0, P when v is the only zero, and 0
    // otherwise: P / nz(v) where Z equals [v == 0], else 0, with
    // nz(v) = v + [v == 0] (1 for a zero).
    Value zData = equal(data, filled(b, loc, data, 0.0));
    Value zUpd = equal(updates, filled(b, loc, updates, 0.0));
    Value zeros = scatter(zData, zUpd, "add");
    Value prod = scatter(add(data, zData), add(updates, zUpd), "mul");
    auto others = [&](Value v, Value z, Value count, Value p) {
      return select(count, z, div(p, add(v, z)));
    };
    return {binary(b, loc, "mul", dy, others(data, zData, zeros, prod)),
            Value(),
            binary(b, loc, "mul", gather(dy),
                   others(updates, zUpd, gather(zeros), gather(prod)))};
  }
  // max / min: dy[p] goes to the contributors equal to out[p]. Tied
  // contributors share it evenly (as PyTorch's scatter_reduce amax / amin
  // with include_self), so the gradients still sum to dy[p].
  Value outAtUpd = gather(out);
  Value ties = scatter(equal(data, out), equal(updates, outAtUpd), "add");
  Value share = div(dy, ties);
  return {select(data, out, share), Value(),
          select(updates, outAtUpd, gather(share))};
}

Grads gradientOf(ScatterElementsOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  Value idx = op.getIndices();
  auto axis = b.getNamedAttr("axis", op.getAxisAttr());
  return scatterGradient(
      b, loc, op.getReduction(), op.getData(), op.getUpdates(), op.getOutput(),
      dys[0],
      [&](Value t) {
        return createInferred<GatherElementsOp>(b, loc, {t, idx}, {axis});
      },
      [&](Value t, Value u, StringRef r) {
        return createInferred<ScatterElementsOp>(
            b, loc, {t, idx, u}, {axis, strAttr(b, "reduction", r)});
      });
}

/// gather_nd: dy scattered back with add (repeated tuples sum). With
/// batch_dims b each index tuple is prefixed by the b batch coordinates of
/// its position, so that one scatter_nd over the whole data puts dy back.
Grads gradientOf(GatherNDOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  Value idx = op.getIndices();
  if (int64_t batch = op.getBatchDims()) {
    auto it = tensorOf(idx);
    int64_t last = it.getRank() - 1;
    // The coordinate along batch axis a is the exclusive running sum of
    // ones along a; the ones, in the indices' type, are a compare of the
    // tuples' first entries with themselves.
    SmallVector<int64_t> begin(it.getRank(), 0), end(it.getShape());
    end[last] = 1;
    Value first = createInferred<SliceOp>(
        b, loc, idx, {arrAttr(b, "begin", begin), arrAttr(b, "end", end)});
    Value ones = createInferred<CastOp>(
        b, loc,
        createInferred<CompareOp>(b, loc, {first, first},
                                  {strAttr(b, "op", "equal")}),
        {b.getNamedAttr("to", TypeAttr::get(it.getElementType()))});
    SmallVector<Value> tuple;
    for (int64_t a = 0; a < batch; ++a)
      tuple.push_back(createInferred<CumSumOp>(
          b, loc, ones,
          {i64Attr(b, "axis", a), boolAttr(b, "exclusive", true)}));
    tuple.push_back(idx);
    idx = createInferred<ConcatOp>(b, loc, tuple, {i64Attr(b, "dim", last)});
  }
  return {createInferred<ScatterNDOp>(
              b, loc, {filled(b, loc, op.getData(), 0.0), idx, dys[0]},
              {strAttr(b, "reduction", "add")}),
          Value()};
}

Grads gradientOf(ScatterNDOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  Value idx = op.getIndices();
  return scatterGradient(
      b, loc, op.getReduction(), op.getData(), op.getUpdates(), op.getOutput(),
      dys[0],
      [&](Value t) {
        return createInferred<GatherNDOp>(b, loc, {t, idx});
      },
      [&](Value t, Value u, StringRef r) {
        return createInferred<ScatterNDOp>(b, loc, {t, idx, u},
                                           {strAttr(b, "reduction", r)});
      });
}

/// gather along `axis`: the indices flattened into one axis, broadcast to
/// dy's shape, then dy scattered back with add (repeated indices sum).
Grads gradientOf(GatherOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  auto xt = tensorOf(op.getData()), it = tensorOf(op.getIndices());
  int64_t rank = xt.getRank();
  int64_t axis = infer::wrapAxis(op.getAxis(), rank);
  SmallVector<int64_t> shape(xt.getShape()), idxShape(rank, 1);
  shape[axis] = it.getNumElements();
  idxShape[axis] = it.getNumElements();
  Value dy = reshape(b, loc, dys[0], shape);
  Value idx = createInferred<BroadcastToOp>(
      b, loc, reshape(b, loc, op.getIndices(), idxShape),
      {arrAttr(b, "shape", shape)});
  return {createInferred<ScatterElementsOp>(
              b, loc, {filled(b, loc, op.getData(), 0.0), idx, dy},
              {i64Attr(b, "axis", axis), strAttr(b, "reduction", "add")}),
          Value()};
}

Grads gradientOf(BroadcastToOp op, OpBuilder &b, ValueRange dys) {
  return {sumTo(b, op.getLoc(), dys[0], tensorOf(op.getData()).getShape())};
}

/// Float-to-float casts pass the gradient back in the source type; casts
/// from or to integers and booleans carry none (their operand is data).
Grads gradientOf(CastOp op, OpBuilder &b, ValueRange dys) {
  auto from = tensorOf(op.getData()).getElementType();
  if (!isa<FloatType>(from) || !isa<FloatType>(op.getTo()))
    return {Value()};
  return {createInferred<CastOp>(b, op.getLoc(), dys[0],
                                 {b.getNamedAttr("to", TypeAttr::get(from))})};
}

/// where(c, x, y): x gets dy where c holds, y where it does not, each summed
/// down to its broadcast shape; the condition gets none.
Grads gradientOf(WhereOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  Value zero = filled(b, loc, dys[0], 0.0);
  auto pick = [&](Value t, Value f) {
    return createInferred<WhereOp>(b, loc, {op.getCond(), t, f});
  };
  return {Value(),
          sumTo(b, loc, pick(dys[0], zero), tensorOf(op.getX()).getShape()),
          sumTo(b, loc, pick(zero, dys[0]), tensorOf(op.getY()).getShape())};
}

/// Trilu keeps a triangle: its gradient keeps the same one.
Grads gradientOf(TriluOp op, OpBuilder &b, ValueRange dys) {
  return {createInferred<TriluOp>(b, op.getLoc(), dys[0],
                                  {boolAttr(b, "upper", op.getUpper()),
                                   b.getNamedAttr("k", op.getKAttr())})};
}

/// A prefix sum's gradient is the suffix sum of dy (same exclusiveness,
/// the other direction).
Grads gradientOf(CumSumOp op, OpBuilder &b, ValueRange dys) {
  return {createInferred<CumSumOp>(b, op.getLoc(), dys[0],
                                   {b.getNamedAttr("axis", op.getAxisAttr()),
                                    boolAttr(b, "exclusive", op.getExclusive()),
                                    boolAttr(b, "reverse", !op.getReverse())})};
}

Grads gradientOf(ConcatOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  int64_t rank = tensorOf(dys[0]).getRank();
  int64_t dim = infer::wrapAxis(op.getDim(), rank);
  Grads g;
  int64_t offset = 0;
  for (Value in : op.getInputs()) {
    int64_t n = tensorOf(in).getDimSize(dim);
    SmallVector<int64_t> begin(dim + 1, 0), end(tensorOf(in).getShape());
    end.resize(dim + 1);
    begin[dim] = offset;
    end[dim] = offset + n;
    g.push_back(createInferred<SliceOp>(
        b, loc, dys[0], {arrAttr(b, "begin", begin), arrAttr(b, "end", end)}));
    offset += n;
  }
  return g;
}

Grads gradientOf(SliceOp op, OpBuilder &b, ValueRange dys) {
  SmallVector<int64_t> starts, steps, counts;
  op.getNormalized(starts, steps, counts);
  Value dy = dys[0];
  // A negative step s from b takes b, b + s, ..., b + (c - 1) s: the
  // reversal of the positive-step slice from b + (c - 1) s. dy is reversed
  // along those axes (a slice with step -1) and scattered back as that.
  if (llvm::any_of(steps, [](int64_t s) { return s < 0; })) {
    SmallVector<int64_t> begin, end, step;
    for (size_t i = 0; i < steps.size(); ++i) {
      bool flip = steps[i] < 0;
      begin.push_back(flip ? counts[i] - 1 : 0);
      end.push_back(flip ? -counts[i] - 1 : counts[i]);
      step.push_back(flip ? -1 : 1);
      if (flip) {
        starts[i] += (counts[i] - 1) * steps[i];
        steps[i] = -steps[i];
      }
    }
    dy = createInferred<SliceOp>(b, op.getLoc(), dy,
                                 {arrAttr(b, "begin", begin),
                                  arrAttr(b, "end", end),
                                  arrAttr(b, "step", step)});
  }
  return {createInferred<SliceGradOp>(
      b, op.getLoc(), dy,
      {arrAttr(b, "data_shape", tensorOf(op.getData()).getShape()),
       arrAttr(b, "starts", starts), arrAttr(b, "steps", steps)})};
}

Grads gradientOf(SliceChannelOp op, OpBuilder &b, ValueRange dys) {
  Location loc = op.getLoc();
  auto xt = tensorOf(op.getData());
  int64_t axis = infer::wrapAxis(op.getAxis(), xt.getRank());
  SmallVector<Value> parts;
  SmallVector<int64_t> partShape(xt.getShape());
  partShape[axis] /= op.getNumOutputs();
  for (Value dy : dys)
    parts.push_back(reshape(b, loc, dy, partShape));
  return {createInferred<ConcatOp>(b, loc, parts, {i64Attr(b, "dim", axis)})};
}

Grads gradientOf(EmbeddingOp op, OpBuilder &b, ValueRange dys) {
  return {Value(), createInferred<EmbeddingGradOp>(
                       b, op.getLoc(), {op.getData(), dys[0]},
                       {i64Attr(b, "input_dim", op.getInputDim()),
                        i64Attr(b, "output_dim", op.getOutputDim())})};
}

/// One BatchNormTrainGrad: data, gamma (none with fix_gamma) and beta.
Grads gradientOf(BatchNormTrainOp op, OpBuilder &b, ValueRange dys) {
  NamedAttrList attrs;
  attrs.set("eps", op.getEpsAttr());
  attrs.set("fix_gamma", op.getFixGammaAttr());
  attrs.set("axis", op.getAxisAttr());
  auto grad = BatchNormTrainGradOp::create(
      b, op.getLoc(),
      ValueRange{dys[0], op.getData(), op.getGamma(), op.getMean(),
                 op.getVar()},
      attrs.getAttrs());
  return {grad.getDataGrad(), op.getFixGamma() ? Value() : grad.getGammaGrad(),
          grad.getBetaGrad()};
}

/// Attaches `gradientOf(OpTy, ...)` to OpTy.
template <typename OpTy>
struct GradientModel
    : GradientOpInterface::ExternalModel<GradientModel<OpTy>, OpTy> {
  SmallVector<Value> buildGradient(Operation *op, OpBuilder &b,
                                   ValueRange resultGrads) const {
    return gradientOf(cast<OpTy>(op), b, resultGrads);
  }
};

template <typename... OpTys> void attach(MLIRContext *ctx) {
  (OpTys::template attachInterface<GradientModel<OpTys>>(*ctx), ...);
}

} // namespace

void mxc::mx::registerGradientModels(MLIRContext *ctx) {
  attach<FullyConnectedOp, ConvolutionOp, PoolingOp, ActivationOp, UnaryOp,
         LeakyReLUOp, DropoutOp, SoftmaxOp, SoftmaxOutputOp,
         LinearRegressionOutputOp, LogisticRegressionOutputOp,
         MAERegressionOutputOp, MakeLossOp, BinaryOp, ScalarOp, ClipOp, DotOp,
         ReduceOp, FlattenOp, ReshapeOp, ExpandDimsOp, SqueezeOp, TransposeOp,
         ConcatOp, SliceOp, SliceChannelOp, EmbeddingOp, BroadcastToOp, CastOp,
         WhereOp, TriluOp, CumSumOp, PadOp, MatMulOp, GatherOp,
         GatherElementsOp, ScatterElementsOp, GatherNDOp, ScatterNDOp,
         DeconvolutionOp, MaxPoolWithIndicesOp, BatchNormTrainOp>(ctx);
}
