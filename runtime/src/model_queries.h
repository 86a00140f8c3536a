// SPDX-License-Identifier: Apache-2.0
// The queries and checks model.cpp (functions, inputs, outputs, calls) and
// instance_params.cpp (parameters) share: describing a table entry, finding
// one by name, checking an index against a table and a tensor against its
// entry, each failing with a message that names the model and the entry.
#ifndef MXRT_SRC_MODEL_QUERIES_H
#define MXRT_SRC_MODEL_QUERIES_H

#include "call_checks.h"
#include "dims.h"
#include "internal.h"

#include <cstring>

namespace mxrt {

/// `desc` as the public mxrt_tensor_info (its strings stay the table's).
inline void describe(const mxrt_tensor_desc &desc, mxrt_tensor_info *outInfo) {
  outInfo->name = desc.name;
  outInfo->dtype = static_cast<mxrt_dtype>(desc.dtype);
  outInfo->ndim = static_cast<int32_t>(desc.ndim);
  outInfo->shape = desc.shape;
}

/// Index of the entry of `table` (tensors or functions) called `name`, or -1.
template <typename Desc>
int32_t findByName(const Desc *table, int64_t count, const char *name) {
  for (int64_t i = 0; i < count; ++i)
    if (std::strcmp(table[i].name, name) == 0)
      return static_cast<int32_t>(i);
  return -1;
}

/// What mxrt_model_find_{input,function,param} share: the argument checks,
/// then `indexOf(desc)` (-1 when absent) and a NOT_FOUND naming the model,
/// the `entity` ("input") and `name`, followed by `hint`.
template <typename IndexOf>
mxrt_status findNamed(const char *what, const mxrt_model *model,
                      const char *name, int32_t *outIndex, const char *entity,
                      IndexOf indexOf, const char *hint = "") {
  if (mxrt_status status = mxrt::checkNotNull(
          what, {{"model", model}, {"name", name}, {"out_index", outIndex}}))
    return status;
  int32_t index = indexOf(*model->desc);
  if (index < 0)
    return fail(MXRT_NOT_FOUND, "model '%s' has no %s named '%s'%s",
                model->desc->name, entity, name, hint);
  *outIndex = index;
  return MXRT_OK;
}

/// Checks one tensor against its descriptor entry (`dims`: the model's, for
/// messages); `kind` is "input", "output" or "parameter".
inline mxrt_status checkTensor(const char *kind, int32_t index,
                               const mxrt_tensor_desc &desc,
                               const mxrt_tensor *tensor,
                               const mxrt_dim_desc *dims = nullptr) {
  if (!tensor)
    return fail(MXRT_INVALID_ARGUMENT, "%s '%s' (#%d) is NULL", kind, desc.name,
                index);
  if (tensor->dtype != desc.dtype || !mxrt::fitsShape(desc, tensor))
    return mxrt::failShape(kind, desc, tensor, dims);
  // An empty tensor (a decoder's cache before the first token) may have
  // none.
  bool empty = false;
  for (int32_t i = 0; i < tensor->ndim; ++i)
    empty |= tensor->shape[i] == 0;
  if (!tensor->data && !empty)
    return fail(MXRT_INVALID_ARGUMENT, "%s '%s' has no data", kind, desc.name);
  return MXRT_OK;
}

/// Fails unless `model` and `out` are given and `index` is one of the
/// model's `count` `entries` ("parameters"), as the info queries require.
inline mxrt_status checkEntry(const char *what, const mxrt_model *model,
                              const void *out, int32_t index,
                              int64_t mxrt_model_desc::*count,
                              const char *entries) {
  if (mxrt_status status =
          mxrt::checkNotNull(what, {{"model", model}, {"out_info", out}}))
    return status;
  int64_t n = model->desc->*count;
  if (index < 0 || index >= n)
    return fail(MXRT_NOT_FOUND,
                "%s: index %d is out of range (model '%s' has %lld %s)", what,
                index, model->desc->name, static_cast<long long>(n), entries);
  return MXRT_OK;
}

} // namespace mxrt

#endif // MXRT_SRC_MODEL_QUERIES_H
