// SPDX-License-Identifier: Apache-2.0
// Small helpers of ModelSpec (dtype tables, the weights blob layout).
#include "compiler/model/ModelSpec.h"

#include "runtime/include/mxrt/mxrt.h"

#include <cstring>
#include <iterator>

using namespace mxc;

namespace {
/// What the compiler says of each element type, in DType order.
struct DTypeInfo {
  DType dtype;
  size_t size;
  const char *cType;
  const char *name;
};
constexpr DTypeInfo kDTypes[] = {
#define MXRT_DTYPE(code, name, bytes, c_type, npy_type)                        \
  {DType(code), bytes, c_type, name},
#include "runtime/include/mxrt/dtypes.def"
#undef MXRT_DTYPE
};
constexpr bool inDTypeOrder() {
  for (size_t i = 0; i < std::size(kDTypes); ++i)
    if (int64_t(kDTypes[i].dtype) != int64_t(i))
      return false;
  return true;
}
static_assert(inDTypeOrder(), "kDTypes is indexed by DType");
static_assert(int64_t(DType::Bool) == MXRT_BOOL &&
                  int64_t(DType::BF16) == MXRT_BF16 &&
                  int64_t(DType::String) == MXRT_STRING,
              "DType's codes are mxrt_dtype's");

const DTypeInfo *infoOf(DType dtype) {
  size_t i = size_t(dtype);
  return i < std::size(kDTypes) ? &kDTypes[i] : nullptr;
}
} // namespace

size_t mxc::dtypeSize(DType dtype) {
  const DTypeInfo *info = infoOf(dtype);
  return info ? info->size : 0;
}

const char *mxc::dtypeCType(DType dtype) {
  const DTypeInfo *info = infoOf(dtype);
  return info ? info->cType : "void";
}

const char *mxc::dtypeName(DType dtype) {
  const DTypeInfo *info = infoOf(dtype);
  return info ? info->name : "unknown";
}

int64_t TensorSpec::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d < 0 ? 1 : d; // a dynamic dimension counts as 1
  return n;
}

ParamBytes ParamBytes::copyOf(const uint8_t *data, size_t size) {
  auto owned = std::make_shared<std::vector<uint8_t>>(data, data + size);
  const uint8_t *bytes = owned->data();
  return ParamBytes(std::move(owned), bytes, size);
}

void ModelSpec::addParam(TensorSpec spec, const uint8_t *data) {
  size_t size = spec.sizeBytes();
  addParam(std::move(spec), ParamBytes::copyOf(data, size));
}

void ModelSpec::addParam(TensorSpec spec, ParamBytes data) {
  ParamSpec p;
  static_cast<TensorSpec &>(p) = std::move(spec);
  p.offset = (weightsSize + 63) / 64 * 64;
  p.data = std::move(data);
  weightsSize = p.offset + p.sizeBytes();
  params.push_back(std::move(p));
}

uint8_t *ModelSpec::mutableParamData(size_t index) {
  ParamBytes &bytes = params[index].data;
  if (!bytes.unique())
    bytes = ParamBytes::copyOf(bytes.data(), bytes.size());
  // The only owner made these bytes writable (copyOf, or a frontend's
  // buffer handed over whole).
  return const_cast<uint8_t *>(bytes.data());
}

std::vector<uint8_t> ModelSpec::weightsBlob() const {
  std::vector<uint8_t> blob(weightsSize);
  for (const ParamSpec &p : params)
    if (p.sizeBytes())
      std::memcpy(blob.data() + p.offset, p.data.data(), p.sizeBytes());
  return blob;
}
