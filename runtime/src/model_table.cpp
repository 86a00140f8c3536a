// SPDX-License-Identifier: Apache-2.0
//
// The check of a compiled model's descriptor table (model_abi.h), run once
// when a model is opened so that nothing later trusts a corrupt or
// mismatched table: counts, names, ranks, dtypes, parameters inside the
// weights, dynamic dimensions, batch variants and shapes functions.

#include "internal.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <string_view>

namespace {

using mxrt::fail;

/// What a tensor descriptor describes: its allowed flags differ.
enum class TensorKind { Input, Output, Parameter, State };

const char *kindName(TensorKind kind) {
  switch (kind) {
  case TensorKind::Input:
    return "input";
  case TensorKind::Output:
    return "output";
  case TensorKind::Parameter:
    return "parameter";
  case TensorKind::State:
    return "state";
  }
  return "tensor";
}

/// The dynamic extents an input or output may have (model_abi.h).
struct Extents {
  /// The batch dimension of its function with variants, on axis 0 only
  /// (-1: none).
  int64_t batchDim = -1;
  /// Its function has `shapes`: any dimension on any axis, but an input
  /// none that is derived.
  bool any = false;
  /// An output may have a counted dimension on any axis (its function's
  /// counts are checked to give it).
  bool counted = false;
};

/// Checks one input, output, parameter or state entry of the table of
/// `model`, whose dynamic extents are those `extents` allows (none for
/// parameters and states).
mxrt_status checkTensorDesc(const std::string &origin, TensorKind kindCode,
                            int64_t index, const mxrt_tensor_desc &desc,
                            const mxrt_model_desc &model,
                            Extents extents = {}) {
  const char *kind = kindName(kindCode);
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
  // The shape with the dynamic extents as 1, as size_bytes counts it.
  int64_t shape[MXRT_MAX_DIMS];
  for (int64_t d = 0; d < desc.ndim; ++d) {
    shape[d] = desc.shape[d];
    if (shape[d] >= 0)
      continue;
    int64_t dim = MXRT_DIM_INDEX(shape[d]);
    if (extents.counted && kindCode == TensorKind::Output &&
        dim < model.num_dims && (model.dims[dim].flags & MXRT_DIM_COUNTED)) {
      shape[d] = 1;
      continue;
    }
    if (extents.batchDim < 0 && !extents.any)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: %s '%s' has dynamic extent %lld on axis %lld, but only "
                  "the inputs and outputs of a function with variants or "
                  "shapes may have one",
                  origin.c_str(), kind, desc.name,
                  static_cast<long long>(shape[d]), static_cast<long long>(d));
    if (!extents.any && (d != 0 || dim != extents.batchDim))
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: %s '%s' has dynamic extent %lld on axis %lld, but its "
                  "function's one dynamic extent is its batch dimension '%s' "
                  "(%lld), on axis 0",
                  origin.c_str(), kind, desc.name,
                  static_cast<long long>(shape[d]), static_cast<long long>(d),
                  model.dims[extents.batchDim].name,
                  static_cast<long long>(MXRT_DIM_EXTENT(extents.batchDim)));
    if (dim >= model.num_dims)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: %s '%s' has dynamic extent %lld on axis %lld, but the "
                  "model has %lld dimensions",
                  origin.c_str(), kind, desc.name,
                  static_cast<long long>(shape[d]), static_cast<long long>(d),
                  static_cast<long long>(model.num_dims));
    // A call binds the inputs' from their shapes, and computes the derived.
    if (kindCode == TensorKind::Input &&
        (model.dims[dim].flags & MXRT_DIM_DERIVED))
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: input '%s' has derived dimension '%s' on axis %lld; "
                  "only outputs may have one",
                  origin.c_str(), desc.name, model.dims[dim].name,
                  static_cast<long long>(d));
    shape[d] = 1;
  }
  int64_t numElements = 0;
  size_t sizeBytes = 0;
  if (mxrt::checkTensorArgs("descriptor", desc.dtype,
                            static_cast<int32_t>(desc.ndim), shape,
                            &numElements, &sizeBytes))
    return fail(MXRT_INVALID_ARGUMENT, "%s: %s '%s' has an invalid shape: %s",
                origin.c_str(), kind, desc.name, mxrt_last_error());
  if (desc.size_bytes != static_cast<int64_t>(sizeBytes))
    return fail(
        MXRT_INVALID_ARGUMENT,
        "%s: %s '%s' claims %lld bytes, but %s %s takes %zu", origin.c_str(),
        kind, desc.name, static_cast<long long>(desc.size_bytes),
        mxrt::shapeString(desc.ndim, desc.shape, model.dims).c_str(),
        mxrt_dtype_name(static_cast<mxrt_dtype>(desc.dtype)), sizeBytes);
  // Only the known MXRT_TENSOR_* bits of each kind, so that a table from a
  // newer mxc fails here.
  int64_t allowedFlags = kindCode == TensorKind::Output ? 0
                         : kindCode == TensorKind::Input
                             ? MXRT_TENSOR_CACHE | MXRT_TENSOR_LENGTH
                             : MXRT_TENSOR_AUX | MXRT_TENSOR_TRAINABLE;
  if (desc.flags & ~allowedFlags)
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: %s '%s' has flags 0x%llx, but only 0x%llx are allowed",
                origin.c_str(), kind, desc.name,
                static_cast<unsigned long long>(desc.flags),
                static_cast<unsigned long long>(allowedFlags));
  if (desc.flags & MXRT_TENSOR_LENGTH) {
    // A scalar whose value a call binds a dimension to.
    if (desc.ndim != 0 || desc.dtype != MXRT_I64 || !extents.any ||
        (desc.flags & MXRT_TENSOR_CACHE) || desc.offset < 0 ||
        desc.offset >= model.num_dims ||
        (model.dims[desc.offset].flags & MXRT_DIM_DERIVED))
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: length input '%s' is not an int64 scalar of a function "
                  "with shapes naming a dimension that is not derived "
                  "(dimension %lld)",
                  origin.c_str(), desc.name,
                  static_cast<long long>(desc.offset));
  } else if ((kindCode == TensorKind::Input ||
              kindCode == TensorKind::Output) &&
             desc.offset != 0)
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: %s '%s' has offset %lld; of the inputs and outputs only "
                "a length input has one",
                origin.c_str(), kind, desc.name,
                static_cast<long long>(desc.offset));
  if (kindCode == TensorKind::State && desc.offset != 0)
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: state '%s' has offset %lld; states live in the instance, "
                "not in the weights, and must have offset 0",
                origin.c_str(), desc.name, static_cast<long long>(desc.offset));
  return MXRT_OK;
}

/// Checks the table of dynamic dimensions.
mxrt_status checkDims(const std::string &origin, const mxrt_model_desc &desc) {
  if (desc.num_dims < 0 || desc.num_dims > INT32_MAX ||
      (desc.num_dims && !desc.dims))
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: descriptor has an invalid dimension table (num_dims = "
                "%lld)",
                origin.c_str(), static_cast<long long>(desc.num_dims));
  std::set<std::string_view> names;
  for (int64_t i = 0; i < desc.num_dims; ++i) {
    const mxrt_dim_desc &dim = desc.dims[i];
    if (!dim.name)
      return fail(MXRT_INVALID_ARGUMENT, "%s: dimension #%lld has no name",
                  origin.c_str(), static_cast<long long>(i));
    if (!names.insert(dim.name).second)
      return fail(MXRT_INVALID_ARGUMENT, "%s: two dimensions are named '%s'",
                  origin.c_str(), dim.name);
    constexpr int64_t kDimFlags = MXRT_DIM_DERIVED | MXRT_DIM_COUNTED;
    if (dim.flags & ~kDimFlags)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: dimension '%s' has flags 0x%llx, but only 0x%llx are "
                  "allowed",
                  origin.c_str(), dim.name,
                  static_cast<unsigned long long>(dim.flags),
                  static_cast<unsigned long long>(kDimFlags));
    // What a call finds is sized for at its bound.
    if ((dim.flags & MXRT_DIM_COUNTED) &&
        (!(dim.flags & MXRT_DIM_DERIVED) || dim.max < 0))
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: counted dimension '%s' must be derived and bounded "
                  "(flags 0x%llx, max %lld)",
                  origin.c_str(), dim.name,
                  static_cast<unsigned long long>(dim.flags),
                  static_cast<long long>(dim.max));
    // No call binds a derived dimension: a bound is all it may have.
    if ((dim.flags & MXRT_DIM_DERIVED) && dim.min != 0)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: derived dimension '%s' has bounds %lld..%lld; a "
                  "derived dimension's minimum is 0",
                  origin.c_str(), dim.name, static_cast<long long>(dim.min),
                  static_cast<long long>(dim.max));
    if (dim.min < 0 || (dim.max != -1 && dim.max < dim.min))
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: dimension '%s' has bounds %lld..%lld (the minimum must "
                  "be at least 0, the maximum -1 or at least the minimum)",
                  origin.c_str(), dim.name, static_cast<long long>(dim.min),
                  static_cast<long long>(dim.max));
  }
  return MXRT_OK;
}

/// Checks function `fn` with `shapes` as far as its own fields go: no
/// variants, and a CPU model.
mxrt_status checkShapes(const std::string &origin, const mxrt_model_desc &desc,
                        const mxrt_function_desc &fn) {
  if (fn.num_variants)
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: function '%s' has both a shapes function and batch "
                "variants (num_variants = %lld)",
                origin.c_str(), fn.name,
                static_cast<long long>(fn.num_variants));
  // The device copies of inputs and outputs have their static sizes.
  if (desc.flags & MXRT_MODEL_CUDA)
    return fail(MXRT_UNSUPPORTED,
                "%s: dynamic dimensions are not supported for CUDA models yet "
                "(function '%s' has a shapes function)",
                origin.c_str(), fn.name);
  return MXRT_OK;
}

/// The outputs of function `fn` with `shapes` (its inputs and outputs
/// checked) name no dimension that is neither derived nor an input's: no
/// call could tell its value.
mxrt_status checkOutputDims(const std::string &origin,
                            const mxrt_model_desc &desc,
                            const mxrt_function_desc &fn) {
  std::set<int64_t> bound;
  for (int64_t i = 0; i < fn.num_inputs; ++i)
    for (int64_t d = 0; d < fn.inputs[i].ndim; ++d)
      if (fn.inputs[i].shape[d] < 0)
        bound.insert(MXRT_DIM_INDEX(fn.inputs[i].shape[d]));
  for (int64_t o = 0; o < fn.num_outputs; ++o) {
    const mxrt_tensor_desc &output = fn.outputs[o];
    for (int64_t d = 0; d < output.ndim; ++d) {
      int64_t dim = output.shape[d] < 0 ? MXRT_DIM_INDEX(output.shape[d]) : -1;
      if (dim >= 0 && !(desc.dims[dim].flags & MXRT_DIM_DERIVED) &&
          !bound.count(dim))
        return fail(MXRT_INVALID_ARGUMENT,
                    "%s: output '%s' of function '%s' has dimension '%s' on "
                    "axis %lld, which is neither derived nor any input's",
                    origin.c_str(), output.name, fn.name, desc.dims[dim].name,
                    static_cast<long long>(d));
    }
  }
  return MXRT_OK;
}

/// Checks the batch variants of function `fn` (num_variants != 0) and their
/// batch dimension, before its inputs and outputs are checked against it.
mxrt_status checkVariants(const std::string &origin,
                          const mxrt_model_desc &desc,
                          const mxrt_function_desc &fn) {
  if (fn.num_variants < 0 || fn.num_variants > INT32_MAX || !fn.variants)
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: function '%s' has an invalid variant table "
                "(num_variants = %lld)",
                origin.c_str(), fn.name,
                static_cast<long long>(fn.num_variants));
  // The runtime cannot yet slice the device copies of inputs and outputs.
  if (desc.flags & MXRT_MODEL_CUDA)
    return fail(MXRT_UNSUPPORTED,
                "%s: dynamic dimensions are not supported for CUDA models yet "
                "(function '%s' has batch variants)",
                origin.c_str(), fn.name);
  if (fn.batch_dim < 0 || fn.batch_dim >= desc.num_dims)
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: function '%s' has batch dimension #%lld, but the model "
                "has %lld dimensions",
                origin.c_str(), fn.name, static_cast<long long>(fn.batch_dim),
                static_cast<long long>(desc.num_dims));
  for (int64_t v = 0; v < fn.num_variants; ++v) {
    const mxrt_variant_desc &variant = fn.variants[v];
    // Increasing from 1, so that taking the largest that fits covers any
    // number of rows (from at least 1 for whole batches).
    bool whole = fn.flags & MXRT_FUNCTION_WHOLE_BATCH;
    if (v == 0 ? variant.batch < 1 || (!whole && variant.batch != 1)
               : variant.batch <= fn.variants[v - 1].batch)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: function '%s' has a variant of batch %lld at #%lld; "
                  "the batches must increase from 1",
                  origin.c_str(), fn.name,
                  static_cast<long long>(variant.batch),
                  static_cast<long long>(v));
    if (!variant.entry)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: function '%s' has no entry point for batch %lld",
                  origin.c_str(), fn.name,
                  static_cast<long long>(variant.batch));
    if (variant.scratch_size < 0 || variant.scratch_size > fn.scratch_size)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: function '%s' claims %lld bytes of scratch for batch "
                  "%lld, but %lld for the function",
                  origin.c_str(), fn.name,
                  static_cast<long long>(variant.scratch_size),
                  static_cast<long long>(variant.batch),
                  static_cast<long long>(fn.scratch_size));
  }
  return MXRT_OK;
}

/// Checks the counts of function `fn`: each a distinct counted dimension, of
/// a CPU function without variants or shapes.
mxrt_status checkCounts(const std::string &origin, const mxrt_model_desc &desc,
                        const mxrt_function_desc &fn) {
  if (fn.num_counts < 0 || fn.num_counts > INT32_MAX ||
      (fn.num_counts && !fn.counts))
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: function '%s' has an invalid count table (num_counts = "
                "%lld)",
                origin.c_str(), fn.name, static_cast<long long>(fn.num_counts));
  std::set<int64_t> seen;
  if (fn.num_counts &&
      (fn.num_variants || fn.shapes || (desc.flags & MXRT_MODEL_CUDA)))
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: function '%s' has counts, which a function with "
                "variants or shapes, or of a CUDA model, may not have",
                origin.c_str(), fn.name);
  for (int64_t k = 0; k < fn.num_counts; ++k) {
    int64_t d = fn.counts[k];
    if (d < 0 || d >= desc.num_dims ||
        !(desc.dims[d].flags & MXRT_DIM_COUNTED) || !seen.insert(d).second)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: count #%lld of function '%s' names dimension %lld, "
                  "which is not a counted dimension of its own",
                  origin.c_str(), static_cast<long long>(k), fn.name,
                  static_cast<long long>(d));
  }
  return MXRT_OK;
}

/// Every counted dimension the outputs of function `fn` have (its inputs and
/// outputs checked) is among its counts.
mxrt_status checkCountedOutputs(const std::string &origin,
                                const mxrt_model_desc &desc,
                                const mxrt_function_desc &fn) {
  for (int64_t o = 0; o < fn.num_outputs; ++o)
    for (int64_t a = 0; a < fn.outputs[o].ndim; ++a) {
      int64_t e = fn.outputs[o].shape[a];
      if (e >= 0 || !(desc.dims[MXRT_DIM_INDEX(e)].flags & MXRT_DIM_COUNTED) ||
          std::count(fn.counts, fn.counts + fn.num_counts, MXRT_DIM_INDEX(e)))
        continue;
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: output '%s' of function '%s' has counted dimension "
                  "'%s', which none of its counts gives",
                  origin.c_str(), fn.outputs[o].name, fn.name,
                  desc.dims[MXRT_DIM_INDEX(e)].name);
    }
  return MXRT_OK;
}

} // namespace

mxrt_status mxrt::checkDescriptor(const std::string &origin,
                                  const mxrt_model_desc *desc) {
  if (desc->abi_version != MXRT_MODEL_ABI_VERSION)
    return fail(MXRT_UNSUPPORTED,
                "%s: built for model ABI version %lld, but this runtime "
                "supports only version %d; recompile it with this mxc",
                origin.c_str(), static_cast<long long>(desc->abi_version),
                MXRT_MODEL_ABI_VERSION);
  if (!desc->name)
    return fail(MXRT_INVALID_ARGUMENT, "%s: descriptor has no model name",
                origin.c_str());
  if (desc->flags & ~int64_t(MXRT_MODEL_TRAINABLE | MXRT_MODEL_CUDA))
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: descriptor has unknown model flags 0x%llx", origin.c_str(),
                static_cast<unsigned long long>(desc->flags));
  bool trainable = desc->flags & MXRT_MODEL_TRAINABLE;
  if (mxrt_status status = checkDims(origin, *desc))
    return status;
  if (desc->num_functions < 1 || desc->num_functions > INT32_MAX ||
      !desc->functions)
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: descriptor has no functions (num_functions = %lld)",
                origin.c_str(), static_cast<long long>(desc->num_functions));
  std::set<std::string_view> functionNames;
  for (int64_t f = 0; f < desc->num_functions; ++f) {
    const mxrt_function_desc &fn = desc->functions[f];
    const char *fnName = fn.name ? fn.name : "?";
    // A function with variants has their entry points instead of its own.
    if (!fn.name || (!fn.entry && !fn.num_variants))
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: function #%lld ('%s') has no name or entry point",
                  origin.c_str(), static_cast<long long>(f), fnName);
    if (!functionNames.insert(fn.name).second)
      return fail(MXRT_INVALID_ARGUMENT, "%s: two functions are named '%s'",
                  origin.c_str(), fn.name);
    if (fn.num_inputs < 0 || fn.num_outputs < 0 ||
        fn.num_inputs > INT32_MAX / 2 || fn.num_outputs > INT32_MAX / 2 ||
        (fn.num_inputs && !fn.inputs) || (fn.num_outputs && !fn.outputs) ||
        fn.scratch_size < 0)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: function '%s' has invalid input/output tables or "
                  "scratch size",
                  origin.c_str(), fnName);
    if (fn.flags &
        ~int64_t(MXRT_FUNCTION_UPDATES_STATE | MXRT_FUNCTION_WHOLE_BATCH))
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: function '%s' has unknown flags 0x%llx", origin.c_str(),
                  fnName, static_cast<unsigned long long>(fn.flags));
    // An inference instance hands out the read-only weights in place.
    if ((fn.flags & MXRT_FUNCTION_UPDATES_STATE) && !trainable)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: function '%s' updates parameters or states, but the "
                  "model is not trainable (MXRT_MODEL_TRAINABLE)",
                  origin.c_str(), fnName);
    if (fn.shapes)
      if (mxrt_status status = checkShapes(origin, *desc, fn))
        return status;
    if ((fn.flags & MXRT_FUNCTION_WHOLE_BATCH) && !fn.num_variants)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: function '%s' runs whole batches "
                  "(MXRT_FUNCTION_WHOLE_BATCH) but has no batch variants",
                  origin.c_str(), fnName);
    if (fn.num_variants)
      if (mxrt_status status = checkVariants(origin, *desc, fn))
        return status;
    // batch_dim is read only with variants (hand-written static tables may
    // leave it 0).
    if (mxrt_status status = checkCounts(origin, *desc, fn))
      return status;
    Extents extents;
    extents.batchDim = fn.num_variants ? fn.batch_dim : -1;
    extents.any = fn.shapes != nullptr;
    extents.counted = true; // checkCountedOutputs: each has its count
    bool batchFromInputs = false;
    for (int64_t i = 0; i < fn.num_inputs; ++i) {
      const mxrt_tensor_desc &input = fn.inputs[i];
      if (mxrt_status status = checkTensorDesc(origin, TensorKind::Input, i,
                                               input, *desc, extents))
        return status;
      batchFromInputs = batchFromInputs || (input.ndim && input.shape[0] < 0);
    }
    for (int64_t i = 0; i < fn.num_outputs; ++i)
      if (mxrt_status status = checkTensorDesc(origin, TensorKind::Output, i,
                                               fn.outputs[i], *desc, extents))
        return status;
    if (fn.shapes)
      if (mxrt_status status = checkOutputDims(origin, *desc, fn))
        return status;
    if (mxrt_status status = checkCountedOutputs(origin, *desc, fn))
      return status;
    // Calls take the batch from the inputs' shapes.
    if (fn.num_variants && !batchFromInputs)
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: function '%s' has batch variants, but no input has its "
                  "batch dimension '%s'",
                  origin.c_str(), fnName, desc->dims[fn.batch_dim].name);
  }
  if (desc->num_params < 0 || desc->num_params > INT32_MAX / 2 ||
      (desc->num_params && !desc->params) || desc->weights_size < 0 ||
      (desc->weights_size && !desc->weights && !desc->weights_file) ||
      (desc->weights && desc->weights_file))
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: descriptor has invalid parameter or weight tables",
                origin.c_str());
  if (desc->weights_file &&
      (!*desc->weights_file || std::strchr(desc->weights_file, '/') ||
       std::strcmp(desc->weights_file, ".") == 0 ||
       std::strcmp(desc->weights_file, "..") == 0))
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: the weights file '%s' is not a file name (the file must "
                "lie beside the library)",
                origin.c_str(), desc->weights_file);
  std::set<std::string_view> paramNames;
  for (int64_t i = 0; i < desc->num_params; ++i) {
    const mxrt_tensor_desc &param = desc->params[i];
    if (mxrt_status status =
            checkTensorDesc(origin, TensorKind::Parameter, i, param, *desc))
      return status;
    if (!paramNames.insert(param.name).second)
      return fail(MXRT_INVALID_ARGUMENT, "%s: two parameters are named '%s'",
                  origin.c_str(), param.name);
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
  if (desc->num_states < 0 || desc->num_states > INT32_MAX / 2 ||
      (desc->num_states && !desc->states))
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: descriptor has an invalid state table (num_states = "
                "%lld)",
                origin.c_str(), static_cast<long long>(desc->num_states));
  if (desc->num_states && !trainable)
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: descriptor has %lld optimizer states, but the model is "
                "not trainable (MXRT_MODEL_TRAINABLE)",
                origin.c_str(), static_cast<long long>(desc->num_states));
  for (int64_t i = 0; i < desc->num_states; ++i)
    if (mxrt_status status = checkTensorDesc(origin, TensorKind::State, i,
                                             desc->states[i], *desc))
      return status;
  return MXRT_OK;
}
