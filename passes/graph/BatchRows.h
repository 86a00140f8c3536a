// SPDX-License-Identifier: Apache-2.0
// Whether a function of mx ops keeps the rows of a batch apart: row i of
// every output that has the batch depends on row i of the batched inputs
// (and on nothing else of theirs). Such a function can run a batch of any
// size as slices of rows through code compiled for fixed batch extents,
// which is how mxc serves a dynamic batch dimension at static-shape speed
// (docs/dynamic-shapes.md).
#ifndef MXC_PASSES_GRAPH_BATCHROWS_H
#define MXC_PASSES_GRAPH_BATCHROWS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mxc {

/// Where the rows of a batch meet, when they do.
struct RowMixing {
  /// The op that mixes rows or that the analysis does not know; null when
  /// result `output` carries the batch elsewhere than on axis 0 alone.
  mlir::Operation *op = nullptr;
  int64_t output = -1;
  std::string reason;
};

/// Follows the batch (axis 0 of the arguments flagged in `batchedArgs`)
/// through `fn`, wherever its ops move it: on success, one flag per result
/// saying whether axis 0 of that result is the batch (the others do not
/// depend on batched values); otherwise the first op that mixes rows, or is
/// not known not to, and why, or the result that carries the batch
/// elsewhere.
/// `batch` is the batch's extent in `fn`'s types (more than 1 proves more:
/// at 1 every broadcast looks row-wise).
llvm::FailureOr<llvm::SmallVector<bool>>
batchedResults(mlir::func::FuncOp fn, llvm::ArrayRef<bool> batchedArgs,
               int64_t batch, RowMixing &mixing);

} // namespace mxc

#endif // MXC_PASSES_GRAPH_BATCHROWS_H
