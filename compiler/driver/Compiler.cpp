// SPDX-License-Identifier: Apache-2.0
// Drives a model through import, the graph passes, a target's pipeline and
// codegen, and writes the requested outputs (each atomically, so a failure
// leaves none). Every rewrite of the IR is a pass (passes/); this file only
// schedules them and keeps the ModelSpec in step.
#include "compiler/driver/Compiler.h"
#include "compiler/codegen/WeightsWriter.h"
#include "compiler/driver/GraphReport.h"
#include "compiler/driver/SpecParameterStore.h"
#include "compiler/frontends/mxnet/Importer.h"
#include "compiler/frontends/onnx/Importer.h"
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"
#include "passes/graph/BatchRows.h"
#include "passes/lowering/DynamicExtents.h"

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
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>

using namespace mxc;
using llvm::Twine;

static llvm::Error makeError(const Twine &message) {
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

/// Reads the model file (ONNX by its extension, else MXNet) into the mx
/// dialect, refusing the options of the other frontend.
static llvm::Expected<ImportedModel> importModel(
    mlir::MLIRContext &context, const CompileOptions &options,
    const std::map<std::string, int64_t> &dimValues = {},
    const std::map<std::string, std::vector<std::string>> &dynamicAxes = {}) {
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

/// mxc --train: imports the model again with its loss heads' labels as
/// inputs (a private @train_forward), runs the training pipeline (which
/// builds @grad and @train_step beside @forward and drops @train_forward),
/// and describes the new functions in `spec`.
static llvm::Error addTrainingFunctions(const CompileOptions &options,
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

/// Adds a target's pipeline: mx ops to the LLVM dialect, ready for
/// translation. `constants`: the parameters to treat as constant, or null.
using TargetPipeline = void (*)(mlir::OpPassManager &pm,
                                const CompileOptions &options,
                                ParameterStore *constants);

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

/// The graph passes on mx ops (BatchNorm folding for an inference build with
/// fusion), their parameter data in `params`.
static llvm::Error runGraphPipeline(mlir::ModuleOp module,
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

/// The target's pipeline on `module`; the memory plan's arena size goes into
/// `spec`. An inference library's parameters (`params`) are read-only
/// weights for the life of the process, which kernels may keep packed
/// copies of; a training library updates its own.
static llvm::Error runTargetPipeline(mlir::ModuleOp module,
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

/// Translates the lowered module to LLVM IR and writes it as `options.emit`
/// says; a library gets its header beside it.
static llvm::Error emitLibrary(llvm::ArrayRef<mlir::ModuleOp> modules,
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

//===----------------------------------------------------------------------===//
// Dynamic batch dimensions (docs/dynamic-shapes.md)
//===----------------------------------------------------------------------===//

namespace {

/// A model's dynamic dimensions as the command line and the model file
/// give them.
struct DynamicDims {
  /// Input name -> each axis's dimension name ("" where static).
  std::map<std::string, std::vector<std::string>> inputs;
  /// The names, in order of first appearance.
  std::vector<std::string> names;
  /// Whether input `name` carries the batch (a dimension on its axis 0).
  bool isBatched(const std::string &name) const {
    auto axes = inputs.find(name);
    return axes != inputs.end() && !axes->second[0].empty();
  }
  /// Whether they are one dimension, on axis 0 wherever it appears: a
  /// batch that variants may serve.
  bool isBatchOnly() const {
    return names.size() == 1 && llvm::all_of(inputs, [](const auto &input) {
             return llvm::all_of(
                 llvm::drop_begin(input.second),
                 [](const std::string &n) { return n.empty(); });
           });
  }
  /// Whether the command line asked for them (--input with names): then a
  /// dynamic dimension mxc cannot serve is an error, while one the model
  /// file leaves open is fixed at 1 with a note.
  bool requested = false;
};

/// A dynamic batch dimension and the extents its forward is compiled for.
struct BatchPlan {
  DimSpec dim;
  std::vector<int64_t> buckets; // increasing, the first 1
};

} // namespace

/// The dynamic dimensions of `options`' --input and of `imported`'s open
/// ones.
static DynamicDims dynamicDims(const CompileOptions &options,
                               const ImportedModel &imported) {
  DynamicDims dyn;
  auto add = [&](const std::string &input, size_t axis,
                 const std::string &name) {
    std::vector<std::string> &axes = dyn.inputs[input];
    axes.resize(std::max(axes.size(), axis + 1));
    axes[axis] = name;
    if (!llvm::is_contained(dyn.names, name))
      dyn.names.push_back(name);
  };
  for (const auto &[input, axes] : options.symbolicInputs)
    for (const auto &[axis, token] : llvm::enumerate(axes))
      if (!llvm::all_of(token, llvm::isDigit)) {
        add(input, axis,
            token == "?" ? input + "_" + std::to_string(axis) : token);
        dyn.requested = true;
      }
  for (const auto &[input, axes] : imported.openDims)
    for (const auto &[axis, name] : llvm::enumerate(axes))
      if (!name.empty())
        add(input, axis, name);
  return dyn;
}

/// Imports the model with every dynamic dimension of `dyn` at `value`:
/// --input's named axes in its shapes, the ONNX file's open dimensions
/// through the importer's dimValues.
/// `options` with --input's named axes at `value` (in `at.inputShapes`),
/// their names in `dynamicAxes`.
static CompileOptions optionsAt(
    const CompileOptions &options, int64_t value,
    std::map<std::string, std::vector<std::string>> *dynamicAxes = nullptr) {
  CompileOptions at = options;
  at.symbolicInputs.clear();
  for (const auto &[input, axes] : options.symbolicInputs) {
    std::vector<int64_t> shape;
    std::vector<std::string> names;
    for (const auto &[axis, token] : llvm::enumerate(axes)) {
      int64_t extent = value;
      bool isStatic = llvm::all_of(token, llvm::isDigit);
      if (isStatic)
        llvm::StringRef(token).getAsInteger(10, extent);
      shape.push_back(extent);
      names.push_back(isStatic       ? ""
                      : token == "?" ? input + "_" + std::to_string(axis)
                                     : token);
    }
    at.inputShapes[input] = shape;
    if (dynamicAxes)
      (*dynamicAxes)[input] = names;
  }
  return at;
}

static llvm::Expected<ImportedModel> importAt(mlir::MLIRContext &context,
                                              const CompileOptions &options,
                                              const DynamicDims &dyn,
                                              int64_t value) {
  std::map<std::string, std::vector<std::string>> dynamicAxes;
  CompileOptions at = optionsAt(options, value, &dynamicAxes);
  std::map<std::string, int64_t> dimValues;
  for (const std::string &name : dyn.names)
    dimValues[name] = value;
  return importModel(context, at, dimValues, dynamicAxes);
}

/// Why mxc cannot serve `dyn` as a dynamic batch dimension, or "" when it
/// can.
static std::string unsupportedDims(const CompileOptions &options,
                                   const DynamicDims &dyn) {
  if (dyn.names.size() > 1)
    return "dimensions " + dyn.names[0] + " and " + dyn.names[1] +
           " are both dynamic; mxc serves one dynamic (batch) dimension so "
           "far";
  for (const auto &[input, axes] : dyn.inputs)
    for (size_t axis = 1; axis < axes.size(); ++axis)
      if (!axes[axis].empty())
        return "dimension " + axes[axis] + " is axis " + std::to_string(axis) +
               " of input '" + input +
               "'; only a leading (batch) axis can be dynamic so far";
  if (options.target != "cpu")
    return "--target=" + options.target + " takes a fixed batch so far";
  return "";
}

/// What becomes of dynamic dimensions `dyn` that mxc cannot serve, `why`:
/// an error when the command line asked for them, else (setting `fixed`)
/// a note that they are fixed at 1.
static llvm::Error fixDimsAtOne(const CompileOptions &options,
                                const DynamicDims &dyn, const std::string &why,
                                bool &fixed) {
  bool several = dyn.names.size() > 1;
  if (dyn.requested)
    return makeError("'" + options.modelPath + "': dynamic dimension" +
                     (several ? "s " : " ") + llvm::join(dyn.names, ", ") +
                     ": " + why);
  if (!options.quiet)
    llvm::errs() << "mxc: note: '" << options.modelPath
                 << "': " << (several ? "dimensions " : "dimension ")
                 << llvm::join(dyn.names, ", ") << (several ? " are" : " is")
                 << " fixed at 1: " << why
                 << " (give the shape with --input to choose the extent)\n";
  fixed = true;
  return llvm::Error::success();
}

/// The extents the forward of dimension `dim` is compiled for: --buckets or
/// 1, 8, 64, those above its bound left out and the bound added.
static std::vector<int64_t> bucketsFor(const CompileOptions &options,
                                       const DimSpec &dim) {
  std::vector<int64_t> wanted = options.buckets.empty()
                                    ? std::vector<int64_t>{1, 8, 64}
                                    : options.buckets;
  std::vector<int64_t> buckets;
  for (int64_t b : wanted)
    if (dim.max < 0 || b <= dim.max)
      buckets.push_back(b);
  if (dim.max > 1 && buckets.back() < dim.max && dim.max < wanted.back())
    buckets.push_back(dim.max);
  return buckets;
}

/// The forward of one batch extent: its module (lowered unless only the
/// header is written), spec and which outputs carry the batch.
struct BatchVariant {
  int64_t batch;
  ImportedModel model;
  llvm::SmallVector<bool> batchedOutputs;
};

/// Runs the graph passes on `variant`'s module and follows the batch
/// through its forward; `mixing` says where rows meet when they do.
static llvm::Error analyzeVariant(BatchVariant &variant, const DynamicDims &dyn,
                                  const CompileOptions &options,
                                  RowMixing &mixing, bool &rowsApart) {
  ModelSpec &spec = variant.model.spec;
  SpecParameterStore params(spec);
  if (auto err = runGraphPipeline(*variant.model.module, options, params))
    return err;
  auto fn = variant.model.module->lookupSymbol<mlir::func::FuncOp>(
      kForwardFunctionName);
  llvm::SmallVector<bool> batchedArgs(fn.getNumArguments(), false);
  for (const auto &[i, input] : llvm::enumerate(spec.inputs)) {
    batchedArgs[i] = dyn.isBatched(input.name);
  }
  auto batched = batchedResults(fn, batchedArgs, variant.batch, mixing);
  rowsApart = succeeded(batched);
  if (rowsApart)
    variant.batchedOutputs = *batched;
  return llvm::Error::success();
}

/// The forward's variants' common spec: `first`'s, with the batch
/// dimension in the shapes of batched inputs and outputs.
static llvm::Expected<ModelSpec>
variantSpec(std::vector<BatchVariant> &variants, const BatchPlan &plan,
            const DynamicDims &dyn, const CompileOptions &options) {
  ModelSpec spec = variants.front().model.spec;
  for (const BatchVariant &v : variants) {
    const ModelSpec &other = v.model.spec;
    bool same = other.params.size() == spec.params.size() &&
                other.outputs.size() == spec.outputs.size() &&
                v.batchedOutputs == variants.front().batchedOutputs;
    for (size_t i = 0; same && i < spec.params.size(); ++i)
      same = other.params[i].name == spec.params[i].name &&
             other.params[i].shape == spec.params[i].shape;
    for (size_t i = 0; same && i < spec.outputs.size(); ++i) {
      std::vector<int64_t> a = spec.outputs[i].shape,
                           b = other.outputs[i].shape;
      if (v.batchedOutputs[i] && !a.empty() && !b.empty())
        a[0] = b[0] = 0;
      same = a == b;
    }
    if (!same)
      return makeError("'" + options.modelPath +
                       "': the model's parameters "
                       "or outputs differ between batch extents " +
                       Twine(variants.front().batch) + " and " +
                       Twine(v.batch) + ", so " + plan.dim.name +
                       " cannot be dynamic");
  }
  for (TensorSpec &input : spec.inputs) {
    if (dyn.isBatched(input.name))
      input.shape[0] = dimExtent(0);
  }
  // The training functions: a tensor has the batch where its leading
  // extent is each variant's batch (so it takes two to tell).
  if (spec.isTraining() && variants.size() < 2)
    return makeError("'" + options.modelPath + "': dynamic dimension " +
                     plan.dim.name +
                     ": a --train library needs at least two batch extents "
                     "(--buckets), it has " +
                     Twine(variants.size()));
  for (auto [f, fn] : llvm::enumerate(spec.functions)) {
    auto batchOf = [&](auto tensorsOf) -> llvm::Error {
      std::vector<TensorSpec> &tensors = tensorsOf(fn);
      for (auto [t, tensor] : llvm::enumerate(tensors)) {
        bool batched = !tensor.shape.empty(), same = true;
        for (BatchVariant &v : variants) {
          const std::vector<int64_t> &shape =
              tensorsOf(v.model.spec.functions[f])[t].shape;
          batched = batched && !shape.empty() && shape[0] == v.batch &&
                    llvm::equal(llvm::drop_begin(shape),
                                llvm::drop_begin(tensor.shape));
          same = same && shape == tensor.shape;
        }
        if (batched)
          tensor.shape[0] = dimExtent(0);
        else if (!same)
          return makeError("'" + options.modelPath + "': '" + tensor.name +
                           "' of " + fn.name +
                           " changes shape with the batch other than on its "
                           "leading axis, so " +
                           plan.dim.name + " cannot be dynamic");
      }
      return llvm::Error::success();
    };
    if (auto err = batchOf([](FunctionSpec &f) -> std::vector<TensorSpec> & {
          return f.inputs;
        }))
      return std::move(err);
    if (auto err = batchOf([](FunctionSpec &f) -> std::vector<TensorSpec> & {
          return f.outputs;
        }))
      return std::move(err);
  }
  for (const auto &[output, batched] :
       llvm::zip(spec.outputs, variants.front().batchedOutputs))
    if (batched)
      output.shape[0] = dimExtent(0);
  spec.dims = {plan.dim};
  spec.batchDim = 0;
  for (const BatchVariant &v : variants)
    spec.variants.push_back({v.batch, v.model.spec.scratchSize});
  return spec;
}

/// Where the memory plan of the variant for `batch` rows is written
/// before mergePlanJson gathers them.
static std::string planJsonPart(const CompileOptions &options, int64_t batch) {
  return options.memoryPlanJson + ".b" + std::to_string(batch) + ".part";
}

/// --memory-plan-json of a library with variants: one object per variant,
/// {"dim": N, "batch": b, "plans": [the plans of its functions]}.
static llvm::Error mergePlanJson(const CompileOptions &options,
                                 const BatchPlan &plan,
                                 const std::vector<BatchVariant> &variants) {
  llvm::json::Array merged;
  for (const BatchVariant &v : variants) {
    std::string part = planJsonPart(options, v.batch);
    auto text = llvm::MemoryBuffer::getFile(part);
    if (!text)
      return makeError("cannot read '" + part + "'");
    auto plans = llvm::json::parse((*text)->getBuffer());
    llvm::sys::fs::remove(part);
    if (!plans)
      return plans.takeError();
    merged.push_back(llvm::json::Object{{"dim", plan.dim.name},
                                        {"batch", v.batch},
                                        {"plans", std::move(*plans)}});
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(merged))) << "\n";
  return writeFileAtomically(options.memoryPlanJson, text);
}

/// Compiles a model with a dynamic batch dimension: the forward once per
/// bucket, each through the whole pipeline, after proving that no op mixes
/// the batch's rows. `atOne` is the import with the dimension at 1. Sets
/// `fixed` instead (with a note) when the model file's open dimension
/// cannot be served and the command line did not ask for it.
static llvm::Error compileDynamic(mlir::MLIRContext &context,
                                  const CompileOptions &options,
                                  const DynamicDims &dyn, TargetPipeline target,
                                  ImportedModel &atOne, bool &fixed) {
  fixed = false;
  auto fixAtOne = [&](const std::string &why) {
    return fixDimsAtOne(options, dyn, why, fixed);
  };
  if (std::string why = unsupportedDims(options, dyn); !why.empty())
    return fixAtOne(why);
  for (const auto &[name, bounds] : options.dimBounds)
    if (name != dyn.names[0])
      return makeError("--dim '" + name +
                       "': the model has no dynamic "
                       "dimension of that name (it has " +
                       dyn.names[0] + ")");
  BatchPlan plan;
  plan.dim.name = dyn.names[0];
  if (auto bounds = options.dimBounds.find(plan.dim.name);
      bounds != options.dimBounds.end())
    std::tie(plan.dim.min, plan.dim.max) = bounds->second;
  plan.buckets = bucketsFor(options, plan.dim);

  // Largest first: a wide batch shows a broadcast that mixes rows, which
  // one row cannot.
  std::vector<BatchVariant> variants;
  std::vector<int64_t> sizes(plan.buckets.rbegin(), plan.buckets.rend());
  // One row proves nothing: a one-row variant alone that serves more rows is
  // proven on an import of two, which is not compiled.
  bool probe =
      plan.buckets.back() == 1 && plan.dim.max != 0 && plan.dim.max != 1;
  if (probe)
    sizes.insert(sizes.begin(), 2);
  for (int64_t b : sizes) {
    bool probeOnly = probe && b == 2;
    BatchVariant variant{b, ImportedModel(), {}};
    if (b == 1) {
      variant.model = std::move(atOne);
    } else {
      auto imported = importAt(context, options, dyn, b);
      if (!imported) {
        // A model exported for one batch (a reshape to its extent) takes
        // no other.
        std::string why = "the model does not take " + plan.dim.name + "=" +
                          std::to_string(b) + ": " +
                          toString(imported.takeError());
        if (!variants.empty())
          return makeError(why);
        return fixAtOne(why);
      }
      variant.model = std::move(*imported);
    }
    // A training library's functions at this batch: run by the runtime
    // only on batches of exactly this extent (their rows meet).
    if (options.train.enabled)
      if (auto err = addTrainingFunctions(
              optionsAt(options, b), *variant.model.module, variant.model.spec))
        return err;
    variant.model.spec.name = options.modelName.empty()
                                  ? modelNameForPath(options.outputPath)
                                  : options.modelName;
    RowMixing mixing;
    bool rowsApart = false;
    if (auto err = analyzeVariant(variant, dyn, options, mixing, rowsApart))
      return err;
    if (!rowsApart) {
      std::string why;
      if (!mixing.op) {
        why = "output '" + variant.model.spec.outputs[mixing.output].name +
              "' " + mixing.reason;
      } else {
        std::string node = "an operation";
        if (auto name = mlir::dyn_cast<mlir::NameLoc>(mixing.op->getLoc()))
          node = "node '" + name.getName().str() + "'";
        why = node + " (" + mixing.op->getName().getStringRef().str() +
              ") mixes the rows of the batch: " + mixing.reason;
      }
      if (!variants.empty())
        return makeError("'" + options.modelPath + "': dynamic dimension " +
                         plan.dim.name + ": " + why);
      if (b == 1 && !dyn.requested) { // the static build's import, afresh
        auto imported = importAt(context, options, dyn, 1);
        if (!imported)
          return imported.takeError();
        atOne = std::move(*imported);
      }
      return fixAtOne(why);
    }
    if (probeOnly)
      continue;
    compileStage("graph passes (" + plan.dim.name + "=" + std::to_string(b) +
                     ")",
                 "lowering");
    if (options.emit != EmitKind::Header) {
      // Each variant's memory plan: printed under a line naming it, and
      // written to a file of its own, merged below.
      CompileOptions planned = options;
      if (options.printMemoryPlan)
        llvm::outs() << "variant " << plan.dim.name << "=" << b << ":\n";
      if (!options.memoryPlanJson.empty())
        planned.memoryPlanJson = planJsonPart(options, b);
      SpecParameterStore params(variant.model.spec);
      if (auto err = runTargetPipeline(*variant.model.module, target, planned,
                                       params, variant.model.spec))
        return err;
    }
    variants.push_back(std::move(variant));
  }
  std::reverse(variants.begin(), variants.end());
  if (!options.memoryPlanJson.empty() && options.emit != EmitKind::Header)
    if (auto err = mergePlanJson(options, plan, variants))
      return err;
  auto spec = variantSpec(variants, plan, dyn, options);
  if (!spec)
    return spec.takeError();
  spec->scratchSize = -1; // the variants' own
  if (options.weightsFile && spec->weightsSize > 0) {
    spec->weightsFile =
        llvm::sys::path::stem(options.outputPath).str() + ".weights";
    spec->weightsFileHash = weightsHash(*spec);
  }
  if (options.emit == EmitKind::Header)
    return writeFileAtomically(options.outputPath,
                               generateHeader(*spec, options.modelPath));
  std::vector<mlir::ModuleOp> modules;
  for (BatchVariant &v : variants)
    modules.push_back(*v.model.module);
  return emitLibrary(modules, *spec, options);
}

/// Why the forward of `module` cannot be compiled with dynamic extents in
/// its code, or "" when it can: the first op whose lowering does not take
/// them yet.
static std::string symbolicBlocker(mlir::ModuleOp module) {
  std::string why;
  module.walk([&](mlir::Operation *op) {
    if (!isa_and_nonnull<mx::MxDialect>(op->getDialect()) ||
        lowering::lowersWithDynamicExtents(op))
      return mlir::WalkResult::advance();
    std::string node = "an operation";
    if (auto name = mlir::dyn_cast<mlir::NameLoc>(op->getLoc()))
      node = "node '" + name.getName().str() + "'";
    why = node + " (" + op->getName().getStringRef().str() +
          ") does not take dynamic extents yet";
    return mlir::WalkResult::interrupt();
  });
  return why;
}

/// Compiles a model whose dynamic dimensions are not one leading batch
/// (height and width, several dimensions): the forward once, its extents
/// dynamic in the code, each output's extents derived by a shape function
/// (docs/dynamic-shapes.md). Sets `fixed` instead, as compileDynamic does,
/// when the model cannot be served and the command line did not ask.
static llvm::Error compileSymbolic(mlir::MLIRContext &context,
                                   const CompileOptions &options,
                                   const DynamicDims &dyn,
                                   TargetPipeline target, bool &fixed) {
  fixed = false;
  auto fixAtOne = [&](const std::string &why) {
    return fixDimsAtOne(options, dyn, why, fixed);
  };
  if (options.train.enabled)
    return fixAtOne("--train libraries take fixed shapes so far");
  if (options.target != "cpu")
    return fixAtOne("--target=" + options.target +
                    " takes fixed shapes so far");
  for (const auto &[name, bounds] : options.dimBounds)
    if (!llvm::is_contained(dyn.names, name))
      return makeError("--dim '" + name +
                       "': the model has no dynamic dimension of that name "
                       "(it has " +
                       llvm::join(dyn.names, ", ") + ")");
  if (!options.buckets.empty())
    return makeError("--buckets: only a dynamic batch alone is compiled per "
                     "bucket; the model's dynamic dimensions are " +
                     llvm::join(dyn.names, ", "));
  auto imported = importAt(context, options, dyn, mlir::ShapedType::kDynamic);
  if (!imported)
    return fixAtOne(toString(imported.takeError()));
  ModelSpec &spec = imported->spec;
  spec.name = options.modelName.empty() ? modelNameForPath(options.outputPath)
                                        : options.modelName;
  SpecParameterStore params(spec);
  if (auto err = runGraphPipeline(*imported->module, options, params))
    return err;
  if (std::string why = symbolicBlocker(*imported->module); !why.empty())
    return fixAtOne(why);
  // The dimensions: the free ones by name, then one derived per dynamic
  // output extent.
  for (const std::string &name : dyn.names) {
    DimSpec d;
    d.name = name;
    if (auto bounds = options.dimBounds.find(name);
        bounds != options.dimBounds.end())
      std::tie(d.min, d.max) = bounds->second;
    spec.dims.push_back(d);
  }
  auto fn =
      imported->module->lookupSymbol<mlir::func::FuncOp>(kForwardFunctionName);
  mlir::Builder b(&context);
  llvm::SmallVector<mlir::Attribute> dimsAttr;
  auto axesOf = [&](mlir::Type type, auto dimOf) {
    llvm::SmallVector<int64_t> axes;
    auto shaped = mlir::cast<mlir::ShapedType>(type);
    for (int64_t axis = 0; axis < shaped.getRank(); ++axis)
      axes.push_back(shaped.isDynamicDim(axis) ? dimOf(axis) : -1);
    dimsAttr.push_back(b.getDenseI64ArrayAttr(axes));
    return axes;
  };
  for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes())) {
    if (i >= spec.inputs.size()) { // parameters
      dimsAttr.push_back(b.getDenseI64ArrayAttr({}));
      continue;
    }
    TensorSpec &input = spec.inputs[i];
    const std::vector<std::string> &names = dyn.inputs.at(input.name);
    auto axes = axesOf(type, [&](int64_t axis) -> int64_t {
      auto at = llvm::find(dyn.names, names.at(axis));
      return at - dyn.names.begin();
    });
    for (auto [axis, d] : llvm::enumerate(axes))
      if (d >= 0)
        input.shape[axis] = dimExtent(d);
  }
  // The outputs' dynamic extents: mxc-shape-functions says which
  // dimension each is, an input's or one it derives.
  for (mlir::Type type : fn.getResultTypes())
    axesOf(type, [](int64_t) { return 0; });
  fn->setAttr("mxc.dims", b.getArrayAttr(dimsAttr));
  fn->setAttr("mxc.num_dims", b.getI64IntegerAttr(spec.dims.size()));
  llvm::SmallVector<mlir::Attribute> names;
  for (const DimSpec &d : spec.dims)
    names.push_back(b.getStringAttr(d.name));
  (*imported->module)->setAttr("mxc.dim_names", b.getArrayAttr(names));
  spec.shapeFunction = true;
  size_t nIn = fn.getNumArguments(); // fn is gone once lowered
  compileStage("graph passes", "lowering (" + options.target + ")");
  if (auto err =
          runTargetPipeline(*imported->module, target, options, params, spec))
    return err;
  mlir::Operation *lowered =
      imported->module->lookupSymbol(kForwardFunctionName);
  auto loweredDims = lowered->getAttrOfType<mlir::ArrayAttr>("mxc.dims");
  auto numDims = lowered->getAttrOfType<mlir::IntegerAttr>("mxc.num_dims");
  for (auto [r, output] : llvm::enumerate(spec.outputs)) {
    auto axes = mlir::cast<mlir::DenseI64ArrayAttr>(loweredDims[nIn + r]);
    for (auto [axis, d] : llvm::enumerate(axes.asArrayRef())) {
      if (d < 0)
        continue;
      output.shape[axis] = dimExtent(d);
      for (int64_t k = spec.dims.size(); k <= d; ++k) {
        DimSpec derived;
        derived.name = output.name + "_" + std::to_string(axis);
        derived.min = 0;
        derived.derived = true;
        spec.dims.push_back(derived);
      }
    }
  }
  if (int64_t(spec.dims.size()) != numDims.getInt())
    return makeError("'" + options.modelPath + "': the lowered forward has " +
                     Twine(numDims.getInt()) + " dimensions, expected " +
                     Twine(spec.dims.size()));
  if (options.emit == EmitKind::Header)
    return writeFileAtomically(options.outputPath,
                               generateHeader(spec, options.modelPath));
  if (options.weightsFile && spec.weightsSize > 0) {
    spec.weightsFile =
        llvm::sys::path::stem(options.outputPath).str() + ".weights";
    spec.weightsFileHash = weightsHash(spec);
  }
  return emitLibrary({*imported->module}, spec, options);
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
  if (dyn.names.empty() && !options.dimBounds.empty())
    return makeError("--dim '" + options.dimBounds.begin()->first +
                     "': the model has no dynamic dimensions");
  if (dyn.names.empty() && !options.buckets.empty())
    return makeError("--buckets: the model has no dynamic dimensions");
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
