// SPDX-License-Identifier: Apache-2.0
// Ops that move elements without computing on them -> tensor reshapes and
// slices, which bufferize to views or copies, or a generic reading through a
// permuting map: reshapes, transpose, concat, slices and their gradient,
// and padding.
#include "dialects/mx/MxDialect.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "passes/lowering/LinalgBuilders.h"
#include "passes/lowering/ScalarBuilders.h"
#include "passes/lowering/linalg/Lowering.h"

using namespace mlir;
using namespace mxc::mx;

namespace mxc::lowering {
namespace {

/// Flatten, Reshape, expand_dims and squeeze: views of the same elements.
template <typename OpTy>
FailureOr<Value> lowerReshapeLike(OpTy op, typename OpTy::Adaptor a,
                                  OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  return reshapeTo(b, op.getLoc(), a.getData(), type.getShape());
}

FailureOr<Value> lowerTranspose(TransposeOp op, TransposeOp::Adaptor a,
                                OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  Value init =
      emptyTensor(b, op.getLoc(), type.getShape(), type.getElementType());
  return linalg::TransposeOp::create(b, op.getLoc(), a.getData(), init,
                                     op.getPermutation())
      .getResult()
      .front();
}

/// Each input inserted at its offset along `dim` of an empty result.
/// The most inputs one concatenation writes into its result: a chain of
/// insert_slices into one tensor costs one-shot bufferization's analysis
/// (and empty-tensor elimination) time growing with about the third power
/// of its length (a Concat of 100 inputs took 4 s to lower, of 200 44 s, of
/// 1,000 over 10 minutes), so longer ones concatenate groups of this many
/// first, then the groups' results, one more copy per level.
constexpr size_t kMaxConcatChain = 32;

/// `inputs` joined along `dim` into a new tensor; a group of a longer
/// concatenation (`group`) into its own allocation, which unlike
/// tensor.empty CSE cannot merge with its siblings' (one destination for all
/// groups would make them one chain for the analysis again).
Value concatenate(OpBuilder &b, Location loc, ValueRange inputs, int64_t dim,
                  bool group = false) {
  auto first = tensorType(inputs.front());
  SmallVector<int64_t> shape(first.getShape());
  shape[dim] = 0;
  for (Value in : inputs)
    shape[dim] += tensorType(in).getDimSize(dim);
  if (inputs.size() > kMaxConcatChain) {
    SmallVector<Value> groups;
    // As many groups as needed, of even sizes.
    size_t count = (inputs.size() + kMaxConcatChain - 1) / kMaxConcatChain;
    size_t size = (inputs.size() + count - 1) / count;
    for (size_t i = 0; i < inputs.size(); i += size)
      groups.push_back(concatenate(
          b, loc, inputs.slice(i, std::min(size, inputs.size() - i)), dim,
          /*group=*/true));
    return concatenate(b, loc, groups, dim);
  }
  Value result =
      group ? Value(b.create<bufferization::AllocTensorOp>(
                  loc, RankedTensorType::get(shape, first.getElementType()),
                  ValueRange{}))
            : emptyTensor(b, loc, shape, first.getElementType());
  int64_t offset = 0;
  for (Value in : inputs) {
    Box box(tensorType(in).getShape());
    box.offsets[dim] = offset;
    result = insertSlice(b, loc, in, result, box);
    offset += box.sizes[dim];
  }
  return result;
}

FailureOr<Value> lowerConcat(ConcatOp op, ConcatOp::Adaptor a, OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  int64_t dim = normalizeAxis(op.getDim(), type.getRank());
  if (type.hasStaticShape())
    return concatenate(b, op.getLoc(), a.getInputs(), dim);
  // Run-time extents (a decoder's cache with the new keys appended): each
  // input inserted at the sum of the extents before it.
  Location loc = op.getLoc();
  Value result = emptyTensor(b, loc, type.getShape(), type.getElementType());
  OpFoldResult offset = b.getIndexAttr(0);
  for (Value in : a.getInputs()) {
    auto inType = tensorType(in);
    SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)), sizes,
        strides(type.getRank(), b.getIndexAttr(1));
    for (int64_t axis = 0; axis < inType.getRank(); ++axis)
      sizes.push_back(
          inType.isDynamicDim(axis)
              ? OpFoldResult(
                    tensor::DimOp::create(b, loc, in, axis).getResult())
              : b.getIndexAttr(inType.getDimSize(axis)));
    offsets[dim] = offset;
    result = tensor::InsertSliceOp::create(b, loc, in, result, offsets, sizes,
                                           strides);
    Value at = getValueOrCreateConstantIndexOp(b, loc, offset);
    Value size = getValueOrCreateConstantIndexOp(b, loc, sizes[dim]);
    offset = arith::AddIOp::create(b, loc, at, size).getResult();
  }
  return result;
}

/// The taken elements in increasing order are a strided tensor.extract_slice
/// (a view after bufferization); axes with negative steps are then reversed
/// by a generic reading index count - 1 - i.
/// The run-time values of the dynamic entries of `extentsAttr` (see
/// mx.reshape_to_extents) for a result of `type`.
SmallVector<Value> termExtents(OpBuilder &b, Location loc,
                               RankedTensorType type, ArrayAttr extentsAttr,
                               ValueRange sources) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  SmallVector<Value> extents;
  for (auto [axis, attr] : llvm::enumerate(extentsAttr)) {
    if (!type.isDynamicDim(axis))
      continue;
    ArrayRef<int64_t> e = cast<DenseI64ArrayAttr>(attr).asArrayRef();
    Value v = index(e[0]);
    for (size_t k = 3; k < e.size(); k += 2)
      v = arith::MulIOp::create(
          b, loc, v,
          tensor::DimOp::create(b, loc, sources[e[k] - 1], e[k + 1]));
    v = arith::DivSIOp::create(b, loc, v, index(e[1]));
    extents.push_back(arith::AddIOp::create(b, loc, v, index(e[2])));
  }
  return extents;
}

/// tensor.reshape to extents computed from the sources' (see the op).
FailureOr<Value> lowerReshapeToExtents(ReshapeToExtentsOp op,
                                       ReshapeToExtentsOp::Adaptor a,
                                       OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  return reshapeTo(
      b, op.getLoc(), a.getData(), type.getShape(),
      termExtents(b, op.getLoc(), type, op.getExtents(), a.getSources()));
}

/// A fill, or value + i * delta along the one axis.
FailureOr<Value> lowerFillToExtents(FillToExtentsOp op,
                                    FillToExtentsOp::Adaptor a, OpBuilder &b) {
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getType());
  Type et = type.getElementType();
  SmallVector<Value> extents =
      termExtents(b, loc, type, op.getExtents(), a.getSources());
  double value = op.getValue().convertToDouble();
  if (!op.getIota())
    return filledTensor(b, loc, type.getShape(), constScalar(b, loc, et, value),
                        extents);
  double delta = op.getDelta().convertToDouble();
  Value init = emptyTensor(b, loc, type.getShape(), et, extents);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
             ArrayRef<AffineMap>{b.getMultiDimIdentityMap(1)}, parallel(1),
             [&](OpBuilder &nb, Location l, ValueRange) {
               Value i = linalg::IndexOp::create(nb, l, 0);
               Value x = arith::IndexCastOp::create(nb, l, nb.getI64Type(), i);
               Value v;
               if (isa<FloatType>(et)) {
                 Value f = arith::SIToFPOp::create(nb, l, et, x);
                 v = arith::AddFOp::create(
                     nb, l, constScalar(nb, l, et, value),
                     arith::MulFOp::create(nb, l, f,
                                           constScalar(nb, l, et, delta)));
               } else {
                 Value xi = convertScalar(nb, l, x, et, Sign::Signed);
                 v = arith::AddIOp::create(
                     nb, l, constScalar(nb, l, et, value),
                     arith::MulIOp::create(nb, l, xi,
                                           constScalar(nb, l, et, delta)));
               }
               linalg::YieldOp::create(nb, l, v);
             })
      .getResult(0);
}

FailureOr<Value> lowerSlice(SliceOp op, SliceOp::Adaptor a, OpBuilder &b) {
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(op.getType());
  SmallVector<int64_t> starts, steps, counts;
  op.getNormalized(starts, steps, counts);
  unsigned rank = type.getRank();
  Box taken(counts);
  SmallVector<AffineExpr> exprs;
  bool reversed = false;
  for (unsigned i = 0; i < rank; ++i) {
    taken.offsets[i] = starts[i];
    if (steps[i] < 0)
      taken.offsets[i] = counts[i] ? starts[i] + (counts[i] - 1) * steps[i] : 0;
    taken.strides[i] = std::abs(steps[i]);
    AffineExpr d = getAffineDimExpr(i, ctx);
    exprs.push_back(steps[i] < 0 ? counts[i] - 1 - d : d);
    reversed |= steps[i] < 0 && counts[i] > 1;
  }
  Value y = extractSlice(b, loc, a.getData(), taken);
  if (reversed)
    y = readThrough(b, loc, type.getShape(), y, loopMap(ctx, rank, exprs));
  return y;
}

/// num_outputs equal slices along `axis`, each reshaped to its result (which
/// squeeze_axis may have dropped the axis of).
FailureOr<SmallVector<Value>>
lowerSliceChannel(SliceChannelOp op, SliceChannelOp::Adaptor a, OpBuilder &b) {
  auto inType = tensorType(a.getData());
  int64_t axis = normalizeAxis(op.getAxis(), inType.getRank());
  int64_t part = inType.getDimSize(axis) / op.getNumOutputs();
  SmallVector<Value> results;
  for (auto [i, res] : llvm::enumerate(op.getResults())) {
    Box box(inType.getShape());
    box.sizes[axis] = part;
    box.offsets[axis] = i * part;
    Value s = extractSlice(b, op.getLoc(), a.getData(), box);
    results.push_back(reshapeTo(
        b, op.getLoc(), s, cast<RankedTensorType>(res.getType()).getShape()));
  }
  return results;
}

/// The gradient of a slice: the output gradient inserted into zeros at the
/// taken positions.
FailureOr<Value> lowerSliceGrad(SliceGradOp op, SliceGradOp::Adaptor a,
                                OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  Value zeros =
      filledTensor(b, op.getLoc(), type.getShape(), type.getElementType(), 0.0);
  Box taken(tensorType(a.getOutGrad()).getShape());
  taken.offsets.assign(op.getStarts());
  taken.strides.assign(op.getSteps());
  return insertSlice(b, op.getLoc(), a.getOutGrad(), zeros, taken);
}

/// Constant padding is tensor.pad of the part of the data that survives
/// cropping (output position o along an axis holds data[o - before]).
Value padConstant(OpBuilder &b, Location loc, PadOp op, Value data) {
  auto type = cast<RankedTensorType>(op.getType());
  auto dataType = tensorType(data);
  ArrayRef<int64_t> pads = op.getPads();
  double value = op.getValue().convertToDouble();
  int64_t rank = type.getRank();
  Box kept(dataType.getShape());
  SmallVector<int64_t> low, high;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = dataType.getDimSize(i), e = type.getDimSize(i);
    int64_t first = std::max<int64_t>(pads[i], 0);
    int64_t start = std::max<int64_t>(-pads[i], 0);
    int64_t count = std::min(d - start, e - first);
    if (count <= 0) // Nothing of the data survives.
      return filledTensor(b, loc, type.getShape(), type.getElementType(),
                          value);
    kept.offsets[i] = start;
    kept.sizes[i] = count;
    low.push_back(first);
    high.push_back(e - first - count);
  }
  if (ArrayRef<int64_t>(kept.sizes) != dataType.getShape())
    data = extractSlice(b, loc, data, kept);
  return padAxes(b, loc, data, 0, low, high, value);
}

/// Reflect and edge padding are a generic over the output computing the
/// source index and reading it with tensor.extract (clamped into range, so
/// the read stays in bounds).
FailureOr<Value> lowerPad(PadOp op, PadOp::Adaptor a, OpBuilder &b) {
  Location loc = op.getLoc();
  if (op.getMode() == "constant")
    return padConstant(b, loc, op, a.getData());
  auto type = cast<RankedTensorType>(op.getType());
  auto dataType = tensorType(a.getData());
  int64_t rank = type.getRank();
  ArrayRef<int64_t> pads = op.getPads();
  Value data = a.getData();
  bool reflect = op.getMode() == "reflect";
  return generic(
      b, loc, type.getShape(), type.getElementType(), {}, {}, parallel(rank),
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        SmallVector<Value> at;
        for (int64_t i = 0; i < rank; ++i) {
          int64_t last = dataType.getDimSize(i) - 1;
          auto idx = [&](int64_t v) -> Value {
            return arith::ConstantIndexOp::create(nb, l, v);
          };
          Value s =
              arith::SubIOp::create(nb, l, loopIndex(nb, l, i), idx(pads[i]));
          if (reflect) {
            // -s before the start, 2 * last - s past the end.
            Value neg = arith::SubIOp::create(nb, l, idx(0), s);
            s = arith::MaxSIOp::create(nb, l, s, neg);
            Value back = arith::SubIOp::create(nb, l, idx(2 * last), s);
            s = arith::MinSIOp::create(nb, l, s, back);
          }
          s = arith::MaxSIOp::create(nb, l, s, idx(0));
          s = arith::MinSIOp::create(nb, l, s, idx(last));
          at.push_back(s);
        }
        return tensor::ExtractOp::create(nb, l, data, at);
      });
}

} // namespace

void populateShapePatterns(RewritePatternSet &patterns) {
  addLowerings(patterns, lowerReshapeLike<FlattenOp>,
               lowerReshapeLike<ReshapeOp>, lowerReshapeLike<ExpandDimsOp>,
               lowerReshapeLike<SqueezeOp>, lowerTranspose, lowerConcat,
               lowerSlice, lowerSliceChannel, lowerSliceGrad, lowerPad,
               lowerReshapeToExtents, lowerFillToExtents);
}

} // namespace mxc::lowering
