// SPDX-License-Identifier: Apache-2.0
// The kernel selections every target shares (see KernelSelection.h).
#include "passes/lowering/KernelSelection.h"
#include "passes/lowering/LinalgBuilders.h"
#include "passes/lowering/WindowLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mxc;
using namespace mxc::lowering;
using namespace mxc::mx;

bool lowering::isF32(Value v) { return tensorType(v).getElementType().isF32(); }

Value lowering::matmulKernel(OpBuilder &b, Location loc,
                             ArrayRef<int64_t> shape, Value lhs, Value rhs,
                             Value bias, bool transposeA, bool transposeB,
                             Value init, ValueRange extents) {
  Type f32 = b.getF32Type();
  bool accumulate = static_cast<bool>(init);
  if (!init)
    init = emptyTensor(b, loc, shape, f32, extents);
  return MatmulKernelOp::create(b, loc, RankedTensorType::get(shape, f32), lhs,
                                rhs, bias, init, transposeA, transposeB,
                                accumulate, /*relu=*/false)
      .getResult();
}

Value lowering::broadcastVector(OpBuilder &b, Location loc, Value v,
                                ArrayRef<int64_t> shape, int64_t axis) {
  SmallVector<int64_t> others;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d)
    if (d != axis)
      others.push_back(d);
  Value init = emptyTensor(b, loc, shape, tensorType(v).getElementType());
  return linalg::BroadcastOp::create(b, loc, v, init, others).getResults()[0];
}

FailureOr<Value> lowering::fullyConnectedKernel(FullyConnectedOp op,
                                                FullyConnectedOp::Adaptor a,
                                                OpBuilder &b, bool biasInInit) {
  if (!isF32(op.getResult()))
    return failure();
  Location loc = op.getLoc();
  auto outType = cast<RankedTensorType>(op.getType());
  auto wType = tensorType(a.getWeight());
  int64_t n = wType.getDimSize(0), k = wType.getDimSize(1);
  int64_t m = outType.getNumElements() / n;
  Value x = reshapeTo(b, loc, a.getData(), {m, k});
  Value bias = a.getBias(), init;
  if (bias && biasInInit) {
    init = broadcastVector(b, loc, bias, {m, n}, 1);
    bias = Value();
  }
  Value y = matmulKernel(b, loc, {m, n}, x, a.getWeight(), bias,
                         /*transposeA=*/false, /*transposeB=*/true, init);
  return reshapeTo(b, loc, y, outType.getShape());
}

LogicalResult lowering::applyKernelSelection(Operation *fn,
                                             RewritePatternSet &&patterns) {
  ConversionTarget target(*fn->getContext());
  target.addDynamicallyLegalDialect<MxDialect>(
      [](Operation *op) -> std::optional<bool> {
        if (isKernelOp(op))
          return true;
        return std::nullopt;
      });
  target.addLegalDialect<tensor::TensorDialect, linalg::LinalgDialect,
                         arith::ArithDialect, scf::SCFDialect>();
  return applyPartialConversion(fn, target, std::move(patterns));
}

FailureOr<Value> lowering::selectDot(DotOp op, DotOp::Adaptor a, OpBuilder &b) {
  if (!isF32(op.getResult()))
    return failure();
  return matmulKernel(b, op.getLoc(),
                      cast<RankedTensorType>(op.getType()).getShape(),
                      a.getLhs(), a.getRhs(), /*bias=*/Value(),
                      op.getTransposeA(), op.getTransposeB());
}

/// NumPy matmul where the kernel's batching covers the broadcast: 2-D by
/// 2-D, a stack of rows by one matrix ([..., M, K] x [K, N]: the stack is
/// folded into M) and equal-batch 3-D by 3-D.
FailureOr<Value> lowering::selectMatMul(MatMulOp op, MatMulOp::Adaptor a,
                                        OpBuilder &b) {
  if (!isF32(op.getResult()))
    return failure();
  Location loc = op.getLoc();
  ArrayRef<int64_t> as = tensorType(a.getLhs()).getShape(),
                    bs = tensorType(a.getRhs()).getShape();
  Value lhs = a.getLhs(), rhs = a.getRhs();
  SmallVector<int64_t> yShape;
  SmallVector<Value> mExtent; // the folded rows' count, when dynamic
  if (as.size() >= 2 && bs.size() == 2 && !tensorType(lhs).hasStaticShape()) {
    if (ShapedType::isDynamic(as.back()) || !tensorType(rhs).hasStaticShape())
      return failure();
    Value m = arith::ConstantIndexOp::create(b, loc, 1);
    for (size_t i = 0; i + 1 < as.size(); ++i)
      m = arith::MulIOp::create(b, loc, m,
                                tensor::DimOp::create(b, loc, lhs, i));
    mExtent.push_back(m);
    lhs = reshapeTo(b, loc, lhs, {ShapedType::kDynamic, as.back()}, mExtent);
    yShape = {ShapedType::kDynamic, bs[1]};
  } else if (as.size() >= 2 && bs.size() == 2) {
    int64_t m = tensorType(lhs).getNumElements() / as.back();
    lhs = reshapeTo(b, loc, lhs, {m, as.back()});
    yShape = {m, bs[1]};
  } else if (!tensorType(lhs).hasStaticShape() ||
             !tensorType(rhs).hasStaticShape()) {
    return failure(); // batched products of run-time extents: loops
  } else if (as.size() == 3 && bs.size() == 3 && as[0] == bs[0]) {
    yShape = {as[0], as[1], bs[2]};
  } else if (as.size() == bs.size() && as.size() > 3 &&
             as.drop_back(2) == bs.drop_back(2)) {
    // Batch axes alike on both sides (a transformer's batch x heads) fold
    // into one: a GPT-2 decoder's per-head products took 16% of its time
    // as loops.
    int64_t batch =
        tensorType(lhs).getNumElements() / (as.end()[-2] * as.back());
    lhs = reshapeTo(b, loc, lhs, {batch, as.end()[-2], as.back()});
    rhs = reshapeTo(b, loc, rhs, {batch, bs.end()[-2], bs.back()});
    yShape = {batch, as.end()[-2], bs.back()};
  } else {
    return failure();
  }
  Value y = matmulKernel(b, loc, yShape, lhs, rhs, /*bias=*/Value(),
                         /*transposeA=*/false, /*transposeB=*/false, Value(),
                         mExtent);
  return reshapeTo(b, loc, y, cast<RankedTensorType>(op.getType()).getShape());
}

namespace {

/// The 2-D float32 convolution gradients through the runtime's kernels (the
/// CPU's mxrt_kernel_sconv2d_backward: direct, or the GEMM with im2col and
/// col2im around it; cuDNN's on CUDA), in place of the generic loop nests:
/// LeNet's first-layer weight gradient was half its CPU training step as
/// loops.
template <typename GradOp>
FailureOr<Value> convGradKernel(GradOp op, OpBuilder &b, StringRef wrt,
                                Value dy, Value source) {
  auto type = cast<RankedTensorType>(op.getType());
  if (!isF32(op.getResult()) || type.getRank() != 4 ||
      op.getKernel().size() != 2)
    return failure();
  WindowGeometry geo = windowOf(op);
  return Conv2DGradKernelOp::create(
             b, op.getLoc(), type, dy, source,
             emptyTensor(b, op.getLoc(), type.getShape(), b.getF32Type()), wrt,
             geo.stride, geo.pad, geo.dilate, op.getNumGroup(),
             /*accumulate=*/false)
      .getResult();
}

} // namespace

FailureOr<Value> lowering::selectConvolutionGradData(
    ConvolutionGradDataOp op, ConvolutionGradDataOp::Adaptor a, OpBuilder &b) {
  return convGradKernel(op, b, "data", a.getOutGrad(), a.getWeight());
}

FailureOr<Value>
lowering::selectConvolutionGradWeight(ConvolutionGradWeightOp op,
                                      ConvolutionGradWeightOp::Adaptor a,
                                      OpBuilder &b) {
  return convGradKernel(op, b, "weight", a.getOutGrad(), a.getData());
}
