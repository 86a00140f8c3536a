// SPDX-License-Identifier: Apache-2.0
// The scalar side of the lowerings to linalg: constants, comparisons,
// conversions and MXNet's / ONNX's elementwise formulas, built inside
// linalg.generic bodies. One definition each, so that a forward op, its
// gradient and its ONNX cousin compute a formula the same way.
//
// Integer values use arith's signless ops read as signed unless a Sign says
// otherwise; booleans (i1) compare as unsigned (false < true). Unsigned
// element types are made signless before the patterns run, and each op that
// read them carries `mx.unsigned` (its integer operands are unsigned) or
// `mx.unsigned_result` (a cast's result is): see ConvertMxToLinalg.cpp.
#ifndef MXC_PASSES_LOWERING_SCALARBUILDERS_H
#define MXC_PASSES_LOWERING_SCALARBUILDERS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace mxc::lowering {

/// How an integer value's bits are read.
enum class Sign { Signed, Unsigned };

/// Unit attribute on an mx op whose integer operands were unsigned.
inline constexpr llvm::StringLiteral kUnsignedAttr = "mx.unsigned";
/// Unit attribute on an mx.cast whose result was unsigned.
inline constexpr llvm::StringLiteral kUnsignedResultAttr = "mx.unsigned_result";

/// How `op`'s integer operands are read (kUnsignedAttr).
inline Sign signOf(mlir::Operation *op) {
  return op->hasAttr(kUnsignedAttr) ? Sign::Unsigned : Sign::Signed;
}

inline bool isBool(mlir::Type t) { return t.isInteger(1); }

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

/// An arith.constant of the float type `type`.
mlir::Value constFloat(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                       double value);

/// A small integer constant (booleans: nonzero is true).
mlir::Value constInt(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                     int64_t value);

/// `value` as a constant of the element type `type`. Integers take it
/// truncated toward zero and saturated to the signed range (NaN: 0);
/// booleans are true when it is nonzero.
mlir::Value constScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                        double value);

/// The lowest (or highest) value of `type`: -inf / +inf for floats, the ends
/// of the integer range (signed unless `sign` says otherwise), false / true
/// for booleans. The identities of max and min reductions.
mlir::Value constExtreme(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Type type, bool highest,
                         Sign sign = Sign::Signed);

//===----------------------------------------------------------------------===//
// Comparisons, selection and arithmetic on floats or integers
//===----------------------------------------------------------------------===//

mlir::Value cmpF(mlir::OpBuilder &b, mlir::Location loc,
                 mlir::arith::CmpFPredicate p, mlir::Value x, mlir::Value y);

/// Integer comparison: `p` is the signed predicate, which booleans and
/// unsigned values compare with unsigned (false < true).
mlir::Value cmpI(mlir::OpBuilder &b, mlir::Location loc,
                 mlir::arith::CmpIPredicate p, mlir::Value x, mlir::Value y,
                 Sign sign = Sign::Signed);

mlir::Value select(mlir::OpBuilder &b, mlir::Location loc, mlir::Value c,
                   mlir::Value x, mlir::Value y);

mlir::Value maxI(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                 mlir::Value y, Sign sign);
mlir::Value minI(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                 mlir::Value y, Sign sign);

/// x + y and x * y on floats or integers (booleans wrap).
mlir::Value addValues(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      mlir::Value y);
mlir::Value mulValues(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      mlir::Value y);

/// How reductions and scatters combine two values.
enum class Combiner { Add, Mul, Max, Min };

/// `x` combined with `y`: floats' max and min propagate NaN; on booleans
/// add and max are `or`, mul and min `and`.
mlir::Value combine(mlir::OpBuilder &b, mlir::Location loc, Combiner kind,
                    mlir::Value x, mlir::Value y, Sign sign = Sign::Signed);

/// Converts a scalar between element types: float <-> float (through f32
/// between types of one width; bfloat16 only to and from f32, so other types
/// go through f32, or f64 rounded to odd f32), float -> int truncating toward
/// zero, int -> float signed (booleans as 0 / 1), int <-> int sign-extending
/// (booleans zero-extending), and to booleans `!= 0` (NaN is true). `from` /
/// `to` say whether the integer source / result is unsigned: unsigned
/// sources zero-extend and convert to floats as unsigned; floats convert to
/// unsigned results of under 64 bits through i64 (wrapping, as C's casts do
/// on x86).
mlir::Value convertScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                          mlir::Type to, Sign fromSign = Sign::Signed,
                          Sign toSign = Sign::Signed);

//===----------------------------------------------------------------------===//
// Positions inside linalg.generic bodies
//===----------------------------------------------------------------------===//

/// linalg.index `d`.
mlir::Value loopIndex(mlir::OpBuilder &b, mlir::Location loc, int64_t d);

/// linalg.index `d` as an i64.
mlir::Value loopIndexI64(mlir::OpBuilder &b, mlir::Location loc, int64_t d);

/// An index read from an integer tensor as a position along an axis of
/// `extent`: negative values count from the end, and what is still out of
/// range is clamped into it (ONNX's gathers and scatters).
mlir::Value positionAlong(mlir::OpBuilder &b, mlir::Location loc, mlir::Value i,
                          int64_t extent);

//===----------------------------------------------------------------------===//
// MXNet's and ONNX's elementwise functions
//===----------------------------------------------------------------------===//

/// mx.unary's / mx.Activation's function `fn` of `x`.
mlir::Value applyUnary(mlir::OpBuilder &b, mlir::Location loc,
                       llvm::StringRef fn, mlir::Value x,
                       Sign sign = Sign::Signed);

/// mx.binary's / mx.scalar's function `fn` of `x` and `y`.
mlir::Value applyBinary(mlir::OpBuilder &b, mlir::Location loc,
                        llvm::StringRef fn, mlir::Value x, mlir::Value y,
                        Sign sign = Sign::Signed);

/// mx.compare's comparison `fn`: ONNX's, ordered for floats except
/// not_equal, which is true for NaN (as x != x is).
mlir::Value applyCompare(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::StringRef fn, mlir::Value x, mlir::Value y,
                         Sign sign = Sign::Signed);

} // namespace mxc::lowering

#endif // MXC_PASSES_LOWERING_SCALARBUILDERS_H
