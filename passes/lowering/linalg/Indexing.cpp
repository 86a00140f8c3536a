// SPDX-License-Identifier: Apache-2.0
// Ops that read or write at indices taken from a tensor -> linalg / scf.
// Gathers (Gather, Embedding, ONNX's GatherElements and GatherND) are a
// generic over the output reading the data with tensor.extract at computed
// (wrapped, then clamped) indices, so a read never leaves the tensor.
// Scatters have no affine output map: ONNX's ScatterElements and ScatterND
// become an scf.for nest of tensor.insert into a copy of the data, which
// one-shot bufferization turns into stores in place; Embedding's gradient
// is a reduction over the ids instead.
#include "dialects/mx/MxDialect.h"
#include "passes/lowering/LinalgBuilders.h"
#include "passes/lowering/ScalarBuilders.h"
#include "passes/lowering/linalg/Lowering.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mxc::mx;

namespace mxc::lowering {
namespace {

/// out[pre..., idx..., post...] = data[pre..., indices[idx...], post...]: a
/// generic over the output reading the indices through a map and the data
/// with tensor.extract. Negative indices count from the end; indices still
/// out of range are clamped into it, so the read stays in bounds.
FailureOr<Value> lowerGather(GatherOp op, GatherOp::Adaptor a, OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  auto dataType = tensorType(a.getData());
  unsigned idxRank = tensorType(a.getIndices()).getRank();
  unsigned rank = type.getRank(), dataRank = dataType.getRank();
  int64_t axis = normalizeAxis(op.getAxis(), dataRank);
  int64_t extent = dataType.getDimSize(axis);
  if (extent == 0 && type.getNumElements() > 0)
    return op.emitOpError("gathers from an axis of extent 0");
  Value data = a.getData();
  return generic(
      b, op.getLoc(), type.getShape(), type.getElementType(), {a.getIndices()},
      {axesMap(b.getContext(), rank, axis, idxRank)}, parallel(rank),
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Type i64 = nb.getI64Type();
        Value i = convertScalar(nb, l, args[0], i64);
        Value zero = constInt(nb, l, i64, 0);
        Value wrapped =
            arith::AddIOp::create(nb, l, i, constInt(nb, l, i64, extent));
        i = select(nb, l, cmpI(nb, l, arith::CmpIPredicate::slt, i, zero),
                   wrapped, i);
        i = arith::MaxSIOp::create(nb, l, i, zero);
        i = arith::MinSIOp::create(nb, l, i, constInt(nb, l, i64, extent - 1));
        SmallVector<Value> at;
        for (int64_t d = 0; d < axis; ++d)
          at.push_back(loopIndex(nb, l, d));
        at.push_back(arith::IndexCastOp::create(nb, l, nb.getIndexType(), i));
        for (unsigned d = axis + 1; d < dataRank; ++d)
          at.push_back(loopIndex(nb, l, d - 1 + idxRank));
        return tensor::ExtractOp::create(nb, l, data, at);
      });
}

/// out[..., d] = weight[id, d] with the id (a float) truncated and clipped
/// into [0, input_dim), as MXNet does.
FailureOr<Value> lowerEmbedding(EmbeddingOp op, EmbeddingOp::Adaptor a,
                                OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  unsigned rank = type.getRank();
  int64_t inputDim = op.getInputDim();
  Value weight = a.getWeight();
  return generic(
      b, op.getLoc(), type.getShape(), type.getElementType(), {a.getData()},
      {axesMap(b.getContext(), rank, 0, rank - 1)}, parallel(rank),
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value id = arith::FPToSIOp::create(nb, l, nb.getI64Type(), args[0]);
        Value lo = arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0));
        Value hi = arith::ConstantOp::create(
            nb, l, nb.getI64IntegerAttr(inputDim - 1));
        id = arith::MaxSIOp::create(nb, l, id, lo);
        id = arith::MinSIOp::create(nb, l, id, hi);
        Value row = arith::IndexCastOp::create(nb, l, nb.getIndexType(), id);
        Value col = loopIndex(nb, l, rank - 1);
        return tensor::ExtractOp::create(nb, l, weight, ValueRange{row, col});
      });
}

/// dweight[v, d] = sum of dy[i..., d] over the positions i... whose id is v:
/// loops v, d (parallel) and the id positions (reduction).
FailureOr<Value> lowerEmbeddingGrad(EmbeddingGradOp op,
                                    EmbeddingGradOp::Adaptor a, OpBuilder &b) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(op.getType());
  Type et = type.getElementType();
  unsigned ir = tensorType(a.getData()).getRank();
  unsigned n = 2 + ir;
  int64_t inputDim = op.getInputDim();
  SmallVector<AffineExpr> dys;
  for (unsigned i = 0; i < ir; ++i)
    dys.push_back(getAffineDimExpr(2 + i, ctx));
  dys.push_back(getAffineDimExpr(1, ctx));
  return generic(
      b, op.getLoc(), type.getShape(), et, {a.getData(), a.getOutGrad()},
      {axesMap(ctx, n, 2, ir), loopMap(ctx, n, dys)}, iterators(2, ir),
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        // MXNet clips ids into [0, input_dim), as the forward does.
        Value id = arith::FPToSIOp::create(nb, l, nb.getI64Type(), args[0]);
        id = arith::MaxSIOp::create(
            nb, l, id,
            arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0)));
        id = arith::MinSIOp::create(
            nb, l, id,
            arith::ConstantOp::create(nb, l,
                                      nb.getI64IntegerAttr(inputDim - 1)));
        Value hit = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, id,
                                          loopIndexI64(nb, l, 0));
        Value sum = arith::AddFOp::create(nb, l, args[2], args[1]);
        return arith::SelectOp::create(nb, l, hit, sum, args[2]);
      },
      filledTensor(b, op.getLoc(), type.getShape(), et, 0.0),
      axesMap(ctx, n, 0, 2));
}

/// out[p] = data[p with p[axis] = indices[p]].
FailureOr<Value> lowerGatherElements(GatherElementsOp op,
                                     GatherElementsOp::Adaptor a,
                                     OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  auto dataType = tensorType(a.getData());
  int64_t rank = type.getRank(),
          axis = normalizeAxis(op.getAxis(), dataType.getRank());
  int64_t extent = dataType.getDimSize(axis);
  if (extent == 0 && type.getNumElements() > 0)
    return op.emitOpError("gathers from an axis of extent 0");
  Value data = a.getData();
  return elementwise(b, op.getLoc(), type, {a.getIndices()},
                     [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                       SmallVector<Value> at;
                       for (int64_t d = 0; d < rank; ++d)
                         at.push_back(
                             d == axis ? positionAlong(nb, l, args[0], extent)
                                       : loopIndex(nb, l, d));
                       return tensor::ExtractOp::create(nb, l, data, at);
                     });
}

/// out[i..., s...] = data[i_0..i_b-1, t..., s...] with the tuple
/// t = indices[i..., :]: a generic over the output with no inputs, reading
/// both tensors with tensor.extract.
FailureOr<Value> lowerGatherND(GatherNDOp op, GatherNDOp::Adaptor a,
                               OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  auto dataType = tensorType(a.getData());
  auto idxType = tensorType(a.getIndices());
  int64_t batch = op.getBatchDims(), lead = idxType.getRank() - 1,
          tuple = idxType.getShape().back();
  if (llvm::is_contained(dataType.getShape().slice(batch, tuple), 0) &&
      type.getNumElements() > 0)
    return op.emitOpError("gathers from an axis of extent 0");
  Value data = a.getData(), indices = a.getIndices();
  return elementwise(
      b, op.getLoc(), type, {},
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        SmallVector<Value> at, idxAt;
        for (int64_t d = 0; d < lead; ++d)
          idxAt.push_back(loopIndex(nb, l, d));
        idxAt.push_back(Value());
        for (int64_t d = 0; d < batch; ++d)
          at.push_back(loopIndex(nb, l, d));
        for (int64_t k = 0; k < tuple; ++k) {
          idxAt.back() = arith::ConstantIndexOp::create(nb, l, k);
          Value t = tensor::ExtractOp::create(nb, l, indices, idxAt);
          at.push_back(positionAlong(nb, l, t, dataType.getDimSize(batch + k)));
        }
        for (int64_t d = lead; d < type.getRank(); ++d)
          at.push_back(loopIndex(nb, l, d));
        return tensor::ExtractOp::create(nb, l, data, at);
      });
}

/// Where an update lands in the output, from the loop position over the
/// updates.
using PositionFn =
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

/// A loop nest over the updates (row-major, so later duplicates win or
/// combine in order) carrying the output tensor, starting from the data:
/// each update is inserted at `position(ivs)`, combined by `reduction` with
/// the value there unless it is none.
Value scatter(OpBuilder &b, Operation *op, Value data, Value updates,
              StringRef reduction, PositionFn position) {
  Location loc = op->getLoc();
  // Indices are signless, so an unsigned operand is the data.
  Sign sign = signOf(op);
  std::optional<Combiner> kind =
      llvm::StringSwitch<std::optional<Combiner>>(reduction)
          .Case("add", Combiner::Add)
          .Case("mul", Combiner::Mul)
          .Case("max", Combiner::Max)
          .Case("min", Combiner::Min)
          .Default(std::nullopt);
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t extent : tensorType(updates).getShape()) {
    lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, extent));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
  }
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, ValueRange{data},
      [&](OpBuilder &nb, Location l, ValueRange ivs,
          ValueRange acc) -> scf::ValueVector {
        SmallVector<Value> at = position(nb, l, ivs);
        Value u = tensor::ExtractOp::create(nb, l, updates, ivs);
        if (kind)
          u = combine(nb, l, *kind,
                      tensor::ExtractOp::create(nb, l, acc[0], at), u, sign);
        return {tensor::InsertOp::create(nb, l, u, acc[0], at)};
      });
  return nest.results.front();
}

/// out[p with p[axis] = indices[p]] = updates[p].
FailureOr<Value> lowerScatterElements(ScatterElementsOp op,
                                      ScatterElementsOp::Adaptor a,
                                      OpBuilder &b) {
  auto dataType = tensorType(a.getData());
  int64_t axis = normalizeAxis(op.getAxis(), dataType.getRank());
  int64_t extent = dataType.getDimSize(axis);
  if (extent == 0 && tensorType(a.getUpdates()).getNumElements() > 0)
    return op.emitOpError("scatters into an axis of extent 0");
  Value indices = a.getIndices();
  return scatter(b, op, a.getData(), a.getUpdates(), op.getReduction(),
                 [&](OpBuilder &nb, Location l, ValueRange ivs) {
                   SmallVector<Value> at(ivs);
                   Value i = tensor::ExtractOp::create(nb, l, indices, ivs);
                   at[axis] = positionAlong(nb, l, i, extent);
                   return at;
                 });
}

/// out[indices[i..., :]..., s...] = updates[i..., s...].
FailureOr<Value> lowerScatterND(ScatterNDOp op, ScatterNDOp::Adaptor a,
                                OpBuilder &b) {
  auto dataType = tensorType(a.getData());
  auto idxType = tensorType(a.getIndices());
  int64_t lead = idxType.getRank() - 1, tuple = idxType.getShape().back();
  if (llvm::is_contained(dataType.getShape().take_front(tuple), 0) &&
      tensorType(a.getUpdates()).getNumElements() > 0)
    return op.emitOpError("scatters into an axis of extent 0");
  Value indices = a.getIndices();
  return scatter(b, op, a.getData(), a.getUpdates(), op.getReduction(),
                 [&](OpBuilder &nb, Location l, ValueRange ivs) {
                   SmallVector<Value> at, idxAt(ivs.take_front(lead));
                   idxAt.push_back(Value());
                   for (int64_t k = 0; k < tuple; ++k) {
                     idxAt.back() = arith::ConstantIndexOp::create(nb, l, k);
                     Value t = tensor::ExtractOp::create(nb, l, indices, idxAt);
                     at.push_back(
                         positionAlong(nb, l, t, dataType.getDimSize(k)));
                   }
                   llvm::append_range(at, ivs.drop_front(lead));
                   return at;
                 });
}

} // namespace

/// mx.top_k as the runtime's selection kernel (every target that runs
/// it: the CPU's).
FailureOr<Value> lowerTopK(TopKOp op, TopKOp::Adaptor a, OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  int64_t axis = normalizeAxis(op.getAxis(), type.getRank());
  return TopKKernelOp::create(b, op.getLoc(), type, a.getData(), a.getCount(),
                              a.getK(),
                              emptyTensor(b, op.getLoc(), type.getShape(),
                                          type.getElementType()),
                              axis, op.getLargest())
      .getResult();
}

/// mx.non_max_suppression as the runtime's kernel.
FailureOr<Value> lowerNonMaxSuppression(NonMaxSuppressionOp op,
                                        NonMaxSuppressionOp::Adaptor a,
                                        OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  return NmsKernelOp::create(b, op.getLoc(), type, a.getBoxes(), a.getScores(),
                             a.getCount(), a.getMaxPerClass(),
                             a.getIouThreshold(), a.getScoreThreshold(),
                             emptyTensor(b, op.getLoc(), type.getShape(),
                                         type.getElementType()),
                             op.getCenterPointBox())
      .getResult();
}

void populateIndexingPatterns(RewritePatternSet &patterns) {
  addLowerings(patterns, lowerGather, lowerEmbedding, lowerEmbeddingGrad,
               lowerGatherElements, lowerGatherND, lowerScatterElements,
               lowerScatterND, lowerTopK, lowerNonMaxSuppression);
}

} // namespace mxc::lowering
