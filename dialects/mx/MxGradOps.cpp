// SPDX-License-Identifier: Apache-2.0
// Result-type inference of the training ops (MxGradOps.td): the loss heads
// and the backward ops the gradient pass emits. Kept apart from MxOps.cpp so
// that the inference ops and the training ops evolve separately.
#include "dialects/mx/InferUtil.h"
#include "dialects/mx/MxDialect.h"

using namespace mlir;
using namespace mxc::mx;
using namespace mxc::mx::infer;

namespace {

/// Loss heads: the output has the data's type; the label, if present, has
/// its element count (regression_c1).
LogicalResult inferRegression(std::optional<Location> loc, Value data,
                              Value label, SmallVectorImpl<Type> &results) {
  if (label &&
      tensorOf(label).getNumElements() != tensorOf(data).getNumElements())
    return fail(loc, "label must have as many elements as data");
  results.push_back(data.getType());
  return success();
}

/// makeloss_c1, softmax_output_grad_c2: a loss's normalization.
LogicalResult checkNormalization(std::optional<Location> loc, StringRef n) {
  if (!isOneOf(n, {"null", "batch", "valid"}))
    return fail(loc, "normalization must be null, batch or valid, got " + n);
  return success();
}

} // namespace

LogicalResult DropoutMaskOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor a,
                                              SmallVectorImpl<Type> &results) {
  // dropout_mask_c1
  double p = a.getPAttr() ? a.getP().convertToDouble() : 0.5;
  if (!(p >= 0.0 && p < 1.0))
    return fail(loc, "p must be in [0, 1), got " + std::to_string(p));
  results.push_back(a.getLike().getType());
  return success();
}

LogicalResult LinearRegressionOutputOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor a,
    SmallVectorImpl<Type> &results) {
  return inferRegression(loc, a.getData(), a.getLabel(), results);
}

LogicalResult LogisticRegressionOutputOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor a,
    SmallVectorImpl<Type> &results) {
  return inferRegression(loc, a.getData(), a.getLabel(), results);
}

LogicalResult
MAERegressionOutputOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc, Adaptor a,
                                        SmallVectorImpl<Type> &results) {
  return inferRegression(loc, a.getData(), a.getLabel(), results);
}

LogicalResult MakeLossOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor a,
                                           SmallVectorImpl<Type> &results) {
  // The parser infers before filling defaults: read the attribute itself.
  StringAttr attr = a.getNormalizationAttr();
  if (failed(checkNormalization(loc, attr ? attr.getValue() : "null")))
    return failure();
  results.push_back(a.getData().getType());
  return success();
}

LogicalResult GradElemwiseOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor a,
                                               SmallVectorImpl<Type> &results) {
  ValueRange inputs = a.getInputs();
  // grad_elemwise_c1
  if (inputs.empty() || inputs.size() > 3)
    return fail(loc, "takes one to three inputs");
  Type et = tensorOf(inputs[0]).getElementType();
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value v : inputs) {
    if (tensorOf(v).getElementType() != et)
      return fail(loc, "inputs must have one element type");
    shapes.push_back(tensorOf(v).getShape());
  }
  auto shape = broadcast(shapes);
  if (!shape)
    return fail(loc, "input shapes do not broadcast");
  results.push_back(RankedTensorType::get(*shape, et));
  return success();
}

LogicalResult PoolingGradOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor a,
                                              SmallVectorImpl<Type> &results) {
  // pooling_grad_c2
  if (a.getOutput().getType() != a.getOutGrad().getType())
    return fail(loc, "out_grad must have the output's type");
  if (tensorOf(a.getData()).getRank() != tensorOf(a.getOutput()).getRank())
    return fail(loc, "data and output must have the same rank");
  // pooling_grad_c3
  ArrayRef<int64_t> dilate = a.getDilate();
  if (!dilate.empty() &&
      (dilate.size() != a.getKernel().size() ||
       llvm::any_of(dilate, [](int64_t d) { return d < 1; })))
    return fail(loc, "dilate needs one value >= 1 per kernel axis");
  if (a.getPoolType() != "max" &&
      llvm::any_of(dilate, [](int64_t d) { return d != 1; }))
    return fail(loc, "dilate other than 1 needs max pooling");
  results.push_back(a.getData().getType());
  return success();
}

LogicalResult
ConvolutionGradDataOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc, Adaptor a,
                                        SmallVectorImpl<Type> &results) {
  auto dy = tensorOf(a.getOutGrad());
  ArrayRef<int64_t> shape = a.getDataShape();
  // conv_grad_c1
  if ((int64_t)shape.size() != dy.getRank() ||
      tensorOf(a.getWeight()).getRank() != dy.getRank() ||
      (int64_t)a.getKernel().size() + 2 != dy.getRank())
    return fail(loc, "out_grad, weight and data_shape must have rank "
                     "len(kernel) + 2");
  results.push_back(RankedTensorType::get(shape, dy.getElementType()));
  return success();
}

LogicalResult ConvolutionGradWeightOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor a,
    SmallVectorImpl<Type> &results) {
  auto x = tensorOf(a.getData());
  int64_t groups = a.getNumGroup();
  if (x.getRank() != (int64_t)a.getKernel().size() + 2 || groups <= 0 ||
      x.getDimSize(1) % groups)
    return fail(loc, "data must have rank len(kernel) + 2 and channels "
                     "divisible by num_group");
  SmallVector<int64_t> shape = {(int64_t)a.getNumFilter(),
                                x.getDimSize(1) / groups};
  llvm::append_range(shape, a.getKernel());
  results.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult
SoftmaxOutputGradOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc, Adaptor a,
                                      SmallVectorImpl<Type> &results) {
  auto out = tensorOf(a.getOutput());
  auto label = tensorOf(a.getLabel());
  // softmax_output_grad_c1
  if (out.getRank() < 1 || label.getRank() + 1 != out.getRank())
    return fail(loc, "label must have rank rank(output) - 1");
  int64_t axis = a.getMultiOutput() ? 1 : out.getRank() - 1;
  SmallVector<int64_t> expect(out.getShape());
  expect.erase(expect.begin() + axis);
  if (label.getShape() != ArrayRef<int64_t>(expect))
    return fail(loc, "label shape must be the output's without the class axis");
  if (failed(checkNormalization(loc, a.getNormalization())))
    return failure();
  results.push_back(out);
  return success();
}

LogicalResult
EmbeddingGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor a, SmallVectorImpl<Type> &results) {
  auto ids = tensorOf(a.getData());
  auto dy = tensorOf(a.getOutGrad());
  SmallVector<int64_t> expect(ids.getShape());
  expect.push_back(a.getOutputDim());
  if (dy.getShape() != ArrayRef<int64_t>(expect)) // embedding_grad_c1
    return fail(loc, "out_grad shape must be data's followed by output_dim");
  results.push_back(RankedTensorType::get(
      {(int64_t)a.getInputDim(), (int64_t)a.getOutputDim()},
      dy.getElementType()));
  return success();
}

LogicalResult SliceGradOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor a,
                                            SmallVectorImpl<Type> &results) {
  auto dy = tensorOf(a.getOutGrad());
  ArrayRef<int64_t> shape = a.getDataShape(), starts = a.getStarts(),
                    steps = a.getSteps();
  // slice_grad_c1
  if ((int64_t)shape.size() != dy.getRank() || starts.size() != shape.size() ||
      steps.size() != shape.size())
    return fail(loc, "starts, steps and data_shape need one entry per axis");
  for (size_t i = 0; i < shape.size(); ++i) {
    if (steps[i] <= 0)
      return fail(loc, "steps must be positive");
    // slice_grad_c2
    if (starts[i] < 0 ||
        starts[i] + (dy.getDimSize(i) - 1) * steps[i] >= shape[i])
      return fail(loc, "the slice does not fit in data_shape");
  }
  results.push_back(RankedTensorType::get(shape, dy.getElementType()));
  return success();
}

LogicalResult
BatchNormTrainOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                   Adaptor a, SmallVectorImpl<Type> &results) {
  auto data = tensorOf(a.getData());
  if (failed(
          checkChannelOperands(loc, data, a.getAxis(),
                               {{"gamma", a.getGamma()}, {"beta", a.getBeta()}},
                               "the data's axis extent")))
    return failure();
  results.push_back(data);
  results.append(2, a.getGamma().getType());
  return success();
}

LogicalResult
BatchNormTrainGradOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc, Adaptor a,
                                       SmallVectorImpl<Type> &results) {
  auto data = tensorOf(a.getData());
  if (tensorOf(a.getOutGrad()) != data)
    return fail(loc, "out_grad must have the data's type");
  if (failed(checkChannelOperands(
          loc, data, a.getAxis(),
          {{"gamma", a.getGamma()}, {"mean", a.getMean()}, {"var", a.getVar()}},
          "the data's axis extent")))
    return failure();
  if (bool(a.getBeta()) != bool(a.getReluOut()))
    return fail(loc, "beta is given exactly when relu_out is set");
  if (a.getBeta() && failed(checkChannelOperands(loc, data, a.getAxis(),
                                                 {{"beta", a.getBeta()}},
                                                 "the data's axis extent")))
    return failure();
  results.push_back(data);
  results.append(2, a.getGamma().getType());
  return success();
}
