// SPDX-License-Identifier: Apache-2.0
// The ONNX importer: an ONNX model (opsets 1 to 17 of the default domain)
// becomes a `func.func @forward` of mx ops and a ModelSpec whose parameters
// hold the initializers and the folded constants the graph needs at run time.
#ifndef MXC_COMPILER_FRONTENDS_ONNX_IMPORTER_H
#define MXC_COMPILER_FRONTENDS_ONNX_IMPORTER_H

#include "compiler/frontends/mxnet/Importer.h"

#include <map>
#include <string>
#include <vector>

namespace mxc::onnx {

struct ImportOptions {
  /// Shapes of graph inputs by name (`--input data=1x3x224x224`); they bind
  /// symbolic dimensions. Unbound symbolic dimensions become 1 (with a note).
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Graph inputs bound to compile-time constants (`--bind name=FILE.pb`, a
  /// serialized TensorProto): they become embedded values, so that e.g. a
  /// Reshape's shape input or Pad's pads can be fed at compile time.
  std::map<std::string, std::string> boundInputs;
};

/// The module and its ModelSpec (`name` left empty), as for MXNet models.
using ImportedModel = mxnet::ImportedModel;

/// Reads the ONNX model at `path` into the mx dialect. Errors name the file,
/// and for nodes the node, its op type, the opset and what is unsupported.
llvm::Expected<ImportedModel> importModel(mlir::MLIRContext &context,
                                          llvm::StringRef path,
                                          const ImportOptions &options);

} // namespace mxc::onnx

#endif // MXC_COMPILER_FRONTENDS_ONNX_IMPORTER_H
