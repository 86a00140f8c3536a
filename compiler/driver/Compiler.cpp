// SPDX-License-Identifier: Apache-2.0
// Drives a model through import, the mx -> LLVM pipeline and codegen, and
// writes the requested outputs (each atomically, so a failure leaves none).
#include "compiler/driver/Compiler.h"
#include "compiler/driver/FoldBatchNorm.h"
#include "compiler/frontends/mxnet/Importer.h"
#include "compiler/frontends/onnx/Importer.h"
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

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

std::optional<EmitKind> mxc::emitKindForPath(llvm::StringRef path) {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  if (ext == ".so")
    return EmitKind::SharedLibrary;
  if (ext == ".a")
    return EmitKind::StaticArchive;
  if (ext == ".o")
    return EmitKind::Object;
  if (ext == ".ll")
    return EmitKind::LLVMIR;
  if (ext == ".mlir")
    return EmitKind::MLIR;
  if (ext == ".h")
    return EmitKind::Header;
  return std::nullopt;
}

std::string mxc::modelNameForPath(llvm::StringRef path) {
  llvm::StringRef stem = llvm::sys::path::stem(path);
  if (stem.starts_with("lib") && stem.size() > 3)
    stem = stem.drop_front(3);
  std::string name;
  for (char c : stem)
    name += llvm::isAlnum(c) ? c : '_';
  if (name.empty() || llvm::isDigit(name[0]))
    name = "model_" + name;
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

/// mxc --train: imports the model again with its loss heads' labels as
/// inputs, derives the gradient (mxc-gradient) and builds @grad and
/// @train_step (mxc-train-step) beside @forward, and describes them in
/// `spec` (functions, optimizer states, trainable parameters).
static llvm::Error addTrainingFunctions(mlir::MLIRContext &context,
                                        const CompileOptions &options,
                                        mlir::ModuleOp module,
                                        ModelSpec &spec) {
  if (llvm::sys::path::extension(options.modelPath) == ".onnx")
    return makeError("'" + options.modelPath +
                     "': --train is supported for MXNet models");
  mxnet::ImportOptions importOptions;
  importOptions.inputShapes = options.inputShapes;
  importOptions.paramsPath = options.paramsPath;
  importOptions.withLabels = true;
  importOptions.funcName = "train_forward";
  importOptions.initializeParams = true;
  importOptions.initSeed = options.train.initSeed;
  auto training = mxnet::importModel(context, options.modelPath, importOptions);
  if (!training)
    return training.takeError();
  auto trainFn = *(*training->module).getOps<mlir::func::FuncOp>().begin();
  trainFn->moveBefore(module.getBody(), module.getBody()->end());
  const ModelSpec &trainSpec = training->spec;

  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    llvm::raw_string_ostream os(diagnostics);
    os << d.getLocation() << ": " << d.str() << "\n";
    return mlir::success();
  });
  TrainOptions t = options.train;
  if (t.rescaleGrad == 0.0) {
    int64_t batch =
        trainSpec.inputs.empty() || trainSpec.inputs[0].shape.empty()
            ? 1
            : trainSpec.inputs[0].shape[0];
    t.rescaleGrad = 1.0 / double(std::max<int64_t>(batch, 1));
  }
  std::string gradWrt;
  for (const std::string &n : t.gradWrt)
    gradWrt += (gradWrt.empty() ? "" : ",") + n;
  auto num = [](double v) { // exact: %.17g round-trips a double
    char text[32];
    std::snprintf(text, sizeof(text), "%.17g", v);
    return std::string(text);
  };
  std::string stepOptions =
      "optimizer=" + t.optimizer + " wd=" + num(t.wd) +
      " momentum=" + num(t.momentum) + " beta1=" + num(t.beta1) +
      " beta2=" + num(t.beta2) + " epsilon=" + num(t.epsilon) +
      " rho=" + num(t.rho) + " rescale-grad=" + num(t.rescaleGrad) +
      " clip-gradient=" + num(t.clipGradient);
  mlir::PassManager pm(&context);
  if (failed(buildTrainingPipeline(pm, gradWrt, stepOptions)) ||
      failed(pm.run(module)))
    return makeError("'" + options.modelPath +
                     "': deriving the training functions failed:\n" +
                     diagnostics);

  module.lookupSymbol<mlir::func::FuncOp>("train_forward").erase();
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

llvm::Error mxc::compile(const CompileOptions &options) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mx::MxDialect>();
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string name = options.modelName.empty()
                         ? modelNameForPath(options.outputPath)
                         : options.modelName;
  auto importModel = [&]() -> llvm::Expected<ImportedModel> {
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
      return onnx::importModel(context, options.modelPath, importOptions);
    }
    if (!options.boundInputs.empty())
      return makeError("--bind is for ONNX models");
    if (!options.sequenceInputs.empty() || !options.absentInputs.empty())
      return makeError("--input NAME=seq(...) and NAME=none are for the "
                       "sequence and optional inputs of ONNX models");
    mxnet::ImportOptions importOptions;
    importOptions.inputShapes = options.inputShapes;
    importOptions.paramsPath = options.paramsPath;
    importOptions.initializeParams = options.train.enabled;
    importOptions.initSeed = options.train.initSeed;
    return mxnet::importModel(context, options.modelPath, importOptions);
  };
  auto imported = importModel();
  if (!imported)
    return imported.takeError();
  ModelSpec spec = std::move(imported->spec);
  spec.name = name;
  mlir::ModuleOp module = *imported->module;
  if (options.train.enabled)
    if (auto err = addTrainingFunctions(context, options, module, spec))
      return err;

  // An inference library's BatchNorms after convolutions go into the
  // convolutions' weights (a fusion: --no-fusion keeps them). --emit=mlir
  // shows the graph after it.
  if (!options.train.enabled && options.fusion)
    foldBatchNormIntoConvolutions(module, spec);

  if (options.emit == EmitKind::MLIR) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os);
    return writeFileAtomically(options.outputPath, text);
  }
  if (options.emit == EmitKind::Header)
    return writeFileAtomically(options.outputPath,
                               generateHeader(spec, options.modelPath));

  // An inference library's parameters are read-only weights for the life of
  // the process: kernels may keep packed copies of them (see
  // KernelsToCallsPass). Training libraries update theirs.
  if (!options.train.enabled)
    if (auto forward = module.lookupSymbol<mlir::func::FuncOp>("forward"))
      for (size_t
               i = spec.inputs.size(),
               end = std::min<size_t>(spec.inputs.size() + spec.params.size(),
                                      forward.getNumArguments());
           i < end; ++i)
        forward.setArgAttr(i, kConstantArgAttr, mlir::UnitAttr::get(&context));

  // Lower to the LLVM dialect, collecting diagnostics for the message.
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    llvm::raw_string_ostream os(diagnostics);
    os << d.getLocation() << ": " << d.str() << "\n";
    return mlir::success();
  });
  mlir::PassManager pm(&context);
  if (options.configurePassManager && failed(options.configurePassManager(pm)))
    return makeError("invalid pass manager options");
  if (options.printIRAfterAll) {
    context.disableMultithreading();
    pm.enableIRPrinting([](mlir::Pass *, mlir::Operation *) { return false; },
                        [](mlir::Pass *, mlir::Operation *) { return true; },
                        /*printModuleScope=*/true,
                        /*printAfterOnlyOnChange=*/false);
  }
  CpuPipelineOptions pipelineOptions;
  pipelineOptions.memoryPlan = options.memoryPlan;
  pipelineOptions.printMemoryPlan = options.printMemoryPlan;
  pipelineOptions.memoryPlanJson = options.memoryPlanJson;
  pipelineOptions.fuseElementwise = options.fusion;
  pipelineOptions.kernels = options.kernels;
  pipelineOptions.parallelMinWork = options.parallelMinWork;
  pipelineOptions.convLayout = options.convLayout;
  buildCpuPipeline(pm, pipelineOptions);
  if (failed(pm.run(module)))
    return makeError("'" + options.modelPath + "': lowering failed:\n" +
                     diagnostics);

  if (auto arena = module->getAttrOfType<mlir::IntegerAttr>("mxc.arena_size")) {
    spec.scratchSize = arena.getInt();
    module->removeAttr("mxc.arena_size");
  }

  // The frontends' argument names and roles (mx.name, mx.param, ...) have
  // served their purpose; LLVM translation would warn about each, printing
  // the whole function every time.
  module.walk([](mlir::FunctionOpInterface fn) {
    auto strip = [](mlir::DictionaryAttr attrs) {
      llvm::SmallVector<mlir::NamedAttribute> kept;
      for (mlir::NamedAttribute a : attrs)
        if (!a.getName().getValue().starts_with("mx."))
          kept.push_back(a);
      return mlir::DictionaryAttr::get(attrs.getContext(), kept);
    };
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      fn.setArgAttrs(i, strip(fn.getArgAttrDict(i) ? fn.getArgAttrDict(i)
                                                   : mlir::DictionaryAttr::get(
                                                         fn->getContext())));
    for (unsigned i = 0; i < fn.getNumResults(); ++i)
      fn.setResultAttrs(
          i, strip(fn.getResultAttrDict(i)
                       ? fn.getResultAttrDict(i)
                       : mlir::DictionaryAttr::get(fn->getContext())));
  });
  llvm::LLVMContext llvmContext;
  auto llvmModule = buildLLVMModule(module, spec, llvmContext);
  if (!llvmModule)
    return llvmModule.takeError();
  OutputKind kind = options.emit == EmitKind::LLVMIR   ? OutputKind::LLVMIR
                    : options.emit == EmitKind::Object ? OutputKind::Object
                    : options.emit == EmitKind::StaticArchive
                        ? OutputKind::StaticArchive
                        : OutputKind::SharedLibrary;
  if (auto err = emitModule(**llvmModule, spec, kind, options.outputPath,
                            options.codegen))
    return err;
  if (kind == OutputKind::SharedLibrary || kind == OutputKind::StaticArchive) {
    if (auto err =
            writeFileAtomically(headerPathFor(options.outputPath, name),
                                generateHeader(spec, options.modelPath))) {
      llvm::sys::fs::remove(options.outputPath);
      return err;
    }
  }
  return llvm::Error::success();
}
