// SPDX-License-Identifier: Apache-2.0
// ONNX's reductions: the Reduce* family onto mx.reduce (axes an attribute or,
// from ReduceSum-13, an input), ArgMax / ArgMin and the running sum CumSum.
#include "compiler/frontends/onnx/ImporterImpl.h"

#include <cmath>
#include <limits>

#include <cstring>

using namespace mlir;

namespace mxc::onnx {

/// mx.reduce `fn` of input 0 over `axes` (ascending), shaped as ONNX says.
static Value reduceOver(Importer &im, StringRef fn, bool logSum, bool keep,
                        ArrayRef<int64_t> axes, Value x = {}) {
  auto in = im.shape(0);
  SmallVector<int64_t> onnxShape;
  for (int64_t i = 0; i < (int64_t)in.size(); ++i) {
    bool reduced = llvm::is_contained(axes, i);
    if (!reduced || keep)
      onnxShape.push_back(reduced ? 1 : in[i]);
  }
  Value y = im.op("mx.reduce", x ? x : im.val(0),
                  {im.na("op", im.str(fn)), im.na("axis", im.arr(axes)),
                   im.na("keepdims", im.boolean(keep))});
  if (logSum)
    y = im.unary(y, "log");
  // mx.reduce gives (1,) where ONNX gives a scalar.
  return im.reshape(y, onnxShape);
}

/// A reduction whose axes (n of them) are known only at run time: each set
/// of n axes that gives the declared shape is reduced over, and the one the
/// axes name is picked at run time.
static LogicalResult importRunTimeReduce(Importer &im, StringRef fn,
                                         bool logSum, bool keep) {
  auto declared = im.declaredShape(0, 1, "axes");
  if (failed(declared))
    return failure();
  auto in = im.shape(0);
  int64_t r = in.size(), n = numElements(im.shape(1));
  if (n == 0 || n > r || r > 8)
    return im.fail("run-time axes: " + Twine(n) + " axes of rank " + Twine(r) +
                   " are not supported");
  Value axes = im.int64Vector(1), y;
  for (uint32_t set = 1; set < (1u << r); ++set) {
    if (llvm::popcount(set) != n)
      continue;
    SmallVector<int64_t> chosen, shape;
    for (int64_t i = 0; i < r; ++i) {
      bool reduced = set >> i & 1;
      if (reduced)
        chosen.push_back(i);
      if (!reduced || keep)
        shape.push_back(reduced ? 1 : in[i]);
    }
    if (ArrayRef<int64_t>(shape) != ArrayRef<int64_t>(*declared))
      continue;
    Value candidate = reduceOver(im, fn, logSum, keep, chosen);
    if (!y) {
      y = candidate;
      continue;
    }
    // Every run-time axis is one of `chosen`.
    Value named;
    for (int64_t a : chosen) {
      Value hit =
          im.binary(im.compare(axes, im.int64Scalar(a), "equal"),
                    im.compare(axes, im.int64Scalar(a - r), "equal"), "or");
      named = named ? im.binary(named, hit, "or") : hit;
    }
    Value all = im.reduceKeep(im.castTo(named, TP::INT64), "min", {0});
    y = im.where(im.reshape(im.compare(all, im.int64Scalar(1), "equal"), {}),
                 candidate, y);
  }
  if (!y)
    return im.fail("no " + Twine(n) + " axes of input shape " + shapeText(in) +
                   " reduce to the declared shape " + shapeText(*declared));
  return im.out(0, y);
}

LogicalResult importReduce(Importer &im, StringRef t) {
  // mx.reduce's names: "sum", "mean", ..., "logsumexp"; ReduceLogSum is
  // the log of a sum.
  bool logSum = t == "ReduceLogSum";
  std::string fn = logSum ? "sum" : t.drop_front(strlen("Reduce")).lower();
  bool keep = im.attrInt("keepdims", 1);
  bool axesInput = t == "ReduceSum" ? im.opset >= 13 : im.opset >= 18;
  std::vector<int64_t> axes;
  if (axesInput && im.has(1) && !im.cst(1) && !im.in(0).count) {
    // Run-time axes (a run-time vector of none is empty whatever it holds).
    if (numElements(im.shape(1))) {
      im.ignoreAttrs({"noop_with_empty_axes"});
      return importRunTimeReduce(im, fn, logSum, keep);
    }
  } else if (axesInput) {
    if (failed(im.optionalConstInts(1, "axes", axes)))
      return failure();
  } else if (auto a = im.attrInts("axes")) {
    axes = *a;
  }
  if (axes.empty() && im.attrInt("noop_with_empty_axes", 0))
    return im.forward(0, 0);
  auto in = im.shape(0);
  int64_t r = in.size();
  std::vector<bool> reduced(r, axes.empty());
  for (int64_t a : axes) {
    int64_t n = a < 0 ? a + r : a;
    if (n < 0 || n >= r)
      return im.fail("axis " + Twine(a) + " is out of range for rank " +
                     Twine(r));
    reduced[n] = true;
  }
  SmallVector<int64_t> all;
  for (int64_t i = 0; i < r; ++i)
    if (reduced[i])
      all.push_back(i);
  // A small constant's max, min, sum or product: on the host, as shape
  // arithmetic needs it (an image's longest side, scaled, to pad to).
  if (const Const *c = im.cst(0);
      c && c->size() > 0 && c->size() <= 4096 &&
      (fn == "max" || fn == "min" || fn == "sum" || fn == "prod")) {
    std::vector<int64_t> outShape;
    for (int64_t i = 0; i < r; ++i)
      if (!reduced[i] || keep)
        outShape.push_back(reduced[i] ? 1 : in[i]);
    Const out(c->type, outShape);
    std::vector<bool> seen(size_t(out.size()), false);
    std::vector<double> acc(size_t(out.size()), 0.0);
    for (int64_t k = 0; k < c->size(); ++k) {
      // k's position with the reduced axes dropped.
      int64_t rest = k, o = 0, stride = 1;
      for (int64_t i = r - 1; i >= 0; --i) {
        int64_t idx = rest % in[i];
        rest /= in[i];
        if (!reduced[i]) {
          o += idx * stride;
          stride *= in[i];
        }
      }
      double v = c->isFloat() ? c->f(k) : double(c->i(k));
      double &a = acc[size_t(o)];
      a = !seen[size_t(o)] ? v
          : fn == "max"    ? std::max(a, v)
          : fn == "min"    ? std::min(a, v)
          : fn == "sum"    ? a + v
                           : a * v;
      seen[size_t(o)] = true;
    }
    for (int64_t k = 0; k < out.size(); ++k) {
      if (out.isFloat())
        out.set(k, acc[size_t(k)]);
      else
        out.setInt(k, (int64_t)acc[size_t(k)]);
    }
    return im.outConst(0, std::move(out));
  }
  const Tensor &x = im.in(0);
  if (!x.count)
    return im.out(0, reduceOver(im, fn, logSum, keep, all));
  // A data-dependent extent: its padding filled with what changes no
  // result of the reduction.
  if (fn != "max" && fn != "min" && fn != "sum" && fn != "prod")
    return im.fail("input 'data' has an extent the data decides (axis " +
                   Twine(x.countAxis) + "), which " + t +
                   " does not take (ReduceMax, ReduceMin, ReduceSum and "
                   "ReduceProd do)");
  int32_t type = im.type(0);
  double fill = fn == "sum" ? 0.0 : fn == "prod" ? 1.0 : 0.0;
  if (fn == "max" || fn == "min") {
    bool low = fn == "max";
    if (isFloatType(type)) {
      fill = low ? -std::numeric_limits<double>::infinity()
                 : std::numeric_limits<double>::infinity();
    } else {
      int bits = 8 * (int)elementSize(type);
      double top = std::ldexp(1.0, bits - 1);
      // The largest double below 2^(bits-1): int64's top rounded down.
      fill = low ? -top : std::nextafter(top, 0.0);
    }
  }
  Value masked = im.maskCounted(im.val(0), x.count, x.countAxis,
                                im.scalarParam(type, fill, "fill"));
  Value y = reduceOver(im, fn, logSum, keep, all, masked);
  if (reduced[x.countAxis])
    return im.out(0, y);
  int64_t axis = x.countAxis;
  if (!keep)
    for (int64_t i = 0; i < x.countAxis; ++i)
      axis -= reduced[i];
  return im.outCounted(0, y, x.count, axis);
}

/// ArgMax, ArgMin.
LogicalResult importArgReduce(Importer &im, StringRef t) {
  return im.out(0,
                im.op("mx.argreduce", im.val(0),
                      {im.na("op", im.str(t == "ArgMax" ? "max" : "min")),
                       im.na("axis", im.i64(im.attrInt("axis", 0))),
                       im.na("keepdims", im.boolean(im.attrInt("keepdims", 1))),
                       im.na("select_last_index",
                             im.boolean(im.attrInt("select_last_index", 0)))}));
}

LogicalResult importCumSum(Importer &im, StringRef) {
  if (im.type(0) == TP::BOOL)
    return im.fail("boolean inputs are not supported");
  auto sum = [&](int64_t axis) {
    return im.op("mx.cumsum", im.val(0),
                 {im.na("axis", im.i64(axis)),
                  im.na("exclusive", im.boolean(im.attrInt("exclusive", 0))),
                  im.na("reverse", im.boolean(im.attrInt("reverse", 0)))});
  };
  if (im.cst(1)) {
    auto axis = im.constInt(1, "axis");
    if (failed(axis))
      return failure();
    return im.out(0, sum(*axis));
  }
  // A run-time axis: the sum along each, picked at run time (an axis out
  // of range gives the last one's).
  int64_t r = im.rank(0);
  if (r == 0 || numElements(im.shape(1)) != 1)
    return im.fail("input 'axis' must hold one value of a rank-1+ input");
  Value axis = im.int64Vector(1), y = sum(r - 1);
  for (int64_t a = r - 2; a >= 0; --a)
    y = im.where(im.holdsAxis(axis, a, r), sum(a), y);
  return im.out(0, y);
}

} // namespace mxc::onnx
