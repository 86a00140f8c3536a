// SPDX-License-Identifier: Apache-2.0
// 8-bit convolutions and the elementwise ops between them channels last (see
// QuantizedLayoutPass in Passes.td).

#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"
#include "passes/lowering/LinalgBuilders.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"

namespace mxc {
#define GEN_PASS_DEF_QUANTIZEDLAYOUTPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc::mx;

namespace {

constexpr auto &kToNhwc = mxc::lowering::kNchwToNhwc;
constexpr auto &kToNchw = mxc::lowering::kNhwcToNchw;
using mxc::lowering::transposed;

/// The channels-last tensor that `v` is the NCHW transpose of, or null.
Value channelsLastSource(Value v) {
  auto t = v.getDefiningOp<linalg::TransposeOp>();
  return t && t.getPermutation() == ArrayRef<int64_t>(kToNchw) ? t.getInput()
                                                               : Value();
}

/// Channels-last forms of values, made once each: the tensor a transpose
/// back to NCHW came from, or a transpose placed right after the value's
/// definition (so that every user sees it).
struct ChannelsLast {
  DenseMap<Value, Value> made;

  Value of(Value v) {
    if (Value source = channelsLastSource(v))
      return source;
    Value &known = made[v];
    if (!known) {
      OpBuilder b(v.getContext());
      b.setInsertionPointAfterValue(v);
      known = transposed(b, v.getLoc(), v, kToNhwc, kToNchw);
    }
    return known;
  }
};

/// Whether `op` goes channels last: each tap of its windows is a run of at
/// least 16 channels. A stem's 3 channels make runs too short to gather
/// (ResNet-18's 7x7/2 from 224 x 224 x 3: 0.86 ms channels last against
/// 0.68 NCHW, one thread, Zen 5; its 3x3 layers 0.30-0.39 against
/// 0.39-0.52, bench/qgemm.c).
bool gathersWell(QConv2DKernelOp op) {
  auto ws = cast<RankedTensorType>(op.getWeight().getType()).getShape();
  return !ShapedType::isDynamic(ws[1]) && ws[1] >= 16;
}

/// `op` (an 8-bit convolution or max pooling) channels last: a copy reading
/// its input transposed (or the channels-last tensor it was transposed
/// from) into a channels-last init, its result transposed back for the
/// users.
template <typename KernelOp>
void toChannelsLast(KernelOp op, ChannelsLast &last) {
  Value x = last.of(op.getX());
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value init = transposed(b, loc, op.getInit(), kToNhwc, kToNchw);
  auto made = cast<KernelOp>(b.clone(*op.getOperation()));
  made.getXMutable().assign(x);
  made.getInitMutable().assign(init);
  made.setNhwc(true);
  made.getResult().setType(cast<RankedTensorType>(init.getType()));
  Value back = transposed(b, loc, made.getResult(), kToNchw, kToNhwc);
  op.getResult().replaceAllUsesWith(back);
  Operation *oldInit = op.getInit().template getDefiningOp<tensor::EmptyOp>();
  op.erase();
  if (oldInit && oldInit->use_empty())
    oldInit->erase();
}

int64_t widthOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementTypeBitWidth();
}

/// `op` (elementwise, rank 4) computed channels last when one of its rank-4
/// inputs comes channels last and no rank-4 operand is wider than it (a
/// quantized residual add, not a dequantization to float): the other
/// rank-4 inputs transposed, its results transposed back for their users
/// (transposes that later ops then leave unused). Returns whether it did.
bool sinkTransposes(linalg::GenericOp op, ChannelsLast &last) {
  if (op.getNumLoops() != 4 || op.getNumReductionLoops() != 0 ||
      op.hasIndexSemantics() || !op.hasPureTensorSemantics())
    return false;
  MLIRContext *ctx = op.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(4, ctx);
  int64_t width = 0, widest = 0;
  for (OpOperand *in : op.getDpsInputOperands())
    if (op.getMatchingIndexingMap(in) == identity) {
      if (channelsLastSource(in->get()))
        width = std::max(width, widthOf(in->get()));
      widest = std::max(widest, widthOf(in->get()));
    }
  for (OpOperand &out : op.getDpsInitsMutable()) {
    if (op.getMatchingIndexingMap(&out) != identity ||
        !out.get().getDefiningOp<tensor::EmptyOp>() ||
        op.payloadUsesValueFromOperand(&out))
      return false;
    widest = std::max(widest, widthOf(out.get()));
  }
  if (width == 0 || widest > width)
    return false;
  // Loop d of the NCHW op is loop position[d] of the channels-last one.
  constexpr int64_t position[] = {0, 3, 1, 2};
  SmallVector<AffineExpr> renamed;
  for (int64_t d = 0; d < 4; ++d)
    renamed.push_back(getAffineDimExpr(position[d], ctx));
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    if (map == identity) {
      inputs.push_back(last.of(in->get()));
      maps.push_back(identity);
      continue;
    }
    // A broadcast operand (a scalar, one value per channel) stays as it
    // is, read through the renamed loops.
    inputs.push_back(in->get());
    maps.push_back(map.replaceDimsAndSymbols(renamed, {}, 4, 0));
  }
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> inits;
  SmallVector<Type> types;
  for (OpOperand &out : op.getDpsInitsMutable()) {
    inits.push_back(transposed(b, loc, out.get(), kToNhwc, kToNchw));
    types.push_back(inits.back().getType());
    maps.push_back(identity);
  }
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  auto made =
      linalg::GenericOp::create(b, loc, types, inputs, inits, maps, iterators);
  made->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  made.getRegion().takeBody(op.getRegion());
  for (auto [old, now] : llvm::zip(op.getResults(), made.getResults()))
    old.replaceAllUsesWith(transposed(b, loc, now, kToNchw, kToNhwc));
  SmallVector<Operation *> empties;
  for (OpOperand &out : op.getDpsInitsMutable())
    empties.push_back(out.get().getDefiningOp());
  op.erase();
  for (Operation *empty : empties)
    if (empty->use_empty())
      empty->erase();
  return true;
}

struct QuantizedLayoutPass
    : mxc::impl::QuantizedLayoutPassBase<QuantizedLayoutPass> {
  void runOnOperation() override {
    // In order, producers before users: a convolution's input that an
    // earlier step left channels last is read as it is.
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (auto conv = dyn_cast<QConv2DKernelOp>(op)) {
        if (conv.getResult() && !conv.getNhwc() && gathersWell(conv))
          ops.push_back(op);
      } else if (auto pool = dyn_cast<QMaxPool2DKernelOp>(op)) {
        if (pool.getResult() && !pool.getNhwc())
          ops.push_back(op);
      } else if (isa<linalg::GenericOp>(op)) {
        ops.push_back(op);
      }
    });
    bool any = false;
    ChannelsLast last;
    for (Operation *op : ops) {
      if (auto conv = dyn_cast<QConv2DKernelOp>(op)) {
        toChannelsLast(conv, last);
        any = true;
      } else if (auto pool = dyn_cast<QMaxPool2DKernelOp>(op)) {
        // Channels last where its input comes so (after an NCHW stem, the
        // next convolution transposes the pooled, smaller tensor).
        if (channelsLastSource(pool.getX()))
          toChannelsLast(pool, last);
      } else if (any) {
        sinkTransposes(cast<linalg::GenericOp>(op), last);
      }
    }
    if (!any)
      return;
    // Transposes (and their inits) that nothing reads any more.
    SmallVector<Operation *> dead;
    getOperation().walk([&](linalg::TransposeOp t) { dead.push_back(t); });
    for (Operation *t : llvm::reverse(dead))
      if (t->use_empty()) {
        Operation *empty = t->getOperand(1).getDefiningOp();
        t->erase();
        if (empty && empty->use_empty())
          empty->erase();
      }
  }
};

} // namespace
