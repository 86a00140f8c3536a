// SPDX-License-Identifier: Apache-2.0
// Helpers of the mx ops' result-type inference (MxOps.cpp, MxGradOps.cpp,
// MxOnnxOps.cpp), where inference is the verifier.
#ifndef MXC_DIALECTS_MX_INFERUTIL_H
#define MXC_DIALECTS_MX_INFERUTIL_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

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

} // namespace mxc::mx::infer

#endif // MXC_DIALECTS_MX_INFERUTIL_H
