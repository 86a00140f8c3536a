// SPDX-License-Identifier: Apache-2.0
//
// Saving and loading an instance's parameters as MXNet .params files (the
// NDArray list written by `mx.nd.save` with a dict), so that a model trained
// with the runtime can be recompiled with `mxc --params` or loaded by MXNet.
// The format is the one compiler/frontends/mxnet/Params.cpp reads; the file
// is untrusted input, so every count and size is checked against the bytes
// present before it is used.

#include "cuda.h"
#include "internal.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <sys/stat.h>

// The format is little-endian, and so is every host libmxrt supports; the
// data of parameters is written and read without byte swapping.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "MXNet .params I/O assumes a little-endian host");

namespace {

using mxrt::fail;

constexpr uint64_t listMagic = 0x112;
constexpr uint32_t v1Magic = 0xF993FAC8; // int64 dims
constexpr uint32_t v2Magic = 0xF993FAC9; // + storage type
constexpr uint32_t v3Magic = 0xF993FACA; // + NumPy shape semantics
/// More dimensions than this is corruption, not a tensor (as in mxc).
constexpr int64_t maxFileNdim = 32;
/// mxnet::Context::kCPU.
constexpr int32_t cpuDevType = 1;
/// MXNet's bfloat16 type flag: not an mxrt_dtype, but it may sit in a file
/// beside the parameters, so the reader knows its size.
constexpr int32_t bfloat16Flag = 12;

template <typename T> void appendLE(std::string &out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

/// Name of an MXNet type flag, for messages.
std::string flagName(int32_t flag) {
  if (mxrt::isValidDtype(flag))
    return mxrt_dtype_name(static_cast<mxrt_dtype>(flag));
  if (flag == bfloat16Flag)
    return "bfloat16";
  return "dtype flag " + std::to_string(flag);
}

/// One array of a .params file; `data` points into the file's bytes.
struct Record {
  /// The name as saved, e.g. "arg:fc1_weight".
  std::string_view name;
  int32_t typeFlag = 0;
  std::vector<int64_t> shape;
  const uint8_t *data = nullptr;
  uint64_t sizeBytes = 0;
  /// MXNet's empty NDArray(): no shape, no data.
  bool isNone = false;
};

/// A bounds-checked little-endian cursor over the file's bytes; errors are
/// IO_ERROR and name the file.
class Reader {
public:
  Reader(const std::vector<uint8_t> &bytes, const char *path)
      : bytes(bytes), path(path) {}

  size_t remaining() const { return bytes.size() - offset; }

  mxrt_status corrupt(const std::string &message) const {
    return fail(MXRT_IO_ERROR, "'%s': %s", path, message.c_str());
  }

  /// `where` names the record ("record 3: ") and `what` the field.
  mxrt_status truncated(const std::string &where, const std::string &what,
                        uint64_t need) const {
    return corrupt("truncated file: " + where + "reading " + what + " needs " +
                   std::to_string(need) + " bytes at offset " +
                   std::to_string(offset) + ", but only " +
                   std::to_string(remaining()) + " are left");
  }

  template <typename T>
  mxrt_status read(T &out, const std::string &where, const char *what) {
    if (remaining() < sizeof(T))
      return truncated(where, what, sizeof(T));
    std::memcpy(&out, bytes.data() + offset, sizeof(T));
    offset += sizeof(T);
    return MXRT_OK;
  }

  mxrt_status skip(uint64_t size, const uint8_t *&out, const std::string &where,
                   const std::string &what) {
    if (remaining() < size)
      return truncated(where, what, size);
    out = bytes.data() + offset;
    offset += size;
    return MXRT_OK;
  }

private:
  const std::vector<uint8_t> &bytes;
  const char *path;
  size_t offset = 0;
};

template <typename Dim>
mxrt_status readDims(Reader &reader, int64_t ndim, Record &record,
                     const std::string &where) {
  if (reader.remaining() < uint64_t(ndim) * sizeof(Dim))
    return reader.truncated(where,
                            "the " + std::to_string(ndim) + " dimensions",
                            uint64_t(ndim) * sizeof(Dim));
  record.shape.resize(ndim);
  for (int64_t i = 0; i < ndim; ++i) {
    Dim dim;
    if (mxrt_status status = reader.read(dim, where, "a dimension"))
      return status;
    record.shape[i] = int64_t(dim);
  }
  return MXRT_OK;
}

/// One NDArray record in any layout MXNet writes: legacy (the magic is the
/// ndim, uint32 dims), V1, V2 and V3 (NumPy shape semantics: ndim 0 is a
/// scalar, -1 a none array). Dense storage only.
mxrt_status readRecord(Reader &reader, uint64_t index, Record &record) {
  std::string where = "record " + std::to_string(index) + ": ";
  uint32_t magic;
  if (mxrt_status status = reader.read(magic, where, "the record magic"))
    return status;
  bool numpyShape = magic == v3Magic;
  if (magic == v2Magic || magic == v3Magic) {
    int32_t storage;
    if (mxrt_status status = reader.read(storage, where, "the storage type"))
      return status;
    if (storage != 0)
      return reader.corrupt(where + "storage type " + std::to_string(storage) +
                            " is not dense; sparse arrays cannot be loaded");
  }
  bool isLegacy = magic != v1Magic && magic != v2Magic && magic != v3Magic;
  int64_t ndim;
  if (isLegacy) {
    if (magic > uint32_t(maxFileNdim))
      return reader.corrupt(where + "unknown record magic " +
                            std::to_string(magic) +
                            " (not an NDArray V1/V2/V3 magic)");
    ndim = magic;
    if (mxrt_status status = readDims<uint32_t>(reader, ndim, record, where))
      return status;
  } else {
    int32_t rawNdim;
    if (mxrt_status status = reader.read(rawNdim, where, "ndim"))
      return status;
    ndim = rawNdim;
    if (ndim < -1 || ndim > maxFileNdim)
      return reader.corrupt(where + "ndim " + std::to_string(ndim) +
                            " is out of range");
    if (ndim > 0)
      if (mxrt_status status = readDims<int64_t>(reader, ndim, record, where))
        return status;
  }
  bool unknownDim = false;
  for (size_t i = 0; i < record.shape.size(); ++i) {
    if (numpyShape && record.shape[i] == -1)
      unknownDim = true;
    else if (record.shape[i] < 0)
      return reader.corrupt(where + "dimension " + std::to_string(i) + " is " +
                            std::to_string(record.shape[i]));
  }
  if (ndim == -1 || (ndim == 0 && !numpyShape) || unknownDim) {
    record.shape.clear();
    record.isNone = true;
    return MXRT_OK;
  }

  int32_t devType, devId;
  if (mxrt_status status =
          reader.read(devType, where, "the context device type"))
    return status;
  if (mxrt_status status = reader.read(devId, where, "the context device id"))
    return status;
  if (mxrt_status status = reader.read(record.typeFlag, where, "the dtype"))
    return status;
  uint64_t elementSize;
  if (mxrt::isValidDtype(record.typeFlag))
    elementSize = mxrt_dtype_size(static_cast<mxrt_dtype>(record.typeFlag));
  else if (record.typeFlag == bfloat16Flag)
    elementSize = 2;
  else
    return reader.corrupt(where + "unknown dtype flag " +
                          std::to_string(record.typeFlag));
  uint64_t size = elementSize;
  for (int64_t dim : record.shape)
    if (__builtin_mul_overflow(size, uint64_t(dim), &size))
      return reader.corrupt(where + "the shape's byte size overflows 64 bits");
  record.sizeBytes = size;
  return reader.skip(size, record.data, where,
                     "the " + flagName(record.typeFlag) + " data");
}

mxrt_status parseFile(const std::vector<uint8_t> &bytes, const char *path,
                      std::vector<Record> &records) {
  Reader reader(bytes, path);
  uint64_t magic, reserved, count;
  if (bytes.size() < sizeof(magic))
    return reader.corrupt("not an MXNet .params file (only " +
                          std::to_string(bytes.size()) + " bytes)");
  if (mxrt_status status = reader.read(magic, "", "the list magic"))
    return status;
  if (magic != listMagic) {
    char text[64];
    std::snprintf(text, sizeof(text), "magic 0x%llx, expected 0x%llx",
                  static_cast<unsigned long long>(magic),
                  static_cast<unsigned long long>(listMagic));
    return reader.corrupt(std::string("not an MXNet .params file (") + text +
                          ")");
  }
  if (mxrt_status status =
          reader.read(reserved, "", "the reserved header field"))
    return status;
  if (mxrt_status status = reader.read(count, "", "the array count"))
    return status;
  // The smallest record (a legacy none array) is 4 bytes.
  if (count > reader.remaining() / 4)
    return reader.corrupt("truncated or corrupt file: it claims " +
                          std::to_string(count) + " arrays, more than its " +
                          std::to_string(reader.remaining()) +
                          " remaining bytes can hold");
  records.resize(count);
  for (uint64_t i = 0; i < count; ++i)
    if (mxrt_status status = readRecord(reader, i, records[i]))
      return status;
  uint64_t numNames;
  if (mxrt_status status = reader.read(numNames, "", "the name count"))
    return status;
  if (numNames != count)
    return reader.corrupt(
        std::to_string(count) + " arrays but " + std::to_string(numNames) +
        " names; parameters can only be loaded from a named list");
  for (uint64_t i = 0; i < numNames; ++i) {
    std::string where = "name " + std::to_string(i) + ": ";
    uint64_t length;
    if (mxrt_status status = reader.read(length, where, "the name length"))
      return status;
    const uint8_t *name;
    if (mxrt_status status = reader.skip(length, name, where, "the name"))
      return status;
    records[i].name =
        std::string_view(reinterpret_cast<const char *>(name), length);
  }
  return MXRT_OK;
}

mxrt_status readWholeFile(const char *path, std::vector<uint8_t> &bytes) {
  FILE *file = std::fopen(path, "rb");
  if (!file)
    return fail(errno == ENOENT ? MXRT_NOT_FOUND : MXRT_IO_ERROR,
                "cannot open '%s': %s", path, std::strerror(errno));
  struct stat info;
  bool ok = fstat(fileno(file), &info) == 0 && S_ISREG(info.st_mode);
  if (!ok) {
    std::fclose(file);
    return fail(MXRT_IO_ERROR, "'%s' is not a regular file", path);
  }
  if (mxrt_status status = mxrt::checkInputBytes(path, info.st_size)) {
    std::fclose(file);
    return status;
  }
  bytes.resize(static_cast<size_t>(info.st_size));
  size_t got = std::fread(bytes.data(), 1, bytes.size(), file);
  ok = got == bytes.size() && !std::ferror(file);
  int savedErrno = errno;
  std::fclose(file);
  if (!ok)
    return fail(MXRT_IO_ERROR, "cannot read '%s': %s", path,
                got < bytes.size() ? std::strerror(savedErrno) : "read error");
  return MXRT_OK;
}

float halfToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0) { // Zero or subnormal: mantissa * 2^-24, exact.
    float magnitude = std::ldexp(float(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  uint32_t result;
  if (exponent == 0x1f) // Inf or NaN, payload kept.
    result = sign | 0x7f800000 | (mantissa << 13);
  else // Rebias 15 -> 127.
    result = sign | ((exponent + 112) << 23) | (mantissa << 13);
  float value;
  std::memcpy(&value, &result, sizeof(value));
  return value;
}

/// IEEE half-precision bits of `value`, rounded to nearest even.
uint16_t floatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint32_t sign = (bits >> 16) & 0x8000;
  uint32_t magnitude = bits & 0x7fffffff;
  if (magnitude >= 0x7f800000) // Inf, or NaN kept quiet.
    return uint16_t(
        sign | 0x7c00 |
        (magnitude > 0x7f800000 ? 0x200 | ((magnitude >> 13) & 0x3ff) : 0));
  if (magnitude >= 0x477ff000) // Rounds to at least 65520: infinity.
    return uint16_t(sign | 0x7c00);
  if (magnitude < 0x38800000) { // Below 2^-14: subnormal or zero.
    float absValue;
    std::memcpy(&absValue, &magnitude, sizeof(absValue));
    // Exact scaling by 2^24, then round half to even (the default mode); a
    // result of 0x400 is correctly the smallest normal.
    return uint16_t(sign | uint32_t(std::nearbyint(absValue * 16777216.0f)));
  }
  uint32_t half = (magnitude - 0x38000000) >> 13; // Rebias 127 -> 15.
  uint32_t rest = magnitude & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // May carry into the exponent, which is still right.
  return uint16_t(sign | half);
}

bool isFloat(int64_t dtype) {
  return dtype == MXRT_F32 || dtype == MXRT_F64 || dtype == MXRT_F16;
}

double loadFloat(int32_t dtype, const uint8_t *p) {
  switch (dtype) {
  case MXRT_F32: {
    float value;
    std::memcpy(&value, p, sizeof(value));
    return value;
  }
  case MXRT_F64: {
    double value;
    std::memcpy(&value, p, sizeof(value));
    return value;
  }
  default: {
    uint16_t bits;
    std::memcpy(&bits, p, sizeof(bits));
    return halfToFloat(bits);
  }
  }
}

void storeFloat(int64_t dtype, double value, uint8_t *p) {
  switch (dtype) {
  case MXRT_F32: {
    float narrow = static_cast<float>(value);
    std::memcpy(p, &narrow, sizeof(narrow));
    break;
  }
  case MXRT_F64:
    std::memcpy(p, &value, sizeof(value));
    break;
  default: {
    uint16_t bits = floatToHalf(static_cast<float>(value));
    std::memcpy(p, &bits, sizeof(bits));
    break;
  }
  }
}

/// The saved name of a parameter: "aux:<name>" or "arg:<name>".
std::string savedName(const mxrt_tensor_desc &param) {
  return ((param.flags & MXRT_TENSOR_AUX) ? "aux:" : "arg:") +
         std::string(param.name);
}

/// Reads and parses the file at `path`; the records point into `bytes`.
mxrt_status readRecords(const char *path, std::vector<uint8_t> &bytes,
                        std::vector<Record> &records) {
  if (mxrt_status status = readWholeFile(path, bytes))
    return status;
  return parseFile(bytes, path, records);
}

/// One array of a .params file being written.
struct SaveItem {
  std::string name;
  int32_t dtype;
  int32_t ndim;
  const int64_t *shape;
  const void *data;
  size_t sizeBytes;
};

/// Writes `items` as a named NDArray list, atomically.
mxrt_status writeParams(const char *path, const std::vector<SaveItem> &items) {
  size_t count = items.size();
  // As MXNet does: V2 records, or V3 (NumPy shape semantics) for all records
  // when one is a 0-d scalar, which V2 would read back as a none array.
  bool numpyShape = false;
  for (const SaveItem &item : items)
    numpyShape = numpyShape || item.ndim == 0;

  // Small pieces first, then chunks pointing at them: the strings must not
  // move once a chunk points into them.
  std::vector<std::string> headers(count + 2);
  appendLE<uint64_t>(headers[0], listMagic);
  appendLE<uint64_t>(headers[0], 0);
  appendLE<uint64_t>(headers[0], uint64_t(count));
  std::string &names = headers[count + 1];
  appendLE<uint64_t>(names, uint64_t(count));
  for (size_t i = 0; i < count; ++i) {
    const SaveItem &item = items[i];
    std::string &header = headers[i + 1];
    appendLE<uint32_t>(header, numpyShape ? v3Magic : v2Magic);
    appendLE<int32_t>(header, 0); // dense storage
    appendLE<int32_t>(header, item.ndim);
    for (int32_t d = 0; d < item.ndim; ++d)
      appendLE<int64_t>(header, item.shape[d]);
    appendLE<int32_t>(header, cpuDevType);
    appendLE<int32_t>(header, 0); // device id
    appendLE<int32_t>(header, item.dtype);
    appendLE<uint64_t>(names, item.name.size());
    names += item.name;
  }
  std::vector<mxrt::FileChunk> chunks;
  chunks.push_back({headers[0].data(), headers[0].size()});
  for (size_t i = 0; i < count; ++i) {
    chunks.push_back({headers[i + 1].data(), headers[i + 1].size()});
    chunks.push_back({items[i].data, items[i].sizeBytes});
  }
  chunks.push_back({names.data(), names.size()});
  return mxrt::writeFileAtomically(path, chunks.data(), chunks.size());
}

mxrt_status saveParams(const mxrt_instance *instance, const char *path) {
  if (mxrt_status status =
          mxrt::checkNotNull("mxrt_instance_save_params",
                             {{"instance", instance}, {"path", path}}))
    return status;
  const mxrt_model_desc *desc = instance->model->desc;
  std::vector<SaveItem> items;
  // A CUDA model's parameters come from the GPU first.
  std::vector<std::vector<uint8_t>> fromDevice(
      instance->model->cuda() ? size_t(desc->num_params) : 0);
  for (int64_t i = 0; i < desc->num_params; ++i) {
    const mxrt_tensor_desc &param = desc->params[i];
    const uint8_t *data = instance->params[i];
    if (instance->model->cuda()) {
      std::string why;
      fromDevice[i].resize(size_t(param.size_bytes));
      if (!mxrt::cuda::toHost(fromDevice[i].data(), data,
                              size_t(param.size_bytes), why))
        return fail(MXRT_INTERNAL,
                    "mxrt_instance_save_params: '%s': parameter '%s' from "
                    "the GPU: %s",
                    path, param.name, why.c_str());
      data = fromDevice[i].data();
    }
    items.push_back({savedName(param), int32_t(param.dtype),
                     int32_t(param.ndim), param.shape, data,
                     size_t(param.size_bytes)});
  }
  return writeParams(path, items);
}

mxrt_status saveList(const char *path, size_t count, const char *const *names,
                     const mxrt_tensor *const *tensors) {
  const char *what = "mxrt_params_save";
  if (mxrt_status status = mxrt::checkNotNull(what, {{"path", path}}))
    return status;
  if (count && (!names || !tensors))
    return fail(MXRT_INVALID_ARGUMENT, "%s: names or tensors is NULL", what);
  std::vector<SaveItem> items;
  for (size_t i = 0; i < count; ++i) {
    const mxrt_tensor *t = tensors[i];
    if (!names[i] || !t)
      return fail(MXRT_INVALID_ARGUMENT, "%s: entry %zu has a NULL %s", what, i,
                  names[i] ? "tensor" : "name");
    if (t->dtype == MXRT_STRING || t->dtype == MXRT_BF16)
      return fail(MXRT_UNSUPPORTED, "%s: '%s' is %s, which .params cannot hold",
                  what, names[i], mxrt_dtype_name(t->dtype));
    items.push_back({names[i], int32_t(t->dtype), t->ndim, t->shape, t->data,
                     t->sizeBytes});
  }
  return writeParams(path, items);
}

mxrt_status loadParams(mxrt_instance *instance, const char *path) {
  const char *what = "mxrt_instance_load_params";
  if (mxrt_status status =
          mxrt::checkNotNull(what, {{"instance", instance}, {"path", path}}))
    return status;
  if (mxrt_status status =
          mxrt::requireTrainable(what, instance->model, "load"))
    return status;
  const mxrt_model_desc *desc = instance->model->desc;
  std::vector<uint8_t> bytes;
  std::vector<Record> records;
  if (mxrt_status status = readRecords(path, bytes, records))
    return status;
  std::unordered_map<std::string_view, size_t> byName;
  for (size_t i = 0; i < records.size(); ++i)
    byName.emplace(records[i].name, i); // The first of duplicates wins.

  // Match and check every parameter before changing any, so that a failed
  // load leaves the instance as it was. Arrays the model does not use are
  // ignored.
  std::vector<const Record *> matches(desc->num_params, nullptr);
  std::string firstMissing;
  int64_t numMissing = 0;
  for (int64_t i = 0; i < desc->num_params; ++i) {
    const mxrt_tensor_desc &param = desc->params[i];
    std::string name = param.name;
    bool aux = param.flags & MXRT_TENSOR_AUX;
    // The saved name with the parameter's own prefix, then the bare name,
    // then the other prefix (files written by hand or by other tools).
    for (const std::string &candidate :
         {savedName(param), name, (aux ? "arg:" : "aux:") + name}) {
      auto found = byName.find(candidate);
      if (found != byName.end()) {
        matches[i] = &records[found->second];
        break;
      }
    }
    if (!matches[i]) {
      if (numMissing++ == 0)
        firstMissing = savedName(param);
      continue;
    }
    const Record &record = *matches[i];
    if (record.isNone)
      return fail(MXRT_INVALID_ARGUMENT,
                  "'%s': parameter '%s': the file holds an empty (none) "
                  "array",
                  path, param.name);
    bool sameShape = int64_t(record.shape.size()) == param.ndim;
    for (int64_t d = 0; sameShape && d < param.ndim; ++d)
      sameShape = record.shape[d] == param.shape[d];
    if (!sameShape)
      return fail(
          MXRT_INVALID_ARGUMENT,
          "'%s': parameter '%s': expected shape %s, got %s", path, param.name,
          mxrt::shapeString(param.ndim, param.shape).c_str(),
          mxrt::shapeString(int64_t(record.shape.size()), record.shape.data())
              .c_str());
    if (record.typeFlag != param.dtype &&
        !(isFloat(record.typeFlag) && isFloat(param.dtype)))
      return fail(MXRT_INVALID_ARGUMENT,
                  "'%s': parameter '%s': cannot convert %s data to %s (only "
                  "float32, float64 and float16 data convert)",
                  path, param.name, flagName(record.typeFlag).c_str(),
                  mxrt_dtype_name(static_cast<mxrt_dtype>(param.dtype)));
  }
  if (numMissing) {
    std::string more;
    if (numMissing > 1)
      more = " (and " + std::to_string(numMissing - 1) + " more)";
    return fail(MXRT_NOT_FOUND,
                "'%s': parameter '%s' of model '%s' is missing%s", path,
                firstMissing.c_str(), desc->name, more.c_str());
  }

  // A CUDA model's parameters are converted on the host, then uploaded.
  std::vector<uint8_t> staging;
  for (int64_t i = 0; i < desc->num_params; ++i) {
    const mxrt_tensor_desc &param = desc->params[i];
    const Record &record = *matches[i];
    uint8_t *dst = instance->params[i];
    if (instance->model->cuda()) {
      staging.resize(size_t(param.size_bytes));
      dst = staging.data();
    }
    if (record.typeFlag == param.dtype) {
      std::memcpy(dst, record.data, param.size_bytes);
    } else {
      size_t srcSize =
          mxrt_dtype_size(static_cast<mxrt_dtype>(record.typeFlag));
      size_t dstSize = mxrt_dtype_size(static_cast<mxrt_dtype>(param.dtype));
      int64_t count = param.size_bytes / int64_t(dstSize);
      for (int64_t e = 0; e < count; ++e)
        storeFloat(param.dtype,
                   loadFloat(record.typeFlag, record.data + e * srcSize),
                   dst + e * dstSize);
    }
    std::string why;
    if (instance->model->cuda() &&
        !mxrt::cuda::toDevice(instance->params[i], dst,
                              size_t(param.size_bytes), why))
      return fail(MXRT_INTERNAL, "'%s': parameter '%s' to the GPU: %s", path,
                  param.name, why.c_str());
  }
  mxrt::paramsChanged(instance);
  return MXRT_OK;
}

} // namespace

mxrt_status mxrt_instance_save_params(const mxrt_instance *instance,
                                      const char *path) {
  return mxrt::guarded([&] { return saveParams(instance, path); });
}

mxrt_status mxrt_instance_load_params(mxrt_instance *instance,
                                      const char *path) {
  return mxrt::guarded([&] { return loadParams(instance, path); });
}

/// The object behind mxrt_params: a file's named arrays, as tensors.
struct mxrt_params {
  std::vector<std::string> names;
  std::vector<mxrt_tensor *> tensors;
  ~mxrt_params() {
    for (mxrt_tensor *t : tensors)
      mxrt_tensor_release(t);
  }
};

mxrt_status mxrt_params_save(const char *path, size_t count,
                             const char *const *names,
                             const mxrt_tensor *const *tensors) {
  return mxrt::guarded([&] { return saveList(path, count, names, tensors); });
}

mxrt_status mxrt_params_load(const char *path, mxrt_params **out_params) {
  return mxrt::guarded([&]() -> mxrt_status {
    if (mxrt_status status = mxrt::checkNotNull(
            "mxrt_params_load", {{"path", path}, {"out_params", out_params}}))
      return status;
    std::vector<uint8_t> bytes;
    std::vector<Record> records;
    if (mxrt_status status = readRecords(path, bytes, records))
      return status;
    auto params = std::make_unique<mxrt_params>();
    for (const Record &record : records) {
      if (record.isNone || !mxrt::isValidDtype(record.typeFlag))
        return fail(MXRT_UNSUPPORTED,
                    "'%s': array '%.*s' is %s, which a tensor cannot hold",
                    path, int(record.name.size()), record.name.data(),
                    record.isNone ? "empty (none)"
                                  : flagName(record.typeFlag).c_str());
      if (record.shape.size() > MXRT_MAX_DIMS)
        return fail(MXRT_UNSUPPORTED, "'%s': array '%.*s' has %zu dimensions",
                    path, int(record.name.size()), record.name.data(),
                    record.shape.size());
      mxrt_tensor *t;
      if (mxrt_status status = mxrt_tensor_create(
              static_cast<mxrt_dtype>(record.typeFlag),
              int32_t(record.shape.size()), record.shape.data(), &t))
        return status;
      params->tensors.push_back(t);
      params->names.emplace_back(record.name);
      std::memcpy(t->data, record.data, t->sizeBytes);
    }
    *out_params = params.release();
    return MXRT_OK;
  });
}

void mxrt_params_release(mxrt_params *params) { delete params; }

size_t mxrt_params_count(const mxrt_params *params) {
  return params ? params->names.size() : 0;
}

const char *mxrt_params_name(const mxrt_params *params, size_t index) {
  return params && index < params->names.size() ? params->names[index].c_str()
                                                : nullptr;
}

const mxrt_tensor *mxrt_params_tensor(const mxrt_params *params, size_t index) {
  return params && index < params->tensors.size() ? params->tensors[index]
                                                  : nullptr;
}

const mxrt_tensor *mxrt_params_find(const mxrt_params *params,
                                    const char *name) {
  if (!params || !name)
    return nullptr;
  for (size_t i = 0; i < params->names.size(); ++i)
    if (params->names[i] == name)
      return params->tensors[i];
  return nullptr;
}
