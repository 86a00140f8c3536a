// SPDX-License-Identifier: Apache-2.0
// Normalizations -> linalg: inference BatchNorm folded to a per-channel
// scale and shift (decided at compile time, one multiply-add per element),
// LayerNorm as two reductions (mean, variance) and an elementwise epilogue,
// and LRN as a windowed sum over channels.
#include "dialects/mx/MxDialect.h"
#include "passes/lowering/LinalgBuilders.h"
#include "passes/lowering/ScalarBuilders.h"
#include "passes/lowering/linalg/Lowering.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mxc::mx;

namespace mxc::lowering {
namespace {

/// What BatchNorm and LayerNorm read of their op: the data's type, the axis
/// of the channels (BatchNorm) or of the reduction (LayerNorm), and epsilon.
struct AxisNormalization {
  RankedTensorType type;
  Type et;
  unsigned rank;
  int64_t axis;
  double eps;

  template <typename OpTy>
  explicit AxisNormalization(OpTy op)
      : type(cast<RankedTensorType>(op.getType())), et(type.getElementType()),
        rank(type.getRank()), axis(normalizeAxis(op.getAxis(), rank)),
        eps(op.getEps().convertToDouble()) {}

  /// 1 / sqrt(variance + eps).
  Value inverseStd(OpBuilder &b, Location l, Value variance) const {
    Value v = arith::AddFOp::create(b, l, variance, constFloat(b, l, et, eps));
    return math::RsqrtOp::create(b, l, v);
  }

  /// `fn` of the data `x` and `operands` read through `maps` (after the
  /// data's identity map), over the data's shape.
  Value map(OpBuilder &b, Location loc, Value x, ValueRange operands,
            ArrayRef<AffineMap> maps, BodyFn fn) const {
    SmallVector<Value> inputs = {x};
    llvm::append_range(inputs, operands);
    SmallVector<AffineMap> all = {b.getMultiDimIdentityMap(rank)};
    llvm::append_range(all, maps);
    return generic(b, loc, type.getShape(), et, inputs, all, parallel(rank),
                   fn);
  }
};

/// out = x * scale + shift with the per-channel scale = gamma / sqrt(var +
/// eps) (1 / sqrt(var + eps) with fix_gamma) and shift = beta - mean * scale.
FailureOr<Value> lowerBatchNorm(BatchNormOp op, BatchNormOp::Adaptor a,
                                OpBuilder &b) {
  Location loc = op.getLoc();
  AxisNormalization norm(op);
  int64_t c = norm.type.getDimSize(norm.axis);
  bool fixGamma = op.getFixGamma();
  auto id1 = b.getMultiDimIdentityMap(1);
  Value scale = generic(
      b, loc, {c}, norm.et, {a.getGamma(), a.getMovingVar()}, {id1, id1},
      parallel(1), [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value r = norm.inverseStd(nb, l, args[1]);
        return fixGamma ? r
                        : arith::MulFOp::create(nb, l, args[0], r).getResult();
      });
  Value shift =
      generic(b, loc, {c}, norm.et, {a.getBeta(), a.getMovingMean(), scale},
              {id1, id1, id1}, parallel(1),
              [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                Value ms = arith::MulFOp::create(nb, l, args[1], args[2]);
                return arith::SubFOp::create(nb, l, args[0], ms);
              });
  AffineMap cm = channelMap(b.getContext(), norm.rank, norm.axis);
  return norm.map(b, loc, a.getData(), {scale, shift}, {cm, cm},
                  [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                    Value m = arith::MulFOp::create(nb, l, args[0], args[1]);
                    return arith::AddFOp::create(nb, l, m, args[2]);
                  });
}

/// out = (x - mean) / sqrt(var + eps) * gamma + beta, with the mean and the
/// population variance over `axis`.
FailureOr<Value> lowerLayerNorm(LayerNormOp op, LayerNormOp::Adaptor a,
                                OpBuilder &b) {
  Location loc = op.getLoc();
  AxisNormalization norm(op);
  ReductionSpace space(b.getContext(), norm.type.getShape(), {norm.axis});
  auto redType = RankedTensorType::get(space.shape, norm.et);
  Value x = a.getData();
  Value zero = constFloat(b, loc, norm.et, 0.0);
  Value sum = reduction(
      b, loc, x, space, zero,
      [](OpBuilder &nb, Location l, Value e, Value acc, ValueRange) -> Value {
        return arith::AddFOp::create(nb, l, e, acc);
      });
  Value n = constFloat(b, loc, norm.et, (double)space.count);
  Value mean = elementwise(b, loc, redType, {sum},
                           [&](OpBuilder &nb, Location l, ValueRange args) {
                             return arith::DivFOp::create(nb, l, args[0], n);
                           });
  Value sq = reduction(b, loc, x, space, zero,
                       [](OpBuilder &nb, Location l, Value e, Value acc,
                          ValueRange extras) -> Value {
                         Value d = arith::SubFOp::create(nb, l, e, extras[0]);
                         return arith::AddFOp::create(
                             nb, l, acc, arith::MulFOp::create(nb, l, d, d));
                       },
                       {mean});
  Value rstd = elementwise(
      b, loc, redType, {sq}, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value var = arith::DivFOp::create(nb, l, args[0], n);
        return norm.inverseStd(nb, l, var);
      });
  AffineMap cm = channelMap(b.getContext(), norm.rank, norm.axis);
  return norm.map(b, loc, x, {mean, rstd, a.getGamma(), a.getBeta()},
                  {space.outMap, space.outMap, cm, cm},
                  [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                    Value d = arith::SubFOp::create(nb, l, args[0], args[1]);
                    Value s = arith::MulFOp::create(
                        nb, l, arith::MulFOp::create(nb, l, d, args[2]),
                        args[3]);
                    return arith::AddFOp::create(nb, l, s, args[4]);
                  });
}

/// out = x / (knorm + alpha / nsize * sum of x^2 over the nsize channels
/// around)^beta: the squares padded along the channels, then summed over a
/// window (loops n, c, h, w parallel, k the window's reduction).
FailureOr<Value> lowerLRN(LRNOp op, LRNOp::Adaptor a, OpBuilder &b) {
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(op.getType());
  Type et = type.getElementType();
  int64_t nsize = op.getNsize(), half = nsize / 2;
  Value sq = elementwise(b, loc, type, {a.getData()},
                         [](OpBuilder &nb, Location l, ValueRange args) {
                           return mulValues(nb, l, args[0], args[0]);
                         });
  Value padded = padAxes(b, loc, sq, 1, {half}, {half}, 0.0);
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  Value window = emptyTensor(b, loc, {nsize}, et);
  Value sum = generic(
      b, loc, type.getShape(), et, {padded, window},
      {loopMap(ctx, 5, {d(0), d(1) + d(4), d(2), d(3)}), loopMap(ctx, 5, d(4))},
      iterators(4, 1),
      [](OpBuilder &nb, Location l, ValueRange args) {
        return addValues(nb, l, args[0], args[2]);
      },
      filledTensor(b, loc, type.getShape(), et, 0.0), axesMap(ctx, 5, 0, 4));
  double salpha = op.getAlpha().convertToDouble() / nsize;
  double knorm = op.getKnorm().convertToDouble(),
         beta = op.getBeta().convertToDouble();
  return elementwise(
      b, loc, type, {a.getData(), sum},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value s = arith::MulFOp::create(nb, l, args[1],
                                        constFloat(nb, l, et, salpha));
        s = arith::AddFOp::create(nb, l, s, constFloat(nb, l, et, knorm));
        Value p = math::PowFOp::create(nb, l, s, constFloat(nb, l, et, beta));
        return arith::DivFOp::create(nb, l, args[0], p);
      });
}

} // namespace

void populateNormalizationPatterns(RewritePatternSet &patterns) {
  addLowerings(patterns, lowerBatchNorm, lowerLayerNorm, lowerLRN);
}

} // namespace mxc::lowering
