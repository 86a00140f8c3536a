// SPDX-License-Identifier: Apache-2.0
// Marks the parameters of an inference library constant (kConstantArgAttr),
// so that kernel calls reading them may keep packed copies for the life of
// the process (mxc-kernels-to-calls). Which arguments are parameters is the
// ParameterStore's to say (see MarkConstantParamsPass).
#include "passes/Passes.h"
#include "passes/graph/ParameterStore.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mxc {
#define GEN_PASS_DEF_MARKCONSTANTPARAMSPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc;

namespace {

struct MarkConstantParamsPass
    : mxc::impl::MarkConstantParamsPassBase<MarkConstantParamsPass> {
  /// Takes the parameters from the IR (mxc-opt).
  MarkConstantParamsPass() = default;
  explicit MarkConstantParamsPass(ParameterStore &store) : external(&store) {}

  void runOnOperation() override {
    ParameterStore &store = external ? *external : irStore;
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    for (BlockArgument arg : fn.getArguments())
      if (store.isParameter(arg))
        fn.setArgAttr(arg.getArgNumber(), kConstantArgAttr,
                      UnitAttr::get(&getContext()));
  }

  ParameterStore *external = nullptr;
  IRParameterStore irStore;
};

} // namespace

std::unique_ptr<Pass> mxc::createMarkConstantParamsPass(ParameterStore &store) {
  return std::make_unique<MarkConstantParamsPass>(store);
}
