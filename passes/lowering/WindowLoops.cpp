// SPDX-License-Identifier: Apache-2.0
// The window geometry of WindowLoops.h: compile-time arithmetic on static
// shapes, and the affine maps of a pooling loop nest.
#include "passes/lowering/WindowLoops.h"
#include "passes/lowering/LinalgBuilders.h"

using namespace mlir;

namespace mxc::lowering {

/// `v`, or `n` times `dflt` when the op left it out.
static SmallVector<int64_t> orDefault(ArrayRef<int64_t> v, size_t n,
                                      int64_t dflt) {
  return v.empty() ? SmallVector<int64_t>(n, dflt) : SmallVector<int64_t>(v);
}

WindowGeometry::WindowGeometry(ArrayRef<int64_t> kernel,
                               ArrayRef<int64_t> stride,
                               ArrayRef<int64_t> dilate, ArrayRef<int64_t> pad)
    : kernel(kernel), stride(orDefault(stride, kernel.size(), 1)),
      dilate(orDefault(dilate, kernel.size(), 1)),
      pad(orDefault(pad, kernel.size(), 0)) {}

SmallVector<int64_t>
WindowGeometry::highPadding(ArrayRef<int64_t> inSpatial,
                            ArrayRef<int64_t> outSpatial) const {
  SmallVector<int64_t> high(numSpatial());
  for (unsigned s = 0; s < numSpatial(); ++s)
    high[s] =
        std::max<int64_t>(reach(s, outSpatial[s]) - inSpatial[s] - pad[s], 0);
  return high;
}

/// The spatial extents of `x` (N, C, S...).
static ArrayRef<int64_t> spatialShape(Value x) {
  return tensorType(x).getShape().drop_front(2);
}

Value WindowGeometry::padForWindows(OpBuilder &b, Location loc, Value x,
                                    ArrayRef<int64_t> outSpatial,
                                    Value pad) const {
  return padAxes(b, loc, x, 2, this->pad,
                 highPadding(spatialShape(x), outSpatial), pad);
}

Value WindowGeometry::padForWindows(OpBuilder &b, Location loc, Value x,
                                    ArrayRef<int64_t> outSpatial,
                                    double value) const {
  return padAxesIfAny(b, loc, x, 2, pad,
                      highPadding(spatialShape(x), outSpatial), value);
}

SmallVector<int64_t> WindowGeometry::windowCounts(ArrayRef<int64_t> inSpatial,
                                                  ArrayRef<int64_t> outSpatial,
                                                  bool countIncludePad) const {
  int64_t positions = 1;
  for (int64_t e : outSpatial)
    positions *= e;
  SmallVector<int64_t> counts;
  for (int64_t p = 0; p < positions; ++p) {
    int64_t rest = p, count = 1;
    for (int s = numSpatial() - 1; s >= 0; --s) {
      int64_t o = rest % outSpatial[s];
      rest /= outSpatial[s];
      int64_t in = inSpatial[s];
      int64_t start = o * stride[s] - pad[s];
      int64_t end = std::min(start + kernel[s], in + pad[s]);
      if (!countIncludePad) {
        start = std::max<int64_t>(start, 0);
        end = std::min(end, in);
      }
      count *= std::max<int64_t>(end - start, 1);
    }
    counts.push_back(count);
  }
  return counts;
}

PoolingLoops poolingLoops(MLIRContext *ctx, const WindowGeometry &geo) {
  unsigned ns = geo.numSpatial(), nLoops = 2 + 2 * ns;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> xe = {d(0), d(1)}, ke, ye = {d(0), d(1)};
  for (unsigned s = 0; s < ns; ++s) {
    xe.push_back(geo.tap(s, d(2 + s), d(2 + ns + s)));
    ke.push_back(d(2 + ns + s));
    ye.push_back(d(2 + s));
  }
  return {loopMap(ctx, nLoops, xe), loopMap(ctx, nLoops, ke),
          loopMap(ctx, nLoops, ye), iterators(2 + ns, ns)};
}

} // namespace mxc::lowering
