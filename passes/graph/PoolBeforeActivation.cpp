// SPDX-License-Identifier: Apache-2.0
// Max pooling of a monotonic activation becomes the activation of the max
// pooling (see PoolBeforeActivationPass in Passes.td).
#include "dialects/mx/InferUtil.h"
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mxc {
#define GEN_PASS_DEF_POOLBEFOREACTIVATIONPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc::mx;

namespace {

/// Activations f with f(max(a, b)) = max(f(a), f(b)) (non-decreasing, NaN
/// to NaN). ReLU is left out: it rides free in the epilogue of the
/// convolution that usually comes before it.
bool isMonotonic(StringRef act) {
  return act == "sigmoid" || act == "tanh" || act == "softrelu" ||
         act == "softsign";
}

/// Whether every window of `pool` has an element inside the input along
/// every axis: a window of padding only would pool to -inf before the
/// activation, and to f(-inf) after it.
bool everyWindowReachesIn(PoolingOp pool) {
  auto in = cast<RankedTensorType>(pool.getData().getType()).getShape();
  auto out = cast<RankedTensorType>(pool.getType()).getShape();
  SmallVector<int64_t> kernel = pool.getEffectiveKernel(),
                       stride = pool.getStrides(), dilate = pool.getDilations(),
                       pad = pool.getPadding();
  for (size_t s = 0; s < kernel.size(); ++s)
    for (int64_t o = 0; o < out[2 + s]; ++o)
      if (!infer::windowReachesIn(o, stride[s], pad[s], kernel[s], dilate[s],
                                  in[2 + s]))
        return false;
  return true;
}

struct PoolBeforeActivation : OpRewritePattern<PoolingOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PoolingOp pool,
                                PatternRewriter &rewriter) const override {
    auto act = pool.getData().getDefiningOp<ActivationOp>();
    if (pool.getPoolType() != "max" || !act || !act->hasOneUse() ||
        !isMonotonic(act.getActType()) || !everyWindowReachesIn(pool))
      return failure();
    Operation *pooled = rewriter.clone(*pool);
    pooled->setOperand(0, act.getData());
    rewriter.replaceOpWithNewOp<ActivationOp>(pool, pooled->getResult(0),
                                              act.getActType());
    rewriter.eraseOp(act);
    return success();
  }
};

struct PoolBeforeActivationPass
    : mxc::impl::PoolBeforeActivationPassBase<PoolBeforeActivationPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<PoolBeforeActivation>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
