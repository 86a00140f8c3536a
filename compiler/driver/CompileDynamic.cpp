// SPDX-License-Identifier: Apache-2.0
// Compiles models with dynamic dimensions (docs/dynamic-shapes.md): a
// leading batch alone as one variant of the forward per bucket, proven not
// to mix the batch's rows; anything else with dynamic extents in the code.
// Compiler.cpp's compile() picks one; CompilerInternal.h is what they share.
#include "compiler/codegen/WeightsWriter.h"
#include "compiler/driver/CompilerInternal.h"
#include "compiler/driver/SpecParameterStore.h"
#include "dialects/mx/MxDialect.h"
#include "passes/graph/BatchRows.h"
#include "passes/graph/InPlaceCaches.h"
#include "passes/lowering/DynamicExtents.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mxc;
using namespace mxc::driver;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// Dynamic batch dimensions (docs/dynamic-shapes.md)
//===----------------------------------------------------------------------===//

namespace {

/// A dynamic batch dimension and the extents its forward is compiled for.
struct BatchPlan {
  DimSpec dim;
  std::vector<int64_t> buckets; // increasing, the first 1
};

} // namespace

DynamicDims driver::dynamicDims(const CompileOptions &options,
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

llvm::Expected<ImportedModel> driver::importAt(mlir::MLIRContext &context,
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

std::string driver::unsupportedDims(const CompileOptions &options,
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
  for (size_t f = 0; f < spec.functions.size(); ++f) {
    FunctionSpec &fn = spec.functions[f];
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

llvm::Error driver::compileDynamic(mlir::MLIRContext &context,
                                   const CompileOptions &options,
                                   const DynamicDims &dyn,
                                   TargetPipeline target, ImportedModel &atOne,
                                   bool &fixed) {
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
    if (!mlir::isa_and_nonnull<mx::MxDialect>(op->getDialect()) ||
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

/// --kv-cache=in-place: the forward's key/value caches become buffers of
/// their dimension's bound, appended to in place, a length input per
/// dimension after the inputs, the appended outputs gone
/// (passes/graph/InPlaceCaches.h).
static llvm::Error inPlaceCaches(mlir::func::FuncOp fn,
                                 const CompileOptions &options, ModelSpec &spec,
                                 const DynamicDims &dims,
                                 std::vector<InPlaceCache> &caches) {
  std::string error;
  auto made = makeCachesInPlace(
      fn, unsigned(spec.inputs.size()), [&](unsigned arg, int64_t axis) {
        CacheLayout layout;
        const std::string &name = spec.inputs[arg].name;
        auto entry = dims.inputs.find(name);
        if (entry == dims.inputs.end() ||
            size_t(axis) >= entry->second.size()) {
          layout.error = error = "input '" + name + "' axis " +
                                 std::to_string(axis) +
                                 " is dynamic but names no dimension";
          return layout;
        }
        const std::string &dim = entry->second[axis];
        layout.group = llvm::find(dims.names, dim) - dims.names.begin();
        auto bounds = options.dimBounds.find(dim);
        if (bounds == options.dimBounds.end() || bounds->second.second < 0)
          layout.error = error =
              "input '" + name + "' is a key/value cache along dimension " +
              dim + ", which has no upper bound: give the caches' capacity " +
              "with --dim " + dim + "=0..N";
        else
          layout.capacity = bounds->second.second;
        return layout;
      });
  if (failed(made))
    return makeError("'" + options.modelPath +
                     "': --kv-cache=in-place: " + error);
  if (made->caches.empty())
    return makeError(
        "'" + options.modelPath +
        "': --kv-cache=in-place: no input is a key/value cache (an input "
        "that a Concat extends along a dynamic axis, an output returning the "
        "result: past... -> Concat -> present...)");
  for (const InPlaceCache &c : made->caches) {
    spec.inputs[c.input].shape[c.axis] = c.capacity;
    spec.inputs[c.input].cache = true;
  }
  // The appended caches are outputs no more.
  std::vector<unsigned> gone;
  for (const InPlaceCache &c : made->caches)
    gone.push_back(c.output);
  llvm::sort(gone, std::greater<>());
  for (unsigned r : gone)
    spec.outputs.erase(spec.outputs.begin() + r);
  for (int64_t group : made->lengths) {
    TensorSpec length;
    length.name = dims.names[group] + "_length";
    for (const TensorSpec &input : spec.inputs)
      if (input.name == length.name)
        return makeError("'" + options.modelPath +
                         "': --kv-cache=in-place: the caches' length input "
                         "would be '" +
                         length.name + "', but an input has that name");
    length.dtype = DType::I64;
    length.lengthOf = group;
    spec.inputs.push_back(length);
  }
  caches = std::move(made->caches);
  return llvm::Error::success();
}

llvm::Error driver::compileSymbolic(mlir::MLIRContext &context,
                                    const CompileOptions &options,
                                    const DynamicDims &dyn,
                                    TargetPipeline target, bool &fixed) {
  fixed = false;
  auto fixAtOne = [&](const std::string &why) {
    if (options.kvCacheInPlace) // the caches' axes cannot be fixed
      return makeError("'" + options.modelPath +
                       "': --kv-cache=in-place: " + why);
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
  auto fn =
      imported->module->lookupSymbol<mlir::func::FuncOp>(kForwardFunctionName);
  std::vector<InPlaceCache> caches;
  if (options.kvCacheInPlace)
    if (auto err = inPlaceCaches(fn, options, spec, dyn, caches))
      return err;
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
    if (input.lengthOf >= 0) { // tensor<0x?xi8>: its length on axis 1
      dimsAttr.push_back(b.getDenseI64ArrayAttr({-1, input.lengthOf}));
      continue;
    }
    // An input without dynamic dimensions has no entry (a decoder's ids
    // of one token beside its cache's dynamic axis).
    auto entry = dyn.inputs.find(input.name);
    auto axes = axesOf(type, [&](int64_t axis) -> int64_t {
      if (entry == dyn.inputs.end() || size_t(axis) >= entry->second.size())
        llvm::report_fatal_error("mxc: input '" + llvm::Twine(input.name) +
                                 "' has a dynamic axis no dimension names");
      auto at = llvm::find(dyn.names, entry->second[axis]);
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
  // Derived dimensions: each cache's length after the step (bounded by its
  // capacity, which the runtime checks), then the outputs' extents.
  std::map<int64_t, DimSpec> derived;
  if (auto fills =
          lowered->getAttrOfType<mlir::DenseI64ArrayAttr>(kCacheFillsAttr))
    for (size_t i = 0; i + 1 < fills.size(); i += 2) {
      auto cache = llvm::find_if(
          caches, [&](const InPlaceCache &c) { return c.input == fills[i]; });
      if (cache == caches.end() || fills[i + 1] < int64_t(spec.dims.size()))
        return makeError("'" + options.modelPath +
                         "': --kv-cache=in-place: the length of cache input " +
                         Twine(fills[i]) + " is not a derived dimension");
      DimSpec &d = derived[fills[i + 1]];
      d.name = spec.inputs[cache->input].name + "_filled";
      d.max = cache->capacity;
    }
  for (auto [r, output] : llvm::enumerate(spec.outputs)) {
    auto axes = mlir::cast<mlir::DenseI64ArrayAttr>(loweredDims[nIn + r]);
    for (auto [axis, d] : llvm::enumerate(axes.asArrayRef())) {
      if (d < 0)
        continue;
      output.shape[axis] = dimExtent(d);
      if (d >= int64_t(spec.dims.size()) && !derived.count(d))
        derived[d].name = output.name + "_" + std::to_string(axis);
    }
  }
  for (auto &[index, d] : derived) {
    if (index != int64_t(spec.dims.size()))
      return makeError("'" + options.modelPath + "': derived dimension " +
                       Twine(index) + " (" + d.name + ") has no predecessor");
    d.min = 0;
    d.derived = true;
    spec.dims.push_back(d);
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
