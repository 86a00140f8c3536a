// SPDX-License-Identifier: Apache-2.0
// String tensors -> 64-bit handles (see LowerStringsPass in Passes.td and the
// string functions of runtime/include/mxrt/kernels.h, whose signatures the
// declarations below must match).
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"
#include "passes/lowering/LinalgBuilders.h"
#include "passes/lowering/Retype.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mxc {
#define GEN_PASS_DEF_LOWERSTRINGSPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc::mx;
using namespace mxc::lowering;

namespace {

constexpr StringLiteral kFromFloat = "mxrt_string_from_float";
constexpr StringLiteral kFromInt = "mxrt_string_from_int";
constexpr StringLiteral kToFloat = "mxrt_string_to_float";
constexpr StringLiteral kToInt = "mxrt_string_to_int";

bool isString(Type t) {
  if (auto shaped = dyn_cast<ShapedType>(t))
    t = shaped.getElementType();
  return isa<StringType>(t);
}

/// `t` with string elements as i64 handles (other types as is).
Type handles(Type t) {
  auto shaped = dyn_cast<ShapedType>(t);
  if (!shaped || !isString(t))
    return t;
  return shaped.clone(IntegerType::get(t.getContext(), 64));
}

/// The runtime function `name` (declared once in `module`).
func::FuncOp declare(ModuleOp module, StringRef name, TypeRange args,
                     Type result) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToStart(module.getBody());
  auto fn = func::FuncOp::create(b, module.getLoc(), name,
                                 b.getFunctionType(args, result));
  fn.setPrivate();
  return fn;
}

/// `x` as mx.cast makes it an `to` tensor (`x` itself when it is one).
Value castTo(OpBuilder &b, Location loc, Value x, Type to) {
  if (cast<RankedTensorType>(x.getType()).getElementType() == to)
    return x;
  return createInferred<CastOp>(b, loc, x,
                                {b.getNamedAttr("to", TypeAttr::get(to))});
}

/// A generic calling runtime function `name`(element, flag) -> `result`
/// once per element of `x`.
Value callEach(OpBuilder &b, ModuleOp module, Location loc, StringRef name,
               Value x, Type result, int64_t flag) {
  auto type = cast<RankedTensorType>(x.getType());
  func::FuncOp fn =
      declare(module, name, {type.getElementType(), b.getI32Type()}, result);
  return elementwise(
      b, loc, type.clone(result), x,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value f = arith::ConstantOp::create(nb, l, nb.getI32IntegerAttr(flag));
        return func::CallOp::create(nb, l, fn, ValueRange{args[0], f})
            .getResult(0);
      });
}

/// Number -> string: widen to f64 or i64 with mx.cast, then one runtime call
/// per element, which formats the value as its original type (the flag:
/// a float's width; for integers, whether the bits are a uint64).
Value formatNumbers(OpBuilder &b, ModuleOp module, CastOp op) {
  Location loc = op.getLoc();
  Value x = op.getData();
  Type et = cast<RankedTensorType>(x.getType()).getElementType();
  Type i64 = b.getI64Type();
  if (auto ft = dyn_cast<FloatType>(et))
    return callEach(b, module, loc, kFromFloat,
                    castTo(b, loc, x, b.getF64Type()), i64, ft.getWidth());
  // Integers and booleans: unsigned ones below 64 bits zero-extend into
  // i64; ui64 keeps its bits and is printed as unsigned.
  return callEach(b, module, loc, kFromInt, castTo(b, loc, x, i64), i64,
                  et.isUnsignedInteger(64));
}

/// String -> number: one runtime call per element parses into f64 (at the
/// target float's precision) or i64, then mx.cast narrows.
Value parseStrings(OpBuilder &b, ModuleOp module, CastOp op, Value handles) {
  Location loc = op.getLoc();
  Type to = cast<RankedTensorType>(op.getType()).getElementType();
  Value wide = isa<FloatType>(to)
                   ? callEach(b, module, loc, kToFloat, handles, b.getF64Type(),
                              cast<FloatType>(to).getWidth())
                   : callEach(b, module, loc, kToInt, handles, b.getI64Type(),
                              to.isUnsignedInteger(64));
  return castTo(b, loc, wide, to);
}

struct LowerStringsPass : mxc::impl::LowerStringsPassBase<LowerStringsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Casts first, while the types still say which side is text.
    SmallVector<CastOp> casts;
    module.walk([&](CastOp op) {
      if (isString(op.getData().getType()) || isString(op.getType()))
        casts.push_back(op);
    });
    for (CastOp op : casts) {
      OpBuilder b(op);
      bool from = isString(op.getData().getType()), to = isString(op.getType());
      Value y;
      if (from && to) {
        y = op.getData();
      } else if (to) {
        y = formatNumbers(b, module, op);
      } else {
        // The operand becomes a handle tensor below; cast it now so that
        // the generic is well typed.
        Value h =
            UnrealizedConversionCastOp::create(
                b, op.getLoc(), handles(op.getData().getType()), op.getData())
                .getResult(0);
        y = parseStrings(b, module, op, h);
      }
      if (to && y.getType() != handles(op.getType()))
        y = UnrealizedConversionCastOp::create(b, op.getLoc(), op.getType(), y)
                .getResult(0);
      op.replaceAllUsesWith(y);
      op.erase();
    }
    // Then every remaining string value is only passed along: retype it.
    WalkResult walk = module.walk([&](Operation *op) -> WalkResult {
      if (!isa<func::FuncOp, func::ReturnOp, func::CallOp,
               UnrealizedConversionCastOp>(op) &&
          llvm::any_of(op->getOperandTypes(), isString)) {
        op->emitOpError("takes a string tensor, which mxc only casts to and "
                        "from numbers or passes through");
        return WalkResult::interrupt();
      }
      retype(op, handles);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    // The casts inserted above now map a type to itself.
    SmallVector<UnrealizedConversionCastOp> bridges;
    module.walk([&](UnrealizedConversionCastOp op) {
      if (op->getNumOperands() == 1 && op->getNumResults() == 1 &&
          op.getOperand(0).getType() == op.getResult(0).getType())
        bridges.push_back(op);
    });
    for (UnrealizedConversionCastOp op : bridges) {
      op.getResult(0).replaceAllUsesWith(op.getOperand(0));
      op.erase();
    }
  }
};

} // namespace
