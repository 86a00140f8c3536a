// SPDX-License-Identifier: Apache-2.0
//
// Binding a model's dynamic dimensions for one call (dims.h): the values the
// tensors' shapes or the caller give, checked against the dimensions'
// bounds and against each other, then the derived ones that a function
// compiled with its dynamic extents in the code computes from them.

#include "dims.h"

#include <algorithm>
#include <string>

namespace {

using mxrt::fail;

/// Fails unless `value` lies within `dim`'s bounds; `subject()` says whose
/// value it is ("input 'x' axis 0 (dimension N)").
template <typename Subject>
mxrt_status checkBounds(const mxrt_dim_desc &dim, int64_t value,
                        Subject subject) {
  if (value < dim.min)
    return fail(MXRT_INVALID_ARGUMENT, "%s is %lld, below its minimum %lld",
                subject().c_str(), static_cast<long long>(value),
                static_cast<long long>(dim.min));
  if (dim.max >= 0 && value > dim.max)
    return fail(MXRT_INVALID_ARGUMENT, "%s is %lld, above its bound %lld",
                subject().c_str(), static_cast<long long>(value),
                static_cast<long long>(dim.max));
  return MXRT_OK;
}

/// Calls `visit(index)` for the dimension of each dynamic extent of `fn`'s
/// inputs and of each length input, in order (a dimension as often as the
/// inputs have it).
template <typename Visit>
void forEachInputDim(const mxrt_function_desc &fn, Visit visit) {
  for (int64_t i = 0; i < fn.num_inputs; ++i) {
    if (fn.inputs[i].flags & MXRT_TENSOR_LENGTH)
      visit(fn.inputs[i].offset);
    for (int64_t d = 0; d < fn.inputs[i].ndim; ++d)
      if (fn.inputs[i].shape[d] < 0)
        visit(MXRT_DIM_INDEX(fn.inputs[i].shape[d]));
  }
}

} // namespace

bool mxrt::fitsShape(const mxrt_tensor_desc &desc, const mxrt_tensor *tensor) {
  if (tensor->ndim != desc.ndim)
    return false;
  for (int32_t d = 0; d < tensor->ndim; ++d)
    if (desc.shape[d] >= 0 && tensor->shape[d] != desc.shape[d])
      return false;
  return true;
}

mxrt_status mxrt::failShape(const char *kind, const mxrt_tensor_desc &desc,
                            const mxrt_tensor *tensor,
                            const mxrt_dim_desc *dims) {
  return fail(MXRT_INVALID_ARGUMENT, "%s '%s': expected shape %s %s, got %s %s",
              kind, desc.name,
              mxrt::shapeString(desc.ndim, desc.shape, dims).c_str(),
              mxrt_dtype_name(static_cast<mxrt_dtype>(desc.dtype)),
              mxrt::shapeString(tensor->ndim, tensor->shape).c_str(),
              mxrt_dtype_name(tensor->dtype));
}

int64_t mxrt::firstDim(const mxrt_model_desc &model,
                       const mxrt_function_desc &fn) {
  int64_t first = -1;
  forEachInputDim(fn, [&](int64_t index) {
    if (first < 0)
      first = index;
  });
  // (A counted extent is the call's to find, not the caller's to give.)
  for (int64_t o = 0; o < fn.num_outputs && first < 0; ++o)
    for (int64_t d = 0; d < fn.outputs[o].ndim && first < 0; ++d)
      if (int64_t e = fn.outputs[o].shape[d];
          e < 0 && !(model.dims[MXRT_DIM_INDEX(e)].flags & MXRT_DIM_COUNTED))
        first = MXRT_DIM_INDEX(e);
  return first;
}

mxrt::DimBinding::DimBinding(const mxrt_model_desc &model,
                             const mxrt_function_desc &fn)
    : model(model), fn(fn), value(size_t(model.num_dims)),
      from(size_t(model.num_dims)), scratchBytes(fn.scratch_size) {
  std::fill(value.get(), value.get() + model.num_dims, int64_t(-1));
  std::fill(from.get(), from.get() + model.num_dims, nullptr);
}

mxrt_status mxrt::DimBinding::bind(const char *kind,
                                   const mxrt_tensor_desc &desc,
                                   const mxrt_tensor *tensor) {
  bool length = desc.flags & MXRT_TENSOR_LENGTH;
  if (length && (tensor->dtype != MXRT_I64 || tensor->ndim != 0))
    return fail(MXRT_INVALID_ARGUMENT,
                "%s '%s' (the length %s) must be an int64 scalar, got %s %s",
                kind, desc.name, model.dims[desc.offset].name,
                mxrt::shapeString(tensor->ndim, tensor->shape).c_str(),
                mxrt_dtype_name(tensor->dtype));
  // A length input's value is its dimension's (axis -1 below).
  for (int32_t d = length ? -1 : 0; d < (length ? 0 : tensor->ndim); ++d) {
    if (d >= 0 && desc.shape[d] >= 0)
      continue;
    int64_t index = d < 0 ? desc.offset : MXRT_DIM_INDEX(desc.shape[d]);
    const mxrt_dim_desc &dim = model.dims[index];
    int64_t extent =
        d < 0 ? *static_cast<const int64_t *>(tensor->data) : tensor->shape[d];
    auto where = [&] {
      return std::string(kind) + " '" + desc.name + "'" +
             (d < 0 ? std::string(" (the length ") + dim.name + ")"
                    : " axis " + std::to_string(d) + " (dimension " + dim.name +
                          ")");
    };
    if (value[index] >= 0) {
      if (extent == value[index])
        continue;
      std::string source = from[index]
                               ? "input '" + std::string(from[index]) + "' gave"
                               : std::string("the inputs' shapes give");
      return fail(MXRT_INVALID_ARGUMENT, "%s is %lld, but %s %s = %lld",
                  where().c_str(), static_cast<long long>(extent),
                  source.c_str(), dim.name,
                  static_cast<long long>(value[index]));
    }
    if (mxrt_status status = checkBounds(dim, extent, where))
      return status;
    value[index] = extent;
    from[index] = desc.name;
  }
  return MXRT_OK;
}

mxrt_status mxrt::DimBinding::take(const int64_t *dims, const char *what) {
  mxrt_status status = MXRT_OK;
  forEachInputDim(fn, [&](int64_t index) {
    if (status || value[index] >= 0)
      return;
    const mxrt_dim_desc &dim = model.dims[index];
    status = checkBounds(dim, dims[index], [&] {
      return std::string(what) + ": dimension " + dim.name + " of model '" +
             model.name + "'";
    });
    value[index] = dims[index];
  });
  return status;
}

std::string mxrt::DimBinding::describe() {
  std::string text;
  for (int64_t i = 0; i < model.num_dims; ++i)
    if (!derived(i) && value[i] >= 0)
      text += (text.empty() ? "" : ", ") + std::string(model.dims[i].name) +
              " = " + std::to_string(value[i]);
  return text;
}

mxrt_status mxrt::DimBinding::setCounted(int64_t index, int64_t extent) {
  const mxrt_dim_desc &dim = model.dims[index];
  if (extent < 0 || extent > dim.max)
    return fail(MXRT_INTERNAL,
                "function '%s' of model '%s' found %lld for dimension %s, "
                "outside 0..%lld",
                fn.name, model.name, static_cast<long long>(extent), dim.name,
                static_cast<long long>(dim.max));
  value[index] = extent;
  return MXRT_OK;
}

mxrt_status mxrt::DimBinding::derive() {
  for (int64_t i = 0; i < model.num_dims; ++i)
    if (counted(i))
      value[i] = model.dims[i].max;
  if (!fn.shapes)
    return MXRT_OK;
  bool complete = true;
  forEachInputDim(
      fn, [&](int64_t index) { complete = complete && value[index] >= 0; });
  if (!complete) // an input not given to mxrt_model_bind_dims
    return MXRT_OK;
  // Derived values are computed afresh every call, never taken from the
  // caller; the others must come back as they went in, or the function
  // would read extents its buffers do not have.
  Array<int64_t> given(size_t(model.num_dims));
  for (int64_t i = 0; i < model.num_dims; ++i) {
    if (derived(i) && !counted(i))
      value[i] = -1;
    given[i] = value[i];
  }
  int64_t scratch = fn.shapes(value.get());
  for (int64_t i = 0; i < model.num_dims; ++i)
    if (!derived(i) && value[i] != given[i])
      return fail(MXRT_INTERNAL,
                  "function '%s' of model '%s': its shapes function changed "
                  "dimension %s from %lld to %lld (only derived dimensions "
                  "are its to set)",
                  fn.name, model.name, model.dims[i].name,
                  static_cast<long long>(given[i]),
                  static_cast<long long>(value[i]));
  for (int64_t o = 0; o < fn.num_outputs; ++o) {
    const mxrt_tensor_desc &output = fn.outputs[o];
    for (int64_t d = 0; d < output.ndim; ++d) {
      int64_t index =
          output.shape[d] < 0 ? MXRT_DIM_INDEX(output.shape[d]) : -1;
      if (index < 0 || value[index] >= 0)
        continue;
      return fail(MXRT_INVALID_ARGUMENT,
                  "output '%s' axis %lld (dimension %s) would be %lld for "
                  "%s: the inputs are too small for function '%s' of model "
                  "'%s'",
                  output.name, static_cast<long long>(d),
                  model.dims[index].name, static_cast<long long>(value[index]),
                  describe().c_str(), fn.name, model.name);
    }
  }
  // A bounded derived dimension: a key/value cache's length after the call
  // against its capacity.
  for (int64_t i = 0; i < model.num_dims; ++i)
    if (derived(i) && model.dims[i].max >= 0 && value[i] > model.dims[i].max)
      return fail(MXRT_INVALID_ARGUMENT,
                  "dimension %s would be %lld for %s, above its bound %lld "
                  "(the positions a key/value cache holds) in function '%s' "
                  "of model '%s'",
                  model.dims[i].name, static_cast<long long>(value[i]),
                  describe().c_str(), static_cast<long long>(model.dims[i].max),
                  fn.name, model.name);
  if (scratch < 0)
    return fail(MXRT_INTERNAL,
                "function '%s' of model '%s': its shapes function asked for "
                "%lld bytes of scratch for %s",
                fn.name, model.name, static_cast<long long>(scratch),
                describe().c_str());
  scratchBytes = std::max(scratch, fn.scratch_size);
  return MXRT_OK;
}
