// SPDX-License-Identifier: Apache-2.0
// float32 math functions as polynomials (see ApproximateMathPass in
// Passes.td).
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mxc {
#define GEN_PASS_DEF_APPROXIMATEMATHPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {
struct ApproximateMathPass
    : mxc::impl::ApproximateMathPassBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
