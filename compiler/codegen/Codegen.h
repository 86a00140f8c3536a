// SPDX-License-Identifier: Apache-2.0
// From a module in the LLVM dialect to what users link: an object file, a
// shared library or a static archive carrying the model's code, weights and
// reflective table (runtime/include/mxrt/model_abi.h), plus the C header.
#ifndef MXC_COMPILER_CODEGEN_CODEGEN_H
#define MXC_COMPILER_CODEGEN_CODEGEN_H

#include "compiler/model/ModelSpec.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class raw_ostream;
} // namespace llvm

namespace mxc {

enum class OutputKind {
  LLVMIR,
  Assembly,
  Object,
  SharedLibrary,
  StaticArchive
};

struct CodegenOptions {
  /// Target triple; empty means the host's. x86_64-linux-gnu and
  /// aarch64-linux-gnu are supported (docs/arm.md).
  std::string triple;
  /// Target CPU; empty means the host CPU and its features (for another
  /// triple than the host's: "generic").
  std::string cpu;
  /// Target features, LLVM's -mattr form ("+sve,+dotprod,-bf16"), on top of
  /// the CPU's.
  std::string features;
  /// LLVM optimization level 0-3.
  unsigned optLevel = 3;
  /// Folder holding libmxrt.so, linked into shared libraries (with an rpath).
  std::string runtimeLibDir;
  /// Folders of the target's C library (libc.so, libm.so) for shared
  /// libraries; empty: the host's (MXC_SYSTEM_LIB_DIRS).
  std::vector<std::string> systemLibDirs;
};

/// Whether options' triple, CPU and features make a target LLVM can compile
/// for (an error naming the one that does not).
llvm::Error checkTarget(const CodegenOptions &options);

/// Name of the MLIR function codegen expects for the forward (inference)
/// function: (inputs..., params...) -> outputs, lowered with bare pointers and
/// trailing output pointers.
inline constexpr const char *kForwardFunctionName = "forward";

/// The name codegen expects for function `fn` (the forward, a training
/// function) of the variant of `batch` rows (ModelSpec::variants).
std::string variantFunctionName(llvm::StringRef fn, int64_t batch);

/// Translates `modules` (LLVM dialect) to LLVM IR and adds the entry
/// wrappers, the weights, the reflective table and the typed C API of
/// `spec`: one module, or one per forward variant when spec.variants is not
/// empty (the first also holding every other function), each with its
/// forward named kForwardFunctionName.
llvm::Expected<std::unique_ptr<llvm::Module>>
buildLLVMModule(llvm::ArrayRef<mlir::ModuleOp> modules, const ModelSpec &spec,
                llvm::LLVMContext &context);

/// Optimizes `module` for the target and writes `kind` to `path`. The file
/// appears complete or not at all.
llvm::Error emitModule(llvm::Module &module, const ModelSpec &spec,
                       OutputKind kind, const std::string &path,
                       const CodegenOptions &options);

/// The C header declaring the typed API of `spec` (`<name>_create`, ...).
std::string generateHeader(const ModelSpec &spec, const std::string &source);

/// How mxc reports its stages on stderr (compileStage): with `times`, each
/// stage's wall time and the total (--time-passes); with `progress`, a line
/// naming the stage under way, rewritten in place (a terminal; not
/// --quiet).
struct StageReport {
  bool times = false;
  bool progress = false;
};
void setStageReport(StageReport report);
/// Marks the end of stage `name` ("" at the start); `next` names the stage
/// that starts, for the progress line ("" when done).
void compileStage(llvm::StringRef name, llvm::StringRef next = "");

/// Writes `contents` to `path` atomically (temporary file + rename); "-" is
/// stdout.
llvm::Error writeFileAtomically(const std::string &path,
                                llvm::StringRef contents);
/// The same with the contents streamed by `write`: on its error or a failed
/// write no file appears.
llvm::Error
writeFileAtomically(const std::string &path,
                    llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write);

} // namespace mxc

#endif // MXC_COMPILER_CODEGEN_CODEGEN_H
