// SPDX-License-Identifier: Apache-2.0
// The batch-row analysis (BatchRows.h): a forward walk that marks which
// values carry the batch on axis 0, with one rule per mx op saying when the
// op maps row i of its batched operands to row i of its results. An op not
// listed, or used against its rule, ends the walk: a dynamic batch then
// needs generated code with dynamic bounds, which mxc does not have yet.
#include "passes/graph/BatchRows.h"

#include "dialects/mx/InferUtil.h"
#include "dialects/mx/MxDialect.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mxc;
using namespace mxc::mx;

namespace {

/// The rules, each answering for one op whose operands `batched` flags:
/// empty when the op keeps rows apart, else why not.
class RowRules {
public:
  RowRules(int64_t batch) : batch(batch) {}

  std::string check(Operation *op, llvm::ArrayRef<bool> batched) {
    return llvm::TypeSwitch<Operation *, std::string>(op)
        // Elementwise, NumPy-broadcasting.
        .Case<UnaryOp, ActivationOp, LeakyReLUOp, ClipOp, BinaryOp, ScalarOp,
              BlockGradOp, DropoutOp, CompareOp, CastOp, WhereOp>(
            [&](Operation *) { return elementwise(op, batched); })
        // Windows, normalizations and layers over the non-batch axes.
        .Case<ConvolutionOp, DeconvolutionOp, PoolingOp, LRNOp, FlattenOp>(
            [&](Operation *) { return dataOnly(op, batched); })
        .Case([&](FullyConnectedOp fc) {
          if (!fc.getFlatten() && rank(fc.getData()) < 2)
            return std::string("it applies to the batch axis itself");
          return dataOnly(op, batched);
        })
        .Case([&](BatchNormOp bn) {
          return notAxis0(bn.getAxis(), rank(bn.getData()),
                          dataOnly(op, batched));
        })
        .Case([&](LayerNormOp ln) {
          return notAxis0(ln.getAxis(), rank(ln.getData()),
                          dataOnly(op, batched));
        })
        .Case([&](SoftmaxOp sm) {
          return notAxis0(sm.getAxis(), rank(sm.getData()),
                          dataOnly(op, batched));
        })
        .Case([&](SoftmaxOutputOp so) {
          if (so.getLabel() || rank(so.getData()) < 2)
            return std::string("its softmax spans the batch axis");
          return dataOnly(op, batched);
        })
        .Case([&](ReduceOp r) {
          auto reduced = infer::reducedAxes(std::nullopt, r.getAxis(),
                                            rank(r.getData()), r.getExclude());
          if (failed(reduced) || (*reduced)[0])
            return std::string("it reduces over the batch axis");
          return std::string();
        })
        .Case([&](ArgReduceOp r) {
          return notAxis0(r.getAxis(), rank(r.getData()), std::string());
        })
        .Case([&](CumSumOp c) {
          return notAxis0(c.getAxis(), rank(c.getData()), std::string());
        })
        .Case([&](SliceChannelOp s) {
          return notAxis0(s.getAxis(), rank(s.getData()), std::string());
        })
        .Case([&](ConcatOp c) {
          for (bool b : batched)
            if (!b)
              return std::string("it joins batched and unbatched values");
          return notAxis0(c.getDim(), rank(c.getInputs()[0]), std::string());
        })
        .Case([&](ReshapeOp r) {
          // Row-major: equal leading extents keep each row's elements
          // together and in order.
          return keepsExtent0(r.getData(), r.getOutput());
        })
        .Case([&](TransposeOp t) {
          llvm::ArrayRef<int64_t> axes = t.getAxes();
          if (!axes.empty() && axes[0] != 0)
            return std::string("it moves the batch axis");
          if (axes.empty() && rank(t.getData()) > 1)
            return std::string("it moves the batch axis");
          return std::string();
        })
        .Case([&](ExpandDimsOp e) {
          int64_t axis = e.getAxis();
          if (axis == 0 || axis == -rank(e.getData()) - 1)
            return std::string("it inserts an axis before the batch");
          return std::string();
        })
        .Case([&](SqueezeOp s) {
          return keepsExtent0(s.getData(), s.getOutput());
        })
        .Case([&](SliceOp s) {
          llvm::ArrayRef<int64_t> step = s.getStep();
          if (!step.empty() && step[0] != 1)
            return std::string("it strides or reverses the batch axis");
          return keepsExtent0(s.getData(), s.getOutput());
        })
        .Case([&](PadOp p) {
          llvm::ArrayRef<int64_t> pads = p.getPads();
          int64_t r = rank(p.getData());
          if (pads.size() == size_t(2 * r) && (pads[0] != 0 || pads[r] != 0))
            return std::string("it pads the batch axis");
          return keepsExtent0(p.getData(), p.getOutput());
        })
        .Case([&](BroadcastToOp b) {
          if (!batched[0])
            return std::string();
          return keepsExtent0(b.getData(), b.getOutput());
        })
        .Case([&](GatherOp g) {
          // Rows of batched data picked along another axis by the same
          // indices, or rows of unbatched data looked up by batched indices.
          if (batched[0] && batched[1])
            return std::string("it gathers batched data by batched indices");
          if (batched[0])
            return notAxis0(g.getAxis(), rank(g.getData()), std::string());
          if (infer::wrapAxis(g.getAxis(), rank(g.getData())) != 0 ||
              rank(g.getIndices()) == 0)
            return std::string("it spreads batched indices over other axes");
          return std::string();
        })
        .Case([&](EmbeddingOp e) {
          if (batched[1] || rank(e.getData()) == 0)
            return std::string("it looks up batched weights");
          return std::string();
        })
        .Case([&](DotOp d) {
          if (d.getBatch() || batched[1] || d.getTransposeA() ||
              rank(d.getLhs()) < 2)
            return std::string("its product spans the batch axis");
          return std::string();
        })
        .Case([&](MatMulOp m) { return matmul(m, batched); })
        .Default([&](Operation *) {
          return std::string("it is not known to keep the batch's rows "
                             "apart");
        });
  }

private:
  static int64_t rank(Value v) {
    return cast<RankedTensorType>(v.getType()).getRank();
  }
  static int64_t extent0(Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    return t.getRank() ? t.getDimSize(0) : -1;
  }

  /// `then` unless `axis` (of a rank-`r` value) is the batch axis.
  static std::string notAxis0(int64_t axis, int64_t r, std::string then) {
    if (r == 0 || infer::wrapAxis(axis, r) == 0)
      return "it works along the batch axis";
    return then;
  }

  /// Results keep axis 0 of `in` with its extent.
  std::string keepsExtent0(Value in, Value out) {
    if (rank(in) == 0 || rank(out) == 0 || extent0(in) != batch ||
        extent0(out) != batch)
      return "it changes the batch axis";
    return std::string();
  }

  /// Only the first operand (the data) is batched.
  static std::string dataOnly(Operation *op, llvm::ArrayRef<bool> batched) {
    if (!batched[0] || llvm::is_contained(batched.drop_front(), true))
      return std::string("its weights or statistics come from the batch");
    return std::string();
  }

  /// Broadcasting: each batched operand spans the result's rank (its axis 0
  /// is the result's), and each other one broadcasts along axis 0.
  std::string elementwise(Operation *op, llvm::ArrayRef<bool> batched) {
    int64_t r = rank(op->getResult(0));
    for (auto [operand, isBatched] : llvm::zip(op->getOperands(), batched)) {
      int64_t k = rank(operand);
      if (isBatched && k != r)
        return "it broadcasts the batch to another axis";
      if (!isBatched && k == r && r > 0 && extent0(operand) != 1 &&
          batch != 1)
        return "an operand that is not batched has extent " +
               std::to_string(extent0(operand)) + " on the batch axis";
    }
    return std::string();
  }

  /// NumPy matmul: a batched left operand of rank >= 2 against unbatched
  /// weights, or operands that both carry the batch as a leading batch axis.
  std::string matmul(MatMulOp m, llvm::ArrayRef<bool> batched) {
    int64_t lr = rank(m.getLhs()), rr = rank(m.getRhs()),
            r = rank(m.getOutput());
    bool lhsRows = batched[0] && lr >= 2 && lr == r;
    bool rhsRows = batched[1] && rr >= 3 && rr == r;
    if (batched[0] && batched[1] && lhsRows && rhsRows)
      return std::string();
    if (batched[0] && !batched[1] && lhsRows && (rr <= 2 || extent0(m.getRhs()) == 1 || r > rr))
      return std::string();
    if (!batched[0] && batched[1] && rhsRows &&
        (lr < rr || extent0(m.getLhs()) == 1))
      return std::string();
    return "its product spans the batch axis";
  }

  int64_t batch;
};

} // namespace

FailureOr<SmallVector<bool>>
mxc::batchedResults(func::FuncOp fn, ArrayRef<bool> batchedArgs,
                    int64_t batch, RowMixing &mixing) {
  llvm::DenseSet<Value> rows;
  for (auto [arg, isBatched] : llvm::zip(fn.getArguments(), batchedArgs))
    if (isBatched)
      rows.insert(arg);
  RowRules rules(batch);
  SmallVector<bool> results;
  WalkResult walk = fn.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == fn)
      return WalkResult::advance();
    SmallVector<bool> batched;
    for (Value v : op->getOperands())
      batched.push_back(rows.contains(v));
    if (isa<func::ReturnOp>(op)) {
      results = batched;
      return WalkResult::advance();
    }
    if (!llvm::is_contained(batched, true))
      return op->getNumRegions() ? WalkResult::skip() : WalkResult::advance();
    std::string reason = op->getNumRegions()
                             ? "it has regions"
                             : rules.check(op, batched);
    if (!reason.empty()) {
      mixing = {op, reason};
      return WalkResult::interrupt();
    }
    for (Value result : op->getResults())
      rows.insert(result);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return results;
}
