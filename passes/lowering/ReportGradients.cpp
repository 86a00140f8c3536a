// SPDX-License-Identifier: Apache-2.0
// Calls mxrt_output_ready(i) once gradient output i is final (see
// ReportGradientsPass in Passes.td).
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"

namespace mxc {
#define GEN_PASS_DEF_REPORTGRADIENTSPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {
constexpr StringLiteral kReady = "mxrt_output_ready";

/// The top-level operation of `fn`'s entry block that last touches `arg`
/// or anything computed from it (nullptr when none does): views, but also
/// the aligned pointer and offsets a kernel call receives
/// (mxc-kernels-to-calls), which no view interface connects to the buffer.
/// Every result of an op reading a tainted value is tainted too: at worst a
/// report comes later than it could, never before the last write.
Operation *lastToucher(func::FuncOp fn, BlockArgument arg) {
  llvm::DenseSet<Value> tainted = {arg};
  Operation *last = nullptr;
  for (Operation &top : fn.getBody().front()) {
    bool touches = false;
    top.walk<WalkOrder::PreOrder>([&](Operation *op) {
      for (Value operand : op->getOperands())
        if (tainted.contains(operand)) {
          touches = true;
          for (Value result : op->getResults())
            tainted.insert(result);
          break;
        }
    });
    if (touches && !isa<func::ReturnOp>(top))
      last = &top;
  }
  return last;
}

struct ReportGradientsPass
    : mxc::impl::ReportGradientsPassBase<ReportGradientsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> fns(module.getOps<func::FuncOp>());
    for (func::FuncOp fn : fns) {
      // The training library's @grad, which instances call through libmxrt
      // (mxc-train-step): other functions with gradient outputs (a bare
      // mxc-gradient's @*_grad) may run without the runtime.
      if (fn.isExternal() || fn.getSymName() != "grad")
        continue;
      // Outputs follow the named arguments (inputs, parameters, states).
      int64_t firstOutput = 0;
      SmallVector<unsigned> gradients;
      for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
        if (fn.getArgAttr(i, "mx.name"))
          firstOutput = i + 1;
        if (fn.getArgAttr(i, "mx.grad_of"))
          gradients.push_back(i);
      }
      if (gradients.empty())
        continue;
      func::FuncOp ready = declare(module);
      for (unsigned i : gradients) {
        Operation *last = lastToucher(fn, fn.getArgument(i));
        if (!last)
          continue;
        OpBuilder b(last->getContext());
        b.setInsertionPointAfter(last);
        Value index = arith::ConstantIntOp::create(
            b, last->getLoc(), int64_t(i) - firstOutput, 32);
        func::CallOp::create(b, last->getLoc(), ready, ValueRange{index});
      }
    }
  }

  static func::FuncOp declare(ModuleOp module) {
    if (auto fn = module.lookupSymbol<func::FuncOp>(kReady))
      return fn;
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToStart(module.getBody());
    auto fn = func::FuncOp::create(b, module.getLoc(), kReady,
                                   b.getFunctionType({b.getI32Type()}, {}));
    fn.setPrivate();
    return fn;
  }
};
} // namespace
