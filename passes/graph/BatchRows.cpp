// SPDX-License-Identifier: Apache-2.0
// The batch-row analysis (BatchRows.h): a forward walk that tracks where
// each value carries the batch — which axis, and within it, when a reshape
// merged the batch with other axes (a (seq, batch * heads, d) view inside an
// attention layer), which factor — with one rule per mx op saying where the
// batch lands in its result when the op keeps rows apart. An op not listed,
// or used against its rule, ends the walk: a dynamic batch then needs
// generated code with dynamic bounds, which mxc does not have yet.
#include "passes/graph/BatchRows.h"

#include "dialects/mx/InferUtil.h"
#include "dialects/mx/MxDialect.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <optional>

using namespace mlir;
using namespace mxc;
using namespace mxc::mx;

namespace {

/// Where a value carries the batch: axis `axis`, whose extent is
/// outer * batch * inner (row n of the batch is every index whose
/// coordinate on `axis` is (o * batch + n) * inner + i).
struct Rows {
  int64_t axis = 0;
  int64_t outer = 1, inner = 1;
  bool operator==(const Rows &o) const {
    return axis == o.axis && outer == o.outer && inner == o.inner;
  }
};

/// What a rule says: where the batch is in the op's results, or why the op
/// mixes rows.
struct Verdict {
  std::optional<Rows> rows;
  std::string why;
};

Verdict mixes(std::string why) { return {std::nullopt, std::move(why)}; }
Verdict at(Rows rows) { return {rows, ""}; }

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

int64_t product(ArrayRef<int64_t> extents) {
  int64_t p = 1;
  for (int64_t e : extents)
    p *= e;
  return p;
}

class RowRules {
public:
  explicit RowRules(int64_t batch) : batch(batch) {}

  /// The rule of `op`, whose operands carry the batch as `rows` says
  /// (nullopt: not batched; at least one is).
  Verdict check(Operation *op, ArrayRef<std::optional<Rows>> rows) {
    auto result = [&]() { return op->getResult(0); };
    return llvm::TypeSwitch<Operation *, Verdict>(op)
        .Case<UnaryOp, ActivationOp, LeakyReLUOp, ClipOp, BinaryOp, ScalarOp,
              BlockGradOp, DropoutOp, CompareOp, CastOp, WhereOp, FmaOp>(
            [&](Operation *) { return elementwise(op, rows); })
        // Independent per index of axis 0 (images, samples).
        .Case<ConvolutionOp, DeconvolutionOp, PoolingOp, LRNOp>(
            [&](Operation *) { return dataOnAxis0(rows); })
        .Case([&](FullyConnectedOp fc) {
          if (!fc.getFlatten())
            return dataNotOn(rows, shapeOf(fc.getData()).size() - 1);
          return dataOnAxis0(rows);
        })
        .Case([&](SoftmaxOutputOp so) {
          if (so.getLabel())
            return mixes("its loss sums over the batch");
          return dataOnAxis0(rows);
        })
        .Case([&](BatchNormOp bn) {
          return dataNotOn(rows, wrap(bn.getAxis(), bn.getData()));
        })
        .Case([&](LayerNormOp ln) {
          return dataNotOn(rows, wrap(ln.getAxis(), ln.getData()));
        })
        .Case([&](SoftmaxOp sm) {
          return dataNotOn(rows, wrap(sm.getAxis(), sm.getData()));
        })
        .Case([&](CumSumOp c) {
          return dataNotOn(rows, wrap(c.getAxis(), c.getData()));
        })
        .Case([&](TriluOp t) {
          int64_t rank = shapeOf(t.getData()).size();
          if (rows[0]->axis >= rank - 2)
            return mixes("it works along the batch axis");
          return at(*rows[0]);
        })
        .Case([&](ReduceOp r) {
          auto reduced =
              infer::reducedAxes(std::nullopt, r.getAxis(),
                                 shapeOf(r.getData()).size(), r.getExclude());
          if (failed(reduced))
            return mixes("its axes are invalid");
          return dropAxes(*rows[0], *reduced, r.getKeepdims());
        })
        .Case([&](ArgReduceOp r) {
          int64_t rank = shapeOf(r.getData()).size();
          SmallVector<bool> reduced(rank, false);
          reduced[infer::wrapAxis(r.getAxis(), rank)] = true;
          return dropAxes(*rows[0], reduced, r.getKeepdims());
        })
        .Case([&](SliceChannelOp s) {
          int64_t rank = shapeOf(s.getData()).size();
          int64_t axis = infer::wrapAxis(s.getAxis(), rank);
          SmallVector<bool> dropped(rank, false);
          dropped[axis] = s.getSqueezeAxis();
          if (rows[0]->axis == axis)
            return mixes("it splits the batch axis");
          return dropAxes(*rows[0], dropped, false);
        })
        .Case([&](ConcatOp c) {
          for (const auto &r : rows)
            if (!r || !(*r == *rows[0]))
              return mixes("it joins values that carry the batch "
                           "differently");
          return dataNotOn(rows.take_front(1),
                           wrap(c.getDim(), c.getInputs()[0]));
        })
        .Case([&](TransposeOp t) {
          ArrayRef<int64_t> perm = t.getAxes();
          int64_t rank = shapeOf(t.getData()).size();
          Rows r = *rows[0];
          for (int64_t j = 0; j < rank; ++j)
            if ((perm.empty() ? rank - 1 - j : perm[j]) == rows[0]->axis)
              r.axis = j;
          return at(r);
        })
        // Row-major reshapes keep every element's flat position: the batch
        // stays between the same counts of outer and inner elements.
        .Case<ReshapeOp, FlattenOp, ExpandDimsOp, SqueezeOp>([&](Operation *) {
          return reshaped(op->getOperand(0), *rows[0], result());
        })
        .Case([&](SliceOp s) {
          int64_t k = rows[0]->axis;
          ArrayRef<int64_t> step = s.getStep();
          if ((size_t(k) < step.size() && step[k] != 1) ||
              shapeOf(s.getData())[k] != shapeOf(s.getOutput())[k])
            return mixes("it slices the batch axis");
          return at(*rows[0]);
        })
        .Case([&](PadOp p) {
          ArrayRef<int64_t> pads = p.getPads();
          int64_t rank = shapeOf(p.getData()).size(), k = rows[0]->axis;
          if (pads.size() == size_t(2 * rank) &&
              (pads[k] != 0 || pads[rank + k] != 0))
            return mixes("it pads the batch axis");
          return at(*rows[0]);
        })
        .Case([&](BroadcastToOp b) {
          Rows r = *rows[0];
          r.axis += shapeOf(b.getOutput()).size() - shapeOf(b.getData()).size();
          if (shapeOf(b.getOutput())[r.axis] !=
              shapeOf(b.getData())[rows[0]->axis])
            return mixes("it broadcasts the batch axis");
          return at(r);
        })
        .Case([&](GatherOp g) {
          int64_t axis = wrap(g.getAxis(), g.getData());
          int64_t indexRank = shapeOf(g.getIndices()).size();
          if (rows[0] && rows[1])
            return mixes("it gathers batched data by batched indices");
          if (rows[1]) { // rows of a table looked up by batched indices
            Rows r = *rows[1];
            r.axis += axis;
            return at(r);
          }
          if (rows[0]->axis == axis)
            return mixes("it works along the batch axis");
          Rows r = *rows[0];
          if (r.axis > axis)
            r.axis += indexRank - 1;
          return at(r);
        })
        .Case([&](EmbeddingOp e) {
          if (rows[1])
            return mixes("it looks up batched weights");
          return at(*rows[0]);
        })
        .Case([&](DotOp d) {
          if (d.getBatch()) {
            if (!rows[0] || !rows[1] || rows[0]->axis != 0 ||
                !(*rows[0] == *rows[1]))
              return mixes("its batches of products span the batch axis");
            return at(*rows[0]);
          }
          if (rows[1] || d.getTransposeA() ||
              rows[0]->axis == int64_t(shapeOf(d.getLhs()).size()) - 1)
            return mixes("its product spans the batch axis");
          return at(*rows[0]);
        })
        .Case([&](MatMulOp m) { return matmul(m, rows); })
        .Default([&](Operation *) {
          return mixes("it is not known to keep the batch's rows apart");
        });
  }

  /// Whether `rows` of a value of `shape` sits on axis 0 alone (how inputs
  /// and outputs carry it).
  static bool onAxis0(const Rows &rows) {
    return rows.axis == 0 && rows.outer == 1 && rows.inner == 1;
  }

private:
  int64_t wrap(int64_t axis, Value v) {
    return infer::wrapAxis(axis, shapeOf(v).size());
  }

  /// Only the data (operand 0) is batched, on axis 0; results likewise.
  static Verdict dataOnAxis0(ArrayRef<std::optional<Rows>> rows) {
    if (llvm::any_of(rows.drop_front(),
                     [](const std::optional<Rows> &r) { return bool(r); }))
      return mixes("its weights or statistics come from the batch");
    if (rows[0]->axis != 0)
      return mixes("it needs the batch on axis 0");
    return at(*rows[0]);
  }

  /// Only the data is batched, not on `axis` (which the op works along).
  static Verdict dataNotOn(ArrayRef<std::optional<Rows>> rows, int64_t axis) {
    if (llvm::any_of(rows.drop_front(),
                     [](const std::optional<Rows> &r) { return bool(r); }))
      return mixes("its weights or statistics come from the batch");
    if (rows[0]->axis == axis)
      return mixes("it works along the batch axis");
    return at(*rows[0]);
  }

  /// The batch after axes flagged in `dropped` are reduced away (or kept as
  /// extents of 1).
  static Verdict dropAxes(Rows r, ArrayRef<bool> dropped, bool keepdims) {
    if (dropped[r.axis])
      return mixes("it reduces over the batch axis");
    if (!keepdims)
      r.axis -= llvm::count(dropped.take_front(r.axis), true);
    return at(r);
  }

  /// Where the batch of `in` (at `rows`) lands in `out`, a reshape of it:
  /// the one axis whose extent holds the same counts of elements outside
  /// the batch as `in` has before and after it.
  Verdict reshaped(Value in, const Rows &rows, Value out) {
    ArrayRef<int64_t> from = shapeOf(in), to = shapeOf(out);
    int64_t before = product(from.take_front(rows.axis)) * rows.outer;
    int64_t after = rows.inner * product(from.drop_front(rows.axis + 1));
    std::optional<Rows> found;
    for (int64_t k = 0; k < int64_t(to.size()); ++k) {
      int64_t pre = product(to.take_front(k)),
              post = product(to.drop_front(k + 1));
      if (pre == 0 || post == 0 || before % pre || after % post)
        continue;
      Rows r{k, before / pre, after / post};
      if (to[k] != r.outer * batch * r.inner)
        continue;
      if (found)
        return mixes("the batch axis is ambiguous after it");
      found = r;
    }
    if (!found)
      return mixes("it splits the batch across axes");
    return at(*found);
  }

  /// NumPy broadcasting: batched operands carry the batch at the same axis
  /// of the result (aligned from the right), and the others broadcast along
  /// it.
  Verdict elementwise(Operation *op, ArrayRef<std::optional<Rows>> rows) {
    ArrayRef<int64_t> shape = shapeOf(op->getResult(0));
    int64_t rank = shape.size();
    std::optional<Rows> common;
    for (auto [operand, r] : llvm::zip(op->getOperands(), rows)) {
      if (!r)
        continue;
      Rows aligned = *r;
      aligned.axis += rank - int64_t(shapeOf(operand).size());
      if (common && !(*common == aligned))
        return mixes("its operands carry the batch on different axes");
      common = aligned;
    }
    for (auto [operand, r] : llvm::zip(op->getOperands(), rows)) {
      ArrayRef<int64_t> s = shapeOf(operand);
      int64_t axis = common->axis - (rank - int64_t(s.size()));
      if (r)
        continue;
      if (axis >= 0 && s[axis] != 1)
        return mixes("an operand that is not batched has extent " +
                     std::to_string(s[axis]) + " on the batch axis");
    }
    return at(*common);
  }

  /// NumPy matmul: the batch on the left's rows or a batch axis, or on the
  /// right's columns or a batch axis, never on the contracted axis.
  Verdict matmul(MatMulOp m, ArrayRef<std::optional<Rows>> rows) {
    int64_t lr = shapeOf(m.getLhs()).size(), rr = shapeOf(m.getRhs()).size();
    int64_t r = shapeOf(m.getOutput()).size();
    if (lr < 2 || rr < 2)
      return mixes("its product spans the batch axis");
    std::optional<Rows> out;
    // Batch axes (all but the last two) broadcast as in elementwise ops.
    auto batchAxis = [&](const Rows &rows, int64_t rank) {
      Rows aligned = rows;
      aligned.axis += r - rank;
      return aligned;
    };
    if (rows[0]) {
      if (rows[0]->axis == lr - 1)
        return mixes("it contracts the batch axis");
      out = rows[0]->axis == lr - 2
                ? Rows{r - 2, rows[0]->outer, rows[0]->inner}
                : batchAxis(*rows[0], lr);
      if (rows[0]->axis == lr - 2 && rows[1])
        return mixes("its product spans the batch axis");
    }
    if (rows[1]) {
      if (rows[1]->axis == rr - 2)
        return mixes("it contracts the batch axis");
      Rows o = rows[1]->axis == rr - 1
                   ? Rows{r - 1, rows[1]->outer, rows[1]->inner}
                   : batchAxis(*rows[1], rr);
      if (out && !(*out == o))
        return mixes("its operands carry the batch on different axes");
      out = o;
    }
    // An unbatched operand broadcasts along a batch axis of the result.
    if (out->axis < r - 2)
      for (auto [operand, rank, batched] :
           {std::tuple{m.getLhs(), lr, bool(rows[0])},
            std::tuple{m.getRhs(), rr, bool(rows[1])}}) {
        int64_t axis = out->axis - (r - rank);
        if (!batched && axis >= 0 && shapeOf(operand)[axis] != 1)
          return mixes("an operand that is not batched has extent " +
                       std::to_string(shapeOf(operand)[axis]) +
                       " on the batch axis");
      }
    return at(*out);
  }

  int64_t batch;
};

} // namespace

FailureOr<SmallVector<bool>> mxc::batchedResults(func::FuncOp fn,
                                                 ArrayRef<bool> batchedArgs,
                                                 int64_t batch,
                                                 RowMixing &mixing) {
  llvm::DenseMap<Value, Rows> rows;
  for (auto [arg, isBatched] : llvm::zip(fn.getArguments(), batchedArgs))
    if (isBatched)
      rows[arg] = Rows{0, 1, 1};
  RowRules rules(batch);
  SmallVector<bool> results;
  WalkResult walk = fn.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == fn)
      return WalkResult::advance();
    SmallVector<std::optional<Rows>> operandRows;
    for (Value v : op->getOperands()) {
      auto it = rows.find(v);
      operandRows.push_back(it == rows.end() ? std::nullopt
                                             : std::optional(it->second));
    }
    bool anyBatched = llvm::any_of(
        operandRows, [](const std::optional<Rows> &r) { return bool(r); });
    if (isa<func::ReturnOp>(op)) {
      for (const auto &[i, r] : llvm::enumerate(operandRows)) {
        if (r && !RowRules::onAxis0(*r)) {
          mixing = {nullptr, int64_t(i),
                    r->axis ? "carries the batch on axis " +
                                  std::to_string(r->axis) + ", not on axis 0"
                            : "carries the batch on axis 0 merged with "
                              "other axes"};
          return WalkResult::interrupt();
        }
        results.push_back(bool(r));
      }
      return WalkResult::advance();
    }
    if (!anyBatched)
      return op->getNumRegions() ? WalkResult::skip() : WalkResult::advance();
    // With one row, every broadcast and reshape looks row-wise: follow the
    // values alone (the variants of more rows prove the rules).
    if (batch == 1) {
      for (Value result : op->getResults())
        rows[result] = Rows{0, 1, 1};
      return WalkResult::advance();
    }
    Verdict verdict = op->getNumRegions() ? mixes("it has regions")
                                          : rules.check(op, operandRows);
    if (!verdict.rows) {
      mixing = {op, -1, verdict.why};
      return WalkResult::interrupt();
    }
    for (Value result : op->getResults())
      rows[result] = *verdict.rows;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return results;
}
