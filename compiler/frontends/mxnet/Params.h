// SPDX-License-Identifier: Apache-2.0
// MXNet `.params` files (NDArray lists, as written by `mx.nd.save`,
// `Module.save_params` and Gluon `export`): a reader for every NDArray record
// layout MXNet can load (legacy, V1, V2, V3) that treats the file as untrusted
// input, and a V2 writer for the training save path and tests.

#ifndef MXC_COMPILER_FRONTENDS_MXNET_PARAMS_H
#define MXC_COMPILER_FRONTENDS_MXNET_PARAMS_H

#include "compiler/model/ModelSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxc::mxnet {

/// MXNet's dtype flags (mshadow::TypeFlag) are ModelSpec's element type
/// codes; the values are the file format.
using mxc::DType;

/// The DType with flag `flag`, if MXNet defines one.
std::optional<DType> dtypeFromFlag(int32_t flag);

/// What the `arg:` / `aux:` prefix of a saved name said.
enum class ArrayKind { Arg, Aux, None };

/// One array of a `.params` file.
struct NamedArray {
  /// The name without its `arg:`/`aux:` prefix (empty in an unnamed list).
  std::string name;
  ArrayKind kind = ArrayKind::None;
  DType dtype = DType::F32;
  /// Dimensions; empty for a 0-d scalar (V3 files) or a none array.
  std::vector<int64_t> shape;
  /// Row-major little-endian element bytes: numElements() * dtypeSize(dtype).
  std::vector<uint8_t> data;
  /// MXNet's empty NDArray (`NDArray()`), saved with no shape and no data.
  bool isNone = false;

  /// Product of the dimensions (1 for a scalar, 0 for a none array).
  int64_t numElements() const;
  /// The name as saved: `arg:` or `aux:` + name.
  std::string savedName() const;
  /// The elements converted to float32, for float32/float64/float16/bfloat16
  /// arrays; an error for other dtypes.
  llvm::Expected<std::vector<float>> toFloat32() const;
};

/// Converts an IEEE half-precision bit pattern to float (exactly).
float halfToFloat(uint16_t bits);

/// Parses the bytes of a `.params` file. Errors name `fileNameForMessages`,
/// and the record and field for truncated or corrupt files. Sparse arrays
/// (row_sparse, csr) are reported as unsupported.
llvm::Expected<std::vector<NamedArray>>
parseParams(llvm::StringRef bytes, llvm::StringRef fileNameForMessages);

/// Reads and parses the `.params` file at `path`.
llvm::Expected<std::vector<NamedArray>> readParamsFile(llvm::StringRef path);

/// Writes `arrays` in MXNet's format: V2 records (V3, NumPy-shape semantics,
/// for all records if any array is a 0-d scalar), names with their prefixes,
/// or an unnamed list when every name is empty and every kind None. Fails,
/// writing nothing, if an array's data size does not match its shape and
/// dtype.
llvm::Error writeParams(llvm::raw_ostream &os,
                        llvm::ArrayRef<NamedArray> arrays);

/// writeParams to `path` through a temporary file renamed over it, so a
/// reader never sees a half-written file.
llvm::Error writeParamsFile(llvm::StringRef path,
                            llvm::ArrayRef<NamedArray> arrays);

} // namespace mxc::mxnet

#endif // MXC_COMPILER_FRONTENDS_MXNET_PARAMS_H
