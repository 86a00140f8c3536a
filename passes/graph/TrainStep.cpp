// SPDX-License-Identifier: Apache-2.0
// Builds the training functions of a model (issue #4) from the gradient
// function that mxc-gradient derived: `@grad` (outputs and parameter
// gradients, nothing updated) and `@train_step` (outputs, then every
// parameter and optimizer state after one optimizer step, which the entry
// code writes back in place). The optimizers follow MXNet's update rules.
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"
#include "passes/graph/MxBuilders.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mxc {
#define GEN_PASS_DEF_TRAINSTEPPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc;
using namespace mxc::mx;
using namespace mxc::mx::build;

namespace {

/// Parameters (learned or moving statistics) and states (the dropout
/// counter): the arguments after the inputs.
bool isParamArg(func::FuncOp fn, unsigned i) {
  return fn.getArgAttr(i, "mx.param") || fn.getArgAttr(i, "mx.aux") ||
         fn.getArgAttr(i, "mx.state");
}

std::string argName(func::FuncOp fn, unsigned i) {
  if (auto n = fn.getArgAttrOfType<StringAttr>(i, "mx.name"))
    return n.str();
  return "arg" + std::to_string(i);
}

struct TrainStepPass : mxc::impl::TrainStepPassBase<TrainStepPass> {
  using TrainStepPassBase::TrainStepPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto source = module.lookupSymbol<func::FuncOp>(gradFunc);
    if (!source) {
      module.emitError() << "mxc-train-step: no function @" << gradFunc
                         << " (run mxc-gradient first)";
      return signalPassFailure();
    }
    if (!isOneOf(optimizer, {"sgd", "momentum", "adam", "rmsprop"})) {
      module.emitError() << "unknown optimizer '" << optimizer
                         << "' (sgd, momentum, adam, rmsprop)";
      return signalPassFailure();
    }
    OpBuilder b(module.getContext());
    b.setInsertionPointAfter(source);
    auto grad = cast<func::FuncOp>(b.clone(*source));
    grad.setSymName("grad");
    auto step = cast<func::FuncOp>(b.clone(*source));
    step.setSymName("train_step");
    // Entry points of the library, whatever the source's visibility (the
    // driver derives them from a private function).
    grad.setPublic();
    step.setPublic();
    if (failed(buildGrad(grad)) || failed(buildStep(step)))
      return signalPassFailure();
    source.erase();
  }

  static bool isOneOf(StringRef s, std::initializer_list<StringRef> list) {
    return llvm::is_contained(list, s);
  }

  /// @grad: the outputs and the gradients; moving-statistic updates dropped.
  LogicalResult buildGrad(func::FuncOp fn) {
    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    SmallVector<Value> results;
    SmallVector<DictionaryAttr> attrs;
    for (unsigned r = 0; r < ret.getNumOperands(); ++r) {
      if (fn.getResultAttr(r, "mx.update_of"))
        continue;
      results.push_back(ret.getOperand(r));
      attrs.push_back(fn.getResultAttrDict(r));
    }
    setResults(fn, ret, results, attrs);
    return success();
  }

  static void setResults(func::FuncOp fn, func::ReturnOp ret,
                         ArrayRef<Value> results,
                         ArrayRef<DictionaryAttr> attrs) {
    OpBuilder b(ret);
    func::ReturnOp::create(b, ret.getLoc(), results);
    ret.erase();
    fn.setFunctionType(FunctionType::get(fn.getContext(), fn.getArgumentTypes(),
                                         ValueRange(results).getTypes()));
    fn.setAllResultAttrs(attrs);
    // Drop what the remaining results do not need.
    eraseDeadOps(fn.getBody().front());
  }

  /// A new optimizer state argument shaped like `like`, named `name`.
  Value addState(func::FuncOp fn, Type type, const std::string &name) {
    unsigned i = fn.getNumArguments();
    (void)fn.insertArgument(i, type, {}, fn.getLoc());
    OpBuilder b(fn.getContext());
    fn.setArgAttr(i, "mx.state", b.getUnitAttr());
    fn.setArgAttr(i, "mx.name", b.getStringAttr(name));
    return fn.getArgument(i);
  }

  /// @train_step: (inputs, lr, params, states) -> (outputs, params', states').
  LogicalResult buildStep(func::FuncOp fn) {
    Block &body = fn.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    Location loc = fn.getLoc();
    OpBuilder b(ret);
    auto f32 = b.getF32Type();
    auto scalarType = RankedTensorType::get({}, f32);

    // The learning rate: a float32 scalar input after the data inputs.
    unsigned numInputs = 0;
    while (numInputs < fn.getNumArguments() && !isParamArg(fn, numInputs))
      ++numInputs;
    for (unsigned i = numInputs; i < fn.getNumArguments(); ++i)
      if (!isParamArg(fn, i))
        return fn.emitError("train step: input '")
               << argName(fn, i) << "' follows the parameters";
    (void)fn.insertArgument(numInputs, scalarType, {}, loc);
    fn.setArgAttr(numInputs, "mx.name", b.getStringAttr("learning_rate"));
    Value lr = fn.getArgument(numInputs);

    // Outputs, gradients by parameter, moving-statistic updates by argument.
    SmallVector<Value> results;
    llvm::DenseMap<unsigned, Value> gradOf, updateOf;
    for (unsigned r = 0; r < ret.getNumOperands(); ++r) {
      if (auto g = fn.getResultAttrOfType<IntegerAttr>(r, "mx.grad_of"))
        gradOf[g.getInt() + (g.getInt() >= numInputs ? 1 : 0)] =
            ret.getOperand(r);
      else if (auto u = fn.getResultAttrOfType<IntegerAttr>(r, "mx.update_of"))
        updateOf[u.getInt() + (u.getInt() >= numInputs ? 1 : 0)] =
            ret.getOperand(r);
      else
        results.push_back(ret.getOperand(r));
    }
    unsigned numOutputs = results.size();

    Value t; // Adam's step count, shared by all parameters
    if (optimizer == "adam") {
      t = addState(fn, scalarType, "adam_step");
      t = scalar(b, loc, "add", t, 1.0);
    }
    SmallVector<Value> newParams, newStates;
    unsigned numParamArgs = fn.getNumArguments() - (t ? 1 : 0);
    // States from mxc-gradient (the dropout counter) come first.
    for (unsigned i = numInputs + 1; i < numParamArgs; ++i)
      if (fn.getArgAttr(i, "mx.state")) {
        Value u = updateOf.lookup(i);
        newStates.push_back(u ? u : fn.getArgument(i));
      }
    if (t)
      newStates.push_back(t);
    for (unsigned i = numInputs + 1; i < numParamArgs; ++i) {
      Value p = fn.getArgument(i);
      if (fn.getArgAttr(i, "mx.state"))
        continue;
      if (Value u = updateOf.lookup(i)) {
        newParams.push_back(u);
        continue;
      }
      Value g = gradOf.lookup(i);
      if (!g || !fn.getArgAttr(i, "mx.param")) {
        newParams.push_back(p);
        continue;
      }
      std::string name = argName(fn, i);
      // The learning rate (a float32 input) in the parameter's type: a
      // float64 parameter learns in float64.
      Type et = cast<RankedTensorType>(p.getType()).getElementType();
      auto inParamType = [&](Value scalarValue) {
        if (cast<RankedTensorType>(scalarValue.getType()).getElementType() ==
            et)
          return scalarValue;
        return createInferred<CastOp>(
            b, loc, scalarValue, {b.getNamedAttr("to", TypeAttr::get(et))});
      };
      // g' = rescale * clip(g) + wd * p, as MXNet's optimizers.
      if (rescaleGrad != 1.0)
        g = scalar(b, loc, "mul", g, rescaleGrad);
      if (clipGradient > 0)
        g = createInferred<ClipOp>(
            b, loc, g,
            {b.getNamedAttr("a_min", b.getF64FloatAttr(-clipGradient)),
             b.getNamedAttr("a_max", b.getF64FloatAttr(clipGradient))});
      if (wd != 0.0)
        g = binary(b, loc, "add", g, scalar(b, loc, "mul", p, wd));
      Value lrg = binary(b, loc, "mul", g, inParamType(lr));
      if (optimizer == "sgd") {
        newParams.push_back(binary(b, loc, "sub", p, lrg));
      } else if (optimizer == "momentum") {
        // mom' = momentum * mom - lr * g'; p' = p + mom'.
        Value mom = addState(fn, p.getType(), name + "_momentum");
        Value mom2 =
            binary(b, loc, "sub", scalar(b, loc, "mul", mom, momentum), lrg);
        newStates.push_back(mom2);
        newParams.push_back(binary(b, loc, "add", p, mom2));
      } else if (optimizer == "adam") {
        // m' = b1 m + (1-b1) g'; v' = b2 v + (1-b2) g'^2;
        // p' = p - lr sqrt(1-b2^t)/(1-b1^t) m' / (sqrt(v') + eps).
        Value m = addState(fn, p.getType(), name + "_mean");
        Value v = addState(fn, p.getType(), name + "_var");
        Value m2 = binary(b, loc, "add", scalar(b, loc, "mul", m, beta1),
                          scalar(b, loc, "mul", g, 1.0 - beta1));
        Value g2 = binary(b, loc, "mul", g, g);
        Value v2 = binary(b, loc, "add", scalar(b, loc, "mul", v, beta2),
                          scalar(b, loc, "mul", g2, 1.0 - beta2));
        Value c1 = scalar(b, loc, "sub",
                          scalar(b, loc, "power", t, beta1, true), 1.0, true);
        Value c2 =
            unary(b, loc, "sqrt",
                  scalar(b, loc, "sub", scalar(b, loc, "power", t, beta2, true),
                         1.0, true));
        Value lrt = inParamType(
            binary(b, loc, "div", binary(b, loc, "mul", lr, c2), c1));
        Value denom = scalar(b, loc, "add", unary(b, loc, "sqrt", v2), epsilon);
        Value upd =
            binary(b, loc, "mul", binary(b, loc, "div", m2, denom), lrt);
        newStates.push_back(m2);
        newStates.push_back(v2);
        newParams.push_back(binary(b, loc, "sub", p, upd));
      } else { // rmsprop: n' = rho n + (1-rho) g'^2; p' = p - lr g' / sqrt(n' +
               // eps)
        Value n = addState(fn, p.getType(), name + "_sqavg");
        Value n2 = binary(
            b, loc, "add", scalar(b, loc, "mul", n, rho),
            scalar(b, loc, "mul", binary(b, loc, "mul", g, g), 1.0 - rho));
        Value upd =
            binary(b, loc, "div", lrg,
                   unary(b, loc, "sqrt", scalar(b, loc, "add", n2, epsilon)));
        newStates.push_back(n2);
        newParams.push_back(binary(b, loc, "sub", p, upd));
      }
    }
    llvm::append_range(results, newParams);
    llvm::append_range(results, newStates);
    SmallVector<DictionaryAttr> attrs(results.size(), b.getDictionaryAttr({}));
    (void)numOutputs;
    setResults(fn, ret, results, attrs);
    return success();
  }
};

} // namespace
