// SPDX-License-Identifier: Apache-2.0
// The one table of the ONNX operators mxc imports: op type, the opsets of
// the default domain the handler implements (from the opset that introduced
// the operator to the newest mxc knows), and the handler. Adding an operator
// is a handler in its family's file, declared and listed here.
#include "compiler/frontends/onnx/OpTable.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

using llvm::StringRef;
using mlir::LogicalResult;

namespace mxc::onnx {

// The handlers, by the file that defines them.
// Elementwise.cpp
TensorOp importElementwise, importCompare, importUnary, importActivation,
    importCast, importClip, importWhere, importIsNaN, importIsInf, importShrink,
    importDropout;
// Reduction.cpp
TensorOp importReduce, importArgReduce, importCumSum;
// ConvPool.cpp
TensorOp importConv, importConvTranspose, importPool, importGlobalPool,
    importGemm, importMatMul, importMaxUnpool;
// Normalization.cpp
TensorOp importBatchNorm, importInstanceNorm, importLayerNorm, importLRN,
    importMeanVarianceNorm, importSoftmax, importHardmax, importLoss;
// Shape.cpp
TensorOp importConstant, importConstantOfShape, importSize, importShape,
    importRange, importEyeLike, importIdentity, importFlatten, importReshape,
    importSqueeze, importTranspose, importExpand, importTile,
    importDepthToSpace;
// Indexing.cpp
TensorOp importConcat, importSplit, importSlice, importGather,
    importGatherIndexed, importScatter, importPad, importOneHot, importTrilu,
    importReverseSequence;
// Resize.cpp, GridSample.cpp
TensorOp importResize, importUpsample, importGridSample, importRoiAlign;
// Signal.cpp
TensorOp importWindow, importDFT, importSTFT, importMelWeightMatrix;
// Recurrent.cpp
TensorOp importRecurrent;
// Selection.cpp
TensorOp importTopK, importNonZero, importCompress, importUnique,
    importNonMaxSuppression;
// Einsum.cpp
TensorOp importEinsum;
// Quantization.cpp
TensorOp importQuantizeLinear, importDequantizeLinear,
    importDynamicQuantizeLinear, importMatMulInteger, importConvInteger,
    importQLinearMatMul, importQLinearConv, importQGemm, importQLinearAdd;
// LinearAlgebra.cpp
TensorOp importDet;
// Text.cpp
TensorOp importTfIdfVectorizer;
// Random.cpp
TensorOp importRandom, importBernoulli, importMultinomial;
// Optimizers.cpp
TensorOp importOptimizer;
// Sequences.cpp
ContainerOp importGetElement, importOptional, importOptionalHasElement,
    importSequenceEmpty, importSequenceConstruct, importSplitToSequence,
    importSequenceLength, importSequenceAt, importSequenceInsert,
    importConcatFromSequence;
// ControlFlow.cpp
ContainerOp importIf, importLoop, importScan, importSequenceMap;

constexpr int64_t kLast = kMaxOpset;

// clang-format off
static const OpEntry kOps[] = {
    // Elementwise.cpp
    {"Add", 1, kLast, importElementwise},
    {"Sub", 1, kLast, importElementwise},
    {"Mul", 1, kLast, importElementwise},
    {"Div", 1, kLast, importElementwise},
    {"Pow", 1, kLast, importElementwise},
    {"Mod", 10, kLast, importElementwise},
    {"Max", 1, kLast, importElementwise},
    {"Min", 1, kLast, importElementwise},
    {"Sum", 1, kLast, importElementwise},
    {"Mean", 1, kLast, importElementwise},
    {"And", 1, kLast, importElementwise},
    {"Or", 1, kLast, importElementwise},
    {"Xor", 1, kLast, importElementwise},
    {"BitShift", 11, kLast, importElementwise},
    {"Equal", 1, kLast, importCompare},
    {"Greater", 1, kLast, importCompare},
    {"Less", 1, kLast, importCompare},
    {"GreaterOrEqual", 12, kLast, importCompare},
    {"LessOrEqual", 12, kLast, importCompare},
    {"Abs", 1, kLast, importUnary},
    {"Neg", 1, kLast, importUnary},
    {"Exp", 1, kLast, importUnary},
    {"Log", 1, kLast, importUnary},
    {"Sqrt", 1, kLast, importUnary},
    {"Reciprocal", 1, kLast, importUnary},
    {"Ceil", 1, kLast, importUnary},
    {"Floor", 1, kLast, importUnary},
    {"Not", 1, kLast, importUnary},
    {"Sin", 7, kLast, importUnary},
    {"Cos", 7, kLast, importUnary},
    {"Tan", 7, kLast, importUnary},
    {"Asin", 7, kLast, importUnary},
    {"Acos", 7, kLast, importUnary},
    {"Atan", 7, kLast, importUnary},
    {"Sign", 9, kLast, importUnary},
    {"Erf", 9, kLast, importUnary},
    {"Sinh", 9, kLast, importUnary},
    {"Cosh", 9, kLast, importUnary},
    {"Asinh", 9, kLast, importUnary},
    {"Acosh", 9, kLast, importUnary},
    {"Atanh", 9, kLast, importUnary},
    {"Round", 11, kLast, importUnary},
    {"Relu", 1, kLast, importActivation},
    {"Sigmoid", 1, kLast, importActivation},
    {"Tanh", 1, kLast, importActivation},
    {"Softplus", 1, kLast, importActivation},
    {"Softsign", 1, kLast, importActivation},
    {"LeakyRelu", 1, kLast, importActivation},
    {"Elu", 1, kLast, importActivation},
    {"Selu", 1, kLast, importActivation},
    {"HardSigmoid", 1, kLast, importActivation},
    {"PRelu", 1, kLast, importActivation},
    {"ThresholdedRelu", 10, kLast, importActivation},
    {"Celu", 12, kLast, importActivation},
    {"HardSwish", 14, kLast, importActivation},
    {"Cast", 1, kLast, importCast},
    {"CastLike", 15, kLast, importCast},
    {"Clip", 1, kLast, importClip},
    {"Where", 9, kLast, importWhere},
    {"IsNaN", 9, kLast, importIsNaN},
    {"IsInf", 10, kLast, importIsInf},
    {"Shrink", 9, kLast, importShrink},
    {"Dropout", 1, kLast, importDropout},
    // Reduction.cpp
    {"ReduceSum", 1, kLast, importReduce},
    {"ReduceMean", 1, kLast, importReduce},
    {"ReduceMax", 1, kLast, importReduce},
    {"ReduceMin", 1, kLast, importReduce},
    {"ReduceProd", 1, kLast, importReduce},
    {"ReduceL1", 1, kLast, importReduce},
    {"ReduceL2", 1, kLast, importReduce},
    {"ReduceSumSquare", 1, kLast, importReduce},
    {"ReduceLogSumExp", 1, kLast, importReduce},
    {"ReduceLogSum", 1, kLast, importReduce},
    {"ArgMax", 1, kLast, importArgReduce},
    {"ArgMin", 1, kLast, importArgReduce},
    {"CumSum", 11, kLast, importCumSum},
    // ConvPool.cpp
    {"Conv", 1, kLast, importConv},
    {"ConvTranspose", 1, kLast, importConvTranspose},
    {"MaxPool", 1, kLast, importPool},
    {"AveragePool", 1, kLast, importPool},
    {"GlobalMaxPool", 1, kLast, importGlobalPool},
    {"GlobalAveragePool", 1, kLast, importGlobalPool},
    {"Gemm", 1, kLast, importGemm},
    {"MatMul", 1, kLast, importMatMul},
    {"MaxUnpool", 9, kLast, importMaxUnpool},
    // Normalization.cpp
    {"BatchNormalization", 1, kLast, importBatchNorm},
    {"InstanceNormalization", 1, kLast, importInstanceNorm},
    {"LayerNormalization", 17, kLast, importLayerNorm},
    {"LRN", 1, kLast, importLRN},
    {"MeanVarianceNormalization", 9, kLast, importMeanVarianceNorm},
    {"Softmax", 1, kLast, importSoftmax},
    {"LogSoftmax", 1, kLast, importSoftmax},
    {"Hardmax", 1, kLast, importHardmax},
    {"NegativeLogLikelihoodLoss", 12, kLast, importLoss},
    {"SoftmaxCrossEntropyLoss", 12, kLast, importLoss},
    // Shape.cpp
    {"Constant", 1, kLast, importConstant},
    {"ConstantOfShape", 9, kLast, importConstantOfShape},
    {"Size", 1, kLast, importSize},
    {"Shape", 1, kLast, importShape},
    {"Range", 11, kLast, importRange},
    {"EyeLike", 9, kLast, importEyeLike},
    {"Flatten", 1, kLast, importFlatten},
    {"Reshape", 1, kLast, importReshape},
    {"Squeeze", 1, kLast, importSqueeze},
    {"Unsqueeze", 1, kLast, importSqueeze},
    {"Transpose", 1, kLast, importTranspose},
    {"Expand", 8, kLast, importExpand},
    {"Tile", 1, kLast, importTile},
    {"DepthToSpace", 1, kLast, importDepthToSpace},
    {"SpaceToDepth", 1, kLast, importDepthToSpace},
    // Indexing.cpp
    {"Concat", 1, kLast, importConcat},
    {"Split", 1, kLast, importSplit},
    {"Slice", 1, kLast, importSlice},
    {"Gather", 1, kLast, importGather},
    {"GatherElements", 11, kLast, importGatherIndexed},
    {"GatherND", 11, kLast, importGatherIndexed},
    {"Scatter", 9, kLast, importScatter},
    {"ScatterElements", 11, kLast, importScatter},
    {"ScatterND", 11, kLast, importScatter},
    {"Pad", 1, kLast, importPad},
    {"OneHot", 9, kLast, importOneHot},
    {"Trilu", 14, kLast, importTrilu},
    {"ReverseSequence", 10, kLast, importReverseSequence},
    // Resize.cpp
    {"Resize", 10, kLast, importResize},
    {"Upsample", 7, 9, importUpsample},
    // GridSample.cpp
    {"GridSample", 16, kLast, importGridSample},
    {"RoiAlign", 10, kLast, importRoiAlign},
    // Optimizers.cpp (domain ai.onnx.preview.training)
    {"Adagrad", 1, kLast, importOptimizer, nullptr, kTrainingDomain},
    {"Adam", 1, kLast, importOptimizer, nullptr, kTrainingDomain},
    {"Momentum", 1, kLast, importOptimizer, nullptr, kTrainingDomain},
    // Recurrent.cpp
    {"RNN", 7, kLast, importRecurrent},
    {"GRU", 7, kLast, importRecurrent},
    {"LSTM", 7, kLast, importRecurrent},
    // Einsum.cpp
    {"Einsum", 12, kLast, importEinsum},
    // Quantization.cpp
    {"QuantizeLinear", 10, kLast, importQuantizeLinear},
    {"DequantizeLinear", 10, kLast, importDequantizeLinear},
    {"DynamicQuantizeLinear", 11, kLast, importDynamicQuantizeLinear},
    {"MatMulInteger", 10, kLast, importMatMulInteger},
    {"ConvInteger", 10, kLast, importConvInteger},
    {"QLinearMatMul", 10, kLast, importQLinearMatMul},
    {"QLinearConv", 10, kLast, importQLinearConv},
    // (domain com.microsoft: ONNX Runtime's quantized operators)
    {"QGemm", 1, kLast, importQGemm, nullptr, kMicrosoftDomain},
    {"QLinearAdd", 1, kLast, importQLinearAdd, nullptr, kMicrosoftDomain},
    // LinearAlgebra.cpp
    {"Det", 11, kLast, importDet},
    // Selection.cpp
    {"TopK", 1, kLast, importTopK},
    {"NonZero", 9, kLast, importNonZero},
    {"Compress", 9, kLast, importCompress},
    {"Unique", 11, kLast, importUnique},
    {"NonMaxSuppression", 10, kLast, importNonMaxSuppression},
    // Text.cpp
    {"TfIdfVectorizer", 9, kLast, importTfIdfVectorizer},
    // Random.cpp
    {"RandomUniform", 1, kLast, importRandom},
    {"RandomNormal", 1, kLast, importRandom},
    {"RandomUniformLike", 1, kLast, importRandom},
    {"RandomNormalLike", 1, kLast, importRandom},
    {"Bernoulli", 15, kLast, importBernoulli},
    {"Multinomial", 7, kLast, importMultinomial},
    // Signal.cpp
    {"HannWindow", 17, kLast, importWindow},
    {"HammingWindow", 17, kLast, importWindow},
    {"BlackmanWindow", 17, kLast, importWindow},
    {"DFT", 17, kLast, importDFT},
    {"STFT", 17, kLast, importSTFT},
    {"MelWeightMatrix", 17, kLast, importMelWeightMatrix},
    // Sequences.cpp (Identity: Shape.cpp, or Sequences.cpp when it takes a
    // sequence or optional)
    {"Identity", 1, kLast, importIdentity, importGetElement},
    {"OptionalGetElement", 15, kLast, nullptr, importGetElement},
    {"Optional", 15, kLast, nullptr, importOptional},
    {"OptionalHasElement", 15, kLast, nullptr, importOptionalHasElement},
    {"SequenceEmpty", 11, kLast, nullptr, importSequenceEmpty},
    {"SequenceConstruct", 11, kLast, nullptr, importSequenceConstruct},
    {"SplitToSequence", 11, kLast, nullptr, importSplitToSequence},
    {"SequenceLength", 11, kLast, nullptr, importSequenceLength},
    {"SequenceAt", 11, kLast, nullptr, importSequenceAt},
    {"SequenceErase", 11, kLast, nullptr, importSequenceAt},
    {"SequenceInsert", 11, kLast, nullptr, importSequenceInsert},
    {"ConcatFromSequence", 11, kLast, nullptr, importConcatFromSequence},
    // ControlFlow.cpp
    {"If", 1, kLast, nullptr, importIf},
    {"Loop", 1, kLast, nullptr, importLoop},
    {"Scan", 8, kLast, nullptr, importScan},
    {"SequenceMap", 17, kLast, nullptr, importSequenceMap},
};
// clang-format on

/// The entries of each op type (one per opset range).
static const llvm::StringMap<llvm::SmallVector<const OpEntry *, 1>> &
opsByType() {
  static const auto byType = [] {
    llvm::StringMap<llvm::SmallVector<const OpEntry *, 1>> map;
    for (const OpEntry &e : kOps)
      map[e.opType].push_back(&e);
    return map;
  }();
  return byType;
}

const OpEntry *findOp(StringRef opType, int64_t opset, StringRef domain) {
  auto it = opsByType().find(opType);
  if (it != opsByType().end())
    for (const OpEntry *e : it->second)
      if (e->domain == domain && opset >= e->minOpset && opset <= e->maxOpset)
        return e;
  return nullptr;
}

std::string unsupportedOpMessage(StringRef opType, int64_t opset) {
  std::string message = ("operator '" + opType + "' is not supported").str();
  auto it = opsByType().find(opType);
  if (it == opsByType().end())
    return message;
  message += " in opset " + std::to_string(opset) + " (mxc supports it in ";
  for (const OpEntry *e : it->second)
    message += (e == it->second.front() ? "" : ", ") +
               (e->domain.empty() ? "opsets " + std::to_string(e->minOpset) +
                                        " to " + std::to_string(e->maxOpset)
                                  : "domain '" + e->domain.str() + "'");
  return message + ")";
}

} // namespace mxc::onnx
