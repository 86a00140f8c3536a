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
#include "mlir/Dialect/Tensor/IR/Tensor.h"

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

FailureOr<Value> lowerFma(FmaOp op, FmaOp::Adaptor a, OpBuilder &b) {
  return mapBroadcast(
      b, op.getLoc(), op.getType(), {a.getX(), a.getY(), a.getZ()},
      [](OpBuilder &nb, Location l, ValueRange args) -> Value {
        return math::FmaOp::create(nb, l, args[0], args[1], args[2]);
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

/// splitmix64's finalizer: a 64-bit hash whose output bits all depend on
/// every input bit.
Value mix64(OpBuilder &b, Location loc, Value z) {
  auto c = [&](uint64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(int64_t(v)));
  };
  auto xorShift = [&](Value v, int64_t bits) {
    return arith::XOrIOp::create(b, loc, v,
                                 arith::ShRUIOp::create(b, loc, v, c(bits)));
  };
  z = arith::AddIOp::create(b, loc, z, c(0x9E3779B97F4A7C15ull));
  z = arith::MulIOp::create(b, loc, xorShift(z, 30), c(0xBF58476D1CE4E5B9ull));
  z = arith::MulIOp::create(b, loc, xorShift(z, 27), c(0x94D049BB133111EBull));
  return xorShift(z, 31);
}

/// A float in [0, 1) from the top 24 bits of `bits`, as f32.
Value unitFloat(OpBuilder &b, Location loc, Value bits) {
  Value top = arith::ShRUIOp::create(
      b, loc, bits, arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(40)));
  Value f = arith::UIToFPOp::create(b, loc, b.getF32Type(), top);
  return arith::MulFOp::create(
      b, loc, f,
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0x1.0p-24f)));
}

/// mx.random: element i from splitmix64 of (seed, salt, i); the seed the
/// op's, else a fresh one per call from the runtime.
FailureOr<Value> lowerRandom(RandomOp op, RandomOp::Adaptor, OpBuilder &b) {
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getType());
  Type et = type.getElementType();
  int64_t rank = type.getRank();
  Value seed;
  if (op.getSeeded()) {
    seed = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(op.getSeed()));
  } else {
    auto scalar = RankedTensorType::get({}, b.getI64Type());
    Value drawn = RandomSeedKernelOp::create(
                      b, loc, scalar, emptyTensor(b, loc, {}, b.getI64Type()))
                      .getResult();
    seed = tensor::ExtractOp::create(b, loc, drawn, ValueRange{});
  }
  // The stream of this op: the seed and the salt mixed once.
  Value salt =
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(op.getSalt()));
  Value stream =
      mix64(b, loc, arith::XOrIOp::create(b, loc, mix64(b, loc, seed), salt));
  bool normal = op.getDist() == "normal";
  double lo = op.getA().convertToDouble(), hi = op.getB().convertToDouble();
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * type.getDimSize(d + 1);
  return generic(
      b, loc, type.getShape(), et, {}, {}, parallel(rank),
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        auto c64 = [&](int64_t v) {
          return arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(v));
        };
        Value flat = c64(0);
        for (int64_t d = 0; d < rank; ++d)
          flat = arith::AddIOp::create(
              nb, l, flat,
              arith::MulIOp::create(nb, l, loopIndexI64(nb, l, d),
                                    c64(strides[d])));
        // Two draws per element for Box-Muller, one for uniform.
        Value key = arith::AddIOp::create(
            nb, l, stream,
            arith::MulIOp::create(nb, l, flat, c64(normal ? 2 : 1)));
        Value u = unitFloat(nb, l, mix64(nb, l, key));
        auto f32 = [&](double v) {
          return arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(float(v)));
        };
        Value x;
        if (normal) {
          Value u2 = unitFloat(
              nb, l, mix64(nb, l, arith::AddIOp::create(nb, l, key, c64(1))));
          // sqrt(-2 ln(1 - u)) cos(2 pi u2), 1 - u in (0, 1].
          Value r = math::SqrtOp::create(
              nb, l,
              arith::MulFOp::create(
                  nb, l, f32(-2.0),
                  math::LogOp::create(
                      nb, l, arith::SubFOp::create(nb, l, f32(1.0), u))));
          Value z = arith::MulFOp::create(
              nb, l, r,
              math::CosOp::create(
                  nb, l, arith::MulFOp::create(nb, l, f32(2 * M_PI), u2)));
          x = arith::AddFOp::create(nb, l, f32(lo),
                                    arith::MulFOp::create(nb, l, f32(hi), z));
        } else {
          x = arith::AddFOp::create(
              nb, l, f32(lo), arith::MulFOp::create(nb, l, f32(hi - lo), u));
        }
        if (et.isF32())
          return x;
        if (et.getIntOrFloatBitWidth() > 32)
          return arith::ExtFOp::create(nb, l, et, x);
        return arith::TruncFOp::create(nb, l, et, x);
      });
}

void populateElementwisePatterns(RewritePatternSet &patterns) {
  addLowerings(patterns, forwardData<DropoutOp>, forwardData<BlockGradOp>,
               forwardData<MakeLossOp>, forwardData<LinearRegressionOutputOp>,
               forwardData<MAERegressionOutputOp>, lowerActivation, lowerUnary,
               lowerLeakyReLU, lowerBinary, lowerCompare, lowerWhere, lowerFma,
               lowerBroadcastTo, lowerScalar, lowerClip, lowerCast, lowerTrilu,
               lowerRandom);
}

} // namespace mxc::lowering
