// SPDX-License-Identifier: Apache-2.0
// Small helpers of ModelSpec (dtype tables, the weights blob layout).
#include "compiler/codegen/ModelSpec.h"

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

void ModelSpec::addParam(TensorSpec spec, const uint8_t *data) {
  ParamSpec p;
  static_cast<TensorSpec &>(p) = std::move(spec);
  p.offset = (weights.size() + 63) / 64 * 64;
  weights.resize(p.offset + p.sizeBytes());
  if (p.sizeBytes())
    std::memcpy(weights.data() + p.offset, data, p.sizeBytes());
  params.push_back(std::move(p));
}
