// SPDX-License-Identifier: Apache-2.0
// The compiler pipeline as a library call: model file -> mx dialect ->
// graph passes -> a target's pipeline -> library + header. `mxc` is a thin
// command line over this; the C++ host API and JIT will call it too.
#ifndef MXC_COMPILER_DRIVER_COMPILER_H
#define MXC_COMPILER_DRIVER_COMPILER_H

#include "compiler/codegen/Codegen.h"
#include "passes/Passes.h"

#include "llvm/Support/Error.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace mxc {

enum class EmitKind {
  MLIR,
  LLVMIR,
  Object,
  SharedLibrary,
  StaticArchive,
  Header,
  /// The target's assembly text (.s).
  Assembly,
  /// The forward graph as Graphviz (GraphReport.h).
  Dot
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
  /// A loss head for models that end at their outputs (softmax-ce, l2, l1,
  /// sigmoid-bce; see mxnet::ImportOptions::loss), or empty.
  std::string loss;
  /// Without --params: the seed of the initial parameters.
  uint64_t initSeed = 0;
};

/// What to compile and how. The CPU target's options (memory plan, fusion,
/// kernels, parallel loops, convolution layout) are the CPU pipeline's own
/// (passes/Passes.h); `fusion` also folds BatchNorm into convolutions.
struct CompileOptions : CpuPipelineOptions {
  std::string modelPath;
  std::string paramsPath;
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Inputs given with dynamic dimensions (`--input data=Nx3x224x224`, `?`
  /// for an unnamed one): each axis's extent or dimension name.
  std::map<std::string, std::vector<std::string>> symbolicInputs;
  /// Bounds of dynamic dimensions by name (`--dim N=1..64`).
  std::map<std::string, std::pair<int64_t, int64_t>> dimBounds;
  /// --kv-cache=in-place: a decoder's key/value caches (past -> Concat ->
  /// present) become buffers of their dimension's bound, appended to in
  /// place, with their filled length an input (docs/transformers.md).
  bool kvCacheInPlace = false;
  /// The batch extents a dynamic batch dimension is compiled for (the
  /// forward's variants, docs/dynamic-shapes.md); empty: the default.
  std::vector<int64_t> buckets;
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
  /// --weights=file: a shared library keeps its weights in
  /// `<library stem>.weights` beside it, mapped when the model is opened
  /// (runtime/include/mxrt/model_abi.h), instead of embedding them.
  bool weightsFile = false;
  /// The target whose pipeline follows the graph passes: "cpu" or "cuda"
  /// (docs/cuda.md); any other is an error.
  std::string target = "cpu";
  /// --target=cuda: the GPU architectures whose machine code and PTX the
  /// library embeds.
  std::vector<std::string> gpuArchs = {"sm_90"};
  CodegenOptions codegen;
  /// Print the IR after every pass to stderr.
  bool printIRAfterAll = false;
  /// Each stage's wall time and MLIR's per-pass times on stderr.
  bool timePasses = false;
  /// No notes and no progress line on stderr; errors only.
  bool quiet = false;
  /// Print the per-layer table (GraphReport.h) to stdout after the graph
  /// passes; with no outputPath, stop there.
  bool summary = false;
  TrainOptions train;
  /// Applies further command-line pass manager options (MLIR's own flags).
  std::function<llvm::LogicalResult(mlir::PassManager &)> configurePassManager;
};

/// Parses "1x3x32x32" (a scalar is "scalar" or empty).
llvm::Expected<std::vector<int64_t>> parseShape(llvm::StringRef text);

/// Parses a shape that may name dynamic dimensions, "Nx3x224x224" or
/// "?x3x224x224": one entry per axis, its extent or name ("?" unnamed).
llvm::Expected<std::vector<std::string>>
parseSymbolicShape(llvm::StringRef text);

/// Parses a dimension's bounds, "1..64" or "..64" (from 1) or "8" (exactly).
llvm::Expected<std::pair<int64_t, int64_t>>
parseDimBounds(llvm::StringRef text);

/// The emit kind implied by an output file name (lib.so, .a, .o, .ll, .mlir,
/// .h), if any.
std::optional<EmitKind> emitKindForPath(llvm::StringRef path);

/// The C identifier used as the model name for an output path: "libnet.so"
/// -> "net".
std::string modelNameForPath(llvm::StringRef path);

/// Whether `name` can prefix C symbols ([A-Za-z_][A-Za-z0-9_]*).
bool isCIdentifier(llvm::StringRef name);

/// Imports the model, runs the graph passes and the target's pipeline, and
/// writes the output (and the header beside a library). On failure nothing
/// is left at the output paths.
llvm::Error compile(const CompileOptions &options);

} // namespace mxc

#endif // MXC_COMPILER_DRIVER_COMPILER_H
