// SPDX-License-Identifier: Apache-2.0
// Reductions -> linalg.generic with reduction iterators into a filled
// accumulator (LinalgBuilders.h's reduction()): mx.reduce, argmax / argmin,
// softmax and its loss head, and ONNX's CumSum. Integer means truncate
// toward zero; NaN propagates through max and min as in NumPy.
#include "dialects/mx/MxDialect.h"
#include "passes/lowering/LinalgBuilders.h"
#include "passes/lowering/ScalarBuilders.h"
#include "passes/lowering/linalg/Lowering.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mxc::mx;

namespace mxc::lowering {
namespace {

/// `fn` applied to each element of `x`, into a tensor of `type`.
Value mapElements(OpBuilder &b, Location loc, RankedTensorType type, Value x,
                  function_ref<Value(OpBuilder &, Location, Value)> fn) {
  return elementwise(b, loc, type, {x},
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       return fn(nb, l, args[0]);
                     });
}

/// mx.reduce's function `fn` of `x`, in the reduced shape: on floats and
/// integers every function, on booleans max (any) and min (all). Integer
/// l2 and logsumexp are computed in f64 and truncated.
Value reduceValues(OpBuilder &b, Location loc, StringRef fn, Value x,
                   const ReductionSpace &space, Sign sign = Sign::Signed) {
  auto type = tensorType(x);
  Type et = type.getElementType();
  bool isFloat = isa<FloatType>(et);
  if (!isFloat && (fn == "l2" || fn == "logsumexp")) {
    Type f64 = b.getF64Type();
    Value wide = mapElements(b, loc, type.clone(f64), x,
                             [&](OpBuilder &nb, Location l, Value v) {
                               return convertScalar(nb, l, v, f64, sign);
                             });
    Value y = reduceValues(b, loc, fn, wide, space);
    return mapElements(b, loc, RankedTensorType::get(space.shape, et), y,
                       [&](OpBuilder &nb, Location l, Value v) {
                         return convertScalar(nb, l, v, et, Sign::Signed, sign);
                       });
  }
  auto redType = RankedTensorType::get(space.shape, et);
  if (fn == "max" || fn == "min") {
    Combiner kind = fn == "max" ? Combiner::Max : Combiner::Min;
    return reduction(
        b, loc, x, space,
        constExtreme(b, loc, et, /*highest=*/fn == "min", sign),
        [&](OpBuilder &nb, Location l, Value e, Value acc, ValueRange) {
          return combine(nb, l, kind, e, acc, sign);
        });
  }
  if (fn == "prod")
    return reduction(b, loc, x, space, constScalar(b, loc, et, 1.0),
                     [&](OpBuilder &nb, Location l, Value e, Value acc,
                         ValueRange) { return mulValues(nb, l, e, acc); });
  if (fn == "logsumexp") {
    // log(sum(exp(x - m))) + m with m the maximum where it is finite (all
    // -inf gives -inf, not NaN).
    Value m = reduceValues(b, loc, "max", x, space);
    Value shift = mapElements(
        b, loc, redType, m, [&](OpBuilder &nb, Location l, Value v) {
          Value finite = cmpF(nb, l, arith::CmpFPredicate::OLT,
                              math::AbsFOp::create(nb, l, v),
                              constExtreme(nb, l, et, /*highest=*/true));
          return select(nb, l, finite, v, constFloat(nb, l, et, 0.0));
        });
    Value sum =
        reduction(b, loc, x, space, constFloat(b, loc, et, 0.0),
                  [&](OpBuilder &nb, Location l, Value e, Value acc,
                      ValueRange extras) -> Value {
                    Value d = arith::SubFOp::create(nb, l, e, extras[0]);
                    return arith::AddFOp::create(nb, l, acc,
                                                 math::ExpOp::create(nb, l, d));
                  },
                  {shift});
    return elementwise(
        b, loc, redType, {sum, shift},
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          return arith::AddFOp::create(
              nb, l, math::LogOp::create(nb, l, args[0]), args[1]);
        });
  }

  // Sums: sum, mean, l1 (of |x|), sumsquare and l2 (of x^2). Floats
  // narrower than f64 add up in f64 where many elements go into each sum:
  // the loop adds them one after the other, and a float32 running sum
  // loses the low bits of every term once it is large (a sum of terms that
  // cancel keeps the error of its largest partial sums). The f64 adds take
  // as long (one dependent chain either way). Inception-BN's first 3x3
  // convolution's bias (its gradient a sum over 64 x 56 x 56 positions
  // that is 0 but for rounding, the convolution feeding a BatchNorm):
  // after one SGD step, 3.4e-7 from PyTorch's float64 step in float32 sums
  // (PyTorch's float32 step: 1.6e-8).
  Type acc = et;
  if (isFloat && et.getIntOrFloatBitWidth() < 64 && space.count >= 4096)
    acc = b.getF64Type();
  Value y =
      reduction(b, loc, x, space, constScalar(b, loc, acc, 0.0),
                [&](OpBuilder &nb, Location l, Value e, Value sum, ValueRange) {
                  if (fn == "l1")
                    e = isFloat ? math::AbsFOp::create(nb, l, e).getResult()
                                : math::AbsIOp::create(nb, l, e).getResult();
                  else if (fn == "sumsquare" || fn == "l2")
                    e = mulValues(nb, l, e, e);
                  if (acc != et)
                    e = arith::ExtFOp::create(nb, l, acc, e);
                  return addValues(nb, l, e, sum);
                });
  if (acc != et)
    y = mapElements(b, loc, redType, y,
                    [&](OpBuilder &nb, Location l, Value v) -> Value {
                      return arith::TruncFOp::create(nb, l, et, v);
                    });
  if (fn == "mean" && (isFloat || space.count > 0))
    return mapElements(b, loc, redType, y,
                       [&](OpBuilder &nb, Location l, Value v) -> Value {
                         Value n = constScalar(nb, l, et, (double)space.count);
                         if (isFloat)
                           return arith::DivFOp::create(nb, l, v, n);
                         if (sign == Sign::Unsigned)
                           return arith::DivUIOp::create(nb, l, v, n);
                         return arith::DivSIOp::create(nb, l, v, n);
                       });
  if (fn == "l2")
    return mapElements(b, loc, redType, y,
                       [&](OpBuilder &nb, Location l, Value v) {
                         return math::SqrtOp::create(nb, l, v);
                       });
  return y;
}

FailureOr<Value> lowerReduce(ReduceOp op, ReduceOp::Adaptor a, OpBuilder &b) {
  auto inType = tensorType(a.getData());
  StringRef fn = op.getOp();
  if (isBool(inType.getElementType()) && fn != "max" && fn != "min")
    return op.emitOpError("reduction '")
           << fn << "' is not defined for booleans";
  ReductionSpace space(b.getContext(), inType.getShape(), op.getReducedAxes());
  Value y = reduceValues(b, op.getLoc(), fn, a.getData(), space, signOf(op));
  return reshapeTo(b, op.getLoc(), y,
                   cast<RankedTensorType>(op.getType()).getShape());
}

/// One generic with two outputs, the running extreme and its index. The
/// update does not depend on the visiting order: an element wins if it is
/// strictly better, or equal with a smaller index (a larger one with
/// select_last_index). NaN beats every number, as in NumPy.
FailureOr<Value> lowerArgReduce(ArgReduceOp op, ArgReduceOp::Adaptor a,
                                OpBuilder &b) {
  Location loc = op.getLoc();
  auto dataType = tensorType(a.getData());
  Type et = dataType.getElementType(), i64 = b.getI64Type();
  int64_t axis = normalizeAxis(op.getAxis(), dataType.getRank());
  bool isMax = op.getOp() == "max", last = op.getSelectLastIndex();
  ReductionSpace space(b.getContext(), dataType.getShape(), {axis});
  Sign sign = signOf(op);
  Value initValue =
      filledTensor(b, loc, space.shape, constExtreme(b, loc, et, !isMax, sign));
  Value initIndex = filledTensor(b, loc, space.shape, constInt(b, loc, i64, 0));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{initValue.getType(), initIndex.getType()},
      ValueRange{a.getData()}, ValueRange{initValue, initIndex},
      ArrayRef<AffineMap>{space.loopIn, space.loopOut, space.loopOut},
      space.loopIters, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value x = args[0], best = args[1], bestIndex = args[2];
        Value i = loopIndexI64(nb, l, space.loopOf[axis]);
        Value better, same;
        if (isa<FloatType>(et)) {
          using P = arith::CmpFPredicate;
          Value xNaN = cmpF(nb, l, P::UNO, x, x);
          Value bestNaN = cmpF(nb, l, P::UNO, best, best);
          Value bestNum = arith::XOrIOp::create(
              nb, l, bestNaN, constInt(nb, l, nb.getI1Type(), 1));
          better = arith::OrIOp::create(
              nb, l, cmpF(nb, l, isMax ? P::OGT : P::OLT, x, best),
              arith::AndIOp::create(nb, l, xNaN, bestNum));
          same =
              arith::OrIOp::create(nb, l, cmpF(nb, l, P::OEQ, x, best),
                                   arith::AndIOp::create(nb, l, xNaN, bestNaN));
        } else {
          using P = arith::CmpIPredicate;
          better = cmpI(nb, l, isMax ? P::sgt : P::slt, x, best, sign);
          same = cmpI(nb, l, P::eq, x, best);
        }
        Value tie = cmpI(
            nb, l, last ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt,
            i, bestIndex);
        Value take = arith::OrIOp::create(
            nb, l, better, arith::AndIOp::create(nb, l, same, tie));
        linalg::YieldOp::create(nb, l,
                                ValueRange{select(nb, l, take, x, best),
                                           select(nb, l, take, i, bestIndex)});
      });
  return reshapeTo(b, loc, generic.getResult(1),
                   cast<RankedTensorType>(op.getType()).getShape());
}

/// softmax / log_softmax of `x` along `axis` (temperature applied first):
/// the maximum, the sum of exponentials shifted by it, then the quotient.
Value softmax(OpBuilder &b, Location loc, Value x, int64_t axis,
              double temperature, bool log) {
  auto type = tensorType(x);
  Type et = type.getElementType();
  unsigned rank = type.getRank();
  ReductionSpace space(b.getContext(), type.getShape(), {axis});
  auto scaled = [&](OpBuilder &nb, Location l, Value v) -> Value {
    if (temperature == 1.0)
      return v;
    return arith::DivFOp::create(nb, l, v, constFloat(nb, l, et, temperature));
  };
  Value maxv = reduction(
      b, loc, x, space,
      constFloat(b, loc, et, -std::numeric_limits<double>::infinity()),
      [&](OpBuilder &nb, Location l, Value e, Value acc, ValueRange) -> Value {
        return arith::MaxNumFOp::create(nb, l, scaled(nb, l, e), acc);
      });
  Value sum = reduction(
      b, loc, x, space, constFloat(b, loc, et, 0.0),
      [&](OpBuilder &nb, Location l, Value e, Value acc,
          ValueRange extras) -> Value {
        Value s = arith::SubFOp::create(nb, l, scaled(nb, l, e), extras[0]);
        return arith::AddFOp::create(nb, l, math::ExpOp::create(nb, l, s), acc);
      },
      {maxv});
  AffineMap red = space.outMap;
  return generic(
      b, loc, type.getShape(), et, {x, maxv, sum},
      {b.getMultiDimIdentityMap(rank), red, red}, parallel(rank),
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value s = arith::SubFOp::create(nb, l, scaled(nb, l, args[0]), args[1]);
        if (log)
          return arith::SubFOp::create(nb, l, s,
                                       math::LogOp::create(nb, l, args[2]));
        return arith::DivFOp::create(nb, l, math::ExpOp::create(nb, l, s),
                                     args[2]);
      });
}

FailureOr<Value> lowerSoftmax(SoftmaxOp op, SoftmaxOp::Adaptor a,
                              OpBuilder &b) {
  int64_t rank = tensorType(a.getData()).getRank();
  return softmax(b, op.getLoc(), a.getData(), normalizeAxis(op.getAxis(), rank),
                 op.getTemperature().convertToDouble(), op.getLog());
}

/// The forward of the loss head: softmax over axis 1 (multi_output), the
/// last axis (preserve_shape) or all but the first.
FailureOr<Value> lowerSoftmaxOutput(SoftmaxOutputOp op,
                                    SoftmaxOutputOp::Adaptor a, OpBuilder &b) {
  Location loc = op.getLoc();
  auto type = tensorType(a.getData());
  if (op.getMultiOutput())
    return softmax(b, loc, a.getData(), 1, 1.0, false);
  if (op.getPreserveShape())
    return softmax(b, loc, a.getData(), type.getRank() - 1, 1.0, false);
  int64_t n = type.getDimSize(0);
  Value flat = reshapeTo(b, loc, a.getData(), {n, type.getNumElements() / n});
  return reshapeTo(b, loc, softmax(b, loc, flat, 1, 1.0, false),
                   type.getShape());
}

/// out[..., i, ...] = sum over j of (j included for i) ? data[..., j, ...]
/// : 0, as a generic with the axis's source position j as an extra
/// (innermost, reduction) loop. Quadratic in the axis's extent, but every
/// output sums in the order of a sequential scan.
FailureOr<Value> lowerCumSum(CumSumOp op, CumSumOp::Adaptor a, OpBuilder &b) {
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getType());
  Type et = type.getElementType();
  int64_t rank = type.getRank(), axis = normalizeAxis(op.getAxis(), rank);
  bool exclusive = op.getExclusive(), reverse = op.getReverse();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> in;
  for (int64_t d = 0; d < rank; ++d)
    in.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
  Value empty = emptyTensor(b, loc, type.getShape(), et);
  Value init = linalg::FillOp::create(b, loc, constScalar(b, loc, et, 0), empty)
                   .getResult(0);
  using P = arith::CmpIPredicate;
  P pred =
      reverse ? (exclusive ? P::sgt : P::sge) : (exclusive ? P::slt : P::sle);
  return generic(
      b, loc, type.getShape(), et, {a.getData()}, {loopMap(ctx, rank + 1, in)},
      iterators(rank, 1),
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value j = loopIndexI64(nb, l, rank), i = loopIndexI64(nb, l, axis);
        Value take = arith::CmpIOp::create(nb, l, pred, j, i);
        Value x = arith::SelectOp::create(nb, l, take, args[0],
                                          constScalar(nb, l, et, 0));
        return addValues(nb, l, args[1], x);
      },
      init, axesMap(ctx, rank + 1, 0, rank));
}

} // namespace

void populateReductionPatterns(RewritePatternSet &patterns) {
  addLowerings(patterns, lowerReduce, lowerArgReduce, lowerSoftmax,
               lowerSoftmaxOutput, lowerCumSum);
}

} // namespace mxc::lowering
