// SPDX-License-Identifier: Apache-2.0
// Lowers the training ops of MxGradOps.td (loss heads, backward ops) to
// linalg / tensor / arith / math on tensors. Backward ops that scatter
// (pooling, convolution data gradient) are written as one strided
// accumulation per kernel offset, so every linalg.generic keeps affine,
// race-free indexing; the rest are single generics.
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"
#include "passes/lowering/LinalgBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;
using namespace mxc;
using namespace mxc::mx;
using namespace mxc::lowering;
using utils::IteratorType;

namespace {

/// Pads the axes from `first` on with the float `value`, `low`/`high` per
/// axis. Unlike padAxes with a value, makes no constant when nothing is padded.
Value padZeros(OpBuilder &b, Location loc, Value v, unsigned first,
               ArrayRef<int64_t> low, ArrayRef<int64_t> high, double value) {
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return v;
  return padAxes(b, loc, v, first, low, high,
                 constFloat(b, loc, tensorType(v).getElementType(), value));
}

/// acc[.., off + i*stride ..] += part[.., i ..] on the axes from `first`.
Value stridedAccumulate(OpBuilder &b, Location loc, Value acc, Value part,
                        unsigned first, ArrayRef<int64_t> offsets,
                        ArrayRef<int64_t> strides) {
  auto pt = tensorType(part);
  unsigned rank = pt.getRank();
  SmallVector<OpFoldResult> offs(rank, b.getIndexAttr(0)), sizes,
      strd(rank, b.getIndexAttr(1));
  for (int64_t d : pt.getShape())
    sizes.push_back(b.getIndexAttr(d));
  for (size_t i = 0; i < offsets.size(); ++i) {
    offs[first + i] = b.getIndexAttr(offsets[i]);
    strd[first + i] = b.getIndexAttr(strides[i]);
  }
  Value view =
      tensor::ExtractSliceOp::create(b, loc, pt, acc, offs, sizes, strd);
  AffineMap id = b.getMultiDimIdentityMap(rank);
  Value sum = generic(b, loc, pt.getShape(), pt.getElementType(), {view, part},
                      {id, id}, parallel(rank),
                      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                        return arith::AddFOp::create(nb, l, a[0], a[1]);
                      });
  return tensor::InsertSliceOp::create(b, loc, sum, acc, offs, sizes, strd);
}

/// Calls `fn` with every index of a box of `extents` (row-major).
void forEachIndex(ArrayRef<int64_t> extents,
                  function_ref<void(ArrayRef<int64_t>)> fn) {
  SmallVector<int64_t> idx(extents.size(), 0);
  if (llvm::any_of(extents, [](int64_t e) { return e <= 0; }))
    return;
  while (true) {
    fn(idx);
    int i = extents.size() - 1;
    for (; i >= 0; --i) {
      if (++idx[i] < extents[i])
        break;
      idx[i] = 0;
    }
    if (i < 0)
      return;
  }
}

//===----------------------------------------------------------------------===//
// Pointwise derivatives
//===----------------------------------------------------------------------===//

/// The formula of grad_elemwise `fn`; null if unknown.
Value gradFormula(OpBuilder &b, Location l, StringRef fn, ValueRange in,
                  double alpha, double beta) {
  Type t = in[0].getType();
  auto c = [&](double v) { return constFloat(b, l, t, v); };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulFOp::create(b, l, x, y);
  };
  auto div = [&](Value x, Value y) -> Value {
    return arith::DivFOp::create(b, l, x, y);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddFOp::create(b, l, x, y);
  };
  auto sub = [&](Value x, Value y) -> Value {
    return arith::SubFOp::create(b, l, x, y);
  };
  auto neg = [&](Value x) -> Value { return arith::NegFOp::create(b, l, x); };
  auto exp = [&](Value x) -> Value { return math::ExpOp::create(b, l, x); };
  auto cmp = [&](arith::CmpFPredicate p, Value x, Value y) -> Value {
    return arith::CmpFOp::create(b, l, p, x, y);
  };
  auto sel = [&](Value cond, Value x, Value y) -> Value {
    return arith::SelectOp::create(b, l, cond, x, y);
  };
  auto sigmoid = [&](Value x) { return div(c(1), add(c(1), exp(neg(x)))); };
  using P = arith::CmpFPredicate;

  if (fn == "fill")
    return c(alpha);
  if (fn == "spread")
    return mul(in[1], c(alpha));
  if (fn == "eq_select")
    return sel(cmp(P::OEQ, in[0], in[1]), in[2], c(0));
  if (fn == "greater_scalar")
    return sel(cmp(P::OGT, in[0], c(alpha)), c(1), c(0));
  if (fn == "div_at_least_one")
    return div(in[0], arith::MaximumFOp::create(b, l, in[1], c(1)));
  if (fn == "clip")
    return sel(arith::AndIOp::create(b, l, cmp(P::OGE, in[0], c(alpha)),
                                     cmp(P::OLE, in[0], c(beta))),
               in[1], c(0));

  if (fn.consume_front("unary.")) {
    Value x = in[0], dy = in[1], d;
    if (fn == "relu")
      return sel(cmp(P::OGT, x, c(0)), dy, c(0));
    if (fn == "sigmoid") {
      Value s = sigmoid(x);
      d = mul(s, sub(c(1), s));
    } else if (fn == "tanh") {
      Value th = math::TanhOp::create(b, l, x);
      d = sub(c(1), mul(th, th));
    } else if (fn == "softrelu") {
      d = sigmoid(x);
    } else if (fn == "softsign") {
      Value a = add(c(1), math::AbsFOp::create(b, l, x));
      d = div(c(1), mul(a, a));
    } else if (fn == "exp") {
      d = exp(x);
    } else if (fn == "expm1") {
      d = exp(x);
    } else if (fn == "log") {
      d = div(c(1), x);
    } else if (fn == "log1p") {
      d = div(c(1), add(c(1), x));
    } else if (fn == "sqrt") {
      d = div(c(0.5), math::SqrtOp::create(b, l, x));
    } else if (fn == "rsqrt") {
      d = div(mul(c(-0.5), math::RsqrtOp::create(b, l, x)), x);
    } else if (fn == "square") {
      d = mul(c(2), x);
    } else if (fn == "abs") {
      d = sel(cmp(P::OGT, x, c(0)), c(1),
              sel(cmp(P::OLT, x, c(0)), c(-1), c(0)));
    } else if (fn == "negative") {
      d = c(-1);
    } else if (fn == "reciprocal") {
      d = neg(div(c(1), mul(x, x)));
    } else if (fn == "erf") {
      d = mul(c(2.0 / std::sqrt(M_PI)), exp(neg(mul(x, x))));
    } else if (fn == "sin") {
      d = math::CosOp::create(b, l, x);
    } else if (fn == "cos") {
      d = neg(math::SinOp::create(b, l, x));
    } else if (fn == "tan") {
      Value tn = math::TanOp::create(b, l, x);
      d = add(c(1), mul(tn, tn));
    } else if (fn == "asin" || fn == "acos") {
      d = div(c(fn == "asin" ? 1 : -1),
              math::SqrtOp::create(b, l, sub(c(1), mul(x, x))));
    } else if (fn == "atan") {
      d = div(c(1), add(c(1), mul(x, x)));
    } else if (fn == "sinh" || fn == "cosh") {
      Value e = exp(x), ei = exp(neg(x));
      d = mul(c(0.5), fn == "sinh" ? add(e, ei) : sub(e, ei));
    } else if (fn == "asinh") {
      d = div(c(1), math::SqrtOp::create(b, l, add(mul(x, x), c(1))));
    } else if (fn == "acosh") {
      d = div(c(1), math::SqrtOp::create(b, l, sub(mul(x, x), c(1))));
    } else if (fn == "atanh") {
      d = div(c(1), sub(c(1), mul(x, x)));
    } else if (fn == "sign" || fn == "ceil" || fn == "floor" || fn == "round") {
      return c(0);
    } else {
      return nullptr;
    }
    return mul(d, dy);
  }

  if (fn.consume_front("LeakyReLU.")) {
    Value x = in[0], pos = cmp(P::OGT, x, c(0));
    constexpr double kLambda = 1.0507009873554805, kAlpha = 1.6732632423543772;
    if (fn == "leaky")
      return sel(pos, in[1], mul(in[1], c(alpha)));
    if (fn == "elu")
      return sel(pos, in[1], mul(in[1], mul(c(alpha), exp(x))));
    if (fn == "selu")
      return mul(in[1], sel(pos, c(kLambda), mul(c(kLambda * kAlpha), exp(x))));
    if (fn == "gelu") {
      Value cdf = mul(
          c(0.5), add(c(1), math::ErfOp::create(b, l, mul(x, c(M_SQRT1_2)))));
      Value pdf =
          mul(c(1.0 / std::sqrt(2 * M_PI)), exp(mul(c(-0.5), mul(x, x))));
      return mul(in[1], add(cdf, mul(x, pdf)));
    }
    if (fn == "prelu")
      return sel(pos, in[2], mul(in[2], in[1]));
    if (fn == "prelu_gamma")
      return sel(pos, c(0), mul(x, in[1]));
    return nullptr;
  }

  if (fn.consume_front("binary.")) {
    Value a = in[0], bb = in[1], dy = in[2];
    bool lhs = fn.consume_back(".lhs");
    if (!lhs && !fn.consume_back(".rhs"))
      return nullptr;
    if (fn == "div")
      return lhs ? div(dy, bb) : neg(div(mul(dy, a), mul(bb, bb)));
    if (fn == "maximum")
      return sel(cmp(lhs ? P::OGE : P::OLT, a, bb), dy, c(0));
    if (fn == "minimum")
      return sel(cmp(lhs ? P::OLE : P::OGT, a, bb), dy, c(0));
    if (fn == "power") {
      Value p = math::PowFOp::create(b, l, a, bb);
      return lhs ? mul(dy,
                       mul(bb, math::PowFOp::create(b, l, a, sub(bb, c(1)))))
                 : mul(dy, mul(p, math::LogOp::create(b, l, a)));
    }
    if (fn == "mod")
      return lhs ? dy : mul(dy, neg(math::FloorOp::create(b, l, div(a, bb))));
    return nullptr;
  }

  if (fn.consume_front("scalar.")) {
    Value x = in[0], dy = in[1];
    if (fn == "power")
      return mul(dy,
                 mul(c(alpha), math::PowFOp::create(b, l, x, c(alpha - 1))));
    if (fn == "maximum")
      return sel(cmp(P::OGE, x, c(alpha)), dy, c(0));
    if (fn == "minimum")
      return sel(cmp(P::OLE, x, c(alpha)), dy, c(0));
    if (fn == "mod")
      return dy;
    return nullptr;
  }
  if (fn.consume_front("rscalar.")) {
    Value x = in[0], dy = in[1];
    if (fn == "div")
      return neg(div(mul(dy, c(alpha)), mul(x, x)));
    if (fn == "power")
      return mul(
          dy, mul(math::PowFOp::create(b, l, c(alpha), x), c(std::log(alpha))));
    if (fn == "maximum")
      return sel(cmp(P::OGE, x, c(alpha)), dy, c(0));
    if (fn == "minimum")
      return sel(cmp(P::OLE, x, c(alpha)), dy, c(0));
    return nullptr;
  }
  return nullptr;
}

template <typename OpTy> struct GradPattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
};

struct GradElemwiseLowering : GradPattern<GradElemwiseOp> {
  using GradPattern::GradPattern;
  LogicalResult matchAndRewrite(GradElemwiseOp op, OpAdaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<AffineMap> maps;
    for (Value v : a.getInputs())
      maps.push_back(broadcastMap(b.getContext(), tensorType(v).getShape(),
                                  type.getShape()));
    bool known = true;
    std::string fn = op.getFn().str();
    double alpha = op.getAlpha().convertToDouble(),
           beta = op.getBeta().convertToDouble();
    Value y = generic(b, op.getLoc(), type.getShape(), type.getElementType(),
                      a.getInputs(), maps, parallel(type.getRank()),
                      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                        Value r = gradFormula(nb, l, fn, args.drop_back(),
                                              alpha, beta);
                        if (!r) {
                          known = false;
                          return args.back();
                        }
                        return r;
                      });
    if (!known)
      return op.emitError("no lowering for grad_elemwise fn \"") << fn << "\"";
    b.replaceOp(op, y);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Loss heads
//===----------------------------------------------------------------------===//

template <typename OpTy> struct IdentityHeadLowering : GradPattern<OpTy> {
  using GradPattern<OpTy>::GradPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor a,
                                ConversionPatternRewriter &b) const override {
    b.replaceOp(op, a.getData());
    return success();
  }
};

struct LogisticRegressionOutputLowering
    : GradPattern<LogisticRegressionOutputOp> {
  using GradPattern::GradPattern;
  LogicalResult matchAndRewrite(LogisticRegressionOutputOp op, OpAdaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    unsigned rank = type.getRank();
    Value y = generic(
        b, op.getLoc(), type.getShape(), type.getElementType(), a.getData(),
        {b.getMultiDimIdentityMap(rank)}, parallel(rank),
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Type t = args[0].getType();
          Value e =
              math::ExpOp::create(nb, l, arith::NegFOp::create(nb, l, args[0]));
          Value one = constFloat(nb, l, t, 1.0);
          return arith::DivFOp::create(nb, l, one,
                                       arith::AddFOp::create(nb, l, one, e));
        });
    b.replaceOp(op, y);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Backward ops
//===----------------------------------------------------------------------===//

struct SoftmaxOutputGradLowering : GradPattern<SoftmaxOutputGradOp> {
  using GradPattern::GradPattern;
  LogicalResult matchAndRewrite(SoftmaxOutputGradOp op, OpAdaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    unsigned rank = type.getRank();
    unsigned axis = op.getMultiOutput() ? 1 : rank - 1;
    auto labelType = tensorType(a.getLabel());
    double ignore = op.getIgnoreLabel().convertToDouble();
    bool useIgnore = op.getUseIgnore();
    StringRef norm = op.getNormalization();
    double scale = op.getGradScale().convertToDouble();
    if (norm == "batch")
      scale /=
          op.getMultiOutput() ? labelType.getNumElements() : type.getDimSize(0);
    SmallVector<AffineExpr> le;
    for (unsigned i = 0; i < rank; ++i)
      if (i != axis)
        le.push_back(getAffineDimExpr(i, ctx));
    SmallVector<Value> inputs = {a.getOutput(), a.getLabel()};
    SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                   AffineMap::get(rank, 0, le, ctx)};
    if (norm == "valid") {
      // The count of labels that are not ignore_label, at least 1.
      unsigned lr = labelType.getRank();
      SmallVector<IteratorType> red(lr, IteratorType::reduction);
      Value count = generic(
          b, loc, {}, et, a.getLabel(), {b.getMultiDimIdentityMap(lr)}, red,
          [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
            Value ne =
                arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNE, args[0],
                                      constFloat(nb, l, et, ignore));
            Value one = arith::SelectOp::create(
                nb, l, ne, constFloat(nb, l, et, 1), constFloat(nb, l, et, 0));
            return arith::AddFOp::create(nb, l, args[1], one);
          },
          filledTensor(b, loc, {}, et, 0.0), AffineMap::get(lr, 0, {}, ctx));
      inputs.push_back(count);
      maps.push_back(AffineMap::get(rank, 0, {}, ctx));
    }
    Value y = generic(
        b, loc, type.getShape(), et, inputs, maps, parallel(rank),
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value idx = linalg::IndexOp::create(nb, l, axis);
          Value cls = arith::IndexCastOp::create(nb, l, nb.getI64Type(), idx);
          Value lab = arith::FPToSIOp::create(nb, l, nb.getI64Type(), args[1]);
          Value hot =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, cls, lab);
          Value g = arith::SubFOp::create(
              nb, l, args[0],
              arith::SelectOp::create(nb, l, hot, constFloat(nb, l, et, 1),
                                      constFloat(nb, l, et, 0)));
          g = arith::MulFOp::create(nb, l, g, constFloat(nb, l, et, scale));
          if (norm == "valid")
            g = arith::DivFOp::create(
                nb, l, g,
                arith::MaximumFOp::create(nb, l, args[2],
                                          constFloat(nb, l, et, 1)));
          if (useIgnore) {
            Value ig =
                arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, args[1],
                                      constFloat(nb, l, et, ignore));
            g = arith::SelectOp::create(nb, l, ig, constFloat(nb, l, et, 0), g);
          }
          return g;
        });
    b.replaceOp(op, y);
    return success();
  }
};

struct EmbeddingGradLowering : GradPattern<EmbeddingGradOp> {
  using GradPattern::GradPattern;
  LogicalResult matchAndRewrite(EmbeddingGradOp op, OpAdaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    unsigned ir = tensorType(a.getData()).getRank();
    unsigned n = 2 + ir;
    int64_t inputDim = op.getInputDim();
    // Loops: v, d (parallel), the id positions (reduction).
    SmallVector<AffineExpr> ids, dys;
    for (unsigned i = 0; i < ir; ++i) {
      ids.push_back(getAffineDimExpr(2 + i, ctx));
      dys.push_back(getAffineDimExpr(2 + i, ctx));
    }
    dys.push_back(getAffineDimExpr(1, ctx));
    SmallVector<IteratorType> iters = parallel(2);
    iters.append(ir, IteratorType::reduction);
    Value y = generic(
        b, loc, type.getShape(), et, {a.getData(), a.getOutGrad()},
        {AffineMap::get(n, 0, ids, ctx), AffineMap::get(n, 0, dys, ctx)}, iters,
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          // MXNet clips ids into [0, input_dim), as the forward does.
          Value id = arith::FPToSIOp::create(nb, l, nb.getI64Type(), args[0]);
          id = arith::MaxSIOp::create(
              nb, l, id,
              arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0)));
          id = arith::MinSIOp::create(
              nb, l, id,
              arith::ConstantOp::create(nb, l,
                                        nb.getI64IntegerAttr(inputDim - 1)));
          Value v = arith::IndexCastOp::create(
              nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, 0));
          Value hit =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, id, v);
          Value sum = arith::AddFOp::create(nb, l, args[2], args[1]);
          return arith::SelectOp::create(nb, l, hit, sum, args[2]);
        },
        filledTensor(b, loc, type.getShape(), et, 0.0),
        AffineMap::get(
            n, 0, {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)}, ctx));
    b.replaceOp(op, y);
    return success();
  }
};

struct SliceGradLowering : GradPattern<SliceGradOp> {
  using GradPattern::GradPattern;
  LogicalResult matchAndRewrite(SliceGradOp op, OpAdaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value zeros = filledTensor(b, op.getLoc(), type.getShape(),
                               type.getElementType(), 0.0);
    SmallVector<OpFoldResult> offs, sizes, strides;
    for (auto [s, st, n] : llvm::zip(op.getStarts(), op.getSteps(),
                                     tensorType(a.getOutGrad()).getShape())) {
      offs.push_back(b.getIndexAttr(s));
      strides.push_back(b.getIndexAttr(st));
      sizes.push_back(b.getIndexAttr(n));
    }
    b.replaceOpWithNewOp<tensor::InsertSliceOp>(op, a.getOutGrad(), zeros, offs,
                                                sizes, strides);
    return success();
  }
};

struct PoolingGradLowering : GradPattern<PoolingGradOp> {
  using GradPattern::GradPattern;
  LogicalResult matchAndRewrite(PoolingGradOp op, OpAdaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    auto inType = tensorType(a.getData());
    auto outType = tensorType(a.getOutput());
    Type et = inType.getElementType();
    ArrayRef<int64_t> kernel = op.getKernel(), stride = op.getStride(),
                      pad = op.getPad();
    unsigned ns = kernel.size(), rank = inType.getRank();
    SmallVector<int64_t> dilate(op.getDilate());
    if (dilate.empty())
      dilate.assign(ns, 1);
    StringRef type = op.getPoolType();
    bool isMax = type == "max";
    SmallVector<int64_t> spatialOut(outType.getShape().drop_front(2));
    SmallVector<int64_t> high(ns);
    for (unsigned s = 0; s < ns; ++s)
      high[s] = std::max<int64_t>((spatialOut[s] - 1) * stride[s] +
                                      (kernel[s] - 1) * dilate[s] + 1 -
                                      inType.getDimSize(2 + s) - pad[s],
                                  0);
    Value xpad = padZeros(b, loc, a.getData(), 2, pad, high,
                          -std::numeric_limits<double>::infinity());
    auto padType = tensorType(xpad);
    Value g = a.getOutGrad();
    if (type == "avg") {
      // Divide by the forward's divisor per output position.
      int64_t positions = outType.getNumElements() / outType.getDimSize(0) /
                          outType.getDimSize(1);
      SmallVector<double> divisor(positions, 1.0);
      for (int64_t p = 0; p < positions; ++p) {
        int64_t rest = p, count = 1;
        for (int s = ns - 1; s >= 0; --s) {
          int64_t o = rest % spatialOut[s];
          rest /= spatialOut[s];
          int64_t in = inType.getDimSize(2 + s);
          int64_t start = o * stride[s] - pad[s];
          int64_t end = std::min(start + kernel[s], in + pad[s]);
          if (!op.getCountIncludePad()) {
            start = std::max<int64_t>(start, 0);
            end = std::min(end, in);
          }
          count *= std::max<int64_t>(end - start, 1);
        }
        divisor[p] = 1.0 / count;
      }
      auto divType = RankedTensorType::get(spatialOut, b.getF64Type());
      Value div = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(divType, ArrayRef(divisor)));
      SmallVector<AffineExpr> de;
      for (unsigned s = 0; s < ns; ++s)
        de.push_back(getAffineDimExpr(2 + s, ctx));
      g = generic(
          b, loc, outType.getShape(), et, {g, div},
          {b.getMultiDimIdentityMap(rank), AffineMap::get(rank, 0, de, ctx)},
          parallel(rank),
          [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
            Value dv = args[1];
            if (dv.getType() != et)
              dv = arith::TruncFOp::create(nb, l, et, dv);
            return arith::MulFOp::create(nb, l, args[0], dv);
          });
    }
    // One strided accumulation per kernel offset k, whose taps sit at
    // k * dilate: dxpad[o * stride + k * dilate] += part.
    Value acc = filledTensor(b, loc, padType.getShape(), et, 0.0);
    forEachIndex(kernel, [&](ArrayRef<int64_t> k) {
      SmallVector<int64_t> tap(ns);
      for (unsigned s = 0; s < ns; ++s)
        tap[s] = k[s] * dilate[s];
      Value part = g;
      if (isMax) {
        // The window taps at offset k of every output, as a strided view.
        SmallVector<OpFoldResult> offs(rank, b.getIndexAttr(0)), sizes,
            strd(rank, b.getIndexAttr(1));
        for (int64_t e : outType.getShape())
          sizes.push_back(b.getIndexAttr(e));
        for (unsigned s = 0; s < ns; ++s) {
          offs[2 + s] = b.getIndexAttr(tap[s]);
          strd[2 + s] = b.getIndexAttr(stride[s]);
        }
        Value taps = tensor::ExtractSliceOp::create(
            b, loc, RankedTensorType::get(outType.getShape(), et), xpad, offs,
            sizes, strd);
        AffineMap id = b.getMultiDimIdentityMap(rank);
        part =
            generic(b, loc, outType.getShape(), et, {taps, a.getOutput(), g},
                    {id, id, id}, parallel(rank),
                    [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                      Value eq = arith::CmpFOp::create(
                          nb, l, arith::CmpFPredicate::OEQ, args[0], args[1]);
                      return arith::SelectOp::create(
                          nb, l, eq, args[2], constFloat(nb, l, et, 0.0));
                    });
      }
      acc = stridedAccumulate(b, loc, acc, part, 2, tap, stride);
    });
    SmallVector<OpFoldResult> offs(rank, b.getIndexAttr(0)), sizes,
        ones(rank, b.getIndexAttr(1));
    for (unsigned s = 0; s < ns; ++s)
      offs[2 + s] = b.getIndexAttr(pad[s]);
    for (int64_t d : inType.getShape())
      sizes.push_back(b.getIndexAttr(d));
    b.replaceOpWithNewOp<tensor::ExtractSliceOp>(op, inType, acc, offs, sizes,
                                                 ones);
    return success();
  }
};

/// Spatial attributes of a convolution with MXNet's defaults.
struct ConvGeometry {
  SmallVector<int64_t> kernel, stride, dilate, pad;
  ConvGeometry(ArrayRef<int64_t> k, ArrayRef<int64_t> s, ArrayRef<int64_t> d,
               ArrayRef<int64_t> p)
      : kernel(k) {
    size_t n = k.size();
    stride = s.empty() ? SmallVector<int64_t>(n, 1) : SmallVector<int64_t>(s);
    dilate = d.empty() ? SmallVector<int64_t>(n, 1) : SmallVector<int64_t>(d);
    pad = p.empty() ? SmallVector<int64_t>(n, 0) : SmallVector<int64_t>(p);
  }
};

/// (N, G*X, rest...) viewed as (N, G, X, rest...).
Value splitGroups(OpBuilder &b, Location loc, Value v, int64_t groups) {
  auto t = tensorType(v);
  SmallVector<int64_t> shape = {t.getDimSize(0), groups,
                                t.getDimSize(1) / groups};
  llvm::append_range(shape, t.getShape().drop_front(2));
  return reshapeTo(b, loc, v, shape);
}

struct ConvolutionGradDataLowering : GradPattern<ConvolutionGradDataOp> {
  using GradPattern::GradPattern;
  LogicalResult matchAndRewrite(ConvolutionGradDataOp op, OpAdaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    ConvGeometry geo(op.getKernel(), op.getStride(), op.getDilate(),
                     op.getPad());
    unsigned ns = geo.kernel.size();
    int64_t groups = op.getNumGroup();
    int64_t n = type.getDimSize(0), cg = type.getDimSize(1) / groups;
    auto dyT = tensorType(a.getOutGrad());
    int64_t fg = dyT.getDimSize(1) / groups;
    SmallVector<int64_t> spatialOut(dyT.getShape().drop_front(2));
    // dy as (N, G, Fg, O...), w as (G, Fg, Cg, K...).
    Value dy = splitGroups(b, loc, a.getOutGrad(), groups);
    SmallVector<int64_t> wShape = {groups, fg, cg};
    llvm::append_range(wShape, geo.kernel);
    Value w = reshapeTo(b, loc, a.getWeight(), wShape);
    // The padded input extent covering every tap of every output.
    SmallVector<int64_t> padShape = {n, groups, cg};
    for (unsigned s = 0; s < ns; ++s)
      padShape.push_back(
          std::max<int64_t>(type.getDimSize(2 + s) + 2 * geo.pad[s],
                            (spatialOut[s] - 1) * geo.stride[s] +
                                geo.dilate[s] * (geo.kernel[s] - 1) + 1));
    Value acc = filledTensor(b, loc, padShape, et, 0.0);
    // Loops: n, g, cg, o... (parallel), fg (reduction).
    unsigned nl = 4 + ns;
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> dye = {d(0), d(1), d(3 + ns)},
                            oute = {d(0), d(1), d(2)};
    for (unsigned s = 0; s < ns; ++s) {
      dye.push_back(d(3 + s));
      oute.push_back(d(3 + s));
    }
    SmallVector<int64_t> partShape = {n, groups, cg};
    llvm::append_range(partShape, spatialOut);
    SmallVector<IteratorType> iters = parallel(3 + ns);
    iters.push_back(IteratorType::reduction);
    forEachIndex(geo.kernel, [&](ArrayRef<int64_t> k) {
      SmallVector<AffineExpr> we = {d(1), d(3 + ns), d(2)};
      for (unsigned s = 0; s < ns; ++s)
        we.push_back(getAffineConstantExpr(k[s], ctx));
      Value part = generic(
          b, loc, partShape, et, {dy, w},
          {AffineMap::get(nl, 0, dye, ctx), AffineMap::get(nl, 0, we, ctx)},
          iters,
          [](OpBuilder &nb, Location l, ValueRange args) -> Value {
            Value m = arith::MulFOp::create(nb, l, args[0], args[1]);
            return arith::AddFOp::create(nb, l, args[2], m);
          },
          filledTensor(b, loc, partShape, et, 0.0),
          AffineMap::get(nl, 0, oute, ctx));
      SmallVector<int64_t> offsets;
      for (unsigned s = 0; s < ns; ++s)
        offsets.push_back(k[s] * geo.dilate[s]);
      acc = stridedAccumulate(b, loc, acc, part, 3, offsets, geo.stride);
    });
    SmallVector<OpFoldResult> offs(3 + ns, b.getIndexAttr(0)), sizes,
        ones(3 + ns, b.getIndexAttr(1));
    SmallVector<int64_t> unpadded = {n, groups, cg};
    for (unsigned s = 0; s < ns; ++s) {
      offs[3 + s] = b.getIndexAttr(geo.pad[s]);
      unpadded.push_back(type.getDimSize(2 + s));
    }
    for (int64_t e : unpadded)
      sizes.push_back(b.getIndexAttr(e));
    Value dx = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get(unpadded, et), acc, offs, sizes, ones);
    b.replaceOp(op, reshapeTo(b, loc, dx, type.getShape()));
    return success();
  }
};

struct ConvolutionGradWeightLowering : GradPattern<ConvolutionGradWeightOp> {
  using GradPattern::GradPattern;
  LogicalResult matchAndRewrite(ConvolutionGradWeightOp op, OpAdaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    ConvGeometry geo(op.getKernel(), op.getStride(), op.getDilate(),
                     op.getPad());
    unsigned ns = geo.kernel.size();
    int64_t groups = op.getNumGroup();
    auto xT = tensorType(a.getData());
    auto dyT = tensorType(a.getOutGrad());
    int64_t cg = xT.getDimSize(1) / groups, fg = dyT.getDimSize(1) / groups;
    SmallVector<int64_t> high(ns);
    for (unsigned s = 0; s < ns; ++s)
      high[s] = std::max<int64_t>((dyT.getDimSize(2 + s) - 1) * geo.stride[s] +
                                      geo.dilate[s] * (geo.kernel[s] - 1) + 1 -
                                      xT.getDimSize(2 + s) - geo.pad[s],
                                  0);
    Value x = splitGroups(
        b, loc, padZeros(b, loc, a.getData(), 2, geo.pad, high, 0.0), groups);
    Value dy = splitGroups(b, loc, a.getOutGrad(), groups);
    // Loops: g, fg, cg, k... (parallel), n, o... (reduction).
    unsigned nl = 4 + 2 * ns;
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    unsigned nIdx = 3 + ns;
    SmallVector<AffineExpr> xe = {d(nIdx), d(0), d(2)},
                            dye = {d(nIdx), d(0), d(1)},
                            oute = {d(0), d(1), d(2)};
    for (unsigned s = 0; s < ns; ++s) {
      AffineExpr o = d(nIdx + 1 + s), k = d(3 + s);
      xe.push_back(o * geo.stride[s] + k * geo.dilate[s]);
      dye.push_back(o);
      oute.push_back(k);
    }
    SmallVector<int64_t> outShape = {groups, fg, cg};
    llvm::append_range(outShape, geo.kernel);
    SmallVector<IteratorType> iters = parallel(3 + ns);
    iters.append(1 + ns, IteratorType::reduction);
    Value dw = generic(
        b, loc, outShape, et, {x, dy},
        {AffineMap::get(nl, 0, xe, ctx), AffineMap::get(nl, 0, dye, ctx)},
        iters,
        [](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value m = arith::MulFOp::create(nb, l, args[0], args[1]);
          return arith::AddFOp::create(nb, l, args[2], m);
        },
        filledTensor(b, loc, outShape, et, 0.0),
        AffineMap::get(nl, 0, oute, ctx));
    b.replaceOp(op, reshapeTo(b, loc, dw, type.getShape()));
    return success();
  }
};

/// The mask from splitmix64(seed * phi + counter * 2^32 + i): its top 24
/// bits as u in [0, 1); kept (1 / (1 - p)) when u >= p.
struct DropoutMaskLowering : GradPattern<DropoutMaskOp> {
  using GradPattern::GradPattern;
  LogicalResult matchAndRewrite(DropoutMaskOp op, OpAdaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType(), i64 = b.getI64Type();
    double p = op.getP().convertToDouble();
    uint64_t seed = uint64_t(op.getSeed()) * 0x9e3779b97f4a7c15ull;
    unsigned rank = type.getRank();
    Value y = generic(
        b, op.getLoc(), type.getShape(), et, {a.getCounter()},
        {AffineMap::get(rank, 0, {}, b.getContext())}, parallel(rank),
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          auto c = [&](uint64_t v) {
            return arith::ConstantOp::create(nb, l, i64,
                                             nb.getI64IntegerAttr(int64_t(v)));
          };
          // Row-major linear index of the element.
          Value index = c(0);
          for (unsigned d = 0; d < rank; ++d) {
            Value id = arith::IndexCastOp::create(
                nb, l, i64, linalg::IndexOp::create(nb, l, d));
            index = arith::AddIOp::create(
                nb, l,
                arith::MulIOp::create(nb, l, index, c(type.getDimSize(d))), id);
          }
          Value z = arith::AddIOp::create(
              nb, l, c(seed),
              arith::AddIOp::create(
                  nb, l, arith::ShLIOp::create(nb, l, args[0], c(32)), index));
          auto mix = [&](Value v, unsigned shift, uint64_t k) {
            Value x = arith::XOrIOp::create(
                nb, l, v, arith::ShRUIOp::create(nb, l, v, c(shift)));
            return k ? arith::MulIOp::create(nb, l, x, c(k)).getResult() : x;
          };
          z = arith::AddIOp::create(nb, l, z, c(0x9e3779b97f4a7c15ull));
          z = mix(z, 30, 0xbf58476d1ce4e5b9ull);
          z = mix(z, 27, 0x94d049bb133111ebull);
          z = mix(z, 31, 0);
          Value bits = arith::ShRUIOp::create(nb, l, z, c(40));
          Value u = arith::MulFOp::create(
              nb, l, arith::UIToFPOp::create(nb, l, nb.getF32Type(), bits),
              constFloat(nb, l, nb.getF32Type(), 0x1p-24));
          Value keep =
              arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGE, u,
                                    constFloat(nb, l, nb.getF32Type(), p));
          return arith::SelectOp::create(nb, l, keep,
                                         constFloat(nb, l, et, 1.0 / (1.0 - p)),
                                         constFloat(nb, l, et, 0.0));
        });
    b.replaceOp(op, y);
    return success();
  }
};

} // namespace

void mxc::populateGradOpsToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<DropoutMaskLowering, GradElemwiseLowering,
               IdentityHeadLowering<MakeLossOp>,
               IdentityHeadLowering<LinearRegressionOutputOp>,
               LogisticRegressionOutputLowering, SoftmaxOutputGradLowering,
               EmbeddingGradLowering, SliceGradLowering, PoolingGradLowering,
               ConvolutionGradDataLowering, ConvolutionGradWeightLowering>(
      patterns.getContext());
}
