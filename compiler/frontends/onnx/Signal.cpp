// SPDX-License-Identifier: Apache-2.0
// ONNX's signal operators: the Hann, Hamming and Blackman windows, built on
// the host (their values depend only on their length, which is the size
// input's value or, when that is a graph input, the declared output length);
// DFT and STFT as products with cosine and sine matrices computed on the
// host (in double) for the transform's length.
#include "compiler/frontends/onnx/ImporterImpl.h"

#include <cmath>

using namespace mlir;

namespace mxc::onnx {

/// a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), n in [0, size), N = size
/// (periodic) or size - 1 (symmetric).
LogicalResult importWindow(Importer &im, StringRef opType) {
  double a0 = 0.42, a1 = 0.5, a2 = 0.08; // Blackman
  if (opType == "HannWindow")
    a0 = 0.5, a1 = 0.5, a2 = 0.0;
  else if (opType == "HammingWindow")
    a0 = 25.0 / 46.0, a1 = 1.0 - a0, a2 = 0.0;
  int32_t type = (int32_t)im.attrInt("output_datatype", TP::FLOAT);
  if (!isFloatType(type) || !elementType(type, &im.ctx))
    return im.fail("output_datatype " + typeName(type) +
                   " is not a floating-point type mxc supports");
  bool periodic = im.attrInt("periodic", 1) != 0;
  if (numElements(im.shape(0)) != 1)
    return im.fail("size must be a scalar, got shape " +
                   shapeText(im.shape(0)));
  int64_t size;
  if (const Const *c = im.cst(0)) {
    size = c->i(0);
  } else {
    auto declared = im.declaredShape(0, 0, "size");
    if (failed(declared))
      return failure();
    if (declared->size() != 1)
      return im.fail("the declared shape " + shapeText(*declared) +
                     " is not a vector");
    size = (*declared)[0];
  }
  if (size < 0 || size > (int64_t(1) << 25))
    return im.fail("size " + Twine(size) + " is out of range [0, 2^25]");
  Const w(type, {size});
  double n = double(periodic ? size : size - 1);
  for (int64_t k = 0; k < size; ++k) {
    double t = 2.0 * M_PI * double(k) / n;
    w.set(k, a0 - a1 * std::cos(t) + a2 * std::cos(2.0 * t));
  }
  return im.outConst(0, std::move(w));
}

namespace {

/// The discrete Fourier transform of `x` along `axis` (not its last, which
/// holds 1 (real) or 2 (real, imaginary) components), zero-padded or cut to
/// `n` points, giving the first `bins` frequencies; the result's last axis
/// holds 2 components.
Value transform(Importer &im, Value x, int64_t axis, int64_t n, int64_t bins,
                bool inverse) {
  auto xs = cast<RankedTensorType>(x.getType()).getShape();
  int64_t rank = xs.size(), parts = xs.back();
  int32_t type = im.typeOf(Tensor{x, nullptr, nullptr});
  // Each component with the signal axis last: (..., n).
  std::vector<int64_t> perm, inversePerm(rank - 1);
  for (int64_t i = 0; i < rank - 1; ++i)
    if (i != axis)
      perm.push_back(i);
  perm.push_back(axis);
  for (int64_t i = 0; i < rank - 1; ++i)
    inversePerm[perm[i]] = i;
  std::vector<int64_t> partShape(xs.begin(), xs.end() - 1);
  auto component = [&](int64_t k) {
    std::vector<int64_t> b(rank, 0), e(xs.begin(), xs.end());
    b.back() = k, e.back() = k + 1;
    Value v =
        im.reshape(im.op("mx.slice", x,
                         {im.na("begin", im.arr(b)), im.na("end", im.arr(e))}),
                   partShape);
    v = im.op("mx.transpose", v, {im.na("axes", im.arr(perm))});
    int64_t have = xs[axis];
    if (have > n) {
      std::vector<int64_t> sb(rank - 1, 0), se;
      for (int64_t i : perm)
        se.push_back(xs[i]);
      se.back() = n;
      v = im.op("mx.slice", v,
                {im.na("begin", im.arr(sb)), im.na("end", im.arr(se))});
    } else if (have < n) {
      std::vector<int64_t> pads(2 * (rank - 1), 0);
      pads.back() = n - have;
      v = im.op("mx.pad", v, {im.na("pads", im.arr(pads))});
    }
    return v;
  };
  Const c(type, {n, bins}), sn(type, {n, bins});
  for (int64_t j = 0; j < n; ++j)
    for (int64_t k = 0; k < bins; ++k) {
      // 2 pi j k / n, its product reduced mod n first (exact for big n)
      double t = 2.0 * M_PI * double((j * k) % n) / double(n);
      c.set(j * bins + k, std::cos(t));
      sn.set(j * bins + k, std::sin(t));
    }
  Value cm = im.param(c, im.nodeName + "_cos"),
        sm = im.param(sn, im.nodeName + "_sin");
  auto mm = [&](Value a, Value b) { return im.op("mx.matmul", {a, b}); };
  Value re = component(0), rc = mm(re, cm), rs = mm(re, sm), yr, yi;
  if (parts == 2) {
    Value imag = component(1), ic = mm(imag, cm), is = mm(imag, sm);
    yr = im.binary(rc, is, inverse ? "sub" : "add");
    yi = im.binary(ic, rs, inverse ? "add" : "sub");
  } else {
    yr = rc;
    yi = inverse ? rs : im.unary(rs, "negative");
  }
  if (inverse) {
    yr = im.scalar(yr, "div", double(n));
    yi = im.scalar(yi, "div", double(n));
  }
  std::vector<int64_t> outShape;
  for (int64_t i : perm)
    outShape.push_back(xs[i]);
  outShape.back() = bins;
  outShape.push_back(1);
  auto back = [&](Value v) {
    v = im.reshape(v, outShape);
    std::vector<int64_t> p = inversePerm;
    p.push_back(rank - 1);
    return im.op("mx.transpose", v, {im.na("axes", im.arr(p))});
  };
  return im.op("mx.Concat", {back(yr), back(yi)},
               {im.na("dim", im.i64(rank - 1))});
}

/// A scalar input's integer value when it is constant.
std::optional<int64_t> constantScalar(Importer &im, unsigned i) {
  if (const Const *c = im.cst(i); c && c->size() == 1)
    return c->i(0);
  return std::nullopt;
}

} // namespace

LogicalResult importDFT(Importer &im, StringRef) {
  auto xs = im.shape(0);
  int64_t rank = xs.size();
  if (failed(im.requireFloat(0)))
    return failure();
  if (rank < 3 || (xs.back() != 1 && xs.back() != 2))
    return im.fail("input must be (batch, signal..., 1 or 2), got shape " +
                   shapeText(xs));
  if (failed(im.requireStatic(0, "the input")))
    return failure();
  int64_t axis;
  if (failed(im.axisAttr(1, rank, axis)))
    return failure();
  if (axis == 0 || axis == rank - 1)
    return im.fail("axis " + Twine(axis) +
                   " is the batch or the components' axis");
  bool inverse = im.attrInt("inverse", 0) != 0;
  bool onesided = im.attrInt("onesided", 0) != 0;
  if (onesided && inverse)
    return im.fail("an inverse one-sided transform is not supported");
  int64_t n = xs[axis];
  if (im.has(1)) {
    if (auto v = constantScalar(im, 1)) {
      n = *v;
    } else {
      auto declared = im.declaredShape(0, 1, "dft_length");
      if (failed(declared))
        return failure();
      if (onesided || (int64_t)declared->size() != rank)
        return im.fail(
            "a run-time dft_length needs a two-sided transform and a "
            "declared output of the input's rank");
      n = (*declared)[axis];
    }
  }
  if (n < 1 || n > 65536)
    return im.fail("dft_length " + Twine(n) + " is outside [1, 65536]");
  return im.out(
      0, transform(im, im.val(0), axis, n, onesided ? n / 2 + 1 : n, inverse));
}

LogicalResult importSTFT(Importer &im, StringRef) {
  auto xs = im.shape(0);
  if (failed(im.requireFloat(0)))
    return failure();
  if (xs.size() != 3 || (xs[2] != 1 && xs[2] != 2) ||
      ShapedType::isDynamic(xs[0]) || ShapedType::isDynamic(xs[1]))
    return im.fail("signal must be (batch, length, 1 or 2) with static "
                   "extents, got shape " +
                   shapeText(xs));
  bool onesided = im.attrInt("onesided", 1) != 0;
  int32_t type = im.type(0);
  int64_t batch = xs[0], length = xs[1];
  // The frame length: the window's, frame_length's value, or (a run-time
  // frame_length) each length the declared output allows, picked at run
  // time.
  std::vector<int64_t> lengths;
  std::optional<std::vector<int64_t>> declared;
  bool hasWindow = im.has(2);
  if (hasWindow) {
    if (im.rank(2) != 1)
      return im.fail("window must be 1-D");
    lengths.push_back(im.shape(2)[0]);
  } else if (!im.has(3)) {
    return im.fail("either window or frame_length must be given");
  } else if (auto v = constantScalar(im, 3)) {
    lengths.push_back(*v);
  } else {
    auto d = im.declaredShape(0, 3, "frame_length");
    if (failed(d))
      return failure();
    if (d->size() != 4)
      return im.fail("the declared output shape " + shapeText(*d) +
                     " is not 4-D");
    declared = *d;
    int64_t bins = (*d)[2];
    lengths = onesided ? std::vector<int64_t>{2 * bins - 2, 2 * bins - 1}
                       : std::vector<int64_t>{bins};
  }
  std::optional<int64_t> step = constantScalar(im, 1);
  if (step && *step < 1)
    return im.fail("frame_step " + Twine(*step) + " is not positive");
  if (!step && !declared) {
    auto d = im.declaredShape(0, 1, "frame_step");
    if (failed(d))
      return failure();
    declared = *d;
  }
  SmallVector<Value> results;
  for (int64_t frame : lengths) {
    if (frame < 1 || frame > length)
      continue;
    int64_t frames = step ? (length - frame) / *step + 1 : (*declared)[1];
    int64_t bins = onesided ? frame / 2 + 1 : frame;
    // Sample indices f * step + j of each frame, (frames, frame).
    Value index;
    if (step) {
      std::vector<int64_t> v;
      for (int64_t f = 0; f < frames; ++f)
        for (int64_t j = 0; j < frame; ++j)
          v.push_back(f * *step + j);
      index = im.param(Const::ofInts(v, std::vector<int64_t>{frames, frame}),
                       im.nodeName + "_frames");
    } else {
      Value s = im.reshape(im.castTo(im.val(1), TP::INT64), {});
      Value f = im.binary(im.iotaAlong(2, 0, frames), s, "mul");
      index = im.binary(f, im.iotaAlong(2, 1, frame), "add");
      index = im.scalar(im.scalar(index, "minimum", double(length - 1)),
                        "maximum", 0.0);
    }
    Value x =
        im.op("mx.gather", {im.val(0), index}, {im.na("axis", im.i64(1))});
    if (hasWindow)
      x = im.binary(x, im.reshape(im.castTo(im.val(2), type), {1, 1, frame, 1}),
                    "mul");
    Value y = transform(im, x, 2, frame, bins, /*inverse=*/false);
    if (declared && (bins != (*declared)[2] || batch != (*declared)[0]))
      continue;
    results.push_back(y);
  }
  if (results.empty())
    return im.fail("no frame length fits the signal of shape " + shapeText(xs) +
                   (declared
                        ? " and the declared output " + shapeText(*declared)
                        : std::string()));
  if (results.size() == 1)
    return im.out(0, results[0]);
  // Two candidate lengths: frame_length's value picks one at run time.
  Value given = im.reshape(im.castTo(im.val(3), TP::INT64), {});
  Value first = im.compare(given, im.int64Scalar(lengths[0]), "equal");
  return im.out(0, im.where(first, results[0], results[1]));
}

/// MelWeightMatrix: (dft_length / 2 + 1, num_mel_bins) triangular filters
/// between mel-spaced edges, as ONNX's reference computes them (edges
/// floored to spectrogram bins), built with mx ops from the scalar inputs
/// (graph inputs or constants alike); the extents are the constants' or the
/// declared output's.
LogicalResult importMelWeightMatrix(Importer &im, StringRef) {
  for (unsigned i = 0; i < 5; ++i)
    if (numElements(im.shape(i)) != 1)
      return im.fail("input " + Twine(i) + " must be a scalar, got shape " +
                     shapeText(im.shape(i)));
  int32_t type = (int32_t)im.attrInt("output_datatype", TP::FLOAT);
  if (!isFloatType(type) || !elementType(type, &im.ctx))
    return im.fail("output_datatype " + typeName(type) +
                   " is not a floating-point type mxc supports");
  auto constant = [&](unsigned i) -> std::optional<int64_t> {
    if (const Const *c = im.cst(i))
      return c->i(0);
    return std::nullopt;
  };
  std::optional<int64_t> mels = constant(0), dft = constant(1);
  int64_t bins, melCount;
  if (mels && dft) {
    melCount = *mels, bins = *dft / 2 + 1;
  } else {
    auto declared =
        im.declaredShape(0, mels ? 1 : 0, mels ? "dft_length" : "num_mel_bins");
    if (failed(declared))
      return failure();
    if (declared->size() != 2)
      return im.fail("the declared output shape " + shapeText(*declared) +
                     " is not 2-D");
    bins = (*declared)[0], melCount = (*declared)[1];
  }
  if (melCount < 1 || bins < 1 || melCount * bins > (int64_t(1) << 24))
    return im.fail("a " + Twine(bins) + " x " + Twine(melCount) +
                   " weight matrix is out of range");
  auto scalar = [&](unsigned i) {
    return im.reshape(im.castTo(im.val(i), TP::DOUBLE), {});
  };
  auto mel = [&](Value hertz) { // 2595 log10(1 + f / 700)
    return im.scalar(
        im.unary(im.scalar(im.scalar(hertz, "div", 700.0), "add", 1.0), "log"),
        "mul", 2595.0 / std::log(10.0));
  };
  Value low = mel(scalar(3)), high = mel(scalar(4));
  Value step =
      im.scalar(im.binary(high, low, "sub"), "div", double(melCount + 2));
  // The mel_count + 2 edges, in hertz, then floored to spectrogram bins.
  Const edges(TP::DOUBLE, {melCount + 2});
  for (int64_t k = 0; k < melCount + 2; ++k)
    edges.set(k, double(k));
  Value f =
      im.binary(im.binary(im.param(edges, im.nodeName + "_edges"), step, "mul"),
                low, "add");
  f = im.scalar(
      im.scalar(im.unary(im.scalar(f, "mul", std::log(10.0) / 2595.0), "exp"),
                "sub", 1.0),
      "mul", 700.0);
  f = im.unary(im.binary(im.binary(f, im.scalar(scalar(1), "add", 1.0), "mul"),
                         scalar(2), "div"),
               "floor");
  auto edge = [&](int64_t from) { // (1, mel_count)
    return im.reshape(im.op("mx.slice", f,
                            {im.na("begin", im.arr({from})),
                             im.na("end", im.arr({from + melCount}))}),
                      {1, melCount});
  };
  Value left = edge(0), center = edge(1), right = edge(2);
  Const rows(TP::DOUBLE, {bins, 1});
  for (int64_t j = 0; j < bins; ++j)
    rows.set(j, double(j));
  Value j = im.param(rows, im.nodeName + "_bins");
  Value zero = im.scalarParam(TP::DOUBLE, 0.0, "zero");
  Value one = im.scalarParam(TP::DOUBLE, 1.0, "one");
  auto sub = [&](Value a, Value b) { return im.binary(a, b, "sub"); };
  auto both = [&](Value a, Value b) { return im.binary(a, b, "and"); };
  Value rising = sub(center, left), falling = sub(right, center);
  Value up = im.where(both(im.compare(j, left, "greater_equal"),
                           im.compare(j, center, "less_equal")),
                      im.binary(sub(j, left), rising, "div"), zero);
  up = im.where(im.compare(rising, zero, "equal"),
                im.where(im.compare(j, center, "equal"), one, zero), up);
  Value down = im.binary(sub(right, j), falling, "div");
  Value onFall = both(im.compare(falling, zero, "greater"),
                      both(im.compare(j, center, "greater_equal"),
                           im.compare(j, right, "less")));
  return im.out(0, im.castTo(im.where(onFall, down, up), type));
}

} // namespace mxc::onnx
