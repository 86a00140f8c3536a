// SPDX-License-Identifier: Apache-2.0
// Fuzzes the ONNX importer: protobuf bytes (through the wire-format walk
// that leaves large initializers in the file, then protobuf itself) into the
// mx dialect, ending with the verifier. Every node's attributes, shapes,
// initializers and opset rules are reached from mutated real models.
#include "TempFile.h"

#include "compiler/frontends/onnx/Importer.h"
#include "dialects/mx/MxDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path = mxc::fuzz::writeScratchFile("model.onnx", data, size);
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  registry.insert<mxc::mx::MxDialect>();
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  // Errors reach the caller as llvm::Error; keep MLIR's diagnostics quiet.
  context.getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
  mxc::onnx::ImportOptions options;
  options.quiet = true;
  auto imported = mxc::onnx::importModel(context, path, options);
  // MXC_FUZZ_VERBOSE=1 prints why each input was refused.
  if (!imported && std::getenv("MXC_FUZZ_VERBOSE"))
    llvm::errs() << llvm::toString(imported.takeError()) << "\n";
  else if (!imported)
    llvm::consumeError(imported.takeError());
  return 0;
}
