// SPDX-License-Identifier: Apache-2.0
// ONNX's optimizer operators (domain ai.onnx.preview.training): one update
// step of Adagrad, Adam or Momentum for n tensors at once, as elementwise mx
// ops. The inputs are the learning rate R and step count T (scalars), then n
// tensors X, n gradients G, and n (Adagrad, Momentum) or 2n (Adam) states;
// the outputs the n new tensors, then the new states.
#include "compiler/frontends/onnx/ImporterImpl.h"

using namespace mlir;

namespace mxc::onnx {

namespace {

/// The arithmetic of one update on tensors of one float type.
struct Update {
  Importer &im;
  int32_t type;
  Value add(Value a, Value c) { return im.binary(a, c, "add"); }
  Value sub(Value a, Value c) { return im.binary(a, c, "sub"); }
  Value mul(Value a, Value c) { return im.binary(a, c, "mul"); }
  Value div(Value a, Value c) { return im.binary(a, c, "div"); }
  Value times(Value a, double s) { return im.scalar(a, "mul", s); }
  /// coefficient * x + g, the gradient with its L2 term.
  Value regularized(Value x, Value g, double coefficient) {
    return coefficient == 0.0 ? g : add(times(x, coefficient), g);
  }
};

} // namespace

LogicalResult importOptimizer(Importer &im, StringRef opType) {
  int states = opType == "Adam" ? 2 : 1;
  int64_t inputs = im.node->input_size(), outputs = im.node->output_size();
  if (inputs < 2 || (inputs - 2) % (2 + states) != 0)
    return im.fail("has " + Twine(inputs) + " inputs; expected R, T, then " +
                   Twine(2 + states) + " inputs per optimized tensor");
  int64_t n = (inputs - 2) / (2 + states);
  for (int64_t i = 0; i < inputs; ++i)
    if (!im.has(i))
      return im.fail("input " + Twine(i) + " is missing (every input of " +
                     opType + " is required)");
  if (outputs > n * (1 + states))
    return im.fail("has " + Twine(outputs) + " outputs; expected at most " +
                   Twine(n * (1 + states)));
  if (numElements(im.shape(0)) != 1 || numElements(im.shape(1)) != 1)
    return im.fail("R and T must be scalars");
  for (int64_t i = 2; i < inputs; ++i) {
    if (failed(im.requireFloat(i)))
      return failure();
    if (im.type(i) != im.type(2) || im.shape(i) != im.shape(2 + (i - 2) % n))
      return im.fail("input " + Twine(i) + " (" + typeName(im.type(i)) + " " +
                     shapeText(im.shape(i)) +
                     ") does not match the tensor it updates");
  }
  Update u{im, im.type(2)};
  Value r = im.reshape(im.castTo(im.val(0), u.type), {});
  Value t = im.reshape(im.val(1), {});
  Value tFloat = im.castTo(t, u.type);
  Value started = im.compare(t, im.int64Scalar(0), "greater");
  Value one = im.scalarParam(u.type, 1.0, "one");
  double norm = im.attrFloat("norm_coefficient", 0.0);
  auto x = [&](int64_t k) { return im.val(2 + k); };
  auto g = [&](int64_t k) { return im.val(2 + n + k); };
  auto state = [&](int s, int64_t k) { return im.val(2 + (2 + s) * n + k); };
  for (int64_t k = 0; k < n; ++k) {
    Value gr = u.regularized(x(k), g(k), norm), xNew;
    SmallVector<Value, 2> newStates;
    if (opType == "Adagrad") {
      double decay = im.attrFloat("decay_factor", 0.0);
      double eps = im.attrFloat("epsilon", 1e-6);
      // r / (1 + t * decay)
      Value rate =
          u.div(r, im.scalar(im.scalar(tFloat, "mul", decay), "add", 1.0));
      Value h = u.add(state(0, k), u.mul(gr, gr));
      Value root = im.scalar(im.unary(h, "sqrt"), "add", eps);
      xNew = u.sub(x(k), u.div(u.mul(rate, gr), root));
      newStates.push_back(h);
    } else if (opType == "Momentum") {
      double alpha = im.attrFloat("alpha", 0.0),
             beta = im.attrFloat("beta", 0.0);
      std::string mode = im.attrStr("mode", "standard");
      if (mode != "standard" && mode != "nesterov")
        return im.fail("mode '" + mode +
                       "' is not one of standard and nesterov");
      // beta from the second step on, 1 on the first
      Value b = im.where(started, im.scalarParam(u.type, beta, "beta"), one);
      Value v = u.add(u.times(state(0, k), alpha), u.mul(b, gr));
      Value step = mode == "standard" ? v : u.add(gr, u.times(v, alpha));
      xNew = u.sub(x(k), u.mul(r, step));
      newStates.push_back(v);
    } else { // Adam
      double alpha = im.attrFloat("alpha", 0.9),
             beta = im.attrFloat("beta", 0.999);
      double eps = im.attrFloat("epsilon", 1e-6);
      double post = im.attrFloat("norm_coefficient_post", 0.0);
      Value v = u.add(u.times(state(0, k), alpha), u.times(gr, 1.0 - alpha));
      Value h =
          u.add(u.times(state(1, k), beta), u.times(u.mul(gr, gr), 1.0 - beta));
      Value root = im.scalar(im.unary(h, "sqrt"), "add", eps);
      // r sqrt(1 - beta^t) / (1 - alpha^t) once t > 0: the bias correction
      auto power = [&](double base) {
        return im.scalar(tFloat, "power", base, /*reverse=*/true);
      };
      Value corrected = u.div(
          u.mul(r, im.unary(im.scalar(power(beta), "sub", 1.0, true), "sqrt")),
          im.scalar(power(alpha), "sub", 1.0, true));
      Value rate = im.where(started, corrected, r);
      xNew = u.sub(x(k), u.mul(rate, u.div(v, root)));
      if (post != 0.0)
        xNew = u.times(xNew, 1.0 - post);
      newStates.push_back(v);
      newStates.push_back(h);
    }
    if (failed(im.out(k, xNew)))
      return failure();
    for (int s = 0; s < states; ++s)
      if (failed(im.out((1 + s) * n + k, newStates[s])))
        return failure();
  }
  return success();
}

} // namespace mxc::onnx
