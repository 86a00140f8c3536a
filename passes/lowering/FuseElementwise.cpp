// SPDX-License-Identifier: Apache-2.0
// Producer-consumer fusion of elementwise linalg.generic ops on tensors
// (issue #6): a chain such as bias add -> ReLU -> scale becomes one loop
// nest that keeps each element in registers, instead of one loop nest and
// one intermediate buffer per op. A producer fuses only into its single
// consumer: a value that another op also reads is computed once, not
// recomputed per consumer. Nor does a producer fuse into a consumer that
// broadcasts it (a per-channel scale read by every element of an image):
// fused, its work would be repeated for every element that reads it.
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mxc {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {
struct FuseElementwisePass
    : mxc::impl::FuseElementwisePassBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fused) {
          Operation *producer = fused->get().getDefiningOp();
          auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
          return producer && producer->hasOneUse() && consumer &&
                 consumer.getMatchingIndexingMap(fused).isPermutation();
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
