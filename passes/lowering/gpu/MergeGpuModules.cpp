// SPDX-License-Identifier: Apache-2.0
// mxc-merge-gpu-modules (see MergeGpuModulesPass in Passes.td): the kernels
// gpu-kernel-outlining put in a gpu.module each, moved into one, so that
// the toolkit's ptxas and fatbinary run once per library instead of once
// per kernel, and the library loads one module.
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mxc {
#define GEN_PASS_DEF_MERGEGPUMODULESPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

struct MergeGpuModulesPass
    : mxc::impl::MergeGpuModulesPassBase<MergeGpuModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> sources(module.getOps<gpu::GPUModuleOp>());
    if (sources.size() < 2)
      return;
    // Only modules of kernels and nothing else, as outlining makes them,
    // without targets yet: anything else stays as it is.
    for (gpu::GPUModuleOp source : sources)
      if (source.getTargetsAttr() ||
          !llvm::all_of(source.getBody()->getOperations(),
                        [](Operation &op) { return isa<gpu::GPUFuncOp>(op); }))
        return;
    SymbolTable symbols(module);
    OpBuilder b(sources.front());
    auto merged =
        gpu::GPUModuleOp::create(b, sources.front().getLoc(), "mxc_kernels");
    symbols.insert(merged); // renamed if the name is taken
    SymbolTable mergedSymbols(merged);
    // Each kernel takes its module's name (unique in the parent), or with
    // several in one module, that name and its own.
    DenseMap<Attribute, SymbolRefAttr> renamed; // old reference -> new
    for (gpu::GPUModuleOp source : sources) {
      auto kernels = llvm::to_vector(source.getOps<gpu::GPUFuncOp>());
      for (gpu::GPUFuncOp kernel : kernels) {
        auto old =
            SymbolRefAttr::get(source.getNameAttr(),
                               {FlatSymbolRefAttr::get(kernel.getNameAttr())});
        std::string name = source.getName().str();
        if (kernels.size() > 1)
          name += "_" + kernel.getName().str();
        kernel->remove();
        kernel.setName(name);
        mergedSymbols.insert(kernel);
        renamed[old] =
            SymbolRefAttr::get(merged.getNameAttr(),
                               {FlatSymbolRefAttr::get(kernel.getNameAttr())});
      }
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto found = renamed.find(launch.getKernel());
      if (found != renamed.end())
        launch.setKernelAttr(found->second);
    });
    for (gpu::GPUModuleOp source : sources)
      source.erase();
  }
};

} // namespace
