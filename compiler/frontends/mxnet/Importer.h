// SPDX-License-Identifier: Apache-2.0
// The MXNet importer: a symbol JSON graph plus its .params file becomes a
// `func.func @forward` of mx ops, and a ModelSpec describing the inputs,
// outputs and parameter data that codegen embeds.
#ifndef MXC_COMPILER_FRONTENDS_MXNET_IMPORTER_H
#define MXC_COMPILER_FRONTENDS_MXNET_IMPORTER_H

#include "compiler/frontends/mxnet/Symbol.h"
#include "compiler/model/ImportedModel.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace mxc::mxnet {

struct ImportOptions {
  /// Shapes of the graph inputs, by variable name (`--input data=1x3x32x32`).
  InputShapes inputShapes;
  /// The .params file; empty for none, in which case every parameter becomes
  /// an input of the compiled model (its shape inferred from its consumer).
  std::string paramsPath;
  /// Keep the labels of loss heads (SoftmaxOutput) as inputs, for training;
  /// a label's shape is the data's without its last axis unless --input
  /// gives it.
  bool withLabels = false;
  /// With withLabels: a loss head to put on every output (without, only
  /// its label names are accepted in inputShapes), for models that
  /// end at their logits (`mxc --train --loss`): "softmax-ce"
  /// (SoftmaxOutput), "l2" (LinearRegressionOutput), "l1"
  /// (MAERegressionOutput) or "sigmoid-bce" (LogisticRegressionOutput);
  /// empty for none. Its label input is `softmax_label` (one output) or
  /// `<output>_label`.
  std::string loss;
  /// Name of the imported function.
  std::string funcName = "forward";
  /// Without a .params file: initialize the parameters (seeded, see
  /// initialValues in Importer.cpp) instead of taking them as inputs.
  bool initializeParams = false;
  uint64_t initSeed = 0;
};

/// Reads `symbolPath` (and the params file) into the mx dialect. Errors name
/// the file, the node and its op, and the reason.
llvm::Expected<ImportedModel> importModel(mlir::MLIRContext &context,
                                          llvm::StringRef symbolPath,
                                          const ImportOptions &options);

/// importModel of a graph already in memory (the C++ symbol API's); its
/// fileName names it in errors.
llvm::Expected<ImportedModel> importGraph(mlir::MLIRContext &context,
                                          const SymbolGraph &graph,
                                          const ImportOptions &options);

} // namespace mxc::mxnet

#endif // MXC_COMPILER_FRONTENDS_MXNET_IMPORTER_H
