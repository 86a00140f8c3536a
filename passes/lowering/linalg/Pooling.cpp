// SPDX-License-Identifier: Apache-2.0
// Poolings -> linalg, forward and backward, over one window geometry
// (WindowLoops.h): the input padded with the reduction's neutral value, then
// a window reduction (small windows unrolled into one elementwise loop nest
// over strided views), and MXNet's average divisors decided at compile time.
// The gradient is one strided accumulation per kernel offset, without
// scatters; ONNX's max pooling with indices carries the argmax along.
#include "dialects/mx/MxDialect.h"
#include "passes/lowering/LinalgBuilders.h"
#include "passes/lowering/ScalarBuilders.h"
#include "passes/lowering/WindowLoops.h"
#include "passes/lowering/linalg/Lowering.h"

using namespace mlir;
using namespace mxc::mx;

namespace mxc::lowering {
namespace {

/// Pooling windows of at most this many elements are unrolled into one
/// parallel loop nest (see lowerPooling).
constexpr int64_t kUnrolledWindow = 16;

/// `fn` of each element of `y` (N, C, O...) and the element of the
/// per-position constant `perPosition` (O...) at its position.
Value mapWithPositions(OpBuilder &b, Location loc, Value y, Value perPosition,
                       BodyFn fn) {
  auto type = tensorType(y);
  unsigned rank = type.getRank();
  return generic(b, loc, type.getShape(), type.getElementType(),
                 {y, perPosition},
                 {b.getMultiDimIdentityMap(rank),
                  axesMap(b.getContext(), rank, 2, rank - 2)},
                 parallel(rank), fn);
}

/// The windows of `x` (padded) combined by `kind` from `neutral` into
/// `outType`.
Value poolWindows(OpBuilder &b, Location loc, Value x,
                  const WindowGeometry &geo, RankedTensorType outType,
                  Value neutral, Combiner kind, Sign sign) {
  int64_t windowSize = 1;
  for (int64_t k : geo.kernel)
    windowSize *= k;
  if (windowSize > kUnrolledWindow) {
    PoolingLoops loops = poolingLoops(b.getContext(), geo);
    Value window = emptyTensor(b, loc, geo.kernel, outType.getElementType());
    Value init = filledTensor(b, loc, outType.getShape(), neutral);
    return generic(
        b, loc, outType.getShape(), outType.getElementType(), {x, window},
        {loops.input, loops.window}, loops.iterators,
        [&](OpBuilder &nb, Location l, ValueRange args) {
          return combine(nb, l, kind, args[0], args[2], sign);
        },
        init, loops.output);
  }
  // A small window unrolled: one parallel loop nest reading the input once
  // per window position (an operand each), combined in a register from the
  // neutral value in the reduction's order. As a reduction, the loops load
  // and store the output for every window element (ResNet-18's 3x3/2 max
  // pooling: 3% of its time on one thread). Each window position's elements
  // are a strided slice of the padded input of the output's shape (a view
  // once bufferized), so the loop nest is elementwise over the output.
  SmallVector<Value> inputs;
  for (int64_t w = 0; w < windowSize; ++w) {
    Box taps(outType.getShape());
    int64_t rest = w;
    for (int s = geo.numSpatial() - 1; s >= 0; --s) {
      taps.offsets[2 + s] = rest % geo.kernel[s] * geo.dilate[s];
      taps.strides[2 + s] = geo.stride[s];
      rest /= geo.kernel[s];
    }
    inputs.push_back(extractSlice(b, loc, x, taps));
  }
  return elementwise(b, loc, outType, inputs,
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       Value acc = neutral;
                       for (int64_t w = 0; w < windowSize; ++w)
                         acc = combine(nb, l, kind, args[w], acc, sign);
                       return acc;
                     });
}

/// max, avg and sum pooling (MXNet's): the input padded low by `pad` and
/// high far enough for the last ("full") window, with the reduction's
/// neutral value.
FailureOr<Value> lowerPooling(PoolingOp op, PoolingOp::Adaptor a,
                              OpBuilder &b) {
  Location loc = op.getLoc();
  auto outType = cast<RankedTensorType>(op.getType());
  auto inType = tensorType(a.getData());
  Type et = outType.getElementType();
  WindowGeometry geo(op.getEffectiveKernel(), op.getStrides(),
                     op.getDilations(), op.getPadding());
  ArrayRef<int64_t> inSpatial = inType.getShape().drop_front(2),
                    outSpatial = outType.getShape().drop_front(2);
  StringRef type = op.getPoolType();
  bool isMax = type == "max";
  Sign sign = signOf(op);
  Value neutral = isMax ? constExtreme(b, loc, et, /*highest=*/false, sign)
                        : constScalar(b, loc, et, 0.0);
  Value x = geo.padForWindows(b, loc, a.getData(), outSpatial, neutral);
  Value y = poolWindows(b, loc, x, geo, outType, neutral,
                        isMax ? Combiner::Max : Combiner::Add, sign);
  if (type != "avg")
    return y;

  SmallVector<APFloat> divisor;
  for (int64_t count :
       geo.windowCounts(inSpatial, outSpatial, op.getCountIncludePad())) {
    APFloat v((double)count);
    bool lost;
    v.convert(cast<FloatType>(et).getFloatSemantics(),
              APFloat::rmNearestTiesToEven, &lost);
    divisor.push_back(v);
  }
  Value div = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get(outSpatial, et), divisor));
  return mapWithPositions(
      b, loc, y, div, [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        return arith::DivFOp::create(nb, l, args[0], args[1]);
      });
}

/// dx: the output gradient (divided by the forward's divisors for avg;
/// for max, kept where the window's tap holds the maximum) added at every
/// window tap of a padded accumulator, one strided slice per kernel offset,
/// which is then cropped to the input.
FailureOr<Value> lowerPoolingGrad(PoolingGradOp op, PoolingGradOp::Adaptor a,
                                  OpBuilder &b) {
  Location loc = op.getLoc();
  auto inType = tensorType(a.getData());
  auto outType = tensorType(a.getOutput());
  Type et = inType.getElementType();
  WindowGeometry geo = windowOf(op);
  ArrayRef<int64_t> inSpatial = inType.getShape().drop_front(2),
                    outSpatial = outType.getShape().drop_front(2);
  StringRef type = op.getPoolType();
  Value xpad = geo.padForWindows(b, loc, a.getData(), outSpatial,
                                 -std::numeric_limits<double>::infinity());
  Value g = a.getOutGrad();
  if (type == "avg") {
    SmallVector<double> divisor;
    for (int64_t count :
         geo.windowCounts(inSpatial, outSpatial, op.getCountIncludePad()))
      divisor.push_back(1.0 / count);
    auto divType = RankedTensorType::get(outSpatial, b.getF64Type());
    Value div = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(divType, ArrayRef(divisor)));
    g = mapWithPositions(
        b, loc, g, div,
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value dv = args[1];
          if (dv.getType() != et)
            dv = arith::TruncFOp::create(nb, l, et, dv);
          return arith::MulFOp::create(nb, l, args[0], dv);
        });
  }
  Value acc = filledTensor(b, loc, tensorType(xpad).getShape(), et, 0.0);
  forEachIndex(geo.kernel, [&](ArrayRef<int64_t> k) {
    // The taps at offset k of every window, at k * dilate.
    Box taps(outType.getShape());
    for (unsigned s = 0; s < geo.numSpatial(); ++s) {
      taps.offsets[2 + s] = k[s] * geo.dilate[s];
      taps.strides[2 + s] = geo.stride[s];
    }
    Value part = g;
    if (type == "max")
      part = elementwise(
          b, loc, outType, {extractSlice(b, loc, xpad, taps), a.getOutput(), g},
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value eq = cmpF(nb, l, arith::CmpFPredicate::OEQ, args[0], args[1]);
            return select(nb, l, eq, args[2], constFloat(nb, l, et, 0.0));
          });
    acc = addToSlice(b, loc, acc, part, taps);
  });
  Box input(inType.getShape());
  for (unsigned s = 0; s < geo.numSpatial(); ++s)
    input.offsets[2 + s] = geo.pad[s];
  return extractSlice(b, loc, acc, input);
}

/// Row-major scan of each window carrying the maximum and its flat index: an
/// element replaces them when it lies in the input (not the padding) and is
/// the first one read or strictly greater, so the first maximum wins. The
/// kernel loops are the innermost reduction loops and run in order.
FailureOr<SmallVector<Value>>
lowerMaxPoolWithIndices(MaxPoolWithIndicesOp op,
                        MaxPoolWithIndicesOp::Adaptor a, OpBuilder &b) {
  Location loc = op.getLoc();
  auto outType = cast<RankedTensorType>(op.getOutput().getType());
  auto idxType = cast<RankedTensorType>(op.getIndices().getType());
  auto inType = tensorType(a.getData());
  Type et = outType.getElementType(), i64 = b.getI64Type();
  WindowGeometry geo(op.getKernel(), op.getStrides(), op.getDilations(),
                     op.getPadding());
  int64_t ns = geo.numSpatial();
  ArrayRef<int64_t> spatial = inType.getShape().drop_front(2);

  // Pad low by the begin padding and high as far as the last window
  // reaches; what is read there is never taken.
  SmallVector<int64_t> high =
      geo.highPadding(spatial, outType.getShape().drop_front(2));
  Value x = padAxesIfAny(b, loc, a.getData(), 2, geo.pad, high, 0.0);

  PoolingLoops loops = poolingLoops(b.getContext(), geo);
  Value window = emptyTensor(b, loc, geo.kernel, et);
  Sign sign = signOf(op);
  bool columnMajor = op.getStorageOrder() == 1;
  int64_t channels = inType.getDimSize(1), plane = 1;
  for (int64_t e : spatial)
    plane *= e;
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{outType, idxType}, ValueRange{x, window},
      ValueRange{
          filledTensor(b, loc, outType.getShape(), constScalar(b, loc, et, 0)),
          filledTensor(b, loc, idxType.getShape(), constInt(b, loc, i64, -1))},
      {loops.input, loops.window, loops.output, loops.output}, loops.iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value v = args[0], cur = args[2], curIdx = args[3];
        auto c = [&](int64_t value) { return constInt(nb, l, i64, value); };
        // The element's position in the input along each spatial axis;
        // only the sides that have padding need checking.
        Value inside;
        auto require = [&](arith::CmpIPredicate p, Value lhs, int64_t rhs) {
          Value cmp = arith::CmpIOp::create(nb, l, p, lhs, c(rhs));
          inside = inside ? arith::AndIOp::create(nb, l, inside, cmp) : cmp;
        };
        SmallVector<Value> at;
        for (int64_t s = 0; s < ns; ++s) {
          Value p = arith::AddIOp::create(
              nb, l,
              arith::MulIOp::create(nb, l, loopIndexI64(nb, l, 2 + s),
                                    c(geo.stride[s])),
              arith::MulIOp::create(nb, l, loopIndexI64(nb, l, 2 + ns + s),
                                    c(geo.dilate[s])));
          p = arith::SubIOp::create(nb, l, p, c(geo.pad[s]));
          if (geo.pad[s] > 0)
            require(arith::CmpIPredicate::sge, p, 0);
          if (high[s] > 0)
            require(arith::CmpIPredicate::slt, p, spatial[s]);
          at.push_back(p);
        }
        // (n * C + c) * plane + the spatial offset in storage order.
        Value flat = arith::AddIOp::create(
            nb, l,
            arith::MulIOp::create(nb, l, loopIndexI64(nb, l, 0), c(channels)),
            loopIndexI64(nb, l, 1));
        Value offset = c(0);
        for (int64_t k = 0; k < ns; ++k) {
          int64_t s = columnMajor ? ns - 1 - k : k;
          offset = arith::AddIOp::create(
              nb, l, arith::MulIOp::create(nb, l, offset, c(spatial[s])),
              at[s]);
        }
        flat = arith::AddIOp::create(
            nb, l, arith::MulIOp::create(nb, l, flat, c(plane)), offset);
        Value greater =
            isa<FloatType>(et)
                ? cmpF(nb, l, arith::CmpFPredicate::OGT, v, cur)
                : arith::CmpIOp::create(nb, l,
                                        sign == Sign::Unsigned
                                            ? arith::CmpIPredicate::ugt
                                            : arith::CmpIPredicate::sgt,
                                        v, cur)
                      .getResult();
        Value first = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                            curIdx, c(0));
        Value take = arith::OrIOp::create(nb, l, first, greater);
        if (inside)
          take = arith::AndIOp::create(nb, l, inside, take);
        linalg::YieldOp::create(nb, l,
                                ValueRange{select(nb, l, take, v, cur),
                                           select(nb, l, take, flat, curIdx)});
      });
  return SmallVector<Value>(generic.getResults());
}

} // namespace

void populatePoolingPatterns(RewritePatternSet &patterns) {
  addLowerings(patterns, lowerPooling, lowerPoolingGrad,
               lowerMaxPoolWithIndices);
}

} // namespace mxc::lowering
