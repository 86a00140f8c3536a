// SPDX-License-Identifier: Apache-2.0
// Elementwise ops -> one linalg.generic each, whose body is the op's scalar
// formula (ScalarBuilders.h); operands of other shapes are read through
// NumPy broadcasting maps. Ops that are the identity where mxc runs them
// (inference's Dropout, the loss heads' forward) forward their data.
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

/// Ops that are the identity: Dropout and BlockGrad at inference, MakeLoss
/// and LinearRegressionOutput in the forward pass.
template <typename OpTy>
FailureOr<Value> forwardData(OpTy, typename OpTy::Adaptor a, OpBuilder &) {
  return a.getData();
}

/// `fn` of each element of `x`, into a tensor of `type`.
Value mapUnary(OpBuilder &b, Location loc, Type type, Value x, StringRef fn,
               Sign sign) {
  return elementwise(b, loc, cast<RankedTensorType>(type), {x},
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       return applyUnary(nb, l, fn, args[0], sign);
                     });
}

FailureOr<Value> lowerActivation(ActivationOp op, ActivationOp::Adaptor a,
                                 OpBuilder &b) {
  return mapUnary(b, op.getLoc(), op.getType(), a.getData(), op.getActType(),
                  Sign::Signed);
}

FailureOr<Value> lowerUnary(UnaryOp op, UnaryOp::Adaptor a, OpBuilder &b) {
  return mapUnary(b, op.getLoc(), op.getType(), a.getData(), op.getOp(),
                  signOf(op));
}

/// The negative side of LeakyReLU's act_type `act` at `x` (`gamma`: PReLU's
/// slope there).
Value leakyNegative(OpBuilder &b, Location l, StringRef act, Value x,
                    Value gamma, double slope) {
  Type t = x.getType();
  if (act == "leaky")
    return arith::MulFOp::create(b, l, x, constFloat(b, l, t, slope));
  if (act == "prelu")
    return arith::MulFOp::create(b, l, x, gamma);
  Value em1 = math::ExpM1Op::create(b, l, x);
  if (act == "elu")
    return arith::MulFOp::create(b, l, em1, constFloat(b, l, t, slope));
  return arith::MulFOp::create( // selu
      b, l, em1, constFloat(b, l, t, 1.6732632423543772 * 1.0507009873554805));
}

FailureOr<Value> lowerLeakyReLU(LeakyReLUOp op, LeakyReLUOp::Adaptor a,
                                OpBuilder &b) {
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
  return generic(
      b, op.getLoc(), type.getShape(), type.getElementType(), inputs, maps,
      parallel(rank), [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value x = args[0];
        Type t = x.getType();
        Value zero = constFloat(nb, l, t, 0.0);
        Value pos =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, x, zero);
        if (act == "gelu") {
          Value s =
              arith::MulFOp::create(nb, l, x, constFloat(nb, l, t, M_SQRT1_2));
          Value e = arith::AddFOp::create(nb, l, constFloat(nb, l, t, 1.0),
                                          math::ErfOp::create(nb, l, s));
          return arith::MulFOp::create(
              nb, l, arith::MulFOp::create(nb, l, constFloat(nb, l, t, 0.5), x),
              e);
        }
        Value neg = leakyNegative(nb, l, act, x,
                                  act == "prelu" ? args[1] : Value(), slope);
        Value posv = x;
        if (act == "selu")
          posv = arith::MulFOp::create(
              nb, l, x, constFloat(nb, l, t, 1.0507009873554805));
        return arith::SelectOp::create(nb, l, pos, posv, neg);
      });
}

/// `fn` of `inputs` broadcast NumPy-style into `type`.
Value mapBroadcast(OpBuilder &b, Location loc, Type resultType,
                   ValueRange inputs, BodyFn fn) {
  auto type = cast<RankedTensorType>(resultType);
  SmallVector<AffineMap> maps;
  for (Value v : inputs)
    maps.push_back(broadcastMap(b.getContext(), tensorType(v).getShape(),
                                type.getShape()));
  return generic(b, loc, type.getShape(), type.getElementType(), inputs, maps,
                 parallel(type.getRank()), fn);
}

FailureOr<Value> lowerBinary(BinaryOp op, BinaryOp::Adaptor a, OpBuilder &b) {
  StringRef fn = op.getOp();
  return mapBroadcast(b, op.getLoc(), op.getType(), {a.getLhs(), a.getRhs()},
                      [&](OpBuilder &nb, Location l, ValueRange args) {
                        return applyBinary(nb, l, fn, args[0], args[1],
                                           signOf(op));
                      });
}

FailureOr<Value> lowerCompare(CompareOp op, CompareOp::Adaptor a,
                              OpBuilder &b) {
  StringRef fn = op.getOp();
  return mapBroadcast(b, op.getLoc(), op.getType(), {a.getLhs(), a.getRhs()},
                      [&](OpBuilder &nb, Location l, ValueRange args) {
                        return applyCompare(nb, l, fn, args[0], args[1],
                                            signOf(op));
                      });
}

FailureOr<Value> lowerWhere(WhereOp op, WhereOp::Adaptor a, OpBuilder &b) {
  return mapBroadcast(b, op.getLoc(), op.getType(),
                      {a.getCond(), a.getX(), a.getY()},
                      [](OpBuilder &nb, Location l, ValueRange args) {
                        return select(nb, l, args[0], args[1], args[2]);
                      });
}

FailureOr<Value> lowerBroadcastTo(BroadcastToOp op, BroadcastToOp::Adaptor a,
                                  OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  return readThrough(b, op.getLoc(), type.getShape(), a.getData(),
                     broadcastMap(b.getContext(),
                                  tensorType(a.getData()).getShape(),
                                  type.getShape()));
}

FailureOr<Value> lowerScalar(ScalarOp op, ScalarOp::Adaptor a, OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  if (isBool(type.getElementType()))
    return op.emitOpError("scalar arithmetic is not defined for booleans");
  StringRef fn = op.getOp();
  double scalar = op.getScalar().convertToDouble();
  bool reverse = op.getReverse();
  return elementwise(b, op.getLoc(), type, {a.getData()},
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       // On integers the scalar truncated toward zero.
                       Value s = constScalar(nb, l, args[0].getType(), scalar);
                       Sign sign = signOf(op);
                       return reverse
                                  ? applyBinary(nb, l, fn, s, args[0], sign)
                                  : applyBinary(nb, l, fn, args[0], s, sign);
                     });
}

FailureOr<Value> lowerClip(ClipOp op, ClipOp::Adaptor a, OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  Type et = type.getElementType();
  if (isBool(et))
    return op.emitOpError("clip is not defined for booleans");
  double lo = op.getAMin().convertToDouble(),
         hi = op.getAMax().convertToDouble();
  bool isFloat = isa<FloatType>(et);
  return elementwise(
      b, op.getLoc(), type, {a.getData()},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value x = args[0];
        if (isFloat) {
          // MXNet's formula, which keeps NaN (as NumPy).
          Value vlo = constFloat(nb, l, et, lo),
                vhi = constFloat(nb, l, et, hi);
          Value v = select(
              nb, l, cmpF(nb, l, arith::CmpFPredicate::OLT, x, vlo), vlo, x);
          return select(nb, l, cmpF(nb, l, arith::CmpFPredicate::OGT, x, vhi),
                        vhi, v);
        }
        // The integers in [a_min, a_max], saturated.
        Sign sign = signOf(op);
        Value v = maxI(nb, l, x, constScalar(nb, l, et, std::ceil(lo)), sign);
        return minI(nb, l, v, constScalar(nb, l, et, std::floor(hi)), sign);
      });
}

FailureOr<Value> lowerCast(CastOp op, CastOp::Adaptor a, OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  if (type == a.getData().getType())
    return a.getData();
  Type to = type.getElementType();
  Sign toSign =
      op->hasAttr(kUnsignedResultAttr) ? Sign::Unsigned : Sign::Signed;
  return elementwise(b, op.getLoc(), type, {a.getData()},
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       return convertScalar(nb, l, args[0], to, signOf(op),
                                            toSign);
                     });
}

/// Elementwise: keep x where j - i >= k (upper) or <= k (lower), else 0.
FailureOr<Value> lowerTrilu(TriluOp op, TriluOp::Adaptor a, OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  int64_t rank = type.getRank(), k = op.getK();
  bool upper = op.getUpper();
  return elementwise(
      b, op.getLoc(), type, {a.getData()},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value diag = arith::SubIOp::create(nb, l, loopIndexI64(nb, l, rank - 1),
                                           loopIndexI64(nb, l, rank - 2));
        Value keep = arith::CmpIOp::create(
            nb, l,
            upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle, diag,
            constInt(nb, l, nb.getI64Type(), k));
        return arith::SelectOp::create(
            nb, l, keep, args[0], constScalar(nb, l, type.getElementType(), 0));
      });
}

} // namespace

void populateElementwisePatterns(RewritePatternSet &patterns) {
  addLowerings(patterns, forwardData<DropoutOp>, forwardData<BlockGradOp>,
               forwardData<MakeLossOp>, forwardData<LinearRegressionOutputOp>,
               forwardData<MAERegressionOutputOp>, lowerActivation, lowerUnary,
               lowerLeakyReLU, lowerBinary, lowerCompare, lowerWhere,
               lowerBroadcastTo, lowerScalar, lowerClip, lowerCast, lowerTrilu);
}

} // namespace mxc::lowering
