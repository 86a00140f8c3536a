// SPDX-License-Identifier: Apache-2.0
// The compiler pipeline as a library call: model file -> mx dialect ->
// LLVM -> library + header. `mxc` is a thin command line over this; the
// C++ host API and JIT will call it too.
#ifndef MXC_COMPILER_DRIVER_COMPILER_H
#define MXC_COMPILER_DRIVER_COMPILER_H

#include "compiler/codegen/Codegen.h"

#include "llvm/Support/Error.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace mlir {
class PassManager;
} // namespace mlir

namespace mxc {

enum class EmitKind {
  MLIR,
  LLVMIR,
  Object,
  SharedLibrary,
  StaticArchive,
  Header
};

/// mxc --train: a training library (forward, grad, train_step).
struct TrainOptions {
  bool enabled = false;
  std::string optimizer = "sgd"; // sgd, momentum, adam, rmsprop
  double wd = 0.0;
  double momentum = 0.9;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  double rho = 0.9;
  /// Factor on every gradient; 0 picks 1 / batch (the first extent of the
  /// first input), as MXNet's Module does for SoftmaxOutput's summed loss.
  double rescaleGrad = 0.0;
  double clipGradient = -1.0;
  /// Differentiate w.r.t. these parameters only (default: all learned ones).
  std::vector<std::string> gradWrt;
  /// Without --params: the seed of the initial parameters.
  uint64_t initSeed = 0;
};

struct CompileOptions {
  std::string modelPath;
  std::string paramsPath;
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// ONNX inputs bound to constants at compile time (name -> TensorProto).
  std::map<std::string, std::string> boundInputs;
  /// ONNX sequence inputs: their elements' shapes (`--input x=seq(2x3,4)`).
  std::map<std::string, std::vector<std::vector<int64_t>>> sequenceInputs;
  /// ONNX optional inputs given no value (`--input x=none`).
  std::set<std::string> absentInputs;
  std::string outputPath;
  EmitKind emit = EmitKind::SharedLibrary;
  /// Prefix of the exported symbols; empty derives it from the output name.
  std::string modelName;
  CodegenOptions codegen;
  /// Print the IR after every pass to stderr.
  bool printIRAfterAll = false;
  /// Memory planning (passes/memory/PlanMemory.cpp): strategy, and reports.
  std::string memoryPlan = "best";
  bool printMemoryPlan = false;
  std::string memoryPlanJson;
  /// Operator fusion (--no-fusion turns it off, e.g. to plan memory for
  /// the graph as the frontend gives it).
  bool fusion = true;
  /// Contractions call the runtime's GEMM kernels (--no-kernels: generated
  /// loop nests, e.g. to compare).
  bool kernels = true;
  /// Loops with at least this much work run on the thread pool
  /// (--parallel-min-work; 0: every outermost parallel loop).
  int64_t parallelMinWork = 131072;
  /// Convolution layout: auto, nhwc or nchw (--conv-layout).
  std::string convLayout = "auto";
  TrainOptions train;
  /// Applies further command-line pass manager options (MLIR's own flags).
  std::function<llvm::LogicalResult(mlir::PassManager &)> configurePassManager;
};

/// Parses "1x3x32x32" (a scalar is "scalar" or empty).
llvm::Expected<std::vector<int64_t>> parseShape(llvm::StringRef text);

/// The emit kind implied by an output file name (lib.so, .a, .o, .ll, .mlir,
/// .h), if any.
std::optional<EmitKind> emitKindForPath(llvm::StringRef path);

/// The C identifier used as the model name for an output path: "libnet.so"
/// -> "net".
std::string modelNameForPath(llvm::StringRef path);

/// Whether `name` can prefix C symbols ([A-Za-z_][A-Za-z0-9_]*).
bool isCIdentifier(llvm::StringRef name);

/// Runs the whole pipeline. On failure nothing is left at the output paths.
llvm::Error compile(const CompileOptions &options);

} // namespace mxc

#endif // MXC_COMPILER_DRIVER_COMPILER_H
