// SPDX-License-Identifier: Apache-2.0
// The data of a model's parameters as graph passes see it. A pass that
// rewrites weights (mxc-fold-batchnorm) or relies on their being fixed
// (mxc-mark-constant-params) cannot see the driver's ModelSpec (passes/ may
// not depend on compiler/), so it is built with one of these instead.
#ifndef MXC_PASSES_GRAPH_PARAMETERSTORE_H
#define MXC_PASSES_GRAPH_PARAMETERSTORE_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <vector>

namespace mxc {

/// Where the parameters of a module's functions (weights, moving statistics:
/// data fixed when the library is built) are, and their contents. The
/// driver implements it over the model's ModelSpec; IRParameterStore reads
/// them from the IR (mxc-opt, lit tests). Passes call it from their own
/// function only, so an implementation needs no locking as long as each
/// function's parameters are its own.
class ParameterStore {
public:
  virtual ~ParameterStore();

  /// Whether `arg` is a parameter: its contents are known when the library
  /// is built and never change while it runs.
  virtual bool isParameter(mlir::BlockArgument arg) = 0;

  /// The float32 contents of `value`, if it is a float32 tensor whose data
  /// this store holds; otherwise none.
  virtual std::optional<std::vector<float>> readFloats(mlir::Value value) = 0;

  /// Replaces the contents of `value`, a value readFloats() answered for,
  /// with `data` (as many elements).
  virtual void writeFloats(mlir::Value value, llvm::ArrayRef<float> data) = 0;
};

/// Parameter data written in the IR: a function argument carrying its
/// contents as `mx.value = dense<...>`, or an `arith.constant` of a dense
/// float32 tensor. Arguments marked `mx.param` or `mx.aux` (the MXNet
/// frontend's roles) are parameters too, of unknown contents. Writes replace
/// the attribute, so a test shows the rewritten numbers.
class IRParameterStore : public ParameterStore {
public:
  bool isParameter(mlir::BlockArgument arg) override;
  std::optional<std::vector<float>> readFloats(mlir::Value value) override;
  void writeFloats(mlir::Value value, llvm::ArrayRef<float> data) override;
};

/// The argument attribute holding a parameter's contents in the IR.
inline constexpr llvm::StringLiteral kValueArgAttr = "mx.value";

} // namespace mxc

#endif // MXC_PASSES_GRAPH_PARAMETERSTORE_H
