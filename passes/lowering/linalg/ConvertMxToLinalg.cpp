// SPDX-License-Identifier: Apache-2.0
// The target-independent lowering of every mx op to linalg / tensor / arith
// / math / scf on tensors (ConvertMxToLinalgPass in Passes.td): one partial
// conversion over the patterns of every op family. Layouts and shapes are
// static, so everything that can be decided at compile time (padding,
// average-pool divisors, BatchNorm folding) is decided by the patterns.
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"
#include "passes/lowering/Retype.h"
#include "passes/lowering/ScalarBuilders.h"
#include "passes/lowering/linalg/Lowering.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mxc {
#define GEN_PASS_DEF_CONVERTMXTOLINALGPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc;
using namespace mxc::lowering;
using namespace mxc::mx;

namespace {

/// `type` with unsigned integer elements made signless (other types as is).
Type signless(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  Type et = shaped ? shaped.getElementType() : type;
  auto it = dyn_cast<IntegerType>(et);
  if (!it || it.isSignless())
    return type;
  Type s = IntegerType::get(type.getContext(), it.getWidth());
  return shaped ? shaped.clone(s) : s;
}

/// Makes every unsigned integer type under `root` signless, marking the mx
/// ops that read (kUnsignedAttr) or cast to (kUnsignedResultAttr) unsigned
/// values first: arith's ops are signless, so the patterns pick the
/// unsigned division, comparison, extension and bounds from the marks.
void makeSignless(Operation *root) {
  auto isUnsigned = [](Type t) { return signless(t) != t; };
  root->walk([&](Operation *op) {
    if (!isa_and_nonnull<MxDialect>(op->getDialect()))
      return;
    if (llvm::any_of(op->getOperandTypes(), isUnsigned))
      op->setAttr(kUnsignedAttr, UnitAttr::get(op->getContext()));
    if (isa<CastOp>(op) && isUnsigned(op->getResult(0).getType()))
      op->setAttr(kUnsignedResultAttr, UnitAttr::get(op->getContext()));
  });
  root->walk([&](Operation *op) { retype(op, signless); });
}

struct ConvertMxToLinalgPass
    : mxc::impl::ConvertMxToLinalgPassBase<ConvertMxToLinalgPass> {
  using ConvertMxToLinalgPassBase::ConvertMxToLinalgPassBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    makeSignless(getOperation());
    ConversionTarget target(*ctx);
    // Every mx op goes but the runtime kernels a target chose before this
    // pass.
    target.addDynamicallyLegalDialect<MxDialect>(isKernelOp);
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect,
                           scf::SCFDialect, func::FuncDialect,
                           bufferization::BufferizationDialect>();
    RewritePatternSet patterns(ctx);
    // The CPU's kernel choice in the same conversion, for lit tests and
    // mxc-opt users of `kernels` (the default); the CPU pipeline runs it as
    // mxc-select-cpu-kernels instead and passes kernels=false.
    if (kernels)
      populateMxToKernelPatterns(patterns);
    populateMxToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    // bfloat16 <-> f32 casts become integer code (rounding to nearest even),
    // as LLVM would call compiler-rt's __truncsfbf2, which models do not
    // link.
    RewritePatternSet bf16(ctx);
    arith::populateExpandBFloat16Patterns(bf16);
    walkAndApplyPatterns(getOperation(),
                         FrozenRewritePatternSet(std::move(bf16)));
  }
};

} // namespace

void mxc::populateMxToLinalgPatterns(RewritePatternSet &patterns) {
  populateElementwisePatterns(patterns);
  populateReductionPatterns(patterns);
  populateNormalizationPatterns(patterns);
  populateMatmulPatterns(patterns);
  populateConvolutionPatterns(patterns);
  populatePoolingPatterns(patterns);
  populateShapePatterns(patterns);
  populateIndexingPatterns(patterns);
  populateGradientPatterns(patterns);
}
