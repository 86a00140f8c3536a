// SPDX-License-Identifier: Apache-2.0
// IRParameterStore: parameter data held in the IR itself, so that the
// passes that rewrite weights can be run by mxc-opt and their lit tests show
// the numbers they compute.
#include "passes/graph/ParameterStore.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

namespace mxc {

ParameterStore::~ParameterStore() = default;

namespace {

/// The function whose entry block declares `arg`, if any.
FunctionOpInterface entryFunction(BlockArgument arg) {
  auto fn =
      dyn_cast_or_null<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!fn || arg.getOwner() != &fn.getFunctionBody().front())
    return nullptr;
  return fn;
}

/// Where `value`'s contents are written in the IR: the `mx.value` of an
/// argument or the value of an arith.constant; null when neither.
DenseFPElementsAttr irData(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    FunctionOpInterface fn = entryFunction(arg);
    return fn ? fn.getArgAttrOfType<DenseFPElementsAttr>(arg.getArgNumber(),
                                                         kValueArgAttr)
              : nullptr;
  }
  if (auto constant = value.getDefiningOp<arith::ConstantOp>())
    return dyn_cast<DenseFPElementsAttr>(constant.getValue());
  return nullptr;
}

} // namespace

bool IRParameterStore::isParameter(BlockArgument arg) {
  FunctionOpInterface fn = entryFunction(arg);
  if (!fn)
    return false;
  unsigned i = arg.getArgNumber();
  return fn.getArgAttr(i, kValueArgAttr) || fn.getArgAttr(i, "mx.param") ||
         fn.getArgAttr(i, "mx.aux");
}

std::optional<std::vector<float>> IRParameterStore::readFloats(Value value) {
  DenseFPElementsAttr data = irData(value);
  if (!data || !data.getElementType().isF32() ||
      data.getType() != value.getType())
    return std::nullopt;
  auto values = data.getValues<float>();
  return std::vector<float>(values.begin(), values.end());
}

void IRParameterStore::writeFloats(Value value, llvm::ArrayRef<float> data) {
  auto attr = DenseElementsAttr::get(cast<ShapedType>(value.getType()), data);
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    entryFunction(arg).setArgAttr(arg.getArgNumber(), kValueArgAttr, attr);
    return;
  }
  value.getDefiningOp<arith::ConstantOp>().setValueAttr(attr);
}

} // namespace mxc
