// SPDX-License-Identifier: Apache-2.0
// mxc-contiguous-kernel-operands (see ContiguousKernelOperandsPass in
// Passes.td): strided views handed to kernel ops that read contiguous
// buffers become copies, before the memory plan places them.
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mxc {
#define GEN_PASS_DEF_CONTIGUOUSKERNELOPERANDSPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc::mx;

namespace {

struct ContiguousKernelOperandsPass
    : mxc::impl::ContiguousKernelOperandsPassBase<
          ContiguousKernelOperandsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> kernels;
    getOperation().walk([&](Operation *op) {
      if (needsContiguousBuffers(op) && op->getNumResults() == 0)
        kernels.push_back(op);
    });
    for (Operation *op : kernels) {
      OpBuilder b(op);
      for (OpOperand &operand : op->getOpOperands()) {
        Value view = operand.get();
        auto type = dyn_cast<MemRefType>(view.getType());
        if (!type || !type.hasStaticShape() || isContiguousBuffer(view))
          continue; // (a dynamic one is mxc-kernels-to-calls' error)
        Value copy = memref::AllocOp::create(
            b, op->getLoc(),
            MemRefType::get(type.getShape(), type.getElementType()),
            b.getI64IntegerAttr(64));
        // init (the last operand) may be accumulated onto: copied in too,
        // and back after the kernel.
        memref::CopyOp::create(b, op->getLoc(), view, copy);
        operand.set(copy);
        if (operand.getOperandNumber() + 1 == op->getNumOperands()) {
          OpBuilder after(op->getContext());
          after.setInsertionPointAfter(op);
          memref::CopyOp::create(after, op->getLoc(), copy, view);
        }
      }
    }
  }
};

} // namespace
