// SPDX-License-Identifier: Apache-2.0
// Small helpers of ModelSpec (dtype tables, the weights blob layout).
#include "compiler/model/ModelSpec.h"

#include <cstring>

using namespace mxc;

size_t mxc::dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F64:
  case DType::I64:
  case DType::U64:
  case DType::String: // a pointer
    return 8;
  case DType::F32:
  case DType::I32:
  case DType::U32:
    return 4;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
  case DType::U16:
    return 2;
  case DType::U8:
  case DType::I8:
  case DType::Bool:
    return 1;
  }
  return 0;
}

const char *mxc::dtypeCType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "float";
  case DType::F64:
    return "double";
  case DType::F16:
  case DType::BF16: // the raw bits, as no C type is portable
    return "uint16_t";
  case DType::U8:
  case DType::Bool:
    return "uint8_t";
  case DType::I32:
    return "int32_t";
  case DType::I8:
    return "int8_t";
  case DType::I64:
    return "int64_t";
  case DType::I16:
    return "int16_t";
  case DType::U16:
    return "uint16_t";
  case DType::U32:
    return "uint32_t";
  case DType::U64:
    return "uint64_t";
  case DType::String:
    return "const char *";
  }
  return "void";
}

const char *mxc::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "float32";
  case DType::F64:
    return "float64";
  case DType::F16:
    return "float16";
  case DType::U8:
    return "uint8";
  case DType::Bool:
    return "bool";
  case DType::I32:
    return "int32";
  case DType::I8:
    return "int8";
  case DType::I64:
    return "int64";
  case DType::I16:
    return "int16";
  case DType::U16:
    return "uint16";
  case DType::U32:
    return "uint32";
  case DType::U64:
    return "uint64";
  case DType::BF16:
    return "bfloat16";
  case DType::String:
    return "string";
  }
  return "unknown";
}

int64_t TensorSpec::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
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
