// SPDX-License-Identifier: Apache-2.0
// Declarations of mxc's passes and pipelines (the passes themselves are
// generated from Passes.td).
#ifndef MXC_PASSES_PASSES_H
#define MXC_PASSES_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
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

namespace mx {
class Conv2DKernelOp;
} // namespace mx

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

/// Whether `v` is (a view of) an argument of its function's entry block
/// carrying the argument attribute `attr` (kConstantArgAttr, or the
/// frontend's mx.param and mx.aux: what a training instance holds).
inline bool isArgumentWith(mlir::Value v, llvm::StringRef attr) {
  while (mlir::Operation *def = v.getDefiningOp()) {
    auto view = llvm::dyn_cast<mlir::ViewLikeOpInterface>(def);
    if (!view)
      return false;
    v = view.getViewSource();
  }
  auto arg = llvm::dyn_cast<mlir::BlockArgument>(v);
  auto fn = arg ? llvm::dyn_cast<mlir::FunctionOpInterface>(
                      arg.getOwner()->getParentOp())
                : mlir::FunctionOpInterface();
  return fn && arg.getOwner() == &fn.getFunctionBody().front() &&
         fn.getArgAttr(arg.getArgNumber(), attr);
}

/// Whether the kernel `user` may keep packed copies of its weight `v`
/// between calls as an instance's parameter (MXRT_KERNEL_PARAM_A): a
/// learned parameter (mx.param) read in a training library's inference
/// function `forward`. (grad / train_step follow an update as a rule.)
inline bool isKeptParameter(mlir::Operation *user, mlir::Value v) {
  auto fn = user->getParentOfType<mlir::FunctionOpInterface>();
  return fn && fn.getName() == "forward" && isArgumentWith(v, "mx.param");
}

/// Whether --precision=bf16 computes the convolution `op` (an
/// mx.kernel.conv2d, on tensors or buffers) in bfloat16: all but the 3x3
/// stride-1 ones of more than 64 output pixels a channel, which float32
/// computes faster by Winograd (KernelsToCalls.cpp).
bool bf16Convolution(mx::Conv2DKernelOp op);

/// The CPU's runtime kernels: float32 contractions and poolings to
/// mx.kernel.* (preferred over the linalg lowering; mxc-select-cpu-kernels).
void populateMxToKernelPatterns(mlir::RewritePatternSet &patterns);

class ParameterStore;

/// mxc-fold-batchnorm reading and writing the parameters' data through
/// `store`, which must outlive the pass.
std::unique_ptr<mlir::Pass> createFoldBatchNormPass(ParameterStore &store);

/// mxc-mark-constant-params taking the parameters from `store`, which must
/// outlive the pass.
std::unique_ptr<mlir::Pass> createMarkConstantParamsPass(ParameterStore &store);

/// Options of the graph pipeline: the target-independent rewrites on mx ops
/// between import and a target's pipeline.
struct GraphPipelineOptions {
  /// An inference library; a training library's parameters change, so
  /// nothing is folded into them.
  bool inference = true;
  /// Fold BatchNorm into convolution weights (mxc-fold-batchnorm).
  bool fusion = true;
  /// The parameters' data; null: the IR's (IRParameterStore).
  ParameterStore *parameters = nullptr;
};

/// The graph passes on mx ops. --emit=mlir shows the module after them.
void buildGraphPipeline(mlir::OpPassManager &pm,
                        const GraphPipelineOptions &opts);

/// Options of the CPU pipeline from the mx dialect to the LLVM dialect.
struct CpuPipelineOptions {
  /// Memory-planning strategy: naive, inplace, coshare, both or best.
  std::string memoryPlan = "best";
  /// Print every strategy's plan to stdout.
  bool printMemoryPlan = false;
  /// Write the plan report as JSON to this file (empty: none).
  std::string memoryPlanJson;
  /// Operator fusion (--no-fusion turns it off, e.g. to plan memory for the
  /// graph as the frontend gives it): elementwise chains
  /// (mxc-fuse-elementwise), max pooling before activations and, with
  /// kernels, kernel epilogues (mxc-fuse-kernel-epilogues).
  bool fusion = true;
  /// Contractions call the runtime's kernels (else: generated loops).
  bool kernels = true;
  /// Outermost parallel loops with at least this much work (operations
  /// executed) run on the instance's thread pool
  /// (mxc-outline-parallel-loops); 0: every one.
  int64_t parallelMinWork = 131072;
  /// Convolution layout (mxc-conv-layout, with kernels): auto (chains of
  /// small convolutions channels last), nhwc (every one) or nchw.
  std::string convLayout = "auto";
  /// The float products' precision (mxc-kernels-to-calls): fp32, or bf16
  /// (operands rounded to bfloat16, float32 sums; docs/quantization.md).
  std::string precision = "fp32";
};

/// mx (tensors) -> linalg -> buffers -> loops -> LLVM dialect, ready for
/// translation (mxc-strip-mx-attrs last). The module's public functions take
/// their results as trailing out-parameters (bare pointers) afterwards.
/// With `constants` (an inference library's parameters), those are marked
/// constant first (mxc-mark-constant-params); `constants` must outlive the
/// pass manager.
void buildCpuPipeline(mlir::OpPassManager &pm, const CpuPipelineOptions &opts,
                      ParameterStore *constants = nullptr);

/// Options of the CUDA pipeline from the mx dialect to GPU kernels and host
/// code in the LLVM dialect.
struct CudaPipelineOptions {
  /// GPU architectures (sm_XX), one binary each.
  std::vector<std::string> archs = {"sm_90"};
  /// gpu-module-to-binary's format: fatbin (machine code and PTX per
  /// architecture), bin (machine code) or isa (PTX text).
  std::string binaryFormat = "fatbin";
  /// Memory-planning strategy, as CpuPipelineOptions::memoryPlan.
  std::string memoryPlan = "best";
  /// Elementwise fusion (mxc-fuse-elementwise).
  bool fusion = true;
  /// The CUDA toolkit (its libdevice, ptxas and fatbinary); empty:
  /// cudaToolkitPath().
  std::string toolkitPath;
};

/// The CUDA toolkit's root: the first of $CUDA_HOME, $CUDA_PATH,
/// $CUDA_ROOT, the folder above the `ptxas` on the PATH (links resolved),
/// /usr/local/cuda, /usr/local/cuda-* (newest first) and /opt/cuda that holds
/// bin/ptxas and nvvm/libdevice; "" when none does.
std::string cudaToolkitPath();

/// mx (tensors) -> linalg -> buffers -> parallel loops -> one GPU kernel per
/// loop nest, lowered through NVVM into an embedded binary; the host
/// functions (bare pointers to device memory, results as trailing
/// out-parameters, as the CPU pipeline's) launch them through the GPU
/// runtime's mgpu* entry points. The first CUDA slice: no cuBLAS, no
/// tiling (docs/cuda.md).
void buildCudaPipeline(mlir::OpPassManager &pm,
                       const CudaPipelineOptions &opts);

/// Registers every mxc pass and the `mxc-graph-pipeline`,
/// `mxc-cpu-pipeline`, `mxc-cuda-pipeline` and `mxc-cuda-ptx-pipeline`
/// pipelines.
void registerAllPasses();

/// Registers MLIR's and mxc's passes once, so that textual pipelines parse.
void ensurePassesRegistered();

/// The training passes (mxc --train): mxc-gradient on @train_forward, then
/// mxc-train-step with `stepOptions` ("optimizer=adam wd=0.0001 ..."), then
/// symbol-dce (a private @train_forward goes).
llvm::LogicalResult buildTrainingPipeline(mlir::OpPassManager &pm,
                                          llvm::StringRef gradWrt,
                                          llvm::StringRef stepOptions);

} // namespace mxc

#endif // MXC_PASSES_PASSES_H
