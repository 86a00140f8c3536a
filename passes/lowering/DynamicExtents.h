// SPDX-License-Identifier: Apache-2.0
// The run-time extents of the tensors a lowering builds. Shapes are static
// almost everywhere; where an mx op's operands or results have dynamic
// extents (a model compiled with dynamic dimensions, docs/dynamic-shapes.md)
// the builders' fresh tensors (emptyTensor and all built on it) take them
// from the op being lowered: an operand of the same shape, or the op's
// result, its extents computed from the operands' (a window op's
// (in + pads - reach) / stride + 1, an elementwise op's from the operand
// that carries the axis). FnLowering names that op for the builders while
// its lowering runs.
#ifndef MXC_PASSES_LOWERING_DYNAMICEXTENTS_H
#define MXC_PASSES_LOWERING_DYNAMICEXTENTS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace mxc::lowering {

/// While alive, names `op` (operands `operands`, as its lowering sees them)
/// as the op whose lowering builds tensors.
class DynamicExtentScope {
public:
  DynamicExtentScope(mlir::Operation *op, mlir::ValueRange operands);
  ~DynamicExtentScope();
  DynamicExtentScope(const DynamicExtentScope &) = delete;
  DynamicExtentScope &operator=(const DynamicExtentScope &) = delete;

private:
  mlir::Operation *op;
  llvm::SmallVector<mlir::Value> operands;
  const DynamicExtentScope *outer;
  friend llvm::SmallVector<mlir::Value>
  dynamicExtents(mlir::OpBuilder &, mlir::Location, llvm::ArrayRef<int64_t>);
};

/// The run-time extent of each dynamic axis of a fresh tensor of `shape`
/// (none when `shape` is static), built with `b`.
llvm::SmallVector<mlir::Value> dynamicExtents(mlir::OpBuilder &b,
                                              mlir::Location loc,
                                              llvm::ArrayRef<int64_t> shape);

/// Where a dynamic extent of an mx op's result comes from when it equals
/// an operand's: (operand index, operand axis) for extent `axis` of result
/// `result`, or none when the op computes it (a window count, a reshape's
/// inferred extent). The rules follow each op's shape semantics:
/// elementwise ops right-aligned, transposes permuted, matrix products by
/// their rows and columns, reshapes by their copy codes.
std::optional<std::pair<unsigned, int64_t>>
extentSource(mlir::Operation *op, unsigned result, int64_t axis);

/// Whether `op`'s lowering can build its tensors when its operands or
/// results have dynamic extents: the ops whose result extents
/// dynamicExtents knows how to compute and whose lowerings build no
/// intermediate of another dynamic shape.
bool lowersWithDynamicExtents(mlir::Operation *op);

} // namespace mxc::lowering

#endif // MXC_PASSES_LOWERING_DYNAMICEXTENTS_H
