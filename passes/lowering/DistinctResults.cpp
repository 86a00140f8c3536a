// SPDX-License-Identifier: Apache-2.0
// A buffer returned more than once is returned as copies (see
// DistinctResultsPass in Passes.td).
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseSet.h"

namespace mxc {
#define GEN_PASS_DEF_DISTINCTRESULTSPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {
struct DistinctResultsPass
    : mxc::impl::DistinctResultsPassBase<DistinctResultsPass> {
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) {
      llvm::DenseSet<Value> seen;
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        auto type = dyn_cast<MemRefType>(v.getType());
        // (Results have identity layouts: the copy takes the type.)
        if (!type || seen.insert(v).second || !type.getLayout().isIdentity())
          continue;
        OpBuilder b(ret);
        Location loc = ret.getLoc();
        SmallVector<Value> extents;
        for (int64_t d = 0; d < type.getRank(); ++d)
          if (type.isDynamicDim(d))
            extents.push_back(memref::DimOp::create(b, loc, v, d));
        auto copy = memref::AllocOp::create(b, loc, type, extents);
        memref::CopyOp::create(b, loc, v, copy);
        operand.set(copy);
      }
    });
  }
};
} // namespace
