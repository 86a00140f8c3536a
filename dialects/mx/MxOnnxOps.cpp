// SPDX-License-Identifier: Apache-2.0
// Result-type inference of the ONNX-only ops of MxOnnxOps.td (element
// gathers and scatters, GatherND, ScatterND, CumSum, Trilu, max pooling with
// indices). As in MxOps.cpp,
// inference is the verifier: the Cn tags of the .td are checked here.
#include "dialects/mx/InferUtil.h"
#include "dialects/mx/MxDialect.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mxc::mx;
using namespace mxc::mx::infer;

namespace {

/// The axis of an element gather or scatter (gather_elements_c1,
/// scatter_elements_c1), and its indices (gather_elements_c2,
/// scatter_elements_c2): the data's rank, and no extent but the axis's
/// beyond the data's.
FailureOr<int64_t> checkElementIndices(std::optional<Location> loc,
                                       RankedTensorType data,
                                       RankedTensorType indices,
                                       int64_t axisAttr) {
  auto axis = normalizeAxis(loc, axisAttr, data.getRank());
  if (failed(axis))
    return failure();
  bool ok = indices.getRank() == data.getRank();
  for (int64_t i = 0; ok && i < data.getRank(); ++i)
    ok = i == *axis || indices.getDimSize(i) <= data.getDimSize(i);
  if (!ok)
    return fail(loc, "indices shape " + shapeStr(indices.getShape()) +
                         " does not fit data " + shapeStr(data.getShape()) +
                         " along axis " + Twine(*axis));
  return axis;
}

/// What a scatter writes (scatter_elements_c3 and c4, scatter_nd_c3 and
/// c4): updates of the data's element type, combined by a known reduction.
/// The parser infers before filling defaults, so the attribute itself is
/// read.
LogicalResult checkScatterUpdates(std::optional<Location> loc,
                                  RankedTensorType data,
                                  RankedTensorType updates,
                                  StringAttr reduction) {
  if (updates.getElementType() != data.getElementType())
    return fail(loc, "updates and data element types differ");
  return checkOneOf(loc, "reduction", reduction ? reduction.getValue() : "none",
                    {"none", "add", "mul", "max", "min"});
}

} // namespace

LogicalResult
GatherElementsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                   Adaptor adaptor,
                                   SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData()), idx = tensorOf(adaptor.getIndices());
  // gather_elements_c1, gather_elements_c2
  if (failed(checkElementIndices(loc, data, idx, adaptor.getAxis())))
    return failure();
  results.push_back(idx.clone(data.getElementType()));
  return success();
}

LogicalResult
ScatterElementsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                    Adaptor adaptor,
                                    SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData()), idx = tensorOf(adaptor.getIndices()),
       updates = tensorOf(adaptor.getUpdates());
  // scatter_elements_c2 (indices like updates)
  if (idx.getShape() != updates.getShape())
    return fail(loc, "indices shape " + shapeStr(idx.getShape()) +
                         " differs from updates shape " +
                         shapeStr(updates.getShape()));
  // scatter_elements_c1, scatter_elements_c2 (indices fit), c3, c4
  if (failed(checkElementIndices(loc, data, idx, adaptor.getAxis())) ||
      failed(
          checkScatterUpdates(loc, data, updates, adaptor.getReductionAttr())))
    return failure();
  results.push_back(data);
  return success();
}

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData()), idx = tensorOf(adaptor.getIndices()),
       updates = tensorOf(adaptor.getUpdates());
  // scatter_nd_c1
  int64_t tuple = idx.getRank() ? idx.getShape().back() : 0;
  if (tuple < 1 || tuple > data.getRank())
    return fail(loc, "index tuples of length " + Twine(tuple) +
                         " must address 1 to " + Twine(data.getRank()) +
                         " axes");
  // scatter_nd_c2
  SmallVector<int64_t> want(idx.getShape().drop_back());
  llvm::append_range(want, data.getShape().drop_front(tuple));
  if (updates.getShape() != ArrayRef<int64_t>(want))
    return fail(loc, "updates shape " + shapeStr(updates.getShape()) +
                         " differs from " + shapeStr(want));
  // scatter_nd_c3, scatter_nd_c4
  if (failed(
          checkScatterUpdates(loc, data, updates, adaptor.getReductionAttr())))
    return failure();
  results.push_back(data);
  return success();
}

LogicalResult GatherNDOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData()), idx = tensorOf(adaptor.getIndices());
  int64_t b = adaptor.getBatchDims(), r = data.getRank(), q = idx.getRank();
  // gather_nd_c1
  if (b < 0 || b >= std::min(r, q))
    return fail(loc, "batch_dims " + Twine(b) +
                         " must be in [0, min(data rank, indices rank))");
  // gather_nd_c2
  if (data.getShape().take_front(b) != idx.getShape().take_front(b))
    return fail(loc, "batch extents of data " + shapeStr(data.getShape()) +
                         " and indices " + shapeStr(idx.getShape()) +
                         " differ");
  // gather_nd_c3
  int64_t tuple = idx.getShape().back();
  if (tuple > r - b)
    return fail(loc, "index tuples of length " + Twine(tuple) + " exceed the " +
                         Twine(r - b) + " non-batch axes of the data");
  SmallVector<int64_t> out(idx.getShape().drop_back());
  llvm::append_range(out, data.getShape().drop_front(b + tuple));
  results.push_back(RankedTensorType::get(out, data.getElementType()));
  return success();
}

LogicalResult CumSumOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  // cumsum_c1
  if (data.getRank() < 1)
    return fail(loc, "data must have rank >= 1");
  if (failed(normalizeAxis(loc, (int64_t)adaptor.getAxis(), data.getRank())))
    return failure();
  results.push_back(data);
  return success();
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *ctx,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  // top_k_c1
  if (!data.getElementType().isF32() || data.getRank() < 1 ||
      !data.hasStaticShape())
    return fail(loc, "data must be float32 of rank >= 1 with a static shape");
  auto axis = normalizeAxis(loc, (int64_t)adaptor.getAxis(), data.getRank());
  if (failed(axis))
    return failure();
  for (Value v : {adaptor.getCount(), adaptor.getK()})
    if (tensorOf(v).getRank() != 0 ||
        !tensorOf(v).getElementType().isInteger(64))
      return fail(loc, "count and k must be int64 scalars");
  int64_t bound = adaptor.getKBound();
  if (bound < 0 || bound > data.getDimSize(*axis))
    return fail(loc, "k_bound " + Twine(bound) + " is outside [0, " +
                         Twine(data.getDimSize(*axis)) + "]");
  SmallVector<int64_t> shape(data.getShape());
  shape[*axis] = bound;
  results.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult NonMaxSuppressionOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  auto boxes = tensorOf(adaptor.getBoxes()),
       scores = tensorOf(adaptor.getScores());
  // non_max_suppression_c1
  auto bs = boxes.getShape(), ss = scores.getShape();
  if (!boxes.hasStaticShape() || !scores.hasStaticShape() || bs.size() != 3 ||
      bs[2] != 4 || ss.size() != 3 || ss[0] != bs[0] || ss[2] != bs[1] ||
      !boxes.getElementType().isF32() || !scores.getElementType().isF32())
    return fail(loc, "boxes must be float32 (batches, n, 4) and scores "
                     "(batches, classes, n), got " +
                         shapeStr(bs) + " and " + shapeStr(ss));
  for (Value v : {adaptor.getCount(), adaptor.getMaxPerClass()})
    if (tensorOf(v).getRank() != 0 ||
        !tensorOf(v).getElementType().isInteger(64))
      return fail(loc, "count and max_per_class must be int64 scalars");
  for (Value v : {adaptor.getIouThreshold(), adaptor.getScoreThreshold()})
    if (v &&
        (tensorOf(v).getRank() != 0 || !tensorOf(v).getElementType().isF32()))
      return fail(loc, "the thresholds must be float32 scalars");
  results.push_back(RankedTensorType::get(ss, IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult RandomOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  // random_c1
  StringRef dist = adaptor.getDist();
  if (dist != "uniform" && dist != "normal")
    return fail(loc, "dist must be uniform or normal, not '" + dist + "'");
  Type et = adaptor.getElementType();
  if (!isa<FloatType>(et))
    return fail(loc, "the element type must be a float type");
  if (llvm::any_of(adaptor.getShape(), [](int64_t d) { return d < 0; }))
    return fail(loc, "the shape must be static");
  results.push_back(RankedTensorType::get(adaptor.getShape(), et));
  return success();
}

LogicalResult TriluOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  // trilu_c1
  if (data.getRank() < 2)
    return fail(loc,
                "data must have rank >= 2, got " + shapeStr(data.getShape()));
  results.push_back(data);
  return success();
}

//===----------------------------------------------------------------------===//
// max_pool_with_indices
//===----------------------------------------------------------------------===//

SmallVector<int64_t> MaxPoolWithIndicesOp::getStrides() {
  return stridesOf(*this);
}
SmallVector<int64_t> MaxPoolWithIndicesOp::getDilations() {
  return dilationsOf(*this);
}
SmallVector<int64_t> MaxPoolWithIndicesOp::getPadding() {
  return paddingOf(*this, 2);
}

LogicalResult MaxPoolWithIndicesOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  ArrayRef<int64_t> kernel = adaptor.getKernel();
  size_t n = kernel.size();
  // max_pool_with_indices_c1
  if (data.getRank() < 3 || (size_t)data.getRank() != n + 2)
    return fail(loc, "kernel " + shapeStr(kernel) +
                         " needs data of rank len(kernel) + 2 >= 3, got " +
                         shapeStr(data.getShape()));
  // max_pool_with_indices_c2
  if (failed(checkSpatialAttr(loc, "kernel", kernel, n, 1)) ||
      failed(checkSpatialAttr(loc, "stride", adaptor.getStride(), n, 1)) ||
      failed(checkSpatialAttr(loc, "dilate", adaptor.getDilate(), n, 1)))
    return failure();
  ArrayRef<int64_t> padAttr = adaptor.getPad();
  if (!padAttr.empty() && padAttr.size() != 2 * n)
    return fail(loc, "pad has " + Twine(padAttr.size()) + " values, expected " +
                         Twine(2 * n) + " (begins, then ends)");
  if (llvm::any_of(padAttr, [](int64_t p) { return p < 0; }))
    return fail(loc, "pad values must be >= 0, got " + shapeStr(padAttr));
  // max_pool_with_indices_c3
  if (adaptor.getStorageOrder() != 0 && adaptor.getStorageOrder() != 1)
    return fail(loc, "storage_order must be 0 or 1, got " +
                         Twine(adaptor.getStorageOrder()));
  // max_pool_with_indices_c4
  Type et = data.getElementType();
  if (et.isInteger(1))
    return fail(loc, "data must be float or integer, got " + typeStr(et));
  // max_pool_with_indices_c5
  auto stride = withDefault(adaptor.getStride(), n, 1);
  auto dilate = withDefault(adaptor.getDilate(), n, 1);
  auto pad = withDefault(padAttr, 2 * n, 0);
  SmallVector<int64_t> out(data.getShape().take_front(2));
  for (size_t s = 0; s < n; ++s) {
    int64_t in = data.getDimSize(2 + s);
    auto count =
        windowCount(loc, s, paddedExtent(in, pad[s] + pad[n + s]), kernel[s],
                    dilate[s], stride[s], adaptor.getCeilMode(), "kernel");
    if (failed(count))
      return failure();
    for (int64_t o = 0; !ShapedType::isDynamic(in) && o < *count; ++o)
      if (!windowReachesIn(o, stride[s], pad[s], kernel[s], dilate[s], in))
        return fail(loc, "window " + Twine(o) + " on spatial axis " + Twine(s) +
                             " reads only padding");
    out.push_back(*count);
  }
  results.push_back(RankedTensorType::get(out, et));
  results.push_back(RankedTensorType::get(out, IntegerType::get(ctx, 64)));
  return success();
}

//===----------------------------------------------------------------------===//
// reshape_to_extents
//===----------------------------------------------------------------------===//

/// The shape `extentsAttr` describes (`?` where a term reads a dynamic
/// extent of `sources`), or a failure naming the bad entry.
static FailureOr<SmallVector<int64_t>> extentsShape(std::optional<Location> loc,
                                                    ArrayAttr extentsAttr,
                                                    ValueRange sources) {
  SmallVector<int64_t> out;
  size_t nSources = sources.size();
  auto bad = [&](const Twine &message) {
    (void)fail(loc, message);
    return failure();
  };
  for (auto [i, attr] : llvm::enumerate(extentsAttr)) {
    auto entry = dyn_cast<DenseI64ArrayAttr>(attr);
    ArrayRef<int64_t> e = entry ? entry.asArrayRef() : ArrayRef<int64_t>();
    // reshape_to_extents_c1
    if (e.size() == 1 && e[0] >= 0) {
      out.push_back(e[0]);
      continue;
    }
    if (e.size() < 3 || e.size() % 2 == 0 || e[1] < 1)
      return bad("extent " + Twine(i) +
                 " is neither a constant nor a term (coef, div, offset, then "
                 "source and axis pairs)");
    int64_t value = e[0];
    bool dynamic = false;
    for (size_t k = 3; k < e.size(); k += 2) {
      if (e[k] < 1 || size_t(e[k]) > nSources)
        return bad("extent " + Twine(i) + " names source " + Twine(e[k]) +
                   " of " + Twine(nSources));
      auto src = tensorOf(sources[e[k] - 1]);
      if (e[k + 1] < 0 || e[k + 1] >= src.getRank())
        return bad("extent " + Twine(i) + " names axis " + Twine(e[k + 1]) +
                   " of a rank-" + Twine(src.getRank()) + " source");
      if (src.isDynamicDim(e[k + 1]))
        dynamic = true;
      else
        value *= src.getDimSize(e[k + 1]);
    }
    out.push_back(dynamic ? ShapedType::kDynamic : value / e[1] + e[2]);
  }
  return out;
}

LogicalResult
ReshapeToExtentsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                     Adaptor adaptor,
                                     SmallVectorImpl<Type> &results) {
  auto out = extentsShape(loc, adaptor.getExtents(), adaptor.getSources());
  if (failed(out))
    return failure();
  results.push_back(RankedTensorType::get(
      *out, tensorOf(adaptor.getData()).getElementType()));
  return success();
}

LogicalResult
FillToExtentsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &results) {
  auto out = extentsShape(loc, adaptor.getExtents(), adaptor.getSources());
  if (failed(out))
    return failure();
  // fill_to_extents_c1
  if (adaptor.getIota() && out->size() != 1)
    return fail(loc, "iota needs one extent, got " + Twine(out->size()));
  results.push_back(RankedTensorType::get(*out, adaptor.getElementType()));
  return success();
}
