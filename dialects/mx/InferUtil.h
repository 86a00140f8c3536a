// SPDX-License-Identifier: Apache-2.0
// Helpers of the mx ops' result-type inference (MxOps.cpp, MxGradOps.cpp,
// MxOnnxOps.cpp), where inference is the verifier.
#ifndef MXC_DIALECTS_MX_INFERUTIL_H
#define MXC_DIALECTS_MX_INFERUTIL_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mxc::mx::infer {

/// Emits `message` at `loc` (when inference has a location) and fails.
inline mlir::LogicalResult fail(std::optional<mlir::Location> loc,
                                const llvm::Twine &message) {
  return mlir::emitOptionalError(loc, message);
}

inline mlir::RankedTensorType tensorOf(mlir::Value v) {
  return mlir::cast<mlir::RankedTensorType>(v.getType());
}

/// A shape as Python prints a tuple: "(2, 3)", "(4,)", "()".
inline std::string shapeStr(llvm::ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += std::to_string(d);
  }
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

/// A type as the IR prints it: "f32", "i1".
inline std::string typeStr(mlir::Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

/// Fills defaults for a per-spatial-axis attribute (stride, dilate, pad).
inline llvm::SmallVector<int64_t> withDefault(llvm::ArrayRef<int64_t> values,
                                              size_t n, int64_t dflt) {
  if (values.empty())
    return llvm::SmallVector<int64_t>(n, dflt);
  return llvm::SmallVector<int64_t>(values);
}

/// A per-spatial-axis attribute is empty or has `n` values, each at least
/// `minValue`.
inline mlir::LogicalResult checkSpatialAttr(std::optional<mlir::Location> loc,
                                            llvm::StringRef name,
                                            llvm::ArrayRef<int64_t> values,
                                            size_t n, int64_t minValue) {
  if (!values.empty() && values.size() != n)
    return fail(loc, llvm::Twine(name) + " has " + llvm::Twine(values.size()) +
                         " values, expected " + llvm::Twine(n) +
                         " (one per spatial axis)");
  for (int64_t v : values)
    if (v < minValue)
      return fail(loc, llvm::Twine(name) + " values must be >= " +
                           llvm::Twine(minValue) + ", got " + shapeStr(values));
  return mlir::success();
}

} // namespace mxc::mx::infer

#endif // MXC_DIALECTS_MX_INFERUTIL_H
