// SPDX-License-Identifier: Apache-2.0
// The op-by-name builder the frontends share: the dialect infers the
// types, the verifier checks the ODS constraints (float-only operands, ...)
// while the node that made the op is still known.
#include "compiler/model/ImportedModel.h"
#include "dialects/mx/MxDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;

FailureOr<Operation *> mxc::buildVerifiedOp(OpBuilder &b, Location loc,
                                            StringRef name, ValueRange operands,
                                            ArrayRef<NamedAttribute> attrs,
                                            std::string &error) {
  FailureOr<Operation *> made =
      mx::createByName(b, loc, name, operands, attrs, error);
  if (failed(made))
    return failure();
  Operation *created = *made;
  error.clear();
  ScopedDiagnosticHandler handler(b.getContext(), [&](Diagnostic &d) {
    if (error.empty())
      error = d.str();
    return success();
  });
  if (failed(verify(created))) {
    created->erase();
    if (error.empty())
      error = "invalid operands";
    return failure();
  }
  return created;
}
