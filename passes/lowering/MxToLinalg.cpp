// SPDX-License-Identifier: Apache-2.0
// Lowers every mx op to linalg / tensor / arith / math on tensors. Each op
// becomes one or a few linalg.generic ops whose bodies compute MXNet's
// formula; layouts and shapes are static, so everything that can be decided
// at compile time (padding, average-pool divisors, BatchNorm folding to a
// scale and shift) is decided here.
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mxc {
#define GEN_PASS_DEF_CONVERTMXTOLINALGPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc;
using namespace mxc::mx;
using utils::IteratorType;

namespace {

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

Value constFloat(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}

Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  Type elementType) {
  return tensor::EmptyOp::create(b, loc, shape, elementType);
}

Value filledTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   Type elementType, double value) {
  Value init = emptyTensor(b, loc, shape, elementType);
  Value v = constFloat(b, loc, elementType, value);
  return linalg::FillOp::create(b, loc, v, init).getResult(0);
}

SmallVector<IteratorType> parallel(unsigned n) {
  return SmallVector<IteratorType>(n, IteratorType::parallel);
}

using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// One linalg.generic writing a fresh tensor of `shape`: `inputs` read
/// through `inputMaps`, the output through `outputMap` (identity if null),
/// and `body` returns the value to yield from the block arguments (inputs
/// followed by the output's current value).
Value generic(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
              Type elementType, ValueRange inputs,
              ArrayRef<AffineMap> inputMaps, ArrayRef<IteratorType> iterators,
              BodyFn body, Value init = nullptr, AffineMap outputMap = {}) {
  if (!init)
    init = emptyTensor(b, loc, shape, elementType);
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(outputMap ? outputMap
                           : b.getMultiDimIdentityMap(iterators.size()));
  auto op = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, args));
      });
  return op.getResult(0);
}

/// Elementwise map over tensors of one shape (identity maps everywhere).
Value elementwise(OpBuilder &b, Location loc, RankedTensorType type,
                  ValueRange inputs, BodyFn body) {
  unsigned rank = type.getRank();
  SmallVector<AffineMap> maps(inputs.size(), b.getMultiDimIdentityMap(rank));
  return generic(b, loc, type.getShape(), type.getElementType(), inputs, maps,
                 parallel(rank), body);
}

/// Map reading an operand of `shape`, broadcast NumPy-style (aligned from the
/// right) into an iteration space of `outRank` dims.
AffineMap broadcastMap(MLIRContext *ctx, ArrayRef<int64_t> shape,
                       ArrayRef<int64_t> outShape) {
  SmallVector<AffineExpr> exprs;
  int64_t offset = outShape.size() - shape.size();
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == 1 && outShape[offset + i] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(offset + i, ctx));
  }
  return AffineMap::get(outShape.size(), 0, exprs, ctx);
}

/// Map reading a 1-D per-channel operand along `axis` of a rank-`rank` space.
AffineMap channelMap(MLIRContext *ctx, unsigned rank, unsigned axis) {
  return AffineMap::get(rank, 0, {getAffineDimExpr(axis, ctx)}, ctx);
}

/// Reshape between equal-sized static shapes (bufferizes to a view).
Value reshapeTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  auto type = tensorType(v);
  if (type.getShape() == shape)
    return v;
  auto target = RankedTensorType::get(shape, type.getElementType());
  Value flat = v;
  if (type.getRank() != 1) {
    if (type.getRank() == 0) {
      return tensor::ExpandShapeOp::create(b, loc, target, v,
                                           ArrayRef<ReassociationIndices>{});
    }
    ReassociationIndices all;
    for (int64_t i = 0; i < type.getRank(); ++i)
      all.push_back(i);
    flat = tensor::CollapseShapeOp::create(b, loc, v, ArrayRef{all});
  }
  if (shape.empty())
    return tensor::CollapseShapeOp::create(b, loc, target, flat,
                                           ArrayRef<ReassociationIndices>{});
  if (shape.size() == 1)
    return flat;
  ReassociationIndices all;
  for (size_t i = 0; i < shape.size(); ++i)
    all.push_back(i);
  return tensor::ExpandShapeOp::create(b, loc, target, flat, ArrayRef{all});
}

/// Pads the spatial axes (from `firstAxis`) with `value`: `low` before and
/// `high` after each axis.
Value padAxes(OpBuilder &b, Location loc, Value v, unsigned firstAxis,
              ArrayRef<int64_t> low, ArrayRef<int64_t> high, double value) {
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return v;
  auto type = tensorType(v);
  SmallVector<OpFoldResult> lo(type.getRank(), b.getIndexAttr(0)),
      hi(type.getRank(), b.getIndexAttr(0));
  SmallVector<int64_t> shape(type.getShape());
  for (size_t i = 0; i < low.size(); ++i) {
    lo[firstAxis + i] = b.getIndexAttr(low[i]);
    hi[firstAxis + i] = b.getIndexAttr(high[i]);
    shape[firstAxis + i] += low[i] + high[i];
  }
  Value pad = constFloat(b, loc, type.getElementType(), value);
  return tensor::PadOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, lo, hi,
      pad);
}

//===----------------------------------------------------------------------===//
// Scalar formulas
//===----------------------------------------------------------------------===//

Value applyUnary(OpBuilder &b, Location loc, StringRef fn, Value x) {
  Type t = x.getType();
  auto one = [&] { return constFloat(b, loc, t, 1.0); };
  if (fn == "exp")
    return math::ExpOp::create(b, loc, x);
  if (fn == "log")
    return math::LogOp::create(b, loc, x);
  if (fn == "sqrt")
    return math::SqrtOp::create(b, loc, x);
  if (fn == "rsqrt")
    return math::RsqrtOp::create(b, loc, x);
  if (fn == "square")
    return arith::MulFOp::create(b, loc, x, x);
  if (fn == "abs")
    return math::AbsFOp::create(b, loc, x);
  if (fn == "negative")
    return arith::NegFOp::create(b, loc, x);
  if (fn == "reciprocal")
    return arith::DivFOp::create(b, loc, one(), x);
  if (fn == "relu")
    return arith::MaxNumFOp::create(b, loc, x, constFloat(b, loc, t, 0.0));
  if (fn == "sigmoid") {
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
    return arith::DivFOp::create(b, loc, one(),
                                 arith::AddFOp::create(b, loc, one(), e));
  }
  if (fn == "tanh")
    return math::TanhOp::create(b, loc, x);
  if (fn == "softrelu") {
    // MXNet: x > 20 ? x : log1p(exp(x)), which avoids overflow.
    Value big = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                      constFloat(b, loc, t, 20.0));
    Value soft = math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, x));
    return arith::SelectOp::create(b, loc, big, x, soft);
  }
  if (fn == "softsign") {
    Value den =
        arith::AddFOp::create(b, loc, one(), math::AbsFOp::create(b, loc, x));
    return arith::DivFOp::create(b, loc, x, den);
  }
  if (fn == "erf")
    return math::ErfOp::create(b, loc, x);
  llvm_unreachable("unary function not checked by the verifier");
}

Value applyBinary(OpBuilder &b, Location loc, StringRef fn, Value x, Value y) {
  if (fn == "add")
    return arith::AddFOp::create(b, loc, x, y);
  if (fn == "sub")
    return arith::SubFOp::create(b, loc, x, y);
  if (fn == "mul")
    return arith::MulFOp::create(b, loc, x, y);
  if (fn == "div")
    return arith::DivFOp::create(b, loc, x, y);
  if (fn == "maximum")
    return arith::MaximumFOp::create(b, loc, x, y);
  if (fn == "minimum")
    return arith::MinimumFOp::create(b, loc, x, y);
  if (fn == "power")
    return math::PowFOp::create(b, loc, x, y);
  llvm_unreachable("binary function not checked by the verifier");
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

template <typename OpTy> struct MxPattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpTy::Adaptor;
};

struct FullyConnectedLowering : MxPattern<FullyConnectedOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(FullyConnectedOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto outType = cast<RankedTensorType>(op.getType());
    auto wType = tensorType(a.getWeight());
    int64_t n = wType.getDimSize(0), k = wType.getDimSize(1);
    int64_t m = outType.getNumElements() / n;
    Type et = outType.getElementType();
    MLIRContext *ctx = b.getContext();
    Value x = reshapeTo(b, loc, a.getData(), {m, k});
    // Initialize with the bias (or zero), then accumulate x W^T.
    Value init;
    if (a.getBias()) {
      init = generic(b, loc, {m, n}, et, {a.getBias()}, {channelMap(ctx, 2, 1)},
                     parallel(2), [](OpBuilder &, Location, ValueRange args) {
                       return args[0];
                     });
    } else {
      init = filledTensor(b, loc, {m, n}, et, 0.0);
    }
    AffineExpr i, j, kk;
    bindDims(ctx, i, j, kk);
    auto maps = {AffineMap::get(3, 0, {i, kk}, ctx),
                 AffineMap::get(3, 0, {j, kk}, ctx)};
    Value y = generic(
        b, loc, {m, n}, et, {x, a.getWeight()}, maps,
        {IteratorType::parallel, IteratorType::parallel,
         IteratorType::reduction},
        [](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value p = arith::MulFOp::create(nb, l, args[0], args[1]);
          return arith::AddFOp::create(nb, l, args[2], p);
        },
        init, AffineMap::get(3, 0, {i, j}, ctx));
    b.replaceOp(op, reshapeTo(b, loc, y, outType.getShape()));
    return success();
  }
};

struct ConvolutionLowering : MxPattern<ConvolutionOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(ConvolutionOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    auto outType = cast<RankedTensorType>(op.getType());
    Type et = outType.getElementType();
    auto stride = op.getStrides(), dilate = op.getDilations(),
         pad = op.getPadding();
    unsigned ns = stride.size();
    int64_t g = op.getNumGroup();
    auto inType = tensorType(a.getData());
    int64_t batch = inType.getDimSize(0), cg = inType.getDimSize(1) / g;
    int64_t fg = op.getNumFilter() / g;

    // Group axes made explicit: x (N, G, Cg, S...), w (G, Fg, Cg, K...),
    // y (N, G, Fg, O...).
    Value x = padAxes(b, loc, a.getData(), 2, pad, pad, 0.0);
    SmallVector<int64_t> xShape = {batch, g, cg};
    llvm::append_range(xShape, tensorType(x).getShape().drop_front(2));
    x = reshapeTo(b, loc, x, xShape);
    SmallVector<int64_t> wShape = {g, fg, cg};
    llvm::append_range(wShape, op.getKernel());
    Value w = reshapeTo(b, loc, a.getWeight(), wShape);
    SmallVector<int64_t> yShape = {batch, g, fg};
    llvm::append_range(yShape, outType.getShape().drop_front(2));

    // Loops: n, g, f, o_0..o_{ns-1} (parallel); c, k_0..k_{ns-1} (reduction).
    unsigned nLoops = 3 + ns + 1 + ns;
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> xe = {d(0), d(1), d(3 + ns)},
                            we = {d(1), d(2), d(3 + ns)},
                            ye = {d(0), d(1), d(2)};
    for (unsigned s = 0; s < ns; ++s) {
      xe.push_back(d(3 + s) * stride[s] + d(4 + ns + s) * dilate[s]);
      we.push_back(d(4 + ns + s));
      ye.push_back(d(3 + s));
    }
    SmallVector<IteratorType> iters = parallel(3 + ns);
    iters.append(1 + ns, IteratorType::reduction);

    Value init;
    if (a.getBias()) {
      Value bias = reshapeTo(b, loc, a.getBias(), {g, fg});
      auto biasMap = AffineMap::get(yShape.size(), 0, {d(1), d(2)}, ctx);
      init = generic(
          b, loc, yShape, et, {bias}, {biasMap}, parallel(yShape.size()),
          [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    } else {
      init = filledTensor(b, loc, yShape, et, 0.0);
    }
    Value y = generic(
        b, loc, yShape, et, {x, w},
        {AffineMap::get(nLoops, 0, xe, ctx),
         AffineMap::get(nLoops, 0, we, ctx)},
        iters,
        [](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value p = arith::MulFOp::create(nb, l, args[0], args[1]);
          return arith::AddFOp::create(nb, l, args[2], p);
        },
        init, AffineMap::get(nLoops, 0, ye, ctx));
    b.replaceOp(op, reshapeTo(b, loc, y, outType.getShape()));
    return success();
  }
};

struct PoolingLowering : MxPattern<PoolingOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(PoolingOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    auto outType = cast<RankedTensorType>(op.getType());
    auto inType = tensorType(a.getData());
    Type et = outType.getElementType();
    auto kernel = op.getEffectiveKernel(), stride = op.getStrides(),
         pad = op.getPadding();
    unsigned ns = kernel.size();
    StringRef type = op.getPoolType();
    bool isMax = type == "max";

    // Pad low by `pad`; pad high far enough for the last ("full") window.
    SmallVector<int64_t> high(ns);
    for (unsigned s = 0; s < ns; ++s) {
      int64_t needed = (outType.getDimSize(2 + s) - 1) * stride[s] + kernel[s];
      high[s] =
          std::max<int64_t>(needed - inType.getDimSize(2 + s) - pad[s], 0);
    }
    double neutral = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    Value x = padAxes(b, loc, a.getData(), 2, pad, high, neutral);

    // Loops: n, c, o... (parallel), k... (reduction); a shape-only window
    // operand gives the kernel loops their extents.
    unsigned nLoops = 2 + 2 * ns;
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> xe = {d(0), d(1)}, ke, ye = {d(0), d(1)};
    for (unsigned s = 0; s < ns; ++s) {
      xe.push_back(d(2 + s) * stride[s] + d(2 + ns + s));
      ke.push_back(d(2 + ns + s));
      ye.push_back(d(2 + s));
    }
    Value window = emptyTensor(b, loc, kernel, et);
    SmallVector<IteratorType> iters = parallel(2 + ns);
    iters.append(ns, IteratorType::reduction);
    Value init = filledTensor(b, loc, outType.getShape(), et, neutral);
    Value y = generic(
        b, loc, outType.getShape(), et, {x, window},
        {AffineMap::get(nLoops, 0, xe, ctx),
         AffineMap::get(nLoops, 0, ke, ctx)},
        iters,
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          if (isMax)
            return arith::MaximumFOp::create(nb, l, args[0], args[2]);
          return arith::AddFOp::create(nb, l, args[0], args[2]);
        },
        init, AffineMap::get(nLoops, 0, ye, ctx));
    if (type != "avg") {
      b.replaceOp(op, y);
      return success();
    }

    // MXNet's divisor per output position: the window clipped to the padded
    // input (count_include_pad) or to the real input.
    SmallVector<int64_t> spatial(outType.getShape().drop_front(2));
    int64_t positions = 1;
    for (int64_t e : spatial)
      positions *= e;
    SmallVector<float> divisor(positions, 1.0f);
    for (int64_t p = 0; p < positions; ++p) {
      int64_t rest = p, count = 1;
      for (int s = ns - 1; s >= 0; --s) {
        int64_t o = rest % spatial[s];
        rest /= spatial[s];
        int64_t in = inType.getDimSize(2 + s);
        int64_t start = o * stride[s] - pad[s];
        int64_t end = std::min(start + kernel[s], in + pad[s]);
        if (!op.getCountIncludePad()) {
          start = std::max<int64_t>(start, 0);
          end = std::min(end, in);
        }
        count *= std::max<int64_t>(end - start, 1);
      }
      divisor[p] = static_cast<float>(count);
    }
    auto divType = RankedTensorType::get(spatial, b.getF32Type());
    Value div = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(divType, ArrayRef(divisor)));
    SmallVector<AffineExpr> de;
    for (unsigned s = 0; s < ns; ++s)
      de.push_back(d(2 + s));
    unsigned rank = outType.getRank();
    Value avg = generic(
        b, loc, outType.getShape(), et, {y, div},
        {b.getMultiDimIdentityMap(rank), AffineMap::get(rank, 0, de, ctx)},
        parallel(rank),
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value dv = args[1];
          if (dv.getType() != et)
            dv = arith::ExtFOp::create(nb, l, et, dv);
          return arith::DivFOp::create(nb, l, args[0], dv);
        });
    b.replaceOp(op, avg);
    return success();
  }
};

struct ActivationLowering : MxPattern<ActivationOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(ActivationOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    StringRef fn = op.getActType();
    b.replaceOp(op,
                elementwise(b, op.getLoc(),
                            cast<RankedTensorType>(op.getType()), {a.getData()},
                            [&](OpBuilder &nb, Location l, ValueRange args) {
                              return applyUnary(nb, l, fn, args[0]);
                            }));
    return success();
  }
};

struct UnaryLowering : MxPattern<UnaryOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(UnaryOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    StringRef fn = op.getOp();
    b.replaceOp(op,
                elementwise(b, op.getLoc(),
                            cast<RankedTensorType>(op.getType()), {a.getData()},
                            [&](OpBuilder &nb, Location l, ValueRange args) {
                              return applyUnary(nb, l, fn, args[0]);
                            }));
    return success();
  }
};

struct LeakyReLULowering : MxPattern<LeakyReLUOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(LeakyReLUOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    StringRef act = op.getActType();
    double slope = op.getSlope().convertToDouble();
    unsigned rank = type.getRank();
    SmallVector<Value> inputs = {a.getData()};
    SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
    if (Value gamma = a.getGamma()) {
      inputs.push_back(gamma);
      maps.push_back(rank > 1 && tensorType(gamma).getDimSize(0) != 1
                         ? channelMap(b.getContext(), rank, 1)
                         : AffineMap::get(rank, 0, {b.getAffineConstantExpr(0)},
                                          b.getContext()));
    }
    Value y = generic(
        b, loc, type.getShape(), type.getElementType(), inputs, maps,
        parallel(rank),
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value x = args[0];
          Type t = x.getType();
          Value zero = constFloat(nb, l, t, 0.0);
          Value pos =
              arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, x, zero);
          if (act == "gelu") {
            Value s = arith::MulFOp::create(nb, l, x,
                                            constFloat(nb, l, t, M_SQRT1_2));
            Value e = arith::AddFOp::create(nb, l, constFloat(nb, l, t, 1.0),
                                            math::ErfOp::create(nb, l, s));
            return arith::MulFOp::create(
                nb, l,
                arith::MulFOp::create(nb, l, constFloat(nb, l, t, 0.5), x), e);
          }
          Value neg;
          if (act == "leaky") {
            neg = arith::MulFOp::create(nb, l, x, constFloat(nb, l, t, slope));
          } else if (act == "prelu") {
            neg = arith::MulFOp::create(nb, l, x, args[1]);
          } else {
            Value em1 = math::ExpM1Op::create(nb, l, x);
            if (act == "elu")
              neg = arith::MulFOp::create(nb, l, em1,
                                          constFloat(nb, l, t, slope));
            else // selu
              neg = arith::MulFOp::create(
                  nb, l, em1,
                  constFloat(nb, l, t,
                             1.6732632423543772 * 1.0507009873554805));
          }
          Value posv = x;
          if (act == "selu")
            posv = arith::MulFOp::create(
                nb, l, x, constFloat(nb, l, t, 1.0507009873554805));
          return arith::SelectOp::create(nb, l, pos, posv, neg);
        });
    b.replaceOp(op, y);
    return success();
  }
};

struct BatchNormLowering : MxPattern<BatchNormOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(BatchNormOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    unsigned rank = type.getRank();
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += rank;
    int64_t c = type.getDimSize(axis);
    double eps = op.getEps().convertToDouble();
    bool fixGamma = op.getFixGamma();
    // Per channel: scale = gamma / sqrt(var + eps), shift = beta - mean*scale.
    auto id1 = b.getMultiDimIdentityMap(1);
    Value scale = generic(
        b, loc, {c}, et, {a.getGamma(), a.getMovingVar()}, {id1, id1},
        parallel(1), [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value v =
              arith::AddFOp::create(nb, l, args[1], constFloat(nb, l, et, eps));
          Value r = math::RsqrtOp::create(nb, l, v);
          return fixGamma
                     ? r
                     : arith::MulFOp::create(nb, l, args[0], r).getResult();
        });
    Value shift =
        generic(b, loc, {c}, et, {a.getBeta(), a.getMovingMean(), scale},
                {id1, id1, id1}, parallel(1),
                [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                  Value ms = arith::MulFOp::create(nb, l, args[1], args[2]);
                  return arith::SubFOp::create(nb, l, args[0], ms);
                });
    AffineMap cm = channelMap(ctx, rank, axis);
    Value y = generic(b, loc, type.getShape(), et, {a.getData(), scale, shift},
                      {b.getMultiDimIdentityMap(rank), cm, cm}, parallel(rank),
                      [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                        Value m =
                            arith::MulFOp::create(nb, l, args[0], args[1]);
                        return arith::AddFOp::create(nb, l, m, args[2]);
                      });
    b.replaceOp(op, y);
    return success();
  }
};

/// Ops that are the identity at inference.
template <typename OpTy> struct IdentityLowering : MxPattern<OpTy> {
  using MxPattern<OpTy>::MxPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor a,
                                ConversionPatternRewriter &b) const override {
    b.replaceOp(op, a.getData());
    return success();
  }
};

struct LRNLowering : MxPattern<LRNOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(LRNOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    int64_t nsize = op.getNsize(), half = nsize / 2;
    Value sq =
        elementwise(b, loc, type, {a.getData()},
                    [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                      return arith::MulFOp::create(nb, l, args[0], args[0]);
                    });
    Value padded = padAxes(b, loc, sq, 1, {half}, {half}, 0.0);
    // Loops n, c, h, w (parallel), k (reduction over the channel window).
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    Value window = emptyTensor(b, loc, {nsize}, et);
    Value sum = generic(
        b, loc, type.getShape(), et, {padded, window},
        {AffineMap::get(5, 0, {d(0), d(1) + d(4), d(2), d(3)}, ctx),
         AffineMap::get(5, 0, {d(4)}, ctx)},
        {IteratorType::parallel, IteratorType::parallel, IteratorType::parallel,
         IteratorType::parallel, IteratorType::reduction},
        [](OpBuilder &nb, Location l, ValueRange args) -> Value {
          return arith::AddFOp::create(nb, l, args[0], args[2]);
        },
        filledTensor(b, loc, type.getShape(), et, 0.0),
        AffineMap::get(5, 0, {d(0), d(1), d(2), d(3)}, ctx));
    double salpha = op.getAlpha().convertToDouble() / nsize;
    double knorm = op.getKnorm().convertToDouble(),
           beta = op.getBeta().convertToDouble();
    Value y = elementwise(
        b, loc, type, {a.getData(), sum},
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value s = arith::MulFOp::create(nb, l, args[1],
                                          constFloat(nb, l, et, salpha));
          s = arith::AddFOp::create(nb, l, s, constFloat(nb, l, et, knorm));
          Value p = math::PowFOp::create(nb, l, s, constFloat(nb, l, et, beta));
          return arith::DivFOp::create(nb, l, args[0], p);
        });
    b.replaceOp(op, y);
    return success();
  }
};

struct EmbeddingLowering : MxPattern<EmbeddingOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(EmbeddingOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    unsigned rank = type.getRank();
    int64_t inputDim = op.getInputDim();
    Value weight = a.getWeight();
    SmallVector<AffineExpr> idExprs;
    for (unsigned i = 0; i + 1 < rank; ++i)
      idExprs.push_back(b.getAffineDimExpr(i));
    Value y = generic(
        b, loc, type.getShape(), type.getElementType(), {a.getData()},
        {AffineMap::get(rank, 0, idExprs, b.getContext())}, parallel(rank),
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          // MXNet clips ids into [0, input_dim).
          Value id = arith::FPToSIOp::create(nb, l, nb.getI64Type(), args[0]);
          Value lo = arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0));
          Value hi = arith::ConstantOp::create(
              nb, l, nb.getI64IntegerAttr(inputDim - 1));
          id = arith::MaxSIOp::create(nb, l, id, lo);
          id = arith::MinSIOp::create(nb, l, id, hi);
          Value row = arith::IndexCastOp::create(nb, l, nb.getIndexType(), id);
          Value col = linalg::IndexOp::create(nb, l, rank - 1);
          return tensor::ExtractOp::create(nb, l, weight, ValueRange{row, col});
        });
    b.replaceOp(op, y);
    return success();
  }
};

/// softmax / log_softmax of `x` along `axis` (temperature applied first).
Value softmax(OpBuilder &b, Location loc, Value x, int64_t axis,
              double temperature, bool log) {
  MLIRContext *ctx = b.getContext();
  auto type = tensorType(x);
  Type et = type.getElementType();
  unsigned rank = type.getRank();
  SmallVector<int64_t> redShape;
  SmallVector<AffineExpr> redExprs;
  for (unsigned i = 0; i < rank; ++i)
    if (i != axis) {
      redShape.push_back(type.getDimSize(i));
      redExprs.push_back(getAffineDimExpr(i, ctx));
    }
  AffineMap id = b.getMultiDimIdentityMap(rank);
  AffineMap red = AffineMap::get(rank, 0, redExprs, ctx);
  SmallVector<IteratorType> iters = parallel(rank);
  iters[axis] = IteratorType::reduction;
  auto scaled = [&](OpBuilder &nb, Location l, Value v) -> Value {
    if (temperature == 1.0)
      return v;
    return arith::DivFOp::create(nb, l, v, constFloat(nb, l, et, temperature));
  };
  Value maxv = generic(
      b, loc, redShape, et, {x}, {id}, iters,
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        return arith::MaxNumFOp::create(nb, l, scaled(nb, l, args[0]), args[1]);
      },
      filledTensor(b, loc, redShape, et,
                   -std::numeric_limits<double>::infinity()),
      red);
  Value sum = generic(
      b, loc, redShape, et, {x, maxv}, {id, red}, iters,
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value s = arith::SubFOp::create(nb, l, scaled(nb, l, args[0]), args[1]);
        return arith::AddFOp::create(nb, l, math::ExpOp::create(nb, l, s),
                                     args[2]);
      },
      filledTensor(b, loc, redShape, et, 0.0), red);
  return generic(
      b, loc, type.getShape(), et, {x, maxv, sum}, {id, red, red},
      parallel(rank), [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value s = arith::SubFOp::create(nb, l, scaled(nb, l, args[0]), args[1]);
        if (log)
          return arith::SubFOp::create(nb, l, s,
                                       math::LogOp::create(nb, l, args[2]));
        return arith::DivFOp::create(nb, l, math::ExpOp::create(nb, l, s),
                                     args[2]);
      });
}

struct SoftmaxLowering : MxPattern<SoftmaxOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(SoftmaxOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    int64_t rank = tensorType(a.getData()).getRank();
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += rank;
    b.replaceOp(op,
                softmax(b, op.getLoc(), a.getData(), axis,
                        op.getTemperature().convertToDouble(), op.getLog()));
    return success();
  }
};

struct SoftmaxOutputLowering : MxPattern<SoftmaxOutputOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(SoftmaxOutputOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto type = tensorType(a.getData());
    Value y;
    if (op.getMultiOutput()) {
      y = softmax(b, loc, a.getData(), 1, 1.0, false);
    } else if (op.getPreserveShape()) {
      y = softmax(b, loc, a.getData(), type.getRank() - 1, 1.0, false);
    } else {
      int64_t n = type.getDimSize(0);
      Value flat =
          reshapeTo(b, loc, a.getData(), {n, type.getNumElements() / n});
      y = reshapeTo(b, loc, softmax(b, loc, flat, 1, 1.0, false),
                    type.getShape());
    }
    b.replaceOp(op, y);
    return success();
  }
};

struct BinaryLowering : MxPattern<BinaryOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(BinaryOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    MLIRContext *ctx = b.getContext();
    StringRef fn = op.getOp();
    Value y = generic(
        b, op.getLoc(), type.getShape(), type.getElementType(),
        {a.getLhs(), a.getRhs()},
        {broadcastMap(ctx, tensorType(a.getLhs()).getShape(), type.getShape()),
         broadcastMap(ctx, tensorType(a.getRhs()).getShape(), type.getShape())},
        parallel(type.getRank()),
        [&](OpBuilder &nb, Location l, ValueRange args) {
          return applyBinary(nb, l, fn, args[0], args[1]);
        });
    b.replaceOp(op, y);
    return success();
  }
};

struct ScalarLowering : MxPattern<ScalarOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(ScalarOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    StringRef fn = op.getOp();
    double scalar = op.getScalar().convertToDouble();
    bool reverse = op.getReverse();
    b.replaceOp(
        op, elementwise(b, op.getLoc(), type, {a.getData()},
                        [&](OpBuilder &nb, Location l, ValueRange args) {
                          Value s =
                              constFloat(nb, l, args[0].getType(), scalar);
                          return reverse ? applyBinary(nb, l, fn, s, args[0])
                                         : applyBinary(nb, l, fn, args[0], s);
                        }));
    return success();
  }
};

struct ClipLowering : MxPattern<ClipOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(ClipOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    double lo = op.getAMin().convertToDouble(),
           hi = op.getAMax().convertToDouble();
    b.replaceOp(op, elementwise(b, op.getLoc(), type, {a.getData()},
                                [&](OpBuilder &nb, Location l,
                                    ValueRange args) -> Value {
                                  Type t = args[0].getType();
                                  Value v = arith::MaxNumFOp::create(
                                      nb, l, args[0], constFloat(nb, l, t, lo));
                                  return arith::MinNumFOp::create(
                                      nb, l, v, constFloat(nb, l, t, hi));
                                }));
    return success();
  }
};

struct DotLowering : MxPattern<DotOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(DotOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    MLIRContext *ctx = b.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    bool batch = op.getBatch();
    unsigned o = batch ? 1 : 0, nLoops = o + 3;
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    AffineExpr m = d(o), n = d(o + 1), k = d(o + 2);
    SmallVector<AffineExpr> ae, be, ye;
    if (batch) {
      ae.push_back(d(0));
      be.push_back(d(0));
      ye.push_back(d(0));
    }
    ae.append(op.getTransposeA() ? SmallVector<AffineExpr>{k, m}
                                 : SmallVector<AffineExpr>{m, k});
    be.append(op.getTransposeB() ? SmallVector<AffineExpr>{n, k}
                                 : SmallVector<AffineExpr>{k, n});
    ye.append({m, n});
    SmallVector<IteratorType> iters = parallel(o + 2);
    iters.push_back(IteratorType::reduction);
    Value y = generic(
        b, op.getLoc(), type.getShape(), et, {a.getLhs(), a.getRhs()},
        {AffineMap::get(nLoops, 0, ae, ctx),
         AffineMap::get(nLoops, 0, be, ctx)},
        iters,
        [](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value p = arith::MulFOp::create(nb, l, args[0], args[1]);
          return arith::AddFOp::create(nb, l, args[2], p);
        },
        filledTensor(b, op.getLoc(), type.getShape(), et, 0.0),
        AffineMap::get(nLoops, 0, ye, ctx));
    b.replaceOp(op, y);
    return success();
  }
};

struct ReduceLowering : MxPattern<ReduceOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(ReduceOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    auto inType = tensorType(a.getData());
    auto outType = cast<RankedTensorType>(op.getType());
    Type et = inType.getElementType();
    StringRef fn = op.getOp();
    unsigned rank = inType.getRank();
    SmallVector<int64_t> axes = op.getReducedAxes();
    SmallVector<IteratorType> iters = parallel(rank);
    SmallVector<AffineExpr> keep;
    SmallVector<int64_t> redShape;
    int64_t count = 1;
    for (unsigned i = 0; i < rank; ++i) {
      if (llvm::is_contained(axes, i)) {
        iters[i] = IteratorType::reduction;
        count *= inType.getDimSize(i);
      } else {
        keep.push_back(getAffineDimExpr(i, ctx));
        redShape.push_back(inType.getDimSize(i));
      }
    }
    double init = fn == "max"   ? -std::numeric_limits<double>::infinity()
                  : fn == "min" ? std::numeric_limits<double>::infinity()
                                : 0.0;
    Value y = generic(
        b, loc, redShape, et, {a.getData()}, {b.getMultiDimIdentityMap(rank)},
        iters,
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          if (fn == "max")
            return arith::MaximumFOp::create(nb, l, args[0], args[1]);
          if (fn == "min")
            return arith::MinimumFOp::create(nb, l, args[0], args[1]);
          return arith::AddFOp::create(nb, l, args[0], args[1]);
        },
        filledTensor(b, loc, redShape, et, init),
        AffineMap::get(rank, 0, keep, ctx));
    if (fn == "mean") {
      auto redType = RankedTensorType::get(redShape, et);
      y = elementwise(b, loc, redType, {y},
                      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                        return arith::DivFOp::create(
                            nb, l, args[0],
                            constFloat(nb, l, et, (double)count));
                      });
    }
    b.replaceOp(op, reshapeTo(b, loc, y, outType.getShape()));
    return success();
  }
};

/// Flatten, Reshape, expand_dims and squeeze: views of the same elements.
template <typename OpTy> struct ReshapeLikeLowering : MxPattern<OpTy> {
  using MxPattern<OpTy>::MxPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    b.replaceOp(op, reshapeTo(b, op.getLoc(), a.getData(), type.getShape()));
    return success();
  }
};

struct TransposeLowering : MxPattern<TransposeOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(TransposeOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> perm = op.getPermutation();
    Value init =
        emptyTensor(b, op.getLoc(), type.getShape(), type.getElementType());
    auto t =
        linalg::TransposeOp::create(b, op.getLoc(), a.getData(), init, perm);
    b.replaceOp(op, t.getResult());
    return success();
  }
};

struct ConcatLowering : MxPattern<ConcatOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(ConcatOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t dim = op.getDim();
    if (dim < 0)
      dim += type.getRank();
    Value result = emptyTensor(b, loc, type.getShape(), type.getElementType());
    int64_t offset = 0;
    for (Value in : a.getInputs()) {
      auto inType = tensorType(in);
      SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)),
          sizes, strides(type.getRank(), b.getIndexAttr(1));
      for (int64_t d : inType.getShape())
        sizes.push_back(b.getIndexAttr(d));
      offsets[dim] = b.getIndexAttr(offset);
      result = tensor::InsertSliceOp::create(b, loc, in, result, offsets, sizes,
                                             strides);
      offset += inType.getDimSize(dim);
    }
    b.replaceOp(op, result);
    return success();
  }
};

struct SliceLowering : MxPattern<SliceOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(SliceOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    MLIRContext *ctx = b.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> starts, steps, counts;
    op.getNormalized(starts, steps, counts);
    unsigned rank = type.getRank();
    // A gather with affine indices: in[start + i*step] (steps may be < 0).
    SmallVector<AffineExpr> exprs;
    for (unsigned i = 0; i < rank; ++i)
      exprs.push_back(getAffineDimExpr(i, ctx) * steps[i] + starts[i]);
    Value y = generic(
        b, op.getLoc(), type.getShape(), type.getElementType(), {a.getData()},
        {AffineMap::get(rank, 0, exprs, ctx)}, parallel(rank),
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    b.replaceOp(op, y);
    return success();
  }
};

struct SliceChannelLowering : MxPattern<SliceChannelOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(SliceChannelOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto inType = tensorType(a.getData());
    int64_t rank = inType.getRank(), axis = op.getAxis();
    if (axis < 0)
      axis += rank;
    int64_t part = inType.getDimSize(axis) / op.getNumOutputs();
    SmallVector<Value> results;
    for (auto [i, res] : llvm::enumerate(op.getResults())) {
      SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
          strides(rank, b.getIndexAttr(1));
      SmallVector<int64_t> shape(inType.getShape());
      shape[axis] = part;
      for (int64_t d : shape)
        sizes.push_back(b.getIndexAttr(d));
      offsets[axis] = b.getIndexAttr(i * part);
      auto sliceType = RankedTensorType::get(shape, inType.getElementType());
      Value s = tensor::ExtractSliceOp::create(b, loc, sliceType, a.getData(),
                                               offsets, sizes, strides);
      results.push_back(reshapeTo(
          b, loc, s, cast<RankedTensorType>(res.getType()).getShape()));
    }
    b.replaceOp(op, results);
    return success();
  }
};

struct ConvertMxToLinalgPass
    : mxc::impl::ConvertMxToLinalgPassBase<ConvertMxToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<MxDialect>();
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect,
                           func::FuncDialect>();
    RewritePatternSet patterns(ctx);
    populateMxToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mxc::populateMxToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<
      FullyConnectedLowering, ConvolutionLowering, PoolingLowering,
      ActivationLowering, UnaryLowering, LeakyReLULowering, BatchNormLowering,
      IdentityLowering<DropoutOp>, IdentityLowering<BlockGradOp>, LRNLowering,
      EmbeddingLowering, SoftmaxLowering, SoftmaxOutputLowering, BinaryLowering,
      ScalarLowering, ClipLowering, DotLowering, ReduceLowering,
      ReshapeLikeLowering<FlattenOp>, ReshapeLikeLowering<ReshapeOp>,
      ReshapeLikeLowering<ExpandDimsOp>, ReshapeLikeLowering<SqueezeOp>,
      TransposeLowering, ConcatLowering, SliceLowering, SliceChannelLowering>(
      patterns.getContext());
}
