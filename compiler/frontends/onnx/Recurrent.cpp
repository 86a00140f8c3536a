// SPDX-License-Identifier: Apache-2.0
// ONNX's recurrent layers RNN, GRU and LSTM (every direction, activation,
// clip, sequence lengths, initial states, peepholes, layout), unrolled over
// their static sequence length. The input projection of the whole sequence
// is one product (mx.FullyConnected over seq x batch rows, the kernel's
// GEMM); each step adds one small product of the previous hidden state with
// the recurrence weights, then the gates' elementwise arithmetic, which the
// elementwise fusion makes one loop.
#include "compiler/frontends/onnx/ImporterImpl.h"

using namespace mlir;

namespace mxc::onnx {

namespace {

/// One recurrent node while it imports.
struct Recurrence {
  Importer &im;
  StringRef opType;
  int32_t type;
  int64_t seq = 0, batch = 0, inputSize = 0, hidden = 0, gates = 1, dirs = 1;
  double clip = 0;
  bool linearBeforeReset = false, inputForget = false;
  std::vector<std::string> activations;
  std::vector<float> alphas, betas;
  /// The current direction's first activation in `activations`.
  size_t firstActivation = 0;
  /// Whether (batch) valid-step masks apply (sequence_lens given).
  Value lengths;

  Value add(Value a, Value c) { return im.binary(a, c, "add"); }
  Value mul(Value a, Value c) { return im.binary(a, c, "mul"); }

  /// Input `i`'s slab `d` along axis 0 (its direction), shape minus axis 0:
  /// on the host when it is constant.
  Value slab(unsigned i, int64_t d) {
    auto s = im.shape(i);
    std::vector<int64_t> rest(s.begin() + 1, s.end());
    if (const Const *c = im.cst(i)) {
      Const part(c->type, rest);
      int64_t n = numElements(rest);
      for (int64_t k = 0; k < n; ++k)
        part.copy(k, *c, d * n + k);
      return im.param(part, (im.node->input(i) + "_" + Twine(d)).str());
    }
    return im.op("mx.gather",
                 {im.val(i),
                  im.param(Const::ofInts({d}, std::vector<int64_t>{}), "dir")},
                 {im.na("axis", im.i64(0))});
  }
  /// Columns [begin, end) of the last axis of `v` (rank 1 or 2).
  Value cols(Value v, int64_t begin, int64_t end) {
    auto s = cast<RankedTensorType>(v.getType()).getShape();
    SmallVector<int64_t> b(s.size(), 0), e(s.begin(), s.end());
    b.back() = begin;
    e.back() = end;
    return im.op("mx.slice", v,
                 {im.na("begin", im.arr(b)), im.na("end", im.arr(e))});
  }
  /// Gate `g` of a (batch, gates * hidden) or (gates * hidden) value.
  Value gate(Value v, int64_t g) {
    return cols(v, g * hidden, (g + 1) * hidden);
  }
  /// `x` + h W^T, where `zero` says h is all zeros (the first step from a
  /// zero initial state): then `x`, no product.
  Value addProduct(Value x, Value h, Value w, bool zero) {
    return zero ? x : add(x, product(h, w, Value()));
  }
  /// Direction d's input projection bias, Wb + Rb. The recurrence's bias
  /// is added in every step either way, so it joins the projection's: one
  /// add for the whole sequence, and the steps' products have no bias of
  /// their own, so that the matmul kernel reads the step's slice of the
  /// projection in place as theirs (not copied into its output to
  /// accumulate onto: a serial copy per step, 8% of an LSTM LM's time at
  /// batch 16 on two threads). GRU's candidate bias with
  /// linear_before_reset stays apart, in `kept`: the reset gate multiplies
  /// it. On the host when B is constant.
  Value projectionBias(int64_t d, Value &kept) {
    int64_t n = gates * hidden;
    int64_t joined = opType == "GRU" && linearBeforeReset ? 2 * hidden : n;
    if (const Const *c = im.cst(3)) {
      Const sum(c->type, {n}), rest(c->type, {n - joined});
      int64_t base = d * 2 * n;
      for (int64_t k = 0; k < n; ++k)
        sum.set(k, c->f(base + k) + (k < joined ? c->f(base + n + k) : 0.0));
      for (int64_t k = 0; k < n - joined; ++k)
        rest.copy(k, *c, base + n + joined + k);
      std::string name = (im.node->input(3) + "_" + Twine(d)).str();
      if (joined < n)
        kept = im.param(rest, name + "_candidate");
      return im.param(sum, name + "_input");
    }
    Value b = slab(3, d);
    Value rb = cols(b, n, n + joined);
    if (joined < n) {
      kept = cols(b, n + joined, 2 * n);
      rb =
          im.op("mx.Concat", {rb, im.param(Const(type, {n - joined}), "zeros")},
                {im.na("dim", im.i64(0))});
    }
    return add(cols(b, 0, n), rb);
  }
  /// Whether input `i`, an initial state, is zeros: absent, or a constant
  /// of zeros (PyTorch's export when no initial state is passed).
  bool zeroState(unsigned i) {
    if (!im.has(i))
      return true;
    const Const *c = im.cst(i);
    if (!c)
      return false;
    for (int64_t k = 0; k < c->size(); ++k)
      if (c->f(k) != 0.0)
        return false;
    return true;
  }
  /// x W^T (+ bias): `w` is (n, k), `x` (..., k).
  Value product(Value x, Value w, Value bias) {
    int64_t n = cast<RankedTensorType>(w.getType()).getShape()[0];
    SmallVector<Value, 3> operands = {x, w};
    if (bias)
      operands.push_back(bias);
    return im.op("mx.FullyConnected", operands,
                 {im.na("num_hidden", im.i64(n)),
                  im.na("no_bias", im.boolean(!bias)),
                  im.na("flatten", im.boolean(false))});
  }
  /// Activation `k` of the current direction applied to `x`, after clip
  /// (its alpha and beta, where it takes them, at the same position).
  Value activate(Value x, size_t k) {
    if (clip > 0)
      x = im.scalar(im.scalar(x, "maximum", -clip), "minimum", clip);
    k += firstActivation;
    const std::string &f = activations[k];
    auto param = [&](const std::vector<float> &v, double dflt) {
      return k < v.size() ? double(v[k]) : dflt;
    };
    auto positive = [&](Value v, double above) {
      return im.compare(v, im.scalarParam(type, above, "zero"), "greater");
    };
    if (f == "Tanh" || f == "Sigmoid" || f == "Relu" || f == "Softsign")
      return im.unary(x, StringRef(f).lower());
    if (f == "Softplus")
      return im.unary(x, "softrelu");
    if (f == "Affine")
      return im.scalar(im.scalar(x, "mul", param(alphas, 1.0)), "add",
                       param(betas, 0.0));
    if (f == "LeakyRelu")
      return im.where(positive(x, 0.0), x,
                      im.scalar(x, "mul", param(alphas, 0.01)));
    if (f == "ThresholdedRelu") {
      double a = param(alphas, 1.0);
      return im.where(positive(x, a), x, im.scalarParam(type, 0.0, "zero"));
    }
    if (f == "ScaledTanh")
      return im.scalar(im.unary(im.scalar(x, "mul", param(betas, 1.0)), "tanh"),
                       "mul", param(alphas, 1.0));
    if (f == "HardSigmoid")
      return im.scalar(
          im.scalar(im.scalar(im.scalar(x, "mul", param(alphas, 0.2)), "add",
                              param(betas, 0.5)),
                    "maximum", 0.0),
          "minimum", 1.0);
    // Elu
    Value e = im.scalar(im.scalar(im.unary(x, "exp"), "sub", 1.0), "mul",
                        param(alphas, 1.0));
    return im.where(positive(x, 0.0), x, e);
  }
  /// The (batch, 1) rows of step t within their sequence's length, or null
  /// without sequence_lens.
  Value validRows(int64_t t) {
    if (!lengths)
      return Value();
    return im.reshape(im.compare(lengths, im.int64Scalar(t), "greater"),
                      {batch, 1});
  }
  /// `fresh` in the `valid` rows, `old` in the others.
  Value keep(Value valid, Value fresh, Value old) {
    return valid ? im.where(valid, fresh, old) : fresh;
  }
  LogicalResult run();
};

LogicalResult Recurrence::run() {
  bool lstm = opType == "LSTM", gru = opType == "GRU";
  gates = lstm ? 4 : gru ? 3 : 1;
  type = im.type(0);
  if (failed(im.requireFloat(0)))
    return failure();
  std::string direction = im.attrStr("direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return im.fail("direction '" + direction +
                   "' is not one of forward, reverse and bidirectional");
  dirs = direction == "bidirectional" ? 2 : 1;
  int64_t layout = im.attrInt("layout", 0);
  if (layout != 0 && layout != 1)
    return im.fail("layout " + Twine(layout) + " is not 0 or 1");
  auto xs = im.shape(0);
  if (xs.size() != 3)
    return im.fail("X must be 3-D, got shape " + shapeText(xs));
  for (int64_t e : xs)
    if (ShapedType::isDynamic(e))
      return im.fail("X has a dynamic extent (shape " + shapeText(xs) +
                     "); the recurrence is unrolled over a static length");
  seq = layout ? xs[1] : xs[0];
  batch = layout ? xs[0] : xs[1];
  inputSize = xs[2];
  auto ws = im.shape(1), rs = im.shape(2);
  if (ws.size() != 3 || ws[0] != dirs || ws[1] % gates != 0 ||
      ws[2] != inputSize)
    return im.fail("W has shape " + shapeText(ws) + "; expected (" +
                   Twine(dirs) + ", " + Twine(gates) + " x hidden, " +
                   Twine(inputSize) + ")");
  hidden = ws[1] / gates;
  if (im.attr("hidden_size") && im.attrInt("hidden_size", 0) != hidden)
    return im.fail("hidden_size " + Twine(im.attrInt("hidden_size", 0)) +
                   " does not match W's " + Twine(hidden));
  if (rs != std::vector<int64_t>{dirs, gates * hidden, hidden})
    return im.fail("R has shape " + shapeText(rs) + "; expected (" +
                   Twine(dirs) + ", " + Twine(gates * hidden) + ", " +
                   Twine(hidden) + ")");
  auto expect = [&](unsigned i, std::vector<int64_t> shape,
                    StringRef what) -> LogicalResult {
    if (im.has(i) && im.shape(i) != shape)
      return im.fail(what + " has shape " + shapeText(im.shape(i)) +
                     "; expected " + shapeText(shape));
    if (im.has(i) && i != 4 && im.type(i) != type)
      return im.fail(what + " has element type " + typeName(im.type(i)) +
                     "; expected X's " + typeName(type));
    return success();
  };
  std::vector<int64_t> stateShape =
      layout ? std::vector<int64_t>{batch, dirs, hidden}
             : std::vector<int64_t>{dirs, batch, hidden};
  if (failed(expect(3, {dirs, 2 * gates * hidden}, "B")) ||
      failed(expect(4, {batch}, "sequence_lens")) ||
      failed(expect(5, stateShape, "initial_h")) ||
      (lstm && failed(expect(6, stateShape, "initial_c"))) ||
      (lstm && failed(expect(7, {dirs, 3 * hidden}, "P"))))
    return failure();
  if (im.type(1) != type || im.type(2) != type)
    return im.fail("W and R must have X's element type " + typeName(type));
  clip = im.attrFloat("clip", 0.0);
  if (im.attr("clip") && !(clip > 0))
    return im.fail("clip must be positive");
  linearBeforeReset = gru && im.attrInt("linear_before_reset", 0) != 0;
  inputForget = lstm && im.attrInt("input_forget", 0) != 0;
  std::vector<std::string> defaults =
      lstm  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
      : gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
            : std::vector<std::string>{"Tanh"};
  size_t perDir = defaults.size();
  if (auto *a = im.attr("activations")) {
    for (const auto &s : a->strings())
      activations.push_back(s);
    if (activations.size() != perDir * dirs)
      return im.fail("activations has " + Twine(activations.size()) +
                     " entries; expected " + Twine(perDir * dirs));
  } else {
    for (int64_t d = 0; d < dirs; ++d)
      activations.insert(activations.end(), defaults.begin(), defaults.end());
  }
  static const char *known[] = {
      "Tanh",       "Sigmoid",     "Relu",      "Softsign",
      "Softplus",   "Affine",      "LeakyRelu", "ThresholdedRelu",
      "ScaledTanh", "HardSigmoid", "Elu"};
  for (const std::string &f : activations)
    if (!llvm::is_contained(known, f))
      return im.fail("activation '" + f + "' is not supported");
  if (auto *a = im.attr("activation_alpha"))
    alphas.assign(a->floats().begin(), a->floats().end());
  if (auto *a = im.attr("activation_beta"))
    betas.assign(a->floats().begin(), a->floats().end());
  if (im.has(4)) {
    const Const *c = im.cst(4);
    bool full =
        c && llvm::all_of(c->intValues(), [&](int64_t l) { return l == seq; });
    if (!full)
      lengths = im.castTo(im.val(4), TP::INT64);
  }

  // Time-major X: (seq, batch, input).
  Value x = im.val(0);
  if (layout)
    x = im.op("mx.transpose", x, {im.na("axes", im.arr({1, 0, 2}))});
  SmallVector<Value> ys, hs, cs; // per direction: Y (seq, 1, batch, hidden)
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    firstActivation = d * perDir;
    Value w = slab(1, d), r = slab(2, d);
    // The input projection of every step at once: (seq, batch, gates*hidden),
    // with the recurrence's bias (see projectionBias); rbh is GRU's
    // candidate bias where it stays apart.
    Value rbh;
    Value xw = product(x, w, im.has(3) ? projectionBias(d, rbh) : Value());
    // GRU's candidate gate multiplies the reset gate before (linear before
    // reset) or after its recurrence product: its weights apart.
    Value rzr = r, rh;
    if (gru) {
      auto rows = [&](Value v, int64_t b0, int64_t e0) {
        auto s = cast<RankedTensorType>(v.getType()).getShape();
        SmallVector<int64_t> b(s.size(), 0), e(s.begin(), s.end());
        b[0] = b0;
        e[0] = e0;
        return im.op("mx.slice", v,
                     {im.na("begin", im.arr(b)), im.na("end", im.arr(e))});
      };
      rzr = rows(r, 0, 2 * hidden);
      rh = rows(r, 2 * hidden, 3 * hidden);
    }
    auto state = [&](unsigned i) -> Value {
      if (!im.has(i))
        return im.param(Const(type, {batch, hidden}), "zeros");
      Value v = im.val(i);
      if (layout)
        return im.reshape(im.op("mx.slice", v,
                                {im.na("begin", im.arr({0, d, 0})),
                                 im.na("end", im.arr({batch, d + 1, hidden}))}),
                          {batch, hidden});
      return im.reshape(im.op("mx.slice", v,
                              {im.na("begin", im.arr({d, 0, 0})),
                               im.na("end", im.arr({d + 1, batch, hidden}))}),
                        {batch, hidden});
    };
    Value h = state(5), c = lstm ? state(6) : Value();
    // The first step's products with a zero state are their biases alone.
    bool hZero = zeroState(5);
    Value pi, po, pf;
    if (lstm && im.has(7)) {
      Value p = slab(7, d);
      pi = cols(p, 0, hidden);
      po = cols(p, hidden, 2 * hidden);
      pf = cols(p, 2 * hidden, 3 * hidden);
    }
    Value zeros =
        lengths ? im.param(Const(type, {batch, hidden}), "zeros") : Value();
    SmallVector<Value> steps(seq);
    for (int64_t k = 0; k < seq; ++k) {
      int64_t t = reverse ? seq - 1 - k : k;
      Value xt = im.reshape(
          im.op("mx.slice", xw,
                {im.na("begin", im.arr({t, 0, 0})),
                 im.na("end", im.arr({t + 1, batch, gates * hidden}))}),
          {batch, gates * hidden});
      Value hNew, cNew;
      bool zero = hZero && k == 0;
      if (gru) {
        Value zr = addProduct(cols(xt, 0, 2 * hidden), h, rzr, zero);
        Value z = activate(gate(zr, 0), 0), rg = activate(gate(zr, 1), 0);
        Value xh = gate(xt, 2), cand;
        if (linearBeforeReset && zero)
          cand = rbh ? add(xh, mul(rg, rbh)) : xh;
        else if (linearBeforeReset)
          cand = add(xh, mul(rg, product(h, rh, rbh)));
        else
          cand = addProduct(xh, mul(rg, h), rh, zero);
        cand = activate(cand, 1);
        // (1 - z) cand + z h = cand + z (h - cand)
        hNew = add(cand, mul(z, im.binary(h, cand, "sub")));
      } else if (lstm) {
        Value g = addProduct(xt, h, r, zero);
        Value gi = gate(g, 0), go = gate(g, 1), gf = gate(g, 2),
              gc = gate(g, 3);
        if (pi)
          gi = add(gi, mul(pi, c));
        Value i = activate(gi, 0);
        Value f;
        if (inputForget) {
          f = im.scalar(i, "sub", 1.0, /*reverse=*/true);
        } else {
          if (pf)
            gf = add(gf, mul(pf, c));
          f = activate(gf, 0);
        }
        cNew = add(mul(f, c), mul(i, activate(gc, 1)));
        if (po)
          go = add(go, mul(po, cNew));
        hNew = mul(activate(go, 0), activate(cNew, 2));
      } else {
        hNew = activate(addProduct(xt, h, r, zero), 0);
      }
      if (!hNew)
        return failure();
      Value valid = validRows(t);
      steps[t] = keep(valid, hNew, zeros);
      h = keep(valid, hNew, h);
      if (lstm)
        c = keep(valid, cNew, c);
    }
    if (im.wants(0)) {
      SmallVector<Value> rowsOfY;
      for (Value s : steps)
        rowsOfY.push_back(im.reshape(s, {1, 1, batch, hidden}));
      ys.push_back(
          seq == 1 ? rowsOfY[0]
                   : im.op("mx.Concat", rowsOfY, {im.na("dim", im.i64(0))}));
    }
    hs.push_back(im.reshape(h, {1, batch, hidden}));
    if (lstm)
      cs.push_back(im.reshape(c, {1, batch, hidden}));
  }
  auto join = [&](SmallVector<Value> &parts, int64_t dim) {
    return parts.size() == 1
               ? parts[0]
               : im.op("mx.Concat", parts, {im.na("dim", im.i64(dim))});
  };
  if (im.wants(0)) {
    Value y = join(ys, 1); // (seq, dirs, batch, hidden)
    if (layout)
      y = im.op("mx.transpose", y, {im.na("axes", im.arr({2, 0, 1, 3}))});
    if (failed(im.out(0, y)))
      return failure();
  }
  auto finalState = [&](SmallVector<Value> &parts) {
    Value v = join(parts, 0); // (dirs, batch, hidden)
    return layout ? im.op("mx.transpose", v, {im.na("axes", im.arr({1, 0, 2}))})
                  : v;
  };
  if (im.wants(1) && failed(im.out(1, finalState(hs))))
    return failure();
  if (lstm && im.wants(2) && failed(im.out(2, finalState(cs))))
    return failure();
  return success();
}

} // namespace

LogicalResult importRecurrent(Importer &im, StringRef opType) {
  Recurrence r{im, opType, 0};
  return r.run();
}

} // namespace mxc::onnx
