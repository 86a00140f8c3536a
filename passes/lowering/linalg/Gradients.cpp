// SPDX-License-Identifier: Apache-2.0
// The training ops of MxGradOps.td that are not a forward op's backward
// twin -> single linalg.generics: the pointwise derivatives of
// grad_elemwise (one formula per forward function), the loss heads'
// forward and SoftmaxOutput's gradient, and the dropout mask. The backward
// ops of convolutions, poolings, slices and embeddings live beside their
// forward ops (Convolution.cpp, Pooling.cpp, Shape.cpp, Indexing.cpp).
#include "dialects/mx/MxDialect.h"
#include "passes/lowering/LinalgBuilders.h"
#include "passes/lowering/ScalarBuilders.h"
#include "passes/lowering/linalg/Lowering.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mxc::mx;

namespace mxc::lowering {
namespace {

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

FailureOr<Value> lowerGradElemwise(GradElemwiseOp op, GradElemwiseOp::Adaptor a,
                                   OpBuilder &b) {
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
                      Value r =
                          gradFormula(nb, l, fn, args.drop_back(), alpha, beta);
                      if (!r) {
                        known = false;
                        return args.back();
                      }
                      return r;
                    });
  if (!known)
    return op.emitError("no lowering for grad_elemwise fn \"") << fn << "\"";
  return y;
}

/// The forward of the logistic loss head: sigmoid(x).
FailureOr<Value>
lowerLogisticRegressionOutput(LogisticRegressionOutputOp op,
                              LogisticRegressionOutputOp::Adaptor a,
                              OpBuilder &b) {
  return elementwise(
      b, op.getLoc(), cast<RankedTensorType>(op.getType()), {a.getData()},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Type t = args[0].getType();
        Value e =
            math::ExpOp::create(nb, l, arith::NegFOp::create(nb, l, args[0]));
        Value one = constFloat(nb, l, t, 1.0);
        return arith::DivFOp::create(nb, l, one,
                                     arith::AddFOp::create(nb, l, one, e));
      });
}

/// (softmax - one_hot(label)) * grad_scale, normalized per the batch or the
/// valid labels, zero at ignored labels.
FailureOr<Value> lowerSoftmaxOutputGrad(SoftmaxOutputGradOp op,
                                        SoftmaxOutputGradOp::Adaptor a,
                                        OpBuilder &b) {
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getType());
  unsigned rank = type.getRank();
  unsigned axis = op.getMultiOutput() ? 1 : rank - 1;
  Type et = type.getElementType();
  MLIRContext *ctx = b.getContext();
  auto labelType = tensorType(a.getLabel());
  double ignore = op.getIgnoreLabel().convertToDouble();
  bool useIgnore = op.getUseIgnore();
  StringRef norm = op.getNormalization();
  double scale = op.getGradScale().convertToDouble();
  if (norm == "batch")
    scale /=
        op.getMultiOutput() ? labelType.getNumElements() : type.getDimSize(0);
  auto c = [&](OpBuilder &nb, Location l, double v) {
    return constFloat(nb, l, et, v);
  };
  SmallVector<Value> inputs = {a.getOutput(), a.getLabel()};
  SmallVector<AffineMap> maps = {
      b.getMultiDimIdentityMap(rank),
      ReductionSpace(ctx, type.getShape(), {axis}).outMap};
  if (norm == "valid") {
    // The count of labels that are not ignore_label, at least 1.
    unsigned lr = labelType.getRank();
    Value count = generic(
        b, loc, {}, et, a.getLabel(), {b.getMultiDimIdentityMap(lr)},
        iterators(0, lr),
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value ne =
              cmpF(nb, l, arith::CmpFPredicate::UNE, args[0], c(nb, l, ignore));
          Value one = select(nb, l, ne, c(nb, l, 1), c(nb, l, 0));
          return arith::AddFOp::create(nb, l, args[1], one);
        },
        filledTensor(b, loc, {}, et, 0.0), loopMap(ctx, lr, {}));
    inputs.push_back(count);
    maps.push_back(loopMap(ctx, rank, {}));
  }
  return generic(
      b, loc, type.getShape(), et, inputs, maps, parallel(rank),
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value cls = loopIndexI64(nb, l, axis);
        Value lab = arith::FPToSIOp::create(nb, l, nb.getI64Type(), args[1]);
        Value hot =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, cls, lab);
        Value g = arith::SubFOp::create(
            nb, l, args[0], select(nb, l, hot, c(nb, l, 1), c(nb, l, 0)));
        g = arith::MulFOp::create(nb, l, g, c(nb, l, scale));
        if (norm == "valid")
          g = arith::DivFOp::create(
              nb, l, g, arith::MaximumFOp::create(nb, l, args[2], c(nb, l, 1)));
        if (useIgnore) {
          Value ig =
              cmpF(nb, l, arith::CmpFPredicate::OEQ, args[1], c(nb, l, ignore));
          g = select(nb, l, ig, c(nb, l, 0), g);
        }
        return g;
      });
}

/// The mask from splitmix64(seed * phi + counter * 2^32 + i): its top 24
/// bits as u in [0, 1); kept (1 / (1 - p)) when u >= p.
FailureOr<Value> lowerDropoutMask(DropoutMaskOp op, DropoutMaskOp::Adaptor a,
                                  OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  Type et = type.getElementType(), i64 = b.getI64Type();
  double p = op.getP().convertToDouble();
  uint64_t seed = uint64_t(op.getSeed()) * 0x9e3779b97f4a7c15ull;
  unsigned rank = type.getRank();
  return generic(
      b, op.getLoc(), type.getShape(), et, {a.getCounter()},
      {loopMap(b.getContext(), rank, {})}, parallel(rank),
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        auto c = [&](uint64_t v) {
          return arith::ConstantOp::create(nb, l, i64,
                                           nb.getI64IntegerAttr(int64_t(v)));
        };
        // Row-major linear index of the element.
        Value index = c(0);
        for (unsigned d = 0; d < rank; ++d) {
          Value id = loopIndexI64(nb, l, d);
          index = arith::AddIOp::create(
              nb, l, arith::MulIOp::create(nb, l, index, c(type.getDimSize(d))),
              id);
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
        Type f32 = nb.getF32Type();
        Value u = arith::MulFOp::create(
            nb, l, arith::UIToFPOp::create(nb, l, f32, bits),
            constFloat(nb, l, f32, 0x1p-24));
        Value keep = cmpF(nb, l, arith::CmpFPredicate::OGE, u,
                          constFloat(nb, l, f32, p));
        return select(nb, l, keep, constFloat(nb, l, et, 1.0 / (1.0 - p)),
                      constFloat(nb, l, et, 0.0));
      });
}

} // namespace

void populateGradientPatterns(RewritePatternSet &patterns) {
  addLowerings(patterns, lowerGradElemwise, lowerLogisticRegressionOutput,
               lowerSoftmaxOutputGrad, lowerDropoutMask);
}

} // namespace mxc::lowering
