// SPDX-License-Identifier: Apache-2.0
// Reads an ONNX model without holding its large initializers twice.
// protobuf parses a long `raw_data` string in chunks into a string that
// grows by doubling, so a 411 MB weight passes through 800 MB of memory;
// instead the file's wire format is walked first (mapped, so only the
// pages walked are read) and each large raw_data field of a graph
// initializer becomes an external-data reference to its own bytes in the
// same file, which readTensor then reads straight into the constant's
// buffer. The rest of the model (nodes, attributes, small tensors) is
// parsed by protobuf as usual.
#include "compiler/frontends/onnx/ModelFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <optional>
#include <string>

using namespace mxc::onnx;

namespace {

/// Initializers' raw_data of at least this many bytes are left in the file.
constexpr uint64_t kLeaveInFile = uint64_t(1) << 20;

// Field numbers of onnx.proto.
constexpr uint32_t kModelGraph = 7, kGraphInitializer = 5, kTensorRawData = 9,
                   kTensorExternalData = 13, kTensorDataLocation = 14;
constexpr uint32_t kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5;

void putVarint(std::string &out, uint64_t v) {
  while (v >= 0x80) {
    out += char(v | 0x80);
    v >>= 7;
  }
  out += char(v);
}

void putBytesField(std::string &out, uint32_t field, llvm::StringRef bytes) {
  putVarint(out, uint64_t(field) << 3 | kBytes);
  putVarint(out, bytes.size());
  out += bytes;
}

/// A walk over the fields of one serialized message. Malformed input (a
/// group, a length past the end) stops it with `ok` false.
class FieldReader {
public:
  FieldReader(const char *begin, const char *end) : p(begin), end(end) {}

  /// The next field: its number, wire type, payload (for length-delimited
  /// ones) and all its bytes, tag included.
  bool next(uint32_t &field, uint32_t &wireType, llvm::StringRef &payload,
            llvm::StringRef &whole) {
    if (p == end || !ok)
      return false;
    const char *start = p;
    uint64_t tag;
    if (!varint(tag))
      return fail();
    field = uint32_t(tag >> 3);
    wireType = uint32_t(tag & 7);
    uint64_t skip = 0;
    switch (wireType) {
    case kVarint: {
      uint64_t ignored;
      if (!varint(ignored))
        return fail();
      break;
    }
    case kFixed64:
      skip = 8;
      break;
    case kFixed32:
      skip = 4;
      break;
    case kBytes:
      if (!varint(skip))
        return fail();
      break;
    default: // groups: not in ONNX's schema
      return fail();
    }
    if (skip > uint64_t(end - p))
      return fail();
    payload = llvm::StringRef(p, skip);
    p += skip;
    whole = llvm::StringRef(start, p - start);
    return true;
  }
  bool ok = true;

private:
  bool varint(uint64_t &v) {
    v = 0;
    for (int shift = 0; shift < 64 && p != end; shift += 7) {
      uint8_t byte = uint8_t(*p++);
      v |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return true;
    }
    return false;
  }
  bool fail() {
    ok = false;
    return false;
  }

  const char *p;
  const char *end;
};

/// Rewrites the fields of a message, giving length-delimited field
/// `nested` to `rewrite`; nullopt when the bytes are malformed.
template <typename Rewrite>
std::optional<std::string> rewriteFields(llvm::StringRef message,
                                         uint32_t nested, Rewrite rewrite) {
  std::string out;
  FieldReader reader(message.begin(), message.end());
  uint32_t field, wireType;
  llvm::StringRef payload, whole;
  while (reader.next(field, wireType, payload, whole)) {
    if (field != nested || wireType != kBytes) {
      out += whole;
      continue;
    }
    std::optional<std::string> inner = rewrite(payload);
    if (!inner)
      return std::nullopt;
    putBytesField(out, field, *inner);
  }
  if (!reader.ok)
    return std::nullopt;
  return out;
}

/// A TensorProto with its large raw_data replaced by a reference to those
/// bytes at their offset in `file` (named `location` beside the model).
std::optional<std::string> rewriteTensor(llvm::StringRef tensor,
                                         const char *fileBegin,
                                         llvm::StringRef location) {
  std::string out;
  FieldReader reader(tensor.begin(), tensor.end());
  uint32_t field, wireType;
  llvm::StringRef payload, whole, raw;
  bool hasLocation = false;
  while (reader.next(field, wireType, payload, whole)) {
    hasLocation |= field == kTensorDataLocation || field == kTensorExternalData;
    if (field == kTensorRawData && wireType == kBytes &&
        payload.size() >= kLeaveInFile)
      raw = payload;
    else
      out += whole;
  }
  if (!reader.ok)
    return std::nullopt;
  if (raw.empty() || hasLocation) // nothing to leave, or already external
    return tensor.str();
  auto entry = [&](llvm::StringRef key, const std::string &value) {
    std::string e;
    putBytesField(e, 1, key);
    putBytesField(e, 2, value);
    putBytesField(out, kTensorExternalData, e);
  };
  entry("location", location.str());
  entry("offset", std::to_string(raw.data() - fileBegin));
  entry("length", std::to_string(raw.size()));
  putVarint(out, uint64_t(kTensorDataLocation) << 3 | kVarint);
  putVarint(out, 1); // TensorProto::EXTERNAL
  return out;
}

} // namespace

std::optional<std::string>
mxc::onnx::modelWithoutLargeInitializers(llvm::StringRef path) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return std::nullopt;
  llvm::StringRef bytes = (*file)->getBuffer();
  std::string location = llvm::sys::path::filename(path).str();
  return rewriteFields(bytes, kModelGraph, [&](llvm::StringRef graph) {
    return rewriteFields(graph, kGraphInitializer, [&](llvm::StringRef t) {
      return rewriteTensor(t, bytes.begin(), location);
    });
  });
}

llvm::Error mxc::onnx::writeModelFile(const ::onnx::ModelProto &model,
                                      llvm::StringRef path,
                                      llvm::StringRef what) {
  std::string bytes;
  if (!model.SerializeToString(&bytes))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot serialize " + what + " for '" +
                                       path + "'");
  return llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
    os << bytes;
    return llvm::Error::success();
  });
}
