// SPDX-License-Identifier: Apache-2.0
// The ONNX operators mxc imports, each with the opsets its handler knows the
// semantics of. One table (OpTable.cpp) maps an op type and opset to the
// handler in the family file that imports it.
#ifndef MXC_COMPILER_FRONTENDS_ONNX_OPTABLE_H
#define MXC_COMPILER_FRONTENDS_ONNX_OPTABLE_H

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mxc::onnx {

class Importer;
class ContainerNode;

/// The opsets of the default domain the importer knows the semantics of.
constexpr int64_t kMinOpset = 1;
constexpr int64_t kMaxOpset = 17;

/// Imports `im.node`, a tensor operator of type `opType`: reads its inputs
/// and attributes through `im`, sets its outputs, and on failure leaves the
/// reason in `im.fail()`.
using TensorOp = mlir::LogicalResult(Importer &im, llvm::StringRef opType);
/// Imports a sequence, optional or control-flow node, which may import the
/// nodes it makes; errors name the node.
using ContainerOp = llvm::Error(ContainerNode &node);
using TensorHandler = TensorOp *;
using ContainerHandler = ContainerOp *;

/// One row of the op table: which handler imports `opType` in which
/// opsets.
struct OpEntry {
  llvm::StringLiteral opType;
  /// The opsets of the default domain the handler implements.
  int64_t minOpset, maxOpset;
  TensorHandler tensor = nullptr;
  /// With `tensor` too: the handler of nodes that take a sequence or optional.
  ContainerHandler container = nullptr;
  /// The operator's domain: "" (ONNX's default), kTrainingDomain or
  /// kMicrosoftDomain.
  llvm::StringLiteral domain = "";
};

/// The domain of ONNX's optimizer operators (Adagrad, Adam, Momentum).
constexpr llvm::StringLiteral kTrainingDomain = "ai.onnx.preview.training";
/// The domain of ONNX Runtime's own operators (of which mxc imports the
/// quantized QGemm and QLinearAdd, the QOperator form of QDQ models).
constexpr llvm::StringLiteral kMicrosoftDomain = "com.microsoft";

/// The entry of `opType` of `domain` whose opsets hold `opset`, or null.
const OpEntry *findOp(llvm::StringRef opType, int64_t opset,
                      llvm::StringRef domain = "");
/// Why `opType` at `opset` has no entry ("operator 'X' is not supported").
std::string unsupportedOpMessage(llvm::StringRef opType, int64_t opset);

} // namespace mxc::onnx

#endif // MXC_COMPILER_FRONTENDS_ONNX_OPTABLE_H
