// SPDX-License-Identifier: Apache-2.0
// Folds inference BatchNorm into the convolution that feeds it, in the
// weights: y = (conv(x, W) + b - mean) * s + beta with s = gamma /
// sqrt(var + eps) is conv(x, W * s) + ((b - mean) * s + beta), so the
// BatchNorm disappears and its scale and shift ride in the convolution's
// weight and bias (which the kernels apply in their epilogue). It works on
// the parameter data, so it lives with the driver, which holds both the
// module and the ModelSpec.
#include "compiler/driver/FoldBatchNorm.h"
#include "dialects/mx/MxDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace mxc {
namespace {

/// The float32 data of forward's argument `value` when it is a parameter
/// (not a model input), else null.
float *paramData(Value value, ModelSpec &spec, func::FuncOp forward) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != &forward.getBody().front())
    return nullptr;
  size_t index = arg.getArgNumber();
  if (index < spec.inputs.size() ||
      index >= spec.inputs.size() + spec.params.size())
    return nullptr;
  ParamSpec &param = spec.params[index - spec.inputs.size()];
  if (param.dtype != DType::F32)
    return nullptr;
  return reinterpret_cast<float *>(
      spec.mutableParamData(index - spec.inputs.size()));
}

/// Folds `bn` into its producer when that is a convolution whose result
/// only `bn` reads, and whose weight and bias (or, without a bias, the
/// BatchNorm's beta, which becomes the bias) are parameters that nothing
/// else reads: their data is rewritten in place.
bool foldOne(mx::BatchNormOp bn, ModelSpec &spec, func::FuncOp forward) {
  auto conv = bn.getData().getDefiningOp<mx::ConvolutionOp>();
  if (!conv || !conv->hasOneUse())
    return false;
  auto type = dyn_cast<RankedTensorType>(conv.getType());
  int64_t axis = bn.getAxis();
  if (!type || !type.getElementType().isF32() ||
      (axis != 1 && axis != 1 - type.getRank()))
    return false;
  int64_t filters = type.getDimSize(1);
  Value bias = conv.getBias() ? conv.getBias() : bn.getBeta();
  float *weight = paramData(conv.getWeight(), spec, forward);
  float *biasData = paramData(bias, spec, forward);
  float *gamma = paramData(bn.getGamma(), spec, forward);
  float *beta = paramData(bn.getBeta(), spec, forward);
  float *mean = paramData(bn.getMovingMean(), spec, forward);
  float *var = paramData(bn.getMovingVar(), spec, forward);
  if (!weight || !biasData || !gamma || !beta || !mean || !var ||
      !conv.getWeight().hasOneUse() || !bias.hasOneUse() ||
      conv.getWeight() == bias)
    return false;
  auto weightType = cast<RankedTensorType>(conv.getWeight().getType());
  int64_t perFilter = weightType.getNumElements() / filters;
  double eps = bn.getEps().convertToDouble();
  bool fixGamma = bn.getFixGamma();
  for (int64_t f = 0; f < filters; ++f) {
    double scale =
        (fixGamma ? 1.0 : double(gamma[f])) / std::sqrt(double(var[f]) + eps);
    double b = conv.getBias() ? double(biasData[f]) : 0.0;
    for (int64_t i = 0; i < perFilter; ++i)
      weight[f * perFilter + i] = float(weight[f * perFilter + i] * scale);
    biasData[f] = float((b - mean[f]) * scale + beta[f]);
  }

  OpBuilder b(bn);
  auto folded = mx::ConvolutionOp::create(
      b, conv.getLoc(), conv.getType(),
      ValueRange{conv.getData(), conv.getWeight(), bias}, conv->getAttrs());
  folded.setNoBias(false);
  bn.getResult().replaceAllUsesWith(folded.getResult());
  bn.erase();
  conv.erase();
  return true;
}

} // namespace

int foldBatchNormIntoConvolutions(ModuleOp module, ModelSpec &spec) {
  auto forward = module.lookupSymbol<func::FuncOp>("forward");
  if (!forward || forward.getBody().empty())
    return 0;
  SmallVector<mx::BatchNormOp> bns;
  forward.walk([&](mx::BatchNormOp bn) { bns.push_back(bn); });
  int folded = 0;
  for (mx::BatchNormOp bn : bns)
    folded += foldOne(bn, spec, forward);
  return folded;
}

} // namespace mxc
