// SPDX-License-Identifier: Apache-2.0
//
// mxrt_tensor: the dense, 64-byte aligned arrays that models read and write.
// Constructors validate every argument, since a bad shape here would otherwise
// surface as memory corruption inside generated code.

#include "internal.h"

#include <cstdlib>
#include <cstring>

namespace {
/// No process can address more (x86-64 and AArch64 user space is 2^47 or
/// 2^48 bytes); anything larger is a corrupt shape, not a big tensor.
constexpr uint64_t maxTensorBytes = uint64_t(1) << 48;
} // namespace

void *mxrt::alignedAlloc(size_t size) {
  size_t rounded = (size + 63) / 64 * 64;
  if (rounded == 0)
    rounded = 64;
  return std::aligned_alloc(64, rounded);
}

mxrt_status mxrt::checkTensorArgs(const char *what, int64_t dtype, int32_t ndim,
                                  const int64_t *shape, int64_t *outNumElements,
                                  size_t *outSizeBytes) {
  if (!isValidDtype(dtype))
    return fail(MXRT_INVALID_ARGUMENT, "%s: dtype %lld is not an mxrt_dtype",
                what, static_cast<long long>(dtype));
  if (ndim < 0 || ndim > MXRT_MAX_DIMS)
    return fail(MXRT_INVALID_ARGUMENT, "%s: ndim is %d, expected 0 to %d", what,
                ndim, MXRT_MAX_DIMS);
  if (ndim > 0 && !shape)
    return fail(MXRT_INVALID_ARGUMENT, "%s: shape is NULL but ndim is %d", what,
                ndim);
  uint64_t elements = 1;
  bool tooLarge = false;
  for (int32_t i = 0; i < ndim; ++i) {
    if (shape[i] < 0)
      return fail(MXRT_INVALID_ARGUMENT, "%s: shape[%d] is %lld (negative)",
                  what, i, static_cast<long long>(shape[i]));
    if (__builtin_mul_overflow(elements, static_cast<uint64_t>(shape[i]),
                               &elements))
      tooLarge = true;
  }
  auto type = static_cast<mxrt_dtype>(dtype);
  uint64_t bytes = 0;
  if (tooLarge ||
      __builtin_mul_overflow(elements, mxrt_dtype_size(type), &bytes) ||
      bytes > maxTensorBytes)
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: shape %s of %s is too large (over 2^48 bytes)", what,
                shapeString(ndim, shape).c_str(), mxrt_dtype_name(type));
  *outNumElements = static_cast<int64_t>(elements);
  *outSizeBytes = static_cast<size_t>(bytes);
  return MXRT_OK;
}

namespace {
mxrt_status makeTensor(const char *what, int64_t code, int32_t ndim,
                       const int64_t *shape, void *data, bool ownsData,
                       mxrt_tensor **outTensor) {
  if (!outTensor)
    return mxrt::fail(MXRT_INVALID_ARGUMENT, "%s: out_tensor is NULL", what);
  int64_t numElements = 0;
  size_t sizeBytes = 0;
  if (mxrt_status status = mxrt::checkTensorArgs(what, code, ndim, shape,
                                                 &numElements, &sizeBytes))
    return status;
  auto dtype = static_cast<mxrt_dtype>(code);
  if (!ownsData) {
    if (!data && sizeBytes != 0)
      return mxrt::fail(MXRT_INVALID_ARGUMENT, "%s: data is NULL", what);
    if (reinterpret_cast<uintptr_t>(data) % mxrt_dtype_size(dtype) != 0)
      return mxrt::fail(MXRT_INVALID_ARGUMENT,
                        "%s: data %p is not aligned for %s", what, data,
                        mxrt_dtype_name(dtype));
  }
  auto *tensor =
      static_cast<mxrt_tensor *>(std::calloc(1, sizeof(mxrt_tensor)));
  if (!tensor)
    return mxrt::fail(MXRT_OUT_OF_MEMORY, "%s: out of memory", what);
  if (ownsData) {
    data = mxrt::alignedAlloc(sizeBytes);
    if (!data) {
      std::free(tensor);
      return mxrt::fail(MXRT_OUT_OF_MEMORY,
                        "%s: cannot allocate %zu bytes for a %s %s tensor",
                        what, sizeBytes, mxrt::shapeString(ndim, shape).c_str(),
                        mxrt_dtype_name(dtype));
    }
    std::memset(data, 0, sizeBytes);
  }
  tensor->dtype = dtype;
  tensor->ndim = ndim;
  for (int32_t i = 0; i < ndim; ++i)
    tensor->shape[i] = shape[i];
  tensor->numElements = numElements;
  tensor->sizeBytes = tensor->capacityBytes = sizeBytes;
  tensor->data = data;
  tensor->ownsData = ownsData;
  *outTensor = tensor;
  return MXRT_OK;
}
} // namespace

mxrt_status mxrt_tensor_create(mxrt_dtype dtype, int32_t ndim,
                               const int64_t *shape, mxrt_tensor **out_tensor) {
  return mxrt::guarded([&] {
    return makeTensor("mxrt_tensor_create", mxrt::dtypeCode(dtype), ndim, shape,
                      nullptr,
                      /*ownsData=*/true, out_tensor);
  });
}

mxrt_status mxrt_tensor_wrap(mxrt_dtype dtype, int32_t ndim,
                             const int64_t *shape, void *data,
                             mxrt_tensor **out_tensor) {
  return mxrt::guarded([&] {
    return makeTensor("mxrt_tensor_wrap", mxrt::dtypeCode(dtype), ndim, shape,
                      data,
                      /*ownsData=*/false, out_tensor);
  });
}

void mxrt_tensor_release(mxrt_tensor *tensor) {
  if (!tensor)
    return;
  mxrt::releaseStrings(tensor);
  if (tensor->ownsData)
    std::free(tensor->data);
  std::free(tensor);
}

bool mxrt::setExtent(mxrt_tensor *tensor, int32_t axis, int64_t extent) {
  if (tensor->shape[axis] == extent)
    return true;
  size_t row = mxrt_dtype_size(tensor->dtype);
  for (int32_t d = 0; d < tensor->ndim; ++d)
    if (d != axis)
      row *= size_t(tensor->shape[d]);
  if (row * size_t(extent) > tensor->capacityBytes)
    return false;
  releaseStrings(tensor); // sized for the old count; copied afresh
  tensor->shape[axis] = extent;
  int64_t n = 1;
  for (int32_t d = 0; d < tensor->ndim; ++d)
    n *= tensor->shape[d];
  tensor->numElements = n;
  tensor->sizeBytes = size_t(n) * mxrt_dtype_size(tensor->dtype);
  return true;
}

mxrt_dtype mxrt_tensor_dtype(const mxrt_tensor *tensor) {
  return tensor ? tensor->dtype : MXRT_F32;
}

int32_t mxrt_tensor_ndim(const mxrt_tensor *tensor) {
  return tensor ? tensor->ndim : 0;
}

const int64_t *mxrt_tensor_shape(const mxrt_tensor *tensor) {
  return tensor ? tensor->shape : nullptr;
}

int64_t mxrt_tensor_num_elements(const mxrt_tensor *tensor) {
  return tensor ? tensor->numElements : 0;
}

size_t mxrt_tensor_size_bytes(const mxrt_tensor *tensor) {
  return tensor ? tensor->sizeBytes : 0;
}

void *mxrt_tensor_data(mxrt_tensor *tensor) {
  return tensor ? tensor->data : nullptr;
}
