// SPDX-License-Identifier: Apache-2.0
// ONNX's sampling operators. GridSample (opset 16, 4-D): each output pixel
// reads the input at the grid's normalized (x, y), nearest, bilinear (4
// taps) or bicubic (16 taps), with zeros, border or reflection padding, as
// PyTorch's grid_sample computes it. RoiAlign: each region's bins average
// (or take the largest of) a fixed grid of bilinear samples, as ONNX
// Runtime computes them. Each tap is one gather of the input's flattened
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
    Value cx =
        im.scalar(im.scalar(x, "maximum", 0.0), "minimum", double(w - 1));
    Value cy =
        im.scalar(im.scalar(y, "maximum", 0.0), "minimum", double(h - 1));
    Value flat = add(im.scalar(cy, "mul", double(w)), cx);
    Value idx = im.reshape(im.castTo(flat, TP::INT64), {n, 1, ho * wo});
    idx = im.op("mx.broadcast_to", idx,
                {im.na("shape", im.arr({n, c, ho * wo}))});
    Value v =
        im.op("mx.gather_elements", {data, idx}, {im.na("axis", im.i64(2))});
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
    return im.fail(
        "X must be (N, C, H, W) and grid (N, H_out, W_out, 2), got " +
        shapeText(xs) + " and " + shapeText(gs));
  if (failed(im.requireStatic(0, "X")))
    return failure();
  if (failed(im.requireStatic(1, "grid")))
    return failure();
  if (failed(im.requireFloat(0)) || failed(im.requireFloat(1)))
    return failure();
  std::string mode = im.attrStr("mode", "bilinear");
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return im.fail("mode '" + mode +
                   "' is not one of bilinear, nearest and bicubic");
  Sampler s{im, im.type(0), im.attrStr("padding_mode", "zeros"),
            im.attrInt("align_corners", 0) != 0};
  if (s.padding != "zeros" && s.padding != "border" &&
      s.padding != "reflection")
    return im.fail("padding_mode '" + s.padding +
                   "' is not one of zeros, border and reflection");
  s.n = xs[0], s.c = xs[1], s.h = xs[2], s.w = xs[3], s.ho = gs[1],
  s.wo = gs[2];
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
      Value ex = im.scalar(fx, "sub", 1.0, true),
            ey = im.scalar(fy, "sub", 1.0, true);
      accumulate(s.tap(x0, y0, s.mul(ex, ey)));
      accumulate(s.tap(x1, y0, s.mul(fx, ey)));
      accumulate(s.tap(x0, y1, s.mul(ex, fy)));
      accumulate(s.tap(x1, y1, s.mul(fx, fy)));
    }
  }
  return im.out(0, im.reshape(sum, {s.n, s.c, s.ho, s.wo}));
}

/// RoiAlign with a fixed sampling_ratio: per region (R), sample rows
/// (out_h x ratio) and columns (out_w x ratio) at run-time coordinates, four
/// taps each, then the mean (or max) over each bin's ratio x ratio samples.
LogicalResult importRoiAlign(Importer &im, StringRef) {
  auto xs = im.shape(0), rs = im.shape(1);
  if (xs.size() != 4 || rs.size() != 2 || rs[1] != 4 ||
      im.shape(2) != std::vector<int64_t>{rs[0]})
    return im.fail("X must be (N, C, H, W), rois (R, 4) and batch_indices (R), "
                   "got " +
                   shapeText(xs) + ", " + shapeText(rs) + " and " +
                   shapeText(im.shape(2)));
  if (failed(im.requireStatic(0, "X")))
    return failure();
  if (ShapedType::isDynamic(rs[0]))
    return im.fail("the number of regions must be static");
  if (failed(im.requireFloat(0)))
    return failure();
  std::string mode = im.attrStr("mode", "avg");
  if (mode != "avg" && mode != "max")
    return im.fail("mode '" + mode + "' is not one of avg and max");
  // RoiAlign-10 had no half-pixel shift: output_half_pixel, its default.
  std::string coords =
      im.attrStr("coordinate_transformation_mode",
                 im.opset < 16 ? "output_half_pixel" : "half_pixel");
  if (coords != "half_pixel" && coords != "output_half_pixel")
    return im.fail("coordinate_transformation_mode '" + coords +
                   "' is not one of half_pixel and output_half_pixel");
  int64_t oh = im.attrInt("output_height", 1),
          ow = im.attrInt("output_width", 1);
  int64_t ratio = im.attrInt("sampling_ratio", 0);
  double scale = im.attrFloat("spatial_scale", 1.0);
  if (oh < 1 || ow < 1 || oh * ow > (int64_t(1) << 24))
    return im.fail("output_height and output_width must be positive");
  if (ratio <= 0)
    return im.fail("sampling_ratio " + Twine(ratio) +
                   " (adaptive, from each region's size) is not supported; "
                   "give a positive sampling_ratio");
  int32_t type = im.type(0);
  int64_t r = rs[0], c = xs[1], h = xs[2], w = xs[3];
  Sampler s{im, type, "zeros", false, r, c, h, w, oh * ratio, ow * ratio};
  // Each region's planes: (R, C, H * W).
  Value planes =
      im.op("mx.gather", {im.val(0), im.castTo(im.val(2), TP::INT64)},
            {im.na("axis", im.i64(0))});
  s.data = im.reshape(planes, {r, c, h * w});
  Value rois = im.castTo(im.val(1), type);
  auto corner = [&](int64_t k) { // (R, 1): rois[:, k] scaled and shifted
    Value v = im.op(
        "mx.slice", rois,
        {im.na("begin", im.arr({0, k})), im.na("end", im.arr({r, k + 1}))});
    v = im.scalar(v, "mul", scale);
    return coords == "half_pixel" ? im.scalar(v, "sub", 0.5) : v;
  };
  auto samples = [&](Value start, Value end, int64_t bins, int64_t size,
                     bool alongRows) {
    Value extent = s.sub(end, start);
    if (coords == "output_half_pixel")
      extent = im.scalar(extent, "maximum", 1.0);
    Value bin = im.scalar(extent, "div", double(bins));
    // start + (bin index + (sample + 0.5) / ratio) * bin, per region.
    Const offsets(type, {1, bins * ratio});
    for (int64_t b = 0; b < bins; ++b)
      for (int64_t k = 0; k < ratio; ++k)
        offsets.set(b * ratio + k, b + (k + 0.5) / double(ratio));
    Value v = s.add(start, s.mul(im.param(offsets, "offsets"), bin));
    // ONNX Runtime's rules: outside [-1, size] reads 0; below 0 is 0; at
    // or past the last pixel, the last pixel.
    Value valid = s.between(v, -1.0, double(size));
    v = im.scalar(v, "maximum", 0.0);
    Value low = im.unary(v, "floor");
    Value atEnd = im.compare(low, s.cst(double(size - 1)), "greater_equal");
    low = im.where(atEnd, s.cst(double(size - 1)), low);
    v = im.where(atEnd, low, v);
    Value high =
        im.scalar(im.scalar(low, "add", 1.0), "minimum", double(size - 1));
    Value frac = s.sub(v, low);
    std::vector<int64_t> shape = alongRows
                                     ? std::vector<int64_t>{r, bins * ratio, 1}
                                     : std::vector<int64_t>{r, 1, bins * ratio};
    auto put = [&](Value x) { return im.reshape(x, shape); };
    return std::array<Value, 5>{put(low), put(high), put(frac),
                                put(im.scalar(frac, "sub", 1.0, true)),
                                put(im.castTo(valid, type))};
  };
  auto [y0, y1, ly, hy, vy] = samples(corner(1), corner(3), oh, h, true);
  auto [x0, x1, lx, hx, vx] = samples(corner(0), corner(2), ow, w, false);
  Value valid = s.mul(vy, vx);
  SmallVector<Value, 4> taps = {s.tap(x0, y0, s.mul(s.mul(hy, hx), valid)),
                                s.tap(x1, y0, s.mul(s.mul(hy, lx), valid)),
                                s.tap(x0, y1, s.mul(s.mul(ly, hx), valid)),
                                s.tap(x1, y1, s.mul(s.mul(ly, lx), valid))};
  Value v = taps[0];
  for (int k = 1; k < 4; ++k)
    v = mode == "avg" ? s.add(v, taps[k]) : im.binary(v, taps[k], "maximum");
  v = im.reshape(v, {r, c, oh, ratio, ow, ratio});
  v = mode == "avg"
          ? im.op("mx.reduce", v,
                  {im.na("op", im.str("mean")), im.na("axis", im.arr({3, 5})),
                   im.na("keepdims", im.boolean(false))})
          : im.op("mx.reduce", v,
                  {im.na("op", im.str("max")), im.na("axis", im.arr({3, 5})),
                   im.na("keepdims", im.boolean(false))});
  return im.out(0, im.reshape(v, {r, c, oh, ow}));
}

} // namespace mxc::onnx
