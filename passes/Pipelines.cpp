// SPDX-License-Identifier: Apache-2.0
// The pass pipelines mxc runs, in one place so that `mxc` and `mxc-opt
// --mxc-graph-pipeline / --mxc-cpu-pipeline` cannot drift apart.
#include "passes/Passes.h"
#include "passes/graph/ParameterStore.h"

#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

using namespace mlir;

namespace {
// Both targets' bufferization: tensors to buffers, function results to
// out-parameters (hoisting the static result allocations so kernels write
// straight into the caller's buffers).
constexpr const char *kBufferize =
    "mxc-shape-functions,"
    "eliminate-empty-tensors,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "func.func(mxc-distinct-results),"
    "func.func(mxc-cache-results),"
    "buffer-results-to-out-params{hoist-static-allocs=true "
    "modify-public-functions=true},"
    "mxc-bind-dims,"
    "canonicalize,";

// mx on tensors -> linalg -> bufferized loops -> LLVM dialect.
constexpr const char *kCpuPipeline =
    "mxc-lower-strings,"
    "@LOWER@"
    "canonicalize,"
    "@FUSE@"
    "func.func(mxc-approximate-math),"
    "func.func(mxc-read-only-args),"
    "@BUFFERIZE@"
    "func.func(mxc-results-in-place),"
    "func.func(mxc-contiguous-kernel-operands),"
    "mxc-plan-memory{@PLAN@},"
    "buffer-deallocation-pipeline,"
    "mxc-kernels-to-calls{precision=@PRECISION@},"
    "mxc-memref-copy-to-linalg,"
    "mxc-report-gradients,"
    "func.func(mxc-collapse-loops),"
    "func.func(mxc-flatten-empty-memref-args),"
    "convert-linalg-to-parallel-loops,"
    "func.func(mxc-hoist-constant-loads),"
    "mxc-outline-parallel-loops{min-work=@MINWORK@},"
    "convert-scf-to-cf,"
    "expand-strided-metadata,"
    "lower-affine,"
    // Heap buffers through libmxrt's block cache (runtime/src/heap.cpp).
    "finalize-memref-to-llvm{use-generic-functions=true},"
    "convert-math-to-llvm,"
    "convert-math-to-libm,"
    "convert-arith-to-llvm,"
    "convert-cf-to-llvm,"
    "convert-func-to-llvm{use-bare-ptr-memref-call-conv=true},"
    "convert-index-to-llvm,"
    "reconcile-unrealized-casts,"
    "mxc-strip-mx-attrs";

// mx on tensors -> float32 contractions as calls of libmxrt's cuBLAS /
// cuDNN wrappers, the rest linalg -> bufferized parallel loops -> one GPU
// kernel per loop nest (gpu dialect) -> NVVM -> a binary per architecture,
// embedded; the host side -> LLVM dialect, calling the GPU runtime's
// mgpu* entry points and the wrappers. Every buffer the host function receives
// (inputs, parameters, outputs, the memory plan's arena) is device memory: the
// host code only launches kernels (docs/cuda.md).
constexpr const char *kCudaPipeline =
    "mxc-lower-strings,"
    "func.func(mxc-share-concat-prefixes),"
    "func.func(mxc-select-cuda-kernels),"
    "func.func(mxc-convert-mx-to-linalg{kernels=false}),"
    "canonicalize,"
    "@FUSE@"
    "func.func(mxc-read-only-args),"
    "@BUFFERIZE@"
    "func.func(mxc-contiguous-kernel-operands),"
    "mxc-plan-memory{strategy=@PLAN@},"
    "buffer-deallocation-pipeline,"
    "mxc-kernels-to-calls{prefix=mxrt_cuda_},"
    "mxc-memref-copy-to-linalg,"
    "func.func(mxc-collapse-loops),"
    "func.func(mxc-flatten-empty-memref-args),"
    "convert-linalg-to-parallel-loops,"
    "func.func(mxc-gpu-tile-loops,gpu-map-parallel-loops,"
    "convert-parallel-loops-to-gpu,mxc-check-gpu-host),"
    "gpu-kernel-outlining,"
    "mxc-merge-gpu-modules,"
    "@TARGETS@"
    "gpu.module(lower-affine,convert-scf-to-cf,convert-gpu-to-nvvm,"
    "canonicalize,reconcile-unrealized-casts),"
    "gpu-module-to-binary{format=@FORMAT@},"
    "@MERGE@"
    "convert-scf-to-cf,"
    "expand-strided-metadata,"
    "lower-affine,"
    "finalize-memref-to-llvm,"
    "convert-math-to-llvm,"
    "convert-arith-to-llvm,"
    "convert-cf-to-llvm,"
    "convert-func-to-llvm{use-bare-ptr-memref-call-conv=true},"
    "gpu-to-llvm,"
    "convert-index-to-llvm,"
    "reconcile-unrealized-casts,"
    "mxc-strip-mx-attrs";
} // namespace

void mxc::ensurePassesRegistered() {
  static bool registered = [] {
    mlir::registerAllPasses();
    registerMXCPasses();
    return true;
  }();
  (void)registered;
}

LogicalResult mxc::buildTrainingPipeline(OpPassManager &pm,
                                         llvm::StringRef gradWrt,
                                         llvm::StringRef stepOptions) {
  ensurePassesRegistered();
  std::string pipeline = "mxc-gradient{func=train_forward";
  if (!gradWrt.empty())
    pipeline += " grad-wrt=" + gradWrt.str();
  // symbol-dce drops the driver's private @train_forward, which nothing
  // reads once the gradient is derived.
  pipeline += "},mxc-train-step{grad-func=train_forward_grad " +
              stepOptions.str() + "},symbol-dce";
  return parsePassPipeline(pipeline, pm);
}

void mxc::buildGraphPipeline(OpPassManager &pm,
                             const GraphPipelineOptions &opts) {
  if (opts.inference && opts.fusion)
    pm.addNestedPass<func::FuncOp>(
        opts.parameters ? createFoldBatchNormPass(*opts.parameters)
                        : createFoldBatchNormPass());
}

void mxc::buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &opts,
                           ParameterStore *constants) {
  // The pipeline is spelled as text, so its passes must be registered.
  ensurePassesRegistered();
  if (constants)
    pm.addNestedPass<func::FuncOp>(createMarkConstantParamsPass(*constants));
  std::string plan = "strategy=" + opts.memoryPlan;
  if (opts.printMemoryPlan)
    plan += " print=true";
  if (!opts.memoryPlanJson.empty())
    plan += " json-file=" + opts.memoryPlanJson;
  std::string pipeline = kCpuPipeline;
  pipeline.replace(pipeline.find("@BUFFERIZE@"), 11, kBufferize);
  pipeline.replace(pipeline.find("@PLAN@"), 6, plan);
  pipeline.replace(pipeline.find("@MINWORK@"), 9,
                   std::to_string(opts.parallelMinWork));
  pipeline.replace(pipeline.find("@PRECISION@"), 11, opts.precision);
  // Kernel epilogues first: elementwise fusion would merge the add and the
  // ReLU they look for.
  std::string fuse;
  if (opts.kernels && opts.fusion)
    fuse += "func.func(mxc-fuse-kernel-epilogues),";
  // After the epilogues (a residual add must be an accumulating init
  // first, to link its chain), before elementwise fusion.
  if (opts.kernels && opts.convLayout != "nchw")
    fuse += "func.func(mxc-conv-layout{policy=" +
            std::string(opts.convLayout == "nhwc" ? "all" : "auto") +
            " precision=" + opts.precision + "}),";
  if (opts.fusion)
    fuse += "func.func(mxc-fuse-elementwise),";
  // After fusion, so that a quantized residual add is one elementwise op
  // (8-bit in and out) that the channels-last region passes through.
  if (opts.kernels && opts.convLayout != "nchw")
    fuse += "func.func(mxc-quantized-layout),";
  pipeline.replace(pipeline.find("@FUSE@"), 6, fuse);
  // The CPU's choices on mx ops, then their target-independent lowering:
  // graph rewrites (with fusion), then runtime kernels for the
  // contractions and poolings they run faster.
  std::string lower;
  if (opts.fusion)
    lower += "func.func(mxc-pool-before-activation),"
             "func.func(mxc-share-concat-prefixes),"
             "func.func(mxc-relu-into-batchnorm-grad),";
  if (opts.kernels)
    lower += "func.func(mxc-select-cpu-kernels),";
  lower += "func.func(mxc-convert-mx-to-linalg{kernels=false}),";
  pipeline.replace(pipeline.find("@LOWER@"), 7, lower);
  if (failed(parsePassPipeline(pipeline, pm)))
    llvm::report_fatal_error("mxc: the built-in CPU pipeline does not parse");
}

std::string mxc::cudaToolkitPath() {
  // A toolkit is a folder with nvvm/libdevice (what the kernels link) and
  // bin/ptxas. The variables win when they name one; ptxas on the PATH may be
  // a wrapper script in /usr/local/bin, so its grandparent is only one
  // candidate among the usual install folders.
  auto isToolkit = [](llvm::StringRef dir) {
    return llvm::sys::fs::exists(dir + "/nvvm/libdevice/libdevice.10.bc") &&
           llvm::sys::fs::exists(dir + "/bin/ptxas");
  };
  std::vector<std::string> candidates;
  for (const char *name : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (const char *value = std::getenv(name); value && *value)
      candidates.push_back(value);
  if (auto ptxas = llvm::sys::findProgramByName("ptxas")) {
    llvm::SmallString<256> real;
    if (llvm::sys::fs::real_path(*ptxas, real))
      real = *ptxas;
    candidates.push_back(
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(real)).str());
  }
  candidates.push_back("/usr/local/cuda");
  // Versioned installs without the /usr/local/cuda link, newest first.
  std::vector<std::string> versioned;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it("/usr/local", ec), end;
       it != end && !ec; it.increment(ec))
    if (llvm::sys::path::filename(it->path()).starts_with("cuda-"))
      versioned.push_back(it->path());
  llvm::sort(versioned, std::greater<>());
  candidates.insert(candidates.end(), versioned.begin(), versioned.end());
  candidates.push_back("/opt/cuda");
  for (const std::string &dir : candidates)
    if (isToolkit(dir))
      return dir;
  return "";
}

void mxc::buildCudaPipeline(OpPassManager &pm,
                            const CudaPipelineOptions &opts) {
  ensurePassesRegistered();
  std::string pipeline = kCudaPipeline;
  pipeline.replace(pipeline.find("@BUFFERIZE@"), 11, kBufferize);
  pipeline.replace(pipeline.find("@PLAN@"), 6, opts.memoryPlan);
  pipeline.replace(pipeline.find("@FUSE@"), 6,
                   opts.fusion ? "func.func(mxc-fuse-elementwise)," : "");
  // One target per architecture: the binary holds each one's machine code
  // and PTX (fatbin), or the PTX text alone (isa, for tests).
  std::string toolkit =
      opts.toolkitPath.empty() ? cudaToolkitPath() : opts.toolkitPath;
  // libdevice: the math functions NVVM lowers to calls (__nv_fmaxf, ...).
  std::string libdevice = toolkit + "/nvvm/libdevice/libdevice.10.bc";
  bool link = !toolkit.empty() && llvm::sys::fs::exists(libdevice);
  std::string targets;
  for (const std::string &arch : opts.archs)
    targets += "nvvm-attach-target{chip=" + arch + " features=+ptx80" +
               (link ? " l=" + libdevice : "") + "},";
  pipeline.replace(pipeline.find("@TARGETS@"), 9, targets);
  // ptxas and fatbinary from the same toolkit, whatever the PATH holds.
  pipeline.replace(pipeline.find("@FORMAT@"), 8,
                   opts.binaryFormat +
                       (toolkit.empty() ? "" : " toolkit=" + toolkit));
  pipeline.replace(pipeline.find("@MERGE@"), 7,
                   opts.archs.size() > 1 && opts.binaryFormat == "fatbin"
                       ? "mxc-merge-gpu-objects,"
                       : "");
  if (failed(parsePassPipeline(pipeline, pm)))
    llvm::report_fatal_error("mxc: the built-in CUDA pipeline does not parse");
}

void mxc::registerAllPasses() {
  registerMXCPasses();
  PassPipelineRegistration<>(
      "mxc-graph-pipeline",
      "The graph passes of an inference library on mx ops, parameter data "
      "from the IR",
      [](OpPassManager &pm) {
        buildGraphPipeline(pm, GraphPipelineOptions{});
      });
  PassPipelineRegistration<>(
      "mxc-cpu-pipeline",
      "Lower the mx dialect to the LLVM dialect for the host CPU",
      [](OpPassManager &pm) { buildCpuPipeline(pm, CpuPipelineOptions{}); });
  PassPipelineRegistration<>(
      "mxc-cuda-pipeline",
      "Lower the mx dialect to GPU kernels for sm_90 (a fatbin of its "
      "machine code and PTX) and host code in the LLVM dialect",
      [](OpPassManager &pm) { buildCudaPipeline(pm, CudaPipelineOptions{}); });
  PassPipelineRegistration<>(
      "mxc-cuda-ptx-pipeline",
      "mxc-cuda-pipeline with the kernels left as PTX text (for tests)",
      [](OpPassManager &pm) {
        CudaPipelineOptions opts;
        opts.binaryFormat = "isa";
        buildCudaPipeline(pm, opts);
      });
}
