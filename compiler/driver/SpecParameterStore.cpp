// SPDX-License-Identifier: Apache-2.0
// SpecParameterStore: @forward's parameter arguments mapped onto the
// ModelSpec's parameters and their bytes.
#include "compiler/driver/SpecParameterStore.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstring>

using namespace mlir;
using namespace mxc;

std::optional<size_t> SpecParameterStore::paramIndex(Value value) const {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg)
    return std::nullopt;
  auto forward = dyn_cast_or_null<func::FuncOp>(arg.getOwner()->getParentOp());
  if (!forward || forward.getSymName() != "forward" ||
      arg.getOwner() != &forward.getBody().front())
    return std::nullopt;
  size_t index = arg.getArgNumber();
  if (index < spec.inputs.size() ||
      index >= spec.inputs.size() + spec.params.size())
    return std::nullopt;
  return index - spec.inputs.size();
}

bool SpecParameterStore::isParameter(BlockArgument arg) {
  return paramIndex(arg).has_value();
}

std::optional<std::vector<float>> SpecParameterStore::readFloats(Value value) {
  std::optional<size_t> p = paramIndex(value);
  if (!p)
    return std::nullopt;
  const ParamSpec &param = spec.params[*p];
  if (param.dtype != DType::F32 || !param.data.data() ||
      param.data.size() != size_t(param.sizeBytes()))
    return std::nullopt;
  std::vector<float> values(param.numElements());
  std::memcpy(values.data(), param.data.data(), param.sizeBytes());
  return values;
}

void SpecParameterStore::writeFloats(Value value, llvm::ArrayRef<float> data) {
  size_t p = *paramIndex(value);
  assert(data.size() == size_t(spec.params[p].numElements()) &&
         "a parameter keeps its size");
  std::memcpy(spec.mutableParamData(p), data.data(),
              data.size() * sizeof(float));
}
