// SPDX-License-Identifier: Apache-2.0
// ONNX's Resize and Upsample. Every mode is separable: each resized axis is
// a sum over taps of the input gathered along that axis at per-output
// indices, weighed by per-output coefficients (nearest: one tap, unweighed;
// linear: two; cubic: four). The indices and weights are computed on the
// host when the axis's scale (and region of interest) are compile-time
// constants, the case of exported models; when they are graph inputs (a
// plain user's run of the ONNX suite), the same formulas are built as mx ops
// on float64 vectors of the output's length, cheap beside the gathers.
#include "compiler/frontends/onnx/ImporterImpl.h"

#include <numeric>

#include <cmath>

using namespace mlir;

namespace mxc::onnx {
namespace {

//===----------------------------------------------------------------------===//
// The numbers of the formulas: doubles on the host, or run-time float64
// tensors (Rt) whose arithmetic builds mx ops.
//===----------------------------------------------------------------------===//

struct Rt {
  Importer *im;
  Value v;
};
struct RtBool {
  Importer *im;
  Value v;
};

Rt lift(Importer *im, double c) {
  return {im, im->scalarParam(TP::DOUBLE, c, "c")};
}
Rt operator+(Rt a, Rt c) { return {a.im, a.im->binary(a.v, c.v, "add")}; }
Rt operator-(Rt a, Rt c) { return {a.im, a.im->binary(a.v, c.v, "sub")}; }
Rt operator*(Rt a, Rt c) { return {a.im, a.im->binary(a.v, c.v, "mul")}; }
Rt operator/(Rt a, Rt c) { return {a.im, a.im->binary(a.v, c.v, "div")}; }
Rt operator+(Rt a, double c) { return {a.im, a.im->scalar(a.v, "add", c)}; }
Rt operator-(Rt a, double c) { return {a.im, a.im->scalar(a.v, "sub", c)}; }
Rt operator*(Rt a, double c) { return {a.im, a.im->scalar(a.v, "mul", c)}; }
Rt operator/(Rt a, double c) { return {a.im, a.im->scalar(a.v, "div", c)}; }
Rt operator*(double c, Rt a) { return a * c; }
Rt operator-(double c, Rt a) {
  return {a.im, a.im->scalar(a.v, "sub", c, /*reverse=*/true)};
}
Rt ceilOf(Rt a) { return {a.im, a.im->unary(a.v, "ceil")}; }
Rt maxOf(Rt a, double c) { return {a.im, a.im->scalar(a.v, "maximum", c)}; }
Rt minOf(Rt a, double c) { return {a.im, a.im->scalar(a.v, "minimum", c)}; }
RtBool compare(Rt a, double c, StringRef fn) {
  return {a.im, a.im->compare(a.v, lift(a.im, c).v, fn)};
}
RtBool less(Rt a, double c) { return compare(a, c, "less"); }
RtBool greater(Rt a, double c) { return compare(a, c, "greater"); }
RtBool greaterEqual(Rt a, double c) { return compare(a, c, "greater_equal"); }
RtBool equal(Rt a, double c) { return compare(a, c, "equal"); }
RtBool operator||(RtBool a, RtBool c) {
  return {a.im, a.im->binary(a.v, c.v, "or")};
}
Rt asNumber(RtBool a) { return {a.im, a.im->castTo(a.v, TP::DOUBLE)}; }

double ceilOf(double a) { return std::ceil(a); }
double maxOf(double a, double c) { return std::max(a, c); }
double minOf(double a, double c) { return std::min(a, c); }
bool less(double a, double c) { return a < c; }
bool greater(double a, double c) { return a > c; }
bool greaterEqual(double a, double c) { return a >= c; }
bool equal(double a, double c) { return a == c; }
double asNumber(bool a) { return a ? 1.0 : 0.0; }

//===----------------------------------------------------------------------===//
// The formulas (ONNX Resize-13's, as its reference implementation computes
// them), for one axis.
//===----------------------------------------------------------------------===//

enum class Interp { Nearest, Linear, Cubic };

struct Mode {
  Interp interp = Interp::Nearest;
  std::string coordinates = "half_pixel", nearest = "round_prefer_floor";
  double cubicA = -0.75;
  bool excludeOutside = false;
};

/// One axis: its input and output extents, its scale and the region of
/// interest's start and end on it (tf_crop_and_resize).
template <class T> struct Axis {
  int64_t in = 1, out = 1;
  T scale, roiStart, roiEnd;
};

/// The input coordinate of output coordinate `x`.
template <class T>
T originalCoordinate(T x, const Axis<T> &a, const std::string &mode) {
  double last = double(a.in - 1);
  if (mode == "half_pixel")
    return (x + 0.5) / a.scale - 0.5;
  if (mode == "pytorch_half_pixel")
    return a.out > 1 ? (x + 0.5) / a.scale - 0.5 : x * 0.0 - 0.5;
  if (mode == "align_corners") // the scaled width, as a float (the reference's)
    return a.out > 1 ? x * last / (a.scale * double(a.in) - 1.0) : x * 0.0;
  if (mode == "asymmetric")
    return x / a.scale;
  if (mode == "tf_half_pixel_for_nn")
    return (x + 0.5) / a.scale;
  // tf_crop_and_resize
  T start = a.roiStart * last;
  if (a.out > 1)
    return x * (a.roiEnd - a.roiStart) * last / (a.scale * double(a.in) - 1.0) +
           start;
  return x * 0.0 + (a.roiEnd - a.roiStart) * last / 2.0 + start;
}

/// The taps of one output coordinate (or of a vector of them): input indices
/// (clamped to the axis, as the reference's edge padding does) and weights
/// (none for nearest).
template <class T> struct Taps {
  std::vector<T> index, weight;
};

template <class T> Taps<T> tapsAt(T xo, int64_t extent, const Mode &m) {
  // The input index left of xo, and xo's distance from it, in (0, 1]: an
  // integral xo takes its own index as the right-hand neighbour.
  T base = ceilOf(xo) - 1.0;
  T ratio = xo - base;
  double last = double(extent - 1);
  Taps<T> t;
  if (m.interp == Interp::Nearest) {
    T right;
    if (m.nearest == "round_prefer_floor")
      right = asNumber(greater(ratio, 0.5));
    else if (m.nearest == "round_prefer_ceil")
      right = asNumber(greaterEqual(ratio, 0.5));
    else if (m.nearest == "floor")
      right = asNumber(equal(ratio, 1.0));
    else // ceil
      right = ratio * 0.0 + 1.0;
    t.index.push_back(minOf(maxOf(base + right, 0.0), last));
    return t;
  }
  if (m.interp == Interp::Linear) {
    t.index = {base, base + 1.0};
    t.weight = {1.0 - ratio, ratio};
  } else {
    double a = m.cubicA;
    T r1 = ratio + 1.0, s = 1.0 - ratio, s1 = s + 1.0;
    t.index = {base - 1.0, base, base + 1.0, base + 2.0};
    t.weight = {((a * r1 - 5.0 * a) * r1 + 8.0 * a) * r1 - 4.0 * a,
                ((a + 2.0) * ratio - (a + 3.0)) * ratio * ratio + 1.0,
                ((a + 2.0) * s - (a + 3.0)) * s * s + 1.0,
                ((a * s1 - 5.0 * a) * s1 + 8.0 * a) * s1 - 4.0 * a};
  }
  if (m.excludeOutside) {
    for (size_t k = 0; k < t.index.size(); ++k)
      t.weight[k] = t.weight[k] * (1.0 - asNumber(less(t.index[k], 0.0) ||
                                                  greater(t.index[k], last)));
    T sum = t.weight[0];
    for (size_t k = 1; k < t.weight.size(); ++k)
      sum = sum + t.weight[k];
    for (T &w : t.weight)
      w = w / sum;
  }
  for (T &i : t.index)
    i = minOf(maxOf(i, 0.0), last);
  return t;
}

/// Whether `xo` lies outside the axis (tf_crop_and_resize's extrapolation).
template <class T> auto outside(T xo, int64_t extent) {
  return less(xo, 0.0) || greater(xo, double(extent - 1));
}

//===----------------------------------------------------------------------===//
// Building the result
//===----------------------------------------------------------------------===//

/// One axis's taps as values: int64 index vectors, weights of the data's
/// element type shaped to broadcast along the axis, and (tf_crop_and_resize)
/// a bool mask of the outputs outside the input.
struct AxisValues {
  SmallVector<Value> index, weight;
  Value outside;
  bool identity = false;
};

std::vector<int64_t> alongAxis(int64_t rank, int64_t axis, int64_t n) {
  std::vector<int64_t> s(rank, 1);
  s[axis] = n;
  return s;
}

/// The taps of an axis whose scale and region are known here.
AxisValues hostTaps(Importer &im, const Axis<double> &a, const Mode &m,
                    int32_t type, int64_t rank, int64_t axis) {
  size_t n = m.interp == Interp::Nearest  ? 1
             : m.interp == Interp::Linear ? 2
                                          : 4;
  std::vector<std::vector<int64_t>> index(n, std::vector<int64_t>(a.out));
  std::vector<Const> weight;
  auto shape = alongAxis(rank, axis, a.out);
  for (size_t k = 0; k < n && m.interp != Interp::Nearest; ++k)
    weight.emplace_back(type, shape);
  Const mask(TP::BOOL, shape);
  bool identity = a.out == a.in, anyOutside = false;
  for (int64_t x = 0; x < a.out; ++x) {
    double xo = originalCoordinate(double(x), a, m.coordinates);
    Taps<double> t = tapsAt(xo, a.in, m);
    // An identity axis takes input x, whole, for output x.
    double own = 0;
    bool others = false;
    for (size_t k = 0; k < n; ++k) {
      index[k][x] = (int64_t)t.index[k];
      double w = t.weight.empty() ? 1.0 : t.weight[k];
      if (!t.weight.empty())
        weight[k].set(x, w);
      if (index[k][x] == x)
        own += w;
      else
        others |= w != 0.0;
    }
    identity &= own == 1.0 && !others;
    if (m.coordinates == "tf_crop_and_resize" && outside(xo, a.in)) {
      mask.setInt(x, 1);
      anyOutside = true;
    }
  }
  AxisValues v;
  v.identity = identity && !anyOutside;
  if (v.identity)
    return v;
  for (size_t k = 0; k < n; ++k) {
    v.index.push_back(im.param(
        Const::ofInts(index[k], std::vector<int64_t>{a.out}), "index"));
    if (!weight.empty())
      v.weight.push_back(im.param(weight[k], "weight"));
  }
  if (anyOutside)
    v.outside = im.param(mask, "outside");
  return v;
}

/// The taps of an axis whose scale or region is known only at run time.
AxisValues runTimeTaps(Importer &im, const Axis<Rt> &a, const Mode &m,
                       int32_t type, int64_t rank, int64_t axis) {
  Const iota(TP::DOUBLE, {a.out});
  for (int64_t x = 0; x < a.out; ++x)
    iota.set(x, double(x));
  Rt x{&im, im.param(iota, "coordinate")};
  Rt xo = originalCoordinate(x, a, m.coordinates);
  Taps<Rt> t = tapsAt(xo, a.in, m);
  auto shape = alongAxis(rank, axis, a.out);
  AxisValues v;
  for (Rt &i : t.index)
    v.index.push_back(im.castTo(i.v, TP::INT64));
  for (Rt &w : t.weight)
    v.weight.push_back(im.reshape(im.castTo(w.v, type), shape));
  if (m.coordinates == "tf_crop_and_resize")
    v.outside = im.reshape(outside(xo, a.in).v, shape);
  return v;
}

/// `x` resized along `axis` by `taps`.
Value resizeAxis(Importer &im, Value x, int64_t axis, const AxisValues &taps) {
  Value sum;
  for (size_t k = 0; k < taps.index.size(); ++k) {
    Value g =
        im.op("mx.gather", {x, taps.index[k]}, {im.na("axis", im.i64(axis))});
    if (!taps.weight.empty())
      g = im.binary(g, taps.weight[k], "mul");
    sum = k ? im.binary(sum, g, "add") : g;
  }
  return sum;
}

/// Reads the mode attributes of Resize-11 and later.
LogicalResult readMode(Importer &im, Mode &m) {
  std::string interp = im.attrStr("mode", "nearest");
  if (interp == "linear")
    m.interp = Interp::Linear;
  else if (interp == "cubic")
    m.interp = Interp::Cubic;
  else if (interp != "nearest")
    return im.fail("mode '" + interp +
                   "' is not one of nearest, linear and cubic");
  m.coordinates = im.attrStr("coordinate_transformation_mode", "half_pixel");
  static const char *coordinates[] = {
      "half_pixel", "pytorch_half_pixel",   "align_corners",
      "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  if (!llvm::is_contained(coordinates, m.coordinates))
    return im.fail("coordinate_transformation_mode '" + m.coordinates +
                   "' is not one of half_pixel, pytorch_half_pixel, "
                   "align_corners, asymmetric, tf_half_pixel_for_nn and "
                   "tf_crop_and_resize");
  m.nearest = im.attrStr("nearest_mode", "round_prefer_floor");
  static const char *nearest[] = {"round_prefer_floor", "round_prefer_ceil",
                                  "floor", "ceil"};
  if (!llvm::is_contained(nearest, m.nearest))
    return im.fail("nearest_mode '" + m.nearest +
                   "' is not one of round_prefer_floor, round_prefer_ceil, "
                   "floor and ceil");
  m.cubicA = im.attrFloat("cubic_coeff_a", -0.75);
  m.excludeOutside = im.attrInt("exclude_outside", 0) != 0;
  return success();
}

/// Resizes input 0 by `scales` (or to `sizes`, whichever is given; a null
/// input index is absent), with region of interest `roiInput`.
LogicalResult resize(Importer &im, const Mode &m, int scalesInput,
                     int sizesInput, int roiInput,
                     const std::vector<double> *scaleAttr = nullptr) {
  auto in = im.shape(0);
  int64_t rank = in.size();
  for (int64_t d : in)
    if (ShapedType::isDynamic(d))
      return im.fail("input 0 has a dynamic extent (shape " + shapeText(in) +
                     "); Resize needs static input shapes");
  int32_t type = im.type(0);
  if (m.interp != Interp::Nearest && !isFloatType(type))
    return im.fail("input 0 has element type " + typeName(type) +
                   "; linear and cubic modes need floating-point data");
  auto given = [&](int i) {
    return i >= 0 && im.has(i) && numElements(im.shape(i)) > 0;
  };
  bool bySizes = given(sizesInput);
  if (!scaleAttr && bySizes == given(scalesInput))
    return im.fail("exactly one of scales and sizes must be given");
  int shapeInput = bySizes ? sizesInput : scalesInput;
  if (shapeInput >= 0 && im.shape(shapeInput) != std::vector<int64_t>{rank})
    return im.fail(Twine(bySizes ? "sizes" : "scales") + " has shape " +
                   shapeText(im.shape(shapeInput)) + "; expected (" +
                   Twine(rank) + ") for input 0's rank");

  // The region of interest, [starts..., ends...] (tf_crop_and_resize only).
  bool crop = m.coordinates == "tf_crop_and_resize";
  std::vector<double> roi(2 * rank, 1.0);
  std::fill(roi.begin(), roi.begin() + rank, 0.0);
  bool runTimeRoi = false;
  if (crop) {
    if (!im.has(roiInput) ||
        im.shape(roiInput) != std::vector<int64_t>{2 * rank})
      return im.fail("tf_crop_and_resize needs roi of shape (" +
                     Twine(2 * rank) + ")");
    if (const Const *c = im.cst(roiInput))
      for (int64_t i = 0; i < 2 * rank; ++i)
        roi[i] = c->f(i);
    else
      runTimeRoi = true;
  }
  // Each axis's scale where known here, and the output's extents: from
  // sizes, from the scales, or as declared when either is a graph input.
  std::vector<int64_t> out;
  std::vector<double> scales(rank, 1.0);
  bool runTimeScales = false;
  const Const *c = shapeInput >= 0 ? im.cst(shapeInput) : nullptr;
  if (scaleAttr) {
    if ((int64_t)scaleAttr->size() != rank)
      return im.fail("scales has " + Twine(scaleAttr->size()) +
                     " values; expected " + Twine(rank));
    scales = *scaleAttr;
  } else if (c && bySizes) {
    out = c->intValues();
  } else if (c) {
    for (int64_t i = 0; i < rank; ++i)
      scales[i] = c->f(i);
  } else {
    runTimeScales = !bySizes;
  }
  if (!bySizes && !runTimeScales)
    for (int64_t i = 0; i < rank; ++i)
      if (!(scales[i] > 0))
        return im.fail("scales[" + Twine(i) +
                       "] = " + std::to_string(scales[i]) + " is not positive");
  if (out.empty() && !bySizes && !runTimeScales && !runTimeRoi) {
    for (int64_t i = 0; i < rank; ++i)
      out.push_back((int64_t)std::floor(double(in[i]) *
                                        (roi[rank + i] - roi[i]) * scales[i]));
  } else if (out.empty()) {
    int known = !c && shapeInput >= 0 ? shapeInput : roiInput;
    auto declared = im.declaredShape(0, known,
                                     known == roiInput ? "roi"
                                     : bySizes         ? "sizes"
                                                       : "scales");
    if (failed(declared))
      return failure();
    if ((int64_t)declared->size() != rank)
      return im.fail("the declared output shape " + shapeText(*declared) +
                     " does not have input 0's rank " + Twine(rank));
    out = *declared;
  }
  for (int64_t i = 0; i < rank; ++i) {
    if (out[i] < 0)
      return im.fail("output extent " + Twine(out[i]) + " on axis " + Twine(i) +
                     " is negative");
    if (bySizes)
      scales[i] = double(out[i]) / double(in[i]);
  }
  for (int64_t i = 0; i < rank; ++i)
    if (out[i] > (int64_t(1) << 31))
      return im.fail("output extent " + Twine(out[i]) + " on axis " + Twine(i) +
                     " is too large");
  if (numElements(out) == 0)
    return im.out(0, im.emptyConstant(RankedTensorType::get(
                         out, elementType(type, &im.ctx))));

  // The axes that shrink first, those that grow most last, and among equal
  // ratios the inner ones first: each pass costs its output's size, and
  // along the innermost axis each element is a gather where a pass along
  // an outer axis moves whole rows (its row index loaded once a row,
  // mxc-hoist-constant-loads), so lraspp's 28x28 -> 224x224 logits gather
  // over 28 rows' output, not 224.
  std::vector<int64_t> order(rank);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    double ga = double(out[a]) / double(std::max<int64_t>(in[a], 1));
    double gb = double(out[b]) / double(std::max<int64_t>(in[b], 1));
    return ga != gb ? ga < gb : a > b;
  });
  Value y = im.val(0), mask;
  for (int64_t i : order) {
    AxisValues taps;
    if (!runTimeScales && !runTimeRoi) {
      Axis<double> a{in[i], out[i], scales[i], roi[i], roi[rank + i]};
      taps = hostTaps(im, a, m, type, rank, i);
    } else {
      auto scalarOf = [&](int input, int64_t k) {
        Value v = im.castTo(im.val(input), TP::DOUBLE);
        return Rt{&im, im.reshape(im.elementOf(v, k), {})};
      };
      Axis<Rt> a;
      a.in = in[i];
      a.out = out[i];
      a.scale = runTimeScales ? scalarOf(scalesInput, i) : lift(&im, scales[i]);
      a.roiStart = runTimeRoi ? scalarOf(roiInput, i) : lift(&im, roi[i]);
      a.roiEnd =
          runTimeRoi ? scalarOf(roiInput, rank + i) : lift(&im, roi[rank + i]);
      taps = runTimeTaps(im, a, m, type, rank, i);
    }
    if (taps.identity)
      continue;
    y = resizeAxis(im, y, i, taps);
    if (taps.outside)
      mask = mask ? im.binary(mask, taps.outside, "or") : taps.outside;
    if (!y)
      return failure();
  }
  if (mask) {
    double fill = im.attrFloat("extrapolation_value", 0.0);
    y = im.where(mask, im.scalarParam(type, fill, "extrapolation"), y);
  } else {
    im.ignoreAttrs({"extrapolation_value"});
  }
  return im.out(0, y);
}

} // namespace

LogicalResult importResize(Importer &im, StringRef) {
  Mode m;
  if (im.opset < 11) {
    // Resize-10: Upsample's semantics (asymmetric coordinates, nearest
    // rounding down), scales the second input.
    std::string interp = im.attrStr("mode", "nearest");
    if (interp != "nearest" && interp != "linear")
      return im.fail("mode '" + interp + "' is not one of nearest and linear");
    m.interp = interp == "linear" ? Interp::Linear : Interp::Nearest;
    m.coordinates = "asymmetric";
    m.nearest = "floor";
    return resize(im, m, /*scales=*/1, /*sizes=*/-1, /*roi=*/-1);
  }
  if (failed(readMode(im, m)))
    return failure();
  return resize(im, m, /*scales=*/2, /*sizes=*/3, /*roi=*/1);
}

LogicalResult importUpsample(Importer &im, StringRef) {
  Mode m;
  std::string interp = im.attrStr("mode", "nearest");
  if (interp != "nearest" && interp != "linear" && interp != "bilinear")
    return im.fail("mode '" + interp + "' is not one of nearest and linear");
  m.interp = interp == "nearest" ? Interp::Nearest : Interp::Linear;
  m.coordinates = "asymmetric";
  m.nearest = "floor";
  if (im.opset < 9) {
    auto *a = im.attr("scales");
    if (!a)
      return im.fail("attribute scales is required");
    std::vector<double> s(a->floats().begin(), a->floats().end());
    return resize(im, m, -1, -1, -1, &s);
  }
  return resize(im, m, /*scales=*/1, /*sizes=*/-1, /*roi=*/-1);
}

} // namespace mxc::onnx
