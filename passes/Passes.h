// SPDX-License-Identifier: Apache-2.0
// Declarations of mxc's passes and pipelines (the passes themselves are
// generated from Passes.td).
#ifndef MXC_PASSES_PASSES_H
#define MXC_PASSES_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mxc {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// Adds the patterns lowering every mx op (the forward ops, the training ops
/// of MxGradOps.td and the ONNX-only ops of MxOnnxOps.td) to
/// linalg/tensor/arith/math/scf on tensors. Target-independent: a target's
/// own choices (the CPU's runtime kernels) run before, as their own pass.
void populateMxToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// Unit attribute on a function argument whose contents never change while
/// the process runs (an inference model's weights): kernel calls reading it
/// may cache packed copies (mxc-kernels-to-calls).
inline constexpr llvm::StringLiteral kConstantArgAttr = "mxc.constant";

/// The CPU's runtime kernels: float32 contractions and poolings to
/// mx.kernel.* (preferred over the linalg lowering; mxc-select-cpu-kernels).
void populateMxToKernelPatterns(mlir::RewritePatternSet &patterns);

/// Options of the CPU pipeline from the mx dialect to the LLVM dialect.
struct CpuPipelineOptions {
  /// Memory-planning strategy: naive, inplace, coshare, both or best.
  std::string memoryPlan = "best";
  /// Print every strategy's plan to stdout.
  bool printMemoryPlan = false;
  /// Write the plan report as JSON to this file (empty: none).
  std::string memoryPlanJson;
  /// Fuse elementwise chains (mxc-fuse-elementwise) and, with kernels,
  /// kernel epilogues (mxc-fuse-kernel-epilogues).
  bool fuseElementwise = true;
  /// Contractions call the runtime's kernels (else: generated loops).
  bool kernels = true;
  /// Outermost parallel loops with at least this much work (operations
  /// executed) run on the instance's thread pool
  /// (mxc-outline-parallel-loops); 0: every one.
  int64_t parallelMinWork = 131072;
  /// Convolution layout (mxc-conv-layout, with kernels): auto (chains of
  /// small convolutions channels last), nhwc (every one) or nchw.
  std::string convLayout = "auto";
};

/// mx (tensors) -> linalg -> buffers -> loops -> LLVM dialect. The module's
/// public functions take their results as trailing out-parameters
/// (bare pointers) afterwards.
void buildCpuPipeline(mlir::OpPassManager &pm, const CpuPipelineOptions &opts);

/// Registers every mxc pass and the `mxc-cpu-pipeline` pipeline.
void registerAllPasses();

/// Registers MLIR's and mxc's passes once, so that textual pipelines parse.
void ensurePassesRegistered();

/// The training passes (mxc --train): mxc-gradient on @train_forward, then
/// mxc-train-step with `stepOptions` ("optimizer=adam wd=0.0001 ...").
llvm::LogicalResult buildTrainingPipeline(mlir::OpPassManager &pm,
                                          llvm::StringRef gradWrt,
                                          llvm::StringRef stepOptions);

} // namespace mxc

#endif // MXC_PASSES_PASSES_H
