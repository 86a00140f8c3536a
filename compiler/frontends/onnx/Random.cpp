// SPDX-License-Identifier: Apache-2.0
// ONNX's random generators: RandomUniform, RandomNormal, their Like forms,
// Bernoulli and Multinomial, as mx.random (counter-based: splitmix64 of the
// seed, the node and the element's index). A `seed` attribute makes every call
// draw the same numbers; without one each call draws a fresh seed from the
// runtime. The numbers are not NumPy's or ONNX Runtime's (no two engines
// share a generator): tests compare their distribution.
#include "compiler/frontends/onnx/ImporterImpl.h"

#include <cstring>

using namespace mlir;

namespace mxc::onnx {

namespace {

/// mx.random of `shape` and ONNX element type `type` for the current node.
Value draw(Importer &im, StringRef dist, double a, double b,
           ArrayRef<int64_t> shape, int32_t type) {
  SmallVector<NamedAttribute> attrs = {
      im.na("dist", im.str(dist)),
      im.na("a", im.f64(a)),
      im.na("b", im.f64(b)),
      im.na("salt", im.i64(++im.randomNodes)),
      im.na("shape", im.arr(shape)),
      im.na("element_type", TypeAttr::get(elementType(type, &im.ctx)))};
  if (const auto *s = im.attr("seed")) {
    // The float's bits: seeds 1.0 and 1.5 draw different numbers.
    double seed = s->f();
    int64_t bits;
    std::memcpy(&bits, &seed, sizeof bits);
    attrs.push_back(im.na("seeded", im.boolean(true)));
    attrs.push_back(im.na("seed", im.i64(bits)));
  }
  return im.op("mx.random", {}, attrs);
}

/// The output type: attribute `dtype`, else `dflt`; a float type.
FailureOr<int32_t> floatDtype(Importer &im, int32_t dflt) {
  int32_t type = int32_t(im.attrInt("dtype", dflt));
  if (!isFloatType(type) || type == TP::BFLOAT16)
    return im.fail("dtype " + typeName(type) +
                   " is not a float type mxc draws (float16, float, double)");
  return type;
}

} // namespace

LogicalResult importRandom(Importer &im, StringRef op) {
  bool like = op.ends_with("Like");
  bool normal = op.starts_with("RandomNormal");
  std::vector<int64_t> shape;
  int32_t dflt = TP::FLOAT;
  if (like) {
    shape = im.shape(0);
    if (llvm::any_of(shape, ShapedType::isDynamic))
      return im.fail("input 'input' must have a static shape");
    if (isFloatType(im.type(0)))
      dflt = im.type(0);
  } else {
    auto s = im.attrInts("shape");
    if (!s)
      return im.fail("attribute 'shape' is required");
    shape = *s;
    for (int64_t d : shape)
      if (d < 0)
        return im.fail("shape " + shapeText(shape) + " has a negative extent");
  }
  auto type = floatDtype(im, dflt);
  if (failed(type))
    return failure();
  double a = normal ? im.attrFloat("mean", 0.0) : im.attrFloat("low", 0.0);
  double b = normal ? im.attrFloat("scale", 1.0) : im.attrFloat("high", 1.0);
  return im.out(0, draw(im, normal ? "normal" : "uniform", a, b, shape, *type));
}

LogicalResult importBernoulli(Importer &im, StringRef) {
  if (failed(im.requireFloat(0)))
    return failure();
  auto shape = im.shape(0);
  if (llvm::any_of(shape, ShapedType::isDynamic))
    return im.fail("input 'input' must have a static shape");
  int32_t type = int32_t(im.attrInt("dtype", im.type(0)));
  if (type == TP::STRING || type == TP::BFLOAT16 || !elementType(type, &im.ctx))
    return im.fail("dtype " + typeName(type) + " is not supported");
  // 1 where a uniform draw in [0, 1) falls below the probability.
  Value u = draw(im, "uniform", 0.0, 1.0, shape, TP::FLOAT);
  Value hit = im.compare(u, im.castTo(im.val(0), TP::FLOAT), "less");
  return im.out(0, im.castTo(hit, type));
}

LogicalResult importMultinomial(Importer &im, StringRef) {
  if (failed(im.requireFloat(0)))
    return failure();
  auto shape = im.shape(0);
  if (shape.size() != 2 || llvm::any_of(shape, ShapedType::isDynamic))
    return im.fail("input must be (batch, classes) of static extents, got " +
                   shapeText(shape));
  int32_t type = int32_t(im.attrInt("dtype", TP::INT32));
  if (type != TP::INT32 && type != TP::INT64)
    return im.fail("dtype must be int32 or int64");
  int64_t batch = shape[0], classes = shape[1];
  int64_t samples = im.attrInt("sample_size", 1);
  if (samples < 1 || classes < 1)
    return im.fail("sample_size and the number of classes must be positive");
  // The input is unnormalized log-probabilities: each sample is the number
  // of classes whose cumulative probability stays at or below a uniform
  // draw (the first class whose cumulative probability passes it).
  Value x = im.castTo(im.val(0), TP::FLOAT);
  Value p = im.op("mx.softmax", x,
                  {im.na("axis", im.i64(1)), im.na("log", im.boolean(false))});
  Value cdf = im.op("mx.cumsum", p, {im.na("axis", im.i64(1))});
  Value u = draw(im, "uniform", 0.0, 1.0, {batch, samples}, TP::FLOAT);
  Value below = im.compare(im.reshape(cdf, {batch, 1, classes}),
                           im.reshape(u, {batch, samples, 1}), "less_equal");
  Value count = im.op("mx.reduce", im.castTo(below, TP::INT64),
                      {im.na("op", im.str("sum")), im.na("axis", im.arr({2})),
                       im.na("keepdims", im.boolean(false))});
  // Rounding may leave the last cumulative probability below 1.
  Value last = im.int64Scalar(classes - 1);
  return im.out(0, im.castTo(im.binary(count, last, "minimum"), type));
}

} // namespace mxc::onnx
