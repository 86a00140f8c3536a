// SPDX-License-Identifier: Apache-2.0
// String tensors -> 64-bit handles (see LowerStringsPass in Passes.td and the
// string functions of runtime/include/mxrt/kernels.h, whose signatures the
// declarations below must match).
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"
#include "passes/lowering/LinalgBuilders.h"

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

Value i32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}

/// Number -> string: widen to f64 or i64 with mx.cast, then one runtime call
/// per element, which formats the value as its original type.
Value formatNumbers(OpBuilder &b, ModuleOp module, CastOp op) {
  Location loc = op.getLoc();
  Value x = op.getData();
  auto type = cast<RankedTensorType>(x.getType());
  Type et = type.getElementType(), i64 = b.getI64Type();
  auto resultType = type.clone(i64);
  if (auto ft = dyn_cast<FloatType>(et)) {
    Type f64 = b.getF64Type();
    Value wide =
        et == f64 ? x
                  : createInferred<CastOp>(
                        b, loc, x, {b.getNamedAttr("to", TypeAttr::get(f64))});
    func::FuncOp fn = declare(module, kFromFloat, {f64, b.getI32Type()}, i64);
    int64_t bits = ft.getWidth();
    return elementwise(b, loc, resultType, wide,
                       [&](OpBuilder &nb, Location l, ValueRange args) {
                         return func::CallOp::create(
                                    nb, l, fn,
                                    ValueRange{args[0], i32(nb, l, bits)})
                             .getResult(0);
                       });
  }
  // Integers and booleans: unsigned ones below 64 bits zero-extend into
  // i64; ui64 keeps its bits and is printed as unsigned.
  bool unsignedBits = et.isUnsignedInteger(64);
  Value wide = et == i64
                   ? x
                   : createInferred<CastOp>(
                         b, loc, x, {b.getNamedAttr("to", TypeAttr::get(i64))});
  func::FuncOp fn = declare(module, kFromInt, {i64, b.getI32Type()}, i64);
  return elementwise(b, loc, resultType, wide,
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       return func::CallOp::create(
                                  nb, l, fn,
                                  ValueRange{args[0], i32(nb, l, unsignedBits)})
                           .getResult(0);
                     });
}

/// String -> number: one runtime call per element parses into f64 (at the
/// target float's precision) or i64, then mx.cast narrows.
Value parseStrings(OpBuilder &b, ModuleOp module, CastOp op, Value handles) {
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(handles.getType());
  Type to = cast<RankedTensorType>(op.getType()).getElementType();
  Type i64 = b.getI64Type();
  Value wide;
  if (auto ft = dyn_cast<FloatType>(to)) {
    Type f64 = b.getF64Type();
    func::FuncOp fn = declare(module, kToFloat, {i64, b.getI32Type()}, f64);
    int64_t bits = ft.getWidth();
    wide = elementwise(b, loc, type.clone(f64), handles,
                       [&](OpBuilder &nb, Location l, ValueRange args) {
                         return func::CallOp::create(
                                    nb, l, fn,
                                    ValueRange{args[0], i32(nb, l, bits)})
                             .getResult(0);
                       });
  } else {
    func::FuncOp fn = declare(module, kToInt, {i64, b.getI32Type()}, i64);
    bool unsignedBits = to.isUnsignedInteger(64);
    wide = elementwise(
        b, loc, type.clone(i64), handles,
        [&](OpBuilder &nb, Location l, ValueRange args) {
          return func::CallOp::create(
                     nb, l, fn, ValueRange{args[0], i32(nb, l, unsignedBits)})
              .getResult(0);
        });
  }
  if (cast<RankedTensorType>(wide.getType()).getElementType() == to)
    return wide;
  return createInferred<CastOp>(b, loc, wide,
                                {b.getNamedAttr("to", TypeAttr::get(to))});
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
      for (Value v : op->getResults())
        v.setType(handles(v.getType()));
      for (Region &r : op->getRegions())
        for (Block &block : r)
          for (BlockArgument arg : block.getArguments())
            arg.setType(handles(arg.getType()));
      if (auto fn = dyn_cast<func::FuncOp>(op)) {
        FunctionType ft = fn.getFunctionType();
        fn.setFunctionType(FunctionType::get(
            op->getContext(), llvm::map_to_vector(ft.getInputs(), handles),
            llvm::map_to_vector(ft.getResults(), handles)));
      }
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
