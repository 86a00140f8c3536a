// SPDX-License-Identifier: Apache-2.0
#include "passes/lowering/DynamicExtents.h"

#include "dialects/mx/MxDialect.h"
#include "passes/lowering/WindowLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mxc::mx;

namespace mxc::lowering {

namespace {
thread_local const DynamicExtentScope *current = nullptr;

Value constIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value dimOf(OpBuilder &b, Location loc, Value v, int64_t axis) {
  return tensor::DimOp::create(b, loc, v, axis);
}

bool hasDynamicExtent(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && shaped.hasRank() && !shaped.hasStaticShape();
}

/// The windows along spatial axis `s` of an input of `in` elements:
/// (in + pads - reach) / stride + 1, where reach is the dilated kernel.
Value windowCount(OpBuilder &b, Location loc, Value in,
                  const WindowGeometry &geo, unsigned s) {
  int64_t reach = (geo.kernel[s] - 1) * geo.dilate[s] + 1;
  int64_t pads = 2 * geo.pad[s];
  Value span =
      arith::AddIOp::create(b, loc, in, constIndex(b, loc, pads - reach));
  Value q =
      arith::DivSIOp::create(b, loc, span, constIndex(b, loc, geo.stride[s]));
  return arith::AddIOp::create(b, loc, q, constIndex(b, loc, 1));
}

/// Extent `axis` of `op`'s result `result`, from its operands.
Value resultExtent(OpBuilder &b, Location loc, Operation *op,
                   ValueRange operands, unsigned result, int64_t axis) {
  auto type = cast<RankedTensorType>(op->getResult(result).getType());
  if (auto conv = dyn_cast<ConvolutionOp>(op); conv && axis >= 2)
    return windowCount(b, loc, dimOf(b, loc, operands[0], axis), windowOf(conv),
                       axis - 2);
  // Elementwise and broadcasting ops: an operand that carries the axis
  // (right-aligned) with a dynamic extent there.
  for (Value v : operands) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      continue;
    int64_t at = axis - (type.getRank() - t.getRank());
    if (at >= 0 && t.isDynamicDim(at))
      return dimOf(b, loc, v, at);
  }
  llvm::report_fatal_error("mxc: no operand of '" +
                           op->getName().getStringRef() +
                           "' gives the extent of a dynamic result axis");
}
} // namespace

DynamicExtentScope::DynamicExtentScope(Operation *op, ValueRange operands)
    : op(op), operands(operands), outer(current) {
  current = this;
}

DynamicExtentScope::~DynamicExtentScope() { current = outer; }

SmallVector<Value> dynamicExtents(OpBuilder &b, Location loc,
                                  ArrayRef<int64_t> shape) {
  SmallVector<Value> extents;
  if (!llvm::any_of(shape, ShapedType::isDynamic))
    return extents;
  if (!current)
    llvm::report_fatal_error(
        "mxc: a tensor of dynamic shape built outside an op's lowering");
  auto fill = [&](auto extentOf) {
    for (auto [axis, d] : llvm::enumerate(shape))
      if (ShapedType::isDynamic(d))
        extents.push_back(extentOf(int64_t(axis)));
    return extents;
  };
  for (Value v : current->operands)
    if (auto t = dyn_cast<RankedTensorType>(v.getType());
        t && t.getShape() == shape)
      return fill([&](int64_t axis) { return dimOf(b, loc, v, axis); });
  for (OpResult r : current->op->getResults())
    if (cast<ShapedType>(r.getType()).getShape() == shape)
      return fill([&](int64_t axis) {
        return resultExtent(b, loc, current->op, current->operands,
                            r.getResultNumber(), axis);
      });
  llvm::report_fatal_error("mxc: '" + current->op->getName().getStringRef() +
                           "' builds a tensor of a dynamic shape that is "
                           "neither an operand's nor its result's");
}

bool lowersWithDynamicExtents(Operation *op) {
  if (!llvm::any_of(op->getOperandTypes(), hasDynamicExtent) &&
      !llvm::any_of(op->getResultTypes(), hasDynamicExtent))
    return true;
  if (auto conv = dyn_cast<ConvolutionOp>(op))
    return cast<RankedTensorType>(conv.getType()).getRank() == 4 &&
           cast<RankedTensorType>(conv.getType()).getElementType().isF32();
  return isa<ActivationOp, LeakyReLUOp, DropoutOp, UnaryOp, ClipOp, BinaryOp,
             ScalarOp, BlockGradOp, CastOp, CompareOp, WhereOp>(op);
}

} // namespace mxc::lowering
