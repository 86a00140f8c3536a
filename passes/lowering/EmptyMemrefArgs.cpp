// SPDX-License-Identifier: Apache-2.0
// Function arguments that are empty memrefs of rank > 1 become memref<0xT>.
// func-to-llvm's bare-pointer convention rejects identity layouts with a
// zero stride (memref<2x0x3xf32> has strides [0, 3, 1]); the entry ABI
// passes every tensor as a bare pointer, so such an argument would leave the
// function unconverted. Nothing can be read from or written to an empty
// buffer, so the body's uses read an empty stack buffer instead.
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mxc {
#define GEN_PASS_DEF_FLATTENEMPTYMEMREFARGSPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {
struct FlattenEmptyMemrefArgsPass
    : mxc::impl::FlattenEmptyMemrefArgsPassBase<FlattenEmptyMemrefArgsPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    Block &entry = fn.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    SmallVector<Type> inputs(fn.getFunctionType().getInputs());
    for (BlockArgument arg : entry.getArguments()) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type || !type.hasStaticShape() || type.getNumElements() != 0 ||
          type.getRank() == 1)
        continue;
      Value empty = memref::AllocaOp::create(b, arg.getLoc(), type);
      arg.replaceAllUsesWith(empty);
      auto flat = MemRefType::get({0}, type.getElementType());
      arg.setType(flat);
      inputs[arg.getArgNumber()] = flat;
    }
    fn.setFunctionType(FunctionType::get(fn.getContext(), inputs,
                                         fn.getFunctionType().getResults()));
  }
};
} // namespace
