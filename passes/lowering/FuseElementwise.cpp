// SPDX-License-Identifier: Apache-2.0
// Producer-consumer fusion of elementwise linalg.generic ops on tensors
// (issue #6): a chain such as bias add -> ReLU -> scale becomes one loop
// nest that keeps each element in registers, instead of one loop nest and
// one intermediate buffer per op. A producer fuses only into its single
// consumer: a value that another op also reads is computed once, not
// recomputed per consumer. Nor does a producer fuse into a consumer that
// broadcasts it (a per-channel scale read by every element of an image):
// fused, its work would be repeated for every element that reads it.
// Nor does a group grow past kMaxFusedOps operations in its body: each
// fusion clones both bodies, so a chain of n elementwise ops fused into one
// cost time quadratic in n (8,000 chained ReLUs: 10 s in this pass, 100,000:
// hours), and no model we compile has a group near the cap.
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mxc {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {
/// The most operations (terminator included) a fused body may hold.
constexpr size_t kMaxFusedOps = 128;

size_t bodySize(Operation *op) {
  if (op->getNumRegions() != 1 || op->getRegion(0).empty())
    return 0;
  return op->getRegion(0).front().getOperations().size();
}

struct FuseElementwisePass
    : mxc::impl::FuseElementwisePassBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fused) {
          Operation *producer = fused->get().getDefiningOp();
          auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
          return producer && producer->hasOneUse() && consumer &&
                 consumer.getMatchingIndexingMap(fused).isPermutation() &&
                 bodySize(producer) + bodySize(consumer) <= kMaxFusedOps;
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
