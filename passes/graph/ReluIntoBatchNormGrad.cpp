// SPDX-License-Identifier: Apache-2.0
// A ReLU's gradient folded into the BatchNormTrainGrad it feeds (see
// ReluIntoBatchNormGradPass in Passes.td).
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mxc {
#define GEN_PASS_DEF_RELUINTOBATCHNORMGRADPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc::mx;

namespace {

/// The input of `v`'s ReLU where v is one (mx.Activation or mx.unary).
Value reluInput(Value v) {
  if (auto act = v.getDefiningOp<ActivationOp>())
    return act.getActType() == "relu" ? act.getData() : Value();
  if (auto unary = v.getDefiningOp<UnaryOp>())
    return unary.getOp() == "relu" ? unary.getData() : Value();
  return Value();
}

/// BatchNormTrainGrad(grad_elemwise "unary.relu"(ReLU(y), dA), x, ...) with
/// y BatchNormTrain(x, ...)'s output, the statistics and attributes the
/// same and the masked gradient read nowhere else, becomes
/// BatchNormTrainGrad(dA, x, ..., beta) {relu_out}.
struct ReluIntoBatchNormGrad : OpRewritePattern<BatchNormTrainGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormTrainGradOp grad,
                                PatternRewriter &rewriter) const override {
    auto mask = grad.getOutGrad().getDefiningOp<GradElemwiseOp>();
    if (grad.getReluOut() || !mask || mask.getFn() != "unary.relu" ||
        !mask->hasOneUse() || mask.getInputs().size() != 2 ||
        mask.getInputs()[1].getType() != grad.getData().getType())
      return failure();
    Value y = reluInput(mask.getInputs()[0]);
    auto bn = y ? y.getDefiningOp<BatchNormTrainOp>() : BatchNormTrainOp();
    if (!bn || bn.getOutput() != y || bn.getData() != grad.getData() ||
        bn.getGamma() != grad.getGamma() || bn.getMean() != grad.getMean() ||
        bn.getVar() != grad.getVar() || bn.getEps() != grad.getEps() ||
        bn.getFixGamma() != grad.getFixGamma() ||
        bn.getAxis() != grad.getAxis())
      return failure();
    SmallVector<Value> operands = {mask.getInputs()[1], grad.getData(),
                                   grad.getGamma(),     grad.getMean(),
                                   grad.getVar(),       bn.getBeta()};
    NamedAttrList attrs(grad->getAttrs());
    attrs.set(grad.getReluOutAttrName(), rewriter.getUnitAttr());
    rewriter.replaceOpWithNewOp<BatchNormTrainGradOp>(
        grad, grad->getResultTypes(), operands, attrs.getAttrs());
    rewriter.eraseOp(mask);
    return success();
  }
};

struct ReluIntoBatchNormGradPass
    : mxc::impl::ReluIntoBatchNormGradPassBase<ReluIntoBatchNormGradPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ReluIntoBatchNormGrad>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
