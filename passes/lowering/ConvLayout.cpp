// SPDX-License-Identifier: Apache-2.0
// Chains of small convolutions channels last (see ConvLayoutPass in
// Passes.td).

#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"
#include "passes/lowering/LinalgBuilders.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/EquivalenceClasses.h"

namespace mxc {
#define GEN_PASS_DEF_CONVLAYOUTPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc::mx;

namespace {

constexpr auto &kToNhwc = mxc::lowering::kNchwToNhwc;
constexpr auto &kToNchw = mxc::lowering::kNhwcToNchw;
using mxc::lowering::transposed;

/// Output pixels per channel and weights (F x C x KH x KW) up to which a
/// convolution counts as small: ResNet-20's layers (32 x 32 images; 64
/// channels and filters, 3 x 3). On such layers the NHWC direct kernel is
/// as fast as NCHW's on one thread and much faster on two far cores
/// (docs/kernels.md, session 9).
constexpr int64_t kSmallPixels = 1024;
constexpr int64_t kSmallWeights = 64 * 64 * 3 * 3;

bool isSmall(Conv2DKernelOp op) {
  auto ys = cast<RankedTensorType>(op.getInit().getType()).getShape();
  auto ws = cast<RankedTensorType>(op.getWeight().getType()).getShape();
  return op.getGroups() == 1 && !ShapedType::isDynamic(ys[2]) &&
         !ShapedType::isDynamic(ys[3]) && ys[2] * ys[3] <= kSmallPixels &&
         ws[0] * ws[1] * ws[2] * ws[3] <= kSmallWeights;
}

/// Whether the runtime keeps transformed copies of `op`'s weight: marked
/// constant (a weight of an inference library), or an instance's parameter
/// in a training library's `forward`, kept until the parameters change (as
/// mxc-kernels-to-calls passes it).
bool isKeptWeight(Conv2DKernelOp op) {
  return mxc::isArgumentWith(op.getWeight(), mxc::kConstantArgAttr) ||
         mxc::isKeptParameter(op, op.getWeight());
}

bool all(ArrayRef<int64_t> values, int64_t v) {
  return llvm::all_of(values, [v](int64_t x) { return x == v; });
}

/// Floats of F(2x2, 3x3) transformed filters (16 F C) above which NHWC
/// Winograd loses to NCHW: it streams them for every call, and on 7x7
/// images (16 tiles) each is used too few times to pay for reading it.
/// ResNet-18's 7x7 x 512 (16.8 MB): 4.4-4.6 against 2.9-3.3 ms on one thread,
/// NCHW in the network's order; its 14x14 x 256 (4.2 MB) breaks even.
constexpr int64_t kWinogradFilterFloats = int64_t{2} << 20;

/// Whether the runtime computes `op` channels last by Winograd (its
/// nhwcWinogradTile: 3x3, stride 1, undilated, ungrouped, constant
/// (kept) filters, channels in whole vectors of 16, at least 16 channels and
/// filters) and that beats NCHW: every such layer of ResNet-20 and
/// ResNet-18 measured, at one and two threads, but those whose
/// transformed filters pass kWinogradFilterFloats (docs/kernels.md,
/// session 10).
bool takesWinograd(Conv2DKernelOp op) {
  auto ws = cast<RankedTensorType>(op.getWeight().getType()).getShape();
  return op.getGroups() == 1 && ws[2] == 3 && ws[3] == 3 &&
         all(op.getStrides(), 1) && all(op.getDilations(), 1) &&
         ws[1] % 16 == 0 && ws[1] >= 16 && ws[0] >= 16 &&
         16 * ws[0] * ws[1] <= kWinogradFilterFloats && isKeptWeight(op);
}

/// Whether the NHWC direct kernel computes `op` at least as fast as NCHW:
/// ResNet-18's strided convolutions between stages where they have at
/// most 64 channels (3x3/2 and 1x1/2 from 56 x 56: 1.37-1.45 against 1.57
/// ms and 0.29-0.31 against 0.37 ms, one thread, in the network's order)
/// and its 1x1/2 of 128 channels (0.21-0.26 against 0.27); not the 3x3/2
/// of 128 and 256 channels (1.3 and 3.1 against 0.8 and 1.3 ms alone),
/// and the 1x1/2 of 256 channels only breaks even (it would bring two
/// transposes with it).
bool directFits(Conv2DKernelOp op) {
  auto ws = cast<RankedTensorType>(op.getWeight().getType()).getShape();
  if (op.getGroups() != 1 || !all(op.getDilations(), 1))
    return false;
  if (!all(op.getStrides(), 2))
    return false;
  bool pointwise = ws[2] == 1 && ws[3] == 1;
  return (pointwise && ws[1] <= 128) ||
         (ws[1] <= 64 && ws[2] == 3 && ws[3] == 3);
}

/// Whether `op` is a 1x1 stride-1 convolution, which the NCHW path
/// computes as a plain product on the packed GEMM (the runtime's
/// pointwiseAsGemm). Small ones went channels last with their neighbours;
/// kept NCHW, lraspp_mobilenet_v3_large (its pointwise layers between
/// depthwise ones) took 10.4-10.8 against 11.1-12.2 ms on one thread,
/// 5.9-6.7 against 6.2-6.6 on two (alternating runs; docs/kernels.md).
bool isPointwise(Conv2DKernelOp op) {
  auto ws = cast<RankedTensorType>(op.getWeight().getType()).getShape();
  return ws[2] == 1 && ws[3] == 1 && all(op.getStrides(), 1);
}

/// Whether `op` may go channels last: the NHWC kernels are at least as
/// fast on it (with `bf16`, under --precision=bf16).
bool fitsChannelsLast(Conv2DKernelOp op, bool bf16) {
  auto ws = cast<RankedTensorType>(op.getWeight().getType()).getShape();
  if (bf16 && mxc::bf16Convolution(op) && ws[1] >= 16)
    return true;
  return !isPointwise(op) &&
         (isSmall(op) || takesWinograd(op) || directFits(op));
}

struct ConvLayoutPass : mxc::impl::ConvLayoutPassBase<ConvLayoutPass> {
  using ConvLayoutPassBase::ConvLayoutPassBase;

  void runOnOperation() override {
    if (policy != "auto" && policy != "all" && policy != "none") {
      emitError(getOperation().getLoc())
          << "mxc-conv-layout: policy must be auto, all or none, not '"
          << policy << "'";
      return signalPassFailure();
    }
    if (precision != "fp32" && precision != "bf16") {
      emitError(getOperation().getLoc())
          << "mxc-conv-layout: precision must be fp32 or bf16, not '"
          << precision << "'";
      return signalPassFailure();
    }
    if (policy == "none")
      return;
    bool bf16 = precision == "bf16";
    // Convolutions on tensors, in order: a producer comes before its users.
    SmallVector<Conv2DKernelOp> convs;
    getOperation().walk([&](Conv2DKernelOp op) {
      if (op.getResult() && !op.getNhwc())
        convs.push_back(op);
    });
    // Chains: convolutions that may go channels last (every one for
    // policy=all), linked by a result used as input or init. A chain of
    // two or more goes channels last; a lone convolution would only add
    // two transposes.
    bool every = policy == "all";
    llvm::EquivalenceClasses<Operation *> chains;
    for (Conv2DKernelOp op : convs) {
      if (!every && !fitsChannelsLast(op, bf16))
        continue;
      chains.insert(op);
      for (Value v : {op.getX(), op.getInit()})
        if (auto producer = v.getDefiningOp<Conv2DKernelOp>())
          if (chains.contains(producer))
            chains.unionSets(producer, op);
    }
    SmallVector<Conv2DKernelOp> change;
    for (Conv2DKernelOp op : convs)
      if (chains.contains(op) &&
          (every || std::next(chains.findLeader(op.getOperation())) !=
                        chains.member_end()))
        change.push_back(op);
    SmallVector<Operation *> backs;
    // Values from outside a chain made channels last once, where first
    // read (a block's input is also its shortcut's accumulator).
    DenseMap<Value, Value> channelsLast;
    auto toNhwc = [&](OpBuilder &b, Operation *user, Value v) {
      Value &known = channelsLast[v];
      Operation *def = known ? known.getDefiningOp() : nullptr;
      if (def && def->getBlock() == user->getBlock() &&
          def->isBeforeInBlock(user))
        return known;
      known = transposed(b, user->getLoc(), v, kToNhwc, kToNchw);
      return known;
    };
    for (Conv2DKernelOp op : change) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      Value x = toNhwc(b, op, op.getX());
      Value init = op.getAccumulate()
                       ? toNhwc(b, op, op.getInit())
                       : transposed(b, loc, op.getInit(), kToNhwc, kToNchw);
      auto conv = Conv2DKernelOp::create(
          b, loc, init.getType(), x, op.getWeight(), op.getEpilogue(), init,
          op.getStrides(), op.getPads(), op.getDilations(), op.getGroups(),
          op.getAccumulate(), op.getRelu(), /*nhwc=*/true);
      Value back = transposed(b, loc, conv.getResult(), kToNchw, kToNhwc);
      backs.push_back(back.getDefiningOp());
      op.getResult().replaceAllUsesWith(back);
      Operation *oldInit = op.getInit().getDefiningOp<tensor::EmptyOp>();
      op.erase();
      if (oldInit && oldInit->use_empty())
        oldInit->erase();
    }
    // With policy=all the gradients too: dy and x (a weight gradient's
    // source) channels last, a data gradient's result back to NCHW.
    SmallVector<Conv2DGradKernelOp> grads;
    if (every)
      getOperation().walk([&](Conv2DGradKernelOp op) {
        if (op.getResult() && !op.getNhwc())
          grads.push_back(op);
      });
    for (Conv2DGradKernelOp op : grads) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      bool data = op.getWrt() == "data";
      Value dy = toNhwc(b, op, op.getDy());
      Value source = data ? op.getSource() : toNhwc(b, op, op.getSource());
      Value init = op.getInit();
      if (data)
        init = op.getAccumulate() ? toNhwc(b, op, init)
                                  : transposed(b, loc, init, kToNhwc, kToNchw);
      auto grad = Conv2DGradKernelOp::create(
          b, loc, init.getType(), dy, source, init, op.getWrt(),
          op.getStrides(), op.getPads(), op.getDilations(), op.getGroups(),
          op.getAccumulate(), /*nhwc=*/true);
      Value result = grad.getResult();
      if (data) {
        result = transposed(b, loc, result, kToNchw, kToNhwc);
        backs.push_back(result.getDefiningOp());
      }
      op.getResult().replaceAllUsesWith(result);
      Operation *oldInit =
          data ? op.getInit().getDefiningOp<tensor::EmptyOp>() : nullptr;
      op.erase();
      if (oldInit && oldInit->use_empty())
        oldInit->erase();
    }
    // Transposes back to NCHW that only the chain read are left unused.
    for (Operation *back : llvm::reverse(backs))
      if (back->use_empty()) {
        Operation *empty = back->getOperand(1).getDefiningOp();
        back->erase();
        if (empty && empty->use_empty())
          empty->erase();
      }
  }
};

} // namespace
