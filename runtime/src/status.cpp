// SPDX-License-Identifier: Apache-2.0
//
// Status codes, the per-thread last-error message and dtype helpers: the
// small vocabulary every other part of libmxrt reports errors and types in.

#include "internal.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace {
/// Per thread so that concurrent instances never see each other's errors.
thread_local std::string lastError;
} // namespace

mxrt_status mxrt::fail(mxrt_status status, const char *format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  try {
    lastError = buffer;
  } catch (...) {
    // Out of memory while reporting: keep the status, lose the message.
    lastError.clear();
  }
  return status;
}

mxrt_status mxrt::checkNotNull(const char *what,
                               std::initializer_list<PointerArg> args) {
  for (const PointerArg &arg : args)
    if (!arg.value)
      return fail(MXRT_INVALID_ARGUMENT, "%s: %s is NULL", what, arg.name);
  return MXRT_OK;
}

bool mxrt::isValidDtype(int64_t dtype) {
  return dtype >= MXRT_F32 && dtype <= MXRT_STRING;
}

int64_t mxrt::dtypeCode(const mxrt_dtype &dtype) {
  int code;
  static_assert(sizeof(code) == sizeof(dtype), "mxrt_dtype is an int");
  std::memcpy(&code, &dtype, sizeof(code));
  return code;
}

std::string mxrt::shapeString(int64_t ndim, const int64_t *shape) {
  if (ndim == 0)
    return "scalar";
  std::string result;
  for (int64_t i = 0; i < ndim; ++i) {
    if (i)
      result += 'x';
    result += std::to_string(shape[i]);
  }
  return result;
}

const char *mxrt_status_string(mxrt_status status) {
  switch (status) {
  case MXRT_OK:
    return "OK";
  case MXRT_INVALID_ARGUMENT:
    return "INVALID_ARGUMENT";
  case MXRT_NOT_FOUND:
    return "NOT_FOUND";
  case MXRT_IO_ERROR:
    return "IO_ERROR";
  case MXRT_OUT_OF_MEMORY:
    return "OUT_OF_MEMORY";
  case MXRT_UNSUPPORTED:
    return "UNSUPPORTED";
  case MXRT_INTERNAL:
    return "INTERNAL";
  }
  return "UNKNOWN";
}

const char *mxrt_last_error(void) { return lastError.c_str(); }

size_t mxrt_dtype_size(mxrt_dtype dtype) {
  switch (mxrt::dtypeCode(dtype)) {
  case MXRT_F32:
  case MXRT_I32:
  case MXRT_U32:
    return 4;
  case MXRT_F64:
  case MXRT_I64:
  case MXRT_U64:
    return 8;
  case MXRT_STRING:
    return sizeof(const char *);
  case MXRT_F16:
  case MXRT_BF16:
  case MXRT_I16:
  case MXRT_U16:
    return 2;
  case MXRT_U8:
  case MXRT_I8:
  case MXRT_BOOL:
    return 1;
  }
  return 0;
}

const char *mxrt_dtype_name(mxrt_dtype dtype) {
  switch (mxrt::dtypeCode(dtype)) {
  case MXRT_F32:
    return "float32";
  case MXRT_F64:
    return "float64";
  case MXRT_F16:
    return "float16";
  case MXRT_U8:
    return "uint8";
  case MXRT_I32:
    return "int32";
  case MXRT_I8:
    return "int8";
  case MXRT_I64:
    return "int64";
  case MXRT_BOOL:
    return "bool";
  case MXRT_I16:
    return "int16";
  case MXRT_U16:
    return "uint16";
  case MXRT_U32:
    return "uint32";
  case MXRT_U64:
    return "uint64";
  case MXRT_BF16:
    return "bfloat16";
  case MXRT_STRING:
    return "string";
  }
  return "unknown";
}
