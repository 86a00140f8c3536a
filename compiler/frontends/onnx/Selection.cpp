// SPDX-License-Identifier: Apache-2.0
// ONNX's selection operators. TopK: k rounds of arg-max (or arg-min) over
// the axis, each taking its element out of the running (O(k n): the k of
// classification and detection heads is small beside n). NonZero,
// Compress and Unique keep a number of elements only the data tells: their
// outputs have the static bound of that extent, the kept entries moved to
// the front (Importer::frontSlots) and the count beside them
// (Importer::outCounted), which the library reports with the outputs.
#include "compiler/frontends/onnx/ImporterImpl.h"

#include <limits>

using namespace mlir;

namespace mxc::onnx {

LogicalResult importTopK(Importer &im, StringRef) {
  auto xs = im.shape(0);
  int64_t rank = xs.size(), axis;
  if (rank == 0)
    return im.fail("input must have rank 1 or more");
  if (failed(im.axisAttr(-1, rank, axis)))
    return failure();
  if (ShapedType::isDynamic(xs[axis]))
    return im.fail("the axis's extent must be static");
  int64_t k;
  if (im.opset < 10) {
    k = im.attrInt("k", -1);
  } else if (im.cst(1)) {
    auto v = im.constInt(1, "K");
    if (failed(v))
      return failure();
    k = *v;
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
  bool largest = im.attrInt("largest", 1) != 0;
  im.ignoreAttrs({"sorted"}); // the result is always sorted
  int32_t type = im.type(0);
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

/// NonMaxSuppression, greedy as ONNX Runtime runs it, for every batch and
/// class at once: k rounds (k the most boxes a class keeps) each take the
/// best box left of every class and drop the boxes that overlap it more
/// than the threshold; the kept (batch, class, box) triples go to the front.
LogicalResult importNonMaxSuppression(Importer &im, StringRef) {
  auto bs = im.shape(0), ss = im.shape(1);
  if (bs.size() != 3 || bs[2] != 4 || ss.size() != 3 || ss[0] != bs[0] ||
      ss[2] != bs[1])
    return im.fail("boxes must be (batches, boxes, 4) and scores (batches, "
                   "classes, boxes), got " +
                   shapeText(bs) + " and " + shapeText(ss));
  if (failed(im.requireStatic(0, "boxes")))
    return failure();
  if (ShapedType::isDynamic(ss[1]))
    return im.fail("the number of classes must be static");
  if (failed(im.requireFloat(0)) || failed(im.requireFloat(1)))
    return failure();
  int32_t type = im.type(1);
  int64_t batches = bs[0], boxes = bs[1], classes = ss[1];
  bool center = im.attrInt("center_point_box", 0) != 0;
  // The most boxes a class keeps: a constant's, else every box with the
  // run-time value masking the rounds past it.
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
  constexpr int64_t kMaxRounds = 256;
  if (rounds > kMaxRounds)
    return im.fail("selecting up to " + Twine(rounds) +
                   " boxes per class; at most " + Twine(kMaxRounds) +
                   " are supported (max_output_boxes_per_class)");
  int64_t bound = batches * classes * rounds;
  if (bound == 0) {
    Value empty = im.emptyConstant(
        RankedTensorType::get({0, 3}, elementType(TP::INT64, &im.ctx)));
    return im.outCounted(0, empty, im.int64Scalar(0), 0);
  }
  auto scalarInput = [&](unsigned i) {
    return im.reshape(im.castTo(im.val(i), type), {});
  };
  Value iouThreshold =
      im.has(3) ? scalarInput(3) : im.scalarParam(type, 0.0, "iou");
  std::vector<int64_t> all = {batches, classes, boxes};
  auto spread = [&](Value v) { // (batches, boxes) -> (batches, classes, boxes)
    return im.op("mx.broadcast_to", im.reshape(v, {batches, 1, boxes}),
                 {im.na("shape", im.arr(all))});
  };
  auto coordinate = [&](int64_t k) {
    return im.reshape(im.op("mx.slice", im.val(0),
                            {im.na("begin", im.arr({0, 0, k})),
                             im.na("end", im.arr({batches, boxes, k + 1}))}),
                      {batches, boxes});
  };
  Value y1, x1, y2, x2;
  if (center) { // (x center, y center, width, height)
    Value xc = coordinate(0), yc = coordinate(1);
    Value hw = im.scalar(coordinate(2), "mul", 0.5);
    Value hh = im.scalar(coordinate(3), "mul", 0.5);
    x1 = im.binary(xc, hw, "sub"), x2 = im.binary(xc, hw, "add");
    y1 = im.binary(yc, hh, "sub"), y2 = im.binary(yc, hh, "add");
  } else { // two opposite corners, (y, x) each, in either order
    Value a = coordinate(0), b = coordinate(1), c = coordinate(2),
          d = coordinate(3);
    y1 = im.binary(a, c, "minimum"), y2 = im.binary(a, c, "maximum");
    x1 = im.binary(b, d, "minimum"), x2 = im.binary(b, d, "maximum");
  }
  Value area =
      im.binary(im.binary(y2, y1, "sub"), im.binary(x2, x1, "sub"), "mul");
  y1 = spread(y1), x1 = spread(x1), y2 = spread(y2), x2 = spread(x2);
  area = spread(area);
  Value lowest =
      im.scalarParam(type, -std::numeric_limits<double>::infinity(), "lowest");
  Value zero = im.scalarParam(type, 0.0, "zero");
  Value left = im.val(1);
  if (im.has(4))
    left = im.where(im.compare(left, scalarInput(4), "greater"), left, lowest);
  Value index = im.iotaAlong(3, 2, boxes);
  SmallVector<Value> picked, kept;
  for (int64_t k = 0; k < rounds; ++k) {
    Value best = im.op("mx.argreduce", left,
                       {im.na("op", im.str("max")), im.na("axis", im.i64(2)),
                        im.na("keepdims", im.boolean(true))});
    auto at = [&](Value v) {
      return im.op("mx.gather_elements", {v, best}, {im.na("axis", im.i64(2))});
    };
    Value valid = im.compare(at(left), lowest, "greater");
    if (limit)
      valid =
          im.binary(valid, im.compare(im.int64Scalar(k), limit, "less"), "and");
    picked.push_back(best);
    kept.push_back(valid);
    if (k + 1 == rounds)
      break;
    // The overlap of every box with the best one, as ONNX Runtime decides
    // it: no suppression without a positive intersection, areas and union.
    auto extent = [&](Value lo, Value hi) {
      Value e = im.binary(im.binary(hi, at(hi), "minimum"),
                          im.binary(lo, at(lo), "maximum"), "sub");
      return im.binary(e, zero, "maximum");
    };
    Value inter = im.binary(extent(y1, y2), extent(x1, x2), "mul");
    Value bestArea = at(area);
    Value uni = im.binary(im.binary(area, bestArea, "add"), inter, "sub");
    Value positive =
        im.binary(im.binary(im.compare(inter, zero, "greater"),
                            im.compare(area, zero, "greater"), "and"),
                  im.binary(im.compare(bestArea, zero, "greater"),
                            im.compare(uni, zero, "greater"), "and"),
                  "and");
    Value over =
        im.compare(im.binary(inter, uni, "div"), iouThreshold, "greater");
    Value drop = im.binary(im.binary(positive, over, "and"),
                           im.compare(index, best, "equal"), "or");
    left = im.where(drop, lowest, left);
  }
  auto join = [&](SmallVector<Value> &parts) {
    Value v = parts.size() == 1
                  ? parts[0]
                  : im.op("mx.Concat", parts, {im.na("dim", im.i64(2))});
    return im.reshape(v, {bound});
  };
  Value box = join(picked), mask = join(kept);
  auto [slots, count] = im.frontSlots(mask);
  Value source = im.invertSlots(slots, bound); // (batch, class, round)
  auto column = [&](Value v) { return im.reshape(v, {bound, 1}); };
  Value b = im.binary(source, im.int64Scalar(classes * rounds), "div");
  Value c = im.binary(im.binary(source, im.int64Scalar(rounds), "div"),
                      im.int64Scalar(classes), "mod");
  Value i = im.op("mx.gather", {box, source}, {im.na("axis", im.i64(0))});
  Value triples = im.op("mx.Concat", {column(b), column(c), column(i)},
                        {im.na("dim", im.i64(1))});
  return im.outCounted(0, triples, count, 0);
}

} // namespace mxc::onnx
