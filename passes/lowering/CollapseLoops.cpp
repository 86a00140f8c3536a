// SPDX-License-Identifier: Apache-2.0
// mxc-collapse-loops (see CollapseLoopsPass in Passes.td): consecutive loops
// of a linalg.generic that walk every operand contiguously become one.
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mxc {
#define GEN_PASS_DEF_COLLAPSELOOPSPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

/// The maximal runs (two loops or more) of consecutive loops of `op` with
/// one iterator type that every indexing map keeps contiguous and in order.
SmallVector<ReassociationIndices> collapsibleRuns(linalg::LinalgOp op) {
  if (!isa<linalg::GenericOp>(op) || !op.hasPureBufferSemantics() ||
      !op.getBlock()->getOps<linalg::IndexOp>().empty())
    return {};
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // Windows (o * stride + k) and constant taps keep their loops.
  if (!llvm::all_of(maps, [](AffineMap m) {
        return m.isProjectedPermutation(/*allowZeroInResults=*/false);
      }))
    return {};
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  // The first loop of more than one trip stays alone: mxc-outline-parallel-
  // loops splits it over the threads, each running its part with the
  // loops inside whole (merged into it, every thread would walk the whole
  // range, masked).
  SmallVector<int64_t> trips = op.getStaticLoopRanges();
  int64_t n = op.getNumLoops(), split = 0;
  while (split < n && trips[split] == 1)
    ++split;
  if (split + 2 >= n)
    return {};
  SmallVector<ReassociationIndices> runs;
  ReassociationIndices run = {split + 1};
  auto close = [&] {
    if (run.size() > 1)
      runs.push_back(run);
  };
  for (int64_t d = split + 2; d < n; ++d) {
    ReassociationIndices longer = run;
    longer.push_back(d);
    if (iters[d] == iters[run.back()] &&
        linalg::areDimSequencesPreserved(maps, {longer})) {
      run = std::move(longer);
      continue;
    }
    close();
    run = {d};
  }
  close();
  return runs;
}

struct CollapseLoopsPass : mxc::impl::CollapseLoopsPassBase<CollapseLoopsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateCollapseDimensions(patterns, collapsibleRuns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
