// SPDX-License-Identifier: Apache-2.0
// mxc-results-in-place (see ResultsInPlacePass in Passes.td): a result
// computed in a buffer of its own and copied into the caller's output at
// the end is computed in the output instead.
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mxc {
#define GEN_PASS_DEF_RESULTSINPLACEPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

/// The function argument `view` is, or views whole: an out-parameter as
/// mxc-bind-dims leaves it (a reinterpret_cast of the bare pointer).
BlockArgument outputArgument(Value view) {
  if (auto cast = view.getDefiningOp<memref::ReinterpretCastOp>())
    view = cast.getSource();
  return dyn_cast<BlockArgument>(view);
}

/// `op`'s ancestor in `block` (null when `op` is outside it).
Operation *inBlock(Block &block, Operation *op) {
  return block.findAncestorOpInBlock(*op);
}

struct ResultsInPlacePass
    : mxc::impl::ResultsInPlacePassBase<ResultsInPlacePass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    Block &body = fn.getBody().front();
    SmallVector<memref::CopyOp> copies;
    for (auto copy : body.getOps<memref::CopyOp>())
      copies.push_back(copy);
    for (memref::CopyOp copy : copies) {
      Value output = copy.getTarget();
      auto alloc = copy.getSource().getDefiningOp<memref::AllocOp>();
      BlockArgument argument = outputArgument(output);
      // The buffer and the output alike (shape, element type, the identity
      // layout), the output written by this copy alone and its view there
      // before the buffer is, the buffer in the function's own block.
      if (!alloc || !argument || alloc->getBlock() != &body ||
          alloc.getType() != output.getType() || !output.hasOneUse() ||
          !argument.hasOneUse() ||
          (output.getDefiningOp() &&
           !output.getDefiningOp()->isBeforeInBlock(alloc)))
        continue;
      // Nothing reads the buffer after the copy: every other use comes
      // before it.
      bool earlier = llvm::all_of(alloc->getUsers(), [&](Operation *user) {
        if (user == copy)
          return true;
        Operation *ancestor = inBlock(body, user);
        return ancestor && ancestor->isBeforeInBlock(copy);
      });
      if (!earlier)
        continue;
      copy.erase();
      alloc.getResult().replaceAllUsesWith(output);
      alloc.erase();
    }
  }
};

} // namespace
