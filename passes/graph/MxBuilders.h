// SPDX-License-Identifier: Apache-2.0
// Small builders of mx ops for graph passes (gradient, train step): each
// creates one op by inference and returns its result.
#ifndef MXC_PASSES_GRAPH_MXBUILDERS_H
#define MXC_PASSES_GRAPH_MXBUILDERS_H

#include "dialects/mx/MxDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mxc::mx::build {

inline mlir::RankedTensorType tensorOf(mlir::Value v) {
  return mlir::cast<mlir::RankedTensorType>(v.getType());
}

inline mlir::Value reshape(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value v, llvm::ArrayRef<int64_t> shape) {
  if (tensorOf(v).getShape() == shape)
    return v;
  return createInferred<ReshapeOp>(
      b, loc, v, {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(shape))});
}

/// mx.binary `op` (add, sub, mul, div, ...) with NumPy broadcasting.
inline mlir::Value binary(mlir::OpBuilder &b, mlir::Location loc,
                          llvm::StringRef op, mlir::Value x, mlir::Value y) {
  return createInferred<BinaryOp>(b, loc, {x, y},
                                  {b.getNamedAttr("op", b.getStringAttr(op))});
}

/// mx.scalar: `x op s`, or `s op x` when `reverse`.
inline mlir::Value scalar(mlir::OpBuilder &b, mlir::Location loc,
                          llvm::StringRef op, mlir::Value x, double s,
                          bool reverse = false) {
  return createInferred<ScalarOp>(
      b, loc, x,
      {b.getNamedAttr("op", b.getStringAttr(op)),
       b.getNamedAttr("scalar", b.getF64FloatAttr(s)),
       b.getNamedAttr("reverse", b.getBoolAttr(reverse))});
}

inline mlir::Value unary(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::StringRef op, mlir::Value x) {
  return createInferred<UnaryOp>(b, loc, x,
                                 {b.getNamedAttr("op", b.getStringAttr(op))});
}

/// Erases the ops of `block` whose results nobody uses and that have no
/// side effects, until none is left.
inline void eraseDeadOps(mlir::Block &block) {
  bool changed = true;
  while (changed) {
    changed = false;
    llvm::SmallVector<mlir::Operation *> all;
    for (mlir::Operation &op : block.without_terminator())
      all.push_back(&op);
    for (mlir::Operation *op : llvm::reverse(all))
      if (mlir::isOpTriviallyDead(op)) {
        op->erase();
        changed = true;
      }
  }
}

} // namespace mxc::mx::build

#endif // MXC_PASSES_GRAPH_MXBUILDERS_H
