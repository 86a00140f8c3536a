// SPDX-License-Identifier: Apache-2.0
// What every frontend hands the rest of the compiler: the mx-dialect module
// and the ModelSpec beside it, and the few things all of them share (input
// shapes by name, building an mx op by name with its messages). A frontend
// depends on this folder and on the dialect only, never on another frontend.
#ifndef MXC_COMPILER_MODEL_IMPORTEDMODEL_H
#define MXC_COMPILER_MODEL_IMPORTEDMODEL_H

#include "compiler/model/ModelSpec.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <string>
#include <vector>

namespace mxc {

/// Shapes of graph inputs by name (`--input data=1x3x32x32`).
using InputShapes = std::map<std::string, std::vector<int64_t>>;

/// A frontend's result: a module with a `func.func` of mx ops and the
/// spec of its inputs, outputs and parameters (with data); the spec's
/// `name` is left for the driver to set.
struct ImportedModel {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  ModelSpec spec;
  /// The inputs' dimensions the model file leaves open (an ONNX dim_param
  /// or unnamed dimension that no --input fixed): input name -> the name of
  /// each axis's dimension ("" where static). The module takes them at the
  /// values the import options gave (1 by default).
  std::map<std::string, std::vector<std::string>> openDims;
};

/// Creates the mx op `name` (its result types inferred) and verifies it,
/// so that an invalid node fails where it is imported and the message can
/// name it; on failure nothing is left in the IR and `error` says why.
mlir::FailureOr<mlir::Operation *>
buildVerifiedOp(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
                mlir::ValueRange operands,
                llvm::ArrayRef<mlir::NamedAttribute> attrs, std::string &error);

} // namespace mxc

#endif // MXC_COMPILER_MODEL_IMPORTEDMODEL_H
