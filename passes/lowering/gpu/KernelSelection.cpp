// SPDX-License-Identifier: Apache-2.0
// The CUDA target's choice of library kernels (mxc-select-cuda-kernels):
// float32 contractions become mx.kernel.* ops that mxc-kernels-to-calls
// turns into calls of libmxrt's mxrt_cuda_* functions, which run cuBLAS
// (GEMM) and cuDNN (2-D convolution and its gradients) on the kernels'
// stream. Those take no bias and no epilogue: a bias is the output's
// initial value (a broadcast, one generated kernel) that the library call
// adds to (beta = 1), and activations stay generated elementwise kernels.
// Pooling, normalization and the rest stay generated kernels.
#include "passes/lowering/KernelSelection.h"
#include "passes/Passes.h"
#include "passes/lowering/LinalgBuilders.h"
#include "passes/lowering/linalg/Lowering.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mxc {
#define GEN_PASS_DEF_SELECTCUDAKERNELSPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc::lowering;
using namespace mxc::mx;

namespace {

FailureOr<Value> selectFullyConnected(FullyConnectedOp op,
                                      FullyConnectedOp::Adaptor a,
                                      OpBuilder &b) {
  return fullyConnectedKernel(op, a, b, /*biasInInit=*/true);
}

FailureOr<Value> selectConvolution(ConvolutionOp op, ConvolutionOp::Adaptor a,
                                   OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  if (!isF32(op.getResult()) || type.getRank() != 4)
    return failure();
  // cuDNN pads alike before and after: an output that padding after the
  // input makes different (ONNX's asymmetric pads) stays a loop nest.
  ArrayRef<int64_t> xs = tensorType(a.getData()).getShape(),
                    ws = tensorType(a.getWeight()).getShape();
  for (int d = 0; d < 2; ++d) {
    int64_t span = op.getDilations()[d] * (ws[2 + d] - 1) + 1;
    if ((xs[2 + d] + 2 * op.getPadding()[d] - span) / op.getStrides()[d] + 1 !=
        type.getDimSize(2 + d))
      return failure();
  }
  Location loc = op.getLoc();
  Value bias = a.getBias();
  Value init = bias ? broadcastVector(b, loc, bias, type.getShape(), 1)
                    : emptyTensor(b, loc, type.getShape(), b.getF32Type());
  return Conv2DKernelOp::create(
             b, loc, type, a.getData(), a.getWeight(), ValueRange{}, init,
             op.getStrides(), op.getPadding(), op.getDilations(),
             op.getNumGroup(), /*accumulate=*/static_cast<bool>(bias),
             /*relu=*/false)
      .getResult();
}

struct SelectCudaKernelsPass
    : mxc::impl::SelectCudaKernelsPassBase<SelectCudaKernelsPass> {
  void runOnOperation() override {
    // The selections with data-dependent sizes have only the CPU's kernels.
    WalkResult unsupported = getOperation()->walk([](Operation *op) {
      if (auto random = dyn_cast<RandomOp>(op)) {
        if (random.getSeeded())
          return WalkResult::advance();
        op->emitOpError("without a seed draws its seed from the CPU runtime, "
                        "which --target=cuda does not do yet; give the "
                        "operator a seed or compile for the CPU");
        return WalkResult::interrupt();
      }
      if (!isa<TopKOp, NonMaxSuppressionOp>(op))
        return WalkResult::advance();
      op->emitOpError("(TopK with a run-time or large k, NonMaxSuppression) "
                      "is not supported by --target=cuda yet; compile for "
                      "the CPU");
      return WalkResult::interrupt();
    });
    if (unsupported.wasInterrupted())
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    addLowerings(patterns, selectFullyConnected, selectConvolution, selectDot,
                 selectMatMul, selectConvolutionGradData,
                 selectConvolutionGradWeight);
    if (failed(applyKernelSelection(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
