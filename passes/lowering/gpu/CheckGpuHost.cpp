// SPDX-License-Identifier: Apache-2.0
// mxc-check-gpu-host (see CheckGpuHostPass in Passes.td): after the loops
// became GPU kernels, nothing left in a host function may touch memory:
// every buffer it gets is device memory.
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mxc {
#define GEN_PASS_DEF_CHECKGPUHOSTPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

struct CheckGpuHostPass : mxc::impl::CheckGpuHostPassBase<CheckGpuHostPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    WalkResult result = fn.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp, gpu::LaunchFuncOp>(op))
        return WalkResult::skip(); // the kernel's own
      // libmxrt's cuBLAS / cuDNN wrappers take device pointers.
      if (auto call = dyn_cast<func::CallOp>(op);
          call && call.getCallee().starts_with("mxrt_cuda_"))
        return WalkResult::advance();
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      bool touches =
          effects ? (effects.hasEffect<MemoryEffects::Read>() ||
                     effects.hasEffect<MemoryEffects::Write>())
                  : !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
                        !isa<func::ReturnOp>(op) && op != fn;
      if (!touches)
        return WalkResult::advance();
      op->emitError("the CUDA target would run '")
          << op->getName()
          << "' on the host, on device memory: no GPU kernel took it";
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
