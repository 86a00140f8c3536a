// SPDX-License-Identifier: Apache-2.0
// Residual adds and ReLUs folded into mx.kernel.* ops (see
// FuseKernelEpiloguesPass in Passes.td).
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mxc {
#define GEN_PASS_DEF_FUSEKERNELEPILOGUESPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc::mx;

namespace {

/// The only user of `v` when it is an elementwise linalg.generic over
/// same-shaped operands (identity maps, all loops parallel) with one result.
linalg::GenericOp elementwiseUser(Value v) {
  if (!v.hasOneUse())
    return {};
  auto generic = dyn_cast<linalg::GenericOp>(*v.getUsers().begin());
  if (!generic || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0 ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }) ||
      !llvm::all_of(generic->getOperandTypes(),
                    [&](Type t) { return t == v.getType(); }))
    return {};
  return generic;
}

/// The op computing the generic's yielded value.
Operation *yielded(linalg::GenericOp generic) {
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  return yield.getOperand(0).getDefiningOp();
}

/// Whether a kernel accumulating onto `residual` would get a copy of it to
/// write: `residual` is read again later, is a function's argument, or is
/// part of a larger tensor (a slice, maybe reshaped: a recurrent network's
/// step of its input projection), which bufferization does not write in
/// place.
bool copiedAsInit(Value residual) {
  if (!residual.hasOneUse())
    return true;
  Operation *def = residual.getDefiningOp();
  while (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(def))
    def = def->getOperand(0).getDefiningOp();
  return !def || isa<tensor::ExtractSliceOp>(def);
}

template <typename KernelOp> struct FuseEpilogue : OpRewritePattern<KernelOp> {
  using OpRewritePattern<KernelOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(KernelOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getResult() || op.getRelu())
      return failure();
    linalg::GenericOp user = elementwiseUser(op.getResult());
    if (!user)
      return failure();
    Operation *body = yielded(user);
    Block *block = user.getBody();
    if (!body || body->getBlock() != block ||
        std::next(block->begin()) != std::prev(block->end()))
      return failure(); // one op, then the yield
    // ReLU: max(x, 0) of the kernel's result.
    if (user.getNumDpsInputs() == 1 &&
        isa<arith::MaxNumFOp, arith::MaximumFOp>(body)) {
      Value arg = block->getArgument(0);
      bool isRelu = (body->getOperand(0) == arg &&
                     matchPattern(body->getOperand(1), m_AnyZeroFloat())) ||
                    (body->getOperand(1) == arg &&
                     matchPattern(body->getOperand(0), m_AnyZeroFloat()));
      if (!isRelu)
        return failure();
      rewriter.modifyOpInPlace(op, [&] { op.setRelu(true); });
      rewriter.replaceOp(user, op.getResult());
      return success();
    }
    // Residual add: kernel result + r, r another tensor, accumulated into.
    if (user.getNumDpsInputs() == 2 && isa<arith::AddFOp>(body) &&
        !op.getAccumulate()) {
      unsigned mine =
          user.getDpsInputOperand(0)->get() == op.getResult() ? 0 : 1;
      Value residual = user.getDpsInputOperand(1 - mine)->get();
      if (residual == op.getResult() ||
          !llvm::is_contained(body->getOperands(), block->getArgument(0)) ||
          !llvm::is_contained(body->getOperands(), block->getArgument(1)))
        return failure();
      // The residual must be computed before the kernel to serve as init.
      Operation *def = residual.getDefiningOp();
      if (def && def->getBlock() == op->getBlock() && !def->isBeforeInBlock(op))
        return failure();
      // A matrix product without a bias reads a residual that would be
      // copied to be accumulated onto as its bias instead, in place.
      if constexpr (std::is_same_v<KernelOp, MatmulKernelOp>) {
        if (!op.getBias() && copiedAsInit(residual)) {
          rewriter.modifyOpInPlace(
              op, [&] { op.getBiasMutable().assign(residual); });
          rewriter.replaceOp(user, op.getResult());
          return success();
        }
      }
      rewriter.modifyOpInPlace(op, [&] {
        op.getInitMutable().assign(residual);
        op.setAccumulate(true);
      });
      rewriter.replaceOp(user, op.getResult());
      return success();
    }
    return failure();
  }
};

struct FuseKernelEpiloguesPass
    : mxc::impl::FuseKernelEpiloguesPassBase<FuseKernelEpiloguesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseEpilogue<MatmulKernelOp>, FuseEpilogue<Conv2DKernelOp>>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
