// SPDX-License-Identifier: Apache-2.0
// The ONNX importer: an ONNX model (opsets 1 to 17 of the default domain)
// becomes a `func.func @forward` of mx ops and a ModelSpec whose parameters
// hold the initializers and the folded constants the graph needs at run time.
#ifndef MXC_COMPILER_FRONTENDS_ONNX_IMPORTER_H
#define MXC_COMPILER_FRONTENDS_ONNX_IMPORTER_H

#include "compiler/model/ImportedModel.h"

#include "llvm/Support/Error.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace mxc::onnx {

struct ImportOptions {
  /// Shapes of graph inputs by name (`--input data=1x3x224x224`); they bind
  /// symbolic dimensions.
  InputShapes inputShapes;
  /// Extents of the symbolic dimensions no --input binds, by their
  /// dim_param (an unnamed one: "<input>_<axis>"); 1 where absent. The
  /// import reports which it met in ImportedModel::openDims.
  std::map<std::string, int64_t> dimValues;
  /// The inputs of inputShapes whose --input named dynamic dimensions
  /// (`ids=Bx128`, imported at some extent of B): each axis's name, "" where
  /// static. Another input whose dim_param is the same as a named axis's
  /// carries that dimension too.
  std::map<std::string, std::vector<std::string>> dynamicAxes;
  /// Graph inputs bound to compile-time constants (`--bind name=FILE.pb`, a
  /// serialized TensorProto): they become embedded values, so that e.g. a
  /// Reshape's shape input or Pad's pads can be fed at compile time.
  std::map<std::string, std::string> boundInputs;
  /// Sequence inputs (`--input x=seq(2x3,4)`): the shape of each element.
  /// Element i travels as input "x[i]"; a sequence output y as outputs
  /// "y[0]", "y[1]", ...
  std::map<std::string, std::vector<std::vector<int64_t>>> sequenceInputs;
  /// Optional inputs that hold no value (`--input x=none`): they are not
  /// inputs of the compiled model, nor are the outputs they reach.
  std::set<std::string> absentInputs;
  /// No notes on stderr (mxc --quiet).
  bool quiet = false;
};

/// Reads the ONNX model at `path` into the mx dialect. Errors name the file,
/// and for nodes the node, its op type, the opset and what is unsupported.
llvm::Expected<ImportedModel> importModel(mlir::MLIRContext &context,
                                          llvm::StringRef path,
                                          const ImportOptions &options);

} // namespace mxc::onnx

#endif // MXC_COMPILER_FRONTENDS_ONNX_IMPORTER_H
