// SPDX-License-Identifier: Apache-2.0
// ONNX's elementwise operators: arithmetic and logic (folded on the host
// when every input is a constant, for shape arithmetic), comparisons, unary
// math, activations, Cast, Clip, Where, the float predicates and Dropout.
#include "compiler/frontends/onnx/ImporterImpl.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <limits>
#include <random>

using namespace mlir;

namespace mxc::onnx {

/// `fn` (mx.binary's or mx.compare's name) of two constants, broadcast, or
/// nothing when it is left to run time.
static std::optional<Const> foldBinary(const Const &a, const Const &c,
                                       StringRef fn) {
  auto shapeOut = broadcastShapes({a.shape, c.shape});
  // uint64 values past INT64_MAX would fold as negative: left to run time.
  if (!shapeOut || a.type == TP::UINT64 || c.type == TP::UINT64)
    return std::nullopt;
  bool cmp = fn == "equal" || fn == "greater" || fn == "less" ||
             fn == "greater_equal" || fn == "less_equal";
  Const r(cmp ? (int32_t)TP::BOOL : a.type, *shapeOut);
  auto ia = broadcastIndex(a.shape, *shapeOut);
  auto ic = broadcastIndex(c.shape, *shapeOut);
  bool fl = a.isFloat();
  for (int64_t k = 0; k < r.size(); ++k) {
    if (fl) {
      double x = a.f(ia[k]), y = c.f(ic[k]);
      double v = fn == "add"             ? x + y
                 : fn == "sub"           ? x - y
                 : fn == "mul"           ? x * y
                 : fn == "div"           ? x / y
                 : fn == "power"         ? std::pow(x, y)
                 : fn == "maximum"       ? std::max(x, y)
                 : fn == "minimum"       ? std::min(x, y)
                 : fn == "fmod"          ? std::fmod(x, y)
                 : fn == "equal"         ? double(x == y)
                 : fn == "greater"       ? double(x > y)
                 : fn == "less"          ? double(x < y)
                 : fn == "greater_equal" ? double(x >= y)
                 : fn == "less_equal"    ? double(x <= y)
                                         : NAN;
      if (std::isnan(v) && fn != "div" && fn != "power" && fn != "fmod" &&
          !std::isnan(x) && !std::isnan(y))
        return std::nullopt;
      r.set(k, v);
      continue;
    }
    int64_t x = a.i(ia[k]), y = c.i(ic[k]);
    if ((fn == "div" || fn == "mod" || fn == "fmod") && y == 0)
      return std::nullopt;
    // Two's-complement wrapping, as the integer ops of a compiled model or
    // ONNX Runtime on x86 compute (C++ leaves signed overflow undefined).
    auto wrap = [](uint64_t u) { return (int64_t)u; };
    int64_t v;
    if (fn == "add")
      v = wrap((uint64_t)x + (uint64_t)y);
    else if (fn == "sub")
      v = wrap((uint64_t)x - (uint64_t)y);
    else if (fn == "mul")
      v = wrap((uint64_t)x * (uint64_t)y);
    else if (fn == "div")
      v = y == -1 ? wrap(0 - (uint64_t)x) : x / y;
    else if (fn == "fmod")
      v = y == -1 ? 0 : x % y;
    else if (fn == "mod") {
      v = y == -1 ? 0 : x % y;
      if (v != 0 && (v < 0) != (y < 0))
        v += y; // opposite signs: cannot overflow
    } else if (fn == "maximum")
      v = std::max(x, y);
    else if (fn == "minimum")
      v = std::min(x, y);
    else if (fn == "power")
      v = floatToInt64(std::pow((double)x, (double)y));
    else if (fn == "and")
      v = x && y;
    else if (fn == "or")
      v = x || y;
    else if (fn == "xor")
      v = bool(x) != bool(y);
    else if (fn == "equal")
      v = x == y;
    else if (fn == "greater")
      v = x > y;
    else if (fn == "less")
      v = x < y;
    else if (fn == "greater_equal")
      v = x >= y;
    else if (fn == "less_equal")
      v = x <= y;
    else
      return std::nullopt;
    r.setInt(k, v);
  }
  return r;
}

/// Add, Sub, Mul, Div, Pow, Mod, Max, Min, Sum, Mean, And, Or, Xor,
/// BitShift.
LogicalResult importElementwise(Importer &im, StringRef t) {
  StringRef fn = llvm::StringSwitch<StringRef>(t)
                     .Cases({"Add", "Sum", "Mean"}, "add")
                     .Case("Sub", "sub")
                     .Case("Mul", "mul")
                     .Case("Div", "div")
                     .Case("Pow", "power")
                     .Case("Mod", "mod")
                     .Case("Max", "maximum")
                     .Case("Min", "minimum")
                     .Case("And", "and")
                     .Case("Or", "or")
                     .Case("Xor", "xor")
                     .Case("BitShift", "shift");
  if (t == "BitShift") {
    std::string direction = im.attrStr("direction", "");
    if (direction != "LEFT" && direction != "RIGHT")
      return im.fail("direction '" + direction + "' is not LEFT or RIGHT");
    fn = direction == "LEFT" ? "shift_left" : "shift_right";
  }
  if (t == "Mod" && im.attrInt("fmod", 0))
    fn = "fmod";
  if (t == "Mod" && fn == "mod" && isFloatType(im.type(0)))
    return im.fail("fmod=0 is not defined for floating-point inputs");
  int n = im.node->input_size();
  if (n < 1 ||
      (n != 2 && !(t == "Sum" || t == "Mean" || t == "Max" || t == "Min")))
    return im.fail("expects 2 inputs, got " + Twine(n));
  // Opsets before 7: `broadcast` aligns B with A at `axis` instead of NumPy's
  // trailing alignment.
  std::vector<int64_t> rhsShape = im.shape(n - 1);
  bool legacy = false;
  if (im.attr("broadcast") && im.attrInt("broadcast", 0)) {
    int64_t ra = im.rank(0), rb = rhsShape.size();
    int64_t axis = im.attrInt("axis", ra - rb);
    if (axis < 0)
      axis += ra;
    if (axis < 0 || axis + rb > ra)
      return im.fail("broadcast axis " + Twine(im.attrInt("axis", ra - rb)) +
                     " does not fit shapes " + shapeText(im.shape(0)) +
                     " and " + shapeText(rhsShape));
    rhsShape.resize(ra - axis, 1);
    legacy = true;
  } else {
    im.ignoreAttrs({"axis"});
  }
  im.ignoreAttrs({"consumed_inputs"});

  // Pow: the exponent may have another type than the base.
  auto operandType = im.type(0);
  if (im.allConst()) {
    Const acc = *im.cst(0);
    bool ok = true;
    for (int i = 1; i < n && ok; ++i) {
      Const rhs = *im.cst(i);
      if (i == n - 1 && legacy)
        rhs.shape = rhsShape;
      if (rhs.type != acc.type) {
        Const conv(acc.type, rhs.shape);
        for (int64_t k = 0; k < rhs.size(); ++k)
          conv.copy(k, rhs, k);
        rhs = std::move(conv);
      }
      auto r = foldBinary(acc, rhs, fn);
      ok = r.has_value();
      if (ok)
        acc = std::move(*r);
    }
    if (ok && t == "Mean") {
      Const d = acc;
      for (int64_t k = 0; k < d.size(); ++k)
        d.set(k, acc.f(k) / n);
      acc = std::move(d);
    }
    if (ok)
      return im.outConst(0, std::move(acc));
  }

  // Pow by one constant exponent on floats (LayerNorm's Pow(x - mean, 2)):
  // mx.scalar, whose lowering squares with a multiply instead of calling
  // powf, when the exponent adds no axes.
  if (t == "Pow" && isFloatType(operandType) && !legacy)
    if (const Const *e = im.cst(1);
        e && e->size() >= 1 && im.shape(1).size() <= im.shape(0).size() &&
        llvm::all_of(im.shape(1), [](int64_t d) { return d == 1; })) {
      bool splat = true;
      for (int64_t k = 1; k < e->size(); ++k)
        splat = splat && e->f(k) == e->f(0);
      if (splat)
        return im.out(0, im.scalar(im.val(0), "power", e->f(0)));
    }

  Value acc = im.val(0);
  for (int i = 1; i < n; ++i) {
    Value rhs = im.val(i);
    if (i == n - 1 && legacy)
      rhs = im.reshape(rhs, rhsShape);
    if (rhs && im.type(i) != operandType) {
      if (t != "Pow")
        return im.fail("input element types " + typeName(operandType) +
                       " and " + typeName(im.type(i)) + " differ");
      rhs = im.castTo(rhs, operandType);
    }
    if (fn == "fmod" && isFloatType(operandType)) {
      // C fmod: a - trunc(a / b) * b, trunc(q) = sign(q) * floor(|q|).
      Value q = im.binary(acc, rhs, "div");
      Value tq = im.binary(im.unary(q, "sign"),
                           im.unary(im.unary(q, "abs"), "floor"), "mul");
      acc = im.binary(acc, im.binary(tq, rhs, "mul"), "sub");
    } else if (fn == "fmod") {
      // Integer division truncates, so this is C's remainder.
      acc = im.binary(acc, im.binary(im.binary(acc, rhs, "div"), rhs, "mul"),
                      "sub");
    } else {
      acc = im.binary(acc, rhs, fn);
    }
  }
  if (t == "Mean")
    acc = im.scalar(acc, "div", n);
  return im.out(0, acc);
}

/// Equal, Greater, Less, GreaterOrEqual, LessOrEqual.
LogicalResult importCompare(Importer &im, StringRef t) {
  // mx.compare's names: "equal", "greater", ..., "greater_equal".
  std::string fn = t.consume_back("OrEqual") ? t.lower() + "_equal" : t.lower();
  if (im.type(0) != im.type(1))
    return im.fail("input element types " + typeName(im.type(0)) + " and " +
                   typeName(im.type(1)) + " differ");
  if (im.allConst())
    if (auto r = foldBinary(*im.cst(0), *im.cst(1), fn))
      return im.outConst(0, std::move(*r));
  return im.out(0, im.compare(im.val(0), im.val(1), fn));
}

/// The math functions of one input (mx.unary's names), and Not.
LogicalResult importUnary(Importer &im, StringRef t) {
  im.ignoreAttrs({"consumed_inputs"});
  std::string fn = t == "Neg" ? "negative" : t.lower();
  if (const Const *c = im.cst(0)) {
    // Host folding of the few unary ops that shape arithmetic uses (trip
    // counts: Range's function body takes ceil of a quotient).
    if (t == "Neg" || t == "Not" || t == "Abs" || t == "Ceil" || t == "Floor") {
      Const r = *c;
      for (int64_t k = 0; k < r.size(); ++k) {
        if (t == "Not")
          r.setInt(k, !c->i(k));
        else if (c->isFloat())
          r.set(k, t == "Neg"    ? -c->f(k)
                   : t == "Abs"  ? std::fabs(c->f(k))
                   : t == "Ceil" ? std::ceil(c->f(k))
                                 : std::floor(c->f(k)));
        else
          r.setInt(k, t == "Neg"   ? -c->i(k)
                      : t == "Abs" ? std::abs(c->i(k))
                                   : c->i(k));
      }
      return im.outConst(0, std::move(r));
    }
  }
  return im.out(0, im.unary(im.val(0), fn));
}

LogicalResult importActivation(Importer &im, StringRef t) {
  Value x = im.val(0);
  bool fl = im.has(0) && isFloatType(im.type(0));
  im.ignoreAttrs({"consumed_inputs"});
  if (t == "Relu") {
    if (const Const *c = im.cst(0)) { // shape arithmetic, folded on the host
      Const r = *c;
      for (int64_t k = 0; k < r.size(); ++k) {
        if (c->isFloat())
          r.set(k, std::max(c->f(k), 0.0));
        else
          r.setInt(k, std::max<int64_t>(c->i(k), 0));
      }
      return im.outConst(0, std::move(r));
    }
    if (!fl)
      return im.out(0, im.scalar(x, "maximum", 0.0));
    return im.out(
        0, im.op("mx.Activation", x, {im.na("act_type", im.str("relu"))}));
  }
  if (failed(im.requireFloat(0)))
    return failure();
  if (t == "Sigmoid" || t == "Tanh" || t == "Softplus" || t == "Softsign") {
    StringRef act = t == "Sigmoid"    ? "sigmoid"
                    : t == "Tanh"     ? "tanh"
                    : t == "Softplus" ? "softrelu"
                                      : "softsign";
    return im.out(0,
                  im.op("mx.Activation", x, {im.na("act_type", im.str(act))}));
  }
  auto leaky = [&](Value v, StringRef act, double slope) {
    return im.op(
        "mx.LeakyReLU", v,
        {im.na("act_type", im.str(act)), im.na("slope", im.f64(slope))});
  };
  if (t == "LeakyRelu")
    return im.out(0, leaky(x, "leaky", im.attrFloat("alpha", 0.01)));
  if (t == "Elu")
    return im.out(0, leaky(x, "elu", im.attrFloat("alpha", 1.0)));
  if (t == "Selu") {
    double alpha = im.attrFloat("alpha", 1.67326319217681884765625);
    double gamma = im.attrFloat("gamma", 1.05070102214813232421875);
    return im.out(0, im.scalar(leaky(x, "elu", alpha), "mul", gamma));
  }
  if (t == "Celu") {
    // alpha * elu(x / alpha)
    double alpha = im.attrFloat("alpha", 1.0);
    return im.out(0, im.scalar(leaky(im.scalar(x, "div", alpha), "elu", 1.0),
                               "mul", alpha));
  }
  if (t == "HardSigmoid" || t == "HardSwish") {
    double alpha = t == "HardSwish" ? 1.0 / 6 : im.attrFloat("alpha", 0.2);
    double beta = t == "HardSwish" ? 0.5 : im.attrFloat("beta", 0.5);
    Value h =
        im.op("mx.clip", im.scalar(im.scalar(x, "mul", alpha), "add", beta),
              {im.na("a_min", im.f64(0.0)), im.na("a_max", im.f64(1.0))});
    return im.out(0, t == "HardSwish" ? im.binary(x, h, "mul") : h);
  }
  if (t == "ThresholdedRelu") {
    // x > alpha ? x : 0
    Const a(im.type(0), {}), zero(im.type(0), {});
    a.set(0, im.attrFloat("alpha", 1.0));
    Value cond = im.compare(x, im.param(a, "alpha"), "greater");
    return im.out(0, im.op("mx.where", {cond, x, im.param(zero, "zero")}));
  }
  // PRelu: max(0, x) + slope * min(0, x), the slope broadcasting to x.
  Value slope = im.val(1);
  auto xs = im.shape(0), ss = im.shape(1);
  if (im.opset < 7 && ss.size() == 1 && xs.size() > 2 && ss[0] == xs[1]) {
    // Before opset 7 a 1-D slope is per channel (axis 1).
    std::vector<int64_t> s(xs.size() - 1, 1);
    s[0] = ss[0];
    slope = im.reshape(slope, s);
  }
  Value pos = im.scalar(x, "maximum", 0.0), neg = im.scalar(x, "minimum", 0.0);
  return im.out(0, im.binary(pos, im.binary(neg, slope, "mul"), "add"));
}

/// Cast, and CastLike (the type of input 1).
LogicalResult importCast(Importer &im, StringRef t) {
  int32_t to =
      t == "Cast" ? (int32_t)im.attrInt("to", TP::UNDEFINED) : im.type(1);
  if (t == "Cast")
    im.attr("saturate");
  if (const Const *c = im.cst(0)) {
    if (!isFloatType(to) && to != TP::INT64 && to != TP::INT32 &&
        to != TP::INT8 && to != TP::UINT8 && to != TP::BOOL &&
        to != TP::INT16 && to != TP::UINT16 && to != TP::UINT32)
      return im.fail("cast to " + typeName(to) + " is not supported");
    Const o(to, c->shape);
    for (int64_t k = 0; k < c->size(); ++k) {
      if (c->isFloat())
        o.set(k,
              !o.isFloat() && to != TP::BOOL ? std::trunc(c->f(k)) : c->f(k));
      else
        o.setInt(k, c->i(k));
    }
    return im.outConst(0, std::move(o));
  }
  if (!elementType(to, &im.ctx))
    return im.fail("cast to " + typeName(to) + " is not supported");
  return im.out(0, im.castTo(im.val(0), to));
}

LogicalResult importClip(Importer &im, StringRef) {
  int32_t t = im.type(0);
  double lo, hi;
  if (isFloatType(t)) {
    lo = -std::numeric_limits<double>::infinity();
    hi = std::numeric_limits<double>::infinity();
  } else {
    // The largest bounds that survive a round trip through f64.
    int64_t bits = t == TP::INT64 ? 64 : t == TP::INT32 ? 32 : 8;
    lo = bits == 64 ? -9223372036854774784.0 : -std::ldexp(1.0, bits - 1);
    hi = bits == 64 ? 9223372036854774784.0 : std::ldexp(1.0, bits - 1) - 1;
  }
  if (im.opset < 11) {
    im.ignoreAttrs({"consumed_inputs"});
    lo = im.attrFloat("min", lo);
    hi = im.attrFloat("max", hi);
  } else {
    // Bounds computed at run time clamp with maximum / minimum.
    if ((im.has(1) && !im.cst(1)) || (im.has(2) && !im.cst(2))) {
      Value y = im.val(0);
      for (unsigned i : {1u, 2u}) {
        if (!im.has(i))
          continue;
        if (im.rank(i) != 0 && numElements(im.shape(i)) != 1)
          return im.fail("min and max must be scalars");
        y = im.binary(y, im.reshape(im.val(i), {}),
                      i == 1 ? "maximum" : "minimum");
      }
      return im.out(0, y);
    }
    for (auto [i, bound, name] :
         {std::tuple(1u, &lo, "min"), std::tuple(2u, &hi, "max")}) {
      if (!im.has(i))
        continue;
      auto v = im.constScalar(i, name);
      if (failed(v))
        return failure();
      *bound = *v;
    }
  }
  if (lo > hi)
    return im.fail("min " + std::to_string(lo) + " exceeds max " +
                   std::to_string(hi));
  return im.out(
      0, im.op("mx.clip", im.val(0),
               {im.na("a_min", im.f64(lo)), im.na("a_max", im.f64(hi))}));
}

LogicalResult importWhere(Importer &im, StringRef) {
  if (im.type(0) != TP::BOOL)
    return im.fail("the condition must be a bool tensor");
  if (im.allConst()) {
    auto os = broadcastShapes({im.shape(0), im.shape(1), im.shape(2)});
    if (!os)
      return im.fail("shapes do not broadcast");
    const Const &cond = *im.cst(0), &x = *im.cst(1), &y = *im.cst(2);
    Const o(im.type(1), *os);
    auto ic = broadcastIndex(cond.shape, *os),
         ix = broadcastIndex(x.shape, *os), iy = broadcastIndex(y.shape, *os);
    for (int64_t k = 0; k < o.size(); ++k)
      o.copy(k, cond.i(ic[k]) ? x : y, cond.i(ic[k]) ? ix[k] : iy[k]);
    return im.outConst(0, std::move(o));
  }
  return im.out(0, im.op("mx.where", {im.val(0), im.val(1), im.val(2)}));
}

LogicalResult importIsNaN(Importer &im, StringRef) {
  if (failed(im.requireFloat(0)))
    return failure();
  // Only NaN compares unequal to itself (not_equal is unordered).
  return im.out(0, im.compare(im.val(0), im.val(0), "not_equal"));
}

LogicalResult importIsInf(Importer &im, StringRef) {
  if (failed(im.requireFloat(0)))
    return failure();
  bool neg = im.attrInt("detect_negative", 1),
       pos = im.attrInt("detect_positive", 1);
  double inf = std::numeric_limits<double>::infinity();
  auto equal = [&](Value v, double s) {
    return im.compare(v, im.scalarParam(im.type(0), s, "inf"), "equal");
  };
  if (neg && pos)
    return im.out(0, equal(im.unary(im.val(0), "abs"), inf));
  if (neg || pos)
    return im.out(0, equal(im.val(0), pos ? inf : -inf));
  return im.outConst(0, Const(TP::BOOL, im.shape(0)));
}

LogicalResult importShrink(Importer &im, StringRef) {
  if (failed(im.requireFloat(0)))
    return failure();
  double lambd = im.attrFloat("lambd", 0.5), bias = im.attrFloat("bias", 0.0);
  // x < -lambd ? x + bias : (x > lambd ? x - bias : 0)
  Value x = im.val(0);
  auto compare = [&](StringRef fn, double s, StringRef name) {
    return im.compare(x, im.scalarParam(im.type(0), s, name), fn);
  };
  Value high = im.op("mx.where", {compare("greater", lambd, "lambd"),
                                  im.scalar(x, "sub", bias),
                                  im.scalarParam(im.type(0), 0.0, "zero")});
  return im.out(0, im.op("mx.where", {compare("less", -lambd, "neg_lambd"),
                                      im.scalar(x, "add", bias), high}));
}

/// Dropout in training mode with a `seed`: the mask is fixed by the seed,
/// so it is drawn at compile time, from MT19937 seeded with it and NumPy's
/// uniform doubles (53 bits from two draws), as ONNX's reference
/// implementation draws it: kept where u >= ratio, scaled by 1 / (1 -
/// ratio). Every call applies the same mask.
/// The uniform draws in [0, 1) of a training Dropout, one per element of
/// input 0: NumPy's for the node's seed (MT19937, 53-bit doubles), so the
/// mask is the one the model's reference draws.
static FailureOr<Const> dropoutDraws(Importer &im) {
  auto seed = im.attrInt("seed", -1);
  if (!im.attr("seed") || seed < 0 || seed > 0xffffffffll)
    return im.fail("training_mode=true needs a seed attribute in [0, 2^32) "
                   "(the mask is drawn at compile time)");
  if (failed(im.requireFloat(0)))
    return failure();
  std::mt19937 gen{static_cast<uint32_t>(seed)};
  Const draws(TP::DOUBLE, im.shape(0));
  for (int64_t k = 0; k < draws.size(); ++k) {
    uint32_t a = gen() >> 5, b = gen() >> 6;
    draws.set(k, (a * 67108864.0 + b) / 9007199254740992.0);
  }
  return draws;
}

static LogicalResult importSeededDropout(Importer &im, double ratio) {
  if (!(ratio > 0 && ratio < 1))
    return im.fail("ratio " + std::to_string(ratio) + " is not in [0, 1)");
  auto draws = dropoutDraws(im);
  if (failed(draws))
    return failure();
  Const scale(im.type(0), im.shape(0)), mask(TP::BOOL, im.shape(0));
  for (int64_t k = 0; k < scale.size(); ++k) {
    bool keep = draws->f(k) >= ratio;
    scale.set(k, keep ? 1.0 / (1.0 - ratio) : 0.0);
    mask.setInt(k, keep);
  }
  Value y = im.binary(im.val(0), im.param(scale, im.nodeName + "_mask"), "mul");
  if (im.wants(1) && failed(im.outConst(1, std::move(mask))))
    return failure();
  return im.out(0, y);
}

/// A Dropout whose training_mode or ratio is known only at run time: the
/// draws fixed at compile time, their comparison with the ratio and the
/// choice between training and inference made at run time.
static LogicalResult importRunTimeDropout(Importer &im) {
  auto draws = dropoutDraws(im);
  if (failed(draws))
    return failure();
  if (numElements(im.shape(2)) != 1 ||
      (im.has(1) && numElements(im.shape(1)) != 1))
    return im.fail("ratio and training_mode must be scalars");
  Value ratio = im.has(1) ? im.reshape(im.castTo(im.val(1), TP::DOUBLE), {})
                          : im.scalarParam(TP::DOUBLE, 0.5, "ratio");
  Value train = im.reshape(im.val(2), {});
  Value keep = im.compare(im.param(*draws, im.nodeName + "_draws"), ratio,
                          "greater_equal");
  Value gain = im.scalar(im.scalar(ratio, "sub", 1, true), "div", 1, true);
  Value scale = im.castTo(
      im.where(keep, gain, im.scalarParam(TP::DOUBLE, 0, "zero")), im.type(0));
  Value x = im.val(0);
  if (im.wants(1) &&
      failed(im.out(
          1, im.where(train, keep, im.scalarParam(TP::BOOL, 1, "keep_all")))))
    return failure();
  return im.out(0, im.where(train, im.binary(x, scale, "mul"), x));
}

LogicalResult importDropout(Importer &im, StringRef) {
  im.ignoreAttrs({"is_test", "ratio", "consumed_inputs"});
  if (im.has(2)) {
    const Const *train = im.cst(2), *ratio = im.cst(1);
    bool inference = train && !(train->size() && train->i(0));
    if (!inference && (!train || (im.has(1) && !ratio)))
      return importRunTimeDropout(im);
    // Training with ratio 0 keeps everything, as inference does.
    double p = im.has(1) && ratio ? ratio->f(0) : 0.5;
    if (!inference && p != 0)
      return importSeededDropout(im, p);
  }
  im.attr("seed");
  if (im.wants(1)) {
    // The mask of an inference dropout keeps everything.
    Const mask(TP::BOOL, im.shape(0));
    for (int64_t k = 0; k < mask.size(); ++k)
      mask.setInt(k, 1);
    (void)im.outConst(1, std::move(mask));
  }
  return im.forward(0, 0);
}

} // namespace mxc::onnx
