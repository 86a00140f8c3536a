// SPDX-License-Identifier: Apache-2.0
// Chains of small convolutions channels last (see ConvLayoutPass in
// Passes.td).

#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"

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

/// (n, c, h, w) -> (n, h, w, c) and back, as linalg.transpose permutations
/// (result axis i is input axis perm[i]).
constexpr int64_t kToNhwc[] = {0, 2, 3, 1};
constexpr int64_t kToNchw[] = {0, 3, 1, 2};

/// Output pixels per channel and weights (F x C x KH x KW) up to which a
/// convolution counts as small: ResNet-20's layers (32 x 32 images; 64
/// channels and filters, 3 x 3). On such layers the NHWC kernel is as fast
/// as NCHW's on one thread and much faster on two far cores; on larger
/// ones (ResNet-18's 56 x 56 and deep layers) NCHW's Winograd and
/// cache-blocked GEMMs are 1.2-2.7x faster (docs/kernels.md).
constexpr int64_t kSmallPixels = 1024;
constexpr int64_t kSmallWeights = 64 * 64 * 3 * 3;

bool isSmall(Conv2DKernelOp op) {
  auto ys = cast<RankedTensorType>(op.getInit().getType()).getShape();
  auto ws = cast<RankedTensorType>(op.getWeight().getType()).getShape();
  return op.getGroups() == 1 && ys[2] * ys[3] <= kSmallPixels &&
         ws[0] * ws[1] * ws[2] * ws[3] <= kSmallWeights;
}

SmallVector<int64_t> permuted(ArrayRef<int64_t> shape,
                              ArrayRef<int64_t> perm) {
  SmallVector<int64_t> out;
  for (int64_t axis : perm)
    out.push_back(shape[axis]);
  return out;
}

/// `v` permuted by `perm`: the input of a transpose by the inverse
/// permutation, a new tensor.empty for an empty one, else a new
/// linalg.transpose.
Value transposed(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> perm,
                 ArrayRef<int64_t> inverse) {
  if (auto t = v.getDefiningOp<linalg::TransposeOp>())
    if (t.getPermutation() == inverse)
      return t.getInput();
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape = permuted(type.getShape(), perm);
  if (v.getDefiningOp<tensor::EmptyOp>())
    return tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(b, loc, v, init, perm).getResult()[0];
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
    if (policy == "none")
      return;
    // Convolutions on tensors, in order: a producer comes before its users.
    SmallVector<Conv2DKernelOp> convs;
    getOperation().walk([&](Conv2DKernelOp op) {
      if (op.getResult() && !op.getNhwc())
        convs.push_back(op);
    });
    // Chains: convolutions linked by a result used as input or init.
    llvm::EquivalenceClasses<Operation *> chains;
    for (Conv2DKernelOp op : convs) {
      chains.insert(op);
      for (Value v : {op.getX(), op.getInit()})
        if (auto producer = v.getDefiningOp<Conv2DKernelOp>())
          if (!producer.getNhwc() && chains.contains(producer))
            chains.unionSets(producer, op);
    }
    auto chosen = [&](Conv2DKernelOp op) {
      if (policy == "all")
        return true;
      int64_t members = 0;
      for (auto it = chains.findLeader(op.getOperation());
           it != chains.member_end(); ++it, ++members)
        if (!isSmall(cast<Conv2DKernelOp>(*it)))
          return false;
      return members >= 2;
    };
    SmallVector<Conv2DKernelOp> change;
    for (Conv2DKernelOp op : convs)
      if (chosen(op))
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
          b, loc, init.getType(), x, op.getWeight(), op.getBias(), init,
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
