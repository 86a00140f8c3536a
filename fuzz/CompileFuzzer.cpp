// SPDX-License-Identifier: Apache-2.0
// Fuzzes the whole compile pipeline on small mutated MXNet models: import,
// shape inference, the verifier, the graph passes, the CPU target's lowering
// and the translation to LLVM IR (no object code or link, to keep the rate
// of executions useful). Every llvm::Error is a clean rejection; whatever
// the verifier and shape inference let through must lower without
// asserting or crashing.
//
// An input is one line of graph input shapes, then the symbol JSON:
//   data=2x3x8x8 label=2
//   {"nodes": [...], "arg_nodes": [...], "heads": [...]}
// Parameters without a shape on that line become inputs whose shapes the
// importer infers, as with `mxc model.json` without --params.
#include "TempFile.h"

#include "compiler/driver/Compiler.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

namespace {

/// Inputs larger than this are refused, so that folding constants and
/// lowering stay fast; shapes are what the pipeline fuzzes, not sizes.
constexpr int64_t maxInputElements = 1 << 16;

bool parseInputLine(llvm::StringRef line,
                    std::map<std::string, std::vector<int64_t>> &shapes) {
  llvm::SmallVector<llvm::StringRef, 4> items;
  line.split(items, ' ', /*MaxSplit=*/8, /*KeepEmpty=*/false);
  for (llvm::StringRef item : items) {
    auto [name, shapeText] = item.split('=');
    if (name.empty())
      return false;
    auto shape = mxc::parseShape(shapeText);
    if (!shape) {
      llvm::consumeError(shape.takeError());
      return false;
    }
    int64_t elements = 1;
    for (int64_t d : *shape)
      if (d < 0 || d > maxInputElements ||
          (elements *= std::max<int64_t>(d, 1)) > maxInputElements)
        return false;
    shapes[name.str()] = std::move(*shape);
  }
  return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto [line, json] =
      llvm::StringRef(reinterpret_cast<const char *>(data), size).split('\n');
  mxc::CompileOptions options;
  if (!parseInputLine(line, options.inputShapes))
    return 0;
  options.modelPath = mxc::fuzz::writeScratchFile(
      "model.json", reinterpret_cast<const uint8_t *>(json.data()),
      json.size());
  options.outputPath = mxc::fuzz::scratchDir() + "/model.ll";
  options.emit = mxc::EmitKind::LLVMIR;
  options.modelName = "fuzz";
  options.quiet = true;
  // MXC_FUZZ_VERBOSE=1 prints why each input was refused.
  if (llvm::Error err = mxc::compile(options)) {
    if (std::getenv("MXC_FUZZ_VERBOSE"))
      llvm::errs() << llvm::toString(std::move(err)) << "\n";
    else
      llvm::consumeError(std::move(err));
  }
  return 0;
}
