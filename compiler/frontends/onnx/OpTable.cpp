// SPDX-License-Identifier: Apache-2.0
// The one table of the ONNX operators mxc imports: op type, the opsets of
// the default domain the handler implements, and the handler. Adding an
// operator is a handler in its family's file, declared and listed here.
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
    importGemm, importMatMul;
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
    importGatherIndexed, importScatter, importPad, importOneHot, importTrilu;
// Sequences.cpp
ContainerOp importGetElement, importOptional, importOptionalHasElement,
    importSequenceEmpty, importSequenceConstruct, importSplitToSequence,
    importSequenceLength, importSequenceAt, importSequenceInsert,
    importConcatFromSequence;
// ControlFlow.cpp
ContainerOp importIf, importLoop, importSequenceMap;

constexpr int64_t kFirst = kMinOpset, kLast = kMaxOpset;

// clang-format off
static const OpEntry kOps[] = {
    // Elementwise.cpp
    {"Add", kFirst, kLast, importElementwise},
    {"Sub", kFirst, kLast, importElementwise},
    {"Mul", kFirst, kLast, importElementwise},
    {"Div", kFirst, kLast, importElementwise},
    {"Pow", kFirst, kLast, importElementwise},
    {"Mod", kFirst, kLast, importElementwise},
    {"Max", kFirst, kLast, importElementwise},
    {"Min", kFirst, kLast, importElementwise},
    {"Sum", kFirst, kLast, importElementwise},
    {"Mean", kFirst, kLast, importElementwise},
    {"And", kFirst, kLast, importElementwise},
    {"Or", kFirst, kLast, importElementwise},
    {"Xor", kFirst, kLast, importElementwise},
    {"BitShift", kFirst, kLast, importElementwise},
    {"Equal", kFirst, kLast, importCompare},
    {"Greater", kFirst, kLast, importCompare},
    {"Less", kFirst, kLast, importCompare},
    {"GreaterOrEqual", kFirst, kLast, importCompare},
    {"LessOrEqual", kFirst, kLast, importCompare},
    {"Abs", kFirst, kLast, importUnary},
    {"Neg", kFirst, kLast, importUnary},
    {"Exp", kFirst, kLast, importUnary},
    {"Log", kFirst, kLast, importUnary},
    {"Sqrt", kFirst, kLast, importUnary},
    {"Reciprocal", kFirst, kLast, importUnary},
    {"Ceil", kFirst, kLast, importUnary},
    {"Floor", kFirst, kLast, importUnary},
    {"Not", kFirst, kLast, importUnary},
    {"Sin", kFirst, kLast, importUnary},
    {"Cos", kFirst, kLast, importUnary},
    {"Tan", kFirst, kLast, importUnary},
    {"Asin", kFirst, kLast, importUnary},
    {"Acos", kFirst, kLast, importUnary},
    {"Atan", kFirst, kLast, importUnary},
    {"Sign", kFirst, kLast, importUnary},
    {"Erf", kFirst, kLast, importUnary},
    {"Sinh", kFirst, kLast, importUnary},
    {"Cosh", kFirst, kLast, importUnary},
    {"Asinh", kFirst, kLast, importUnary},
    {"Acosh", kFirst, kLast, importUnary},
    {"Atanh", kFirst, kLast, importUnary},
    {"Round", kFirst, kLast, importUnary},
    {"Relu", kFirst, kLast, importActivation},
    {"Sigmoid", kFirst, kLast, importActivation},
    {"Tanh", kFirst, kLast, importActivation},
    {"Softplus", kFirst, kLast, importActivation},
    {"Softsign", kFirst, kLast, importActivation},
    {"LeakyRelu", kFirst, kLast, importActivation},
    {"Elu", kFirst, kLast, importActivation},
    {"Selu", kFirst, kLast, importActivation},
    {"HardSigmoid", kFirst, kLast, importActivation},
    {"PRelu", kFirst, kLast, importActivation},
    {"ThresholdedRelu", kFirst, kLast, importActivation},
    {"Celu", kFirst, kLast, importActivation},
    {"HardSwish", kFirst, kLast, importActivation},
    {"Cast", kFirst, kLast, importCast},
    {"CastLike", kFirst, kLast, importCast},
    {"Clip", kFirst, kLast, importClip},
    {"Where", kFirst, kLast, importWhere},
    {"IsNaN", kFirst, kLast, importIsNaN},
    {"IsInf", kFirst, kLast, importIsInf},
    {"Shrink", kFirst, kLast, importShrink},
    {"Dropout", kFirst, kLast, importDropout},
    // Reduction.cpp
    {"ReduceSum", kFirst, kLast, importReduce},
    {"ReduceMean", kFirst, kLast, importReduce},
    {"ReduceMax", kFirst, kLast, importReduce},
    {"ReduceMin", kFirst, kLast, importReduce},
    {"ReduceProd", kFirst, kLast, importReduce},
    {"ReduceL1", kFirst, kLast, importReduce},
    {"ReduceL2", kFirst, kLast, importReduce},
    {"ReduceSumSquare", kFirst, kLast, importReduce},
    {"ReduceLogSumExp", kFirst, kLast, importReduce},
    {"ReduceLogSum", kFirst, kLast, importReduce},
    {"ArgMax", kFirst, kLast, importArgReduce},
    {"ArgMin", kFirst, kLast, importArgReduce},
    {"CumSum", kFirst, kLast, importCumSum},
    // ConvPool.cpp
    {"Conv", kFirst, kLast, importConv},
    {"ConvTranspose", kFirst, kLast, importConvTranspose},
    {"MaxPool", kFirst, kLast, importPool},
    {"AveragePool", kFirst, kLast, importPool},
    {"GlobalMaxPool", kFirst, kLast, importGlobalPool},
    {"GlobalAveragePool", kFirst, kLast, importGlobalPool},
    {"Gemm", kFirst, kLast, importGemm},
    {"MatMul", kFirst, kLast, importMatMul},
    // Normalization.cpp
    {"BatchNormalization", kFirst, kLast, importBatchNorm},
    {"InstanceNormalization", kFirst, kLast, importInstanceNorm},
    {"LayerNormalization", kFirst, kLast, importLayerNorm},
    {"LRN", kFirst, kLast, importLRN},
    {"MeanVarianceNormalization", kFirst, kLast, importMeanVarianceNorm},
    {"Softmax", kFirst, kLast, importSoftmax},
    {"LogSoftmax", kFirst, kLast, importSoftmax},
    {"Hardmax", kFirst, kLast, importHardmax},
    {"NegativeLogLikelihoodLoss", kFirst, kLast, importLoss},
    {"SoftmaxCrossEntropyLoss", kFirst, kLast, importLoss},
    // Shape.cpp
    {"Constant", kFirst, kLast, importConstant},
    {"ConstantOfShape", kFirst, kLast, importConstantOfShape},
    {"Size", kFirst, kLast, importSize},
    {"Shape", kFirst, kLast, importShape},
    {"Range", kFirst, kLast, importRange},
    {"EyeLike", kFirst, kLast, importEyeLike},
    {"Flatten", kFirst, kLast, importFlatten},
    {"Reshape", kFirst, kLast, importReshape},
    {"Squeeze", kFirst, kLast, importSqueeze},
    {"Unsqueeze", kFirst, kLast, importSqueeze},
    {"Transpose", kFirst, kLast, importTranspose},
    {"Expand", kFirst, kLast, importExpand},
    {"Tile", kFirst, kLast, importTile},
    {"DepthToSpace", kFirst, kLast, importDepthToSpace},
    {"SpaceToDepth", kFirst, kLast, importDepthToSpace},
    // Indexing.cpp
    {"Concat", kFirst, kLast, importConcat},
    {"Split", kFirst, kLast, importSplit},
    {"Slice", kFirst, kLast, importSlice},
    {"Gather", kFirst, kLast, importGather},
    {"GatherElements", kFirst, kLast, importGatherIndexed},
    {"GatherND", kFirst, kLast, importGatherIndexed},
    {"Scatter", kFirst, kLast, importScatter},
    {"ScatterElements", kFirst, kLast, importScatter},
    {"ScatterND", kFirst, kLast, importScatter},
    {"Pad", kFirst, kLast, importPad},
    {"OneHot", kFirst, kLast, importOneHot},
    {"Trilu", kFirst, kLast, importTrilu},
    // Sequences.cpp (Identity: Shape.cpp, or Sequences.cpp when it takes a
    // sequence or optional)
    {"Identity", kFirst, kLast, importIdentity, importGetElement},
    {"OptionalGetElement", kFirst, kLast, nullptr, importGetElement},
    {"Optional", kFirst, kLast, nullptr, importOptional},
    {"OptionalHasElement", kFirst, kLast, nullptr, importOptionalHasElement},
    {"SequenceEmpty", kFirst, kLast, nullptr, importSequenceEmpty},
    {"SequenceConstruct", kFirst, kLast, nullptr, importSequenceConstruct},
    {"SplitToSequence", kFirst, kLast, nullptr, importSplitToSequence},
    {"SequenceLength", kFirst, kLast, nullptr, importSequenceLength},
    {"SequenceAt", kFirst, kLast, nullptr, importSequenceAt},
    {"SequenceErase", kFirst, kLast, nullptr, importSequenceAt},
    {"SequenceInsert", kFirst, kLast, nullptr, importSequenceInsert},
    {"ConcatFromSequence", kFirst, kLast, nullptr, importConcatFromSequence},
    // ControlFlow.cpp
    {"If", kFirst, kLast, nullptr, importIf},
    {"Loop", kFirst, kLast, nullptr, importLoop},
    {"SequenceMap", kFirst, kLast, nullptr, importSequenceMap},
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

const OpEntry *findOp(StringRef opType, int64_t opset) {
  auto it = opsByType().find(opType);
  if (it != opsByType().end())
    for (const OpEntry *e : it->second)
      if (opset >= e->minOpset && opset <= e->maxOpset)
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
    message += (e == it->second.front() ? "opsets " : ", ") +
               std::to_string(e->minOpset) + " to " +
               std::to_string(e->maxOpset);
  return message + ")";
}

} // namespace mxc::onnx
