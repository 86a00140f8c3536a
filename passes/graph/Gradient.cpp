// SPDX-License-Identifier: Apache-2.0
// Reverse-mode gradient derivation on the mx dialect (issue #4): clones the
// forward function into `<func>_grad`, switches it to training semantics,
// and walks its ops backwards, each op building its operands' gradients
// through GradientOpInterface (MxGradients.cpp), as MXNet's executor chains
// FGradient.
#include "dialects/mx/InferUtil.h"
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"
#include "passes/graph/MxBuilders.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace mxc {
#define GEN_PASS_DEF_GRADIENTPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc;
using namespace mxc::mx;

namespace {

using build::binary;
using build::reshape;
using build::scalar;
using build::tensorOf;

Value filled(OpBuilder &b, Location loc, Value like, double value) {
  return createInferred<GradElemwiseOp>(
      b, loc, like,
      {b.getNamedAttr("fn", b.getStringAttr("fill")),
       b.getNamedAttr("alpha", b.getF64FloatAttr(value))});
}

/// Operands that carry data rather than something to learn: labels of the
/// loss heads and Embedding ids.
bool isDataOperand(OpOperand &use) {
  Operation *op = use.getOwner();
  unsigned i = use.getOperandNumber();
  if (isa<SoftmaxOutputOp, LinearRegressionOutputOp, LogisticRegressionOutputOp,
          MAERegressionOutputOp>(op))
    return i == 1;
  if (isa<EmbeddingOp>(op))
    return i == 0;
  return false;
}

/// An axis of `x` (possibly negative, counted from 0 here) and the shape in
/// which a per-channel vector broadcasts along it: x's rank, extents of 1
/// but the axis's.
struct ChannelAxis {
  int64_t axis;
  SmallVector<int64_t> shape;
};
ChannelAxis channelAxis(Value x, int64_t axis) {
  auto xt = tensorOf(x);
  axis = mx::infer::wrapAxis(axis, xt.getRank());
  SmallVector<int64_t> shape(xt.getRank(), 1);
  shape[axis] = xt.getDimSize(axis);
  return {axis, shape};
}

/// Replaces a BatchNorm in training mode by a BatchNormTrain (normalizing
/// with the batch's statistics; its gradient is one fused op) and returns
/// the updated moving mean and variance.
std::pair<Value, Value> expandTrainingBatchNorm(OpBuilder &b, BatchNormOp op) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  NamedAttrList attrs;
  attrs.set("eps", op.getEpsAttr());
  attrs.set("fix_gamma", op.getFixGammaAttr());
  attrs.set("axis", op.getAxisAttr());
  BatchNormTrainOp::populateDefaultAttrs(
      OperationName(BatchNormTrainOp::getOperationName(), b.getContext()),
      attrs);
  auto train = BatchNormTrainOp::create(
      b, loc, ValueRange{op.getData(), op.getGamma(), op.getBeta()},
      attrs.getAttrs());
  op.getOutput().replaceAllUsesWith(train.getOutput());
  double m = op.getMomentum().convertToDouble();
  auto update = [&](Value old, Value stat) {
    Value s = createInferred<BlockGradOp>(b, loc, stat);
    return binary(b, loc, "add", scalar(b, loc, "mul", old, m),
                  scalar(b, loc, "mul", s, 1.0 - m));
  };
  std::pair<Value, Value> updates = {
      update(op.getMovingMean(), train.getMean()),
      update(op.getMovingVar(), train.getVar())};
  op.erase();
  return updates;
}

/// Rewrites a BatchNorm with use_global_stats (normalizing with its moving
/// statistics, as at inference: frozen BatchNorm when fine-tuning) into
/// arithmetic, whose gradients compose into its.
void expandGlobalStatsBatchNorm(OpBuilder &b, BatchNormOp op) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  SmallVector<int64_t> chShape = channelAxis(op.getData(), op.getAxis()).shape;
  auto channel = [&](Value v) { return reshape(b, loc, v, chShape); };
  Value inv = build::unary(b, loc, "rsqrt",
                           scalar(b, loc, "add", channel(op.getMovingVar()),
                                  op.getEps().convertToDouble()));
  Value y = binary(
      b, loc, "mul",
      binary(b, loc, "sub", op.getData(), channel(op.getMovingMean())), inv);
  if (!op.getFixGamma())
    y = binary(b, loc, "mul", y, channel(op.getGamma()));
  y = binary(b, loc, "add", y, channel(op.getBeta()));
  op.getOutput().replaceAllUsesWith(y);
  op.erase();
}

/// mx.reduce `op` over `axes`, keeping them as extents of 1.
Value reduceKeep(OpBuilder &b, Location loc, StringRef op, Value v,
                 ArrayRef<int64_t> axes) {
  return createInferred<ReduceOp>(
      b, loc, v,
      {b.getNamedAttr("op", b.getStringAttr(op)),
       b.getNamedAttr("axis", b.getDenseI64ArrayAttr(axes)),
       b.getNamedAttr("keepdims", b.getBoolAttr(true))});
}

/// Rewrites LayerNorm into mx reductions and arithmetic, whose gradients
/// compose into LayerNorm's.
void expandLayerNorm(OpBuilder &b, LayerNormOp op) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  ChannelAxis channel = channelAxis(op.getData(), op.getAxis());
  int64_t axis = channel.axis;
  ArrayRef<int64_t> chShape = channel.shape;
  Value xc = binary(b, loc, "sub", op.getData(),
                    reduceKeep(b, loc, "mean", op.getData(), {axis}));
  Value var = reduceKeep(b, loc, "mean", binary(b, loc, "mul", xc, xc), {axis});
  Value inv =
      build::unary(b, loc, "rsqrt",
                   scalar(b, loc, "add", var, op.getEps().convertToDouble()));
  Value y = binary(b, loc, "mul", binary(b, loc, "mul", xc, inv),
                   reshape(b, loc, op.getGamma(), chShape));
  y = binary(b, loc, "add", y, reshape(b, loc, op.getBeta(), chShape));
  op.getOutput().replaceAllUsesWith(y);
  op.erase();
}

/// Rewrites LRN, x / (knorm + alpha / nsize * s)^beta with s the sum of x^2
/// over the nsize channels centred on each (zero beyond the edges), into
/// slices, concatenations and arithmetic, whose gradients compose into its.
void expandLRN(OpBuilder &b, LRNOp op) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value x = op.getData();
  auto shape = tensorOf(x).getShape();
  int64_t c = shape[1], half = op.getNsize() / 2;
  Value sq = binary(b, loc, "mul", x, x);
  // Channels [from, to) of sq.
  auto channels = [&](int64_t from, int64_t to) {
    SmallVector<int64_t> begin(shape.size(), 0), end(shape);
    begin[1] = from;
    end[1] = to;
    return createInferred<SliceOp>(
        b, loc, sq,
        {b.getNamedAttr("begin", b.getDenseI64ArrayAttr(begin)),
         b.getNamedAttr("end", b.getDenseI64ArrayAttr(end))});
  };
  auto concat = [&](Value u, Value v) {
    return createInferred<ConcatOp>(
        b, loc, {u, v}, {b.getNamedAttr("dim", b.getI64IntegerAttr(1))});
  };
  Value s = sq;
  for (int64_t o = 1; o <= half && o < c; ++o) {
    // Channel k also sums sq[k - o] and sq[k + o]; zeros past the edges
    // (a slice times 0, so every value keeps its shape and gradient).
    Value below =
        concat(scalar(b, loc, "mul", channels(0, o), 0.0), channels(0, c - o));
    Value above =
        concat(channels(o, c), scalar(b, loc, "mul", channels(c - o, c), 0.0));
    s = binary(b, loc, "add", s, binary(b, loc, "add", below, above));
  }
  double alpha = op.getAlpha().convertToDouble() / double(op.getNsize());
  Value d = scalar(b, loc, "add", scalar(b, loc, "mul", s, alpha),
                   op.getKnorm().convertToDouble());
  d = scalar(b, loc, "power", d, op.getBeta().convertToDouble());
  op.getOutput().replaceAllUsesWith(binary(b, loc, "div", x, d));
  op.erase();
}

struct GradientPass : mxc::impl::GradientPassBase<GradientPass> {
  using GradientPassBase::GradientPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fwd = module.lookupSymbol<func::FuncOp>(funcName);
    // A module without the function (a library of helpers) is left alone.
    if (!fwd)
      return;
    if (!fwd.getBody().hasOneBlock()) {
      fwd.emitError("the function to differentiate must have one block");
      return signalPassFailure();
    }
    OpBuilder b(module.getContext());
    b.setInsertionPointAfter(fwd);
    auto gradFn = cast<func::FuncOp>(b.clone(*fwd));
    gradFn.setSymName(funcName + "_grad");
    if (failed(differentiate(gradFn)))
      return signalPassFailure();
  }

  /// The arguments to differentiate with respect to, in order.
  FailureOr<SmallVector<BlockArgument>> parameters(func::FuncOp fn) {
    SmallVector<BlockArgument> params;
    Block &body = fn.getBody().front();
    if (!gradWrt.empty()) {
      for (const std::string &name : gradWrt) {
        bool found = false;
        for (BlockArgument arg : body.getArguments()) {
          auto n =
              fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "mx.name");
          if (n && n.getValue() == name) {
            params.push_back(arg);
            found = true;
          }
        }
        if (!found) {
          fn.emitError("grad-wrt: no argument has mx.name \"") << name << "\"";
          return failure();
        }
      }
      return params;
    }
    for (BlockArgument arg : body.getArguments())
      if (fn.getArgAttr(arg.getArgNumber(), "mx.param"))
        params.push_back(arg);
    if (!params.empty())
      return params;
    for (BlockArgument arg : body.getArguments())
      if (isa<RankedTensorType>(arg.getType()) &&
          llvm::none_of(arg.getUses(),
                        [](OpOperand &u) { return isDataOperand(u); }))
        params.push_back(arg);
    return params;
  }

  LogicalResult differentiate(func::FuncOp fn) {
    Block &body = fn.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    OpBuilder b(fn.getContext());

    FailureOr<SmallVector<BlockArgument>> params = parameters(fn);
    if (failed(params))
      return failure();

    // Training semantics first: the walk then sees what training runs.
    SmallVector<Value> auxUpdates, auxOld;
    SmallVector<BatchNormOp> bns, frozen;
    fn.walk([&](BatchNormOp op) {
      (op.getUseGlobalStats() ? frozen : bns).push_back(op);
    });
    for (BatchNormOp op : frozen)
      expandGlobalStatsBatchNorm(b, op);
    for (BatchNormOp op : bns) {
      auxOld.push_back(op.getMovingMean());
      auxOld.push_back(op.getMovingVar());
      auto [mean, var] = expandTrainingBatchNorm(b, op);
      auxUpdates.push_back(mean);
      auxUpdates.push_back(var);
    }
    // LayerNorm and LRN differentiate as their compositions.
    SmallVector<LayerNormOp> lns;
    SmallVector<LRNOp> lrns;
    fn.walk([&](LayerNormOp op) { lns.push_back(op); });
    fn.walk([&](LRNOp op) { lrns.push_back(op); });
    for (LayerNormOp op : lns)
      expandLayerNorm(b, op);
    for (LRNOp op : lrns)
      expandLRN(b, op);
    // Dropout multiplies by a mask drawn from a counter: a new i64 argument
    // (mx.state "dropout_counter"), advanced by one per call.
    SmallVector<DropoutOp> drops;
    fn.walk([&](DropoutOp op) { drops.push_back(op); });
    if (!drops.empty()) {
      unsigned i = fn.getNumArguments();
      (void)fn.insertArgument(i, RankedTensorType::get({}, b.getI64Type()), {},
                              fn.getLoc());
      fn.setArgAttr(i, "mx.state", b.getUnitAttr());
      fn.setArgAttr(i, "mx.name", b.getStringAttr("dropout_counter"));
      Value counter = fn.getArgument(i);
      for (auto [k, op] : llvm::enumerate(drops)) {
        b.setInsertionPoint(op);
        // The mask reads only x's shape: BlockGrad keeps it out of the walk.
        Value like = createInferred<BlockGradOp>(b, op.getLoc(), op.getData());
        Value mask = createInferred<DropoutMaskOp>(
            b, op.getLoc(), {like, counter},
            {b.getNamedAttr("p", op.getPAttr()),
             b.getNamedAttr("seed", b.getI64IntegerAttr(k))});
        op.getOutput().replaceAllUsesWith(
            binary(b, op.getLoc(), "mul", op.getData(), mask));
        op.erase();
      }
      b.setInsertionPoint(ret);
      auxOld.push_back(counter);
      auxUpdates.push_back(scalar(b, ret.getLoc(), "add", counter, 1.0));
    }

    // Activity: the values that depend on a parameter (BlockGrad cuts).
    llvm::DenseSet<Value> active(params->begin(), params->end());
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator()) {
      ops.push_back(&op);
      if (isa<BlockGradOp>(op))
        continue;
      if (llvm::any_of(op.getOperands(),
                       [&](Value v) { return active.contains(v); }))
        for (Value r : op.getResults())
          active.insert(r);
    }

    // Seeds, then the reverse walk; gradients go before the return.
    b.setInsertionPoint(ret);
    llvm::DenseMap<Value, Value> grads;
    auto accumulate = [&](Value v, Value g) {
      auto [it, inserted] = grads.try_emplace(v, g);
      if (!inserted)
        it->second = binary(b, g.getLoc(), "add", it->second, g);
    };
    for (Value out : ret.getOperands())
      if (active.contains(out))
        accumulate(out, filled(b, ret.getLoc(), out, 1.0));

    for (Operation *op : llvm::reverse(ops)) {
      if (isa<BlockGradOp>(op) || llvm::none_of(op->getResults(), [&](Value r) {
            return grads.count(r);
          }))
        continue;
      auto iface = dyn_cast<GradientOpInterface>(op);
      if (!iface)
        return op->emitError("no gradient is defined for this op, but a "
                             "parameter's gradient flows through it");
      // A result without a gradient gets zeros, or none where it is not
      // float (max_pool_with_indices' indices): nothing differentiates it.
      SmallVector<Value> resultGrads;
      for (Value r : op->getResults()) {
        Value g = grads.lookup(r);
        if (!g && isa<FloatType>(getElementTypeOrSelf(r.getType())))
          g = filled(b, op->getLoc(), r, 0.0);
        resultGrads.push_back(g);
      }
      SmallVector<Value> operandGrads = iface.buildGradient(b, resultGrads);
      if (operandGrads.size() != op->getNumOperands())
        return op->emitError("gradient builder failed");
      for (auto [operand, g] : llvm::zip(op->getOperands(), operandGrads)) {
        if (!g || !active.contains(operand))
          continue;
        accumulate(operand, g);
      }
    }

    SmallVector<Value> results(ret.getOperands());
    unsigned numOutputs = results.size();
    for (BlockArgument p : *params) {
      Value g = grads.lookup(p);
      results.push_back(g ? g : filled(b, ret.getLoc(), p, 0.0));
    }
    llvm::append_range(results, auxUpdates);
    func::ReturnOp::create(b, ret.getLoc(), results);
    ret.erase();
    fn.setFunctionType(FunctionType::get(fn.getContext(), fn.getArgumentTypes(),
                                         ValueRange(results).getTypes()));
    fn.setAllResultAttrs(ArrayRef<DictionaryAttr>{});
    // Which argument each gradient and moving-statistic update belongs to:
    // `mx.grad_of` / `mx.update_of` hold the argument's number.
    unsigned r = numOutputs;
    for (BlockArgument p : *params)
      fn.setResultAttr(r++, "mx.grad_of",
                       b.getI64IntegerAttr(p.getArgNumber()));
    for (Value old : auxOld) {
      if (auto arg = dyn_cast<BlockArgument>(old))
        fn.setResultAttr(r, "mx.update_of",
                         b.getI64IntegerAttr(arg.getArgNumber()));
      ++r;
    }

    // Drop gradients nobody needs (operands that are not parameters).
    build::eraseDeadOps(body);
    return success();
  }
};

} // namespace
