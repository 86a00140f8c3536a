// SPDX-License-Identifier: Apache-2.0
// mlir-opt with the mx dialect and every mxc pass registered: the driver of
// the lit tests for the dialect, passes and pipelines.
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mxc::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary: the NVVM target and the LLVM IR translations.
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mxc::mx::MxDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "mxc optimizer driver\n", registry));
}
