// SPDX-License-Identifier: Apache-2.0
// Convolutions -> linalg, forward and backward, on NC... data with the group
// axis made explicit (splitAxis): Convolution is one grouped contraction
// over a padded input, Deconvolution the same over the input dilated by the
// stride with the weight flipped; the data gradient is one strided
// accumulation per kernel offset (no scatter, so every generic keeps affine,
// race-free indexing) and the weight gradient one contraction.
#include "dialects/mx/MxDialect.h"
#include "passes/lowering/LinalgBuilders.h"
#include "passes/lowering/ScalarBuilders.h"
#include "passes/lowering/WindowLoops.h"
#include "passes/lowering/linalg/Lowering.h"

using namespace mlir;
using namespace mxc::mx;

namespace mxc::lowering {
namespace {

/// The grouped convolution behind Convolution and Deconvolution over an
/// already padded input `x` (N, C, S...) with `weight` (F, C/g, K...), into
/// `outType` (N, F, O...), plus the optional per-filter `bias`.
Value groupedConvolution(OpBuilder &b, Location loc, Value x, Value weight,
                         Value bias, int64_t g, const WindowGeometry &geo,
                         RankedTensorType outType) {
  MLIRContext *ctx = b.getContext();
  Type et = outType.getElementType();
  unsigned ns = geo.numSpatial();
  // Group axes made explicit: x (N, G, Cg, S...), w (G, Fg, Cg, K...),
  // y (N, G, Fg, O...).
  x = splitAxis(b, loc, x, 1, g);
  Value w = splitAxis(b, loc, weight, 0, g);
  SmallVector<int64_t> yShape = {outType.getDimSize(0), g,
                                 outType.getDimSize(1) / g};
  llvm::append_range(yShape, outType.getShape().drop_front(2));

  // Loops: n, g, f, o_0..o_{ns-1} (parallel); c, k_0..k_{ns-1} (reduction).
  unsigned nLoops = 3 + ns + 1 + ns;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> xe = {d(0), d(1), d(3 + ns)},
                          we = {d(1), d(2), d(3 + ns)};
  for (unsigned s = 0; s < ns; ++s) {
    xe.push_back(geo.tap(s, d(3 + s), d(4 + ns + s)));
    we.push_back(d(4 + ns + s));
  }
  Value init = bias ? readThrough(b, loc, yShape, splitAxis(b, loc, bias, 0, g),
                                  axesMap(ctx, yShape.size(), 1, 2))
                    : filledTensor(b, loc, yShape, et, 0.0);
  Value y = generic(b, loc, yShape, et, {x, w},
                    {loopMap(ctx, nLoops, xe), loopMap(ctx, nLoops, we)},
                    iterators(3 + ns, 1 + ns), multiplyAccumulate, init,
                    axesMap(ctx, nLoops, 0, 3 + ns));
  return reshapeTo(b, loc, y, outType.getShape());
}

FailureOr<Value> lowerConvolution(ConvolutionOp op, ConvolutionOp::Adaptor a,
                                  OpBuilder &b) {
  auto pad = op.getPadding();
  Value x = padAxes(b, op.getLoc(), a.getData(), 2, pad, pad, 0.0);
  WindowGeometry geo(op.getKernel(), op.getStrides(), op.getDilations(), pad);
  return groupedConvolution(b, op.getLoc(), x, a.getWeight(), a.getBias(),
                            op.getNumGroup(), geo,
                            cast<RankedTensorType>(op.getType()));
}

/// Transposed convolution without a scatter: the input is dilated by the
/// stride (stride - 1 zeros between elements), padded by
/// dilate * (k - 1) - pad on each side (plus adj after; negative amounts
/// crop), and convolved with stride 1 and the weight flipped spatially with
/// its channel axes swapped per group: (C, F/g, K...) -> (F, C/g, K...).
FailureOr<Value> lowerDeconvolution(DeconvolutionOp op,
                                    DeconvolutionOp::Adaptor a, OpBuilder &b) {
  Location loc = op.getLoc();
  WindowGeometry geo = windowOf(op);
  ArrayRef<int64_t> kernel = geo.kernel;
  unsigned ns = geo.numSpatial();
  SmallVector<int64_t> adj = op.getAdj().empty()
                                 ? SmallVector<int64_t>(ns, 0)
                                 : SmallVector<int64_t>(op.getAdj());
  auto inType = tensorType(a.getData());
  Type et = inType.getElementType();

  // Per spatial axis: the dilated extent, the (signed) padding before and
  // after it, and the non-negative part that is materialized.
  SmallVector<int64_t> low(ns), high(ns), padLow(ns), padHigh(ns);
  SmallVector<int64_t> shape(inType.getShape()), cropped(inType.getShape());
  bool strided = false, crop = false;
  for (unsigned s = 0; s < ns; ++s) {
    int64_t dilated = (inType.getDimSize(2 + s) - 1) * geo.stride[s] + 1;
    low[s] = geo.dilate[s] * (kernel[s] - 1) - geo.pad[s];
    high[s] = low[s] + adj[s];
    padLow[s] = std::max<int64_t>(low[s], 0);
    padHigh[s] = std::max<int64_t>(high[s], 0);
    shape[2 + s] = dilated + padLow[s] + padHigh[s];
    cropped[2 + s] = dilated + low[s] + high[s];
    strided |= geo.stride[s] > 1;
    crop |= low[s] < 0 || high[s] < 0;
  }
  Value x;
  if (!strided) {
    x = padAxes(b, loc, a.getData(), 2, padLow, padHigh, 0.0);
  } else {
    Box dilatedInput(inType.getShape());
    for (unsigned s = 0; s < ns; ++s) {
      dilatedInput.offsets[2 + s] = padLow[s];
      dilatedInput.strides[2 + s] = geo.stride[s];
    }
    x = insertSlice(b, loc, a.getData(), filledTensor(b, loc, shape, et, 0.0),
                    dilatedInput);
  }
  if (crop) {
    Box kept(cropped);
    for (unsigned s = 0; s < ns; ++s)
      kept.offsets[2 + s] = std::max<int64_t>(-low[s], 0);
    x = extractSlice(b, loc, x, kept);
  }

  // w'[g, f, c, k...] = w[g, c, f, K - 1 - k...] with the groups explicit.
  MLIRContext *ctx = b.getContext();
  int64_t g = op.getNumGroup(), cg = inType.getDimSize(1) / g,
          fg = op.getNumFilter() / g;
  SmallVector<int64_t> flippedShape = {g, fg, cg};
  llvm::append_range(flippedShape, kernel);
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> we = {d(0), d(2), d(1)};
  for (unsigned s = 0; s < ns; ++s)
    we.push_back(kernel[s] - 1 - d(3 + s));
  Value w =
      readThrough(b, loc, flippedShape, splitAxis(b, loc, a.getWeight(), 0, g),
                  loopMap(ctx, 3 + ns, we));
  SmallVector<int64_t> convShape = {g * fg, cg};
  llvm::append_range(convShape, kernel);
  w = reshapeTo(b, loc, w, convShape);
  WindowGeometry unitStride(kernel, {}, geo.dilate, {});
  return groupedConvolution(b, loc, x, w, a.getBias(), g, unitStride,
                            cast<RankedTensorType>(op.getType()));
}

/// dx: for each kernel offset k, the contraction of dy with w[..., k] over
/// the filters, added at the input positions o * stride + k * dilate of a
/// padded accumulator, which is then cropped.
FailureOr<Value> lowerConvolutionGradData(ConvolutionGradDataOp op,
                                          ConvolutionGradDataOp::Adaptor a,
                                          OpBuilder &b) {
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(op.getType());
  Type et = type.getElementType();
  WindowGeometry geo = windowOf(op);
  unsigned ns = geo.numSpatial();
  int64_t groups = op.getNumGroup();
  int64_t n = type.getDimSize(0), cg = type.getDimSize(1) / groups;
  ArrayRef<int64_t> spatialOut =
      tensorType(a.getOutGrad()).getShape().drop_front(2);
  // dy as (N, G, Fg, O...), w as (G, Fg, Cg, K...).
  Value dy = splitAxis(b, loc, a.getOutGrad(), 1, groups);
  Value w = splitAxis(b, loc, a.getWeight(), 0, groups);
  // The padded input extent covering every tap of every output.
  SmallVector<int64_t> padShape = {n, groups, cg};
  for (unsigned s = 0; s < ns; ++s)
    padShape.push_back(std::max<int64_t>(
        type.getDimSize(2 + s) + 2 * geo.pad[s], geo.reach(s, spatialOut[s])));
  Value acc = filledTensor(b, loc, padShape, et, 0.0);
  // Loops: n, g, cg, o... (parallel), fg (reduction).
  unsigned nl = 4 + ns;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> dye = {d(0), d(1), d(3 + ns)};
  for (unsigned s = 0; s < ns; ++s)
    dye.push_back(d(3 + s));
  SmallVector<int64_t> partShape = {n, groups, cg};
  llvm::append_range(partShape, spatialOut);
  forEachIndex(geo.kernel, [&](ArrayRef<int64_t> k) {
    SmallVector<AffineExpr> we = {d(1), d(3 + ns), d(2)};
    for (unsigned s = 0; s < ns; ++s)
      we.push_back(getAffineConstantExpr(k[s], ctx));
    Value part = generic(b, loc, partShape, et, {dy, w},
                         {loopMap(ctx, nl, dye), loopMap(ctx, nl, we)},
                         iterators(3 + ns, 1), multiplyAccumulate,
                         filledTensor(b, loc, partShape, et, 0.0),
                         axesMap(ctx, nl, 0, 3 + ns));
    Box taps(partShape);
    for (unsigned s = 0; s < ns; ++s) {
      taps.offsets[3 + s] = k[s] * geo.dilate[s];
      taps.strides[3 + s] = geo.stride[s];
    }
    acc = addToSlice(b, loc, acc, part, taps);
  });
  SmallVector<int64_t> unpadded = {n, groups, cg};
  llvm::append_range(unpadded, type.getShape().drop_front(2));
  Box input(unpadded);
  for (unsigned s = 0; s < ns; ++s)
    input.offsets[3 + s] = geo.pad[s];
  return reshapeTo(b, loc, extractSlice(b, loc, acc, input), type.getShape());
}

/// dw[g, f, c, k...] = sum over n, o... of x[n, g, c, o * stride + k *
/// dilate] * dy[n, g, f, o...]: one contraction over the padded input.
FailureOr<Value> lowerConvolutionGradWeight(ConvolutionGradWeightOp op,
                                            ConvolutionGradWeightOp::Adaptor a,
                                            OpBuilder &b) {
  Location loc = op.getLoc();
  WindowGeometry geo = windowOf(op);
  int64_t groups = op.getNumGroup();
  ArrayRef<int64_t> dyShape = tensorType(a.getOutGrad()).getShape();
  // x padded and as (N, G, Cg, S...), dy as (N, G, Fg, O...).
  Value x = splitAxis(
      b, loc,
      geo.padForWindows(b, loc, a.getData(), dyShape.drop_front(2), 0.0), 1,
      groups);
  Value dy = splitAxis(b, loc, a.getOutGrad(), 1, groups);
  unsigned ns = geo.numSpatial();
  Type et = tensorType(x).getElementType();
  int64_t cg = tensorType(x).getDimSize(2), fg = dyShape[1] / groups;
  // Loops: g, fg, cg, k... (parallel), n, o... (reduction).
  MLIRContext *ctx = b.getContext();
  unsigned nl = 4 + 2 * ns;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  unsigned nIdx = 3 + ns;
  SmallVector<AffineExpr> xe = {d(nIdx), d(0), d(2)},
                          dye = {d(nIdx), d(0), d(1)};
  for (unsigned s = 0; s < ns; ++s) {
    AffineExpr o = d(nIdx + 1 + s), k = d(3 + s);
    xe.push_back(geo.tap(s, o, k));
    dye.push_back(o);
  }
  SmallVector<int64_t> outShape = {groups, fg, cg};
  llvm::append_range(outShape, geo.kernel);
  Value dw = generic(b, loc, outShape, et, {x, dy},
                     {loopMap(ctx, nl, xe), loopMap(ctx, nl, dye)},
                     iterators(3 + ns, 1 + ns), multiplyAccumulate,
                     filledTensor(b, loc, outShape, et, 0.0),
                     axesMap(ctx, nl, 0, 3 + ns));
  return reshapeTo(b, loc, dw, cast<RankedTensorType>(op.getType()).getShape());
}

} // namespace

void populateConvolutionPatterns(RewritePatternSet &patterns) {
  addLowerings(patterns, lowerConvolution, lowerDeconvolution,
               lowerConvolutionGradData, lowerConvolutionGradWeight);
}

} // namespace mxc::lowering
