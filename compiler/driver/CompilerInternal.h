// SPDX-License-Identifier: Apache-2.0
// What Compiler.cpp and CompileDynamic.cpp share: the steps of a compile
// (import, the pipelines, the outputs) and the dynamic dimensions' entry
// points. Private to compiler/driver.
#ifndef MXC_COMPILER_DRIVER_COMPILERINTERNAL_H
#define MXC_COMPILER_DRIVER_COMPILERINTERNAL_H

#include "compiler/driver/Compiler.h"
#include "compiler/model/ImportedModel.h"
#include "passes/graph/ParameterStore.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace mxc::driver {

llvm::Error makeError(const llvm::Twine &message);

//===----------------------------------------------------------------------===//
// Compiler.cpp: the steps of a compile
//===----------------------------------------------------------------------===//

/// Reads the model file (ONNX by its extension, else MXNet) into the mx
/// dialect, refusing the options of the other frontend.
llvm::Expected<ImportedModel> importModel(
    mlir::MLIRContext &context, const CompileOptions &options,
    const std::map<std::string, int64_t> &dimValues = {},
    const std::map<std::string, std::vector<std::string>> &dynamicAxes = {});

/// mxc --train: imports the model again with its loss heads' labels as
/// inputs (a private @train_forward), runs the training pipeline (which
/// builds @grad and @train_step beside @forward and drops @train_forward),
/// and describes the new functions in `spec`.
llvm::Error addTrainingFunctions(const CompileOptions &options,
                                 mlir::ModuleOp module, ModelSpec &spec);

/// Adds a target's pipeline: mx ops to the LLVM dialect, ready for
/// translation. `constants`: the parameters to treat as constant, or null.
using TargetPipeline = void (*)(mlir::OpPassManager &pm,
                                const CompileOptions &options,
                                ParameterStore *constants);

/// The graph passes on mx ops (BatchNorm folding for an inference build with
/// fusion), their parameter data in `params`.
llvm::Error runGraphPipeline(mlir::ModuleOp module,
                             const CompileOptions &options,
                             ParameterStore &params);

/// The target's pipeline on `module`; the memory plan's arena size goes into
/// `spec`. An inference library's parameters (`params`) are read-only
/// weights for the life of the process, which kernels may keep packed
/// copies of; a training library updates its own.
llvm::Error runTargetPipeline(mlir::ModuleOp module, TargetPipeline target,
                              const CompileOptions &options,
                              ParameterStore &params, ModelSpec &spec);

/// Translates the lowered module to LLVM IR and writes it as `options.emit`
/// says; a library gets its header beside it.
llvm::Error emitLibrary(llvm::ArrayRef<mlir::ModuleOp> modules,
                        const ModelSpec &spec, const CompileOptions &options);

//===----------------------------------------------------------------------===//
// CompileDynamic.cpp: dynamic dimensions (docs/dynamic-shapes.md)
//===----------------------------------------------------------------------===//

/// A model's dynamic dimensions as the command line and the model file
/// give them.
struct DynamicDims {
  /// Input name -> each axis's dimension name ("" where static).
  std::map<std::string, std::vector<std::string>> inputs;
  /// The names, in order of first appearance.
  std::vector<std::string> names;
  /// Whether input `name` carries the batch (a dimension on its axis 0).
  bool isBatched(const std::string &name) const {
    auto axes = inputs.find(name);
    return axes != inputs.end() && !axes->second[0].empty();
  }
  /// Whether they are one dimension, on axis 0 wherever it appears: a
  /// batch that variants may serve.
  bool isBatchOnly() const {
    return names.size() == 1 && llvm::all_of(inputs, [](const auto &input) {
             return llvm::all_of(
                 llvm::drop_begin(input.second),
                 [](const std::string &n) { return n.empty(); });
           });
  }
  /// Whether the command line asked for them (--input with names): then a
  /// dynamic dimension mxc cannot serve is an error, while one the model
  /// file leaves open is fixed at 1 with a note.
  bool requested = false;
};

/// The dynamic dimensions of `options`' --input and of `imported`'s open
/// ones.
DynamicDims dynamicDims(const CompileOptions &options,
                        const ImportedModel &imported);

/// Imports the model with every dynamic dimension of `dyn` at `value`:
/// --input's named axes in its shapes, the ONNX file's open dimensions
/// through the importer's dimValues.
llvm::Expected<ImportedModel> importAt(mlir::MLIRContext &context,
                                       const CompileOptions &options,
                                       const DynamicDims &dyn, int64_t value);

/// Why mxc cannot serve `dyn` as a dynamic batch dimension, or "" when it
/// can.
std::string unsupportedDims(const CompileOptions &options,
                            const DynamicDims &dyn);

/// Compiles a model with a dynamic batch dimension: the forward once per
/// bucket, each through the whole pipeline, after proving that no op mixes
/// the batch's rows. `atOne` is the import with the dimension at 1. Sets
/// `fixed` instead (with a note) when the model file's open dimension
/// cannot be served and the command line did not ask for it.
llvm::Error compileDynamic(mlir::MLIRContext &context,
                           const CompileOptions &options,
                           const DynamicDims &dyn, TargetPipeline target,
                           ImportedModel &atOne, bool &fixed);

/// Compiles a model whose dynamic dimensions are not one leading batch
/// (height and width, several dimensions): the forward once, its extents
/// dynamic in the code, each output's extents derived by a shape function
/// (docs/dynamic-shapes.md). Sets `fixed` instead, as compileDynamic does,
/// when the model cannot be served and the command line did not ask.
llvm::Error compileSymbolic(mlir::MLIRContext &context,
                            const CompileOptions &options,
                            const DynamicDims &dyn, TargetPipeline target,
                            bool &fixed);

} // namespace mxc::driver

#endif // MXC_COMPILER_DRIVER_COMPILERINTERNAL_H
