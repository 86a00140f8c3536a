// SPDX-License-Identifier: Apache-2.0
// ONNX's quantization operators: QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear and the integer products MatMulInteger,
// ConvInteger, QLinearMatMul and QLinearConv, as mx ops with ONNX's
// arithmetic, bit for bit: a quantized value is round(x / scale) (halves to
// even) plus the zero point, saturated to the type; integer products
// subtract the zero points and accumulate exactly (int32 for matrix
// products, float64 for convolutions, whose kernels are float ones: sums of
// products of 8-bit values stay integers well below 2^53); requantization
// multiplies the accumulator by a_scale * b_scale / y_scale in float32, as
// ONNX Runtime does. QdqFusion.cpp turns QDQ-quantized Conv and MatMul into
// the QLinear forms.
#include "compiler/frontends/onnx/ImporterImpl.h"

using namespace mlir;

namespace mxc::onnx {
namespace {

/// The range of a quantized type.
struct Range {
  double lo, hi;
};

FailureOr<Range> rangeOf(Importer &im, int32_t t) {
  switch (t) {
  case TP::UINT8:
    return Range{0, 255};
  case TP::INT8:
    return Range{-128, 127};
  case TP::UINT16:
    return Range{0, 65535};
  case TP::INT16:
    return Range{-32768, 32767};
  case TP::INT32:
    return Range{-2147483648.0, 2147483647.0};
  default:
    return im.fail("quantized type " + typeName(t) +
                   " is not supported (uint8, int8, uint16, int16, int32)");
  }
}

/// Input `i`, a scale or zero point that is a scalar (rank 0, or one
/// element) or one value per index of `axis` of a rank-`rank` tensor with
/// `extent` there, shaped to broadcast against it.
FailureOr<Value> perAxis(Importer &im, unsigned i, const Twine &what,
                         int64_t rank, int64_t axis, int64_t extent) {
  auto s = im.shape(i);
  int64_t n = numElements(s);
  if (s.size() > 1 || (n != 1 && (s.size() != 1 || n != extent)))
    return im.fail(what + " has shape " + shapeText(s) +
                   ", not a scalar or one value per index of axis " +
                   Twine(axis) + " (" + Twine(extent) + ")");
  if (n == 1)
    return im.reshape(im.val(i), {});
  std::vector<int64_t> shape(rank, 1);
  shape[axis] = extent;
  return im.reshape(im.val(i), shape);
}

/// The axis of input 0 along which the scale (input 1) applies: `axis`
/// (default 1) when the scale has several values, else unused (0).
FailureOr<int64_t> quantAxis(Importer &im) {
  int64_t axis = 0;
  if (im.opset < 13 || numElements(im.shape(1)) == 1) {
    im.attr("axis");
    return axis;
  }
  if (failed(im.axisAttr(1, im.rank(0), axis)))
    return failure();
  return axis;
}

/// `x` (of float type `ft`) quantized: saturate(round(x / scale) + zero)
/// as `to`.
Value quantize(Importer &im, Value x, int32_t ft, Value scale, Value zero,
               int32_t to, Range r) {
  Value q = im.unary(im.binary(x, scale, "div"), "round");
  if (zero)
    q = im.binary(q, im.castTo(zero, ft), "add");
  q = im.op("mx.clip", q,
            {im.na("a_min", im.f64(r.lo)), im.na("a_max", im.f64(r.hi))});
  return im.castTo(q, to);
}

/// `acc` (an integer accumulator, exact in its type) requantized:
/// saturate(round(acc * multiplier) + zero) as `to`, in float32 as ONNX
/// Runtime computes it (the accumulator rounded to float32, times the
/// float32 multiplier).
Value requantize(Importer &im, Value acc, Value multiplier, Value zero,
                 int32_t to, Range r) {
  Value y = im.binary(im.castTo(acc, TP::FLOAT), multiplier, "mul");
  y = im.unary(y, "round");
  if (zero)
    y = im.binary(y, im.castTo(zero, TP::FLOAT), "add");
  y = im.op("mx.clip", y,
            {im.na("a_min", im.f64(r.lo)), im.na("a_max", im.f64(r.hi))});
  return im.castTo(y, to);
}

/// Fails unless input `i` (`what`) has an 8-bit integer type.
LogicalResult require8Bit(Importer &im, unsigned i, StringRef what) {
  int32_t t = im.type(i);
  if (t != TP::UINT8 && t != TP::INT8)
    return im.fail(what + " has type " + typeName(t) + ", not uint8 or int8");
  return success();
}

/// `v` (input `i`, an 8-bit integer) as `to` minus its zero point `zero`
/// (null: 0), which is already shaped to broadcast.
Value centered(Importer &im, Value v, Value zero, int32_t to) {
  v = im.castTo(v, to);
  // The zero point through int32, which the CPU's kernel selection takes.
  return zero ? im.binary(v, im.castTo(im.castTo(zero, TP::INT32), to), "sub")
              : v;
}

/// The zero point of an integer matrix product's operand `i` (input `zi`):
/// a scalar, or one per row of A (`rows`) / column of B.
FailureOr<Value> productZero(Importer &im, unsigned i, unsigned zi, bool rows) {
  if (!im.has(zi))
    return Value();
  if (im.type(zi) != im.type(i))
    return im.fail("zero point input " + Twine(zi) + " has type " +
                   typeName(im.type(zi)) + ", not its operand's " +
                   typeName(im.type(i)));
  auto s = im.shape(i);
  if (s.size() < 2)
    return im.fail("operand " + Twine(i) + " of shape " + shapeText(s) +
                   " is not a matrix (rank >= 2)");
  int64_t axis = rows ? s.size() - 2 : s.size() - 1;
  return perAxis(im, zi, "zero point input " + std::to_string(zi), s.size(),
                 axis, s[axis]);
}

/// (A - a_zero)(B - b_zero) in int32, A input `a`, B input `b`, their zero
/// points inputs `az` and `bz`.
FailureOr<Value> integerProduct(Importer &im, unsigned a, unsigned az,
                                unsigned b, unsigned bz) {
  if (failed(require8Bit(im, a, "A")) || failed(require8Bit(im, b, "B")))
    return failure();
  auto za = productZero(im, a, az, /*rows=*/true);
  auto zb = productZero(im, b, bz, /*rows=*/false);
  if (failed(za) || failed(zb))
    return failure();
  Value p = im.op("mx.matmul", {centered(im, im.val(a), *za, TP::INT32),
                                centered(im, im.val(b), *zb, TP::INT32)});
  if (!p)
    return failure();
  return p;
}

/// conv(X - x_zero, W - w_zero) (+ bias) as int32, computed exactly in
/// float64 (the CPU's kernel selection runs it as an 8-bit convolution): X
/// input `x`, W input `w`, their zero points inputs `xz` (a scalar) and
/// `wz` (a scalar or one per output channel).
FailureOr<Value> integerConvolution(Importer &im, unsigned x, unsigned xz,
                                    unsigned w, unsigned wz, Value bias) {
  if (failed(require8Bit(im, x, "x")) || failed(require8Bit(im, w, "w")))
    return failure();
  auto xs = im.shape(x), ws = im.shape(w);
  if (xs.size() < 3 || ws.size() != xs.size())
    return im.fail("input shape " + shapeText(xs) + " and weight shape " +
                   shapeText(ws) + " are not a convolution's");
  Value zx, zw;
  if (im.has(xz)) {
    auto z = perAxis(im, xz, "x_zero_point", xs.size(), 1, 1);
    if (failed(z))
      return failure();
    zx = *z;
  }
  if (im.has(wz)) {
    auto z = perAxis(im, wz, "w_zero_point", ws.size(), 0, ws[0]);
    if (failed(z))
      return failure();
    zw = *z;
  }
  Value y = convolve(im, centered(im, im.val(x), zx, TP::DOUBLE),
                     centered(im, im.val(w), zw, TP::DOUBLE),
                     bias ? im.castTo(bias, TP::DOUBLE) : Value(), xs, ws);
  // Exact in float64, so exact in int32 (the kernel selection's root).
  y = y ? im.castTo(y, TP::INT32) : y;
  if (!y)
    return failure();
  return y;
}

/// The scale product a_scale * b_scale / y_scale (float32, as ONNX
/// computes it), each broadcast as given by its operand's axis.
Value multiplier(Importer &im, Value as, Value bs, Value ys) {
  return im.binary(im.binary(as, bs, "mul"), ys, "div");
}

/// Input `i` (`what`): a zero point of input `of`'s type, or its scale,
/// one value for the whole tensor, as a scalar.
FailureOr<Value> perTensor(Importer &im, unsigned i, StringRef what,
                           int64_t of = -1) {
  if (of >= 0 && im.type(i) != im.type(of))
    return im.fail(what + " has type " + typeName(im.type(i)) +
                   ", not its operand's " + typeName(im.type(of)));
  return perAxis(im, i, what, 1, 0, 1);
}

/// fma(x, y, z) in float32 (one rounding: mx.fma, the target's fused
/// multiply-add), x cast to float32 first.
Value fusedMultiplyAdd(Importer &im, Value x, Value y, Value z) {
  return im.op("mx.fma", {im.castTo(x, TP::FLOAT), im.castTo(y, TP::FLOAT),
                          im.castTo(z, TP::FLOAT)});
}

} // namespace

/// QuantizeLinear's and DequantizeLinear's scale (input 1) and zero point
/// (input 2, null when absent), named `prefix`_scale and
/// `prefix`_zero_point, shaped to broadcast against input 0 along `axis`.
static FailureOr<std::pair<Value, Value>> scaleAndZero(Importer &im,
                                                       StringRef prefix) {
  if (im.attrInt("block_size", 0) != 0)
    return im.fail("blocked quantization (block_size) is not supported");
  auto axis = quantAxis(im);
  if (failed(axis))
    return failure();
  auto xs = im.shape(0);
  int64_t rank = xs.size(), extent = rank ? xs[*axis] : 1;
  auto scale = perAxis(im, 1, prefix + "_scale", rank, *axis, extent);
  if (failed(scale))
    return failure();
  if (!im.has(2))
    return std::pair{*scale, Value()};
  auto zero = perAxis(im, 2, prefix + "_zero_point", rank, *axis, extent);
  if (failed(zero))
    return failure();
  return std::pair{*scale, *zero};
}

/// QuantizeLinear: y = saturate(round(x / y_scale) + y_zero_point), as the
/// zero point's type (uint8 without one), per tensor or along `axis`.
LogicalResult importQuantizeLinear(Importer &im, StringRef) {
  if (failed(im.requireFloat(0)))
    return failure();
  im.ignoreAttrs({"saturate"}); // (float8 outputs only)
  int32_t to = im.has(2) ? im.type(2) : TP::UINT8;
  auto r = rangeOf(im, to);
  if (failed(r))
    return failure();
  auto sz = scaleAndZero(im, "y");
  if (failed(sz))
    return failure();
  int32_t ft = im.type(0);
  return im.out(0, quantize(im, im.val(0), ft, im.castTo(sz->first, ft),
                            sz->second, to, *r));
}

/// DequantizeLinear: y = (x - x_zero_point) * x_scale, as the scale's type.
LogicalResult importDequantizeLinear(Importer &im, StringRef) {
  int32_t t = im.type(0);
  if (failed(rangeOf(im, t)))
    return failure();
  if (!isFloatType(im.type(1)))
    return im.fail("x_scale has type " + typeName(im.type(1)) +
                   ", not a float type");
  if (im.has(2) && im.type(2) != t)
    return im.fail("x_zero_point has type " + typeName(im.type(2)) +
                   ", not x's " + typeName(t));
  auto sz = scaleAndZero(im, "x");
  if (failed(sz))
    return failure();
  int32_t ft = im.type(1);
  Value x = im.castTo(im.val(0), ft);
  if (sz->second)
    x = im.binary(x, im.castTo(sz->second, ft), "sub");
  return im.out(0, im.binary(x, sz->first, "mul"));
}

/// DynamicQuantizeLinear: x to uint8 with the scale and zero point that map
/// [min(x, 0), max(x, 0)] onto [0, 255].
LogicalResult importDynamicQuantizeLinear(Importer &im, StringRef) {
  if (im.type(0) != TP::FLOAT)
    return im.fail("x has type " + typeName(im.type(0)) + ", not float");
  Value x = im.val(0);
  int64_t rank = im.rank(0);
  SmallVector<int64_t> all;
  for (int64_t i = 0; i < rank; ++i)
    all.push_back(i);
  auto whole = [&](StringRef fn) {
    Value v = im.op("mx.reduce", x,
                    {im.na("op", im.str(fn)), im.na("axis", im.arr(all)),
                     im.na("keepdims", im.boolean(false))});
    return im.reshape(v, {});
  };
  Value hi = im.scalar(whole("max"), "maximum", 0.0);
  Value lo = im.scalar(whole("min"), "minimum", 0.0);
  // scale = (hi - lo) / 255, or 1 / 255 when hi == lo (all zeros).
  Value span = im.binary(hi, lo, "sub");
  Value zeroSpan =
      im.compare(span, im.scalarParam(TP::FLOAT, 0.0, "zero"), "equal");
  span = im.where(zeroSpan, im.scalarParam(TP::FLOAT, 1.0, "one"), span);
  Value scale = im.scalar(span, "div", 255.0);
  // zero point = saturate(round(0 - lo / scale)).
  Value zero = im.unary(
      im.op("mx.clip", im.scalar(im.binary(lo, scale, "div"), "sub", 0.0, true),
            {im.na("a_min", im.f64(0)), im.na("a_max", im.f64(255))}),
      "round");
  Value y = quantize(im, x, TP::FLOAT, scale, zero, TP::UINT8, Range{0, 255});
  if (failed(im.out(0, y)) || failed(im.out(1, scale)))
    return failure();
  return im.out(2, im.castTo(zero, TP::UINT8));
}

/// MatMulInteger: (A - a_zero_point)(B - b_zero_point) in int32.
LogicalResult importMatMulInteger(Importer &im, StringRef) {
  auto p = integerProduct(im, 0, 2, 1, 3);
  return failed(p) ? failure() : im.out(0, *p);
}

/// ConvInteger: conv(x - x_zero_point, w - w_zero_point) in int32.
LogicalResult importConvInteger(Importer &im, StringRef) {
  auto y = integerConvolution(im, 0, 2, 1, 3, Value());
  return failed(y) ? failure() : im.out(0, *y);
}

/// QLinearMatMul: MatMulInteger's product requantized with a_scale *
/// b_scale / y_scale and y_zero_point.
LogicalResult importQLinearMatMul(Importer &im, StringRef) {
  auto p = integerProduct(im, 0, 2, 3, 5);
  if (failed(p))
    return failure();
  auto as = im.shape(0), bs = im.shape(3);
  auto sa =
      perAxis(im, 1, "a_scale", as.size(), as.size() - 2, as[as.size() - 2]);
  auto sb = perAxis(im, 4, "b_scale", bs.size(), bs.size() - 1, bs.back());
  auto sy = perAxis(im, 6, "y_scale", 1, 0, 1);
  int32_t to = im.type(7);
  auto r = rangeOf(im, to);
  if (failed(sa) || failed(sb) || failed(sy) || failed(r))
    return failure();
  return im.out(0, requantize(im, *p, multiplier(im, *sa, *sb, *sy),
                              im.reshape(im.val(7), {}), to, *r));
}

/// QLinearConv: ConvInteger's sums plus the int32 bias, requantized with
/// x_scale * w_scale / y_scale (w_scale one per output channel or one).
LogicalResult importQLinearConv(Importer &im, StringRef) {
  auto y = integerConvolution(im, 0, 2, 3, 5, im.has(8) ? im.val(8) : Value());
  if (failed(y))
    return failure();
  auto ws = im.shape(3);
  int64_t rank = ws.size();
  auto sx = perAxis(im, 1, "x_scale", rank, 1, 1);
  auto sw = perAxis(im, 4, "w_scale", rank, 1, ws.empty() ? 1 : ws[0]);
  auto sy = perAxis(im, 6, "y_scale", rank, 1, 1);
  int32_t to = im.type(7);
  auto r = rangeOf(im, to);
  if (failed(sx) || failed(sw) || failed(sy) || failed(r))
    return failure();
  return im.out(0, requantize(im, *y, multiplier(im, *sx, *sw, *sy),
                              im.reshape(im.val(7), {}), to, *r));
}

/// com.microsoft QGemm, ONNX Runtime's quantized Gemm (what its QDQ fusion
/// makes of DequantizeLinear -> Gemm -> QuantizeLinear):
/// (A - a_zero_point)(B - b_zero_point) plus the int32 C (scaled alpha *
/// a_scale * b_scale, zero point 0), requantized with alpha * a_scale *
/// b_scale / y_scale and y_zero_point; B's scale and zero point one, or one
/// per output column.
LogicalResult importQGemm(Importer &im, StringRef) {
  bool ta = im.attrInt("transA", 0), tb = im.attrInt("transB", 0);
  double alpha = im.attrFloat("alpha", 1.0);
  if (!im.has(7))
    return im.fail("QGemm without y_scale (a float output) is not supported");
  if (failed(require8Bit(im, 0, "A")) || failed(require8Bit(im, 3, "B")))
    return failure();
  auto as = im.shape(0), bs = im.shape(3);
  if (as.size() != 2 || bs.size() != 2)
    return im.fail("A and B must be 2-D, got " + shapeText(as) + " and " +
                   shapeText(bs));
  Value a = im.val(0), b;
  if (ta)
    a = im.op("mx.transpose", a);
  if (!tb) {
    b = im.val(3);
  } else if (const Const *c = im.cst(3)) {
    // A constant B stays one, so that the product packs it once.
    b = im.param(
        rearrange(*c, {bs[1], bs[0]},
                  [&](ArrayRef<int64_t> p) { return p[1] * bs[1] + p[0]; }),
        im.node->input(3) + "_transposed");
  } else {
    b = im.op("mx.transpose", im.val(3));
  }
  int64_t n = tb ? bs[0] : bs[1];
  Value za, zb;
  if (im.has(2)) {
    auto z = perTensor(im, 2, "a_zero_point", 0);
    if (failed(z))
      return failure();
    za = *z;
  }
  if (im.has(5)) {
    if (im.type(5) != im.type(3))
      return im.fail("b_zero_point has type " + typeName(im.type(5)) +
                     ", not B's " + typeName(im.type(3)));
    auto z = perAxis(im, 5, "b_zero_point", 2, 1, n);
    if (failed(z))
      return failure();
    zb = *z;
  }
  Value p = im.op("mx.matmul", {centered(im, a, za, TP::INT32),
                                centered(im, b, zb, TP::INT32)});
  if (!p)
    return failure();
  if (im.has(6)) {
    if (im.type(6) != TP::INT32)
      return im.fail("C has type " + typeName(im.type(6)) + ", not int32");
    p = im.binary(p, im.val(6), "add");
  }
  auto sa = perTensor(im, 1, "a_scale");
  auto sb = perAxis(im, 4, "b_scale", 2, 1, n);
  auto sy = perTensor(im, 7, "y_scale");
  int32_t to = im.has(8) ? im.type(8) : TP::UINT8;
  auto r = rangeOf(im, to);
  if (failed(sa) || failed(sb) || failed(sy) || failed(r))
    return failure();
  Value s = alpha == 1.0 ? *sa : im.scalar(*sa, "mul", alpha);
  Value zy = im.has(8) ? im.reshape(im.val(8), {}) : Value();
  return im.out(0, requantize(im, p, multiplier(im, s, *sb, *sy), zy, to, *r));
}

/// com.microsoft QLinearAdd, ONNX Runtime's quantized Add (what its QDQ
/// fusion makes of two DequantizeLinear -> Add -> QuantizeLinear), as its
/// x86 kernel computes it, in float32: with rA = A_scale / C_scale, rB =
/// B_scale / C_scale and f = C_zero_point - (A_zero_point * rA +
/// B_zero_point * rB), C = saturate(round(fma(A, rA, fma(B, rB, f)))),
/// rounded half to even. Scales and zero points are per tensor.
LogicalResult importQLinearAdd(Importer &im, StringRef) {
  if (failed(require8Bit(im, 0, "A")))
    return failure();
  if (im.type(3) != im.type(0))
    return im.fail("B has type " + typeName(im.type(3)) + ", not A's " +
                   typeName(im.type(0)));
  int32_t to = im.type(0);
  auto r = rangeOf(im, to);
  auto sa = perTensor(im, 1, "A_scale"), sb = perTensor(im, 4, "B_scale"),
       sc = perTensor(im, 6, "C_scale");
  if (failed(r) || failed(sa) || failed(sb) || failed(sc))
    return failure();
  auto ratio = [&](Value s) {
    return im.binary(im.castTo(s, TP::FLOAT), im.castTo(*sc, TP::FLOAT), "div");
  };
  Value ra = ratio(*sa), rb = ratio(*sb);
  // f = zc - (za * rA + zb * rB); an absent zero point is 0.
  Value fixed = im.scalarParam(TP::FLOAT, 0.0, "zero");
  for (auto [zi, rv] : {std::pair{2u, ra}, std::pair{5u, rb}}) {
    if (!im.has(zi))
      continue;
    auto z = perTensor(im, zi, zi == 2 ? "A_zero_point" : "B_zero_point", 0);
    if (failed(z))
      return failure();
    fixed =
        im.binary(fixed, im.binary(im.castTo(*z, TP::FLOAT), rv, "mul"), "add");
  }
  Value zc = im.scalarParam(TP::FLOAT, 0.0, "zero");
  if (im.has(7)) {
    auto z = perTensor(im, 7, "C_zero_point", 0);
    if (failed(z))
      return failure();
    zc = im.castTo(*z, TP::FLOAT);
  }
  fixed = im.binary(zc, fixed, "sub");
  Value c = fusedMultiplyAdd(im, im.val(0), ra,
                             fusedMultiplyAdd(im, im.val(3), rb, fixed));
  c = im.op("mx.clip", im.unary(c, "round"),
            {im.na("a_min", im.f64(r->lo)), im.na("a_max", im.f64(r->hi))});
  return im.out(0, im.castTo(c, to));
}

} // namespace mxc::onnx
