// SPDX-License-Identifier: Apache-2.0
// ONNX's selection operators. TopK of a small constant k: k rounds of
// arg-max (or arg-min) over the axis, each taking its element out of the
// running (O(k n), code every target compiles); a larger or run-time k, or
// a counted axis, and NonMaxSuppression: the runtime's selection kernels
// (mx.top_k, mx.non_max_suppression; runtime/src/kernels/select/select.cpp).
// NonZero, Compress, Unique and NonMaxSuppression keep a number of elements
// only the data tells: their outputs have the static bound of that extent, the
// kept entries moved to the front (Importer::frontSlots) and the count beside
// them (Importer::outCounted), which the library reports with the outputs.
#include "compiler/frontends/onnx/ImporterImpl.h"

#include <limits>

using namespace mlir;

namespace mxc::onnx {

/// The most rounds of arg-max TopK unrolls; a larger k, a run-time one or
/// a counted axis take the runtime's selection kernel (float32).
constexpr int64_t kMaxUnrolledTopK = 16;

/// TopK through mx.top_k: the positions from the runtime's partial sort,
/// the values gathered at them; counted when k is known only at run time
/// or the axis's extent is data-dependent.
static LogicalResult selectTopK(Importer &im, int64_t axis, int64_t bound,
                                Value k, bool largest) {
  const Tensor &x = im.in(0);
  Value count = x.count && x.countAxis == axis
                    ? x.count
                    : im.int64Scalar(im.shape(0)[axis]);
  bool counted = bool(x.count);
  Value kv = k ? k : im.int64Scalar(bound);
  Value idx =
      im.op("mx.top_k", {im.val(0), count, kv},
            {im.na("axis", im.i64(axis)), im.na("k_bound", im.i64(bound)),
             im.na("largest", im.boolean(largest))});
  if (!idx)
    return failure();
  Value values = im.op("mx.gather_elements", {im.val(0), idx},
                       {im.na("axis", im.i64(axis))});
  if (!k && !(counted && x.countAxis == axis)) {
    // k static over a whole axis: a plain result, or the input's count on
    // another axis.
    if (counted) {
      if (failed(im.outCounted(0, values, x.count, x.countAxis)))
        return failure();
      return im.outCounted(1, idx, x.count, x.countAxis);
    }
    if (failed(im.out(0, values)))
      return failure();
    return im.out(1, idx);
  }
  if (counted && x.countAxis != axis)
    return im.fail("input 'X' has a data-dependent extent on axis " +
                   Twine(x.countAxis) + " beside a run-time k on axis " +
                   Twine(axis) + ", which is not supported");
  // As many as k, or the kept elements when fewer.
  Value taken = kv;
  if (counted)
    taken = im.binary(kv, count, "minimum");
  if (failed(im.outCounted(0, values, taken, axis)))
    return failure();
  return im.outCounted(1, idx, taken, axis);
}

LogicalResult importTopK(Importer &im, StringRef) {
  auto xs = im.shape(0);
  int64_t rank = xs.size(), axis;
  if (rank == 0)
    return im.fail("input must have rank 1 or more");
  if (failed(im.axisAttr(-1, rank, axis)))
    return failure();
  if (ShapedType::isDynamic(xs[axis]))
    return im.fail("the axis's extent must be static");
  bool largest = im.attrInt("largest", 1) != 0;
  im.ignoreAttrs({"sorted"}); // the result is always sorted
  int32_t type = im.type(0);
  const Tensor &input = im.in(0);
  int64_t k;
  Value runK; // a run-time k, whose bound is k
  if (im.opset < 10) {
    k = im.attrInt("k", -1);
  } else if (im.cst(1)) {
    auto v = im.constInt(1, "K");
    if (failed(v))
      return failure();
    k = *v;
  } else if (auto b = im.bounded(1); b && b->bounds.size() == 1) {
    // A k computed from data-dependent extents (min(300, count)).
    k = std::min(b->bounds[0], xs[axis]);
    runK = im.reshape(im.castTo(im.val(1), TP::INT64), {});
  } else {
    auto declared = im.declaredShape(0, 1, "K");
    if (failed(declared))
      return failure();
    if ((int64_t)declared->size() != rank)
      return im.fail("the declared shape " + shapeText(*declared) +
                     " does not have the input's rank");
    k = (*declared)[axis];
  }
  if (k < 0 || k > xs[axis])
    return im.fail("K = " + Twine(k) + " is outside [0, " + Twine(xs[axis]) +
                   "], the axis's extent");
  bool kernel = runK || input.count || k > kMaxUnrolledTopK;
  if (kernel && type == TP::FLOAT && llvm::none_of(xs, ShapedType::isDynamic))
    return selectTopK(im, axis, k, runK, largest);
  if (input.count || runK)
    return im.fail("a run-time k or a data-dependent extent needs a float32 "
                   "input of static shape");
  if (type == TP::BOOL)
    return im.fail("boolean inputs are not supported");
  std::vector<int64_t> outShape = xs;
  outShape[axis] = k;
  if (k == 0) {
    auto empty = [&](int32_t t) {
      return im.emptyConstant(
          RankedTensorType::get(outShape, elementType(t, &im.ctx)));
    };
    if (failed(im.out(0, empty(type))))
      return failure();
    return im.out(1, empty(TP::INT64));
  }
  // What a taken element becomes: below (above) every value.
  Const fill(type, {});
  if (isFloatType(type)) {
    fill.set(0, largest ? -std::numeric_limits<double>::infinity()
                        : std::numeric_limits<double>::infinity());
  } else {
    int bits = 8 * (int)elementSize(type);
    int64_t top = bits == 64 ? std::numeric_limits<int64_t>::max()
                             : (int64_t(1) << (bits - 1)) - 1;
    fill.setInt(0, largest ? -top - 1 : top);
  }
  Value x = im.val(0), running = x;
  Value iota = im.iotaOfExtent(0, axis, rank, axis);
  Value taken = im.param(fill, im.nodeName + "_taken");
  SmallVector<Value> values, indices;
  for (int64_t j = 0; j < k; ++j) {
    Value idx = im.op("mx.argreduce", running,
                      {im.na("op", im.str(largest ? "max" : "min")),
                       im.na("axis", im.i64(axis)),
                       im.na("keepdims", im.boolean(true))});
    indices.push_back(idx);
    values.push_back(
        im.op("mx.gather_elements", {x, idx}, {im.na("axis", im.i64(axis))}));
    if (j + 1 < k)
      running = im.where(im.compare(iota, idx, "equal"), taken, running);
  }
  auto join = [&](SmallVector<Value> &parts) {
    return parts.size() == 1
               ? parts[0]
               : im.op("mx.Concat", parts, {im.na("dim", im.i64(axis))});
  };
  if (failed(im.out(0, join(values))))
    return failure();
  return im.out(1, join(indices));
}

/// The elements of `v` that are not 0 (not false), as a bool vector of its
/// flattened elements.
static Value nonZeroMask(Importer &im, Value v, int32_t type) {
  int64_t n = numElements(cast<RankedTensorType>(v.getType()).getShape());
  v = im.reshape(v, {n});
  if (type == TP::BOOL)
    return v;
  return im.compare(v, im.scalarParam(type, 0.0, "zero"), "not_equal");
}

LogicalResult importNonZero(Importer &im, StringRef) {
  auto xs = im.shape(0);
  int64_t rank = xs.size(), n = numElements(xs);
  if (failed(im.requireStatic(0, "the input")))
    return failure();
  if (rank == 0)
    return im.fail("a scalar input is not supported (rank 1 or more)");
  if (im.type(0) == TP::STRING)
    return im.fail("string inputs are not supported");
  auto [slots, count] = im.frontSlots(nonZeroMask(im, im.val(0), im.type(0)));
  Value source = im.invertSlots(slots, n); // flat index of each kept element
  // Its coordinates, one row per axis.
  SmallVector<Value> rows;
  int64_t stride = n;
  for (int64_t d = 0; d < rank; ++d) {
    stride /= std::max<int64_t>(xs[d], 1);
    Value c = im.binary(source, im.int64Scalar(stride), "div");
    if (d > 0)
      c = im.binary(c, im.int64Scalar(xs[d]), "mod");
    rows.push_back(im.reshape(c, {1, n}));
  }
  Value y = rows.size() == 1
                ? rows[0]
                : im.op("mx.Concat", rows, {im.na("dim", im.i64(0))});
  return im.outCounted(0, y, count, 1);
}

LogicalResult importCompress(Importer &im, StringRef) {
  auto xs = im.shape(0);
  if (failed(im.requireStatic(0, "the input")))
    return failure();
  if (im.rank(1) != 1 || im.type(1) != TP::BOOL)
    return im.fail("condition must be a 1-D bool tensor, got " +
                   typeName(im.type(1)) + " " + shapeText(im.shape(1)));
  Value x = im.val(0);
  int64_t axis = 0;
  if (im.attr("axis")) {
    if (failed(im.axisAttr(0, xs.size(), axis)))
      return failure();
  } else {
    x = im.reshape(x, {numElements(xs)});
    xs = {numElements(xs)};
  }
  // Entries past the condition's length are dropped.
  int64_t n = std::min(xs[axis], im.shape(1)[0]);
  Value cond = im.val(1);
  if (im.shape(1)[0] > n)
    cond = im.op("mx.slice", cond,
                 {im.na("begin", im.arr({0})), im.na("end", im.arr({n}))});
  if (xs[axis] > n) {
    std::vector<int64_t> b(xs.size(), 0), e = xs;
    e[axis] = n;
    x = im.op("mx.slice", x,
              {im.na("begin", im.arr(b)), im.na("end", im.arr(e))});
  }
  auto [slots, count] = im.frontSlots(cond);
  Value source = im.invertSlots(slots, n);
  Value y = im.op("mx.gather", {x, source}, {im.na("axis", im.i64(axis))});
  return im.outCounted(0, y, count, axis);
}

LogicalResult importUnique(Importer &im, StringRef) {
  auto xs = im.shape(0);
  if (failed(im.requireStatic(0, "the input")))
    return failure();
  int32_t type = im.type(0);
  if (type == TP::STRING || type == TP::BOOL)
    return im.fail("input of element type " + typeName(type) +
                   " is not supported");
  bool sorted = im.attrInt("sorted", 1) != 0;
  Value x = im.val(0);
  int64_t axis = 0;
  bool byAxis = im.attr("axis") != nullptr;
  if (byAxis) {
    if (failed(im.axisAttr(0, xs.size(), axis)))
      return failure();
  } else {
    x = im.reshape(x, {numElements(xs)});
  }
  int64_t n = byAxis ? xs[axis] : numElements(xs);
  if (n > 4096)
    return im.fail(Twine(n) + " entries to compare pairwise; at most 4096 are "
                              "supported");
  // Entries as rows (n, m): the slices along the axis, flattened.
  int64_t m = std::max<int64_t>(1, numElements(xs) / std::max<int64_t>(n, 1));
  Value rows = x;
  if (byAxis) {
    std::vector<int64_t> perm = {axis};
    for (int64_t d = 0; d < (int64_t)xs.size(); ++d)
      if (d != axis)
        perm.push_back(d);
    rows = im.op("mx.transpose", x, {im.na("axes", im.arr(perm))});
  }
  rows = im.reshape(rows, {n, m});
  Value a = im.op("mx.broadcast_to", im.reshape(rows, {n, 1, m}),
                  {im.na("shape", im.arr({n, n, m}))});
  Value b = im.op("mx.broadcast_to", im.reshape(rows, {1, n, m}),
                  {im.na("shape", im.arr({n, n, m}))});
  Value ne = im.castTo(im.compare(a, b, "not_equal"), TP::INT64);
  auto reduce = [&](Value v, StringRef fn, int64_t ax) {
    return im.op("mx.reduce", v,
                 {im.na("op", im.str(fn)), im.na("axis", im.arr({ax})),
                  im.na("keepdims", im.boolean(false))});
  };
  // equal[i][j]: entries i and j are the same.
  Value equal = im.compare(reduce(ne, "max", 2), im.int64Scalar(0), "equal");
  Value equalInt = im.castTo(equal, TP::INT64);
  // The first of its kind: no equal entry before it.
  Const before(TP::INT64, {n, n});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < i; ++j)
      before.setInt(i * n + j, 1);
  Value earlier = reduce(
      im.binary(equalInt, im.param(before, im.nodeName + "_before"), "mul"),
      "max", 1);
  Value first = im.compare(earlier, im.int64Scalar(0), "equal");
  Value firstInt = im.castTo(first, TP::INT64);
  // Each entry's place among the unique ones.
  Value place;
  if (sorted) {
    // less[j][i]: entry j sorts before entry i (at their first difference).
    Value at = im.op("mx.argreduce", ne,
                     {im.na("op", im.str("max")), im.na("axis", im.i64(2)),
                      im.na("keepdims", im.boolean(true))});
    Value aj = im.op("mx.gather_elements", {a, at}, {im.na("axis", im.i64(2))});
    Value bi = im.op("mx.gather_elements", {b, at}, {im.na("axis", im.i64(2))});
    Value less = im.binary(
        im.reshape(im.compare(aj, bi, "less"), {n, n}),
        im.compare(equal, im.scalarParam(TP::BOOL, 0, "no"), "equal"), "and");
    Value firstBefore = im.binary(im.castTo(less, TP::INT64),
                                  im.reshape(firstInt, {n, 1}), "mul");
    place = reduce(firstBefore, "sum", 0);
  } else {
    // The place of its first occurrence among the first occurrences.
    Value firstIndex =
        im.op("mx.argreduce", equalInt,
              {im.na("op", im.str("max")), im.na("axis", im.i64(1)),
               im.na("keepdims", im.boolean(false))});
    Value exclusive =
        im.binary(im.op("mx.cumsum", firstInt, {im.na("axis", im.i64(0))}),
                  firstInt, "sub");
    place =
        im.op("mx.gather", {exclusive, firstIndex}, {im.na("axis", im.i64(0))});
  }
  // First occurrences go to their places, the others after them.
  auto [frontOrder, count] = im.frontSlots(first);
  Value slots = im.where(first, place, frontOrder);
  Value source = im.invertSlots(slots, n); // each unique's first occurrence
  Value y = im.op("mx.gather", {x, source}, {im.na("axis", im.i64(axis))});
  Value counts = im.op("mx.gather", {reduce(equalInt, "sum", 1), source},
                       {im.na("axis", im.i64(0))});
  if (failed(im.outCounted(0, y, count, axis)) ||
      failed(im.outCounted(1, source, count, 0)) || failed(im.out(2, place)))
    return failure();
  return im.outCounted(3, counts, count, 0);
}

/// NonMaxSuppression through the runtime's greedy kernel
/// (mxrt_kernel_nms_f32, as ONNX Runtime selects): each (batch, class)'s
/// taken boxes in order, then the kept (batch, class, box) triples to the
/// front. Boxes and scores may have a data-dependent count of boxes.
LogicalResult importNonMaxSuppression(Importer &im, StringRef) {
  auto bs = im.shape(0), ss = im.shape(1);
  if (bs.size() != 3 || bs[2] != 4 || ss.size() != 3 || ss[0] != bs[0] ||
      ss[2] != bs[1])
    return im.fail("boxes must be (batches, boxes, 4) and scores (batches, "
                   "classes, boxes), got " +
                   shapeText(bs) + " and " + shapeText(ss));
  if (failed(im.requireStatic(0, "boxes")) ||
      failed(im.requireStatic(1, "scores")))
    return failure();
  if (failed(im.requireFloat(0)) || failed(im.requireFloat(1)))
    return failure();
  for (unsigned i = 2; i < 5; ++i)
    if (im.has(i) && im.in(i).count)
      return im.fail("input '" + im.node->input(i) +
                     "' has an extent found only as the model runs");
  const Tensor &bt = im.in(0), &st = im.in(1);
  if ((bt.count && bt.countAxis != 1) || (st.count && st.countAxis != 2) ||
      (bt.count && st.count && bt.count != st.count))
    return im.fail("boxes and scores must share one data-dependent count of "
                   "boxes (axis 1 of boxes, 2 of scores)");
  int64_t batches = bs[0], boxes = bs[1], classes = ss[1];
  Value count = bt.count   ? bt.count
                : st.count ? st.count
                           : im.int64Scalar(boxes);
  bool center = im.attrInt("center_point_box", 0) != 0;
  // The most boxes a class keeps: a constant's, else every box (the
  // kernel stops at the run-time value).
  int64_t rounds = boxes;
  Value limit;
  if (!im.has(2)) {
    rounds = 0; // ONNX's default: no output
  } else if (const Const *c = im.cst(2)) {
    if (c->size() != 1)
      return im.fail("max_output_boxes_per_class must be a scalar");
    rounds = std::clamp<int64_t>(c->i(0), 0, boxes);
  } else {
    limit = im.reshape(im.castTo(im.val(2), TP::INT64), {});
  }
  int64_t bound = batches * classes * rounds;
  if (bound == 0) {
    Value empty = im.emptyConstant(
        RankedTensorType::get({0, 3}, elementType(TP::INT64, &im.ctx)));
    return im.outCounted(0, empty, im.int64Scalar(0), 0);
  }
  auto scalarInput = [&](unsigned i) {
    return im.reshape(im.castTo(im.val(i), TP::FLOAT), {});
  };
  SmallVector<Value> operands = {
      im.castTo(im.val(0), TP::FLOAT), im.castTo(im.val(1), TP::FLOAT), count,
      limit ? limit : im.int64Scalar(rounds),
      im.has(3) ? scalarInput(3) : im.scalarParam(TP::FLOAT, 0.0, "iou")};
  if (im.has(4))
    operands.push_back(scalarInput(4));
  Value taken = im.op("mx.non_max_suppression", operands,
                      {im.na("center_point_box", im.boolean(center))});
  if (!taken)
    return failure();
  if (rounds < boxes)
    taken = im.op("mx.slice", taken,
                  {im.na("begin", im.arr({0, 0, 0})),
                   im.na("end", im.arr({batches, classes, rounds}))});
  Value box = im.reshape(taken, {bound});
  Value mask = im.compare(box, im.int64Scalar(0), "greater_equal");
  auto [slots, kept] = im.frontSlots(mask);
  Value source = im.invertSlots(slots, bound); // (batch, class, round)
  auto column = [&](Value v) { return im.reshape(v, {bound, 1}); };
  Value b = im.binary(source, im.int64Scalar(classes * rounds), "div");
  Value c = im.binary(im.binary(source, im.int64Scalar(rounds), "div"),
                      im.int64Scalar(classes), "mod");
  Value i = im.op("mx.gather", {box, source}, {im.na("axis", im.i64(0))});
  Value triples = im.op("mx.Concat", {column(b), column(c), column(i)},
                        {im.na("dim", im.i64(1))});
  return im.outCounted(0, triples, kept, 0);
}

} // namespace mxc::onnx
