// SPDX-License-Identifier: Apache-2.0
// The linalg / tensor builders of LinalgBuilders.h, out of line so that the
// lowerings' files compile against declarations only.
#include "passes/lowering/LinalgBuilders.h"
#include "passes/lowering/DynamicExtents.h"
#include "passes/lowering/ScalarBuilders.h"

using namespace mlir;
using utils::IteratorType;

namespace mxc::lowering {

Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  Type elementType, ValueRange extents) {
  return tensor::EmptyOp::create(
      b, loc, shape, elementType,
      extents.empty() ? ValueRange(dynamicExtents(b, loc, shape)) : extents);
}

Value filledTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   Value value, ValueRange extents) {
  Value init = emptyTensor(b, loc, shape, value.getType(), extents);
  return linalg::FillOp::create(b, loc, value, init).getResult(0);
}

Value filledTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   Type elementType, double value) {
  return filledTensor(b, loc, shape, constScalar(b, loc, elementType, value));
}

SmallVector<IteratorType> parallel(unsigned n) {
  return SmallVector<IteratorType>(n, IteratorType::parallel);
}

SmallVector<IteratorType> iterators(unsigned nParallel, unsigned nReduction) {
  SmallVector<IteratorType> iters = parallel(nParallel);
  iters.append(nReduction, IteratorType::reduction);
  return iters;
}

AffineMap loopMap(MLIRContext *ctx, unsigned nDims,
                  ArrayRef<AffineExpr> exprs) {
  return AffineMap::get(nDims, 0, exprs, ctx);
}

AffineMap broadcastMap(MLIRContext *ctx, ArrayRef<int64_t> shape,
                       ArrayRef<int64_t> outShape) {
  SmallVector<AffineExpr> exprs;
  int64_t offset = outShape.size() - shape.size();
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == 1 && outShape[offset + i] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(offset + i, ctx));
  }
  return AffineMap::get(outShape.size(), 0, exprs, ctx);
}

AffineMap channelMap(MLIRContext *ctx, unsigned rank, unsigned axis) {
  return AffineMap::get(rank, 0, {getAffineDimExpr(axis, ctx)}, ctx);
}

AffineMap axesMap(MLIRContext *ctx, unsigned rank, unsigned first,
                  unsigned count) {
  SmallVector<AffineExpr> exprs;
  for (unsigned i = 0; i < count; ++i)
    exprs.push_back(getAffineDimExpr(first + i, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

Value generic(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
              Type elementType, ValueRange inputs,
              ArrayRef<AffineMap> inputMaps, ArrayRef<IteratorType> iterators,
              BodyFn body, Value init, AffineMap outputMap) {
  if (!init) {
    // Dynamic extents of the loops the output is indexed by: an input's
    // that reads along the same loop.
    SmallVector<Value> extents;
    bool identityOut = !outputMap || outputMap.isIdentity();
    for (auto [axis, d] : llvm::enumerate(shape)) {
      if (!ShapedType::isDynamic(d) || !identityOut)
        continue;
      for (auto [input, map] : llvm::zip(inputs, inputMaps)) {
        auto t = dyn_cast<RankedTensorType>(input.getType());
        for (auto [r, e] : llvm::enumerate(map.getResults())) {
          auto dim = dyn_cast<AffineDimExpr>(e);
          if (t && dim && dim.getPosition() == axis && t.isDynamicDim(r)) {
            extents.push_back(tensor::DimOp::create(b, loc, input, r));
            break;
          }
        }
        if (extents.size() == size_t(llvm::count_if(shape.take_front(axis + 1),
                                                    ShapedType::isDynamic)))
          break;
      }
    }
    bool found =
        extents.size() == size_t(llvm::count_if(shape, ShapedType::isDynamic));
    init = emptyTensor(b, loc, shape, elementType,
                       found ? ValueRange(extents) : ValueRange());
  }
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(outputMap ? outputMap
                           : b.getMultiDimIdentityMap(iterators.size()));
  auto op = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, args));
      });
  return op.getResult(0);
}

Value elementwise(OpBuilder &b, Location loc, RankedTensorType type,
                  ValueRange inputs, BodyFn body) {
  unsigned rank = type.getRank();
  SmallVector<AffineMap> maps(inputs.size(), b.getMultiDimIdentityMap(rank));
  return generic(b, loc, type.getShape(), type.getElementType(), inputs, maps,
                 parallel(rank), body);
}

Value readThrough(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  Value input, AffineMap map) {
  return generic(
      b, loc, shape, tensorType(input).getElementType(), {input}, {map},
      parallel(shape.size()),
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

Value multiplyAccumulate(OpBuilder &b, Location loc, ValueRange args) {
  Value product = mulValues(b, loc, args[0], args[1]);
  return addValues(b, loc, args[2], product);
}

ReductionSpace::ReductionSpace(MLIRContext *ctx, ArrayRef<int64_t> inShape,
                               ArrayRef<int64_t> axes) {
  unsigned rank = inShape.size();
  iters = parallel(rank);
  SmallVector<AffineExpr> keep;
  for (unsigned i = 0; i < rank; ++i) {
    if (llvm::is_contained(axes, i)) {
      iters[i] = IteratorType::reduction;
      count *= inShape[i];
    } else {
      keep.push_back(getAffineDimExpr(i, ctx));
      shape.push_back(inShape[i]);
    }
  }
  outMap = AffineMap::get(rank, 0, keep, ctx);
  unsigned kept = keep.size(), nextKept = 0, nextReduced = kept;
  loopOf.resize(rank);
  SmallVector<AffineExpr> in, out;
  for (unsigned i = 0; i < rank; ++i) {
    bool reduced = iters[i] == IteratorType::reduction;
    loopOf[i] = reduced ? nextReduced++ : nextKept++;
    in.push_back(getAffineDimExpr(loopOf[i], ctx));
    if (!reduced)
      out.push_back(getAffineDimExpr(loopOf[i], ctx));
  }
  loopIters = iterators(kept, rank - kept);
  loopIn = AffineMap::get(rank, 0, in, ctx);
  loopOut = AffineMap::get(rank, 0, out, ctx);
}

Value reduction(OpBuilder &b, Location loc, Value x,
                const ReductionSpace &space, Value init, StepFn step,
                ValueRange extras) {
  SmallVector<Value> inputs = {x};
  llvm::append_range(inputs, extras);
  SmallVector<AffineMap> maps = {space.loopIn};
  maps.append(extras.size(), space.loopOut);
  // The kept axes' run-time extents are x's.
  SmallVector<Value> extents;
  auto xType = tensorType(x);
  for (int64_t i = 0; i < xType.getRank(); ++i)
    if (space.iters[i] == IteratorType::parallel && xType.isDynamicDim(i))
      extents.push_back(tensor::DimOp::create(b, loc, x, i));
  return generic(
      b, loc, space.shape, init.getType(), inputs, maps, space.loopIters,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        return step(nb, l, args.front(), args.back(),
                    args.drop_front().drop_back());
      },
      filledTensor(b, loc, space.shape, init, extents), space.loopOut);
}

Value reshapeTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape,
                ValueRange extents) {
  auto type = tensorType(v);
  if (type.getShape() == shape && extents.empty())
    return v;
  if (!type.hasStaticShape() || llvm::any_of(shape, ShapedType::isDynamic)) {
    // Run-time extents: tensor.reshape to a shape built from them.
    SmallVector<Value> dyn(extents);
    if (dyn.empty())
      dyn = dynamicExtents(b, loc, shape);
    auto target = RankedTensorType::get(shape, type.getElementType());
    SmallVector<Value> sizes;
    unsigned next = 0;
    for (int64_t d : shape)
      sizes.push_back(ShapedType::isDynamic(d)
                          ? dyn[next++]
                          : arith::ConstantIndexOp::create(b, loc, d));
    Value shapeTensor = tensor::FromElementsOp::create(
        b, loc,
        RankedTensorType::get({int64_t(sizes.size())}, b.getIndexType()),
        sizes);
    return tensor::ReshapeOp::create(b, loc, target, v, shapeTensor);
  }
  auto target = RankedTensorType::get(shape, type.getElementType());
  // Through 1-D: collapse every axis into one, then expand to the target.
  Value flat = v;
  if (type.getRank() != 1) {
    if (type.getRank() == 0) {
      return tensor::ExpandShapeOp::create(b, loc, target, v,
                                           ArrayRef<ReassociationIndices>{});
    }
    ReassociationIndices all;
    for (int64_t i = 0; i < type.getRank(); ++i)
      all.push_back(i);
    flat = tensor::CollapseShapeOp::create(b, loc, v, ArrayRef{all});
  }
  if (shape.empty())
    return tensor::CollapseShapeOp::create(b, loc, target, flat,
                                           ArrayRef<ReassociationIndices>{});
  if (shape.size() == 1)
    return flat;
  ReassociationIndices all;
  for (size_t i = 0; i < shape.size(); ++i)
    all.push_back(i);
  return tensor::ExpandShapeOp::create(b, loc, target, flat, ArrayRef{all});
}

Value splitAxis(OpBuilder &b, Location loc, Value v, unsigned axis,
                int64_t parts) {
  ArrayRef<int64_t> shape = tensorType(v).getShape();
  SmallVector<int64_t> split(shape.take_front(axis));
  split.append({parts, shape[axis] / parts});
  llvm::append_range(split, shape.drop_front(axis + 1));
  return reshapeTo(b, loc, v, split);
}

static bool isZero(ArrayRef<int64_t> v) {
  return llvm::all_of(v, [](int64_t p) { return p == 0; });
}

Value padAxes(OpBuilder &b, Location loc, Value v, unsigned firstAxis,
              ArrayRef<int64_t> low, ArrayRef<int64_t> high, Value pad) {
  if (isZero(low) && isZero(high))
    return v;
  auto type = tensorType(v);
  SmallVector<OpFoldResult> lo(type.getRank(), b.getIndexAttr(0)),
      hi(type.getRank(), b.getIndexAttr(0));
  SmallVector<int64_t> shape(type.getShape());
  for (size_t i = 0; i < low.size(); ++i) {
    lo[firstAxis + i] = b.getIndexAttr(low[i]);
    hi[firstAxis + i] = b.getIndexAttr(high[i]);
    shape[firstAxis + i] += low[i] + high[i];
  }
  return tensor::PadOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, lo, hi,
      pad);
}

Value padAxes(OpBuilder &b, Location loc, Value v, unsigned firstAxis,
              ArrayRef<int64_t> low, ArrayRef<int64_t> high, double value) {
  Value pad = constScalar(b, loc, tensorType(v).getElementType(), value);
  return padAxes(b, loc, v, firstAxis, low, high, pad);
}

Value padAxesIfAny(OpBuilder &b, Location loc, Value v, unsigned firstAxis,
                   ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                   double value) {
  if (isZero(low) && isZero(high))
    return v;
  return padAxes(b, loc, v, firstAxis, low, high, value);
}

Box::Box(ArrayRef<int64_t> sizes)
    : offsets(sizes.size(), 0), sizes(sizes), strides(sizes.size(), 1) {}

/// `values` as index attributes, the static form of a slice's position.
static SmallVector<OpFoldResult> indexAttrs(OpBuilder &b,
                                            ArrayRef<int64_t> values) {
  return llvm::map_to_vector(
      values, [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); });
}

Value extractSlice(OpBuilder &b, Location loc, Value source, const Box &box) {
  // A dynamic size is the source's whole axis (docs/dynamic-shapes.md).
  SmallVector<OpFoldResult> sizes = indexAttrs(b, box.sizes);
  for (auto [i, size] : llvm::enumerate(box.sizes))
    if (ShapedType::isDynamic(size))
      sizes[i] = tensor::DimOp::create(b, loc, source, i).getResult();
  return tensor::ExtractSliceOp::create(b, loc, source,
                                        indexAttrs(b, box.offsets), sizes,
                                        indexAttrs(b, box.strides));
}

Value insertSlice(OpBuilder &b, Location loc, Value source, Value dest,
                  const Box &box) {
  return tensor::InsertSliceOp::create(
      b, loc, source, dest, indexAttrs(b, box.offsets),
      indexAttrs(b, box.sizes), indexAttrs(b, box.strides));
}

Value addToSlice(OpBuilder &b, Location loc, Value dest, Value part,
                 const Box &box) {
  Value sum = elementwise(b, loc, tensorType(part),
                          {extractSlice(b, loc, dest, box), part},
                          [](OpBuilder &nb, Location l, ValueRange args) {
                            return addValues(nb, l, args[0], args[1]);
                          });
  return insertSlice(b, loc, sum, dest, box);
}

Value transposed(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> perm,
                 ArrayRef<int64_t> inverse) {
  if (auto t = v.getDefiningOp<linalg::TransposeOp>())
    if (t.getPermutation() == inverse)
      return t.getInput();
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  // Dynamic extents (docs/dynamic-shapes.md) are v's, permuted.
  SmallVector<Value> extents;
  for (int64_t axis : perm) {
    shape.push_back(type.getDimSize(axis));
    if (type.isDynamicDim(axis))
      extents.push_back(tensor::DimOp::create(b, loc, v, axis));
  }
  Value init =
      tensor::EmptyOp::create(b, loc, shape, type.getElementType(), extents);
  if (v.getDefiningOp<tensor::EmptyOp>())
    return init;
  return linalg::TransposeOp::create(b, loc, v, init, perm).getResult()[0];
}

void forEachIndex(ArrayRef<int64_t> extents,
                  function_ref<void(ArrayRef<int64_t>)> fn) {
  SmallVector<int64_t> idx(extents.size(), 0);
  if (llvm::any_of(extents, [](int64_t e) { return e <= 0; }))
    return;
  while (true) {
    fn(idx);
    int i = extents.size() - 1;
    for (; i >= 0; --i) {
      if (++idx[i] < extents[i])
        break;
      idx[i] = 0;
    }
    if (i < 0)
      return;
  }
}

} // namespace mxc::lowering
