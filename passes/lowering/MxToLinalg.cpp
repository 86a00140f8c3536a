// SPDX-License-Identifier: Apache-2.0
// Lowers every mx op to linalg / tensor / arith / math on tensors. Each op
// becomes one or a few linalg.generic ops whose bodies compute MXNet's
// formula; layouts and shapes are static, so everything that can be decided
// at compile time (padding, average-pool divisors, BatchNorm folding to a
// scale and shift) is decided here. Integer tensors use arith's signless ops
// read as signed; booleans (i1) compare as unsigned (false < true). Unsigned
// element types (ui8 ... ui64) become signless before the patterns run, and
// each op that read them carries `mx.unsigned` (its integer operands are
// unsigned) or `mx.unsigned_result` (a cast's result is), which picks the
// unsigned division, comparison, extension and bounds.
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"
#include "passes/lowering/LinalgBuilders.h"
#include "passes/lowering/PoolingLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/StringSwitch.h"

namespace mxc {
#define GEN_PASS_DEF_CONVERTMXTOLINALGPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc;
using namespace mxc::mx;
using namespace mxc::lowering;
using utils::IteratorType;

namespace {

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

bool isOneOf(StringRef s, std::initializer_list<StringRef> options) {
  return llvm::is_contained(options, s);
}

bool isBool(Type t) { return t.isInteger(1); }

/// How an integer value's bits are read (see the file comment).
enum class Sign { Signed, Unsigned };

constexpr StringLiteral kUnsignedAttr = "mx.unsigned";
constexpr StringLiteral kUnsignedResultAttr = "mx.unsigned_result";

Sign signOf(Operation *op) {
  return op->hasAttr(kUnsignedAttr) ? Sign::Unsigned : Sign::Signed;
}

/// The lowest (or highest) value of `type`: -inf / +inf for floats, the ends
/// of the integer range (signed unless `sign` says otherwise), false / true
/// for booleans. The
/// identities of max and min reductions.
Value constExtreme(OpBuilder &b, Location loc, Type type, bool highest,
                   Sign sign = Sign::Signed) {
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

/// Map reading a 1-D per-channel operand along `axis` of a rank-`rank` space.
AffineMap channelMap(MLIRContext *ctx, unsigned rank, unsigned axis) {
  return AffineMap::get(rank, 0, {getAffineDimExpr(axis, ctx)}, ctx);
}

//===----------------------------------------------------------------------===//
// Scalar formulas
//===----------------------------------------------------------------------===//

Value cmpF(OpBuilder &b, Location loc, arith::CmpFPredicate p, Value x,
           Value y) {
  return arith::CmpFOp::create(b, loc, p, x, y);
}

/// Integer comparison: `p` is the signed predicate, which booleans and
/// unsigned values compare with unsigned (false < true).
Value cmpI(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value x, Value y,
           Sign sign = Sign::Signed) {
  if (isBool(x.getType()) || sign == Sign::Unsigned) {
    using P = arith::CmpIPredicate;
    switch (p) {
    case P::slt:
      p = P::ult;
      break;
    case P::sle:
      p = P::ule;
      break;
    case P::sgt:
      p = P::ugt;
      break;
    case P::sge:
      p = P::uge;
      break;
    default:
      break;
    }
  }
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

/// `v` (f64) rounded to f32 with round-to-odd: truncated toward zero, and
/// with the last mantissa bit set when inexact. Rounding that to a type of
/// at most 22 mantissa bits (f16, bf16) rounds correctly, so f64 -> f16
/// needs no compiler-rt call (__truncdfhf2), which models do not link.
Value truncToOddF32(OpBuilder &b, Location loc, Value v) {
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

/// Converts a scalar between element types: float <-> float (through f32
/// between types of one width; bfloat16 only to and from f32, so other types
/// go through f32, or f64 rounded to odd f32), float -> int truncating toward
/// zero, int ->
/// float signed (booleans as 0 / 1), int <-> int sign-extending (booleans
/// zero-extending), and to booleans `!= 0` (NaN is true). `from` / `to`
/// say whether the integer source / result is unsigned: unsigned sources
/// zero-extend and convert to floats as unsigned; floats convert to unsigned
/// results of under 64 bits through i64 (wrapping, as C's casts do on x86).
Value convertScalar(OpBuilder &b, Location loc, Value v, Type to,
                    Sign fromSign = Sign::Signed, Sign toSign = Sign::Signed) {
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

Value applyFloatUnary(OpBuilder &b, Location loc, StringRef fn, Value x) {
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
  if (fn == "erf")
    return math::ErfOp::create(b, loc, x);
  if (fn == "sign") {
    // -1, 1, or x itself for +-0 and NaN.
    Value zero = constFloat(b, loc, t, 0.0);
    Value neg = select(b, loc, cmpF(b, loc, arith::CmpFPredicate::OLT, x, zero),
                       constFloat(b, loc, t, -1.0), x);
    return select(b, loc, cmpF(b, loc, arith::CmpFPredicate::OGT, x, zero),
                  one(), neg);
  }
  if (fn == "ceil")
    return math::CeilOp::create(b, loc, x);
  if (fn == "floor")
    return math::FloorOp::create(b, loc, x);
  if (fn == "round") // ONNX Round: halves to even.
    return math::RoundEvenOp::create(b, loc, x);
  if (fn == "sin")
    return math::SinOp::create(b, loc, x);
  if (fn == "cos")
    return math::CosOp::create(b, loc, x);
  if (fn == "tan")
    return math::TanOp::create(b, loc, x);
  if (fn == "asin")
    return math::AsinOp::create(b, loc, x);
  if (fn == "acos")
    return math::AcosOp::create(b, loc, x);
  if (fn == "atan")
    return math::AtanOp::create(b, loc, x);
  if (fn == "sinh")
    return math::SinhOp::create(b, loc, x);
  if (fn == "cosh")
    return math::CoshOp::create(b, loc, x);
  if (fn == "asinh")
    return math::AsinhOp::create(b, loc, x);
  if (fn == "acosh")
    return math::AcoshOp::create(b, loc, x);
  if (fn == "atanh")
    return math::AtanhOp::create(b, loc, x);
  if (fn == "log1p")
    return math::Log1pOp::create(b, loc, x);
  if (fn == "expm1")
    return math::ExpM1Op::create(b, loc, x);
  llvm_unreachable("unary function not checked by the verifier");
}

Value applyIntUnary(OpBuilder &b, Location loc, StringRef fn, Value x,
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

Value applyUnary(OpBuilder &b, Location loc, StringRef fn, Value x,
                 Sign sign = Sign::Signed) {
  Type t = x.getType();
  if (isa<IntegerType>(t))
    return applyIntUnary(b, loc, fn, x, sign);
  // Types narrower than f32 compute the inexact functions in f32: libm and
  // most of LLVM's math intrinsics exist only for f32 and f64.
  if (t.getIntOrFloatBitWidth() >= 32 ||
      isOneOf(fn, {"abs", "negative", "square", "relu", "sign", "ceil", "floor",
                   "round"}))
    return applyFloatUnary(b, loc, fn, x);
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  return arith::TruncFOp::create(b, loc, t, applyFloatUnary(b, loc, fn, wide));
}

/// x^y on integers: square-and-multiply over every bit of y, wrapping like
/// multiplication. A negative y gives 1 / x^-y truncated toward zero: the
/// power of 1 or -1, else 0 (also for x = 0, where division would trap).
Value intPower(OpBuilder &b, Location loc, Value x, Value y, Sign sign) {
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
Value intDivMod(OpBuilder &b, Location loc, bool isMod, Value x, Value y,
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

Value applyBinary(OpBuilder &b, Location loc, StringRef fn, Value x, Value y,
                  Sign sign = Sign::Signed) {
  if (isa<FloatType>(x.getType())) {
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
    if (fn == "mod") // C's fmod (ONNX Mod with fmod = 1): the dividend's sign.
      return arith::RemFOp::create(b, loc, x, y);
    llvm_unreachable("binary function not checked by the verifier");
  }
  if (fn == "add")
    return arith::AddIOp::create(b, loc, x, y);
  if (fn == "sub")
    return arith::SubIOp::create(b, loc, x, y);
  if (fn == "mul")
    return arith::MulIOp::create(b, loc, x, y);
  if (fn == "div" || fn == "mod")
    return intDivMod(b, loc, fn == "mod", x, y, sign);
  if (fn == "maximum")
    return maxI(b, loc, x, y, sign);
  if (fn == "minimum")
    return minI(b, loc, x, y, sign);
  if (fn == "power")
    return intPower(b, loc, x, y, sign);
  if (fn == "shift_left" || fn == "shift_right") {
    Type t = x.getType();
    Value width = constInt(b, loc, t, t.getIntOrFloatBitWidth());
    Value tooFar = cmpI(b, loc, arith::CmpIPredicate::uge, y, width);
    bool arithmetic = fn == "shift_right" && sign == Sign::Signed;
    Value amount = select(
        b, loc, tooFar, constInt(b, loc, t, t.getIntOrFloatBitWidth() - 1), y);
    Value shifted = fn == "shift_left"
                        ? arith::ShLIOp::create(b, loc, x, amount).getResult()
                    : arithmetic
                        ? arith::ShRSIOp::create(b, loc, x, amount).getResult()
                        : arith::ShRUIOp::create(b, loc, x, amount).getResult();
    if (arithmetic) // x >> (width - 1) is already 0 or -1.
      return shifted;
    return select(b, loc, tooFar, constInt(b, loc, t, 0), shifted);
  }
  if (fn == "and")
    return arith::AndIOp::create(b, loc, x, y);
  if (fn == "or")
    return arith::OrIOp::create(b, loc, x, y);
  if (fn == "xor")
    return arith::XOrIOp::create(b, loc, x, y);
  llvm_unreachable("binary function not checked by the verifier");
}

/// ONNX comparisons: ordered for floats except not_equal, which is true for
/// NaN (as x != x is).
Value applyCompare(OpBuilder &b, Location loc, StringRef fn, Value x, Value y,
                   Sign sign = Sign::Signed) {
  if (isa<FloatType>(x.getType())) {
    using P = arith::CmpFPredicate;
    P p = llvm::StringSwitch<P>(fn)
              .Case("equal", P::OEQ)
              .Case("not_equal", P::UNE)
              .Case("greater", P::OGT)
              .Case("greater_equal", P::OGE)
              .Case("less", P::OLT)
              .Case("less_equal", P::OLE);
    return cmpF(b, loc, p, x, y);
  }
  using P = arith::CmpIPredicate;
  P p = llvm::StringSwitch<P>(fn)
            .Case("equal", P::eq)
            .Case("not_equal", P::ne)
            .Case("greater", P::sgt)
            .Case("greater_equal", P::sge)
            .Case("less", P::slt)
            .Case("less_equal", P::sle);
  return cmpI(b, loc, p, x, y, sign);
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

/// The grouped convolution behind Convolution and Deconvolution over an
/// already padded input `x` (N, C, S...) with `weight` (F, C/g, K...), into
/// `outType` (N, F, O...), plus the optional per-filter `bias`.
Value groupedConvolution(OpBuilder &b, Location loc, Value x, Value weight,
                         Value bias, int64_t g, ArrayRef<int64_t> kernel,
                         ArrayRef<int64_t> stride, ArrayRef<int64_t> dilate,
                         RankedTensorType outType) {
  MLIRContext *ctx = b.getContext();
  Type et = outType.getElementType();
  unsigned ns = kernel.size();
  auto inType = tensorType(x);
  int64_t batch = inType.getDimSize(0), cg = inType.getDimSize(1) / g;
  int64_t fg = outType.getDimSize(1) / g;

  // Group axes made explicit: x (N, G, Cg, S...), w (G, Fg, Cg, K...),
  // y (N, G, Fg, O...).
  SmallVector<int64_t> xShape = {batch, g, cg};
  llvm::append_range(xShape, inType.getShape().drop_front(2));
  x = reshapeTo(b, loc, x, xShape);
  SmallVector<int64_t> wShape = {g, fg, cg};
  llvm::append_range(wShape, kernel);
  Value w = reshapeTo(b, loc, weight, wShape);
  SmallVector<int64_t> yShape = {batch, g, fg};
  llvm::append_range(yShape, outType.getShape().drop_front(2));

  // Loops: n, g, f, o_0..o_{ns-1} (parallel); c, k_0..k_{ns-1} (reduction).
  unsigned nLoops = 3 + ns + 1 + ns;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> xe = {d(0), d(1), d(3 + ns)},
                          we = {d(1), d(2), d(3 + ns)}, ye = {d(0), d(1), d(2)};
  for (unsigned s = 0; s < ns; ++s) {
    xe.push_back(d(3 + s) * stride[s] + d(4 + ns + s) * dilate[s]);
    we.push_back(d(4 + ns + s));
    ye.push_back(d(3 + s));
  }
  SmallVector<IteratorType> iters = parallel(3 + ns);
  iters.append(1 + ns, IteratorType::reduction);

  Value init;
  if (bias) {
    bias = reshapeTo(b, loc, bias, {g, fg});
    auto biasMap = AffineMap::get(yShape.size(), 0, {d(1), d(2)}, ctx);
    init =
        generic(b, loc, yShape, et, {bias}, {biasMap}, parallel(yShape.size()),
                [](OpBuilder &, Location, ValueRange args) { return args[0]; });
  } else {
    init = filledTensor(b, loc, yShape, et, 0.0);
  }
  Value y = generic(
      b, loc, yShape, et, {x, w},
      {AffineMap::get(nLoops, 0, xe, ctx), AffineMap::get(nLoops, 0, we, ctx)},
      iters,
      [](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value p = arith::MulFOp::create(nb, l, args[0], args[1]);
        return arith::AddFOp::create(nb, l, args[2], p);
      },
      init, AffineMap::get(nLoops, 0, ye, ctx));
  return reshapeTo(b, loc, y, outType.getShape());
}

struct ConvolutionLowering : MxPattern<ConvolutionOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(ConvolutionOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto pad = op.getPadding();
    Value x = padAxes(b, loc, a.getData(), 2, pad, pad, 0.0);
    b.replaceOp(op, groupedConvolution(b, loc, x, a.getWeight(), a.getBias(),
                                       op.getNumGroup(), op.getKernel(),
                                       op.getStrides(), op.getDilations(),
                                       cast<RankedTensorType>(op.getType())));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Runtime kernels: float32 contractions become mx.kernel.* ops (calls into
// libmxrt's packed GEMM, see mxrt/kernels.h) instead of loop nests. They take
// precedence over the generic lowerings above, which remain for other
// element types, for Convolution beyond 2-D and with --no-kernels.
//===----------------------------------------------------------------------===//

bool isF32(Value v) { return tensorType(v).getElementType().isF32(); }

template <typename OpTy> struct KernelPattern : MxPattern<OpTy> {
  KernelPattern(MLIRContext *ctx) : MxPattern<OpTy>(ctx, /*benefit=*/2) {}
};

struct FullyConnectedKernel : KernelPattern<FullyConnectedOp> {
  using KernelPattern::KernelPattern;
  LogicalResult matchAndRewrite(FullyConnectedOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    if (!isF32(op.getResult()))
      return failure();
    Location loc = op.getLoc();
    auto outType = cast<RankedTensorType>(op.getType());
    auto wType = tensorType(a.getWeight());
    int64_t n = wType.getDimSize(0), k = wType.getDimSize(1);
    int64_t m = outType.getNumElements() / n;
    Value x = reshapeTo(b, loc, a.getData(), {m, k});
    Value y =
        MatmulKernelOp::create(
            b, loc, RankedTensorType::get({m, n}, b.getF32Type()), x,
            a.getWeight(), a.getBias(),
            emptyTensor(b, loc, {m, n}, b.getF32Type()),
            /*transpose_a=*/false, /*transpose_b=*/true, /*accumulate=*/false,
            /*relu=*/false)
            .getResult();
    b.replaceOp(op, reshapeTo(b, loc, y, outType.getShape()));
    return success();
  }
};

struct ConvolutionKernel : KernelPattern<ConvolutionOp> {
  using KernelPattern::KernelPattern;
  LogicalResult matchAndRewrite(ConvolutionOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (!isF32(op.getResult()) || type.getRank() != 4)
      return failure();
    Value y = Conv2DKernelOp::create(
                  b, op.getLoc(), type, a.getData(), a.getWeight(), a.getBias(),
                  emptyTensor(b, op.getLoc(), type.getShape(), b.getF32Type()),
                  op.getStrides(), op.getPadding(), op.getDilations(),
                  op.getNumGroup(), /*accumulate=*/false, /*relu=*/false)
                  .getResult();
    b.replaceOp(op, y);
    return success();
  }
};

/// How far past the input's end each spatial axis of `op` must be padded
/// for its last ("full") window: the high padding PoolingLowering adds.
SmallVector<int64_t> poolingHighPadding(PoolingOp op, RankedTensorType inType) {
  auto outType = cast<RankedTensorType>(op.getType());
  SmallVector<int64_t> kernel = op.getEffectiveKernel(),
                       stride = op.getStrides(), dilate = op.getDilations(),
                       pad = op.getPadding(), high(kernel.size());
  for (unsigned s = 0; s < kernel.size(); ++s) {
    int64_t needed = (outType.getDimSize(2 + s) - 1) * stride[s] +
                     (kernel[s] - 1) * dilate[s] + 1;
    high[s] = std::max<int64_t>(needed - inType.getDimSize(2 + s) - pad[s], 0);
  }
  return high;
}

/// 2-D float32 pooling (undilated) whose windows reach past the input (low
/// padding, or the "full" convention's last window): libmxrt's pooling
/// kernel reads the windows' valid taps in place where PoolingLowering pads
/// a copy of the input first (ResNet-18's 3x3/2 max pooling: the model
/// 0.96 of its time with the kernel, one and two threads). Windows inside
/// the input keep the loops, whose static trip counts LLVM vectorizes
/// exactly (LeNet's 2x2/2 pooling of 24- and 8-wide rows: the kernel's
/// scalar row remainders made the model 1.2x slower).
struct PoolingKernel : KernelPattern<PoolingOp> {
  using KernelPattern::KernelPattern;
  LogicalResult matchAndRewrite(PoolingOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    StringRef poolType = op.getPoolType();
    SmallVector<int64_t> kernel = op.getEffectiveKernel();
    if (!isF32(op.getResult()) || type.getRank() != 4 || kernel.size() != 2 ||
        llvm::any_of(op.getDilations(), [](int64_t d) { return d != 1; }) ||
        (poolType != "max" && poolType != "avg" && poolType != "sum"))
      return failure();
    SmallVector<int64_t> stride = op.getStrides(), pad = op.getPadding();
    SmallVector<int64_t> high = poolingHighPadding(op, tensorType(a.getData()));
    if (llvm::all_of(pad, [](int64_t p) { return p == 0; }) &&
        llvm::all_of(high, [](int64_t p) { return p == 0; }))
      return failure();
    Value y =
        Pool2DKernelOp::create(
            b, op.getLoc(), type, a.getData(),
            emptyTensor(b, op.getLoc(), type.getShape(), b.getF32Type()),
            kernel, op.getStrides(), op.getPadding(), poolType,
            /*count_include_pad=*/poolType == "avg" && op.getCountIncludePad(),
            /*accumulate=*/false,
            /*relu=*/false)
            .getResult();
    b.replaceOp(op, y);
    return success();
  }
};

struct DotKernel : KernelPattern<DotOp> {
  using KernelPattern::KernelPattern;
  LogicalResult matchAndRewrite(DotOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (!isF32(op.getResult()))
      return failure();
    Value y =
        MatmulKernelOp::create(
            b, op.getLoc(), type, a.getLhs(), a.getRhs(), /*bias=*/Value(),
            emptyTensor(b, op.getLoc(), type.getShape(), b.getF32Type()),
            op.getTransposeA(), op.getTransposeB(), /*accumulate=*/false,
            /*relu=*/false)
            .getResult();
    b.replaceOp(op, y);
    return success();
  }
};

/// NumPy matmul where the kernel's batching covers the broadcast: 2-D by
/// 2-D, a stack of rows by one matrix ([..., M, K] x [K, N]: the stack is
/// folded into M) and equal-batch 3-D by 3-D.
struct MatMulKernel : KernelPattern<MatMulOp> {
  using KernelPattern::KernelPattern;
  LogicalResult matchAndRewrite(MatMulOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (!isF32(op.getResult()))
      return failure();
    Location loc = op.getLoc();
    ArrayRef<int64_t> as = tensorType(a.getLhs()).getShape(),
                      bs = tensorType(a.getRhs()).getShape();
    Value lhs = a.getLhs(), rhs = a.getRhs();
    SmallVector<int64_t> yShape;
    if (as.size() >= 2 && bs.size() == 2) {
      int64_t m = tensorType(lhs).getNumElements() / as.back();
      lhs = reshapeTo(b, loc, lhs, {m, as.back()});
      yShape = {m, bs[1]};
    } else if (as.size() == 3 && bs.size() == 3 && as[0] == bs[0]) {
      yShape = {as[0], as[1], bs[2]};
    } else {
      return failure();
    }
    Value y =
        MatmulKernelOp::create(
            b, loc, RankedTensorType::get(yShape, b.getF32Type()), lhs, rhs,
            /*bias=*/Value(), emptyTensor(b, loc, yShape, b.getF32Type()),
            /*transpose_a=*/false, /*transpose_b=*/false, /*accumulate=*/false,
            /*relu=*/false)
            .getResult();
    b.replaceOp(op, reshapeTo(b, loc, y, type.getShape()));
    return success();
  }
};

/// Transposed convolution without a scatter: the input is dilated by the
/// stride (stride - 1 zeros between elements), padded by
/// dilate * (k - 1) - pad on each side (plus adj after; negative amounts
/// crop), and convolved with stride 1 and the weight flipped spatially with
/// its channel axes swapped per group: (C, F/g, K...) -> (F, C/g, K...).
struct DeconvolutionLowering : MxPattern<DeconvolutionOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(DeconvolutionOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> kernel = op.getKernel();
    unsigned ns = kernel.size();
    auto orDefault = [&](ArrayRef<int64_t> v, int64_t dflt) {
      return v.empty() ? SmallVector<int64_t>(ns, dflt)
                       : SmallVector<int64_t>(v);
    };
    auto stride = orDefault(op.getStride(), 1),
         dilate = orDefault(op.getDilate(), 1), pad = orDefault(op.getPad(), 0),
         adj = orDefault(op.getAdj(), 0);
    auto inType = tensorType(a.getData());
    Type et = inType.getElementType();
    int64_t rank = inType.getRank();

    // Per spatial axis: the dilated extent, the (signed) padding before and
    // after it, and the non-negative part that is materialized.
    SmallVector<int64_t> low(ns), high(ns), padLow(ns), padHigh(ns);
    SmallVector<int64_t> shape(inType.getShape()), cropped(inType.getShape());
    bool strided = false, crop = false;
    for (unsigned s = 0; s < ns; ++s) {
      int64_t dilated = (inType.getDimSize(2 + s) - 1) * stride[s] + 1;
      low[s] = dilate[s] * (kernel[s] - 1) - pad[s];
      high[s] = low[s] + adj[s];
      padLow[s] = std::max<int64_t>(low[s], 0);
      padHigh[s] = std::max<int64_t>(high[s], 0);
      shape[2 + s] = dilated + padLow[s] + padHigh[s];
      cropped[2 + s] = dilated + low[s] + high[s];
      strided |= stride[s] > 1;
      crop |= low[s] < 0 || high[s] < 0;
    }
    Value x;
    if (!strided) {
      x = padAxes(b, loc, a.getData(), 2, padLow, padHigh, 0.0);
    } else {
      SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
          strides(rank, b.getIndexAttr(1));
      for (int64_t e : inType.getShape())
        sizes.push_back(b.getIndexAttr(e));
      for (unsigned s = 0; s < ns; ++s) {
        offsets[2 + s] = b.getIndexAttr(padLow[s]);
        strides[2 + s] = b.getIndexAttr(stride[s]);
      }
      x = tensor::InsertSliceOp::create(b, loc, a.getData(),
                                        filledTensor(b, loc, shape, et, 0.0),
                                        offsets, sizes, strides);
    }
    if (crop) {
      SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
          strides(rank, b.getIndexAttr(1));
      for (int64_t e : cropped)
        sizes.push_back(b.getIndexAttr(e));
      for (unsigned s = 0; s < ns; ++s)
        offsets[2 + s] = b.getIndexAttr(std::max<int64_t>(-low[s], 0));
      x = tensor::ExtractSliceOp::create(b, loc,
                                         RankedTensorType::get(cropped, et), x,
                                         offsets, sizes, strides);
    }

    // w'[g, f, c, k...] = w[g, c, f, K - 1 - k...] with the groups explicit.
    MLIRContext *ctx = b.getContext();
    int64_t g = op.getNumGroup(), cg = inType.getDimSize(1) / g,
            fg = op.getNumFilter() / g;
    SmallVector<int64_t> wShape = {g, cg, fg}, flippedShape = {g, fg, cg};
    llvm::append_range(wShape, kernel);
    llvm::append_range(flippedShape, kernel);
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> we = {d(0), d(2), d(1)};
    for (unsigned s = 0; s < ns; ++s)
      we.push_back(kernel[s] - 1 - d(3 + s));
    Value w = generic(
        b, loc, flippedShape, et, {reshapeTo(b, loc, a.getWeight(), wShape)},
        {AffineMap::get(3 + ns, 0, we, ctx)}, parallel(3 + ns),
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    SmallVector<int64_t> convShape = {g * fg, cg};
    llvm::append_range(convShape, kernel);
    w = reshapeTo(b, loc, w, convShape);
    b.replaceOp(op, groupedConvolution(b, loc, x, w, a.getBias(), g, kernel,
                                       SmallVector<int64_t>(ns, 1), dilate,
                                       cast<RankedTensorType>(op.getType())));
    return success();
  }
};

/// Pooling windows of at most this many elements are unrolled into one
/// parallel loop nest (see PoolingLowering).
constexpr int64_t kUnrolledWindow = 16;

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
         dilate = op.getDilations(), pad = op.getPadding();
    unsigned ns = kernel.size();
    StringRef type = op.getPoolType();
    bool isMax = type == "max", isFloat = isa<FloatType>(et);
    Sign sign = signOf(op);

    // Pad low by `pad`; pad high far enough for the last ("full") window.
    SmallVector<int64_t> high = poolingHighPadding(op, inType);
    Value neutral = isMax ? constExtreme(b, loc, et, /*highest=*/false, sign)
                          : constScalar(b, loc, et, 0.0);
    Value x = padAxes(b, loc, a.getData(), 2, pad, high, neutral);

    auto combine = [&](OpBuilder &nb, Location l, Value acc, Value v) -> Value {
      if (isMax && !isFloat)
        return maxI(nb, l, v, acc, sign);
      if (isMax)
        return arith::MaximumFOp::create(nb, l, v, acc);
      return arith::AddFOp::create(nb, l, v, acc);
    };
    int64_t windowSize = 1;
    for (int64_t k : kernel)
      windowSize *= k;
    Value y;
    if (windowSize <= kUnrolledWindow) {
      // A small window unrolled: one parallel loop nest reading the input
      // once per window position (an operand each), combined in a register
      // from the neutral value in the reduction's order. As a reduction,
      // the loops load and store the output for every window element
      // (ResNet-18's 3x3/2 max pooling: 3% of its time on one thread).
      // Each window position's elements are a strided slice of the padded
      // input of the output's shape (a view once bufferized), so the loop
      // nest is elementwise over the output.
      unsigned rank = outType.getRank();
      SmallVector<Value> inputs;
      for (int64_t w = 0; w < windowSize; ++w) {
        SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
        int64_t rest = w;
        for (int s = ns - 1; s >= 0; --s) {
          offsets[2 + s] = rest % kernel[s] * dilate[s];
          strides[2 + s] = stride[s];
          rest /= kernel[s];
        }
        inputs.push_back(tensor::ExtractSliceOp::create(
            b, loc, outType, x, ValueRange{}, ValueRange{}, ValueRange{},
            offsets, outType.getShape(), strides));
      }
      y = elementwise(b, loc, outType, inputs,
                      [&](OpBuilder &nb, Location l, ValueRange args) {
                        Value acc = neutral;
                        for (int64_t w = 0; w < windowSize; ++w)
                          acc = combine(nb, l, acc, args[w]);
                        return acc;
                      });
    } else {
      PoolingLoops loops = poolingLoops(ctx, stride, dilate);
      Value window = emptyTensor(b, loc, kernel, et);
      Value init = filledTensor(b, loc, outType.getShape(), neutral);
      y = generic(
          b, loc, outType.getShape(), et, {x, window},
          {loops.input, loops.window}, loops.iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
            return combine(nb, l, args[2], args[0]);
          },
          init, loops.output);
    }
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
    SmallVector<APFloat> divisor;
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
      APFloat v((double)count);
      bool lost;
      v.convert(cast<FloatType>(et).getFloatSemantics(),
                APFloat::rmNearestTiesToEven, &lost);
      divisor.push_back(v);
    }
    auto divType = RankedTensorType::get(spatial, et);
    Value div = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(divType, divisor));
    SmallVector<AffineExpr> de;
    for (unsigned s = 0; s < ns; ++s)
      de.push_back(getAffineDimExpr(2 + s, ctx));
    unsigned rank = outType.getRank();
    Value avg = generic(
        b, loc, outType.getShape(), et, {y, div},
        {b.getMultiDimIdentityMap(rank), AffineMap::get(rank, 0, de, ctx)},
        parallel(rank),
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          return arith::DivFOp::create(nb, l, args[0], args[1]);
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
    Sign sign = signOf(op);
    b.replaceOp(op,
                elementwise(b, op.getLoc(),
                            cast<RankedTensorType>(op.getType()), {a.getData()},
                            [&](OpBuilder &nb, Location l, ValueRange args) {
                              return applyUnary(nb, l, fn, args[0], sign);
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
          return applyBinary(nb, l, fn, args[0], args[1], signOf(op));
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
    if (isBool(type.getElementType()))
      return op.emitOpError("scalar arithmetic is not defined for booleans");
    StringRef fn = op.getOp();
    double scalar = op.getScalar().convertToDouble();
    bool reverse = op.getReverse();
    b.replaceOp(
        op,
        elementwise(b, op.getLoc(), type, {a.getData()},
                    [&](OpBuilder &nb, Location l, ValueRange args) {
                      // On integers the scalar truncated toward zero.
                      Value s = constScalar(nb, l, args[0].getType(), scalar);
                      Sign sign = signOf(op);
                      return reverse ? applyBinary(nb, l, fn, s, args[0], sign)
                                     : applyBinary(nb, l, fn, args[0], s, sign);
                    }));
    return success();
  }
};

struct ClipLowering : MxPattern<ClipOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(ClipOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    if (isBool(et))
      return op.emitOpError("clip is not defined for booleans");
    double lo = op.getAMin().convertToDouble(),
           hi = op.getAMax().convertToDouble();
    bool isFloat = isa<FloatType>(et);
    b.replaceOp(
        op,
        elementwise(
            b, op.getLoc(), type, {a.getData()},
            [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
              Value x = args[0];
              if (isFloat) {
                // MXNet's formula, which keeps NaN (as NumPy).
                Value vlo = constFloat(nb, l, et, lo),
                      vhi = constFloat(nb, l, et, hi);
                Value v = select(nb, l,
                                 cmpF(nb, l, arith::CmpFPredicate::OLT, x, vlo),
                                 vlo, x);
                return select(nb, l,
                              cmpF(nb, l, arith::CmpFPredicate::OGT, x, vhi),
                              vhi, v);
              }
              // The integers in [a_min, a_max], saturated.
              Sign sign = signOf(op);
              Value v =
                  maxI(nb, l, x, constScalar(nb, l, et, std::ceil(lo)), sign);
              return minI(nb, l, v, constScalar(nb, l, et, std::floor(hi)),
                          sign);
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

/// The iteration space of a reduction of a rank-`rank` tensor over `axes`:
/// iterator types, the map to the reduced result and its shape.
struct ReductionSpace {
  SmallVector<IteratorType> iters;
  AffineMap outMap;
  SmallVector<int64_t> shape;
  int64_t count = 1; ///< Elements folded into each result.

  ReductionSpace(MLIRContext *ctx, ArrayRef<int64_t> inShape,
                 ArrayRef<int64_t> axes) {
    unsigned rank = inShape.size();
    iters = parallel(rank);
    SmallVector<AffineExpr> keep;
    for (unsigned i = 0; i < rank; ++i) {
      if (llvm::is_contained(axes, i)) {
        iters[i] = IteratorType::reduction;
        count *= inShape[i];
      } else {
        keep.push_back(getAffineDimExpr(i, ctx));
        shape.push_back(inShape[i]);
      }
    }
    outMap = AffineMap::get(rank, 0, keep, ctx);
  }
};

using StepFn = function_ref<Value(OpBuilder &, Location, Value element,
                                  Value acc, ValueRange extras)>;

/// Folds `x` over the reduced axes of `space`, starting from `init` (a
/// scalar); `extras` are tensors of the reduced shape read alongside.
Value reduction(OpBuilder &b, Location loc, Value x,
                const ReductionSpace &space, Value init, StepFn step,
                ValueRange extras = {}) {
  unsigned rank = space.iters.size();
  SmallVector<Value> inputs = {x};
  llvm::append_range(inputs, extras);
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
  maps.append(extras.size(), space.outMap);
  return generic(
      b, loc, space.shape, init.getType(), inputs, maps, space.iters,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        return step(nb, l, args.front(), args.back(),
                    args.drop_front().drop_back());
      },
      filledTensor(b, loc, space.shape, init), space.outMap);
}

/// mx.reduce's function `fn` of a float or (non-boolean) integer tensor, in
/// the reduced shape. Integer means truncate toward zero; integer l2 and
/// logsumexp are computed in f64 and truncated.
Value reduceValues(OpBuilder &b, Location loc, StringRef fn, Value x,
                   const ReductionSpace &space, Sign sign = Sign::Signed) {
  auto type = tensorType(x);
  Type et = type.getElementType();
  bool isFloat = isa<FloatType>(et);
  if (!isFloat && isOneOf(fn, {"l2", "logsumexp"})) {
    Type f64 = b.getF64Type();
    Value wide = elementwise(b, loc, type.clone(f64), {x},
                             [&](OpBuilder &nb, Location l, ValueRange args) {
                               return convertScalar(nb, l, args[0], f64, sign);
                             });
    Value y = reduceValues(b, loc, fn, wide, space);
    return elementwise(b, loc, RankedTensorType::get(space.shape, et), {y},
                       [&](OpBuilder &nb, Location l, ValueRange args) {
                         return convertScalar(nb, l, args[0], et, Sign::Signed,
                                              sign);
                       });
  }
  auto redType = RankedTensorType::get(space.shape, et);
  auto add = [&](OpBuilder &nb, Location l, Value u, Value v) -> Value {
    if (isFloat)
      return arith::AddFOp::create(nb, l, u, v);
    return arith::AddIOp::create(nb, l, u, v);
  };
  auto mul = [&](OpBuilder &nb, Location l, Value u, Value v) -> Value {
    if (isFloat)
      return arith::MulFOp::create(nb, l, u, v);
    return arith::MulIOp::create(nb, l, u, v);
  };

  if (fn == "max" || fn == "min") {
    bool isMax = fn == "max";
    return reduction(
        b, loc, x, space, constExtreme(b, loc, et, /*highest=*/!isMax, sign),
        [&](OpBuilder &nb, Location l, Value e, Value acc,
            ValueRange) -> Value {
          if (isFloat)
            return isMax ? arith::MaximumFOp::create(nb, l, e, acc).getResult()
                         : arith::MinimumFOp::create(nb, l, e, acc).getResult();
          return isMax ? maxI(nb, l, e, acc, sign) : minI(nb, l, e, acc, sign);
        });
  }
  if (fn == "prod")
    return reduction(b, loc, x, space, constScalar(b, loc, et, 1.0),
                     [&](OpBuilder &nb, Location l, Value e, Value acc,
                         ValueRange) { return mul(nb, l, e, acc); });
  if (fn == "logsumexp") {
    // log(sum(exp(x - m))) + m with m the maximum where it is finite (all
    // -inf gives -inf, not NaN).
    Value m = reduceValues(b, loc, "max", x, space);
    Value shift = elementwise(
        b, loc, redType, {m}, [&](OpBuilder &nb, Location l, ValueRange args) {
          Value finite = cmpF(nb, l, arith::CmpFPredicate::OLT,
                              math::AbsFOp::create(nb, l, args[0]),
                              constExtreme(nb, l, et, /*highest=*/true));
          return select(nb, l, finite, args[0], constFloat(nb, l, et, 0.0));
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

  // Sums: sum, mean, l1 (of |x|), sumsquare and l2 (of x^2).
  Value y =
      reduction(b, loc, x, space, constScalar(b, loc, et, 0.0),
                [&](OpBuilder &nb, Location l, Value e, Value acc, ValueRange) {
                  if (fn == "l1")
                    e = isFloat ? math::AbsFOp::create(nb, l, e).getResult()
                                : math::AbsIOp::create(nb, l, e).getResult();
                  else if (fn == "sumsquare" || fn == "l2")
                    e = mul(nb, l, e, e);
                  return add(nb, l, e, acc);
                });
  if (fn == "mean" && (isFloat || space.count > 0))
    return elementwise(
        b, loc, redType, {y},
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value n = constScalar(nb, l, et, (double)space.count);
          if (isFloat)
            return arith::DivFOp::create(nb, l, args[0], n);
          if (sign == Sign::Unsigned)
            return arith::DivUIOp::create(nb, l, args[0], n);
          return arith::DivSIOp::create(nb, l, args[0], n);
        });
  if (fn == "l2")
    return elementwise(b, loc, redType, {y},
                       [&](OpBuilder &nb, Location l, ValueRange args) {
                         return math::SqrtOp::create(nb, l, args[0]);
                       });
  return y;
}

struct ReduceLowering : MxPattern<ReduceOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(ReduceOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto inType = tensorType(a.getData());
    auto outType = cast<RankedTensorType>(op.getType());
    Type et = inType.getElementType();
    StringRef fn = op.getOp();
    ReductionSpace space(b.getContext(), inType.getShape(),
                         op.getReducedAxes());
    Value y;
    if (isBool(et)) {
      // Booleans: max is any, min is all; nothing else is defined.
      if (fn != "max" && fn != "min")
        return op.emitOpError("reduction '")
               << fn << "' is not defined for booleans";
      bool isMax = fn == "max";
      y = reduction(
          b, loc, a.getData(), space, constInt(b, loc, et, !isMax),
          [&](OpBuilder &nb, Location l, Value e, Value acc, ValueRange) {
            return isMax ? arith::OrIOp::create(nb, l, e, acc).getResult()
                         : arith::AndIOp::create(nb, l, e, acc).getResult();
          });
    } else {
      y = reduceValues(b, loc, fn, a.getData(), space, signOf(op));
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

/// The taken elements in increasing order are a strided tensor.extract_slice
/// (a view after bufferization); axes with negative steps are then reversed
/// by a generic reading index count - 1 - i.
struct SliceLowering : MxPattern<SliceOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(SliceOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> starts, steps, counts;
    op.getNormalized(starts, steps, counts);
    unsigned rank = type.getRank();
    SmallVector<OpFoldResult> offsets, sizes, strides;
    SmallVector<AffineExpr> exprs;
    bool reversed = false;
    for (unsigned i = 0; i < rank; ++i) {
      int64_t first = starts[i];
      if (steps[i] < 0)
        first = counts[i] ? starts[i] + (counts[i] - 1) * steps[i] : 0;
      offsets.push_back(b.getIndexAttr(first));
      sizes.push_back(b.getIndexAttr(counts[i]));
      strides.push_back(b.getIndexAttr(std::abs(steps[i])));
      AffineExpr d = getAffineDimExpr(i, ctx);
      exprs.push_back(steps[i] < 0 ? counts[i] - 1 - d : d);
      reversed |= steps[i] < 0 && counts[i] > 1;
    }
    Value y = tensor::ExtractSliceOp::create(b, loc, type, a.getData(), offsets,
                                             sizes, strides);
    if (reversed)
      y = generic(
          b, loc, type.getShape(), type.getElementType(), {y},
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

//===----------------------------------------------------------------------===//
// Ops for ONNX
//===----------------------------------------------------------------------===//

struct CompareLowering : MxPattern<CompareOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(CompareOp op, Adaptor a,
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
          return applyCompare(nb, l, fn, args[0], args[1], signOf(op));
        });
    b.replaceOp(op, y);
    return success();
  }
};

struct CastLowering : MxPattern<CastOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(CastOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (type == a.getData().getType()) {
      b.replaceOp(op, a.getData());
      return success();
    }
    Type to = type.getElementType();
    Sign toSign =
        op->hasAttr(kUnsignedResultAttr) ? Sign::Unsigned : Sign::Signed;
    b.replaceOp(op,
                elementwise(b, op.getLoc(), type, {a.getData()},
                            [&](OpBuilder &nb, Location l, ValueRange args) {
                              return convertScalar(nb, l, args[0], to,
                                                   signOf(op), toSign);
                            }));
    return success();
  }
};

struct WhereLowering : MxPattern<WhereOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(WhereOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    MLIRContext *ctx = b.getContext();
    SmallVector<Value> inputs = {a.getCond(), a.getX(), a.getY()};
    SmallVector<AffineMap> maps;
    for (Value v : inputs)
      maps.push_back(
          broadcastMap(ctx, tensorType(v).getShape(), type.getShape()));
    b.replaceOp(op,
                generic(b, op.getLoc(), type.getShape(), type.getElementType(),
                        inputs, maps, parallel(type.getRank()),
                        [](OpBuilder &nb, Location l, ValueRange args) {
                          return select(nb, l, args[0], args[1], args[2]);
                        }));
    return success();
  }
};

/// out[pre..., idx..., post...] = data[pre..., indices[idx...], post...]: a
/// generic over the output reading the indices through a map and the data
/// with tensor.extract. Negative indices count from the end; indices still
/// out of range are clamped into it, so the read stays in bounds.
struct GatherLowering : MxPattern<GatherOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(GatherOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto dataType = tensorType(a.getData());
    unsigned idxRank = tensorType(a.getIndices()).getRank();
    unsigned rank = type.getRank(), dataRank = dataType.getRank();
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += dataRank;
    int64_t extent = dataType.getDimSize(axis);
    if (extent == 0 && type.getNumElements() > 0)
      return op.emitOpError("gathers from an axis of extent 0");
    SmallVector<AffineExpr> idxExprs;
    for (unsigned i = 0; i < idxRank; ++i)
      idxExprs.push_back(b.getAffineDimExpr(axis + i));
    Value data = a.getData();
    Value y = generic(
        b, op.getLoc(), type.getShape(), type.getElementType(),
        {a.getIndices()}, {AffineMap::get(rank, 0, idxExprs, b.getContext())},
        parallel(rank),
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Type i64 = nb.getI64Type();
          Value i = convertScalar(nb, l, args[0], i64);
          Value zero = constInt(nb, l, i64, 0);
          Value wrapped =
              arith::AddIOp::create(nb, l, i, constInt(nb, l, i64, extent));
          i = select(nb, l, cmpI(nb, l, arith::CmpIPredicate::slt, i, zero),
                     wrapped, i);
          i = arith::MaxSIOp::create(nb, l, i, zero);
          i = arith::MinSIOp::create(nb, l, i,
                                     constInt(nb, l, i64, extent - 1));
          SmallVector<Value> at;
          for (int64_t d = 0; d < axis; ++d)
            at.push_back(linalg::IndexOp::create(nb, l, d));
          at.push_back(arith::IndexCastOp::create(nb, l, nb.getIndexType(), i));
          for (unsigned d = axis + 1; d < dataRank; ++d)
            at.push_back(linalg::IndexOp::create(nb, l, d - 1 + idxRank));
          return tensor::ExtractOp::create(nb, l, data, at);
        });
    b.replaceOp(op, y);
    return success();
  }
};

/// Output position o along an axis holds data[o - before] (padding first,
/// then cropping for negative counts). Constant padding is tensor.pad of the
/// part of the data that survives cropping; reflect and edge are a generic
/// over the output computing the source index and reading it with
/// tensor.extract (clamped into range, so the read stays in bounds).
struct PadLowering : MxPattern<PadOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(PadOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto dataType = tensorType(a.getData());
    Type et = type.getElementType();
    int64_t rank = type.getRank();
    ArrayRef<int64_t> pads = op.getPads();
    Value data = a.getData();
    if (op.getMode() == "constant") {
      double value = op.getValue().convertToDouble();
      SmallVector<OpFoldResult> offsets, sizes,
          strides(rank, b.getIndexAttr(1));
      SmallVector<int64_t> low, high, kept;
      for (int64_t i = 0; i < rank; ++i) {
        int64_t d = dataType.getDimSize(i), e = type.getDimSize(i);
        int64_t first = std::max<int64_t>(pads[i], 0);
        int64_t start = std::max<int64_t>(-pads[i], 0);
        int64_t count = std::min(d - start, e - first);
        if (count <= 0) { // Nothing of the data survives.
          b.replaceOp(op, filledTensor(b, loc, type.getShape(), et, value));
          return success();
        }
        offsets.push_back(b.getIndexAttr(start));
        sizes.push_back(b.getIndexAttr(count));
        kept.push_back(count);
        low.push_back(first);
        high.push_back(e - first - count);
      }
      if (ArrayRef<int64_t>(kept) != dataType.getShape())
        data = tensor::ExtractSliceOp::create(b, loc,
                                              RankedTensorType::get(kept, et),
                                              data, offsets, sizes, strides);
      b.replaceOp(op, padAxes(b, loc, data, 0, low, high, value));
      return success();
    }
    bool reflect = op.getMode() == "reflect";
    Value y =
        generic(b, loc, type.getShape(), et, {}, {}, parallel(rank),
                [&](OpBuilder &nb, Location l, ValueRange) -> Value {
                  SmallVector<Value> at;
                  for (int64_t i = 0; i < rank; ++i) {
                    int64_t last = dataType.getDimSize(i) - 1;
                    auto idx = [&](int64_t v) -> Value {
                      return arith::ConstantIndexOp::create(nb, l, v);
                    };
                    Value s = arith::SubIOp::create(
                        nb, l, linalg::IndexOp::create(nb, l, i), idx(pads[i]));
                    if (reflect) {
                      // -s before the start, 2 * last - s past the end.
                      Value neg = arith::SubIOp::create(nb, l, idx(0), s);
                      s = arith::MaxSIOp::create(nb, l, s, neg);
                      Value back =
                          arith::SubIOp::create(nb, l, idx(2 * last), s);
                      s = arith::MinSIOp::create(nb, l, s, back);
                    }
                    s = arith::MaxSIOp::create(nb, l, s, idx(0));
                    s = arith::MinSIOp::create(nb, l, s, idx(last));
                    at.push_back(s);
                  }
                  return tensor::ExtractOp::create(nb, l, data, at);
                });
    b.replaceOp(op, y);
    return success();
  }
};

struct BroadcastToLowering : MxPattern<BroadcastToOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(BroadcastToOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    b.replaceOp(op, generic(b, op.getLoc(), type.getShape(),
                            type.getElementType(), {a.getData()},
                            {broadcastMap(b.getContext(),
                                          tensorType(a.getData()).getShape(),
                                          type.getShape())},
                            parallel(type.getRank()),
                            [](OpBuilder &, Location, ValueRange args) {
                              return args[0];
                            }));
    return success();
  }
};

/// NumPy matmul: 1-D operands are reshaped to a row (lhs) or a column (rhs),
/// then one generic (batch..., m, n | k) reads each operand's batch axes
/// broadcast; the result is reshaped to drop the promoted axes.
struct MatMulLowering : MxPattern<MatMulOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(MatMulOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    if (isBool(et))
      return op.emitOpError("matmul is not defined for booleans");
    SmallVector<int64_t> as(tensorType(a.getLhs()).getShape()),
        bs(tensorType(a.getRhs()).getShape());
    if (as.size() == 1)
      as.insert(as.begin(), 1);
    if (bs.size() == 1)
      bs.push_back(1);
    Value lhs = reshapeTo(b, loc, a.getLhs(), as);
    Value rhs = reshapeTo(b, loc, a.getRhs(), bs);
    unsigned nBatch = std::max(as.size(), bs.size()) - 2;
    SmallVector<int64_t> yShape(nBatch, 1);
    for (ArrayRef<int64_t> s : {ArrayRef(as), ArrayRef(bs)})
      for (unsigned i = 0; i + 2 < s.size(); ++i)
        if (s[i] != 1)
          yShape[nBatch - (s.size() - 2) + i] = s[i];
    int64_t m = as[as.size() - 2], n = bs.back();
    yShape.append({m, n});

    unsigned nLoops = nBatch + 3;
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    // An operand's batch axes, right-aligned, extent 1 broadcast.
    auto batchExprs = [&](ArrayRef<int64_t> s) {
      SmallVector<AffineExpr> e;
      unsigned offset = nBatch - (s.size() - 2);
      for (unsigned i = 0; i + 2 < s.size(); ++i)
        e.push_back(s[i] == 1 && yShape[offset + i] != 1
                        ? getAffineConstantExpr(0, ctx)
                        : d(offset + i));
      return e;
    };
    SmallVector<AffineExpr> ae = batchExprs(as), be = batchExprs(bs), ye;
    ae.append({d(nBatch), d(nBatch + 2)});
    be.append({d(nBatch + 2), d(nBatch + 1)});
    for (unsigned i = 0; i < nBatch + 2; ++i)
      ye.push_back(d(i));
    SmallVector<IteratorType> iters = parallel(nBatch + 2);
    iters.push_back(IteratorType::reduction);
    bool isFloat = isa<FloatType>(et);
    Value y = generic(
        b, loc, yShape, et, {lhs, rhs},
        {AffineMap::get(nLoops, 0, ae, ctx),
         AffineMap::get(nLoops, 0, be, ctx)},
        iters,
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          if (isFloat)
            return arith::AddFOp::create(
                nb, l, args[2], arith::MulFOp::create(nb, l, args[0], args[1]));
          return arith::AddIOp::create(
              nb, l, args[2], arith::MulIOp::create(nb, l, args[0], args[1]));
        },
        filledTensor(b, loc, yShape, et, 0.0),
        AffineMap::get(nLoops, 0, ye, ctx));
    b.replaceOp(op, reshapeTo(b, loc, y, type.getShape()));
    return success();
  }
};

/// One generic with two outputs, the running extreme and its index. The
/// update does not depend on the visiting order: an element wins if it is
/// strictly better, or equal with a smaller index (a larger one with
/// select_last_index). NaN beats every number, as in NumPy.
struct ArgReduceLowering : MxPattern<ArgReduceOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(ArgReduceOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto dataType = tensorType(a.getData());
    Type et = dataType.getElementType(), i64 = b.getI64Type();
    int64_t rank = dataType.getRank(), axis = op.getAxis();
    if (axis < 0)
      axis += rank;
    bool isMax = op.getOp() == "max", last = op.getSelectLastIndex();
    ReductionSpace space(b.getContext(), dataType.getShape(), {axis});
    Sign sign = signOf(op);
    Value initValue = filledTensor(b, loc, space.shape,
                                   constExtreme(b, loc, et, !isMax, sign));
    Value initIndex =
        filledTensor(b, loc, space.shape, constInt(b, loc, i64, 0));
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{initValue.getType(), initIndex.getType()},
        ValueRange{a.getData()}, ValueRange{initValue, initIndex},
        ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank), space.outMap,
                            space.outMap},
        space.iters, [&](OpBuilder &nb, Location l, ValueRange args) {
          Value x = args[0], best = args[1], bestIndex = args[2];
          Value i = arith::IndexCastOp::create(
              nb, l, i64, linalg::IndexOp::create(nb, l, axis));
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
            same = arith::OrIOp::create(
                nb, l, cmpF(nb, l, P::OEQ, x, best),
                arith::AndIOp::create(nb, l, xNaN, bestNaN));
          } else {
            using P = arith::CmpIPredicate;
            better = cmpI(nb, l, isMax ? P::sgt : P::slt, x, best, sign);
            same = cmpI(nb, l, P::eq, x, best);
          }
          Value tie =
              cmpI(nb, l,
                   last ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt,
                   i, bestIndex);
          Value take = arith::OrIOp::create(
              nb, l, better, arith::AndIOp::create(nb, l, same, tie));
          linalg::YieldOp::create(
              nb, l,
              ValueRange{select(nb, l, take, x, best),
                         select(nb, l, take, i, bestIndex)});
        });
    b.replaceOp(op, reshapeTo(b, loc, generic.getResult(1), type.getShape()));
    return success();
  }
};

/// out = (x - mean) / sqrt(var + eps) * gamma + beta, with the mean and the
/// population variance over `axis`.
struct LayerNormLowering : MxPattern<LayerNormOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(LayerNormOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    unsigned rank = type.getRank();
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += rank;
    double eps = op.getEps().convertToDouble();
    ReductionSpace space(b.getContext(), type.getShape(), {axis});
    auto redType = RankedTensorType::get(space.shape, et);
    Value x = a.getData();
    Value zero = constFloat(b, loc, et, 0.0);
    Value sum = reduction(
        b, loc, x, space, zero,
        [](OpBuilder &nb, Location l, Value e, Value acc, ValueRange) -> Value {
          return arith::AddFOp::create(nb, l, e, acc);
        });
    Value n = constFloat(b, loc, et, (double)space.count);
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
          Value v =
              arith::AddFOp::create(nb, l, var, constFloat(nb, l, et, eps));
          return math::RsqrtOp::create(nb, l, v);
        });
    AffineMap cm = channelMap(b.getContext(), rank, axis);
    Value y = generic(
        b, loc, type.getShape(), et, {x, mean, rstd, a.getGamma(), a.getBeta()},
        {b.getMultiDimIdentityMap(rank), space.outMap, space.outMap, cm, cm},
        parallel(rank),
        [](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value d = arith::SubFOp::create(nb, l, args[0], args[1]);
          Value s = arith::MulFOp::create(
              nb, l, arith::MulFOp::create(nb, l, d, args[2]), args[3]);
          return arith::AddFOp::create(nb, l, s, args[4]);
        });
    b.replaceOp(op, y);
    return success();
  }
};

/// `type` with unsigned integer elements made signless (other types as is).
Type signless(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  Type et = shaped ? shaped.getElementType() : type;
  auto it = dyn_cast<IntegerType>(et);
  if (!it || it.isSignless())
    return type;
  Type s = IntegerType::get(type.getContext(), it.getWidth());
  return shaped ? shaped.clone(s) : s;
}

/// Makes every unsigned integer type under `root` signless, marking the mx
/// ops that read (kUnsignedAttr) or cast to (kUnsignedResultAttr) unsigned
/// values first (see the file comment).
void makeSignless(Operation *root) {
  auto isUnsigned = [](Type t) { return signless(t) != t; };
  root->walk([&](Operation *op) {
    if (!isa_and_nonnull<MxDialect>(op->getDialect()))
      return;
    if (llvm::any_of(op->getOperandTypes(), isUnsigned))
      op->setAttr(kUnsignedAttr, UnitAttr::get(op->getContext()));
    if (isa<CastOp>(op) && isUnsigned(op->getResult(0).getType()))
      op->setAttr(kUnsignedResultAttr, UnitAttr::get(op->getContext()));
  });
  root->walk([&](Operation *op) {
    for (Value v : op->getResults())
      v.setType(signless(v.getType()));
    for (Region &r : op->getRegions())
      for (Block &block : r)
        for (BlockArgument arg : block.getArguments())
          arg.setType(signless(arg.getType()));
    if (auto fn = dyn_cast<func::FuncOp>(op)) {
      auto convert = [](TypeRange types) {
        return llvm::map_to_vector(types, signless);
      };
      FunctionType ft = fn.getFunctionType();
      fn.setFunctionType(FunctionType::get(
          op->getContext(), convert(ft.getInputs()), convert(ft.getResults())));
    }
  });
}

struct ConvertMxToLinalgPass
    : mxc::impl::ConvertMxToLinalgPassBase<ConvertMxToLinalgPass> {
  using ConvertMxToLinalgPassBase::ConvertMxToLinalgPassBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    makeSignless(getOperation());
    ConversionTarget target(*ctx);
    target.addIllegalDialect<MxDialect>();
    target.addLegalOp<MatmulKernelOp, Conv2DKernelOp, Pool2DKernelOp>();
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect,
                           scf::SCFDialect, func::FuncDialect>();
    RewritePatternSet patterns(ctx);
    if (kernels)
      populateMxToKernelPatterns(patterns);
    populateMxToLinalgPatterns(patterns);
    populateGradOpsToLinalgPatterns(patterns);
    populateOnnxOpsToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    // bfloat16 <-> f32 casts become integer code (rounding to nearest even),
    // as LLVM would call compiler-rt's __truncsfbf2, which models do not
    // link.
    RewritePatternSet bf16(ctx);
    arith::populateExpandBFloat16Patterns(bf16);
    walkAndApplyPatterns(getOperation(),
                         FrozenRewritePatternSet(std::move(bf16)));
  }
};

} // namespace

void mxc::populateMxToKernelPatterns(RewritePatternSet &patterns) {
  patterns.add<FullyConnectedKernel, ConvolutionKernel, PoolingKernel,
               DotKernel, MatMulKernel>(patterns.getContext());
}

void mxc::populateMxToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<
      FullyConnectedLowering, ConvolutionLowering, PoolingLowering,
      ActivationLowering, UnaryLowering, LeakyReLULowering, BatchNormLowering,
      IdentityLowering<DropoutOp>, IdentityLowering<BlockGradOp>, LRNLowering,
      EmbeddingLowering, SoftmaxLowering, SoftmaxOutputLowering, BinaryLowering,
      ScalarLowering, ClipLowering, DotLowering, ReduceLowering,
      ReshapeLikeLowering<FlattenOp>, ReshapeLikeLowering<ReshapeOp>,
      ReshapeLikeLowering<ExpandDimsOp>, ReshapeLikeLowering<SqueezeOp>,
      TransposeLowering, ConcatLowering, SliceLowering, SliceChannelLowering,
      DeconvolutionLowering, CompareLowering, CastLowering, WhereLowering,
      GatherLowering, PadLowering, BroadcastToLowering, MatMulLowering,
      ArgReduceLowering, LayerNormLowering>(patterns.getContext());
}
