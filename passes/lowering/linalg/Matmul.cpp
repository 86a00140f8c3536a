// SPDX-License-Identifier: Apache-2.0
// Contractions -> one linalg.generic each (loops: batch..., m, n parallel,
// k reduction) accumulating into the bias or zeros: FullyConnected, dot /
// batch_dot and NumPy's matmul. A target may replace them first with calls
// into its own kernels (the CPU: passes/lowering/cpu/KernelSelection.cpp).
#include "dialects/mx/MxDialect.h"
#include "passes/lowering/LinalgBuilders.h"
#include "passes/lowering/ScalarBuilders.h"
#include "passes/lowering/linalg/Lowering.h"

using namespace mlir;
using namespace mxc::mx;

namespace mxc::lowering {
namespace {

/// out = x W^T + bias with x flattened to (m, k) and W (n, k).
FailureOr<Value> lowerFullyConnected(FullyConnectedOp op,
                                     FullyConnectedOp::Adaptor a,
                                     OpBuilder &b) {
  Location loc = op.getLoc();
  auto outType = cast<RankedTensorType>(op.getType());
  auto wType = tensorType(a.getWeight());
  int64_t n = wType.getDimSize(0), k = wType.getDimSize(1);
  int64_t m = outType.getNumElements() / n;
  Type et = outType.getElementType();
  MLIRContext *ctx = b.getContext();
  Value x = reshapeTo(b, loc, a.getData(), {m, k});
  // Initialize with the bias (or zero), then accumulate x W^T.
  Value init = a.getBias() ? readThrough(b, loc, {m, n}, a.getBias(),
                                         channelMap(ctx, 2, 1))
                           : filledTensor(b, loc, {m, n}, et, 0.0);
  AffineExpr i, j, kk;
  bindDims(ctx, i, j, kk);
  Value y = generic(b, loc, {m, n}, et, {x, a.getWeight()},
                    {loopMap(ctx, 3, {i, kk}), loopMap(ctx, 3, {j, kk})},
                    iterators(2, 1), multiplyAccumulate, init,
                    loopMap(ctx, 3, {i, j}));
  return reshapeTo(b, loc, y, outType.getShape());
}

/// dot and batch_dot: loops (batch,) m, n | k with either operand read
/// transposed through its map.
FailureOr<Value> lowerDot(DotOp op, DotOp::Adaptor a, OpBuilder &b) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(op.getType());
  Type et = type.getElementType();
  bool batch = op.getBatch();
  unsigned o = batch ? 1 : 0, nLoops = o + 3;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineExpr m = d(o), n = d(o + 1), k = d(o + 2);
  SmallVector<AffineExpr> ae, be, ye;
  if (batch) {
    ae.push_back(d(0));
    be.push_back(d(0));
    ye.push_back(d(0));
  }
  ae.append(op.getTransposeA() ? SmallVector<AffineExpr>{k, m}
                               : SmallVector<AffineExpr>{m, k});
  be.append(op.getTransposeB() ? SmallVector<AffineExpr>{n, k}
                               : SmallVector<AffineExpr>{k, n});
  ye.append({m, n});
  return generic(b, op.getLoc(), type.getShape(), et, {a.getLhs(), a.getRhs()},
                 {loopMap(ctx, nLoops, ae), loopMap(ctx, nLoops, be)},
                 iterators(o + 2, 1), multiplyAccumulate,
                 filledTensor(b, op.getLoc(), type.getShape(), et, 0.0),
                 loopMap(ctx, nLoops, ye));
}

/// NumPy matmul: 1-D operands are reshaped to a row (lhs) or a column (rhs),
/// then one generic (batch..., m, n | k) reads each operand's batch axes
/// broadcast; the result is reshaped to drop the promoted axes.
FailureOr<Value> lowerMatMul(MatMulOp op, MatMulOp::Adaptor a, OpBuilder &b) {
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(op.getType());
  Type et = type.getElementType();
  if (isBool(et))
    return op.emitOpError("matmul is not defined for booleans");
  SmallVector<int64_t> as(tensorType(a.getLhs()).getShape()),
      bs(tensorType(a.getRhs()).getShape());
  if (as.size() == 1)
    as.insert(as.begin(), 1);
  if (bs.size() == 1)
    bs.push_back(1);
  Value lhs = reshapeTo(b, loc, a.getLhs(), as);
  Value rhs = reshapeTo(b, loc, a.getRhs(), bs);
  unsigned nBatch = std::max(as.size(), bs.size()) - 2;
  SmallVector<int64_t> yShape(nBatch, 1);
  for (ArrayRef<int64_t> s : {ArrayRef(as), ArrayRef(bs)})
    for (unsigned i = 0; i + 2 < s.size(); ++i)
      if (s[i] != 1)
        yShape[nBatch - (s.size() - 2) + i] = s[i];
  int64_t m = as[as.size() - 2], n = bs.back();
  yShape.append({m, n});

  unsigned nLoops = nBatch + 3;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  // An operand's batch axes, right-aligned, extent 1 broadcast.
  auto batchExprs = [&](ArrayRef<int64_t> s) {
    SmallVector<AffineExpr> e;
    unsigned offset = nBatch - (s.size() - 2);
    for (unsigned i = 0; i + 2 < s.size(); ++i)
      e.push_back(s[i] == 1 && yShape[offset + i] != 1
                      ? getAffineConstantExpr(0, ctx)
                      : d(offset + i));
    return e;
  };
  SmallVector<AffineExpr> ae = batchExprs(as), be = batchExprs(bs);
  ae.append({d(nBatch), d(nBatch + 2)});
  be.append({d(nBatch + 2), d(nBatch + 1)});
  Value y = generic(b, loc, yShape, et, {lhs, rhs},
                    {loopMap(ctx, nLoops, ae), loopMap(ctx, nLoops, be)},
                    iterators(nBatch + 2, 1), multiplyAccumulate,
                    filledTensor(b, loc, yShape, et, 0.0),
                    axesMap(ctx, nLoops, 0, nBatch + 2));
  return reshapeTo(b, loc, y, type.getShape());
}

} // namespace

void populateMatmulPatterns(RewritePatternSet &patterns) {
  addLowerings(patterns, lowerFullyConnected, lowerDot, lowerMatMul);
}

} // namespace mxc::lowering
