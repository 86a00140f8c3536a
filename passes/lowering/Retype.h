// SPDX-License-Identifier: Apache-2.0
// In-place retyping of values, shared by the passes that change an element
// type everywhere before they lower (unsigned integers made signless in
// ConvertMxToLinalg.cpp, strings made handles in LowerStrings.cpp).
#ifndef MXC_PASSES_LOWERING_RETYPE_H
#define MXC_PASSES_LOWERING_RETYPE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mxc::lowering {

/// Gives `op`'s results, its regions' block arguments and, for a function,
/// its signature the types `convert` makes of theirs.
inline void retype(mlir::Operation *op,
                   llvm::function_ref<mlir::Type(mlir::Type)> convert) {
  for (mlir::Value v : op->getResults())
    v.setType(convert(v.getType()));
  for (mlir::Region &r : op->getRegions())
    for (mlir::Block &block : r)
      for (mlir::BlockArgument arg : block.getArguments())
        arg.setType(convert(arg.getType()));
  if (auto fn = llvm::dyn_cast<mlir::func::FuncOp>(op)) {
    mlir::FunctionType ft = fn.getFunctionType();
    fn.setFunctionType(mlir::FunctionType::get(
        op->getContext(), llvm::map_to_vector(ft.getInputs(), convert),
        llvm::map_to_vector(ft.getResults(), convert)));
  }
}

} // namespace mxc::lowering

#endif // MXC_PASSES_LOWERING_RETYPE_H
