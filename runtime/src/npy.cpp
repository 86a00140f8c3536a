// SPDX-License-Identifier: Apache-2.0
//
// Reading and writing NumPy .npy files, the exchange format between mxrun,
// reference scripts and tests. Readers accept format versions 1.0-3.0 as
// written by any NumPy; the writer produces exactly what NumPy 1.24's np.save
// writes, so files compare byte for byte. NumPy has no bfloat16, so such a
// tensor travels as a structured array of one uint16 field named "bfloat16"
// (the raw bits), which names the dtype and still loads in NumPy.

#include "internal.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <sys/stat.h>

namespace {

constexpr char npyMagic[] = "\x93NUMPY";
constexpr size_t npyMagicLen = 6;

/// Closes the FILE on every path out of the reader.
struct FileCloser {
  FILE *file;
  ~FileCloser() {
    if (file)
      std::fclose(file);
  }
};

/// Parses the header's Python dict literal, e.g.
/// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
/// Only the three keys NumPy writes are accepted, in any order. A structured
/// descr, [('name', '<u2'), ...], is read as its list of fields.
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : text(text) {}

  /// On failure returns false and sets `error`.
  bool parse() {
    skipSpace();
    if (!consume('{'))
      return setError("expected '{'");
    bool seenDescr = false, seenOrder = false, seenShape = false;
    std::string key;
    auto entry = [&] {
      if (!parseString(key))
        return false;
      if (!expect(':', "expected ':' after '" + key + "'"))
        return false;
      skipSpace();
      if (key == "descr") {
        seenDescr = true;
        return text.compare(pos, 1, "[") == 0 ? parseFields()
                                              : parseString(descr);
      }
      if (key == "fortran_order") {
        seenOrder = true;
        return parseBool(fortranOrder);
      }
      if (key == "shape") {
        seenShape = true;
        return parseShape();
      }
      return setError("unexpected key '" + key + "'");
    };
    if (!parseList('}', entry, [&] {
          return "expected ',' or '}' after the value of '" + key + "'";
        }))
      return false;
    skipSpace();
    if (pos != text.size())
      return setError("unexpected text after the closing '}'");
    if (!seenDescr)
      return setError("missing key 'descr'");
    if (!seenOrder)
      return setError("missing key 'fortran_order'");
    if (!seenShape)
      return setError("missing key 'shape'");
    return true;
  }

  std::string descr;
  /// (name, type) of each field of a structured descr (`descr` is empty).
  std::vector<std::pair<std::string, std::string>> fields;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  std::string error;

private:
  bool setError(const std::string &message) {
    error = message;
    return false;
  }
  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }
  bool consume(char c) {
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool consumeWord(const char *word) {
    size_t len = std::strlen(word);
    if (text.compare(pos, len, word) != 0)
      return false;
    pos += len;
    return true;
  }
  /// Skips white space, then consumes `c` or fails with `message`.
  bool expect(char c, const std::string &message) {
    skipSpace();
    return consume(c) || setError(message);
  }
  /// The items of a list whose opening bracket is consumed, up to `close`:
  /// `item()` parses one, commas separate them, a trailing one is allowed;
  /// anything else after an item fails with `separatorError()`.
  template <typename Item, typename Message>
  bool parseList(char close, Item item, Message separatorError) {
    while (true) {
      skipSpace();
      if (consume(close))
        return true;
      if (!item())
        return false;
      skipSpace();
      if (consume(close))
        return true;
      if (!consume(','))
        return setError(separatorError());
    }
  }
  /// A quoted string, after optional white space.
  bool parseString(std::string &out) {
    skipSpace();
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return setError("expected a quoted string");
    char quote = text[pos++];
    size_t end = text.find(quote, pos);
    if (end == std::string::npos)
      return setError("unterminated string");
    out = text.substr(pos, end - pos);
    pos = end + 1;
    return true;
  }
  /// [('name', 'type'), ...] with an optional trailing comma.
  bool parseFields() {
    consume('[');
    auto field = [&] {
      std::string name, type;
      if (!consume('('))
        return setError("a structured 'descr' holds something other than "
                        "(name, type) pairs");
      if (!parseString(name) ||
          !expect(',', "expected ',' after a field name in 'descr'") ||
          !parseString(type) ||
          !expect(')', "expected ')' after a field type in 'descr'"))
        return false;
      fields.emplace_back(name, type);
      return true;
    };
    return parseList(']', field,
                     [] { return "expected ',' or ']' in 'descr'"; });
  }
  bool parseBool(bool &out) {
    if (consumeWord("True"))
      out = true;
    else if (consumeWord("False"))
      out = false;
    else
      return setError("'fortran_order' is not True or False");
    return true;
  }
  bool parseShape() {
    if (!consume('('))
      return setError("'shape' is not a tuple");
    shape.clear();
    auto extent = [&] {
      if (pos >= text.size() || text[pos] < '0' || text[pos] > '9')
        return setError("'shape' holds something other than non-negative "
                        "integers");
      uint64_t value = 0;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        value = value * 10 + static_cast<uint64_t>(text[pos++] - '0');
        if (value > uint64_t(INT64_MAX))
          return setError("'shape' has an extent that does not fit in int64");
      }
      consume('L'); // Python 2 longs, as old NumPy wrote them.
      shape.push_back(static_cast<int64_t>(value));
      return true;
    };
    return parseList(')', extent,
                     [] { return "expected ',' or ')' in 'shape'"; });
  }

  const std::string &text;
  size_t pos = 0;
};

constexpr char bf16Field[] = "bfloat16";

/// Maps a NumPy type string such as '<f4' to a dtype. Multi-byte types must
/// be little-endian ('<', or '=' on this little-endian host); single-byte ones
/// may carry any byte-order mark. Of structured types, only bfloat16's.
/// NumPy's fixed-width text dtypes: '<U<n>' (n UTF-32 code units) and
/// '|S<n>' (n bytes), both padded with NULs.
struct TextDescr {
  size_t unitBytes = 0; // 4 for U, 1 for S; 0: not text
  size_t units = 0;
};

mxrt_status parseDescr(const char *path, const HeaderParser &header,
                       mxrt_dtype *out, TextDescr *text) {
  if (!header.fields.empty()) {
    const auto &fields = header.fields;
    if (fields.size() == 1 && fields[0].first == bf16Field &&
        (fields[0].second == "<u2" || fields[0].second == "=u2")) {
      *out = MXRT_BF16;
      return MXRT_OK;
    }
    return mxrt::fail(MXRT_UNSUPPORTED,
                      "'%s': unsupported structured dtype (the only one "
                      "supported is bfloat16's [('%s', '<u2')])",
                      path, bf16Field);
  }
  const std::string &descr = header.descr;
  if (descr.size() >= 3 && std::strchr("<=|>", descr[0]) &&
      (descr[1] == 'U' || descr[1] == 'S') &&
      descr.find_first_not_of("0123456789", 2) == std::string::npos &&
      descr.size() <= 12) {
    if (descr[1] == 'U' && descr[0] == '>')
      return mxrt::fail(MXRT_UNSUPPORTED,
                        "'%s': dtype '%s' is not little-endian; convert it "
                        "with arr.astype('<U%s')",
                        path, descr.c_str(), descr.c_str() + 2);
    text->unitBytes = descr[1] == 'U' ? 4 : 1;
    text->units = std::strtoull(descr.c_str() + 2, nullptr, 10);
    // Elements of no bytes would let a tiny file claim billions of strings.
    if (text->units == 0)
      return mxrt::fail(MXRT_UNSUPPORTED,
                        "'%s': text dtype '%s' has zero width (NumPy's text "
                        "arrays hold at least one unit per element)",
                        path, descr.c_str());
    *out = MXRT_STRING;
    return MXRT_OK;
  }
  // The dtype table's NumPy type strings ("<f4"), matched on the kind and
  // size ("f4") whatever the byte-order mark.
  if (descr.size() == 3 && std::strchr("<=|>", descr[0])) {
    for (int64_t code = MXRT_F32; code <= MXRT_STRING; ++code) {
      const mxrt::DtypeInfo &kind = *mxrt::dtypeInfo(code);
      if (!kind.npyType || descr.compare(1, 2, kind.npyType + 1) != 0)
        continue;
      if (kind.size != 1 && (descr[0] == '>' || descr[0] == '|'))
        return mxrt::fail(MXRT_UNSUPPORTED,
                          "'%s': dtype '%s' is not little-endian; convert "
                          "it with arr.astype('<%s')",
                          path, descr.c_str(), kind.npyType + 1);
      *out = kind.dtype;
      return MXRT_OK;
    }
  }
  std::string supported;
  for (int64_t code = MXRT_F32; code <= MXRT_STRING; ++code)
    if (const char *npyType = mxrt::dtypeInfo(code)->npyType)
      supported += (supported.empty() ? "" : " ") + std::string(npyType);
  return mxrt::fail(MXRT_UNSUPPORTED,
                    "'%s': unsupported dtype '%s' (supported: %s, text as <U "
                    "and |S, and bfloat16 as [('bfloat16', '<u2')])",
                    path, descr.c_str(), supported.c_str());
}

/// The descr as a Python literal, as np.save writes it; a string tensor's is
/// '<U<n>', n code points per element.
std::string descrOf(mxrt_dtype dtype, size_t textUnits) {
  if (dtype == MXRT_STRING)
    return "'<U" + std::to_string(textUnits) + "'";
  if (dtype == MXRT_BF16)
    return std::string("[('") + bf16Field + "', '<u2')]";
  return std::string("'") + mxrt::dtypeInfo(dtype)->npyType + "'";
}

uint32_t readLittleEndian(const unsigned char *bytes, size_t count) {
  uint32_t value = 0;
  for (size_t i = 0; i < count; ++i)
    value |= uint32_t(bytes[i]) << (8 * i);
  return value;
}

/// Appends code point `c` to `out` as UTF-8; false for a value that is not a
/// Unicode scalar.
bool appendUtf8(uint32_t c, std::string &out) {
  if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
    return false;
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
  return true;
}

/// Decodes UTF-8 `s` into code points; false when it is not valid UTF-8.
bool decodeUtf8(const char *s, std::vector<uint32_t> &out) {
  out.clear();
  auto *p = reinterpret_cast<const unsigned char *>(s);
  while (*p) {
    uint32_t c = *p++;
    int more = c < 0x80         ? 0
               : (c >> 5) == 6  ? 1
               : (c >> 4) == 14 ? 2
               : (c >> 3) == 30 ? 3
                                : -1;
    if (more < 0)
      return false;
    if (more)
      c &= 0x3F >> more;
    for (int k = 0; k < more; ++k, ++p) {
      if ((*p & 0xC0) != 0x80)
        return false;
      c = (c << 6) | (*p & 0x3F);
    }
    static const uint32_t least[] = {0, 0x80, 0x800, 0x10000};
    if (c < least[more] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
      return false;
    out.push_back(c);
  }
  return true;
}

/// Reads the elements of a text array into string tensor `tensor`.
mxrt_status readText(const char *path, FILE *file, const TextDescr &text,
                     mxrt_tensor *tensor) {
  std::vector<unsigned char> item(text.units * text.unitBytes);
  std::string value;
  std::vector<uint32_t> codePoints;
  for (int64_t i = 0; i < tensor->numElements; ++i) {
    if (std::fread(item.data(), 1, item.size(), file) != item.size())
      return mxrt::fail(
          MXRT_IO_ERROR, "'%s': cannot read the array data: %s", path,
          std::ferror(file) ? std::strerror(errno) : "unexpected end of file");
    value.clear();
    for (size_t u = 0; u < text.units; ++u) {
      uint32_t c =
          text.unitBytes == 1 ? item[u] : readLittleEndian(&item[4 * u], 4);
      if (c == 0)
        break;
      if (text.unitBytes == 1)
        value += static_cast<char>(c);
      else if (!appendUtf8(c, value))
        return mxrt::fail(MXRT_IO_ERROR,
                          "'%s': element %lld holds U+%X, which is not a "
                          "Unicode character",
                          path, static_cast<long long>(i), c);
    }
    // String tensors hold UTF-8; a '|S' element's bytes may be anything.
    if (text.unitBytes == 1 && !decodeUtf8(value.c_str(), codePoints))
      return mxrt::fail(MXRT_IO_ERROR,
                        "'%s': element %lld is not valid UTF-8 (string "
                        "tensors hold UTF-8 text)",
                        path, static_cast<long long>(i));
    if (mxrt_status status = mxrt_tensor_set_string(tensor, i, value.c_str()))
      return status;
  }
  return MXRT_OK;
}

mxrt_status loadNpy(const char *path, mxrt_tensor **outTensor) {
  if (mxrt_status status = mxrt::checkNotNull(
          "mxrt_tensor_load_npy", {{"path", path}, {"out_tensor", outTensor}}))
    return status;
  FileCloser closer{std::fopen(path, "rb")};
  FILE *file = closer.file;
  if (!file)
    return mxrt::fail(errno == ENOENT ? MXRT_NOT_FOUND : MXRT_IO_ERROR,
                      "cannot open '%s': %s", path, std::strerror(errno));
  struct stat info;
  if (fstat(fileno(file), &info) != 0 || !S_ISREG(info.st_mode))
    return mxrt::fail(MXRT_IO_ERROR, "'%s' is not a regular file", path);
  uint64_t fileSize = static_cast<uint64_t>(info.st_size);
  if (mxrt_status status = mxrt::checkInputBytes(path, fileSize))
    return status;

  unsigned char prefix[8];
  size_t got = std::fread(prefix, 1, sizeof(prefix), file);
  if (got >= npyMagicLen ? std::memcmp(prefix, npyMagic, npyMagicLen) != 0
                         : std::memcmp(prefix, npyMagic, got) != 0)
    return mxrt::fail(MXRT_IO_ERROR,
                      "'%s' is not a .npy file (bad magic string)", path);
  if (got < sizeof(prefix))
    return mxrt::fail(MXRT_IO_ERROR, "'%s': truncated .npy header", path);
  unsigned major = prefix[6], minor = prefix[7];
  if (major < 1 || major > 3 || minor != 0)
    return mxrt::fail(MXRT_UNSUPPORTED,
                      "'%s': unsupported .npy format version %u.%u (supported: "
                      "1.0, 2.0, 3.0)",
                      path, major, minor);
  size_t lenBytes = major == 1 ? 2 : 4;
  unsigned char lenField[4];
  if (std::fread(lenField, 1, lenBytes, file) != lenBytes)
    return mxrt::fail(MXRT_IO_ERROR, "'%s': truncated .npy header", path);
  uint64_t headerLen = readLittleEndian(lenField, lenBytes);
  uint64_t dataOffset = sizeof(prefix) + lenBytes + headerLen;
  if (dataOffset > fileSize)
    return mxrt::fail(MXRT_IO_ERROR,
                      "'%s': truncated .npy header (header claims %llu bytes, "
                      "file has %llu)",
                      path, static_cast<unsigned long long>(headerLen),
                      static_cast<unsigned long long>(fileSize));
  std::string header(headerLen, '\0');
  if (std::fread(&header[0], 1, headerLen, file) != headerLen)
    return mxrt::fail(MXRT_IO_ERROR, "'%s': cannot read the .npy header: %s",
                      path, std::strerror(errno));

  HeaderParser parser(header);
  if (!parser.parse())
    return mxrt::fail(MXRT_IO_ERROR, "'%s': invalid .npy header: %s", path,
                      parser.error.c_str());
  mxrt_dtype dtype = MXRT_F32;
  TextDescr text;
  if (mxrt_status status = parseDescr(path, parser, &dtype, &text))
    return status;
  if (parser.fortranOrder)
    return mxrt::fail(
        MXRT_UNSUPPORTED,
        "'%s': Fortran-order arrays are not supported; save a "
        "C-order copy with np.save(path, np.ascontiguousarray(a))",
        path);
  if (parser.shape.size() > MXRT_MAX_DIMS)
    return mxrt::fail(MXRT_UNSUPPORTED, "'%s': %zu dimensions (at most %d)",
                      path, parser.shape.size(), MXRT_MAX_DIMS);
  int32_t ndim = static_cast<int32_t>(parser.shape.size());
  int64_t numElements = 0;
  size_t sizeBytes = 0;
  if (mxrt::checkTensorArgs("mxrt_tensor_load_npy", dtype, ndim,
                            parser.shape.data(), &numElements, &sizeBytes))
    return mxrt::fail(MXRT_IO_ERROR, "'%s': shape %s is too large", path,
                      mxrt::shapeString(ndim, parser.shape.data()).c_str());
  if (text.unitBytes &&
      (__builtin_mul_overflow(size_t(numElements), text.units * text.unitBytes,
                              &sizeBytes) ||
       text.units > (size_t(1) << 32)))
    return mxrt::fail(MXRT_IO_ERROR, "'%s': shape %s is too large", path,
                      mxrt::shapeString(ndim, parser.shape.data()).c_str());
  // Check before allocating, so that a corrupt shape cannot ask for terabytes.
  if (fileSize - dataOffset < sizeBytes)
    return mxrt::fail(
        MXRT_IO_ERROR,
        "'%s': truncated .npy file: shape %s %s needs %zu bytes of data, "
        "found %llu",
        path, mxrt::shapeString(ndim, parser.shape.data()).c_str(),
        mxrt_dtype_name(dtype), sizeBytes,
        static_cast<unsigned long long>(fileSize - dataOffset));

  mxrt_tensor *tensor = nullptr;
  if (mxrt_status status =
          mxrt_tensor_create(dtype, ndim, parser.shape.data(), &tensor))
    return status;
  if (text.unitBytes) {
    mxrt_status status = readText(path, file, text, tensor);
    if (status != MXRT_OK) {
      mxrt_tensor_release(tensor);
      return status;
    }
    *outTensor = tensor;
    return MXRT_OK;
  }
  if (std::fread(tensor->data, 1, sizeBytes, file) != sizeBytes) {
    mxrt_tensor_release(tensor);
    return mxrt::fail(
        MXRT_IO_ERROR, "'%s': cannot read the array data: %s", path,
        std::ferror(file) ? std::strerror(errno) : "unexpected end of file");
  }
  *outTensor = tensor;
  return MXRT_OK;
}

/// The whole file as NumPy 1.24's np.save writes it (format 1.0), minus data.
std::string npyHeader(const mxrt_tensor *tensor, size_t textUnits = 0) {
  std::string dict = "{'descr': ";
  dict += descrOf(tensor->dtype, textUnits);
  dict += ", 'fortran_order': False, 'shape': (";
  for (int32_t i = 0; i < tensor->ndim; ++i) {
    if (i)
      dict += ", ";
    dict += std::to_string(tensor->shape[i]);
  }
  dict += tensor->ndim == 1 ? ",), }" : "), }";
  // Pad with spaces and a newline so that the data starts 64-byte aligned.
  // (NumPy also reserves 20 spaces to grow the first axis in place; with at
  // most 8 dims of at most 2^48 bytes both come to the same 128-byte header.)
  size_t unpadded = npyMagicLen + 2 + 2 + dict.size() + 1;
  dict.append(64 - unpadded % 64, ' ');
  dict += '\n';
  std::string file(npyMagic, npyMagicLen);
  file += '\x01';
  file += '\x00';
  file += static_cast<char>(dict.size() & 0xff);
  file += static_cast<char>(dict.size() >> 8);
  return file + dict;
}

mxrt_status saveNpy(const mxrt_tensor *tensor, const char *path) {
  if (mxrt_status status = mxrt::checkNotNull(
          "mxrt_tensor_save_npy", {{"tensor", tensor}, {"path", path}}))
    return status;
  if (tensor->sizeBytes != 0 && !tensor->data)
    return mxrt::fail(MXRT_INVALID_ARGUMENT,
                      "mxrt_tensor_save_npy: tensor has no data");
  if (tensor->dtype == MXRT_STRING) {
    // UTF-32 code units, each element padded to the longest.
    std::vector<std::vector<uint32_t>> items(tensor->numElements);
    size_t units = 1;
    for (int64_t i = 0; i < tensor->numElements; ++i) {
      if (!decodeUtf8(mxrt_tensor_get_string(tensor, i), items[i]))
        return mxrt::fail(MXRT_INVALID_ARGUMENT,
                          "'%s': string element %lld is not valid UTF-8", path,
                          static_cast<long long>(i));
      units = std::max(units, items[i].size());
    }
    std::vector<unsigned char> data(tensor->numElements * units * 4, 0);
    for (int64_t i = 0; i < tensor->numElements; ++i)
      for (size_t u = 0; u < items[i].size(); ++u)
        for (int b = 0; b < 4; ++b)
          data[(i * units + u) * 4 + b] =
              static_cast<unsigned char>(items[i][u] >> (8 * b));
    std::string header = npyHeader(tensor, units);
    const mxrt::FileChunk chunks[] = {{header.data(), header.size()},
                                      {data.data(), data.size()}};
    return mxrt::writeFileAtomically(path, chunks, 2);
  }
  std::string header = npyHeader(tensor);

  const mxrt::FileChunk chunks[] = {{header.data(), header.size()},
                                    {tensor->data, tensor->sizeBytes}};
  return mxrt::writeFileAtomically(path, chunks, 2);
}

} // namespace

mxrt_status mxrt_tensor_load_npy(const char *path, mxrt_tensor **out_tensor) {
  return mxrt::guarded([&] { return loadNpy(path, out_tensor); });
}

mxrt_status mxrt_tensor_save_npy(const mxrt_tensor *tensor, const char *path) {
  return mxrt::guarded([&] { return saveNpy(tensor, path); });
}
