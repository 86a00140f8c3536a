// SPDX-License-Identifier: Apache-2.0
// The driver's ParameterStore: graph passes (passes/graph/ParameterStore.h)
// read and rewrite the model's parameters through it, in the ModelSpec the
// frontend filled in, without passes/ knowing about ModelSpec.
#ifndef MXC_COMPILER_DRIVER_SPECPARAMETERSTORE_H
#define MXC_COMPILER_DRIVER_SPECPARAMETERSTORE_H

#include "compiler/model/ModelSpec.h"
#include "passes/graph/ParameterStore.h"

namespace mxc {

/// The parameters of @forward: its arguments after the spec's inputs, one
/// per ParamSpec in order. Writes go to the spec's parameter data (its own
/// copy of shared bytes), which codegen then embeds.
class SpecParameterStore : public ParameterStore {
public:
  explicit SpecParameterStore(ModelSpec &spec) : spec(spec) {}

  bool isParameter(mlir::BlockArgument arg) override;
  std::optional<std::vector<float>> readFloats(mlir::Value value) override;
  void writeFloats(mlir::Value value, llvm::ArrayRef<float> data) override;

private:
  /// The index in spec.params of the parameter `value` is, if it is one.
  std::optional<size_t> paramIndex(mlir::Value value) const;

  ModelSpec &spec;
};

} // namespace mxc

#endif // MXC_COMPILER_DRIVER_SPECPARAMETERSTORE_H
