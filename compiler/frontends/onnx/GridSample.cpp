// SPDX-License-Identifier: Apache-2.0
// ONNX's GridSample (opset 16, 4-D): each output pixel reads the input at
// the grid's normalized (x, y), nearest, bilinear (4 taps) or bicubic (16
// taps), with zeros, border or reflection padding, as PyTorch's
// grid_sample computes it. Each tap is one gather of the input's flattened
// planes at run-time indices, weighed, and masked where it falls outside.
#include "compiler/frontends/onnx/ImporterImpl.h"

using namespace mlir;

namespace mxc::onnx {

namespace {

struct Sampler {
  Importer &im;
  int32_t type;
  std::string padding;
  bool alignCorners;
  int64_t n, c, h, w, ho, wo;
  Value data; // (n, c, h * w)

  Value cst(double v) { return im.scalarParam(type, v, "c"); }
  Value add(Value a, Value b) { return im.binary(a, b, "add"); }
  Value mul(Value a, Value b) { return im.binary(a, b, "mul"); }
  Value sub(Value a, Value b) { return im.binary(a, b, "sub"); }
  Value between(Value v, double lo, double hi) {
    return im.binary(im.compare(v, cst(lo), "greater_equal"),
                     im.compare(v, cst(hi), "less_equal"), "and");
  }

  /// Normalized [-1, 1] to pixel coordinates over `size` pixels.
  Value unnormalize(Value g, int64_t size) {
    if (alignCorners) // (g + 1) / 2 * (size - 1)
      return im.scalar(im.scalar(g, "add", 1.0), "mul", 0.5 * double(size - 1));
    // ((g + 1) * size - 1) / 2
    Value scaled = im.scalar(im.scalar(g, "add", 1.0), "mul", double(size));
    return im.scalar(im.scalar(scaled, "sub", 1.0), "mul", 0.5);
  }

  /// The coordinate folded back into the input by the padding mode.
  Value pad(Value x, int64_t size) {
    double last = double(size - 1);
    if (padding == "border")
      return im.scalar(im.scalar(x, "maximum", 0.0), "minimum", last);
    if (padding != "reflection")
      return x;
    // Reflect over [lo, hi] ([0, size - 1], or [-0.5, size - 0.5] without
    // aligned corners), then clip.
    double lo = alignCorners ? 0.0 : -0.5, span = alignCorners ? last : size;
    if (span <= 0)
      return im.scalar(x, "mul", 0.0);
    Value d = im.unary(im.scalar(x, "sub", lo), "abs");
    Value flips = im.unary(im.scalar(d, "div", span), "floor");
    Value extra = sub(d, im.scalar(flips, "mul", span));
    Value even = im.compare(im.scalar(flips, "mod", 2.0), cst(0.0), "equal");
    Value r = im.where(even, im.scalar(extra, "add", lo),
                       im.scalar(extra, "sub", span + lo, /*reverse=*/true));
    return im.scalar(im.scalar(r, "maximum", 0.0), "minimum", last);
  }

  /// The input at integer coordinates (x, y) (float tensors of shape
  /// (n, ho, wo)), 0 outside, times `weight`: (n, c, ho * wo).
  Value tap(Value x, Value y, Value weight) {
    Value inside = im.binary(between(x, 0.0, double(w - 1)),
                             between(y, 0.0, double(h - 1)), "and");
    Value cx = im.scalar(im.scalar(x, "maximum", 0.0), "minimum", double(w - 1));
    Value cy = im.scalar(im.scalar(y, "maximum", 0.0), "minimum", double(h - 1));
    Value flat = add(im.scalar(cy, "mul", double(w)), cx);
    Value idx = im.reshape(im.castTo(flat, TP::INT64), {n, 1, ho * wo});
    idx = im.op("mx.broadcast_to", idx, {im.na("shape", im.arr({n, c, ho * wo}))});
    Value v = im.op("mx.gather_elements", {data, idx}, {im.na("axis", im.i64(2))});
    Value wt = im.where(inside, weight, cst(0.0));
    return mul(v, im.reshape(wt, {n, 1, ho * wo}));
  }

  /// PyTorch's cubic convolution weights (A = -0.75) at distance t in [0, 1).
  SmallVector<Value, 4> cubic(Value t) {
    const double a = -0.75;
    auto near = [&](Value s) { // ((a + 2) s - (a + 3)) s^2 + 1
      return im.scalar(
          mul(mul(im.scalar(im.scalar(s, "mul", a + 2), "sub", a + 3), s), s),
          "add", 1.0);
    };
    auto far = [&](Value s) { // ((a s - 5a) s + 8a) s - 4a
      Value p = im.scalar(im.scalar(s, "mul", a), "sub", 5 * a);
      p = im.scalar(mul(p, s), "add", 8 * a);
      return im.scalar(mul(p, s), "sub", 4 * a);
    };
    Value u = im.scalar(t, "sub", 1.0, /*reverse=*/true);
    return {far(im.scalar(t, "add", 1.0)), near(t), near(u),
            far(im.scalar(u, "add", 1.0))};
  }
};

} // namespace

LogicalResult importGridSample(Importer &im, StringRef) {
  auto xs = im.shape(0), gs = im.shape(1);
  if (xs.size() != 4 || gs.size() != 4 || gs[3] != 2 || gs[0] != xs[0])
    return im.fail("X must be (N, C, H, W) and grid (N, H_out, W_out, 2), got " +
                   shapeText(xs) + " and " + shapeText(gs));
  for (int64_t e : xs)
    if (ShapedType::isDynamic(e))
      return im.fail("X's extents must be static, got " + shapeText(xs));
  for (int64_t e : gs)
    if (ShapedType::isDynamic(e))
      return im.fail("grid's extents must be static, got " + shapeText(gs));
  if (failed(im.requireFloat(0)) || failed(im.requireFloat(1)))
    return failure();
  std::string mode = im.attrStr("mode", "bilinear");
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return im.fail("mode '" + mode + "' is not one of bilinear, nearest and bicubic");
  Sampler s{im, im.type(0), im.attrStr("padding_mode", "zeros"),
            im.attrInt("align_corners", 0) != 0};
  if (s.padding != "zeros" && s.padding != "border" && s.padding != "reflection")
    return im.fail("padding_mode '" + s.padding +
                   "' is not one of zeros, border and reflection");
  s.n = xs[0], s.c = xs[1], s.h = xs[2], s.w = xs[3], s.ho = gs[1], s.wo = gs[2];
  s.data = im.reshape(im.val(0), {s.n, s.c, s.h * s.w});
  Value grid = im.castTo(im.val(1), s.type);
  auto component = [&](int64_t k) {
    return im.reshape(im.op("mx.slice", grid,
                            {im.na("begin", im.arr({0, 0, 0, k})),
                             im.na("end", im.arr({s.n, s.ho, s.wo, k + 1}))}),
                      {s.n, s.ho, s.wo});
  };
  Value gx = s.unnormalize(component(0), s.w);
  Value gy = s.unnormalize(component(1), s.h);
  Value one = s.cst(1.0), sum;
  auto accumulate = [&](Value v) { sum = sum ? s.add(sum, v) : v; };
  if (mode == "bicubic") {
    // The taps around the unpadded coordinate, each folded by the padding.
    Value x0 = im.unary(gx, "floor"), y0 = im.unary(gy, "floor");
    auto wx = s.cubic(s.sub(gx, x0)), wy = s.cubic(s.sub(gy, y0));
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i)
        accumulate(s.tap(s.pad(im.scalar(x0, "add", i - 1.0), s.w),
                         s.pad(im.scalar(y0, "add", j - 1.0), s.h),
                         s.mul(wx[i], wy[j])));
  } else {
    gx = s.pad(gx, s.w);
    gy = s.pad(gy, s.h);
    if (mode == "nearest") {
      accumulate(s.tap(im.unary(gx, "round"), im.unary(gy, "round"), one));
    } else {
      Value x0 = im.unary(gx, "floor"), y0 = im.unary(gy, "floor");
      Value fx = s.sub(gx, x0), fy = s.sub(gy, y0);
      Value x1 = im.scalar(x0, "add", 1.0), y1 = im.scalar(y0, "add", 1.0);
      Value ex = im.scalar(fx, "sub", 1.0, true), ey = im.scalar(fy, "sub", 1.0, true);
      accumulate(s.tap(x0, y0, s.mul(ex, ey)));
      accumulate(s.tap(x1, y0, s.mul(fx, ey)));
      accumulate(s.tap(x0, y1, s.mul(ex, fy)));
      accumulate(s.tap(x1, y1, s.mul(fx, fy)));
    }
  }
  return im.out(0, im.reshape(sum, {s.n, s.c, s.ho, s.wo}));
}

} // namespace mxc::onnx
