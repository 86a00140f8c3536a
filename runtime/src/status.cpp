// SPDX-License-Identifier: Apache-2.0
//
// Status codes, the per-thread last-error message and dtype helpers: the
// small vocabulary every other part of libmxrt reports errors and types in.

#include "internal.h"

#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

namespace {
/// Indexed by code (checked below).
constexpr mxrt::DtypeInfo dtypeTable[] = {
#define MXRT_DTYPE(code, name, bytes, c_type, npy_type)                        \
  {code, name, bytes, npy_type},
#include "mxrt/dtypes.def"
#undef MXRT_DTYPE
};

constexpr bool tableIsIndexedByCode() {
  int64_t code = 0;
  for (const mxrt::DtypeInfo &info : dtypeTable)
    if (info.dtype != code++)
      return false;
  return code == MXRT_STRING + 1;
}
static_assert(tableIsIndexedByCode(), "dtypeTable must list every dtype in "
                                      "code order");
} // namespace

const mxrt::DtypeInfo *mxrt::dtypeInfo(int64_t code) {
  return isValidDtype(code) ? &dtypeTable[code] : nullptr;
}

int64_t mxrt::dtypeCode(const mxrt_dtype &dtype) {
  int code;
  static_assert(sizeof(code) == sizeof(dtype), "mxrt_dtype is an int");
  std::memcpy(&code, &dtype, sizeof(code));
  return code;
}

std::string mxrt::shapeString(int64_t ndim, const int64_t *shape,
                              const mxrt_dim_desc *dims) {
  if (ndim == 0)
    return "scalar";
  std::string result;
  for (int64_t i = 0; i < ndim; ++i) {
    if (i)
      result += 'x';
    if (shape[i] < 0 && dims)
      result += dims[MXRT_DIM_INDEX(shape[i])].name;
    else
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
  const mxrt::DtypeInfo *info = mxrt::dtypeInfo(mxrt::dtypeCode(dtype));
  return info ? info->size : 0;
}

const char *mxrt_dtype_name(mxrt_dtype dtype) {
  const mxrt::DtypeInfo *info = mxrt::dtypeInfo(mxrt::dtypeCode(dtype));
  return info ? info->name : "unknown";
}

mxrt_status mxrt::checkInputBytes(const char *path, uint64_t bytes) {
  const char *text = std::getenv("MXC_MAX_INPUT_BYTES");
  if (!text || !*text)
    return MXRT_OK;
  // A byte count with an optional K, M, G or T suffix (powers of 1024), as
  // mxc reads it.
  char *end = nullptr;
  errno = 0;
  unsigned long long n = std::strtoull(text, &end, 10);
  uint64_t scale = 1;
  if (end && *end && !end[1]) {
    switch (*end) {
    case 'K':
    case 'k':
      scale = uint64_t(1) << 10;
      break;
    case 'M':
    case 'm':
      scale = uint64_t(1) << 20;
      break;
    case 'G':
    case 'g':
      scale = uint64_t(1) << 30;
      break;
    case 'T':
    case 't':
      scale = uint64_t(1) << 40;
      break;
    default:
      scale = 0;
    }
    ++end;
  }
  if (errno || end == text || *end || !scale || text[0] == '-' ||
      n > UINT64_MAX / scale)
    return fail(MXRT_INVALID_ARGUMENT,
                "MXC_MAX_INPUT_BYTES='%s' is not a byte count (a number with "
                "an optional K, M, G or T)",
                text);
  if (bytes > n * scale)
    return fail(MXRT_INVALID_ARGUMENT,
                "'%s': holds %llu bytes, more than MXC_MAX_INPUT_BYTES=%s "
                "allows",
                path, static_cast<unsigned long long>(bytes), text);
  return MXRT_OK;
}
