// SPDX-License-Identifier: Apache-2.0
//
// Models and instances: loading a compiled model's descriptor table (by dlopen
// or from a statically linked symbol), checking it once so that nothing later
// trusts a corrupt table, and running its entry point on checked tensors.

#include "internal.h"

#include "mxrt/model_abi.h"

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <sys/stat.h>

/// The object behind mxrt_model. Immutable after creation, so that instances
/// on different threads can share it.
struct mxrt_model {
  const mxrt_model_desc *desc = nullptr;
  /// dlopen handle, or NULL for a statically linked model.
  void *library = nullptr;
  /// Where the model came from, for messages.
  std::string origin;
};

/// The object behind mxrt_instance: everything one run mutates.
struct mxrt_instance {
  const mxrt_model *model = nullptr;
  /// Set by mxrt_instance_create_static: released with the instance.
  mxrt_model *ownedModel = nullptr;
  const mxrt_function_desc *function = nullptr;
  /// [inputs..., outputs..., params...] handed to the entry point; the
  /// parameter slots are filled once at creation.
  std::vector<void *> buffers;
  uint8_t *scratch = nullptr;
  mxrt_exec_context context = {};
  int32_t numThreads = 1;

  ~mxrt_instance() {
    std::free(scratch);
    mxrt_model_release(ownedModel);
  }
};

namespace {

using mxrt::fail;

/// Checks one input, output or parameter entry of the table.
mxrt_status checkTensorDesc(const std::string &origin, const char *kind,
                            int64_t index, const mxrt_tensor_desc &desc) {
  if (!desc.name)
    return fail(MXRT_INVALID_ARGUMENT, "%s: %s #%lld has no name",
                origin.c_str(), kind, static_cast<long long>(index));
  if (!mxrt::isValidDtype(desc.dtype))
    return fail(MXRT_INVALID_ARGUMENT, "%s: %s '%s' has unknown dtype %lld",
                origin.c_str(), kind, desc.name,
                static_cast<long long>(desc.dtype));
  if (desc.ndim < 0 || desc.ndim > MXRT_MAX_DIMS || (desc.ndim && !desc.shape))
    return fail(MXRT_INVALID_ARGUMENT, "%s: %s '%s' has an invalid rank %lld",
                origin.c_str(), kind, desc.name,
                static_cast<long long>(desc.ndim));
  int64_t numElements = 0;
  size_t sizeBytes = 0;
  if (mxrt::checkTensorArgs("descriptor", desc.dtype,
                            static_cast<int32_t>(desc.ndim), desc.shape,
                            &numElements, &sizeBytes))
    return fail(MXRT_INVALID_ARGUMENT, "%s: %s '%s' has an invalid shape: %s",
                origin.c_str(), kind, desc.name, mxrt_last_error());
  if (desc.size_bytes != static_cast<int64_t>(sizeBytes))
    return fail(
        MXRT_INVALID_ARGUMENT,
        "%s: %s '%s' claims %lld bytes, but %s %s takes %zu", origin.c_str(),
        kind, desc.name, static_cast<long long>(desc.size_bytes),
        mxrt::shapeString(desc.ndim, desc.shape).c_str(),
        mxrt_dtype_name(static_cast<mxrt_dtype>(desc.dtype)), sizeBytes);
  return MXRT_OK;
}

/// Checks everything the runtime later relies on, so that a corrupt or
/// mismatched table fails here with a message instead of crashing in run.
mxrt_status checkDescriptor(const std::string &origin,
                            const mxrt_model_desc *desc) {
  if (desc->abi_version != MXRT_MODEL_ABI_VERSION)
    return fail(MXRT_UNSUPPORTED,
                "%s: model ABI version %lld, but this runtime supports version "
                "%d; recompile the model with a matching mxc",
                origin.c_str(), static_cast<long long>(desc->abi_version),
                MXRT_MODEL_ABI_VERSION);
  if (!desc->name)
    return fail(MXRT_INVALID_ARGUMENT, "%s: descriptor has no model name",
                origin.c_str());
  if (desc->num_functions < 1 || !desc->functions)
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: descriptor has no functions (num_functions = %lld)",
                origin.c_str(), static_cast<long long>(desc->num_functions));
  for (int64_t f = 0; f < desc->num_functions; ++f) {
    const mxrt_function_desc &fn = desc->functions[f];
    const char *fnName = fn.name ? fn.name : "?";
    if (!fn.name || !fn.entry)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: function #%lld ('%s') has no name or entry point",
                  origin.c_str(), static_cast<long long>(f), fnName);
    if (fn.num_inputs < 0 || fn.num_outputs < 0 ||
        fn.num_inputs > INT32_MAX / 2 || fn.num_outputs > INT32_MAX / 2 ||
        (fn.num_inputs && !fn.inputs) || (fn.num_outputs && !fn.outputs) ||
        fn.scratch_size < 0)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: function '%s' has invalid input/output tables or "
                  "scratch size",
                  origin.c_str(), fnName);
    for (int64_t i = 0; i < fn.num_inputs; ++i)
      if (mxrt_status status =
              checkTensorDesc(origin, "input", i, fn.inputs[i]))
        return status;
    for (int64_t i = 0; i < fn.num_outputs; ++i)
      if (mxrt_status status =
              checkTensorDesc(origin, "output", i, fn.outputs[i]))
        return status;
  }
  if (desc->num_params < 0 || desc->num_params > INT32_MAX / 2 ||
      (desc->num_params && !desc->params) || desc->weights_size < 0 ||
      (desc->weights_size && !desc->weights))
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: descriptor has invalid parameter or weight tables",
                origin.c_str());
  for (int64_t i = 0; i < desc->num_params; ++i) {
    const mxrt_tensor_desc &param = desc->params[i];
    if (mxrt_status status = checkTensorDesc(origin, "parameter", i, param))
      return status;
    if (param.offset < 0 || param.offset > desc->weights_size ||
        param.size_bytes > desc->weights_size - param.offset)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: parameter '%s' (offset %lld, %lld bytes) lies outside "
                  "the %lld-byte weights",
                  origin.c_str(), param.name,
                  static_cast<long long>(param.offset),
                  static_cast<long long>(param.size_bytes),
                  static_cast<long long>(desc->weights_size));
  }
  return MXRT_OK;
}

mxrt_status makeModel(const mxrt_model_desc *desc, void *library,
                      std::string origin, mxrt_model **outModel) {
  if (mxrt_status status = checkDescriptor(origin, desc))
    return status;
  auto model = std::make_unique<mxrt_model>();
  model->desc = desc;
  model->origin = std::move(origin);
  model->library = library; // Owned from here on.
  *outModel = model.release();
  return MXRT_OK;
}

mxrt_status openModel(const char *path, mxrt_model **outModel) {
  if (!path)
    return fail(MXRT_INVALID_ARGUMENT, "mxrt_model_open: path is NULL");
  if (!outModel)
    return fail(MXRT_INVALID_ARGUMENT, "mxrt_model_open: out_model is NULL");
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

mxrt_status getInfo(const mxrt_model *model, int32_t index, bool input,
                    mxrt_tensor_info *outInfo) {
  const char *what = input ? "mxrt_model_input_info" : "mxrt_model_output_info";
  if (!model)
    return fail(MXRT_INVALID_ARGUMENT, "%s: model is NULL", what);
  if (!outInfo)
    return fail(MXRT_INVALID_ARGUMENT, "%s: out_info is NULL", what);
  const mxrt_function_desc &fn = model->desc->functions[0];
  int64_t count = input ? fn.num_inputs : fn.num_outputs;
  if (index < 0 || index >= count)
    return fail(MXRT_NOT_FOUND,
                "%s: index %d is out of range (the model has "
                "%lld %s)",
                what, index, static_cast<long long>(count),
                input ? "inputs" : "outputs");
  const mxrt_tensor_desc &desc = input ? fn.inputs[index] : fn.outputs[index];
  outInfo->name = desc.name;
  outInfo->dtype = static_cast<mxrt_dtype>(desc.dtype);
  outInfo->ndim = static_cast<int32_t>(desc.ndim);
  outInfo->shape = desc.shape;
  return MXRT_OK;
}

mxrt_status createInstance(const mxrt_model *model,
                           const mxrt_instance_options *options,
                           mxrt_instance **outInstance) {
  if (!model)
    return fail(MXRT_INVALID_ARGUMENT, "mxrt_instance_create: model is NULL");
  if (!outInstance)
    return fail(MXRT_INVALID_ARGUMENT,
                "mxrt_instance_create: out_instance is NULL");
  int32_t numThreads = 1;
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
    if (options->num_threads > 0)
      numThreads = options->num_threads;
  }
  const mxrt_model_desc *desc = model->desc;
  const mxrt_function_desc &fn = desc->functions[0];
  auto instance = std::make_unique<mxrt_instance>();
  instance->model = model;
  instance->function = &fn;
  instance->numThreads = numThreads;
  instance->buffers.assign(fn.num_inputs + fn.num_outputs + desc->num_params,
                           nullptr);
  // Parameters are read only for inference; the entry point's signature is
  // shared with training functions that take the same slots.
  for (int64_t i = 0; i < desc->num_params; ++i)
    instance->buffers[fn.num_inputs + fn.num_outputs + i] =
        const_cast<uint8_t *>(desc->weights + desc->params[i].offset);
  if (fn.scratch_size > 0) {
    instance->scratch =
        static_cast<uint8_t *>(mxrt::alignedAlloc(fn.scratch_size));
    if (!instance->scratch)
      return fail(MXRT_OUT_OF_MEMORY,
                  "mxrt_instance_create: cannot allocate %lld bytes of "
                  "scratch for model '%s'",
                  static_cast<long long>(fn.scratch_size), desc->name);
    // Deterministic contents, so that a kernel reading scratch before writing
    // it misbehaves the same way every time.
    std::memset(instance->scratch, 0, fn.scratch_size);
  }
  instance->context.scratch = instance->scratch;
  instance->context.thread_pool = nullptr;
  *outInstance = instance.release();
  return MXRT_OK;
}

/// Checks one tensor against its descriptor entry; `kind` is "input" or
/// "output".
mxrt_status checkTensor(const char *kind, int32_t index,
                        const mxrt_tensor_desc &desc,
                        const mxrt_tensor *tensor) {
  if (!tensor)
    return fail(MXRT_INVALID_ARGUMENT, "%s '%s' (#%d) is NULL", kind, desc.name,
                index);
  bool sameShape = tensor->dtype == desc.dtype && tensor->ndim == desc.ndim;
  for (int32_t d = 0; sameShape && d < tensor->ndim; ++d)
    sameShape = tensor->shape[d] == desc.shape[d];
  if (!sameShape)
    return fail(MXRT_INVALID_ARGUMENT,
                "%s '%s': expected shape %s %s, got %s %s", kind, desc.name,
                mxrt::shapeString(desc.ndim, desc.shape).c_str(),
                mxrt_dtype_name(static_cast<mxrt_dtype>(desc.dtype)),
                mxrt::shapeString(tensor->ndim, tensor->shape).c_str(),
                mxrt_dtype_name(tensor->dtype));
  if (!tensor->data)
    return fail(MXRT_INVALID_ARGUMENT, "%s '%s' has no data", kind, desc.name);
  return MXRT_OK;
}

mxrt_status runInstance(mxrt_instance *instance, mxrt_tensor *const *inputs,
                        int32_t numInputs, mxrt_tensor *const *outputs,
                        int32_t numOutputs) {
  if (!instance)
    return fail(MXRT_INVALID_ARGUMENT, "mxrt_instance_run: instance is NULL");
  const mxrt_function_desc &fn = *instance->function;
  const char *model = instance->model->desc->name;
  if (numInputs != fn.num_inputs)
    return fail(MXRT_INVALID_ARGUMENT, "model '%s' takes %lld inputs, got %d",
                model, static_cast<long long>(fn.num_inputs), numInputs);
  if (numOutputs != fn.num_outputs)
    return fail(MXRT_INVALID_ARGUMENT,
                "model '%s' produces %lld outputs, got %d", model,
                static_cast<long long>(fn.num_outputs), numOutputs);
  if (numInputs > 0 && !inputs)
    return fail(MXRT_INVALID_ARGUMENT, "mxrt_instance_run: inputs is NULL");
  if (numOutputs > 0 && !outputs)
    return fail(MXRT_INVALID_ARGUMENT, "mxrt_instance_run: outputs is NULL");
  void **buffers = instance->buffers.data();
  for (int32_t i = 0; i < numInputs; ++i) {
    if (mxrt_status status = checkTensor("input", i, fn.inputs[i], inputs[i]))
      return status;
    buffers[i] = inputs[i]->data;
  }
  for (int32_t i = 0; i < numOutputs; ++i) {
    if (mxrt_status status =
            checkTensor("output", i, fn.outputs[i], outputs[i]))
      return status;
    buffers[numInputs + i] = outputs[i]->data;
  }
  fn.entry(buffers, &instance->context);
  return MXRT_OK;
}

mxrt_status runInstanceRaw(mxrt_instance *instance, const void *const *inputs,
                           void *const *outputs) {
  if (!instance)
    return fail(MXRT_INVALID_ARGUMENT,
                "mxrt_instance_run_raw: instance is NULL");
  const mxrt_function_desc &fn = *instance->function;
  if (fn.num_inputs > 0 && !inputs)
    return fail(MXRT_INVALID_ARGUMENT, "mxrt_instance_run_raw: inputs is NULL");
  if (fn.num_outputs > 0 && !outputs)
    return fail(MXRT_INVALID_ARGUMENT,
                "mxrt_instance_run_raw: outputs is NULL");
  void **buffers = instance->buffers.data();
  for (int64_t i = 0; i < fn.num_inputs; ++i) {
    if (!inputs[i])
      return fail(MXRT_INVALID_ARGUMENT, "input '%s' (#%lld) is NULL",
                  fn.inputs[i].name, static_cast<long long>(i));
    buffers[i] = const_cast<void *>(inputs[i]);
  }
  for (int64_t i = 0; i < fn.num_outputs; ++i) {
    if (!outputs[i])
      return fail(MXRT_INVALID_ARGUMENT, "output '%s' (#%lld) is NULL",
                  fn.outputs[i].name, static_cast<long long>(i));
    buffers[fn.num_inputs + i] = outputs[i];
  }
  fn.entry(buffers, &instance->context);
  return MXRT_OK;
}

} // namespace

mxrt_status mxrt_model_open(const char *path, mxrt_model **out_model) {
  return mxrt::guarded([&] { return openModel(path, out_model); });
}

mxrt_status mxrt_model_from_descriptor(const struct mxrt_model_desc *desc,
                                       mxrt_model **out_model) {
  return mxrt::guarded([&]() -> mxrt_status {
    if (!desc)
      return fail(MXRT_INVALID_ARGUMENT,
                  "mxrt_model_from_descriptor: desc is NULL");
    if (!out_model)
      return fail(MXRT_INVALID_ARGUMENT,
                  "mxrt_model_from_descriptor: out_model is NULL");
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
  return getInfo(model, index, /*input=*/true, out_info);
}

mxrt_status mxrt_model_output_info(const mxrt_model *model, int32_t index,
                                   mxrt_tensor_info *out_info) {
  return getInfo(model, index, /*input=*/false, out_info);
}

mxrt_status mxrt_model_find_input(const mxrt_model *model, const char *name,
                                  int32_t *out_index) {
  if (!model)
    return fail(MXRT_INVALID_ARGUMENT, "mxrt_model_find_input: model is NULL");
  if (!name)
    return fail(MXRT_INVALID_ARGUMENT, "mxrt_model_find_input: name is NULL");
  if (!out_index)
    return fail(MXRT_INVALID_ARGUMENT,
                "mxrt_model_find_input: out_index is NULL");
  const mxrt_function_desc &fn = model->desc->functions[0];
  for (int64_t i = 0; i < fn.num_inputs; ++i) {
    if (std::strcmp(fn.inputs[i].name, name) == 0) {
      *out_index = static_cast<int32_t>(i);
      return MXRT_OK;
    }
  }
  return fail(MXRT_NOT_FOUND, "model '%s' has no input named '%s'",
              model->desc->name, name);
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
    if (!out_instance)
      return fail(MXRT_INVALID_ARGUMENT,
                  "mxrt_instance_create_static: out_instance is NULL");
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
  delete instance;
}

mxrt_status mxrt_instance_run(mxrt_instance *instance,
                              mxrt_tensor *const *inputs, int32_t num_inputs,
                              mxrt_tensor *const *outputs,
                              int32_t num_outputs) {
  return mxrt::guarded([&] {
    return runInstance(instance, inputs, num_inputs, outputs, num_outputs);
  });
}

mxrt_status mxrt_instance_run_raw(mxrt_instance *instance,
                                  const void *const *inputs,
                                  void *const *outputs) {
  return mxrt::guarded(
      [&] { return runInstanceRaw(instance, inputs, outputs); });
}
