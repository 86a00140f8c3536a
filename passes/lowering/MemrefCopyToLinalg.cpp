// SPDX-License-Identifier: Apache-2.0
// memref.copy -> linalg.copy, so that no copy lowers to a runtime call into
// MLIR's C runner utilities (compiled models must need only libmxrt).
#include "passes/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mxc {
#define GEN_PASS_DEF_MEMREFCOPYTOLINALGPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {
struct MemrefCopyToLinalgPass
    : mxc::impl::MemrefCopyToLinalgPassBase<MemrefCopyToLinalgPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation()->walk([&](memref::CopyOp op) { copies.push_back(op); });
    for (memref::CopyOp op : copies) {
      OpBuilder b(op);
      linalg::CopyOp::create(b, op.getLoc(), op.getSource(), op.getTarget());
      op.erase();
    }
  }
};
} // namespace
