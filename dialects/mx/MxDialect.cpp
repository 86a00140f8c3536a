// SPDX-License-Identifier: Apache-2.0
// Registers the mx dialect and its ops.
#include "dialects/mx/MxDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mxc::mx;

#include "dialects/mx/MxDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/mx/MxTypes.cpp.inc"

void MxDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/mx/MxOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/mx/MxTypes.cpp.inc"
      >();
  registerGradientModels(getContext());
  registerKernelModels(getContext());
}

FailureOr<Operation *> mxc::mx::createByName(OpBuilder &b, Location loc,
                                             StringRef name,
                                             ValueRange operands,
                                             ArrayRef<NamedAttribute> attrs,
                                             std::string &error) {
  MLIRContext *ctx = b.getContext();
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addAttributes(attrs);
  std::optional<RegisteredOperationName> opName =
      RegisteredOperationName::lookup(name, ctx);
  auto *iface = opName ? opName->getInterface<InferTypeOpInterface>() : nullptr;
  if (!iface) {
    error =
        ("'" + name + "' is not a registered op that infers its types").str();
    return failure();
  }
  // Without properties, defaults are materialized into the dictionary.
  opName->populateDefaultAttrs(state.attributes);
  // Type inference reads the attributes unchecked, before the verifier
  // runs. mx ops have no optional attributes: after the defaults, every one
  // must be there.
  for (StringAttr attrName : opName->getAttributeNames())
    if (!state.attributes.get(attrName)) {
      error =
          ("'" + name + "' op requires attribute '" + attrName.strref() + "'")
              .str();
      return failure();
    }
  SmallVector<Type> types;
  error.clear();
  {
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &d) {
      if (error.empty())
        error = d.str();
      return success();
    });
    if (failed(iface->inferReturnTypes(ctx, state.location, state.operands,
                                       state.attributes.getDictionary(ctx),
                                       state.getRawProperties(), state.regions,
                                       types))) {
      if (error.empty())
        error = "invalid operands";
      return failure();
    }
  }
  state.addTypes(types);
  return b.create(state);
}
