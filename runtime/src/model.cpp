// SPDX-License-Identifier: Apache-2.0
//
// Models and instances: loading a compiled model's descriptor table (by dlopen
// or from a statically linked symbol), checking it once so that nothing later
// trusts a corrupt table, and calling its functions on checked tensors.
// Instances of training models own their parameters and optimizer states.

#include "call_checks.h"
#include "cuda.h"
#include "dims.h"
#include "internal.h"
#include "kernels/gemm/gemm_internal.h"
#include "model_queries.h"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/stat.h>

using mxrt::checkEntry;
using mxrt::checkTensor;
using mxrt::describe;
using mxrt::findByName;
using mxrt::findNamed;

namespace {

using mxrt::fail;

mxrt_status makeModel(const mxrt_model_desc *desc, void *library,
                      std::string origin, mxrt_model **outModel) {
  if (mxrt_status status = mxrt::checkDescriptor(origin, desc))
    return status;
  std::string why;
  if ((desc->flags & MXRT_MODEL_CUDA) && !mxrt::cuda::ready(why))
    return fail(MXRT_UNSUPPORTED,
                "%s was compiled for NVIDIA GPUs (mxc --target=cuda), and this "
                "machine cannot run it: %s",
                origin.c_str(), why.c_str());
  auto model = std::make_unique<mxrt_model>();
  model->desc = desc;
  model->weights = desc->weights;
  if (desc->weights_file)
    if (mxrt_status status = mxrt::mapWeightsFile(desc, origin, *model))
      return status;
  model->origin = std::move(origin);
  model->library = library; // Owned from here on.
  *outModel = model.release();
  return MXRT_OK;
}

mxrt_status openModel(const char *path, mxrt_model **outModel) {
  if (mxrt_status status = mxrt::checkNotNull(
          "mxrt_model_open", {{"path", path}, {"out_model", outModel}}))
    return status;
  struct stat info;
  if (stat(path, &info) != 0)
    return fail(errno == ENOENT ? MXRT_NOT_FOUND : MXRT_IO_ERROR,
                "cannot open model '%s': %s", path, std::strerror(errno));
  // A bare file name means a file here, not a search of the library path.
  std::string file = path;
  if (file.find('/') == std::string::npos)
    file = "./" + file;
  void *library = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    return fail(MXRT_IO_ERROR, "cannot load model '%s': %s", path,
                why ? why : "unknown dlopen error");
  }
  dlerror(); // Clear, so that a NULL from dlsym can be told from an error.
  auto *desc = static_cast<const mxrt_model_desc *>(
      dlsym(library, MXRT_MODEL_ENTRY_SYMBOL));
  if (!desc) {
    const char *why = dlerror();
    std::string message = why ? why : "symbol is NULL";
    dlclose(library);
    return fail(MXRT_NOT_FOUND,
                "'%s' is not an mxc model: no symbol '" MXRT_MODEL_ENTRY_SYMBOL
                "' (%s)",
                path, message.c_str());
  }
  mxrt_status status = MXRT_INTERNAL;
  try {
    status =
        makeModel(desc, library, "model '" + std::string(path) + "'", outModel);
  } catch (...) {
    dlclose(library);
    throw;
  }
  if (status != MXRT_OK)
    dlclose(library);
  return status;
}

/// The function at `index`, or NULL after recording an error naming `what`.
const mxrt_function_desc *functionAt(const mxrt_model *model, int32_t index,
                                     const char *what) {
  if (index < 0 || index >= model->desc->num_functions) {
    fail(MXRT_NOT_FOUND,
         "%s: function index %d is out of range (model '%s' has %lld "
         "functions)",
         what, index, model->desc->name,
         static_cast<long long>(model->desc->num_functions));
    return nullptr;
  }
  return &model->desc->functions[index];
}

mxrt_status getInfo(const char *what, const mxrt_model *model, int32_t function,
                    int32_t index, bool input, mxrt_tensor_info *outInfo) {
  if (mxrt_status status =
          mxrt::checkNotNull(what, {{"model", model}, {"out_info", outInfo}}))
    return status;
  const mxrt_function_desc *fn = functionAt(model, function, what);
  if (!fn)
    return MXRT_NOT_FOUND;
  int64_t count = input ? fn->num_inputs : fn->num_outputs;
  if (index < 0 || index >= count)
    return fail(MXRT_NOT_FOUND,
                "%s: index %d is out of range (function '%s' of model '%s' "
                "has %lld %s)",
                what, index, fn->name, model->desc->name,
                static_cast<long long>(count), input ? "inputs" : "outputs");
  describe(input ? fn->inputs[index] : fn->outputs[index], outInfo);
  return MXRT_OK;
}

/// Rounds up to a multiple of 64 bytes; false on overflow.
bool addAligned(uint64_t &offset, uint64_t size) {
  uint64_t end;
  if (__builtin_add_overflow(offset, size, &end) ||
      __builtin_add_overflow(end, uint64_t(63), &end))
    return false;
  offset = end / 64 * 64;
  return true;
}

/// A CUDA model's instance (created like a CPU one, parameters in the
/// model's weights or, for training, in host storage with zeroed optimizer
/// states after them; but no host scratch): device copies of the
/// parameters and states, device scratch and (unless the app passes device
/// memory) a device buffer for each input and output of each function,
/// which `buffers` then point to. The host storage goes: the device's
/// copies are the instance's parameters from then on.
mxrt_status moveToDevice(mxrt_instance *instance, int64_t scratchSize) {
  const mxrt_model_desc *desc = instance->model->desc;
  std::string why;
  auto allocate = [&](size_t bytes, void *&out) {
    if (!mxrt::cuda::alloc(bytes, &out, why))
      return fail(MXRT_OUT_OF_MEMORY,
                  "mxrt_instance_create: model '%s': %zu bytes of GPU memory: "
                  "%s",
                  desc->name, bytes, why.c_str());
    if (out)
      instance->device.push_back(out);
    return MXRT_OK;
  };
  // The parameters, then the states, where each function's buffers hold
  // them after its inputs and outputs.
  const mxrt_function_desc &first = desc->functions[0];
  std::vector<void *> &hostTable = instance->buffers[0];
  size_t held = size_t(first.num_inputs + first.num_outputs);
  for (int64_t i = 0; i < desc->num_params + desc->num_states; ++i) {
    const mxrt_tensor_desc &t = i < desc->num_params
                                    ? desc->params[i]
                                    : desc->states[i - desc->num_params];
    void *copy;
    if (mxrt_status status = allocate(size_t(t.size_bytes), copy))
      return status;
    if (!mxrt::cuda::toDevice(copy, hostTable[held + i], size_t(t.size_bytes),
                              why))
      return fail(MXRT_INTERNAL,
                  "mxrt_instance_create: model '%s': uploading %s '%s': %s",
                  desc->name, i < desc->num_params ? "parameter" : "state",
                  t.name, why.c_str());
    if (i < desc->num_params)
      instance->params[i] = static_cast<uint8_t *>(copy);
    for (int64_t f = 0; f < desc->num_functions; ++f) {
      const mxrt_function_desc &fn = desc->functions[f];
      instance->buffers[f][size_t(fn.num_inputs + fn.num_outputs + i)] = copy;
    }
  }
  std::free(instance->storage);
  instance->storage = nullptr;
  instance->storageBytes = 0;
  void *scratch;
  if (mxrt_status status = allocate(size_t(scratchSize), scratch))
    return status;
  instance->scratch = static_cast<uint8_t *>(scratch);
  instance->context.scratch = instance->scratch;
  if (instance->deviceBuffers) // the app's own, given on each call
    return MXRT_OK;
  for (int64_t f = 0; f < desc->num_functions; ++f) {
    const mxrt_function_desc &fn = desc->functions[f];
    std::vector<void *> &buffers = instance->buffers[f];
    for (int64_t i = 0; i < fn.num_inputs + fn.num_outputs; ++i) {
      const mxrt_tensor_desc &t =
          i < fn.num_inputs ? fn.inputs[i] : fn.outputs[i - fn.num_inputs];
      if (mxrt_status status = allocate(size_t(t.size_bytes), buffers[i]))
        return status;
    }
  }
  return MXRT_OK;
}

/// A CUDA model's call of `fn`: the host inputs copied to the instance's
/// device buffers, the function run (it launches the kernels), the device
/// outputs copied back (device_buffers: the app's device memory used in
/// place); input(i) and output(i) give the app's pointers (nothing is
/// allocated: a call must not). False with the reason in `why`.
template <typename Input, typename Output>
bool runOnDevice(mxrt_instance *instance, const mxrt_function_desc &fn,
                 const Input &input, const Output &output, std::string &why) {
  void **buffers =
      instance->buffers[&fn - instance->model->desc->functions].data();
  if (instance->deviceBuffers) {
    for (int64_t i = 0; i < fn.num_inputs; ++i)
      buffers[i] = const_cast<void *>(input(i));
    for (int64_t i = 0; i < fn.num_outputs; ++i)
      buffers[fn.num_inputs + i] = output(i);
    fn.entry(buffers, &instance->context);
    return mxrt::cuda::synchronize(why);
  }
  for (int64_t i = 0; i < fn.num_inputs; ++i)
    if (!mxrt::cuda::toDevice(buffers[i], input(i),
                              size_t(fn.inputs[i].size_bytes), why))
      return false;
  fn.entry(buffers, &instance->context);
  if (!mxrt::cuda::synchronize(why))
    return false;
  for (int64_t i = 0; i < fn.num_outputs; ++i)
    if (!mxrt::cuda::toHost(output(i), buffers[fn.num_inputs + i],
                            size_t(fn.outputs[i].size_bytes), why))
      return false;
  return true;
}

/// The most threads one instance may use.
constexpr int32_t kMaxThreads = 256;

/// Replaces the instance's scratch with `bytes` zeroed bytes, or returns
/// false (keeping the old one) when out of memory. Zeroed so that a kernel
/// reading scratch before writing it misbehaves the same way every time.
bool allocateScratch(mxrt_instance *instance, int64_t bytes) {
  auto *scratch = static_cast<uint8_t *>(mxrt::alignedAlloc(size_t(bytes)));
  if (!scratch)
    return false;
  std::memset(scratch, 0, size_t(bytes));
  std::free(instance->scratch);
  instance->scratch = scratch;
  instance->scratchBytes = size_t(bytes);
  instance->context.scratch = scratch;
  return true;
}

mxrt_status createInstance(const mxrt_model *model,
                           const mxrt_instance_options *options,
                           mxrt_instance **outInstance) {
  if (mxrt_status status =
          mxrt::checkNotNull("mxrt_instance_create",
                             {{"model", model}, {"out_instance", outInstance}}))
    return status;
  int32_t numThreads = 1;
  bool deviceBuffers = false;
  if (options) {
    constexpr size_t needed = offsetof(mxrt_instance_options, num_threads) +
                              sizeof(options->num_threads);
    if (options->struct_size < needed)
      return fail(MXRT_INVALID_ARGUMENT,
                  "mxrt_instance_create: options->struct_size is %u; call "
                  "mxrt_instance_options_init first",
                  options->struct_size);
    if (options->num_threads < 0)
      return fail(MXRT_INVALID_ARGUMENT,
                  "mxrt_instance_create: options->num_threads is %d "
                  "(negative)",
                  options->num_threads);
    if (options->num_threads > kMaxThreads)
      return fail(MXRT_INVALID_ARGUMENT,
                  "mxrt_instance_create: options->num_threads is %d (at "
                  "most %d)",
                  options->num_threads, kMaxThreads);
    if (options->num_threads > 0)
      numThreads = options->num_threads;
    constexpr size_t withDevice =
        offsetof(mxrt_instance_options, device_buffers) +
        sizeof(options->device_buffers);
    deviceBuffers =
        options->struct_size >= withDevice && options->device_buffers != 0;
    if (deviceBuffers && !model->cuda())
      return fail(MXRT_INVALID_ARGUMENT,
                  "mxrt_instance_create: options->device_buffers is for "
                  "CUDA models (mxc --target=cuda); model '%s' runs on the "
                  "CPU",
                  model->desc->name);
  }
  const mxrt_model_desc *desc = model->desc;
  auto instance = std::make_unique<mxrt_instance>();
  instance->model = model;
  instance->numThreads = numThreads;
  instance->deviceBuffers = deviceBuffers;

  // Parameters: the weights in place for inference (entry points of
  // inference models never write them, see checkDescriptor); a private,
  // 64-byte aligned copy for training, followed by zeroed states.
  std::vector<void *> states(desc->num_states, nullptr);
  instance->params.assign(desc->num_params, nullptr);
  if (model->trainable()) {
    std::vector<uint64_t> offsets;
    uint64_t total = 0;
    bool fits = true;
    for (int64_t i = 0; i < desc->num_params; ++i) {
      offsets.push_back(total);
      fits = fits && addAligned(total, desc->params[i].size_bytes);
    }
    for (int64_t i = 0; i < desc->num_states; ++i) {
      offsets.push_back(total);
      fits = fits && addAligned(total, desc->states[i].size_bytes);
    }
    if (fits && total <= SIZE_MAX)
      instance->storage = static_cast<uint8_t *>(
          mxrt::alignedAlloc(static_cast<size_t>(total)));
    instance->storageBytes = static_cast<size_t>(total);
    mxrt::paramsChanged(instance.get());
    if (!instance->storage)
      return fail(MXRT_OUT_OF_MEMORY,
                  "mxrt_instance_create: cannot allocate %llu bytes of "
                  "parameters and optimizer states for model '%s'",
                  static_cast<unsigned long long>(total), desc->name);
    std::memset(instance->storage, 0, static_cast<size_t>(total));
    for (int64_t i = 0; i < desc->num_params; ++i) {
      const mxrt_tensor_desc &param = desc->params[i];
      instance->params[i] = instance->storage + offsets[i];
      // An empty parameter may come with no weights at all (NULL).
      if (param.size_bytes)
        std::memcpy(instance->params[i], model->weights + param.offset,
                    param.size_bytes);
    }
    for (int64_t i = 0; i < desc->num_states; ++i)
      states[i] = instance->storage + offsets[desc->num_params + i];
  } else {
    for (int64_t i = 0; i < desc->num_params; ++i)
      instance->params[i] =
          const_cast<uint8_t *>(model->weights + desc->params[i].offset);
  }

  int64_t scratchSize = 0;
  instance->buffers.resize(desc->num_functions);
  instance->counts.resize(desc->num_functions);
  instance->lastDims.assign(size_t(desc->num_dims), -1);
  for (int64_t f = 0; f < desc->num_functions; ++f) {
    const mxrt_function_desc &fn = desc->functions[f];
    std::vector<void *> &buffers = instance->buffers[f];
    buffers.assign(fn.num_inputs + fn.num_outputs, nullptr);
    buffers.insert(buffers.end(), instance->params.begin(),
                   instance->params.end());
    buffers.insert(buffers.end(), states.begin(), states.end());
    // The counts the function writes, the instance's own.
    instance->counts[f].assign(size_t(fn.num_counts), -1);
    for (int64_t k = 0; k < fn.num_counts; ++k)
      buffers.push_back(&instance->counts[f][size_t(k)]);
    // Functions with variants get theirs on first use (reserveScratch).
    if (!fn.num_variants)
      scratchSize = std::max(scratchSize, fn.scratch_size);
  }
  // (A CUDA model's scratch is device memory: moveToDevice.)
  if (scratchSize > 0 && !model->cuda() &&
      !allocateScratch(instance.get(), scratchSize))
    return fail(MXRT_OUT_OF_MEMORY,
                "mxrt_instance_create: cannot allocate %lld bytes of scratch "
                "for model '%s'",
                static_cast<long long>(scratchSize), desc->name);
  if (model->cuda())
    if (mxrt_status status = moveToDevice(instance.get(), scratchSize))
      return status;
  if (numThreads > 1)
    instance->pool = std::make_unique<mxrt::ThreadPool>(numThreads);
  instance->context.thread_pool = instance->pool.get();
  *outInstance = instance.release();
  return MXRT_OK;
}

/// Calls `visit(variant, times)` for each variant of `fn` that a call of
/// `rows` rows runs, largest first (each as many times as it fits in the
/// rows left), until `visit` returns false.
template <typename Visit>
void splitRows(const mxrt_function_desc &fn, int64_t rows, Visit visit) {
  if (fn.flags & MXRT_FUNCTION_WHOLE_BATCH) { // the variant of `rows`, once
    for (int64_t v = 0; v < fn.num_variants; ++v)
      if (fn.variants[v].batch == rows)
        visit(fn.variants[v], 1);
    return;
  }
  for (int64_t v = fn.num_variants - 1; v >= 0 && rows > 0; --v) {
    const mxrt_variant_desc &variant = fn.variants[v];
    int64_t times = rows / variant.batch;
    if (times && !visit(variant, times))
      return;
    rows -= times * variant.batch;
  }
}

/// Refuses a call of whole-batch function `fn` whose batch extent is none
/// of its variants'.
template <typename Callee>
mxrt_status checkWholeBatch(const mxrt_model *model,
                            const mxrt_function_desc &fn,
                            const mxrt::DimBinding &dims, Callee callee) {
  std::string batches;
  for (int64_t v = 0; v < fn.num_variants; ++v) {
    if (fn.variants[v].batch == dims.batch())
      return MXRT_OK;
    batches += (v == 0                     ? ""
                : v + 1 == fn.num_variants ? " or "
                                           : ", ") +
               std::to_string(fn.variants[v].batch);
  }
  return fail(MXRT_INVALID_ARGUMENT,
              "%s: %s=%lld, but the function mixes the rows of its batch "
              "(a mean loss, batch statistics) and was compiled for %s=%s "
              "only (mxc --buckets)",
              callee().c_str(), model->desc->dims[fn.batch_dim].name,
              static_cast<long long>(dims.batch()),
              model->desc->dims[fn.batch_dim].name, batches.c_str());
}

/// Grows the instance's scratch to what a call of `fn` with `dims` needs
/// (the variants it runs on its batch's rows, or what its shapes function
/// asked for): only when a call first needs more, so that steady calls
/// allocate nothing.
template <typename Callee>
mxrt_status reserveScratch(mxrt_instance *instance,
                           const mxrt_function_desc &fn, mxrt::DimBinding &dims,
                           Callee callee) {
  int64_t needed = 0;
  if (fn.num_variants)
    splitRows(fn, dims.batch(), [&](const mxrt_variant_desc &variant, int64_t) {
      needed = std::max(needed, variant.scratch_size);
      return true;
    });
  else
    needed = dims.scratch();
  if (size_t(needed) <= instance->scratchBytes ||
      allocateScratch(instance, needed))
    return MXRT_OK;
  std::string what = fn.num_variants ? std::to_string(dims.batch()) + " rows"
                                     : dims.describe();
  return fail(MXRT_OUT_OF_MEMORY,
              "%s: cannot allocate %lld bytes of scratch for %s",
              callee().c_str(), static_cast<long long>(needed), what.c_str());
}

/// Runs `fn`'s variants on `rows` rows from `buffers` (the function's slots,
/// at row 0), each input and output that has the batch dimension moving on
/// past the rows done after every call. Stops at a call's error.
void runVariants(mxrt_instance *instance, const mxrt_function_desc &fn,
                 void **buffers, int64_t rows) {
  int64_t batchExtent = MXRT_DIM_EXTENT(fn.batch_dim);
  splitRows(fn, rows, [&](const mxrt_variant_desc &variant, int64_t times) {
    for (int64_t t = 0; t < times; ++t) {
      variant.entry(buffers, &instance->context);
      if (!instance->call.error.empty())
        return false;
      for (int64_t i = 0; i < fn.num_inputs + fn.num_outputs; ++i) {
        const mxrt_tensor_desc &desc =
            i < fn.num_inputs ? fn.inputs[i] : fn.outputs[i - fn.num_inputs];
        if (desc.ndim && desc.shape[0] == batchExtent)
          buffers[i] = static_cast<uint8_t *>(buffers[i]) +
                       variant.batch * desc.size_bytes;
      }
    }
    return true;
  });
}

/// Calls `fn` on `buffers` (its variants on the rows of its batch
/// dimension, if it has them) with the instance's thread pool and call
/// state, `dims` the model's dimensions' values; false when the call
/// recorded an error (instance->call.error).
bool runEntry(mxrt_instance *instance, const mxrt_function_desc &fn,
              void **buffers, const mxrt::DimBinding &dims) {
  mxrt::ThreadPool::Scope pool(instance->pool.get());
  mxrt::CallState::Scope call(&instance->call);
  if (instance->viewsHandedOut && !instance->reportsViewWrites)
    mxrt::paramsChanged(instance); // a view may have been written
  mxrt::ParamGenerationScope generation(instance->paramGeneration);
  instance->call.function = int32_t(&fn - instance->model->desc->functions);
  if (fn.num_variants) {
    runVariants(instance, fn, buffers, dims.batch());
  } else {
    // A function with `shapes` reads the extents from its context, for the
    // call only.
    instance->context.dims = fn.shapes ? dims.values() : nullptr;
    fn.entry(buffers, &instance->context);
    instance->context.dims = nullptr;
  }
  if (fn.flags & MXRT_FUNCTION_UPDATES_STATE)
    mxrt::paramsChanged(instance);
  return instance->call.error.empty();
}

/// What the tensor and raw calls share once their arguments are checked:
/// the buffer checks (`input(i)`, `output(i)`), entering the instance
/// (`guard`, which the caller holds for the call) and the run, on the GPU
/// for a CUDA model. `dims` holds the values of the dimensions the
/// function's shapes have; `callee()` names the call in messages.
template <typename Callee, typename Input, typename Output>
mxrt_status runChecked(mxrt_instance *instance, int32_t function,
                       mxrt::DimBinding &dims, Callee callee, Input input,
                       Output output, std::optional<mxrt::CallGuard> &guard) {
  const mxrt_function_desc &fn = instance->model->desc->functions[function];
  if (mxrt_status status = mxrt::enterCall(
          instance, function, fn, dims.values(), callee, input, output, guard))
    return status;
  if (instance->model->cuda()) {
    std::string why;
    if (!runOnDevice(instance, fn, input, output, why))
      return fail(MXRT_INTERNAL, "%s on the GPU: %s", callee().c_str(),
                  why.c_str());
    return MXRT_OK;
  }
  if (fn.flags & MXRT_FUNCTION_WHOLE_BATCH)
    if (mxrt_status status = checkWholeBatch(instance->model, fn, dims, callee))
      return status;
  if (fn.num_variants || fn.shapes)
    if (mxrt_status status = reserveScratch(instance, fn, dims, callee))
      return status;
  if (!runEntry(instance, fn, instance->buffers[function].data(), dims))
    return fail(MXRT_INVALID_ARGUMENT, "%s: %s", callee().c_str(),
                instance->call.error.c_str());
  // The extents the call found.
  for (int64_t k = 0; k < fn.num_counts; ++k)
    if (mxrt_status status =
            dims.setCounted(fn.counts[k], instance->counts[function][k]))
      return fail(status, "%s: %s", callee().c_str(), mxrt_last_error());
  std::copy(dims.values(), dims.values() + instance->model->desc->num_dims,
            instance->lastDims.begin());
  return MXRT_OK;
}

/// mxrt_instance_run (`what` is its name, function 0) and mxrt_instance_call.
mxrt_status callFunction(const char *what, mxrt_instance *instance,
                         int32_t function, mxrt_tensor *const *inputs,
                         int32_t numInputs, mxrt_tensor *const *outputs,
                         int32_t numOutputs) {
  if (mxrt_status status = mxrt::checkNotNull(what, {{"instance", instance}}))
    return status;
  const mxrt_function_desc *fnPtr = functionAt(instance->model, function, what);
  if (!fnPtr)
    return MXRT_NOT_FOUND;
  const mxrt_function_desc &fn = *fnPtr;
  // run speaks of the model, call of one of its functions. Built only on
  // error: a call must not allocate.
  auto callee = [&] {
    std::string model =
        "model '" + std::string(instance->model->desc->name) + "'";
    if (std::strcmp(what, "mxrt_instance_run") == 0)
      return model;
    return "function '" + std::string(fn.name) + "' of " + model;
  };
  if (numInputs != fn.num_inputs)
    return fail(MXRT_INVALID_ARGUMENT, "%s takes %lld inputs, got %d",
                callee().c_str(), static_cast<long long>(fn.num_inputs),
                numInputs);
  if (numOutputs != fn.num_outputs)
    return fail(MXRT_INVALID_ARGUMENT, "%s produces %lld outputs, got %d",
                callee().c_str(), static_cast<long long>(fn.num_outputs),
                numOutputs);
  if (numInputs > 0 && !inputs)
    return fail(MXRT_INVALID_ARGUMENT, "%s: inputs is NULL", what);
  if (numOutputs > 0 && !outputs)
    return fail(MXRT_INVALID_ARGUMENT, "%s: outputs is NULL", what);
  // Every tensor, the outputs' dynamic extents against what the inputs'
  // give (derived ones included), before anything runs.
  mxrt::DimBinding dims(*instance->model->desc, fn);
  auto check = [&](const char *kind, int32_t i, const mxrt_tensor_desc &desc,
                   const mxrt_tensor *tensor) {
    if (mxrt_status status =
            checkTensor(kind, i, desc, tensor, instance->model->desc->dims))
      return status;
    return dims.bind(kind, desc, tensor);
  };
  for (int32_t i = 0; i < numInputs; ++i)
    if (mxrt_status status = check("input", i, fn.inputs[i], inputs[i]))
      return status;
  if (mxrt_status status = dims.derive())
    return status;
  // An output that a call sized for the extents it found (an earlier call
  // with the same tensors) is sized for their bounds again.
  if (fn.num_counts)
    for (int32_t i = 0; i < numOutputs; ++i)
      for (int64_t d = 0; outputs[i] && d < fn.outputs[i].ndim &&
                          outputs[i]->ndim == fn.outputs[i].ndim;
           ++d)
        if (int64_t e = fn.outputs[i].shape[d];
            e < 0 && (instance->model->desc->dims[MXRT_DIM_INDEX(e)].flags &
                      MXRT_DIM_COUNTED))
          mxrt::setExtent(outputs[i], int32_t(d),
                          dims.values()[MXRT_DIM_INDEX(e)]);
  for (int32_t i = 0; i < numOutputs; ++i)
    if (mxrt_status status = check("output", i, fn.outputs[i], outputs[i]))
      return status;
  std::optional<mxrt::CallGuard> guard;
  if (mxrt_status status = runChecked(
          instance, function, dims, callee,
          [&](int64_t i) -> const void * { return inputs[i]->data; },
          [&](int64_t i) { return outputs[i]->data; }, guard))
    return status;
  if (instance->model->cuda())
    return MXRT_OK;
  // Outputs with counted extents: their shapes as the call found them.
  if (fn.num_counts)
    for (int32_t i = 0; i < numOutputs; ++i)
      for (int64_t d = 0; d < fn.outputs[i].ndim; ++d)
        if (int64_t e = fn.outputs[i].shape[d]; e < 0)
          mxrt::setExtent(outputs[i], int32_t(d),
                          dims.values()[MXRT_DIM_INDEX(e)]);
  return mxrt::copyStringOutputs(fn, outputs);
}

/// mxrt_instance_run_raw (function 0), mxrt_instance_call_raw and, with
/// `withDims`, mxrt_instance_run_raw_dims and mxrt_instance_call_raw_dims
/// (the dimensions' values `dims`).
mxrt_status runInstanceRaw(const char *what, mxrt_instance *instance,
                           int32_t function, bool withDims, const int64_t *dims,
                           const void *const *inputs, void *const *outputs) {
  if (mxrt_status status = mxrt::checkNotNull(what, {{"instance", instance}}))
    return status;
  const mxrt_function_desc *fnPtr = functionAt(instance->model, function, what);
  if (!fnPtr)
    return MXRT_NOT_FOUND;
  const mxrt_function_desc &fn = *fnPtr;
  const mxrt_model_desc &model = *instance->model->desc;
  // The dimensions the inputs have come from `dims`, the derived ones from
  // them.
  mxrt::DimBinding bound(model, fn);
  if (int64_t first = mxrt::firstDim(model, fn); first >= 0) {
    const mxrt_dim_desc &dim = model.dims[first];
    if (!withDims && function == 0)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: model '%s' has dynamic dimension '%s'; call "
                  "mxrt_instance_run_raw_dims with its value",
                  what, model.name, dim.name);
    if (!withDims)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: function '%s' of model '%s' has dynamic dimension "
                  "'%s'; call mxrt_instance_call_raw_dims with its value",
                  what, fn.name, model.name, dim.name);
    if (!dims)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: dims is NULL, but model '%s' has dynamic dimensions",
                  what, model.name);
    if (mxrt_status status = bound.take(dims, what))
      return status;
  }
  if (mxrt_status status = bound.derive())
    return fail(status, "%s: %s", what, mxrt_last_error());
  if (fn.num_inputs > 0 && !inputs)
    return fail(MXRT_INVALID_ARGUMENT, "%s: inputs is NULL", what);
  if (fn.num_outputs > 0 && !outputs)
    return fail(MXRT_INVALID_ARGUMENT, "%s: outputs is NULL", what);
  for (int64_t i = 0; i < fn.num_inputs; ++i)
    if (!inputs[i])
      return fail(MXRT_INVALID_ARGUMENT, "input '%s' (#%lld) is NULL",
                  fn.inputs[i].name, static_cast<long long>(i));
  for (int64_t i = 0; i < fn.num_outputs; ++i)
    if (!outputs[i])
      return fail(MXRT_INVALID_ARGUMENT, "output '%s' (#%lld) is NULL",
                  fn.outputs[i].name, static_cast<long long>(i));
  auto callee = [&] {
    std::string named = function != 0
                            ? "function '" + std::string(fn.name) + "' of "
                            : std::string();
    return named + "model '" + model.name + "'";
  };
  std::optional<mxrt::CallGuard> guard;
  return runChecked(
      instance, function, bound, callee, [&](int64_t i) { return inputs[i]; },
      [&](int64_t i) { return outputs[i]; }, guard);
}

} // namespace

mxrt_instance::~mxrt_instance() {
  std::free(storage);
  if (model && model->cuda())
    for (void *d : device)
      mxrt::cuda::free(d);
  else
    std::free(scratch);
  mxrt_model_release(ownedModel);
}

mxrt_status mxrt::requireTrainable(const char *what, const mxrt_model *model,
                                   const char *verb) {
  if (model->trainable())
    return MXRT_OK;
  return fail(MXRT_UNSUPPORTED,
              "%s: model '%s' is an inference model, which reads its weights "
              "in place; compile it with mxc --train to %s parameters",
              what, model->desc->name, verb);
}

mxrt_status mxrt_model_open(const char *path, mxrt_model **out_model) {
  return mxrt::guarded([&] { return openModel(path, out_model); });
}

mxrt_status mxrt_model_from_descriptor(const struct mxrt_model_desc *desc,
                                       mxrt_model **out_model) {
  return mxrt::guarded([&]() -> mxrt_status {
    if (mxrt_status status =
            mxrt::checkNotNull("mxrt_model_from_descriptor",
                               {{"desc", desc}, {"out_model", out_model}}))
      return status;
    return makeModel(desc, nullptr,
                     std::string("model '") +
                         (desc->name ? desc->name : "(unnamed)") +
                         "' (linked in)",
                     out_model);
  });
}

void mxrt_model_release(mxrt_model *model) {
  if (!model)
    return;
  if (model->weightsMap)
    munmap(model->weightsMap, model->weightsMapSize);
  if (model->library)
    dlclose(model->library);
  delete model;
}

const char *mxrt_model_name(const mxrt_model *model) {
  return model ? model->desc->name : "";
}

int32_t mxrt_model_num_inputs(const mxrt_model *model) {
  return model ? static_cast<int32_t>(model->desc->functions[0].num_inputs) : 0;
}

int32_t mxrt_model_num_outputs(const mxrt_model *model) {
  return model ? static_cast<int32_t>(model->desc->functions[0].num_outputs)
               : 0;
}

mxrt_status mxrt_model_input_info(const mxrt_model *model, int32_t index,
                                  mxrt_tensor_info *out_info) {
  return getInfo("mxrt_model_input_info", model, 0, index, /*input=*/true,
                 out_info);
}

mxrt_status mxrt_model_output_info(const mxrt_model *model, int32_t index,
                                   mxrt_tensor_info *out_info) {
  return getInfo("mxrt_model_output_info", model, 0, index, /*input=*/false,
                 out_info);
}

mxrt_status mxrt_model_find_input(const mxrt_model *model, const char *name,
                                  int32_t *out_index) {
  return findNamed("mxrt_model_find_input", model, name, out_index, "input",
                   [&](const mxrt_model_desc &desc) {
                     const mxrt_function_desc &fn = desc.functions[0];
                     return findByName(fn.inputs, fn.num_inputs, name);
                   });
}

int32_t mxrt_model_num_dims(const mxrt_model *model) {
  return model ? static_cast<int32_t>(model->desc->num_dims) : 0;
}

mxrt_status mxrt_model_dim_info(const mxrt_model *model, int32_t index,
                                mxrt_dim_info *out_info) {
  if (mxrt_status status =
          checkEntry("mxrt_model_dim_info", model, out_info, index,
                     &mxrt_model_desc::num_dims, "dynamic dimensions"))
    return status;
  const mxrt_dim_desc &dim = model->desc->dims[index];
  *out_info = {dim.name, dim.min, dim.max,
               (dim.flags & MXRT_DIM_DERIVED) ? 1 : 0,
               (dim.flags & MXRT_DIM_COUNTED) ? 1 : 0};
  return MXRT_OK;
}

mxrt_status mxrt_model_bind_dims(const mxrt_model *model, int32_t function,
                                 mxrt_tensor *const *inputs, int32_t num_inputs,
                                 int64_t *out_dims) {
  return mxrt::guarded([&]() -> mxrt_status {
    const char *what = "mxrt_model_bind_dims";
    if (mxrt_status status = mxrt::checkNotNull(what, {{"model", model}}))
      return status;
    const mxrt_function_desc *fn = functionAt(model, function, what);
    if (!fn)
      return MXRT_NOT_FOUND;
    const mxrt_model_desc &desc = *model->desc;
    if (num_inputs != fn->num_inputs)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: function '%s' of model '%s' takes %lld inputs, got %d",
                  what, fn->name, desc.name,
                  static_cast<long long>(fn->num_inputs), num_inputs);
    if (num_inputs > 0 && !inputs)
      return fail(MXRT_INVALID_ARGUMENT, "%s: inputs is NULL", what);
    if (desc.num_dims > 0 && !out_dims)
      return fail(MXRT_INVALID_ARGUMENT, "%s: out_dims is NULL", what);
    mxrt::DimBinding dims(desc, *fn);
    for (int32_t i = 0; i < num_inputs; ++i) {
      const mxrt_tensor *input = inputs[i];
      if (!input)
        continue;
      if (!mxrt::fitsShape(fn->inputs[i], input))
        return mxrt::failShape("input", fn->inputs[i], input, desc.dims);
      if (mxrt_status status = dims.bind("input", fn->inputs[i], input))
        return status;
    }
    if (mxrt_status status = dims.derive())
      return status;
    std::copy(dims.values(), dims.values() + desc.num_dims, out_dims);
    return MXRT_OK;
  });
}

void mxrt_resolve_shape(const mxrt_tensor_info *info, const int64_t *dims,
                        int64_t *out_shape) {
  if (!info || !out_shape)
    return;
  for (int32_t d = 0; d < info->ndim; ++d) {
    int64_t extent = info->shape[d];
    out_shape[d] = extent < 0 && dims ? dims[MXRT_DIM_INDEX(extent)] : extent;
  }
}

void mxrt_instance_options_init(mxrt_instance_options *options) {
  if (!options)
    return;
  std::memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
  options->num_threads = 0;
}

mxrt_status mxrt_instance_create(const mxrt_model *model,
                                 const mxrt_instance_options *options,
                                 mxrt_instance **out_instance) {
  return mxrt::guarded(
      [&] { return createInstance(model, options, out_instance); });
}

mxrt_status mxrt_instance_create_static(const struct mxrt_model_desc *desc,
                                        const mxrt_instance_options *options,
                                        mxrt_instance **out_instance) {
  return mxrt::guarded([&]() -> mxrt_status {
    if (mxrt_status status = mxrt::checkNotNull(
            "mxrt_instance_create_static", {{"out_instance", out_instance}}))
      return status;
    mxrt_model *model = nullptr;
    if (mxrt_status status = mxrt_model_from_descriptor(desc, &model))
      return status;
    std::unique_ptr<mxrt_model, void (*)(mxrt_model *)> owned(
        model, mxrt_model_release);
    if (mxrt_status status = createInstance(model, options, out_instance))
      return status;
    (*out_instance)->ownedModel = owned.release();
    return MXRT_OK;
  });
}

void mxrt_instance_release(mxrt_instance *instance) {
  if (!instance)
    return;
  // Kernels' packed copies of its parameters go with them.
  if (instance->storage)
    mxrt::packedCache().forget(instance->storage,
                               instance->storage + instance->storageBytes);
  delete instance;
}

void mxrt::paramsChanged(mxrt_instance *instance) {
  instance->paramGeneration = newParamGeneration();
}

mxrt_status mxrt_instance_params_changed(mxrt_instance *instance) {
  return mxrt::guarded([&] {
    if (mxrt_status status = mxrt::checkNotNull("mxrt_instance_params_changed",
                                                {{"instance", instance}}))
      return status;
    mxrt::paramsChanged(instance);
    return MXRT_OK;
  });
}

mxrt_status mxrt_instance_report_param_writes(mxrt_instance *instance,
                                              int32_t enabled) {
  return mxrt::guarded([&] {
    if (mxrt_status status = mxrt::checkNotNull(
            "mxrt_instance_report_param_writes", {{"instance", instance}}))
      return status;
    instance->reportsViewWrites = enabled != 0;
    return MXRT_OK;
  });
}

mxrt_status mxrt_instance_run(mxrt_instance *instance,
                              mxrt_tensor *const *inputs, int32_t num_inputs,
                              mxrt_tensor *const *outputs,
                              int32_t num_outputs) {
  return mxrt::guarded([&] {
    return callFunction("mxrt_instance_run", instance, 0, inputs, num_inputs,
                        outputs, num_outputs);
  });
}

mxrt_status mxrt_instance_run_raw(mxrt_instance *instance,
                                  const void *const *inputs,
                                  void *const *outputs) {
  return mxrt::guarded([&] {
    return runInstanceRaw("mxrt_instance_run_raw", instance, 0,
                          /*withDims=*/false, nullptr, inputs, outputs);
  });
}

mxrt_status mxrt_instance_last_dims(const mxrt_instance *instance,
                                    int64_t *out_dims) {
  if (mxrt_status status = mxrt::checkNotNull("mxrt_instance_last_dims",
                                              {{"instance", instance}}))
    return status;
  if (!instance->lastDims.empty() && !out_dims)
    return fail(MXRT_INVALID_ARGUMENT, "mxrt_instance_last_dims: out_dims is "
                                       "NULL");
  std::copy(instance->lastDims.begin(), instance->lastDims.end(), out_dims);
  return MXRT_OK;
}

mxrt_status mxrt_instance_run_raw_dims(mxrt_instance *instance,
                                       const int64_t *dims,
                                       const void *const *inputs,
                                       void *const *outputs) {
  return mxrt::guarded([&] {
    return runInstanceRaw("mxrt_instance_run_raw_dims", instance, 0,
                          /*withDims=*/true, dims, inputs, outputs);
  });
}

mxrt_status mxrt_instance_call_raw(mxrt_instance *instance, int32_t function,
                                   const void *const *inputs,
                                   void *const *outputs) {
  return mxrt::guarded([&] {
    return runInstanceRaw("mxrt_instance_call_raw", instance, function,
                          /*withDims=*/false, nullptr, inputs, outputs);
  });
}

mxrt_status mxrt_instance_call_raw_dims(mxrt_instance *instance,
                                        int32_t function, const int64_t *dims,
                                        const void *const *inputs,
                                        void *const *outputs) {
  return mxrt::guarded([&] {
    return runInstanceRaw("mxrt_instance_call_raw_dims", instance, function,
                          /*withDims=*/true, dims, inputs, outputs);
  });
}

//===------------------------------------------------------------------===//
// Functions, parameters and training
//===------------------------------------------------------------------===//

int32_t mxrt_model_num_functions(const mxrt_model *model) {
  return model ? static_cast<int32_t>(model->desc->num_functions) : 0;
}

const char *mxrt_model_function_name(const mxrt_model *model, int32_t index) {
  if (!model || index < 0 || index >= model->desc->num_functions)
    return nullptr;
  return model->desc->functions[index].name;
}

mxrt_status mxrt_model_find_function(const mxrt_model *model, const char *name,
                                     int32_t *out_index) {
  bool inference = model && !model->trainable();
  return findNamed(
      "mxrt_model_find_function", model, name, out_index, "function",
      [&](const mxrt_model_desc &desc) {
        return findByName(desc.functions, desc.num_functions, name);
      },
      inference ? " (it is an inference model; training functions need mxc "
                  "--train)"
                : "");
}

int32_t mxrt_model_function_num_inputs(const mxrt_model *model,
                                       int32_t function) {
  if (!model || function < 0 || function >= model->desc->num_functions)
    return 0;
  return static_cast<int32_t>(model->desc->functions[function].num_inputs);
}

int32_t mxrt_model_function_num_outputs(const mxrt_model *model,
                                        int32_t function) {
  if (!model || function < 0 || function >= model->desc->num_functions)
    return 0;
  return static_cast<int32_t>(model->desc->functions[function].num_outputs);
}

mxrt_status mxrt_model_function_input_info(const mxrt_model *model,
                                           int32_t function, int32_t index,
                                           mxrt_tensor_info *out_info) {
  return getInfo("mxrt_model_function_input_info", model, function, index,
                 /*input=*/true, out_info);
}

int64_t mxrt_model_function_input_flags(const mxrt_model *model,
                                        int32_t function, int32_t index) {
  if (!model || function < 0 || function >= model->desc->num_functions)
    return 0;
  const mxrt_function_desc &fn = model->desc->functions[function];
  if (index < 0 || index >= fn.num_inputs)
    return 0;
  return fn.inputs[index].flags & (MXRT_TENSOR_CACHE | MXRT_TENSOR_LENGTH);
}

mxrt_status mxrt_model_function_output_info(const mxrt_model *model,
                                            int32_t function, int32_t index,
                                            mxrt_tensor_info *out_info) {
  return getInfo("mxrt_model_function_output_info", model, function, index,
                 /*input=*/false, out_info);
}

mxrt_status mxrt_instance_set_output_callback(mxrt_instance *instance,
                                              mxrt_output_callback callback,
                                              void *arg) {
  if (mxrt_status status = mxrt::checkNotNull(
          "mxrt_instance_set_output_callback", {{"instance", instance}}))
    return status;
  instance->call.outputReady = callback;
  instance->call.outputArg = callback ? arg : nullptr;
  return MXRT_OK;
}

mxrt_status mxrt_instance_call(mxrt_instance *instance, int32_t function,
                               mxrt_tensor *const *inputs, int32_t num_inputs,
                               mxrt_tensor *const *outputs,
                               int32_t num_outputs) {
  return mxrt::guarded([&] {
    return callFunction("mxrt_instance_call", instance, function, inputs,
                        num_inputs, outputs, num_outputs);
  });
}
