// SPDX-License-Identifier: Apache-2.0
// The scalar builders of ScalarBuilders.h. Functions that are a single op
// are tables (name -> op), so that adding one is a line; the others are
// MXNet's or ONNX's formulas, with the reason for each choice beside it.
#include "passes/lowering/ScalarBuilders.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace mxc::lowering {

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

Value constFloat(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}

Value constInt(OpBuilder &b, Location loc, Type type, int64_t value) {
  unsigned width = type.getIntOrFloatBitWidth();
  APInt v = width == 1 ? APInt(1, value != 0)
                       : APInt(width, value, /*isSigned=*/true);
  return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
}

Value constScalar(OpBuilder &b, Location loc, Type type, double value) {
  if (isa<FloatType>(type))
    return constFloat(b, loc, type, value);
  unsigned width = type.getIntOrFloatBitWidth();
  if (width == 1)
    return constInt(b, loc, type, value != 0.0);
  APSInt v(width, /*isUnsigned=*/false);
  bool exact;
  (void)APFloat(value).convertToInteger(v, APFloat::rmTowardZero, &exact);
  return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
}

Value constExtreme(OpBuilder &b, Location loc, Type type, bool highest,
                   Sign sign) {
  if (auto ft = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc, type,
        b.getFloatAttr(type,
                       APFloat::getInf(ft.getFloatSemantics(), !highest)));
  unsigned width = type.getIntOrFloatBitWidth();
  APInt v = width == 1 || sign == Sign::Unsigned
                ? (highest ? APInt::getMaxValue(width) : APInt(width, 0))
            : highest ? APInt::getSignedMaxValue(width)
                      : APInt::getSignedMinValue(width);
  return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
}

//===----------------------------------------------------------------------===//
// Comparisons, selection and arithmetic
//===----------------------------------------------------------------------===//

Value cmpF(OpBuilder &b, Location loc, arith::CmpFPredicate p, Value x,
           Value y) {
  return arith::CmpFOp::create(b, loc, p, x, y);
}

Value cmpI(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value x, Value y,
           Sign sign) {
  using P = arith::CmpIPredicate;
  static constexpr std::pair<P, P> kUnsigned[] = {
      {P::slt, P::ult}, {P::sle, P::ule}, {P::sgt, P::ugt}, {P::sge, P::uge}};
  if (isBool(x.getType()) || sign == Sign::Unsigned)
    for (auto [s, u] : kUnsigned)
      if (p == s)
        p = u;
  return arith::CmpIOp::create(b, loc, p, x, y);
}

Value select(OpBuilder &b, Location loc, Value c, Value x, Value y) {
  return arith::SelectOp::create(b, loc, c, x, y);
}

Value maxI(OpBuilder &b, Location loc, Value x, Value y, Sign sign) {
  if (sign == Sign::Unsigned)
    return arith::MaxUIOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}

Value minI(OpBuilder &b, Location loc, Value x, Value y, Sign sign) {
  if (sign == Sign::Unsigned)
    return arith::MinUIOp::create(b, loc, x, y);
  return arith::MinSIOp::create(b, loc, x, y);
}

Value addValues(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

Value mulValues(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, loc, x, y);
  return arith::MulIOp::create(b, loc, x, y);
}

Value combine(OpBuilder &b, Location loc, Combiner kind, Value x, Value y,
              Sign sign) {
  bool isMax = kind == Combiner::Max;
  if (isBool(x.getType())) {
    if (kind == Combiner::Add || isMax)
      return arith::OrIOp::create(b, loc, x, y);
    return arith::AndIOp::create(b, loc, x, y);
  }
  if (kind == Combiner::Add)
    return addValues(b, loc, x, y);
  if (kind == Combiner::Mul)
    return mulValues(b, loc, x, y);
  if (!isa<FloatType>(x.getType()))
    return isMax ? maxI(b, loc, x, y, sign) : minI(b, loc, x, y, sign);
  if (isMax)
    return arith::MaximumFOp::create(b, loc, x, y);
  return arith::MinimumFOp::create(b, loc, x, y);
}

/// `v` (f64) rounded to f32 with round-to-odd: truncated toward zero, and
/// with the last mantissa bit set when inexact. Rounding that to a type of
/// at most 22 mantissa bits (f16, bf16) rounds correctly, so f64 -> f16
/// needs no compiler-rt call (__truncdfhf2), which models do not link.
static Value truncToOddF32(OpBuilder &b, Location loc, Value v) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  Value r = arith::TruncFOp::create(b, loc, f32, v);
  Value back = arith::ExtFOp::create(b, loc, v.getType(), r);
  Value inexact = cmpF(b, loc, arith::CmpFPredicate::ONE, back, v);
  Value roundedUp =
      cmpF(b, loc, arith::CmpFPredicate::OGT,
           math::AbsFOp::create(b, loc, back), math::AbsFOp::create(b, loc, v));
  Value bits = arith::BitcastOp::create(b, loc, i32, r);
  Value one = constInt(b, loc, i32, 1);
  bits =
      select(b, loc, roundedUp, arith::SubIOp::create(b, loc, bits, one), bits);
  bits = select(b, loc, inexact, arith::OrIOp::create(b, loc, bits, one), bits);
  return arith::BitcastOp::create(b, loc, f32, bits);
}

Value convertScalar(OpBuilder &b, Location loc, Value v, Type to, Sign fromSign,
                    Sign toSign) {
  Type from = v.getType();
  if (from == to)
    return v;
  Type f32 = b.getF32Type();
  if (from.isBF16() && !to.isF32())
    return convertScalar(b, loc, arith::ExtFOp::create(b, loc, f32, v), to,
                         fromSign, toSign);
  if (to.isBF16() && !from.isF32()) {
    Value wide =
        from.isF16()
            ? arith::ExtFOp::create(b, loc, f32, v).getResult()
            : truncToOddF32(b, loc,
                            convertScalar(b, loc, v, b.getF64Type(), fromSign));
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  auto ff = dyn_cast<FloatType>(from), ft = dyn_cast<FloatType>(to);
  if (ff && ft) {
    if (ff.getWidth() < ft.getWidth())
      return arith::ExtFOp::create(b, loc, to, v);
    if (ff.getWidth() > 32 && ft.getWidth() < 32)
      return arith::TruncFOp::create(b, loc, to, truncToOddF32(b, loc, v));
    if (ff.getWidth() > ft.getWidth())
      return arith::TruncFOp::create(b, loc, to, v);
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  if (ff) {
    if (isBool(to))
      return cmpF(b, loc, arith::CmpFPredicate::UNE, v,
                  constFloat(b, loc, from, 0.0));
    if (toSign == Sign::Unsigned && to.getIntOrFloatBitWidth() == 64)
      return arith::FPToUIOp::create(b, loc, to, v);
    if (toSign == Sign::Unsigned)
      return arith::TruncIOp::create(
          b, loc, to, arith::FPToSIOp::create(b, loc, b.getI64Type(), v));
    return arith::FPToSIOp::create(b, loc, to, v);
  }
  if (ft) {
    if (isBool(from) || fromSign == Sign::Unsigned)
      return arith::UIToFPOp::create(b, loc, to, v);
    return arith::SIToFPOp::create(b, loc, to, v);
  }
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (tw == 1)
    return cmpI(b, loc, arith::CmpIPredicate::ne, v, constInt(b, loc, from, 0));
  if (fw < tw && (fw == 1 || fromSign == Sign::Unsigned))
    return arith::ExtUIOp::create(b, loc, to, v);
  if (fw < tw)
    return arith::ExtSIOp::create(b, loc, to, v);
  return arith::TruncIOp::create(b, loc, to, v);
}

//===----------------------------------------------------------------------===//
// Positions
//===----------------------------------------------------------------------===//

Value loopIndex(OpBuilder &b, Location loc, int64_t d) {
  return linalg::IndexOp::create(b, loc, d);
}

Value loopIndexI64(OpBuilder &b, Location loc, int64_t d) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                    loopIndex(b, loc, d));
}

Value positionAlong(OpBuilder &b, Location loc, Value i, int64_t extent) {
  Type i64 = b.getI64Type();
  if (i.getType() != i64)
    i = arith::ExtSIOp::create(b, loc, i64, i);
  Value zero = constInt(b, loc, i64, 0);
  Value isNeg =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  i = arith::SelectOp::create(
      b, loc, isNeg,
      arith::AddIOp::create(b, loc, i, constInt(b, loc, i64, extent)), i);
  i = arith::MaxSIOp::create(b, loc, i, zero);
  i = arith::MinSIOp::create(
      b, loc, i, constInt(b, loc, i64, std::max<int64_t>(extent - 1, 0)));
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), i);
}

//===----------------------------------------------------------------------===//
// Unary functions
//===----------------------------------------------------------------------===//

using UnaryFn = Value (*)(OpBuilder &, Location, Value);
using BinaryFn = Value (*)(OpBuilder &, Location, Value, Value);

template <typename OpTy> Value unaryOp(OpBuilder &b, Location loc, Value x) {
  return OpTy::create(b, loc, x);
}

template <typename OpTy>
Value binaryOp(OpBuilder &b, Location loc, Value x, Value y) {
  return OpTy::create(b, loc, x, y);
}

/// The float functions that are one math or arith op (null: not one).
static UnaryFn singleOpFloatUnary(StringRef fn) {
  return llvm::StringSwitch<UnaryFn>(fn)
      .Case("exp", unaryOp<math::ExpOp>)
      .Case("log", unaryOp<math::LogOp>)
      .Case("sqrt", unaryOp<math::SqrtOp>)
      .Case("rsqrt", unaryOp<math::RsqrtOp>)
      .Case("abs", unaryOp<math::AbsFOp>)
      .Case("negative", unaryOp<arith::NegFOp>)
      .Case("tanh", unaryOp<math::TanhOp>)
      .Case("erf", unaryOp<math::ErfOp>)
      .Case("ceil", unaryOp<math::CeilOp>)
      .Case("floor", unaryOp<math::FloorOp>)
      .Case("round", unaryOp<math::RoundEvenOp>) // ONNX Round: halves to even.
      .Case("sin", unaryOp<math::SinOp>)
      .Case("cos", unaryOp<math::CosOp>)
      .Case("tan", unaryOp<math::TanOp>)
      .Case("asin", unaryOp<math::AsinOp>)
      .Case("acos", unaryOp<math::AcosOp>)
      .Case("atan", unaryOp<math::AtanOp>)
      .Case("sinh", unaryOp<math::SinhOp>)
      .Case("cosh", unaryOp<math::CoshOp>)
      .Case("asinh", unaryOp<math::AsinhOp>)
      .Case("acosh", unaryOp<math::AcoshOp>)
      .Case("atanh", unaryOp<math::AtanhOp>)
      .Case("log1p", unaryOp<math::Log1pOp>)
      .Case("expm1", unaryOp<math::ExpM1Op>)
      .Default(nullptr);
}

static Value applyFloatUnary(OpBuilder &b, Location loc, StringRef fn,
                             Value x) {
  if (UnaryFn single = singleOpFloatUnary(fn))
    return single(b, loc, x);
  Type t = x.getType();
  auto one = [&] { return constFloat(b, loc, t, 1.0); };
  if (fn == "square")
    return arith::MulFOp::create(b, loc, x, x);
  if (fn == "reciprocal")
    return arith::DivFOp::create(b, loc, one(), x);
  if (fn == "relu")
    return arith::MaxNumFOp::create(b, loc, x, constFloat(b, loc, t, 0.0));
  if (fn == "sigmoid") {
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
    return arith::DivFOp::create(b, loc, one(),
                                 arith::AddFOp::create(b, loc, one(), e));
  }
  if (fn == "softrelu") {
    // MXNet: x > 20 ? x : log1p(exp(x)), which avoids overflow.
    Value big =
        cmpF(b, loc, arith::CmpFPredicate::OGT, x, constFloat(b, loc, t, 20.0));
    Value soft = math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, x));
    return select(b, loc, big, x, soft);
  }
  if (fn == "softsign") {
    Value den =
        arith::AddFOp::create(b, loc, one(), math::AbsFOp::create(b, loc, x));
    return arith::DivFOp::create(b, loc, x, den);
  }
  if (fn == "sign") {
    // -1, 1, or x itself for +-0 and NaN.
    Value zero = constFloat(b, loc, t, 0.0);
    Value neg = select(b, loc, cmpF(b, loc, arith::CmpFPredicate::OLT, x, zero),
                       constFloat(b, loc, t, -1.0), x);
    return select(b, loc, cmpF(b, loc, arith::CmpFPredicate::OGT, x, zero),
                  one(), neg);
  }
  llvm_unreachable("unary function not checked by the verifier");
}

static Value applyIntUnary(OpBuilder &b, Location loc, StringRef fn, Value x,
                           Sign sign) {
  Type t = x.getType();
  if (fn == "not")
    return arith::XOrIOp::create(b, loc, x, constInt(b, loc, t, 1));
  if (fn == "abs" && sign == Sign::Unsigned)
    return x;
  if (fn == "abs")
    return math::AbsIOp::create(b, loc, x);
  if (fn == "negative")
    return arith::SubIOp::create(b, loc, constInt(b, loc, t, 0), x);
  if (fn == "square")
    return arith::MulIOp::create(b, loc, x, x);
  if (fn == "sign" && sign == Sign::Unsigned) {
    Value zero = constInt(b, loc, t, 0);
    return arith::ExtUIOp::create(
        b, loc, t, cmpI(b, loc, arith::CmpIPredicate::ne, x, zero));
  }
  if (fn == "sign") {
    Value zero = constInt(b, loc, t, 0);
    Value neg = select(b, loc, cmpI(b, loc, arith::CmpIPredicate::slt, x, zero),
                       constInt(b, loc, t, -1), zero);
    return select(b, loc, cmpI(b, loc, arith::CmpIPredicate::sgt, x, zero),
                  constInt(b, loc, t, 1), neg);
  }
  llvm_unreachable("integer unary function not checked by the verifier");
}

Value applyUnary(OpBuilder &b, Location loc, StringRef fn, Value x, Sign sign) {
  Type t = x.getType();
  if (isa<IntegerType>(t))
    return applyIntUnary(b, loc, fn, x, sign);
  // Types narrower than f32 compute the inexact functions in f32: libm and
  // most of LLVM's math intrinsics exist only for f32 and f64.
  if (t.getIntOrFloatBitWidth() >= 32 ||
      llvm::is_contained({"abs", "negative", "square", "relu", "sign", "ceil",
                          "floor", "round"},
                         fn))
    return applyFloatUnary(b, loc, fn, x);
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  return arith::TruncFOp::create(b, loc, t, applyFloatUnary(b, loc, fn, wide));
}

//===----------------------------------------------------------------------===//
// Binary functions
//===----------------------------------------------------------------------===//

/// x^y on integers: square-and-multiply over every bit of y, wrapping like
/// multiplication. A negative y gives 1 / x^-y truncated toward zero: the
/// power of 1 or -1, else 0 (also for x = 0, where division would trap).
static Value intPower(OpBuilder &b, Location loc, Value x, Value y, Sign sign) {
  Type t = x.getType();
  Value zero = constInt(b, loc, t, 0), one = constInt(b, loc, t, 1);
  Value lb = arith::ConstantIndexOp::create(b, loc, 0);
  Value ub = arith::ConstantIndexOp::create(b, loc, t.getIntOrFloatBitWidth());
  Value step = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, lb, ub, step, ValueRange{one, x, y},
      [&](OpBuilder &nb, Location l, Value, ValueRange it) {
        Value bit = arith::AndIOp::create(nb, l, it[2], one);
        Value odd = cmpI(nb, l, arith::CmpIPredicate::ne, bit, zero);
        Value r = select(nb, l, odd, arith::MulIOp::create(nb, l, it[0], it[1]),
                         it[0]);
        Value sq = arith::MulIOp::create(nb, l, it[1], it[1]);
        Value rest = arith::ShRUIOp::create(nb, l, it[2], one);
        scf::YieldOp::create(nb, l, ValueRange{r, sq, rest});
      });
  Value unit = arith::OrIOp::create(
      b, loc, cmpI(b, loc, arith::CmpIPredicate::eq, x, one),
      cmpI(b, loc, arith::CmpIPredicate::eq, x, constInt(b, loc, t, -1)));
  Value vanishes = arith::AndIOp::create(
      b, loc, cmpI(b, loc, arith::CmpIPredicate::slt, y, zero, sign),
      arith::XOrIOp::create(b, loc, unit, constInt(b, loc, b.getI1Type(), 1)));
  return select(b, loc, vanishes, zero, loop.getResult(0));
}

/// Integer division truncates toward zero (C, ONNX Div); mod is Python's
/// (ONNX Mod with fmod = 0): the remainder takes the divisor's sign. Neither
/// traps: x / 0 = x mod 0 = 0, and x / -1 wraps (INT_MIN / -1 = INT_MIN).
/// Unsigned values divide as unsigned.
static Value intDivMod(OpBuilder &b, Location loc, bool isMod, Value x, Value y,
                       Sign sign) {
  Type t = x.getType();
  Value zero = constInt(b, loc, t, 0), one = constInt(b, loc, t, 1);
  Value byZero = cmpI(b, loc, arith::CmpIPredicate::eq, y, zero);
  if (sign == Sign::Unsigned) {
    Value safe = select(b, loc, byZero, one, y);
    Value q = isMod ? arith::RemUIOp::create(b, loc, x, safe).getResult()
                    : arith::DivUIOp::create(b, loc, x, safe).getResult();
    return select(b, loc, byZero, zero, q);
  }
  Value byMinusOne =
      cmpI(b, loc, arith::CmpIPredicate::eq, y, constInt(b, loc, t, -1));
  Value safe =
      select(b, loc, arith::OrIOp::create(b, loc, byZero, byMinusOne), one, y);
  if (!isMod) {
    Value q = arith::DivSIOp::create(b, loc, x, safe);
    q = select(b, loc, byMinusOne, arith::SubIOp::create(b, loc, zero, x), q);
    return select(b, loc, byZero, zero, q);
  }
  Value r = arith::RemSIOp::create(b, loc, x, safe);
  Value signsDiffer = cmpI(b, loc, arith::CmpIPredicate::slt,
                           arith::XOrIOp::create(b, loc, r, y), zero);
  Value fix = arith::AndIOp::create(
      b, loc, cmpI(b, loc, arith::CmpIPredicate::ne, r, zero), signsDiffer);
  return select(b, loc, fix, arith::AddIOp::create(b, loc, r, y), r);
}

/// Shifts by the width or more give 0 (or the sign for an arithmetic right
/// shift) instead of LLVM's poison.
static Value intShift(OpBuilder &b, Location loc, bool left, Value x, Value y,
                      Sign sign) {
  Type t = x.getType();
  Value width = constInt(b, loc, t, t.getIntOrFloatBitWidth());
  Value tooFar = cmpI(b, loc, arith::CmpIPredicate::uge, y, width);
  bool arithmetic = !left && sign == Sign::Signed;
  Value amount = select(b, loc, tooFar,
                        constInt(b, loc, t, t.getIntOrFloatBitWidth() - 1), y);
  Value shifted = left ? arith::ShLIOp::create(b, loc, x, amount).getResult()
                  : arithmetic
                      ? arith::ShRSIOp::create(b, loc, x, amount).getResult()
                      : arith::ShRUIOp::create(b, loc, x, amount).getResult();
  if (arithmetic) // x >> (width - 1) is already 0 or -1.
    return shifted;
  return select(b, loc, tooFar, constInt(b, loc, t, 0), shifted);
}

Value applyBinary(OpBuilder &b, Location loc, StringRef fn, Value x, Value y,
                  Sign sign) {
  // The functions that are one arith or math op on floats or on integers
  // (null: the other kind has none, or a formula below).
  struct SingleOp {
    StringLiteral name;
    BinaryFn onFloats, onIntegers;
  };
  static const SingleOp kSingleOps[] = {
      {"add", binaryOp<arith::AddFOp>, binaryOp<arith::AddIOp>},
      {"sub", binaryOp<arith::SubFOp>, binaryOp<arith::SubIOp>},
      {"mul", binaryOp<arith::MulFOp>, binaryOp<arith::MulIOp>},
      {"div", binaryOp<arith::DivFOp>, nullptr},
      {"maximum", binaryOp<arith::MaximumFOp>, nullptr},
      {"minimum", binaryOp<arith::MinimumFOp>, nullptr},
      {"power", binaryOp<math::PowFOp>, nullptr},
      // C's fmod (ONNX Mod with fmod = 1): the dividend's sign.
      {"mod", binaryOp<arith::RemFOp>, nullptr},
      {"and", nullptr, binaryOp<arith::AndIOp>},
      {"or", nullptr, binaryOp<arith::OrIOp>},
      {"xor", nullptr, binaryOp<arith::XOrIOp>}};
  bool isFloat = isa<FloatType>(x.getType());
  // x ** 2 by a constant exponent (LayerNorm's variance, L2 norms): one
  // multiply, exact as the libm call it replaces, in place of powf.
  FloatAttr exponent;
  if (isFloat && fn == "power" && matchPattern(y, m_Constant(&exponent)) &&
      exponent.getValueAsDouble() == 2.0)
    return arith::MulFOp::create(b, loc, x, x);
  for (const SingleOp &op : kSingleOps)
    if (op.name == fn)
      if (BinaryFn single = isFloat ? op.onFloats : op.onIntegers)
        return single(b, loc, x, y);
  if (isFloat)
    llvm_unreachable("binary function not checked by the verifier");
  if (fn == "div" || fn == "mod")
    return intDivMod(b, loc, fn == "mod", x, y, sign);
  if (fn == "maximum")
    return maxI(b, loc, x, y, sign);
  if (fn == "minimum")
    return minI(b, loc, x, y, sign);
  if (fn == "power")
    return intPower(b, loc, x, y, sign);
  if (fn == "shift_left" || fn == "shift_right")
    return intShift(b, loc, fn == "shift_left", x, y, sign);
  llvm_unreachable("binary function not checked by the verifier");
}

Value applyCompare(OpBuilder &b, Location loc, StringRef fn, Value x, Value y,
                   Sign sign) {
  using F = arith::CmpFPredicate;
  using I = arith::CmpIPredicate;
  struct Comparison {
    StringLiteral name;
    F onFloats;
    I onIntegers; ///< Signed; cmpI picks the unsigned one where needed.
  };
  static constexpr Comparison kComparisons[] = {
      {"equal", F::OEQ, I::eq},    {"not_equal", F::UNE, I::ne},
      {"greater", F::OGT, I::sgt}, {"greater_equal", F::OGE, I::sge},
      {"less", F::OLT, I::slt},    {"less_equal", F::OLE, I::sle}};
  for (const Comparison &c : kComparisons) {
    if (c.name != fn)
      continue;
    if (isa<FloatType>(x.getType()))
      return cmpF(b, loc, c.onFloats, x, y);
    return cmpI(b, loc, c.onIntegers, x, y, sign);
  }
  llvm_unreachable("comparison not checked by the verifier");
}

} // namespace mxc::lowering
