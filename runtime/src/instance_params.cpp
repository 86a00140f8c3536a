// SPDX-License-Identifier: Apache-2.0
//
// Parameters of models and instances: their table entries, and copying a
// training instance's parameters out and in (by index or by name, on the
// host or the GPU), or viewing one in place.

#include "cuda.h"
#include "internal.h"
#include "model_queries.h"

#include <cstring>
#include <string>

using mxrt::checkEntry;
using mxrt::checkTensor;
using mxrt::describe;
using mxrt::fail;
using mxrt::findByName;
using mxrt::findNamed;

namespace {

/// The parameter at `index`, or NULL after recording an error naming `what`.
const mxrt_tensor_desc *paramAt(const mxrt_instance *instance, int32_t index,
                                const char *what) {
  const mxrt_model_desc *desc = instance->model->desc;
  if (index < 0 || index >= desc->num_params) {
    fail(MXRT_NOT_FOUND,
         "%s: parameter index %d is out of range (model '%s' has %lld "
         "parameters)",
         what, index, desc->name, static_cast<long long>(desc->num_params));
    return nullptr;
  }
  return &desc->params[index];
}

/// mxrt_instance_get_param (`toTensor`) and mxrt_instance_set_param: the
/// same checks of the instance, the index and the tensor, then one copy of
/// the parameter's bytes out of the instance or into it.
mxrt_status copyParam(const char *what, const mxrt_instance *instance,
                      int32_t index, const mxrt_tensor *tensor, bool toTensor) {
  if (mxrt_status status = mxrt::checkNotNull(what, {{"instance", instance}}))
    return status;
  if (!toTensor)
    if (mxrt_status status =
            mxrt::requireTrainable(what, instance->model, "change"))
      return status;
  const mxrt_tensor_desc *param = paramAt(instance, index, what);
  if (!param)
    return MXRT_NOT_FOUND;
  if (mxrt_status status = checkTensor("parameter", index, *param, tensor))
    return status;
  uint8_t *stored = instance->params[index];
  if (toTensor && instance->model->cuda()) {
    std::string why;
    if (!mxrt::cuda::toHost(tensor->data, stored, size_t(param->size_bytes),
                            why))
      return fail(MXRT_INTERNAL, "%s: parameter '%s' from the GPU: %s", what,
                  param->name, why.c_str());
    return MXRT_OK;
  }
  if (instance->model->cuda()) {
    std::string why;
    if (!mxrt::cuda::toDevice(stored, tensor->data, size_t(param->size_bytes),
                              why))
      return fail(MXRT_INTERNAL, "%s: parameter '%s' to the GPU: %s", what,
                  param->name, why.c_str());
    return MXRT_OK;
  }
  if (toTensor)
    std::memmove(tensor->data, stored, param->size_bytes);
  else
    std::memmove(stored, tensor->data, param->size_bytes);
  return MXRT_OK;
}

} // namespace

int32_t mxrt_model_num_params(const mxrt_model *model) {
  return model ? static_cast<int32_t>(model->desc->num_params) : 0;
}

mxrt_status mxrt_model_param_info(const mxrt_model *model, int32_t index,
                                  mxrt_tensor_info *out_info) {
  if (mxrt_status status =
          checkEntry("mxrt_model_param_info", model, out_info, index,
                     &mxrt_model_desc::num_params, "parameters"))
    return status;
  describe(model->desc->params[index], out_info);
  return MXRT_OK;
}

mxrt_status mxrt_model_find_param(const mxrt_model *model, const char *name,
                                  int32_t *out_index) {
  return findNamed("mxrt_model_find_param", model, name, out_index, "parameter",
                   [&](const mxrt_model_desc &desc) {
                     return findByName(desc.params, desc.num_params, name);
                   });
}

mxrt_status mxrt_instance_get_param(const mxrt_instance *instance,
                                    int32_t index, mxrt_tensor *dst) {
  return mxrt::guarded([&] {
    return copyParam("mxrt_instance_get_param", instance, index, dst,
                     /*toTensor=*/true);
  });
}

/// mxrt_instance_read_param (`toBuffer`) and mxrt_instance_write_param:
/// parameter `name` copied to or from `bytes` bytes at `buffer`, through a
/// tensor viewing it (get_param's and set_param's checks and copies).
mxrt_status copyParamByName(const char *what, const mxrt_instance *instance,
                            const char *name, void *buffer, size_t bytes,
                            bool toBuffer) {
  if (mxrt_status status = mxrt::checkNotNull(
          what, {{"instance", instance}, {"name", name}, {"buffer", buffer}}))
    return status;
  int32_t index;
  if (mxrt_status status = mxrt_model_find_param(instance->model, name, &index))
    return fail(status, "%s: %s", what, mxrt_last_error());
  const mxrt_tensor_desc &param = instance->model->desc->params[index];
  if (bytes != size_t(param.size_bytes))
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: parameter '%s' of model '%s' is %lld bytes (%s), got a "
                "buffer of %zu",
                what, name, instance->model->desc->name,
                static_cast<long long>(param.size_bytes),
                mxrt_dtype_name(static_cast<mxrt_dtype>(param.dtype)), bytes);
  mxrt_tensor *view = nullptr;
  if (mxrt_status status =
          mxrt_tensor_wrap(static_cast<mxrt_dtype>(param.dtype),
                           int32_t(param.ndim), param.shape, buffer, &view))
    return status;
  mxrt_status status = copyParam(what, instance, index, view, toBuffer);
  mxrt_tensor_release(view);
  if (status == MXRT_OK && !toBuffer)
    mxrt::paramsChanged(const_cast<mxrt_instance *>(instance));
  return status;
}

mxrt_status mxrt_instance_read_param(const mxrt_instance *instance,
                                     const char *name, void *dst,
                                     size_t dst_bytes) {
  return mxrt::guarded([&] {
    return copyParamByName("mxrt_instance_read_param", instance, name, dst,
                           dst_bytes, /*toBuffer=*/true);
  });
}

mxrt_status mxrt_instance_write_param(mxrt_instance *instance, const char *name,
                                      const void *src, size_t src_bytes) {
  return mxrt::guarded([&] {
    return copyParamByName("mxrt_instance_write_param", instance, name,
                           const_cast<void *>(src), src_bytes,
                           /*toBuffer=*/false);
  });
}

mxrt_status mxrt_instance_param_view(mxrt_instance *instance, int32_t index,
                                     mxrt_tensor **out_view) {
  return mxrt::guarded([&] {
    const char *what = "mxrt_instance_param_view";
    if (mxrt_status status = mxrt::checkNotNull(
            what, {{"instance", instance}, {"out_view", out_view}}))
      return status;
    *out_view = nullptr;
    if (mxrt_status status =
            mxrt::requireTrainable(what, instance->model, "change"))
      return status;
    if (instance->model->cuda())
      return fail(MXRT_UNSUPPORTED,
                  "%s: model '%s' keeps its parameters in GPU memory; read "
                  "and write them with mxrt_instance_get_param / "
                  "mxrt_instance_set_param",
                  what, instance->model->desc->name);
    const mxrt_tensor_desc *param = paramAt(instance, index, what);
    if (!param)
      return MXRT_NOT_FOUND;
    instance->viewsHandedOut = true;
    mxrt::paramsChanged(instance);
    return mxrt_tensor_wrap(static_cast<mxrt_dtype>(param->dtype),
                            static_cast<int32_t>(param->ndim), param->shape,
                            instance->params[index], out_view);
  });
}

mxrt_status mxrt_instance_set_param(mxrt_instance *instance, int32_t index,
                                    const mxrt_tensor *src) {
  return mxrt::guarded([&] {
    mxrt_status status = copyParam("mxrt_instance_set_param", instance, index,
                                   src, /*toTensor=*/false);
    if (status == MXRT_OK)
      mxrt::paramsChanged(instance);
    return status;
  });
}
