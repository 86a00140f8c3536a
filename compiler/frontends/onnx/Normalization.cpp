// SPDX-License-Identifier: Apache-2.0
// ONNX's normalizations and the softmax family: BatchNormalization (also in
// training mode), InstanceNormalization, LayerNormalization, LRN,
// MeanVarianceNormalization, Softmax / LogSoftmax / Hardmax, and the two
// losses built on log-probabilities.
#include "compiler/frontends/onnx/ImporterImpl.h"

using namespace mlir;

namespace mxc::onnx {

namespace {
/// Statistics of a tensor over some axes (kept as extents of 1).
struct Moments {
  Value mean;
  /// x - mean.
  Value centered;
  /// The population variance.
  Value variance;
  /// 1 / sqrt(variance + eps).
  Value invStd;
};
} // namespace

static Moments moments(Importer &im, Value x, ArrayRef<int64_t> axes,
                       double eps) {
  Moments m;
  m.mean = im.reduceKeep(x, "mean", axes);
  m.centered = im.binary(x, m.mean, "sub");
  m.variance =
      im.reduceKeep(im.binary(m.centered, m.centered, "mul"), "mean", axes);
  m.invStd = im.unary(im.scalar(m.variance, "add", eps), "rsqrt");
  return m;
}

/// The normalized input scaled by input 1 and shifted by input 2, both
/// reshaped to `cs` (the channels, broadcasting over the rest).
static Value scaleShift(Importer &im, const Moments &m, ArrayRef<int64_t> cs) {
  Value y = im.binary(im.binary(m.centered, m.invStd, "mul"),
                      im.reshape(im.val(1), cs), "mul");
  return im.binary(y, im.reshape(im.val(2), cs), "add");
}

/// BatchNormalization with training_mode=1 (opset 14+): normalizes with the
/// batch mean and population variance over every axis but 1, and outputs
/// the running statistics: running = input * momentum + batch * (1 -
/// momentum).
static LogicalResult importBatchNormTraining(Importer &im) {
  if (im.wants(3) || im.wants(4))
    return im.fail("the saved mean / variance outputs are not supported");
  auto xs = im.shape(0);
  int64_t r = xs.size();
  std::vector<int64_t> axes = iota(1, r - 1);
  axes[0] = 0;
  std::vector<int64_t> cs(r, 1);
  cs[1] = xs[1];
  Moments m = moments(im, im.val(0), axes, im.attrFloat("epsilon", 1e-5));
  if (failed(im.out(0, scaleShift(im, m, cs))))
    return failure();
  double momentum = im.attrFloat("momentum", 0.9);
  std::vector<int64_t> channels = {xs[1]};
  auto running = [&](unsigned k, unsigned input, Value batch) {
    Value old = im.scalar(im.val(input), "mul", momentum);
    return im.out(k, im.binary(old,
                               im.scalar(im.reshape(batch, channels), "mul",
                                         1 - momentum),
                               "add"));
  };
  if (im.wants(1) && failed(running(1, 3, m.mean)))
    return failure();
  if (im.wants(2) && failed(running(2, 4, m.variance)))
    return failure();
  return success();
}

LogicalResult importBatchNorm(Importer &im, StringRef) {
  im.ignoreAttrs({"is_test", "consumed_inputs"});
  if (im.attrInt("spatial", 1) != 1)
    return im.fail("spatial=0 is not supported");
  if (failed(im.requireFloat(0)))
    return failure();
  if (im.rank(0) < 2)
    return im.fail("input must have rank >= 2");
  if (im.attrInt("training_mode", 0))
    return importBatchNormTraining(im);
  im.attr("momentum");
  if (im.wants(1) || im.wants(2) || im.wants(3) || im.wants(4))
    return im.fail("the running statistics outputs need training_mode=1");
  return im.out(0,
                im.op("mx.BatchNorm",
                      {im.val(0), im.val(1), im.val(2), im.val(3), im.val(4)},
                      {im.na("eps", im.f64(im.attrFloat("epsilon", 1e-5))),
                       im.na("fix_gamma", im.boolean(false)),
                       im.na("use_global_stats", im.boolean(true)),
                       im.na("axis", im.i64(1))}));
}

LogicalResult importInstanceNorm(Importer &im, StringRef) {
  if (failed(im.requireFloat(0)))
    return failure();
  auto xs = im.shape(0);
  int64_t r = xs.size();
  if (r < 3)
    return im.fail("input must have rank >= 3");
  Moments m =
      moments(im, im.val(0), iota(2, r - 2), im.attrFloat("epsilon", 1e-5));
  std::vector<int64_t> cs(r - 1, 1);
  cs[0] = xs[1];
  return im.out(0, scaleShift(im, m, cs));
}

LogicalResult importLayerNorm(Importer &im, StringRef) {
  if (failed(im.requireFloat(0)))
    return failure();
  if (im.attrInt("stash_type", 1) != 1)
    return im.fail("stash_type " + Twine(im.attrInt("stash_type", 1)) +
                   " is not supported (only 1, float32 statistics)");
  auto xs = im.shape(0);
  int64_t r = xs.size(), axis;
  if (failed(im.axisAttr(-1, r, axis)))
    return failure();
  int64_t lead = numElements(ArrayRef(xs).take_front(axis));
  int64_t k = numElements(xs) / lead;
  auto vector = [&](unsigned i, double dflt) -> Value {
    if (!im.has(i)) {
      Const c(im.type(0), {k});
      for (int64_t j = 0; j < k; ++j)
        c.set(j, dflt);
      return im.param(c, im.nodeName + (i == 1 ? "_scale" : "_bias"));
    }
    std::vector<int64_t> s(xs.begin() + axis, xs.end());
    if (numElements(im.shape(i)) != k)
      return im.reshape(
          im.op("mx.broadcast_to", im.val(i), {im.na("shape", im.arr(s))}),
          {k});
    return im.reshape(im.val(i), {k});
  };
  double eps = im.attrFloat("epsilon", 1e-5);
  Value flat = im.reshape(im.val(0), {lead, k});
  Value y = im.op("mx.LayerNorm", {flat, vector(1, 1.0), vector(2, 0.0)},
                  {im.na("axis", im.i64(-1)), im.na("eps", im.f64(eps))});
  if (failed(im.out(0, im.reshape(y, xs))))
    return failure();
  if (!im.wants(1) && !im.wants(2))
    return success();
  // The statistics outputs, of shape xs[:axis] + (1,)*: recomputed.
  std::vector<int64_t> statShape(xs.begin(), xs.begin() + axis);
  statShape.resize(r, 1);
  Moments m = moments(im, flat, {1}, eps);
  if (failed(im.out(1, im.reshape(m.mean, statShape))))
    return failure();
  return im.out(2, im.reshape(m.invStd, statShape));
}

LogicalResult importLRN(Importer &im, StringRef) {
  if (failed(im.requireFloat(0)))
    return failure();
  int64_t size = im.attrInt("size", 0);
  if (size % 2 == 0)
    return im.fail("an even size (" + Twine(size) + ") is not supported");
  return im.out(0, im.op("mx.LRN", im.val(0),
                         {im.na("alpha", im.f64(im.attrFloat("alpha", 1e-4))),
                          im.na("beta", im.f64(im.attrFloat("beta", 0.75))),
                          im.na("knorm", im.f64(im.attrFloat("bias", 1.0))),
                          im.na("nsize", im.i64(size))}));
}

LogicalResult importMeanVarianceNorm(Importer &im, StringRef) {
  if (failed(im.requireFloat(0)))
    return failure();
  int64_t r = im.rank(0);
  std::vector<int64_t> axes = im.attrInts("axes", {0, 2, 3});
  SmallVector<int64_t> norm;
  for (int64_t a : axes) {
    int64_t n = a < 0 ? a + r : a;
    if (n < 0 || n >= r || llvm::is_contained(norm, n))
      return im.fail("axes do not fit rank " + Twine(r));
    norm.push_back(n);
  }
  llvm::sort(norm);
  auto mean = [&](Value v) { return im.reduceKeep(v, "mean", norm); };
  // ONNX's function body: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9).
  Value x = im.val(0), mu = mean(x);
  Value var =
      im.binary(mean(im.binary(x, x, "mul")), im.binary(mu, mu, "mul"), "sub");
  Value dev = im.scalar(im.unary(var, "sqrt"), "add", 1e-9);
  return im.out(0, im.binary(im.binary(x, mu, "sub"), dev, "div"));
}

/// Output 0 as `fn` of input 0 along attribute `axis` (default 1 before
/// opset 13, else -1). Before opset 13 the softmax family views the input
/// as 2-D, split before `axis`, and applies `fn` along the second axis.
static LogicalResult outAlongAxis(Importer &im, bool scalarOk,
                                  function_ref<Value(Value, int64_t)> fn) {
  if (failed(im.requireFloat(0)))
    return failure();
  auto xs = im.shape(0);
  int64_t r = xs.size(), axis = im.attrInt("axis", im.opset < 13 ? 1 : -1);
  if (axis < 0)
    axis += r;
  if (axis < 0 || axis >= (scalarOk ? std::max<int64_t>(r, 1) : r))
    return im.fail("axis " + Twine(im.attrInt("axis", 0)) +
                   " is out of range for rank " + Twine(r));
  if (im.opset >= 13 || axis == r - 1)
    return im.out(0, fn(im.val(0), axis));
  // Both products directly: a leading extent of 0 must not divide.
  int64_t lead = numElements(ArrayRef(xs).take_front(axis));
  Value flat =
      im.reshape(im.val(0), {lead, numElements(ArrayRef(xs).drop_front(axis))});
  return im.out(0, im.reshape(fn(flat, 1), xs));
}

/// Softmax, LogSoftmax.
LogicalResult importSoftmax(Importer &im, StringRef t) {
  bool log = t == "LogSoftmax";
  return outAlongAxis(im, /*scalarOk=*/true, [&](Value v, int64_t a) {
    return im.op("mx.softmax", v,
                 {im.na("axis", im.i64(a)), im.na("log", im.boolean(log))});
  });
}

LogicalResult importHardmax(Importer &im, StringRef) {
  // 1 at the first maximum along the axis: argmax == iota.
  return outAlongAxis(im, /*scalarOk=*/false, [&](Value v, int64_t a) {
    auto s = cast<RankedTensorType>(v.getType()).getShape();
    Value idx = im.op("mx.argreduce", v,
                      {im.na("op", im.str("max")), im.na("axis", im.i64(a)),
                       im.na("keepdims", im.boolean(true))});
    Value hot = im.compare(idx, im.iotaAlong(s.size(), a, s[a]), "equal");
    return im.castTo(hot, im.type(0));
  });
}

/// NegativeLogLikelihoodLoss, and SoftmaxCrossEntropyLoss as a log-softmax
/// over the classes (axis 1) followed by it. Per element of the target:
/// loss = -w[t] * input[n, t, d...], with w = 1 without weights and w = 0
/// where t = ignore_index; mean divides the sum by the sum of w.
LogicalResult importLoss(Importer &im, StringRef t) {
  if (failed(im.requireFloat(0)))
    return failure();
  std::string reduction = im.attrStr("reduction", "mean");
  if (reduction != "none" && reduction != "mean" && reduction != "sum")
    return im.fail("reduction '" + reduction + "' is not supported");
  auto xs = im.shape(0), ts = im.shape(1);
  if (xs.size() < 2)
    return im.fail("input must have rank >= 2, got shape " + shapeText(xs));
  std::vector<int64_t> want(xs);
  want.erase(want.begin() + 1);
  if (ts != want)
    return im.fail("target shape " + shapeText(ts) + " does not match input " +
                   shapeText(xs));
  if (isFloatType(im.type(1)))
    return im.fail("target must be integers");
  if (im.has(2) && (im.rank(2) != 1 || im.shape(2)[0] != xs[1]))
    return im.fail("weight must have shape (C,) = " + shapeText({xs[1]}));
  Value x = im.val(0);
  if (t == "SoftmaxCrossEntropyLoss") {
    x = im.op("mx.softmax", x,
              {im.na("axis", im.i64(1)), im.na("log", im.boolean(true))});
    if (failed(im.out(1, x)))
      return failure();
  }
  // Ignored targets read class 0, masked afterwards.
  Value target = im.val(1), ignored;
  if (im.attr("ignore_index")) {
    ignored =
        im.compare(target,
                   im.scalarParam(im.type(1), im.attrInt("ignore_index", 0),
                                  "ignore_index"),
                   "equal");
    target = im.op("mx.where",
                   {ignored, im.scalarParam(im.type(1), 0, "class0"), target});
  }
  std::vector<int64_t> column(xs);
  column[1] = 1;
  Value picked = im.op("mx.gather_elements", {x, im.reshape(target, column)},
                       {im.na("axis", im.i64(1))});
  Value zero = im.scalarParam(im.type(0), 0.0, "zero");
  Value loss = im.unary(im.reshape(picked, ts), "negative");
  Value weight;
  if (im.has(2))
    weight =
        im.op("mx.gather", {im.val(2), target}, {im.na("axis", im.i64(0))});
  if (ignored) {
    loss = im.op("mx.where", {ignored, zero, loss});
    weight = im.op("mx.where",
                   {ignored, zero,
                    weight ? weight : im.scalarParam(im.type(0), 1.0, "one")});
  }
  if (im.has(2))
    loss = im.binary(loss, weight, "mul");
  if (reduction == "none")
    return im.out(0, loss);
  auto reduce = [&](Value v, StringRef fn) {
    return im.reshape(im.op("mx.reduce", v, {im.na("op", im.str(fn))}), {});
  };
  if (reduction == "sum")
    return im.out(0, reduce(loss, "sum"));
  if (!weight)
    return im.out(0, reduce(loss, "mean"));
  return im.out(0,
                im.binary(reduce(loss, "sum"), reduce(weight, "sum"), "div"));
}

} // namespace mxc::onnx
