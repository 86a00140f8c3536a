// SPDX-License-Identifier: Apache-2.0
//
// mx::Executor (mxc/executor.h): the symbol written as JSON, compiled by
// mxc::compile (the `mxc --train` pipeline, in this process) into a
// training library in a private folder, loaded by libmxrt and called
// through its C API. Libraries are shared by every executor of the same
// graph, shapes and options (a process-wide cache, and optionally a folder
// of them). The same cache compiles the imperative operators' one-node
// inference libraries (Imperative.cpp, through Jit.h).

#include "mxc/executor.h"
#include "Jit.h"

#include "compiler/driver/Compiler.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <dlfcn.h>
#include <mutex>

namespace mx {
namespace detail {

void failRuntime(const std::string &what) {
  throw Error(what + ": " + mxrt_last_error());
}

Compiled::~Compiled() {
  mxrt_instance_release(instance);
  mxrt_model_release(model);
}

} // namespace detail

using detail::Compiled;
using detail::failRuntime;

namespace {

std::string cacheKey(const std::string &json,
                     const std::map<std::string, Shape> &inputs,
                     const ExecutorOptions &options, bool train) {
  std::string key = json;
  for (const auto &[name, shape] : inputs) {
    key += "\n" + name + "=";
    for (int64_t d : shape)
      key += std::to_string(d) + "x";
  }
  // A library on disk is only good for the compiler and CPU that made it.
  key += std::string("\ntrain=") + (train ? "1" : "0") +
         "\nseed=" + std::to_string(options.seed) +
         "\nparams=" + options.params + "\nloss=" + options.loss +
         "\nmxc " MXC_VERSION + "\ncpu=" + llvm::sys::getHostCPUName().str();
  return key;
}

/// The folder of the libmxrt this process runs on: compiled libraries link
/// against that one.
std::string runtimeLibDir() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void *>(&mxrt_last_error), &info) ||
      !info.dli_fname)
    return "";
  return llvm::sys::path::parent_path(info.dli_fname).str();
}

/// Compiles into `dir`/lib`name`.so (a training library, or with `train`
/// false an inference one whose every variable is an input); throws with
/// the compiler's message after `what`.
void compileInto(const Symbol &symbol,
                 const std::map<std::string, Shape> &inputs,
                 const ExecutorOptions &options, bool train,
                 const std::string &what, const std::string &dir,
                 const std::string &libPath) {
  std::string jsonPath = dir + "/symbol.json";
  symbol.Save(jsonPath);
  mxc::CompileOptions opts;
  opts.modelPath = jsonPath;
  opts.paramsPath = options.params;
  for (const auto &[name, shape] : inputs)
    opts.inputShapes[name] = shape;
  opts.outputPath = libPath;
  opts.emit = mxc::EmitKind::SharedLibrary;
  opts.modelName = "executor";
  opts.codegen.runtimeLibDir = runtimeLibDir();
  opts.train.enabled = train;
  opts.train.initSeed = options.seed;
  opts.train.loss = options.loss;
  if (llvm::Error err = mxc::compile(opts))
    throw Error(what + ": " + llvm::toString(std::move(err)));
}

} // namespace

std::shared_ptr<Compiled>
detail::compiled(const Symbol &symbol,
                 const std::map<std::string, Shape> &inputs,
                 const ExecutorOptions &options, bool train,
                 const std::string &what, bool &reused) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<Compiled>> cache;
  std::string json = symbol.ToJSON();
  std::string key = cacheKey(json, inputs, options, train);
  std::lock_guard<std::mutex> lock(mutex);
  reused = true;
  if (auto hit = cache[key].lock())
    return hit;
  auto result = std::make_shared<Compiled>();
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx",
                (unsigned long long)llvm::xxh3_64bits(key));
  llvm::SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("mxc-executor", dir))
    throw Error(what + ": a temporary folder: " + ec.message());
  // The private folder goes on every way out: once the library is loaded
  // it is no longer needed, and a failed compile leaves nothing behind.
  llvm::scope_exit removeDir([&] { llvm::sys::fs::remove_directories(dir); });
  std::string lib = std::string(dir) + "/libexecutor.so";
  std::string cached = options.cacheDir.empty()
                           ? ""
                           : options.cacheDir + "/mxc-executor-" + hash + ".so";
  if (!cached.empty() && llvm::sys::fs::exists(cached)) {
    lib = cached;
  } else {
    reused = false;
    compileInto(symbol, inputs, options, train, what, std::string(dir), lib);
    if (!cached.empty()) {
      // Copied in under a unique name, then renamed: a reader never sees
      // half a library.
      std::string partial = cached + "." + llvm::sys::path::filename(dir).str();
      if (!llvm::sys::fs::copy_file(lib, partial))
        llvm::sys::fs::rename(partial, cached);
      llvm::sys::fs::remove(partial);
    }
  }
  if (mxrt_model_open(lib.c_str(), &result->model) != MXRT_OK)
    failRuntime(what + ": loading the compiled library");
  cache[key] = result;
  return result;
}

struct Executor::Impl {
  Symbol symbol;
  ExecutorOptions options;
  std::shared_ptr<Compiled> lib;
  bool reused = false;
  // Shared with the parameter views Param hands out.
  std::shared_ptr<mxrt_instance> instance;
  int32_t forward = 0, grad = 0;
  std::vector<std::string> inputNames, outputNames, paramNames;
  std::map<std::string, NDArray> inputs;
  std::vector<NDArray> outputs;
  std::map<std::string, NDArray> gradients;
  std::vector<NDArray> gradOrder;
  // The views Param handed out, one per parameter: the library reads and
  // writes the parameters in place, so a call first waits for the
  // NDArray operations pending on them (an update pushed to the engine).
  mutable std::map<std::string, NDArray> paramViews;
  // Each view's NDArray::Version when the library last saw it: a view
  // written since is reported to the instance, whose kernels keep the
  // weights packed from call to call until then.
  mutable std::map<std::string, uint64_t> seenVersions;

  void waitForParams() const {
    std::vector<NDArray> views;
    for (const auto &[name, view] : paramViews)
      views.push_back(view);
    NDArray::WaitToWrite(views);
    bool changed = false;
    for (const auto &[name, view] : paramViews) {
      uint64_t version = view.Version();
      changed |= seenVersions[name] != version;
      seenVersions[name] = version;
    }
    if (changed)
      mxrt_instance_params_changed(instance.get());
  }

  /// Calls `function` (forward, or grad: the outputs, then the
  /// gradients) once the parameters' pending updates are done.
  void call(int32_t function, const char *what) {
    waitForParams();
    std::vector<mxrt_tensor *> in = inputsOf(function), out;
    for (NDArray &o : outputs)
      out.push_back(o.tensor());
    if (function == grad)
      for (NDArray &g : gradOrder)
        out.push_back(g.tensor());
    if (mxrt_instance_call(instance.get(), function, in.data(),
                           int32_t(in.size()), out.data(),
                           int32_t(out.size())) != MXRT_OK)
      failRuntime(what);
  }

  std::vector<mxrt_tensor *> inputsOf(int32_t function) {
    std::vector<mxrt_tensor *> list;
    for (int32_t i = 0;
         i < mxrt_model_function_num_inputs(lib->model, function); ++i) {
      mxrt_tensor_info info;
      mxrt_model_function_input_info(lib->model, function, i, &info);
      list.push_back(inputs.at(info.name).tensor());
    }
    return list;
  }
  int32_t paramIndex(const std::string &name) const {
    int32_t index = 0;
    if (mxrt_model_find_param(lib->model, name.c_str(), &index) != MXRT_OK)
      throw Error("Executor: no parameter '" + name + "'");
    return index;
  }
};

Executor::Executor(const Symbol &symbol,
                   const std::map<std::string, Shape> &inputs,
                   const ExecutorOptions &options)
    : impl_(std::make_unique<Impl>()) {
  Impl &m = *impl_;
  m.symbol = symbol;
  m.options = options;
  // A symbol whose every variable is an input (attention over given q, k
  // and v) has nothing to learn: an inference library, and no Backward.
  std::vector<std::string> arguments = symbol.ListArguments();
  bool learns =
      !symbol.ListAuxiliaryStates().empty() ||
      std::any_of(arguments.begin(), arguments.end(),
                  [&](const std::string &name) { return !inputs.count(name); });
  m.lib = detail::compiled(symbol, inputs, options, /*train=*/learns,
                           "Executor", m.reused);
  mxrt_model *model = m.lib->model;
  mxrt_instance_options io;
  mxrt_instance_options_init(&io);
  io.num_threads = options.threads;
  mxrt_instance *instance = nullptr;
  if (mxrt_instance_create(model, &io, &instance) != MXRT_OK)
    failRuntime("Executor");
  // Writes through Param's views are reported (waitForParams).
  mxrt_instance_report_param_writes(instance, 1);
  // The instance keeps its library loaded while any view of it lives.
  std::shared_ptr<Compiled> lib = m.lib;
  m.instance.reset(instance,
                   [lib](mxrt_instance *i) { mxrt_instance_release(i); });
  if (mxrt_model_find_function(model, "forward", &m.forward) != MXRT_OK ||
      (learns && mxrt_model_find_function(model, "grad", &m.grad) != MXRT_OK))
    failRuntime("Executor: the compiled library has no forward or grad");
  if (!learns)
    m.grad = -1;
  // (grad's inputs are forward's and the labels.)
  int32_t inputsOf = learns ? m.grad : m.forward;
  for (int32_t i = 0; i < mxrt_model_function_num_inputs(model, inputsOf);
       ++i) {
    mxrt_tensor_info info;
    mxrt_model_function_input_info(model, inputsOf, i, &info);
    m.inputNames.push_back(info.name);
    m.inputs[info.name] = NDArray(Shape(info.shape, info.shape + info.ndim));
  }
  int32_t numOutputs = mxrt_model_function_num_outputs(model, m.forward);
  for (int32_t i = 0; i < numOutputs; ++i) {
    mxrt_tensor_info info;
    mxrt_model_function_output_info(model, m.forward, i, &info);
    m.outputNames.push_back(info.name);
    m.outputs.emplace_back(Shape(info.shape, info.shape + info.ndim));
  }
  for (int32_t i = numOutputs;
       learns && i < mxrt_model_function_num_outputs(model, m.grad); ++i) {
    mxrt_tensor_info info;
    mxrt_model_function_output_info(model, m.grad, i, &info);
    std::string name = info.name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, "_grad") == 0)
      name.resize(name.size() - 5);
    NDArray g(Shape(info.shape, info.shape + info.ndim));
    m.gradients[name] = g;
    m.gradOrder.push_back(g);
  }
  for (int32_t i = 0; i < mxrt_model_num_params(model); ++i) {
    mxrt_tensor_info info;
    mxrt_model_param_info(model, i, &info);
    m.paramNames.push_back(info.name);
  }
}

Executor::~Executor() = default;
Executor::Executor(Executor &&) noexcept = default;
Executor &Executor::operator=(Executor &&) noexcept = default;

std::vector<std::string> Executor::InputNames() const {
  return impl_->inputNames;
}
std::vector<std::string> Executor::OutputNames() const {
  return impl_->outputNames;
}
std::vector<std::string> Executor::ParamNames() const {
  return impl_->paramNames;
}

NDArray &Executor::Input(const std::string &name) {
  auto it = impl_->inputs.find(name);
  if (it == impl_->inputs.end())
    throw Error("Executor: no input '" + name + "'");
  return it->second;
}

void Executor::SetInput(const std::string &name, const NDArray &value) {
  NDArray &input = Input(name);
  if (input.shape() != value.shape())
    throw Error("Executor: input '" + name + "' has shape " +
                NDArray::shapeText(input.shape()) + ", not " +
                NDArray::shapeText(value.shape()));
  input = value;
}

void Executor::Forward() { impl_->call(impl_->forward, "Executor::Forward"); }

void Executor::Backward() {
  if (impl_->grad < 0)
    throw Error("Executor::Backward: the symbol has no parameters (every "
                "variable is an input): nothing to differentiate");
  impl_->call(impl_->grad, "Executor::Backward");
}

const std::vector<NDArray> &Executor::Outputs() const { return impl_->outputs; }

const NDArray &Executor::Gradient(const std::string &param) const {
  auto it = impl_->gradients.find(param);
  if (it == impl_->gradients.end())
    throw Error("Executor: no gradient of '" + param + "'");
  return it->second;
}

NDArray Executor::Param(const std::string &name) const {
  auto it = impl_->paramViews.find(name);
  if (it != impl_->paramViews.end())
    return it->second;
  mxrt_tensor *view = nullptr;
  if (mxrt_instance_param_view(impl_->instance.get(), impl_->paramIndex(name),
                               &view) != MXRT_OK)
    failRuntime("Executor::Param('" + name + "')");
  return impl_->paramViews[name] = NDArray::Adopt(view, impl_->instance);
}

void Executor::SetParam(const std::string &name, const NDArray &value) {
  int32_t index = impl_->paramIndex(name);
  impl_->waitForParams();
  if (mxrt_instance_set_param(impl_->instance.get(), index, value.tensor()) !=
      MXRT_OK)
    failRuntime("Executor::SetParam('" + name + "')");
}

Executor Executor::Reshape(const std::map<std::string, Shape> &inputs) const {
  Executor next(impl_->symbol, inputs, impl_->options);
  for (const std::string &name : impl_->paramNames) {
    NDArray value = Param(name);
    Shape now = value.shape(), then = next.Param(name).shape();
    if (now != then)
      throw Error("Executor::Reshape: parameter '" + name + "' has shape " +
                  NDArray::shapeText(now) + " here but " +
                  NDArray::shapeText(then) + " for the new input shapes");
    next.SetParam(name, value);
  }
  return next;
}

void Executor::SaveParams(const std::string &path) const {
  impl_->waitForParams();
  if (mxrt_instance_save_params(impl_->instance.get(), path.c_str()) != MXRT_OK)
    failRuntime("Executor::SaveParams");
}

bool Executor::cached() const { return impl_->reused; }

} // namespace mx
