// SPDX-License-Identifier: Apache-2.0
// Reads and writes MXNet `.params` files byte-exactly as MXNet does
// (src/ndarray/ndarray.cc NDArray::Save/Load/LegacyLoad, NDArray list
// Save/Load). A weights file is untrusted input: every count and size is
// checked against the bytes actually present before anything is allocated.

#include "compiler/frontends/mxnet/Params.h"
#include "compiler/model/InputLimit.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/EndianStream.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

using namespace llvm;

namespace mxc::mxnet {

namespace {

constexpr uint64_t kListMagic = 0x112;
constexpr uint32_t kV1Magic = 0xF993FAC8; // int64 dims
constexpr uint32_t kV2Magic = 0xF993FAC9; // + storage type
constexpr uint32_t kV3Magic = 0xF993FACA; // + NumPy shape semantics
/// More dimensions than this is corruption, not a tensor.
constexpr int64_t kMaxNdim = 32;
/// mxnet::Context::kCPU.
constexpr int32_t kCpuDevType = 1;

Error makeStringError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// `a * b` into `result`; true on overflow.
bool mulOverflows(uint64_t a, uint64_t b, uint64_t &result) {
  return __builtin_mul_overflow(a, b, &result);
}

std::string hex(uint64_t value) {
  std::string text;
  raw_string_ostream(text) << format_hex(value, 0);
  return text;
}

/// A bounds-checked little-endian cursor over the file bytes.
class ByteReader {
public:
  ByteReader(StringRef bytes, StringRef fileName)
      : bytes(bytes), fileName(fileName) {}

  size_t remaining() const { return bytes.size() - offset; }

  Error fail(const Twine &message) const {
    return makeStringError("'" + fileName + "': " + message);
  }

  /// `where` names the record ("record 3: ") and `what` the field.
  Error truncated(StringRef where, const Twine &what, uint64_t need) const {
    return fail("truncated file: " + where + "reading " + what + " needs " +
                Twine(need) + " bytes at offset " + Twine(offset) +
                ", but only " + Twine(remaining()) + " are left");
  }

  template <typename T> Error read(T &out, StringRef where, const Twine &what) {
    if (remaining() < sizeof(T))
      return truncated(where, what, sizeof(T));
    out = support::endian::read<T>(bytes.data() + offset,
                                   llvm::endianness::little);
    offset += sizeof(T);
    return Error::success();
  }

  Error readBytes(uint64_t size, StringRef &out, StringRef where,
                  const Twine &what) {
    if (remaining() < size)
      return truncated(where, what, size);
    out = bytes.substr(offset, size);
    offset += size;
    return Error::success();
  }

private:
  StringRef bytes;
  StringRef fileName;
  size_t offset = 0;
};

/// Reads `ndim` dimensions of type `Dim` (int64 in V1-V3, uint32 in legacy
/// records).
template <typename Dim>
Error readDims(ByteReader &reader, int64_t ndim, std::vector<int64_t> &shape,
               StringRef where) {
  if (reader.remaining() < uint64_t(ndim) * sizeof(Dim))
    return reader.truncated(where, "the " + Twine(ndim) + " dimensions",
                            uint64_t(ndim) * sizeof(Dim));
  shape.resize(ndim);
  for (int64_t i = 0; i < ndim; ++i) {
    Dim dim;
    if (Error error = reader.read(dim, where, "a dimension"))
      return error;
    shape[i] = int64_t(dim);
  }
  return Error::success();
}

Expected<NamedArray> readRecord(ByteReader &reader, uint64_t index) {
  std::string whereText = "record " + std::to_string(index) + ": ";
  StringRef where = whereText;
  NamedArray array;

  uint32_t magic;
  if (Error error = reader.read(magic, where, "the record magic"))
    return error;

  bool numpyShape = magic == kV3Magic;
  if (magic == kV2Magic || magic == kV3Magic) {
    int32_t storage;
    if (Error error = reader.read(storage, where, "the storage type"))
      return error;
    if (storage == 1 || storage == 2)
      return reader.fail(where + "unsupported sparse storage (" +
                         (storage == 1 ? "row_sparse" : "csr") +
                         "); only dense arrays can be loaded");
    if (storage != 0)
      return reader.fail(where + "unknown storage type " + Twine(storage));
  }

  // The shape. In legacy records (written before V1) the "magic" is the ndim
  // and uint32 dimensions follow.
  bool isLegacy = magic != kV1Magic && magic != kV2Magic && magic != kV3Magic;
  int64_t ndim;
  if (isLegacy) {
    if (magic > uint32_t(kMaxNdim))
      return reader.fail(where + "unknown record magic " + hex(magic) +
                         " (not an NDArray V1/V2/V3 magic, and too large for "
                         "a legacy ndim)");
    ndim = magic;
    if (Error error = readDims<uint32_t>(reader, ndim, array.shape, where))
      return error;
  } else {
    int32_t rawNdim;
    if (Error error = reader.read(rawNdim, where, "ndim"))
      return error;
    ndim = rawNdim;
    // -1 is an unknown shape (MXNet >= 1.5), i.e. a none array.
    if (ndim < -1 || ndim > kMaxNdim)
      return reader.fail(where + "ndim " + Twine(ndim) +
                         " is out of range (0.." + Twine(kMaxNdim) + ")");
    if (ndim > 0)
      if (Error error = readDims<int64_t>(reader, ndim, array.shape, where))
        return error;
  }

  // A none array (MXNet's `NDArray()`) stops after its shape. In NumPy-shape
  // semantics (V3) ndim 0 is a scalar and a -1 dimension means unknown.
  bool unknownDim = false;
  for (auto [i, dim] : enumerate(array.shape)) {
    if (numpyShape && dim == -1)
      unknownDim = true;
    else if (dim < 0)
      return reader.fail(where + "dimension " + Twine(i) + " is " + Twine(dim));
  }
  if (ndim == -1 || (ndim == 0 && !numpyShape) || unknownDim) {
    array.shape.clear();
    array.isNone = true;
    return array;
  }

  int32_t devType, devId, typeFlag;
  if (Error error = reader.read(devType, where, "the context device type"))
    return error;
  if (Error error = reader.read(devId, where, "the context device id"))
    return error;
  if (Error error = reader.read(typeFlag, where, "the dtype"))
    return error;
  std::optional<DType> dtype = dtypeFromFlag(typeFlag);
  if (!dtype)
    return reader.fail(where + "unknown dtype flag " + Twine(typeFlag));
  array.dtype = *dtype;

  uint64_t numBytes = dtypeSize(*dtype);
  for (int64_t dim : array.shape)
    if (mulOverflows(numBytes, uint64_t(dim), numBytes))
      return reader.fail(where + "the shape's byte size overflows 64 bits");
  StringRef data;
  if (Error error =
          reader.readBytes(numBytes, data, where,
                           "the " + StringRef(dtypeName(*dtype)) + " data"))
    return error;
  array.data.assign(data.bytes_begin(), data.bytes_end());
  return array;
}

template <typename T> void writeLE(raw_ostream &os, T value) {
  support::endian::write(os, value, llvm::endianness::little);
}

Error validateForWriting(const NamedArray &array, size_t index) {
  auto fail = [&](const Twine &message) {
    return makeStringError("cannot write array " + Twine(index) + " ('" +
                           array.name + "'): " + message);
  };
  std::optional<DType> dtype = dtypeFromFlag(int32_t(array.dtype));
  if (!dtype)
    return fail("unknown dtype flag " + Twine(int32_t(array.dtype)));
  if (array.isNone) {
    if (!array.shape.empty() || !array.data.empty())
      return fail("a none array has a shape or data");
    return Error::success();
  }
  if (int64_t(array.shape.size()) > kMaxNdim)
    return fail(Twine(array.shape.size()) + " dimensions (at most " +
                Twine(kMaxNdim) + ")");
  uint64_t numBytes = dtypeSize(*dtype);
  for (int64_t dim : array.shape) {
    if (dim < 0)
      return fail("negative dimension " + Twine(dim));
    if (mulOverflows(numBytes, uint64_t(dim), numBytes))
      return fail("the shape's byte size overflows 64 bits");
  }
  if (array.data.size() != numBytes)
    return fail(Twine(array.data.size()) + " data bytes, but its shape and " +
                dtypeName(*dtype) + " need " + Twine(numBytes));
  return Error::success();
}

} // namespace

//===----------------------------------------------------------------------===//
// DType and NamedArray
//===----------------------------------------------------------------------===//

std::optional<DType> dtypeFromFlag(int32_t flag) {
  if (flag < 0 || flag > int32_t(DType::BF16))
    return std::nullopt;
  return DType(flag);
}

int64_t NamedArray::numElements() const {
  if (isNone)
    return 0;
  // A zero extent makes the array empty whatever the others are; the reader
  // bounds the byte size of nonempty shapes only, so check for it first.
  if (llvm::is_contained(shape, 0))
    return 0;
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

std::string NamedArray::savedName() const {
  switch (kind) {
  case ArrayKind::Arg:
    return "arg:" + name;
  case ArrayKind::Aux:
    return "aux:" + name;
  case ArrayKind::None:
    return name;
  }
  llvm_unreachable("unknown ArrayKind");
}

float halfToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in float.
    float magnitude = std::ldexp(float(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  uint32_t result;
  if (exponent == 0x1f) // Inf or NaN, payload kept.
    result = sign | 0x7f800000 | (mantissa << 13);
  else // Rebias 15 -> 127.
    result = sign | ((exponent + 112) << 23) | (mantissa << 13);
  return llvm::bit_cast<float>(result);
}

Expected<std::vector<float>> NamedArray::toFloat32() const {
  size_t elemSize = dtypeSize(dtype);
  int64_t count = numElements();
  if (count < 0 || data.size() != uint64_t(count) * elemSize)
    return makeStringError("array '" + name + "': " + Twine(data.size()) +
                           " data bytes do not match its shape");
  std::vector<float> result;
  result.reserve(count);
  const uint8_t *p = data.data();
  auto le = llvm::endianness::little;
  for (int64_t i = 0; i < count; ++i, p += elemSize) {
    switch (dtype) {
    case DType::F32:
      result.push_back(
          llvm::bit_cast<float>(support::endian::read<uint32_t>(p, le)));
      break;
    case DType::F64:
      result.push_back(float(
          llvm::bit_cast<double>(support::endian::read<uint64_t>(p, le))));
      break;
    case DType::F16:
      result.push_back(halfToFloat(support::endian::read<uint16_t>(p, le)));
      break;
    case DType::BF16:
      result.push_back(llvm::bit_cast<float>(
          uint32_t(support::endian::read<uint16_t>(p, le)) << 16));
      break;
    default:
      return makeStringError("array '" + name + "' has dtype " +
                             dtypeName(dtype) +
                             "; only floating-point arrays convert to "
                             "float32");
    }
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

Expected<std::vector<NamedArray>> parseParams(StringRef bytes,
                                              StringRef fileNameForMessages) {
  ByteReader reader(bytes, fileNameForMessages);
  if (bytes.size() < sizeof(uint64_t))
    return reader.fail("not an MXNet .params file (only " +
                       Twine(bytes.size()) + " bytes)");
  uint64_t magic, reserved, count;
  if (Error error = reader.read(magic, "", "the list magic"))
    return error;
  if (magic != kListMagic)
    return reader.fail("not an MXNet .params file (magic " + hex(magic) +
                       ", expected " + hex(kListMagic) + ")");
  if (Error error = reader.read(reserved, "", "the reserved header field"))
    return error;
  if (Error error = reader.read(count, "", "the array count"))
    return error;
  // The smallest record (a legacy none array) is 4 bytes.
  if (count > reader.remaining() / 4)
    return reader.fail("the file claims " + Twine(count) +
                       " arrays, more than its " + Twine(reader.remaining()) +
                       " remaining bytes can hold");

  std::vector<NamedArray> arrays;
  arrays.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    Expected<NamedArray> array = readRecord(reader, i);
    if (!array)
      return array.takeError();
    arrays.push_back(std::move(*array));
  }

  uint64_t numNames;
  if (Error error = reader.read(numNames, "", "the name count"))
    return error;
  if (numNames != 0 && numNames != count)
    return reader.fail(Twine(count) + " arrays but " + Twine(numNames) +
                       " names (expected 0 or " + Twine(count) + ")");
  for (uint64_t i = 0; i < numNames; ++i) {
    std::string where = "name " + std::to_string(i) + ": ";
    uint64_t length;
    if (Error error = reader.read(length, where, "the name length"))
      return error;
    StringRef name;
    if (Error error = reader.readBytes(length, name, where, "the name"))
      return error;
    NamedArray &array = arrays[i];
    if (name.consume_front("arg:"))
      array.kind = ArrayKind::Arg;
    else if (name.consume_front("aux:"))
      array.kind = ArrayKind::Aux;
    array.name = name.str();
  }
  return arrays;
}

Expected<std::vector<NamedArray>> readParamsFile(StringRef path) {
  uint64_t size;
  if (!sys::fs::file_size(path, size))
    if (Error e = checkInputBytes(path, size))
      return std::move(e);
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(
      path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeStringError("'" + path +
                           "': cannot read: " + buffer.getError().message());
  return parseParams((*buffer)->getBuffer(), path);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

Error writeParams(raw_ostream &os, ArrayRef<NamedArray> arrays) {
  for (auto [i, array] : enumerate(arrays))
    if (Error error = validateForWriting(array, i))
      return error;
  // MXNet writes V3 only in NumPy-shape mode, where a 0-d array is a scalar
  // rather than a none array; one scalar puts the whole file in that mode.
  bool numpyShape = any_of(arrays, [](const NamedArray &array) {
    return !array.isNone && array.shape.empty();
  });

  writeLE<uint64_t>(os, kListMagic);
  writeLE<uint64_t>(os, 0);
  writeLE<uint64_t>(os, arrays.size());
  for (const NamedArray &array : arrays) {
    writeLE<uint32_t>(os, numpyShape ? kV3Magic : kV2Magic);
    writeLE<int32_t>(os, 0); // dense storage
    if (array.isNone) {
      writeLE<int32_t>(os, numpyShape ? -1 : 0);
      continue;
    }
    writeLE<int32_t>(os, int32_t(array.shape.size()));
    for (int64_t dim : array.shape)
      writeLE<int64_t>(os, dim);
    writeLE<int32_t>(os, kCpuDevType);
    writeLE<int32_t>(os, 0); // device id
    writeLE<int32_t>(os, int32_t(array.dtype));
    os.write(reinterpret_cast<const char *>(array.data.data()),
             array.data.size());
  }

  bool unnamed = all_of(arrays, [](const NamedArray &array) {
    return array.name.empty() && array.kind == ArrayKind::None;
  });
  writeLE<uint64_t>(os, unnamed ? 0 : arrays.size());
  if (!unnamed) {
    for (const NamedArray &array : arrays) {
      std::string name = array.savedName();
      writeLE<uint64_t>(os, name.size());
      os << name;
    }
  }
  return Error::success();
}

Error writeParamsFile(StringRef path, ArrayRef<NamedArray> arrays) {
  auto fail = [&](const Twine &message) {
    return makeStringError("'" + path + "': " + message);
  };
  int fd;
  SmallString<128> tempPath;
  if (std::error_code ec = sys::fs::createUniqueFile(
          path + ".tmp-%%%%%%", fd, tempPath, sys::fs::OF_None))
    return fail("cannot create a temporary file: " + ec.message());

  raw_fd_ostream os(fd, /*shouldClose=*/true);
  Error writeError = writeParams(os, arrays);
  os.close();
  std::error_code streamError = os.error();
  os.clear_error();
  if (writeError || streamError) {
    sys::fs::remove(tempPath);
    if (writeError)
      return writeError;
    return fail("cannot write: " + streamError.message());
  }
  if (std::error_code ec = sys::fs::rename(tempPath, path)) {
    sys::fs::remove(tempPath);
    return fail("cannot rename the temporary file into place: " + ec.message());
  }
  return Error::success();
}

} // namespace mxc::mxnet
