// SPDX-License-Identifier: Apache-2.0
// Drives a model through import, the graph passes, a target's pipeline and
// codegen, and writes the requested outputs (each atomically, so a failure
// leaves none). Every rewrite of the IR is a pass (passes/); this file only
// schedules them and keeps the ModelSpec in step.
#include "compiler/driver/Compiler.h"
#include "compiler/codegen/WeightsWriter.h"
#include "compiler/driver/CompilerInternal.h"
#include "compiler/driver/GraphReport.h"
#include "compiler/driver/SpecParameterStore.h"
#include "compiler/frontends/mxnet/Importer.h"
#include "compiler/frontends/onnx/Importer.h"
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>

using namespace mxc;
using namespace mxc::driver;
using llvm::Twine;

llvm::Error driver::makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

bool mxc::isCIdentifier(llvm::StringRef name) {
  return !name.empty() && !llvm::isDigit(name[0]) &&
         llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

llvm::Expected<std::vector<int64_t>> mxc::parseShape(llvm::StringRef text) {
  std::vector<int64_t> shape;
  if (text.empty() || text == "scalar")
    return shape;
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, 'x');
  for (llvm::StringRef p : parts) {
    int64_t d;
    if (p.trim().getAsInteger(10, d) || d < 0 || d > (int64_t(1) << 40))
      return makeError("bad shape '" + text +
                       "': expected extents >= 0 like 1x3x32x32");
    shape.push_back(d);
  }
  // Keep every tensor addressable: at most 2^40 elements in all.
  int64_t total = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(total, d, &total) || total > (int64_t(1) << 40))
      return makeError("shape '" + text +
                       "' is too large (over 2^40 elements)");
  return shape;
}

llvm::Expected<std::vector<std::string>>
mxc::parseSymbolicShape(llvm::StringRef text) {
  std::vector<std::string> axes;
  if (text.empty() || text == "scalar")
    return axes;
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, 'x');
  std::string numeric;
  for (llvm::StringRef p : parts) {
    p = p.trim();
    bool name =
        p == "?" ||
        (!p.empty() && (llvm::isAlpha(p[0]) || p[0] == '_') &&
         llvm::all_of(p, [](char c) { return llvm::isAlnum(c) || c == '_'; }));
    if (!name && !p.empty() && llvm::all_of(p, llvm::isDigit)) {
      numeric += (numeric.empty() ? "" : "x") + p.str();
    } else if (!name) {
      return makeError("bad shape '" + text +
                       "': expected extents >= 0 or dimension names like "
                       "Nx3x224x224 (names without an x) or ?x3x224x224");
    }
    axes.push_back(p.str());
  }
  // The static extents' own checks (ranges, the 2^40 elements cap).
  if (auto err = parseShape(numeric).takeError())
    return makeError("bad shape '" + text + "': " + toString(std::move(err)));
  return axes;
}

llvm::Expected<std::pair<int64_t, int64_t>>
mxc::parseDimBounds(llvm::StringRef text) {
  auto [lo, hi] = text.split("..");
  int64_t min = 1, max = -1;
  bool range = text.contains("..");
  if ((!lo.empty() && lo.getAsInteger(10, min)) ||
      (range && !hi.empty() && hi.getAsInteger(10, max)) || min < 0 ||
      (range && hi.empty()) || (!range && lo.empty()))
    return makeError("bad bounds '" + text +
                     "': expected MIN..MAX like 1..64, ..64 or an extent");
  if (!range)
    max = min;
  if (max < min || max > (int64_t(1) << 40))
    return makeError("bad bounds '" + text + "': the largest extent " +
                     Twine(max) + " is below " + Twine(min) +
                     (max > min ? " or over 2^40" : ""));
  return std::make_pair(min, max);
}

std::optional<EmitKind> mxc::emitKindForPath(llvm::StringRef path) {
  return llvm::StringSwitch<std::optional<EmitKind>>(
             llvm::sys::path::extension(path))
      .Case(".so", EmitKind::SharedLibrary)
      .Case(".a", EmitKind::StaticArchive)
      .Case(".o", EmitKind::Object)
      .Case(".ll", EmitKind::LLVMIR)
      .Case(".mlir", EmitKind::MLIR)
      .Case(".h", EmitKind::Header)
      .Case(".s", EmitKind::Assembly)
      .Case(".dot", EmitKind::Dot)
      .Default(std::nullopt);
}

std::string mxc::modelNameForPath(llvm::StringRef path) {
  llvm::StringRef stem = llvm::sys::path::stem(path);
  if (stem.starts_with("lib") && stem.size() > 3)
    stem = stem.drop_front(3);
  std::string name = stem.str();
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !llvm::isAlnum(c); }, '_');
  if (name.empty() || llvm::isDigit(name[0]))
    name.insert(0, "model_");
  return name;
}

/// The header path written beside a library: <dir>/<name>.h.
static std::string headerPathFor(const std::string &output,
                                 const std::string &name) {
  llvm::SmallString<256> p(llvm::sys::path::parent_path(output));
  llvm::sys::path::append(p, name + ".h");
  return std::string(p);
}

/// The shape of a ranked tensor type as a vector.
static std::vector<int64_t> shapeOf(mlir::Type type) {
  auto shape = mlir::cast<mlir::RankedTensorType>(type).getShape();
  return std::vector<int64_t>(shape.begin(), shape.end());
}

//===----------------------------------------------------------------------===//
// Running passes
//===----------------------------------------------------------------------===//

/// One diagnostic of a pass in mxc's form, "node 'name' (op): message": the
/// node from the location an importer gave the op (a NameLoc, in a
/// FusedLoc after fusion), the op from the message's "'mx.Op' op " prefix
/// (emitOpError's); what a location does not name is left out.
static std::string formatDiagnostic(mlir::Diagnostic &d) {
  std::string message = d.str();
  std::string node;
  mlir::Location loc = d.getLocation();
  if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc))
    if (!fused.getLocations().empty())
      loc = fused.getLocations().front();
  if (auto name = mlir::dyn_cast<mlir::NameLoc>(loc))
    node = "node '" + name.getName().str() + "'";
  llvm::StringRef text = message;
  std::string op;
  if (text.starts_with("'")) {
    size_t end = text.find("' op ");
    if (end != llvm::StringRef::npos) {
      op = text.substr(1, end - 1).str();
      if (llvm::StringRef(op).starts_with("mx."))
        op = op.substr(3);
      text = text.substr(end + 5);
    }
  }
  std::string out = node;
  if (!op.empty())
    out += (out.empty() ? "(" : " (") + op + ")";
  if (out.empty()) {
    std::string where;
    llvm::raw_string_ostream os(where);
    os << d.getLocation();
    out = where;
  }
  return out + ": " + text.str();
}

/// Runs the passes `build` adds on `module` under the command line's pass
/// manager options (--print-ir-after-all, MLIR's own flags). A failure
/// becomes the error "'<model>': <failure>:" and the diagnostics emitted.
static llvm::Error
runPasses(mlir::ModuleOp module, const CompileOptions &options,
          const Twine &failure,
          llvm::function_ref<llvm::LogicalResult(mlir::PassManager &)> build) {
  mlir::MLIRContext &context = *module.getContext();
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    llvm::raw_string_ostream os(diagnostics);
    os << formatDiagnostic(d) << "\n";
    return mlir::success();
  });
  mlir::PassManager pm(&context);
  if (options.configurePassManager && failed(options.configurePassManager(pm)))
    return makeError("invalid pass manager options");
  if (options.timePasses)
    pm.enableTiming(); // its table on stderr when the run ends
  if (options.printIRAfterAll) {
    context.disableMultithreading();
    pm.enableIRPrinting([](mlir::Pass *, mlir::Operation *) { return false; },
                        [](mlir::Pass *, mlir::Operation *) { return true; },
                        /*printModuleScope=*/true,
                        /*printAfterOnlyOnChange=*/false);
  }
  if (failed(build(pm)) || failed(pm.run(module)))
    return makeError("'" + options.modelPath + "': " + failure + ":\n" +
                     diagnostics);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Import
//===----------------------------------------------------------------------===//

/// The MXNet importer's options for `options`' model.
static mxnet::ImportOptions mxnetImportOptions(const CompileOptions &options) {
  mxnet::ImportOptions importOptions;
  importOptions.inputShapes = options.inputShapes;
  importOptions.paramsPath = options.paramsPath;
  importOptions.initSeed = options.train.initSeed;
  importOptions.loss = options.train.loss;
  return importOptions;
}

llvm::Expected<ImportedModel> driver::importModel(
    mlir::MLIRContext &context, const CompileOptions &options,
    const std::map<std::string, int64_t> &dimValues,
    const std::map<std::string, std::vector<std::string>> &dynamicAxes) {
  if (llvm::sys::path::extension(options.modelPath) == ".onnx") {
    if (!options.paramsPath.empty())
      return makeError("'" + options.modelPath +
                       "': ONNX models carry their weights; --params is "
                       "for MXNet models");
    onnx::ImportOptions importOptions;
    importOptions.inputShapes = options.inputShapes;
    importOptions.boundInputs = options.boundInputs;
    importOptions.sequenceInputs = options.sequenceInputs;
    importOptions.absentInputs = options.absentInputs;
    importOptions.dimValues = dimValues;
    importOptions.dynamicAxes = dynamicAxes;
    importOptions.quiet = options.quiet;
    return onnx::importModel(context, options.modelPath, importOptions);
  }
  if (!options.boundInputs.empty())
    return makeError("--bind is for ONNX models");
  if (!options.sequenceInputs.empty() || !options.absentInputs.empty())
    return makeError("--input NAME=seq(...) and NAME=none are for the "
                     "sequence and optional inputs of ONNX models");
  mxnet::ImportOptions importOptions = mxnetImportOptions(options);
  importOptions.initializeParams = options.train.enabled;
  return mxnet::importModel(context, options.modelPath, importOptions);
}

//===----------------------------------------------------------------------===//
// Training functions
//===----------------------------------------------------------------------===//

/// The options of mxc-train-step for `t`, with the default rescale_grad of
/// 1 / batch (the first extent of the first input).
static std::string trainStepOptions(TrainOptions t, const ModelSpec &spec) {
  if (t.rescaleGrad == 0.0) {
    int64_t batch = spec.inputs.empty() || spec.inputs[0].shape.empty()
                        ? 1
                        : spec.inputs[0].shape[0];
    t.rescaleGrad = 1.0 / double(std::max<int64_t>(batch, 1));
  }
  auto num = [](double v) { // exact: %.17g round-trips a double
    char text[32];
    std::snprintf(text, sizeof(text), "%.17g", v);
    return std::string(text);
  };
  return "optimizer=" + t.optimizer + " wd=" + num(t.wd) +
         " momentum=" + num(t.momentum) + " beta1=" + num(t.beta1) +
         " beta2=" + num(t.beta2) + " epsilon=" + num(t.epsilon) +
         " rho=" + num(t.rho) + " rescale-grad=" + num(t.rescaleGrad) +
         " clip-gradient=" + num(t.clipGradient);
}

/// Describes @grad and @train_step in `spec` (their inputs and outputs, the
/// optimizer states, which parameters are learned) from the attributes
/// mxc-gradient and mxc-train-step left on them.
static llvm::Error describeTrainingFunctions(mlir::ModuleOp module,
                                             const ModelSpec &trainSpec,
                                             const CompileOptions &options,
                                             ModelSpec &spec) {
  auto grad = module.lookupSymbol<mlir::func::FuncOp>("grad");
  auto step = module.lookupSymbol<mlir::func::FuncOp>("train_step");
  size_t numInputs = trainSpec.inputs.size();
  FunctionSpec gradSpec{"grad", trainSpec.inputs, trainSpec.outputs, false};
  spec.trainable.assign(spec.params.size(), false);
  for (unsigned r = trainSpec.outputs.size(); r < grad.getNumResults(); ++r) {
    auto of = grad.getResultAttrOfType<mlir::IntegerAttr>(r, "mx.grad_of");
    if (!of || of.getInt() < (int64_t)numInputs ||
        of.getInt() >= (int64_t)(numInputs + spec.params.size()))
      return makeError("'" + options.modelPath +
                       "': a gradient is not of a parameter (a --grad-wrt "
                       "name is an input?)");
    size_t p = of.getInt() - numInputs;
    spec.trainable[p] = true;
    gradSpec.outputs.push_back({spec.params[p].name + "_grad", DType::F32,
                                shapeOf(grad.getResultTypes()[r])});
  }
  FunctionSpec stepSpec{"train_step", trainSpec.inputs, trainSpec.outputs,
                        true};
  stepSpec.inputs.push_back({"learning_rate", DType::F32, {}});
  for (unsigned i = 0; i < grad.getNumArguments(); ++i)
    if (grad.getArgAttr(i, "mx.state"))
      ++gradSpec.statesRead;
  for (unsigned i = 0; i < step.getNumArguments(); ++i) {
    if (!step.getArgAttr(i, "mx.state"))
      continue;
    mlir::Type et =
        mlir::cast<mlir::RankedTensorType>(step.getArgumentTypes()[i])
            .getElementType();
    spec.states.push_back(
        {step.getArgAttrOfType<mlir::StringAttr>(i, "mx.name").str(),
         et.isInteger(64) ? DType::I64 : DType::F32,
         shapeOf(step.getArgumentTypes()[i])});
  }
  spec.functions = {std::move(gradSpec), std::move(stepSpec)};
  return llvm::Error::success();
}

llvm::Error driver::addTrainingFunctions(const CompileOptions &options,
                                         mlir::ModuleOp module,
                                         ModelSpec &spec) {
  if (llvm::sys::path::extension(options.modelPath) == ".onnx")
    return makeError("'" + options.modelPath +
                     "': --train is supported for MXNet models");
  mxnet::ImportOptions importOptions = mxnetImportOptions(options);
  importOptions.withLabels = true;
  importOptions.funcName = "train_forward";
  importOptions.initializeParams = true;
  auto training = mxnet::importModel(*module.getContext(), options.modelPath,
                                     importOptions);
  if (!training)
    return training.takeError();
  auto trainFn = *(*training->module).getOps<mlir::func::FuncOp>().begin();
  trainFn->moveBefore(module.getBody(), module.getBody()->end());
  trainFn.setPrivate();

  std::string gradWrt = llvm::join(options.train.gradWrt, ",");
  std::string stepOptions = trainStepOptions(options.train, training->spec);
  if (auto err =
          runPasses(module, options, "deriving the training functions failed",
                    [&](mlir::PassManager &pm) {
                      return buildTrainingPipeline(pm, gradWrt, stepOptions);
                    }))
    return err;
  return describeTrainingFunctions(module, training->spec, options, spec);
}

//===----------------------------------------------------------------------===//
// Pipelines
//===----------------------------------------------------------------------===//

/// The target named `name` (ARCHITECTURE.md, "Targets"; the CUDA target
/// adds its entry here), or an error naming the known ones.
static llvm::Expected<TargetPipeline> targetPipeline(llvm::StringRef name) {
  static const std::pair<llvm::StringLiteral, TargetPipeline> targets[] = {
      {"cpu",
       [](mlir::OpPassManager &pm, const CompileOptions &options,
          ParameterStore *constants) {
         buildCpuPipeline(pm, options, constants);
       }},
      {"cuda",
       [](mlir::OpPassManager &pm, const CompileOptions &options,
          ParameterStore *) {
         CudaPipelineOptions cuda;
         cuda.archs = options.gpuArchs;
         cuda.memoryPlan = options.memoryPlan;
         cuda.fusion = options.fusion;
         buildCudaPipeline(pm, cuda);
       }},
  };
  if (name == "cuda" && cudaToolkitPath().empty())
    return makeError(
        "--target=cuda needs the CUDA toolkit (a folder with bin/ptxas and "
        "nvvm/libdevice/libdevice.10.bc): none in $CUDA_HOME, $CUDA_PATH, "
        "$CUDA_ROOT, above the ptxas on the PATH, /usr/local/cuda* or "
        "/opt/cuda; set CUDA_HOME to it");
  for (const auto &[known, pipeline] : targets)
    if (name == known)
      return pipeline;
  return makeError("unknown target '" + name + "': expected cpu or cuda");
}

llvm::Error driver::runGraphPipeline(mlir::ModuleOp module,
                                     const CompileOptions &options,
                                     ParameterStore &params) {
  GraphPipelineOptions graph;
  graph.inference = !options.train.enabled;
  graph.fusion = options.fusion;
  graph.parameters = &params;
  return runPasses(module, options, "the graph passes failed",
                   [&](mlir::PassManager &pm) {
                     buildGraphPipeline(pm, graph);
                     return mlir::success();
                   });
}

llvm::Error driver::runTargetPipeline(mlir::ModuleOp module,
                                      TargetPipeline target,
                                      const CompileOptions &options,
                                      ParameterStore &params, ModelSpec &spec) {
  ParameterStore *constants = options.train.enabled ? nullptr : &params;
  if (auto err = runPasses(module, options, "lowering failed",
                           [&](mlir::PassManager &pm) {
                             target(pm, options, constants);
                             return mlir::success();
                           }))
    return err;
  if (auto arena = module->getAttrOfType<mlir::IntegerAttr>("mxc.arena_size")) {
    spec.scratchSize = arena.getInt();
    module->removeAttr("mxc.arena_size");
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Outputs
//===----------------------------------------------------------------------===//

/// The graph inputs given on the command line (--input, --bind): data, not
/// parameters, for the reports.
static std::set<std::string> dataInputNames(const CompileOptions &options) {
  std::set<std::string> names;
  for (const auto &[name, shape] : options.inputShapes)
    names.insert(name);
  for (const auto &[name, value] : options.sequenceInputs)
    names.insert(name);
  for (const auto &[name, path] : options.boundInputs)
    names.insert(name);
  names.insert(options.absentInputs.begin(), options.absentInputs.end());
  return names;
}

/// --emit=mlir (the module after the graph passes), --emit=header or
/// --emit=dot.
static llvm::Error emitGraph(mlir::ModuleOp module, const ModelSpec &spec,
                             const CompileOptions &options) {
  if (options.emit == EmitKind::Header)
    return writeFileAtomically(options.outputPath,
                               generateHeader(spec, options.modelPath));
  if (options.emit == EmitKind::Dot)
    return writeFileAtomically(options.outputPath,
                               forwardGraphDot(module, spec.name,
                                               dataInputNames(options),
                                               spec.inputs.size()));
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return writeFileAtomically(options.outputPath, text);
}

llvm::Error driver::emitLibrary(llvm::ArrayRef<mlir::ModuleOp> modules,
                                const ModelSpec &spec,
                                const CompileOptions &options) {
  llvm::LLVMContext llvmContext;
  auto llvmModule = buildLLVMModule(modules, spec, llvmContext);
  if (!llvmModule)
    return llvmModule.takeError();
  OutputKind kind = options.emit == EmitKind::LLVMIR     ? OutputKind::LLVMIR
                    : options.emit == EmitKind::Assembly ? OutputKind::Assembly
                    : options.emit == EmitKind::Object   ? OutputKind::Object
                    : options.emit == EmitKind::StaticArchive
                        ? OutputKind::StaticArchive
                        : OutputKind::SharedLibrary;
  if (auto err = emitModule(**llvmModule, spec, kind, options.outputPath,
                            options.codegen))
    return err;
  if (kind != OutputKind::SharedLibrary && kind != OutputKind::StaticArchive)
    return llvm::Error::success();
  // The header is left as it is when it would not change (new weights, a
  // recompile), so that the app's sources that include it are not rebuilt
  // (build systems check a rerun step's outputs' times: Ninja's restat).
  std::string headerPath = headerPathFor(options.outputPath, spec.name);
  std::string header = generateHeader(spec, options.modelPath);
  auto existing = llvm::MemoryBuffer::getFile(headerPath);
  if (existing && (*existing)->getBuffer() == header)
    return llvm::Error::success();
  if (auto err = writeFileAtomically(headerPath, header)) {
    llvm::sys::fs::remove(options.outputPath);
    if (!spec.weightsFile.empty())
      llvm::sys::fs::remove(weightsFilePath(options.outputPath, spec));
    return err;
  }
  return llvm::Error::success();
}

llvm::Error mxc::compile(const CompileOptions &options) {
  auto target = targetPipeline(options.target);
  if (!target)
    return target.takeError();
  bool cuda = options.target == "cuda";
  if (cuda && options.gpuArchs.empty())
    return makeError("--gpu-arch: no architecture given");
  for (const std::string &arch : options.gpuArchs)
    if (!llvm::StringRef(arch).starts_with("sm_") ||
        !llvm::all_of(llvm::StringRef(arch).drop_front(3), llvm::isDigit) ||
        arch.size() < 5)
      return makeError("--gpu-arch '" + arch +
                       "': expected NVIDIA architectures like sm_90 or "
                       "sm_80,sm_90");
  if (options.weightsFile && options.emit != EmitKind::SharedLibrary)
    return makeError("--weights=file: only a shared library (--emit=so) "
                     "keeps its weights in a file beside it; other outputs "
                     "embed them");
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // The CUDA target's gpu-module-to-binary: the NVVM target and the
  // translations of the kernels' dialects to LLVM IR.
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mx::MxDialect>();
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();

  setStageReport(
      {options.timePasses,
       !options.quiet && llvm::sys::Process::StandardErrIsDisplayed()});
  compileStage("", "importing");
  // Dynamic dimensions are imported at 1 first: the static build when they
  // stay fixed, the first variant's otherwise.
  DynamicDims requested = dynamicDims(options, ImportedModel());
  // What the command line asks for is checked before anything is read.
  if (!requested.names.empty() && requested.isBatchOnly())
    if (std::string why = unsupportedDims(options, requested); !why.empty())
      return makeError("'" + options.modelPath + "': dynamic dimension " +
                       requested.names[0] + ": " + why);
  auto imported = importAt(context, options, requested, 1);
  if (!imported) {
    if (requested.names.empty())
      return imported.takeError();
    return makeError("with " + llvm::join(requested.names, "=1, ") +
                     "=1: " + toString(imported.takeError()));
  }
  DynamicDims dyn = dynamicDims(options, *imported);
  // Extents the data decides (NonZero's, ...) take the static forward of an
  // inference library for the host CPU.
  if (!imported->spec.counts.empty()) {
    std::string where = "'" + options.modelPath + "': output '" +
                        imported->spec.dims[imported->spec.counts[0]].name +
                        "' (an extent found only as the model runs)";
    if (cuda)
      return makeError(where + ": not supported for --target=cuda yet");
    if (options.train.enabled)
      return makeError(where + ": not supported with --train");
    if (!dyn.names.empty())
      return makeError(where +
                       ": not supported in a model with dynamic "
                       "dimensions (" +
                       llvm::join(dyn.names, ", ") + ") yet");
  }
  // Quantization (a float cast to 8-bit integers) and integer products (8-bit
  // integers widened to int32 or float64) have CPU kernels only.
  if (cuda) {
    std::string quantized;
    auto element = [](mlir::Type t) {
      auto shaped = mlir::dyn_cast<mlir::ShapedType>(t);
      return shaped ? shaped.getElementType() : t;
    };
    (*imported->module)->walk([&](mlir::Operation *op) {
      if (op->getName().getStringRef() != "mx.cast" ||
          op->getNumOperands() != 1 || op->getNumResults() != 1 ||
          !quantized.empty())
        return;
      mlir::Type from = element(op->getOperand(0).getType()),
                 to = element(op->getResult(0).getType());
      if ((mlir::isa<mlir::FloatType>(from) && to.isInteger(8)) ||
          (from.isInteger(8) && (to.isInteger(32) || to.isF64()))) {
        quantized = "8-bit integer arithmetic";
        if (auto name = mlir::dyn_cast<mlir::NameLoc>(op->getLoc()))
          quantized += " (node '" + name.getName().str() + "')";
      }
    });
    if (!quantized.empty())
      return makeError("'" + options.modelPath + "': " + quantized +
                       ": quantized models are not supported for "
                       "--target=cuda yet; compile them for the CPU");
  }
  if (dyn.names.empty() && !options.dimBounds.empty())
    return makeError("--dim '" + options.dimBounds.begin()->first +
                     "': the model has no dynamic dimensions");
  if (dyn.names.empty() && !options.buckets.empty())
    return makeError("--buckets: the model has no dynamic dimensions");
  if (options.kvCacheInPlace && (dyn.names.empty() || dyn.isBatchOnly()))
    return makeError("'" + options.modelPath +
                     "': --kv-cache=in-place: the caches' axis must be a "
                     "dynamic dimension other than a leading batch (an ONNX "
                     "dim_param such as past, bounded with --dim past=0..N)");
  // The graph as MLIR or Graphviz, and the summary, show the model at 1.
  bool code = options.emit != EmitKind::MLIR && options.emit != EmitKind::Dot;
  if (!dyn.names.empty() && code && !options.summary) {
    // One leading batch: a variant per bucket; anything else: dynamic
    // extents in the code.
    bool fixed = false;
    if (auto err = dyn.isBatchOnly()
                       ? compileDynamic(context, options, dyn, *target,
                                        *imported, fixed)
                       : compileSymbolic(context, options, dyn, *target, fixed))
      return err;
    if (!fixed)
      return llvm::Error::success();
  }
  compileStage("import", options.train.enabled
                             ? "deriving the training functions"
                             : "graph passes");
  mlir::ModuleOp module = *imported->module;
  ModelSpec &spec = imported->spec;
  spec.cuda = cuda;
  spec.name = options.modelName.empty() ? modelNameForPath(options.outputPath)
                                        : options.modelName;
  if (options.train.enabled)
    if (auto err = addTrainingFunctions(options, module, spec))
      return err;

  if (options.train.enabled)
    compileStage("deriving the training functions", "graph passes");
  SpecParameterStore params(spec);
  if (auto err = runGraphPipeline(module, options, params))
    return err;
  compileStage("graph passes", "lowering (" + options.target + ")");
  if (options.summary) {
    llvm::outs() << forwardSummary(module, dataInputNames(options),
                                   spec.inputs.size());
    llvm::outs().flush();
    if (options.outputPath.empty())
      return llvm::Error::success();
  }
  if (options.emit == EmitKind::MLIR || options.emit == EmitKind::Header ||
      options.emit == EmitKind::Dot) {
    llvm::Error err = emitGraph(module, spec, options);
    compileStage("writing");
    return err;
  }
  if (auto err = runTargetPipeline(module, *target, options, params, spec))
    return err;
  if (options.weightsFile && spec.weightsSize > 0) {
    spec.weightsFile =
        llvm::sys::path::stem(options.outputPath).str() + ".weights";
    spec.weightsFileHash = weightsHash(spec);
  }
  return emitLibrary({module}, spec, options);
}
