// SPDX-License-Identifier: Apache-2.0
// Compile-time tensors of the ONNX importer: element access in each ONNX
// element type, with the rounding and wrapping host folding has always used
// (floats to their type, integers two's-complement, 16-bit floats to nearest
// even), and the index arithmetic the folders share.
#include "compiler/frontends/onnx/Const.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/SwapByteOrder.h"

#include <cmath>
#include <cstring>

using namespace mxc;
using namespace mxc::onnx;
using llvm::ArrayRef;

std::string mxc::onnx::shapeText(llvm::ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

int64_t mxc::onnx::numElements(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

// clang-format off
static const ElementKind kElementKinds[] = {
    {TP::FLOAT, DType::F32, 'f', 32},    {TP::DOUBLE, DType::F64, 'f', 64},
    {TP::FLOAT16, DType::F16, 'f', 16},  {TP::BFLOAT16, DType::BF16, 'b', 16},
    {TP::INT64, DType::I64, 'i', 64},    {TP::INT32, DType::I32, 'i', 32},
    {TP::INT16, DType::I16, 'i', 16},    {TP::INT8, DType::I8, 'i', 8},
    {TP::UINT8, DType::U8, 'u', 8},      {TP::UINT16, DType::U16, 'u', 16},
    {TP::UINT32, DType::U32, 'u', 32},   {TP::UINT64, DType::U64, 'u', 64},
    {TP::BOOL, DType::Bool, 'i', 1},     {TP::STRING, DType::String, 's', 64},
};
// clang-format on

llvm::ArrayRef<ElementKind> mxc::onnx::elementKinds() { return kElementKinds; }

const ElementKind *mxc::onnx::elementKind(int32_t t) {
  for (const ElementKind &k : kElementKinds)
    if (k.onnx == t)
      return &k;
  return nullptr;
}

DType mxc::onnx::dtypeOf(int32_t t) {
  const ElementKind *k = elementKind(t);
  assert(k && "only the types mxc runs reach the ModelSpec");
  return k->dtype;
}

bool mxc::onnx::isFloatType(int32_t t) {
  const ElementKind *k = elementKind(t);
  return k && (k->kind == 'f' || k->kind == 'b');
}

std::string mxc::onnx::typeName(int32_t t) {
  std::string name = llvm::StringRef(TP::DataType_Name(t)).lower();
  // A number ONNX does not define (a malformed file) names itself.
  return name.empty() ? "type " + std::to_string(t) : name;
}

size_t mxc::onnx::elementSize(int32_t t) {
  const ElementKind *k = elementKind(t);
  return k ? (k->bits + 7) / 8 : 1;
}

/// Whether `t` is a signed integer type (two's-complement).
static bool isSignedInt(int32_t t) {
  const ElementKind *k = elementKind(t);
  return k && k->kind == 'i' && k->bits > 1;
}

double mxc::onnx::lowestInt(int32_t t) {
  return isSignedInt(t) ? -std::ldexp(1.0, (int)elementSize(t) * 8 - 1) : 0.0;
}

/// The semantics of a 16-bit float type (FLOAT16 or BFLOAT16).
static const llvm::fltSemantics &semantics16(int32_t t) {
  return t == TP::BFLOAT16 ? llvm::APFloat::BFloat()
                           : llvm::APFloat::IEEEhalf();
}

double mxc::onnx::bits16ToDouble(int32_t t, uint16_t bits) {
  llvm::APFloat h(semantics16(t), llvm::APInt(16, bits));
  bool lost;
  h.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return h.convertToDouble();
}

uint16_t mxc::onnx::doubleToBits16(int32_t t, double v) {
  llvm::APFloat h(v);
  bool lost;
  h.convert(semantics16(t), llvm::APFloat::rmNearestTiesToEven, &lost);
  return (uint16_t)h.bitcastToAPInt().getZExtValue();
}

//===----------------------------------------------------------------------===//
// Const
//===----------------------------------------------------------------------===//

template <typename T> static T load(const char *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T> static void store(char *p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

Const::Const(int32_t type, std::vector<int64_t> shape)
    : type(type), shape(std::move(shape)),
      bytes(std::make_shared<std::string>(
          numElements(this->shape) * elementSize(type), '\0')) {}

Const Const::ofInts(std::vector<int64_t> values,
                    std::optional<std::vector<int64_t>> shape) {
  auto bytes = std::make_shared<std::string>(
      reinterpret_cast<const char *>(values.data()), values.size() * 8);
  return Const(TP::INT64,
               shape ? *shape : std::vector<int64_t>{(int64_t)values.size()},
               std::move(bytes));
}

double Const::f(int64_t k) const {
  switch (type) {
  case TP::FLOAT:
    return load<float>(at(k));
  case TP::DOUBLE:
    return load<double>(at(k));
  case TP::FLOAT16:
  case TP::BFLOAT16:
    return bits16ToDouble(type, load<uint16_t>(at(k)));
  default:
    return double(i(k));
  }
}

// Integers are read and written as their low-order bytes, which is
// raw_data's (little-endian) layout on the hosts mxc runs on.
static_assert(llvm::sys::IsLittleEndianHost, "raw_data is little-endian");

int64_t mxc::onnx::floatToInt64(double v) {
  if (!(v >= -0x1p63 && v < 0x1p63))
    return INT64_MIN;
  return (int64_t)v;
}

int64_t Const::i(int64_t k) const {
  if (isFloat())
    return floatToInt64(f(k));
  size_t size = elementSize(type);
  uint64_t bits = 0;
  std::memcpy(&bits, at(k), size);
  // Signed types sign-extend; unsigned 64-bit values keep their bit pattern.
  if (size < 8 && isSignedInt(type) && (bits >> (size * 8 - 1)) & 1)
    bits |= ~uint64_t(0) << (size * 8);
  return (int64_t)bits;
}

char *Const::mutableAt(int64_t k) {
  if (bytes.use_count() > 1)
    bytes = std::make_shared<std::string>(*bytes);
  return bytes->data() + k * elementSize(type);
}

void Const::set(int64_t k, double v) {
  switch (type) {
  case TP::FLOAT:
    return store<float>(mutableAt(k), (float)v);
  case TP::DOUBLE:
    return store<double>(mutableAt(k), v);
  case TP::FLOAT16:
  case TP::BFLOAT16:
    return store<uint16_t>(mutableAt(k), doubleToBits16(type, v));
  case TP::BOOL:
    return store<uint8_t>(mutableAt(k), v != 0.0);
  default:
    return setInt(k, floatToInt64(v));
  }
}

void Const::setInt(int64_t k, int64_t v) {
  if (isFloat())
    return set(k, (double)v);
  if (type == TP::BOOL)
    v = v != 0;
  // The low-order bytes: wrapped to the type's width, two's-complement.
  std::memcpy(mutableAt(k), &v, elementSize(type));
}

void Const::copy(int64_t k, const Const &src, int64_t from) {
  if (src.type == type)
    std::memcpy(mutableAt(k), src.at(from), elementSize(type));
  else if (isFloat())
    set(k, src.f(from));
  else
    setInt(k, src.i(from));
}

std::vector<int64_t> Const::intValues() const {
  std::vector<int64_t> v(size());
  for (int64_t k = 0; k < size(); ++k)
    v[k] = i(k);
  return v;
}

mxc::ParamBytes Const::share() const {
  if (!bytes)
    return {};
  return ParamBytes(bytes, reinterpret_cast<const uint8_t *>(bytes->data()),
                    bytes->size());
}

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

std::vector<int64_t> mxc::onnx::broadcastIndex(llvm::ArrayRef<int64_t> in,
                                               llvm::ArrayRef<int64_t> out) {
  size_t r = out.size(), off = r - in.size();
  std::vector<int64_t> strides(r, 0);
  int64_t s = 1;
  for (size_t i = in.size(); i-- > 0;) {
    strides[off + i] = in[i] == 1 ? 0 : s;
    s *= in[i];
  }
  int64_t n = numElements(out);
  std::vector<int64_t> index(n);
  std::vector<int64_t> pos(r, 0);
  int64_t flat = 0;
  for (int64_t k = 0; k < n; ++k) {
    index[k] = flat;
    for (size_t d = r; d-- > 0;) {
      flat += strides[d];
      if (++pos[d] < out[d])
        break;
      flat -= strides[d] * out[d];
      pos[d] = 0;
    }
  }
  return index;
}

std::optional<std::vector<int64_t>>
mxc::onnx::broadcastShapes(llvm::ArrayRef<std::vector<int64_t>> shapes) {
  size_t rank = 0;
  for (const auto &s : shapes)
    rank = std::max(rank, s.size());
  std::vector<int64_t> out(rank, 1);
  for (const auto &s : shapes)
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t &o = out[rank - s.size() + i];
      if (s[i] != o && s[i] != 1 && o != 1)
        return std::nullopt;
      if (o == 1)
        o = s[i];
    }
  return out;
}

Const mxc::onnx::rearrange(
    const Const &c, std::vector<int64_t> shape,
    llvm::function_ref<int64_t(llvm::ArrayRef<int64_t>)> source) {
  Const out(c.type, shape);
  std::vector<int64_t> pos(shape.size(), 0);
  for (int64_t k = 0; k < out.size(); ++k) {
    out.copy(k, c, source(pos));
    for (size_t d = shape.size(); d-- > 0;) {
      if (++pos[d] < shape[d])
        break;
      pos[d] = 0;
    }
  }
  return out;
}

Const mxc::onnx::selectIndices(
    const Const &c, const std::vector<std::vector<int64_t>> &perAxis) {
  std::vector<int64_t> shape;
  for (const auto &v : perAxis)
    shape.push_back(v.size());
  size_t r = shape.size();
  std::vector<int64_t> strides(r, 1);
  for (size_t d = r; d-- > 1;)
    strides[d - 1] = strides[d] * c.shape[d];
  return rearrange(c, shape, [&](ArrayRef<int64_t> pos) {
    int64_t from = 0;
    for (size_t d = 0; d < r; ++d)
      from += perAxis[d][pos[d]] * strides[d];
    return from;
  });
}

std::vector<int64_t> mxc::onnx::iota(int64_t lo, int64_t n) {
  std::vector<int64_t> v(n);
  for (int64_t k = 0; k < n; ++k)
    v[k] = lo + k;
  return v;
}

std::vector<std::vector<int64_t>>
mxc::onnx::allIndices(llvm::ArrayRef<int64_t> shape) {
  std::vector<std::vector<int64_t>> indices;
  for (int64_t extent : shape)
    indices.push_back(iota(0, extent));
  return indices;
}
