// SPDX-License-Identifier: Apache-2.0
// Tensor arguments are read only (see ReadOnlyArgsPass in Passes.td):
// bufferization copies before writing into one in place.
#include "passes/Passes.h"
#include "passes/graph/InPlaceCaches.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mxc {
#define GEN_PASS_DEF_READONLYARGSPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {
struct ReadOnlyArgsPass : mxc::impl::ReadOnlyArgsPassBase<ReadOnlyArgsPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal()) // runtime functions declared by earlier passes
      return;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (isa<TensorType>(fn.getArgument(i).getType()) &&
          !fn.getArgAttr(i, mxc::kCacheArgAttr))
        fn.setArgAttr(i, "bufferization.writable",
                      BoolAttr::get(fn.getContext(), false));
  }
};
} // namespace
