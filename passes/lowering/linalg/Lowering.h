// SPDX-License-Identifier: Apache-2.0
// How the lowerings of mx ops to linalg are written and registered: each op
// family's file (Elementwise.cpp, Reductions.cpp, ...) defines one function
// per op that builds the op's replacement, and registers them all in its
// populate...Patterns call, so that adding an operator is one function in
// its family's file and its name in that call.
#ifndef MXC_PASSES_LOWERING_LINALG_LOWERING_H
#define MXC_PASSES_LOWERING_LINALG_LOWERING_H

#include "passes/lowering/DynamicExtents.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mxc::lowering {

/// Builds the replacement of `op`'s results (operands: `adaptor`) with `b`,
/// or fails: after emitting an error when the op cannot be lowered, silently
/// when another pattern should try.
template <typename OpTy, typename Result>
using LowerFn = mlir::FailureOr<Result> (*)(OpTy op,
                                            typename OpTy::Adaptor adaptor,
                                            mlir::OpBuilder &b);

/// The conversion pattern replacing an `OpTy` with what a LowerFn builds.
template <typename OpTy, typename Result>
class FnLowering : public mlir::OpConversionPattern<OpTy> {
public:
  FnLowering(mlir::MLIRContext *ctx, LowerFn<OpTy, Result> lower,
             mlir::PatternBenefit benefit)
      : mlir::OpConversionPattern<OpTy>(ctx, benefit), lower(lower) {}

  mlir::LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const override {
    DynamicExtentScope scope(op, adaptor.getOperands());
    mlir::FailureOr<Result> replacement = lower(op, adaptor, rewriter);
    if (mlir::failed(replacement))
      return mlir::failure();
    rewriter.replaceOp(op, *replacement);
    return mlir::success();
  }

private:
  LowerFn<OpTy, Result> lower;
};

/// Registers `lower` as a lowering of `OpTy`; patterns of a higher `benefit`
/// are tried first.
template <typename OpTy, typename Result>
void addLowering(mlir::RewritePatternSet &patterns, LowerFn<OpTy, Result> lower,
                 mlir::PatternBenefit benefit = 1) {
  patterns.add<FnLowering<OpTy, Result>>(patterns.getContext(), lower, benefit);
}

/// Registers each of `lowerings` (LowerFns), with benefit `Benefit`.
template <unsigned Benefit = 1, typename... Fns>
void addLowerings(mlir::RewritePatternSet &patterns, Fns... lowerings) {
  (addLowering(patterns, lowerings, Benefit), ...);
}

/// The lowerings of each op family (see the file of the same name).
void populateElementwisePatterns(mlir::RewritePatternSet &patterns);
void populateReductionPatterns(mlir::RewritePatternSet &patterns);
void populateNormalizationPatterns(mlir::RewritePatternSet &patterns);
void populateMatmulPatterns(mlir::RewritePatternSet &patterns);
void populateConvolutionPatterns(mlir::RewritePatternSet &patterns);
void populatePoolingPatterns(mlir::RewritePatternSet &patterns);
void populateShapePatterns(mlir::RewritePatternSet &patterns);
void populateIndexingPatterns(mlir::RewritePatternSet &patterns);
void populateGradientPatterns(mlir::RewritePatternSet &patterns);

} // namespace mxc::lowering

#endif // MXC_PASSES_LOWERING_LINALG_LOWERING_H
