// SPDX-License-Identifier: Apache-2.0
// Lowers the ONNX-only ops of MxOnnxOps.td to linalg / tensor / arith / scf
// on tensors. Gathers are a linalg.generic over the output reading the data
// with tensor.extract at computed (wrapped, then clamped) indices, so a read
// never leaves the tensor; a scatter (ScatterElements, ScatterND) has no
// affine output map and becomes an scf.for nest of tensor.insert into a copy of
// the data, which one-shot bufferization turns into stores in place. Max
// pooling with indices is one reduction generic carrying the maximum and its
// index.
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"
#include "passes/lowering/LinalgBuilders.h"
#include "passes/lowering/PoolingLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mxc;
using namespace mxc::mx;
using namespace mxc::lowering;
using utils::IteratorType;

namespace {

int64_t normalized(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// Zero of any element type (false for booleans).
Value zeroOf(OpBuilder &b, Location loc, Type type) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, 0.0));
  return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, 0));
}

Value constI64(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI64Type(),
                                   b.getI64IntegerAttr(v));
}

/// An index read from an integer tensor as a position along an axis of
/// `extent`: negative values count from the end, and what is still out of
/// range is clamped into it.
Value positionAlong(OpBuilder &b, Location loc, Value i, int64_t extent) {
  Type i64 = b.getI64Type();
  if (i.getType() != i64)
    i = arith::ExtSIOp::create(b, loc, i64, i);
  Value zero = constI64(b, loc, 0);
  Value isNeg =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  i = arith::SelectOp::create(
      b, loc, isNeg, arith::AddIOp::create(b, loc, i, constI64(b, loc, extent)),
      i);
  i = arith::MaxSIOp::create(b, loc, i, zero);
  i = arith::MinSIOp::create(
      b, loc, i, constI64(b, loc, std::max<int64_t>(extent - 1, 0)));
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), i);
}

Value loopIndex(OpBuilder &b, Location loc, int64_t d) {
  return linalg::IndexOp::create(b, loc, d);
}

/// linalg.index `d` as an i64.
Value loopIndexI64(OpBuilder &b, Location loc, int64_t d) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                    loopIndex(b, loc, d));
}

template <typename OpTy> struct MxPattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpTy::Adaptor;
};

/// out[p] = data[p with p[axis] = indices[p]].
struct GatherElementsLowering : MxPattern<GatherElementsOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(GatherElementsOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto dataType = tensorType(a.getData());
    int64_t rank = type.getRank(),
            axis = normalized(op.getAxis(), dataType.getRank());
    int64_t extent = dataType.getDimSize(axis);
    if (extent == 0 && type.getNumElements() > 0)
      return op.emitOpError("gathers from an axis of extent 0");
    Value data = a.getData();
    Value y = elementwise(
        b, op.getLoc(), type, {a.getIndices()},
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d)
            at.push_back(d == axis ? positionAlong(nb, l, args[0], extent)
                                   : loopIndex(nb, l, d));
          return tensor::ExtractOp::create(nb, l, data, at);
        });
    b.replaceOp(op, y);
    return success();
  }
};

/// Combines the value already in place with an update (booleans: add and
/// max are `or`, mul and min are `and`; `isUnsigned`: integers compare
/// unsigned).
Value combine(OpBuilder &b, Location loc, StringRef reduction, Value old,
              Value update, bool isUnsigned) {
  Type t = old.getType();
  if (isa<FloatType>(t)) {
    if (reduction == "add")
      return arith::AddFOp::create(b, loc, old, update);
    if (reduction == "mul")
      return arith::MulFOp::create(b, loc, old, update);
    if (reduction == "max")
      return arith::MaximumFOp::create(b, loc, old, update);
    return arith::MinimumFOp::create(b, loc, old, update);
  }
  if (t.isInteger(1)) {
    if (reduction == "add" || reduction == "max")
      return arith::OrIOp::create(b, loc, old, update);
    return arith::AndIOp::create(b, loc, old, update);
  }
  if (reduction == "add")
    return arith::AddIOp::create(b, loc, old, update);
  if (reduction == "mul")
    return arith::MulIOp::create(b, loc, old, update);
  if (reduction == "max")
    return isUnsigned ? arith::MaxUIOp::create(b, loc, old, update).getResult()
                      : arith::MaxSIOp::create(b, loc, old, update).getResult();
  return isUnsigned ? arith::MinUIOp::create(b, loc, old, update).getResult()
                    : arith::MinSIOp::create(b, loc, old, update).getResult();
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
  // Set by the pass on ops with unsigned operands (made signless since);
  // indices are signless, so here the data is unsigned.
  bool isUnsigned = op->hasAttr("mx.unsigned");
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
        if (reduction != "none")
          u = combine(nb, l, reduction,
                      tensor::ExtractOp::create(nb, l, acc[0], at), u,
                      isUnsigned);
        return {tensor::InsertOp::create(nb, l, u, acc[0], at)};
      });
  return nest.results.front();
}

/// out[p with p[axis] = indices[p]] = updates[p].
struct ScatterElementsLowering : MxPattern<ScatterElementsOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(ScatterElementsOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto dataType = tensorType(a.getData());
    int64_t axis = normalized(op.getAxis(), dataType.getRank());
    int64_t extent = dataType.getDimSize(axis);
    if (extent == 0 && tensorType(a.getUpdates()).getNumElements() > 0)
      return op.emitOpError("scatters into an axis of extent 0");
    Value indices = a.getIndices();
    b.replaceOp(
        op, scatter(b, op, a.getData(), a.getUpdates(), op.getReduction(),
                    [&](OpBuilder &nb, Location l, ValueRange ivs) {
                      SmallVector<Value> at(ivs);
                      Value i = tensor::ExtractOp::create(nb, l, indices, ivs);
                      at[axis] = positionAlong(nb, l, i, extent);
                      return at;
                    }));
    return success();
  }
};

/// out[indices[i..., :]..., s...] = updates[i..., s...].
struct ScatterNDLowering : MxPattern<ScatterNDOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(ScatterNDOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto dataType = tensorType(a.getData());
    auto idxType = tensorType(a.getIndices());
    int64_t lead = idxType.getRank() - 1, tuple = idxType.getShape().back();
    if (llvm::is_contained(dataType.getShape().take_front(tuple), 0) &&
        tensorType(a.getUpdates()).getNumElements() > 0)
      return op.emitOpError("scatters into an axis of extent 0");
    Value indices = a.getIndices();
    b.replaceOp(
        op, scatter(b, op, a.getData(), a.getUpdates(), op.getReduction(),
                    [&](OpBuilder &nb, Location l, ValueRange ivs) {
                      SmallVector<Value> at, idxAt(ivs.take_front(lead));
                      idxAt.push_back(Value());
                      for (int64_t k = 0; k < tuple; ++k) {
                        idxAt.back() = arith::ConstantIndexOp::create(nb, l, k);
                        Value t =
                            tensor::ExtractOp::create(nb, l, indices, idxAt);
                        at.push_back(
                            positionAlong(nb, l, t, dataType.getDimSize(k)));
                      }
                      llvm::append_range(at, ivs.drop_front(lead));
                      return at;
                    }));
    return success();
  }
};

/// out[i..., s...] = data[i_0..i_b-1, t..., s...] with the tuple
/// t = indices[i..., :]: a generic over the output with no inputs, reading
/// both tensors with tensor.extract.
struct GatherNDLowering : MxPattern<GatherNDOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(GatherNDOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto dataType = tensorType(a.getData());
    auto idxType = tensorType(a.getIndices());
    int64_t batch = op.getBatchDims(), lead = idxType.getRank() - 1,
            tuple = idxType.getShape().back();
    if (llvm::is_contained(dataType.getShape().slice(batch, tuple), 0) &&
        type.getNumElements() > 0)
      return op.emitOpError("gathers from an axis of extent 0");
    Value data = a.getData(), indices = a.getIndices();
    Value y = elementwise(
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
            at.push_back(
                positionAlong(nb, l, t, dataType.getDimSize(batch + k)));
          }
          for (int64_t d = lead; d < type.getRank(); ++d)
            at.push_back(loopIndex(nb, l, d));
          return tensor::ExtractOp::create(nb, l, data, at);
        });
    b.replaceOp(op, y);
    return success();
  }
};

/// out[..., i, ...] = sum over j of (j included for i) ? data[..., j, ...]
/// : 0, as a generic with the axis's source position j as an extra
/// (innermost, reduction) loop. Quadratic in the axis's extent, but every
/// output sums in the order of a sequential scan.
struct CumSumLowering : MxPattern<CumSumOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(CumSumOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    int64_t rank = type.getRank(), axis = normalized(op.getAxis(), rank);
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    MLIRContext *ctx = b.getContext();
    SmallVector<AffineExpr> in, out;
    for (int64_t d = 0; d < rank; ++d) {
      in.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
      out.push_back(getAffineDimExpr(d, ctx));
    }
    SmallVector<IteratorType> iters = parallel(rank);
    iters.push_back(IteratorType::reduction);
    Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), et);
    Value init =
        linalg::FillOp::create(b, loc, zeroOf(b, loc, et), empty).getResult(0);
    using P = arith::CmpIPredicate;
    P pred =
        reverse ? (exclusive ? P::sgt : P::sge) : (exclusive ? P::slt : P::sle);
    Value y = generic(
        b, loc, type.getShape(), et, {a.getData()},
        {AffineMap::get(rank + 1, 0, in, ctx)}, iters,
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value j = loopIndexI64(nb, l, rank), i = loopIndexI64(nb, l, axis);
          Value take = arith::CmpIOp::create(nb, l, pred, j, i);
          Value x =
              arith::SelectOp::create(nb, l, take, args[0], zeroOf(nb, l, et));
          if (isa<FloatType>(et))
            return arith::AddFOp::create(nb, l, args[1], x);
          return arith::AddIOp::create(nb, l, args[1], x);
        },
        init, AffineMap::get(rank + 1, 0, out, ctx));
    b.replaceOp(op, y);
    return success();
  }
};

/// Elementwise: keep x where j - i >= k (upper) or <= k (lower), else 0.
struct TriluLowering : MxPattern<TriluOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(TriluOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank(), k = op.getK();
    bool upper = op.getUpper();
    Value y = elementwise(
        b, op.getLoc(), type, {a.getData()},
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value diag =
              arith::SubIOp::create(nb, l, loopIndexI64(nb, l, rank - 1),
                                    loopIndexI64(nb, l, rank - 2));
          Value keep = arith::CmpIOp::create(nb, l,
                                             upper ? arith::CmpIPredicate::sge
                                                   : arith::CmpIPredicate::sle,
                                             diag, constI64(nb, l, k));
          return arith::SelectOp::create(nb, l, keep, args[0],
                                         zeroOf(nb, l, type.getElementType()));
        });
    b.replaceOp(op, y);
    return success();
  }
};

/// Row-major scan of each window carrying the maximum and its flat index: an
/// element replaces them when it lies in the input (not the padding) and is
/// the first one read or strictly greater, so the first maximum wins. The
/// kernel loops are the innermost reduction loops and run in order.
struct MaxPoolWithIndicesLowering : MxPattern<MaxPoolWithIndicesOp> {
  using MxPattern::MxPattern;
  LogicalResult matchAndRewrite(MaxPoolWithIndicesOp op, Adaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    auto idxType = cast<RankedTensorType>(op.getIndices().getType());
    auto inType = tensorType(a.getData());
    Type et = outType.getElementType();
    ArrayRef<int64_t> kernel = op.getKernel();
    auto stride = op.getStrides(), dilate = op.getDilations(),
         pad = op.getPadding();
    int64_t ns = kernel.size();
    ArrayRef<int64_t> spatial = inType.getShape().drop_front(2);

    // Pad low by the begin padding and high as far as the last window
    // reaches; what is read there is never taken.
    SmallVector<OpFoldResult> low(2 + ns, b.getIndexAttr(0)),
        high(2 + ns, b.getIndexAttr(0));
    SmallVector<int64_t> padded(inType.getShape()), reach(ns);
    for (int64_t s = 0; s < ns; ++s) {
      reach[s] = (outType.getDimSize(2 + s) - 1) * stride[s] +
                 (kernel[s] - 1) * dilate[s] + 1 - pad[s];
      int64_t h = std::max<int64_t>(reach[s] - spatial[s], 0);
      low[2 + s] = b.getIndexAttr(pad[s]);
      high[2 + s] = b.getIndexAttr(h);
      padded[2 + s] += pad[s] + h;
    }
    Value x = a.getData();
    if (ArrayRef<int64_t>(padded) != inType.getShape())
      x = tensor::PadOp::create(b, loc, inType.clone(padded), x, low, high,
                                zeroOf(b, loc, et));

    PoolingLoops loops = poolingLoops(ctx, stride, dilate);
    Value window = tensor::EmptyOp::create(b, loc, kernel, et);
    bool isUnsigned = op->hasAttr("mx.unsigned"),
         columnMajor = op.getStorageOrder() == 1;
    int64_t channels = inType.getDimSize(1), plane = 1;
    for (int64_t e : spatial)
      plane *= e;
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{outType, idxType}, ValueRange{x, window},
        ValueRange{
            filledTensor(b, loc, outType.getShape(), zeroOf(b, loc, et)),
            filledTensor(b, loc, idxType.getShape(), constI64(b, loc, -1))},
        {loops.input, loops.window, loops.output, loops.output},
        loops.iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
          Value v = args[0], cur = args[2], curIdx = args[3];
          // The element's position in the input along each spatial axis;
          // only the sides that have padding need checking.
          Value inside;
          auto require = [&](arith::CmpIPredicate p, Value lhs, int64_t rhs) {
            Value c =
                arith::CmpIOp::create(nb, l, p, lhs, constI64(nb, l, rhs));
            inside = inside ? arith::AndIOp::create(nb, l, inside, c) : c;
          };
          SmallVector<Value> at;
          for (int64_t s = 0; s < ns; ++s) {
            Value p = arith::AddIOp::create(
                nb, l,
                arith::MulIOp::create(nb, l, loopIndexI64(nb, l, 2 + s),
                                      constI64(nb, l, stride[s])),
                arith::MulIOp::create(nb, l, loopIndexI64(nb, l, 2 + ns + s),
                                      constI64(nb, l, dilate[s])));
            p = arith::SubIOp::create(nb, l, p, constI64(nb, l, pad[s]));
            if (pad[s] > 0)
              require(arith::CmpIPredicate::sge, p, 0);
            if (reach[s] > spatial[s])
              require(arith::CmpIPredicate::slt, p, spatial[s]);
            at.push_back(p);
          }
          // (n * C + c) * plane + the spatial offset in storage order.
          Value flat = arith::AddIOp::create(
              nb, l,
              arith::MulIOp::create(nb, l, loopIndexI64(nb, l, 0),
                                    constI64(nb, l, channels)),
              loopIndexI64(nb, l, 1));
          Value offset = constI64(nb, l, 0);
          for (int64_t k = 0; k < ns; ++k) {
            int64_t s = columnMajor ? ns - 1 - k : k;
            offset = arith::AddIOp::create(
                nb, l,
                arith::MulIOp::create(nb, l, offset,
                                      constI64(nb, l, spatial[s])),
                at[s]);
          }
          flat = arith::AddIOp::create(
              nb, l, arith::MulIOp::create(nb, l, flat, constI64(nb, l, plane)),
              offset);
          Value greater =
              isa<FloatType>(et)
                  ? arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, v,
                                          cur)
                        .getResult()
                  : arith::CmpIOp::create(nb, l,
                                          isUnsigned
                                              ? arith::CmpIPredicate::ugt
                                              : arith::CmpIPredicate::sgt,
                                          v, cur)
                        .getResult();
          Value first = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                              curIdx, constI64(nb, l, 0));
          Value take = arith::OrIOp::create(nb, l, first, greater);
          if (inside)
            take = arith::AndIOp::create(nb, l, inside, take);
          linalg::YieldOp::create(
              nb, l,
              ValueRange{arith::SelectOp::create(nb, l, take, v, cur),
                         arith::SelectOp::create(nb, l, take, flat, curIdx)});
        });
    b.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void mxc::populateOnnxOpsToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<GatherElementsLowering, ScatterElementsLowering,
               ScatterNDLowering, GatherNDLowering, CumSumLowering,
               TriluLowering, MaxPoolWithIndicesLowering>(
      patterns.getContext());
}
