// SPDX-License-Identifier: Apache-2.0
// Tensors the ONNX importer knows at compile time, held in their own element
// type: an initializer's bytes move out of the parsed model into a Const and
// from there are shared with the ModelSpec, so a 500 MB model's weights exist
// once; host folding of shape arithmetic reads and writes them element-wise.
#ifndef MXC_COMPILER_FRONTENDS_ONNX_CONST_H
#define MXC_COMPILER_FRONTENDS_ONNX_CONST_H

#include "compiler/model/ModelSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <onnx/onnx_pb.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mxc::onnx {

using TP = ::onnx::TensorProto;

/// NumPy's spelling of a shape: "(2, 3)", "(4,)", "()".
std::string shapeText(llvm::ArrayRef<int64_t> shape);
/// The number of elements of a tensor of `shape`.
int64_t numElements(llvm::ArrayRef<int64_t> shape);

/// An ONNX element type mxc runs.
struct ElementKind {
  int32_t onnx;
  DType dtype;
  /// 'f' an IEEE float, 'b' bfloat16, 'i' a signless (two's-complement)
  /// integer or bool, 'u' an unsigned integer, 's' a string.
  char kind;
  /// Bits per element (bool: 1; string: a pointer's 64).
  unsigned bits;
};
/// Every element type mxc runs.
llvm::ArrayRef<ElementKind> elementKinds();
/// What mxc knows of ONNX element type `t`; null for the types it does not
/// run (complex numbers, 8-bit floats, ...).
const ElementKind *elementKind(int32_t t);

/// The ModelSpec dtype of element type `t`, one mxc runs.
DType dtypeOf(int32_t t);
/// Whether ONNX element type `t` is a floating-point type (of any width).
bool isFloatType(int32_t t);
/// The lower-case ONNX name of element type `t` ("float", "int64").
std::string typeName(int32_t t);
/// Bytes per element of ONNX element type `t`, as raw_data lays them out.
size_t elementSize(int32_t t);
/// The lowest value of an integer element type, as a double (exact for the
/// types up to 32 bits; int64's is -2^63, also exact).
double lowestInt(int32_t t);
/// The value of the bits of a 16-bit float of type `t` (FLOAT16 or
/// BFLOAT16).
double bits16ToDouble(int32_t t, uint16_t bits);
/// `v` rounded to nearest even in the 16-bit float type `t`, as bits.
uint16_t doubleToBits16(int32_t t, double v);

/// A tensor known at compile time: its elements in ONNX's raw_data layout
/// for its element type. Copies share the bytes; writing an element gives a
/// Const its own bytes first (copy on write), so a Const in the value table
/// and the parameter made from it keep theirs.
/// `v` converted to int64 as x86's conversion instructions do, which is what
/// a Cast in ONNX Runtime or NumPy gives there: truncated toward zero, and
/// NaN or a value out of range as INT64_MIN (C++ leaves those undefined).
int64_t floatToInt64(double v);

class Const {
public:
  /// The ONNX element type.
  int32_t type = TP::FLOAT;
  std::vector<int64_t> shape;

  Const() = default;
  /// Zeros of `type` and `shape`.
  Const(int32_t type, std::vector<int64_t> shape);
  /// Takes `bytes`, numElements(shape) elements of `type`, without a copy.
  Const(int32_t type, std::vector<int64_t> shape,
        std::shared_ptr<std::string> bytes)
      : type(type), shape(std::move(shape)), bytes(std::move(bytes)) {}
  /// An int64 tensor of `values`, of shape `shape` (default: 1-D).
  static Const ofInts(std::vector<int64_t> values,
                      std::optional<std::vector<int64_t>> shape = {});

  bool isFloat() const { return isFloatType(type); }
  /// The number of elements.
  int64_t size() const {
    return bytes ? (int64_t)(bytes->size() / elementSize(type)) : 0;
  }
  /// Element `k` as a double (integers exactly up to 2^53).
  double f(int64_t k) const;
  /// Element `k` as an int64: floats truncate, unsigned 64-bit values keep
  /// their two's-complement bit pattern.
  int64_t i(int64_t k) const;
  /// Stores `v` as element `k`, rounded to a float type (to nearest even),
  /// truncated towards zero and wrapped to an integer type, 0 / 1 for bool.
  void set(int64_t k, double v);
  /// Stores `v` as element `k`, wrapped to an integer type.
  void setInt(int64_t k, int64_t v);
  /// Copies element `from` of `src` to element `k` (converting it when the
  /// types differ).
  void copy(int64_t k, const Const &src, int64_t from);
  /// Every element as by i().
  std::vector<int64_t> intValues() const;

  /// The elements as parameter bytes, sharing this Const's storage.
  ParamBytes share() const;

private:
  const char *at(int64_t k) const {
    return bytes->data() + k * elementSize(type);
  }
  /// Element `k` for writing, after taking a private copy of shared bytes.
  char *mutableAt(int64_t k);

  std::shared_ptr<std::string> bytes;
};

/// For every element of `out` (row-major), the flat index of the element of
/// a tensor of shape `in` that NumPy broadcasting reads.
std::vector<int64_t> broadcastIndex(llvm::ArrayRef<int64_t> in,
                                    llvm::ArrayRef<int64_t> out);
/// NumPy's broadcast of `shapes`, if they broadcast.
std::optional<std::vector<int64_t>>
broadcastShapes(llvm::ArrayRef<std::vector<int64_t>> shapes);
/// A tensor of c's type and of shape `shape` whose element at each position
/// (row-major) is c's element at flat index `source(position)`.
Const rearrange(const Const &c, std::vector<int64_t> shape,
                llvm::function_ref<int64_t(llvm::ArrayRef<int64_t>)> source);
/// Selects, per axis, the listed indices (the cartesian product).
Const selectIndices(const Const &c,
                    const std::vector<std::vector<int64_t>> &perAxis);
/// The indices lo, lo + 1, ..., lo + n - 1.
std::vector<int64_t> iota(int64_t lo, int64_t n);
/// Every index of every axis of `shape` (for selectIndices).
std::vector<std::vector<int64_t>> allIndices(llvm::ArrayRef<int64_t> shape);

} // namespace mxc::onnx

#endif // MXC_COMPILER_FRONTENDS_ONNX_CONST_H
