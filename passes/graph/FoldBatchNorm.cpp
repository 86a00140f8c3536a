// SPDX-License-Identifier: Apache-2.0
// Folds inference BatchNorm into the convolution that feeds it, in the
// weights: y = (conv(x, W) + b - mean) * s + beta with s = gamma /
// sqrt(var + eps) is conv(x, W * s) + ((b - mean) * s + beta), so the
// BatchNorm disappears and its scale and shift ride in the convolution's
// weight and bias (which the kernels apply in their epilogue). The data is
// read and written through a ParameterStore (see FoldBatchNormPass).
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"
#include "passes/graph/ParameterStore.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cmath>

namespace mxc {
#define GEN_PASS_DEF_FOLDBATCHNORMPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc;
using namespace mxc::mx;

namespace {

/// Folds `bn` into its producer when that is a float32 convolution whose
/// result only `bn` reads, along the channel axis, and whose weight and bias
/// (or, without a bias, the BatchNorm's beta, which becomes the bias) are
/// parameters of known data that nothing else reads: their data is
/// rewritten. The BatchNorm's other parameters stay, unread.
bool foldOne(BatchNormOp bn, ParameterStore &store) {
  auto conv = bn.getData().getDefiningOp<ConvolutionOp>();
  if (!conv || !conv->hasOneUse())
    return false;
  auto type = dyn_cast<RankedTensorType>(conv.getType());
  int64_t axis = bn.getAxis();
  if (!type || !type.getElementType().isF32() ||
      (axis != 1 && axis != 1 - type.getRank()))
    return false;
  Value weightValue = conv.getWeight();
  Value biasValue = conv.getBias() ? conv.getBias() : bn.getBeta();
  if (!weightValue.hasOneUse() || !biasValue.hasOneUse() ||
      weightValue == biasValue)
    return false;
  auto weight = store.readFloats(weightValue);
  auto bias = store.readFloats(biasValue);
  auto gamma = store.readFloats(bn.getGamma());
  auto beta = store.readFloats(bn.getBeta());
  auto mean = store.readFloats(bn.getMovingMean());
  auto var = store.readFloats(bn.getMovingVar());
  if (!weight || !bias || !gamma || !beta || !mean || !var)
    return false;

  // In double, as MXNet's own fold; each value rounded to float32 once.
  int64_t filters = type.getDimSize(1);
  int64_t perFilter = weight->size() / filters;
  double eps = bn.getEps().convertToDouble();
  bool fixGamma = bn.getFixGamma();
  for (int64_t f = 0; f < filters; ++f) {
    double scale = (fixGamma ? 1.0 : double((*gamma)[f])) /
                   std::sqrt(double((*var)[f]) + eps);
    double b = conv.getBias() ? double((*bias)[f]) : 0.0;
    for (int64_t i = 0; i < perFilter; ++i) {
      float &w = (*weight)[f * perFilter + i];
      w = float(w * scale);
    }
    (*bias)[f] = float((b - (*mean)[f]) * scale + (*beta)[f]);
  }
  store.writeFloats(weightValue, *weight);
  store.writeFloats(biasValue, *bias);

  OpBuilder b(bn);
  auto folded = ConvolutionOp::create(
      b, conv.getLoc(), conv.getType(),
      ValueRange{conv.getData(), weightValue, biasValue}, conv->getAttrs());
  folded.setNoBias(false);
  bn.getResult().replaceAllUsesWith(folded.getResult());
  bn.erase();
  conv.erase();
  return true;
}

struct FoldBatchNormPass : mxc::impl::FoldBatchNormPassBase<FoldBatchNormPass> {
  /// Reads the data from the IR (mxc-opt).
  FoldBatchNormPass() = default;
  explicit FoldBatchNormPass(ParameterStore &store) : external(&store) {}

  void runOnOperation() override {
    ParameterStore &store = external ? *external : irStore;
    SmallVector<BatchNormOp> bns;
    getOperation().walk([&](BatchNormOp bn) { bns.push_back(bn); });
    for (BatchNormOp bn : bns)
      foldOne(bn, store);
  }

  ParameterStore *external = nullptr;
  IRParameterStore irStore;
};

} // namespace

std::unique_ptr<Pass> mxc::createFoldBatchNormPass(ParameterStore &store) {
  return std::make_unique<FoldBatchNormPass>(store);
}
