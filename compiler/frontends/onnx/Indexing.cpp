// SPDX-License-Identifier: Apache-2.0
// ONNX's indexing operators: Concat, Split, Slice and Gather (on the host
// when their data is constant, for shape arithmetic), GatherElements,
// GatherND, the Scatter family, Pad, OneHot and Trilu.
#include "compiler/frontends/onnx/ImporterImpl.h"

#include <limits>

using namespace mlir;

namespace mxc::onnx {

LogicalResult importConcat(Importer &im, StringRef) {
  int64_t r = im.rank(0), axis;
  if (failed(im.axisAttr(1, r, axis)))
    return failure();
  int n = im.node->input_size();
  for (int i = 0; i < n; ++i)
    if (im.in(i).count)
      return im.importCountedConcat(axis);
  if (im.allConst()) {
    std::vector<int64_t> os = im.shape(0);
    os[axis] = 0;
    for (int i = 0; i < n; ++i) {
      auto s = im.shape(i);
      if ((int64_t)s.size() != r || im.type(i) != im.type(0))
        return im.fail("inputs differ in rank or element type");
      os[axis] += s[axis];
    }
    Const o(im.type(0), os);
    int64_t inner = numElements(ArrayRef(os).drop_front(axis + 1));
    int64_t outer = numElements(ArrayRef(os).take_front(axis));
    int64_t k = 0;
    for (int64_t q = 0; q < outer; ++q)
      for (int i = 0; i < n; ++i) {
        const Const &c = *im.cst(i);
        int64_t chunk = c.shape[axis] * inner;
        for (int64_t j = 0; j < chunk; ++j)
          o.copy(k++, c, q * chunk + j);
      }
    return im.outConst(0, std::move(o));
  }
  SmallVector<Value> operands;
  // ONNX allows empty inputs: those with an extent 0 drop out (a dynamic
  // extent is not known to be 0).
  for (int i = 0; i < n; ++i)
    if (!llvm::is_contained(im.shape(i), 0))
      operands.push_back(im.val(i));
  if (operands.size() == 1)
    return im.out(0, operands[0]);
  return im.out(0, im.op("mx.Concat", operands, {im.na("dim", im.i64(axis))}));
}

LogicalResult importSplit(Importer &im, StringRef) {
  auto in = im.shape(0);
  int64_t r = in.size(), axis;
  if (failed(im.axisAttr(0, r, axis)))
    return failure();
  int64_t parts = im.node->output_size();
  std::vector<int64_t> sizes;
  if (im.opset >= 13 && im.has(1) && !im.cst(1)) {
    // Run-time sizes: each output's declared extent along the axis.
    for (int64_t k = 0; k < parts; ++k) {
      auto declared = im.declaredShape(k, 1, "split");
      if (failed(declared))
        return failure();
      if ((int64_t)declared->size() != r)
        return im.fail("the declared shape " + shapeText(*declared) +
                       " of output " + Twine(k) + " does not have rank " +
                       Twine(r));
      sizes.push_back((*declared)[axis]);
    }
  } else if (im.opset >= 13 && im.has(1)) {
    if (failed(im.optionalConstInts(1, "split", sizes)))
      return failure();
  } else if (auto s = im.attrInts("split")) {
    sizes = *s;
  } else {
    if (ShapedType::isDynamic(in[axis]))
      return im.fail("splitting axis " + Twine(axis) +
                     ", whose extent is known only at run time, is not "
                     "supported yet");
    if (in[axis] % parts)
      return im.fail("extent " + Twine(in[axis]) + " of axis " + Twine(axis) +
                     " does not split into " + Twine(parts) + " equal parts");
    sizes.assign(parts, in[axis] / parts);
  }
  int64_t total = 0;
  for (int64_t s : sizes)
    total += s;
  if ((int64_t)sizes.size() != parts || total != in[axis])
    return im.fail("split " + shapeText(sizes) + " does not divide extent " +
                   Twine(in[axis]) + " into " + Twine(parts) + " outputs");
  int64_t start = 0;
  for (int64_t k = 0; k < parts; ++k, start += sizes[k - 1]) {
    if (!im.wants(k))
      continue;
    if (const Const *c = im.cst(0)) {
      auto idx = allIndices(in);
      idx[axis] = iota(start, sizes[k]);
      (void)im.outConst(k, selectIndices(*c, idx));
      continue;
    }
    SmallVector<int64_t> sb(axis + 1, 0), se(in.begin(), in.begin() + axis + 1);
    for (int64_t &e : se) // a run-time extent: the axis whole
      if (ShapedType::isDynamic(e))
        e = std::numeric_limits<int64_t>::max();
    sb[axis] = start;
    se[axis] = start + sizes[k];
    if (failed(im.out(
            k, im.op("mx.slice", im.val(0),
                     {im.na("begin", im.arr(sb)), im.na("end", im.arr(se))}))))
      return failure();
  }
  return success();
}

namespace {
/// One axis of an ONNX Slice after clamping: first index, step, count.
struct SliceAxis {
  int64_t start, step, count;
};
} // namespace

static SliceAxis normalizeSlice(int64_t dim, int64_t start, int64_t end,
                                int64_t step) {
  if (start < 0)
    start += dim;
  if (end < 0)
    end += dim;
  int64_t count;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    count = end > start ? (end - start + step - 1) / step : 0;
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    count = start > end ? (start - end - step - 1) / -step : 0;
  }
  return {start, step, count};
}

/// A Slice whose starts, ends, axes or steps are known only at run time,
/// to the declared shape: along each axis it may slice, a gather at
/// start + step * (0, 1, ..., n - 1), n the declared extent, start and
/// step picked from the inputs and clamped as ONNX says (the ends only
/// decide n).
static LogicalResult importRunTimeSlice(Importer &im) {
  auto in = im.shape(0);
  int64_t r = in.size();
  unsigned runTime = 1;
  while (runTime < 4 && im.cst(runTime))
    ++runTime;
  static const char *names[] = {"data", "starts", "ends", "axes", "steps"};
  auto declared = im.declaredShape(0, runTime, names[runTime]);
  if (failed(declared))
    return failure();
  if ((int64_t)declared->size() != r)
    return im.fail("the declared shape " + shapeText(*declared) +
                   " does not have the input's rank " + Twine(r));
  int64_t count = numElements(im.shape(1));
  std::optional<std::vector<int64_t>> axes;
  if (!im.has(3))
    axes = iota(0, count);
  else if (im.cst(3))
    axes = im.cst(3)->intValues();
  Value starts = im.int64Vector(1);
  Value steps = im.has(4) ? im.int64Vector(4) : Value();
  Value x = im.val(0);
  for (int64_t d = 0; d < r; ++d) {
    if (ShapedType::isDynamic(in[d]))
      return im.fail("slicing axis " + Twine(d) +
                     ", whose extent is known only at run time, is not "
                     "supported yet");
    Value start, step;
    if (axes) {
      // Constant axes: the entry for d, if any.
      auto it =
          llvm::find_if(*axes, [&](int64_t a) { return a == d || a == d - r; });
      if (it == axes->end())
        continue;
      int64_t j = it - axes->begin();
      start = im.elementOf(starts, j);
      step = steps ? im.elementOf(steps, j) : im.int64Scalar(1);
    } else {
      // Run-time axes: the sums over the entries naming d (none: 0, 1).
      Value axesV = im.int64Vector(3);
      Value hit =
          im.binary(im.compare(axesV, im.int64Scalar(d), "equal"),
                    im.compare(axesV, im.int64Scalar(d - r), "equal"), "or");
      auto pick = [&](Value v) {
        Value kept = im.where(hit, v, im.int64Scalar(0));
        return im.reshape(im.reduceKeep(kept, "sum", {0}), {});
      };
      start = pick(starts);
      step = steps ? im.where(im.holdsAxis(axesV, d, r), pick(steps),
                              im.int64Scalar(1))
                   : im.int64Scalar(1);
    }
    Value dim = im.int64Scalar(in[d]), zero = im.int64Scalar(0);
    start = im.where(im.compare(start, zero, "less"),
                     im.binary(start, dim, "add"), start);
    Value last = im.where(im.compare(step, zero, "greater"), dim,
                          im.int64Scalar(in[d] - 1));
    start = im.binary(im.binary(start, last, "minimum"), zero, "maximum");
    Value index = im.binary(
        start, im.binary(im.iotaAlong(1, 0, (*declared)[d]), step, "mul"),
        "add");
    x = im.op("mx.gather", {x, index}, {im.na("axis", im.i64(d))});
  }
  return im.out(0, x);
}

LogicalResult importSlice(Importer &im, StringRef) {
  std::vector<int64_t> starts, ends, axes, steps;
  if (im.opset >= 10 && !llvm::all_of(llvm::seq(1u, 5u), [&](unsigned i) {
        return !im.has(i) || im.cst(i);
      })) {
    if (im.in(0).count)
      return im.fail("input 'data' has an extent the data decides; slicing "
                     "it at run-time positions is not supported");
    return importRunTimeSlice(im);
  }
  if (im.opset < 10) {
    starts = im.attrInts("starts", {});
    ends = im.attrInts("ends", {});
    axes = im.attrInts("axes", {});
  } else {
    auto s = im.constInts(1, "starts");
    auto e = im.constInts(2, "ends");
    if (failed(s) || failed(e) ||
        failed(im.optionalConstInts(3, "axes", axes)) ||
        failed(im.optionalConstInts(4, "steps", steps)))
      return failure();
    starts = *s;
    ends = *e;
  }
  auto in = im.shape(0);
  int64_t r = in.size();
  if (axes.empty())
    axes = iota(0, starts.size());
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return im.fail("starts, ends, axes and steps differ in length");
  std::vector<SliceAxis> perAxis;
  for (int64_t i = 0; i < r; ++i)
    perAxis.push_back({0, 1, in[i]});
  std::vector<bool> seen(r, false);
  int64_t last = -1;
  for (size_t j = 0; j < starts.size(); ++j) {
    int64_t a = axes[j] < 0 ? axes[j] + r : axes[j];
    if (a < 0 || a >= r || seen[a])
      return im.fail("axes " + shapeText(axes) + " are invalid for rank " +
                     Twine(r));
    if (steps[j] == 0)
      return im.fail("steps must not be 0");
    seen[a] = true;
    last = std::max(last, a);
    if (ShapedType::isDynamic(in[a]))
      return im.fail("slicing axis " + Twine(a) +
                     ", whose extent is known only at run time, is not "
                     "supported yet");
    perAxis[a] = normalizeSlice(in[a], starts[j], ends[j], steps[j]);
  }
  if (const Const *c = im.cst(0)) {
    std::vector<std::vector<int64_t>> idx;
    for (const SliceAxis &s : perAxis) {
      std::vector<int64_t> v;
      for (int64_t k = 0; k < s.count; ++k)
        v.push_back(s.start + k * s.step);
      idx.push_back(std::move(v));
    }
    return im.outConst(0, selectIndices(*c, idx));
  }
  SmallVector<int64_t> sb, se, ss;
  for (int64_t i = 0; i <= last; ++i) {
    const SliceAxis &s = perAxis[i];
    int64_t stop = s.start + s.count * s.step;
    if (ShapedType::isDynamic(in[i])) { // taken whole
      sb.push_back(0);
      se.push_back(std::numeric_limits<int64_t>::max());
      ss.push_back(1);
      continue;
    }
    sb.push_back(s.start);
    // A negative step that runs past index 0 needs Python's "before 0".
    se.push_back(stop < 0 ? -in[i] - 1 : stop);
    ss.push_back(s.step);
  }
  if (last < 0)
    return im.forward(0, 0);
  Value y = im.op("mx.slice", im.val(0),
                  {im.na("begin", im.arr(sb)), im.na("end", im.arr(se)),
                   im.na("step", im.arr(ss))});
  const Tensor &x = im.in(0);
  if (!x.count)
    return im.out(0, y);
  // A data-dependent extent: whole, or its first elements (keep[:300]).
  const SliceAxis &c = perAxis[x.countAxis];
  if (c.count == in[x.countAxis])
    return im.outCounted(0, y, x.count, x.countAxis);
  if (c.start != 0 || c.step != 1)
    return im.fail("input 'data' has an extent the data decides (axis " +
                   Twine(x.countAxis) +
                   "), which Slice takes only whole or from its start");
  return im.outCounted(0, y,
                       im.binary(x.count, im.int64Scalar(c.count), "minimum"),
                       x.countAxis);
}

LogicalResult importGather(Importer &im, StringRef) {
  auto in = im.shape(0);
  int64_t r = in.size(), axis;
  if (failed(im.axisAttr(0, r, axis)))
    return failure();
  if (isFloatType(im.type(1)))
    return im.fail("indices must be integers");
  const Const *ic = im.cst(1);
  if (!ic)
    return im.out(0, im.op("mx.gather", {im.val(0), im.val(1)},
                           {im.na("axis", im.i64(axis))}));
  // Constant indices: checked, made non-negative int64.
  Const idx(TP::INT64, ic->shape);
  for (int64_t k = 0; k < idx.size(); ++k) {
    int64_t v = ic->i(k);
    if (v < -in[axis] || v >= in[axis])
      return im.fail("index " + Twine(v) + " is out of range for extent " +
                     Twine(in[axis]));
    idx.setInt(k, v < 0 ? v + in[axis] : v);
  }
  if (const Const *dc = im.cst(0)) {
    // Host gather: select along `axis`, then give the indices their shape.
    auto sel = allIndices(in);
    sel[axis] = idx.intValues();
    Const o = selectIndices(*dc, sel);
    o.shape.assign(in.begin(), in.begin() + axis);
    o.shape.insert(o.shape.end(), idx.shape.begin(), idx.shape.end());
    o.shape.insert(o.shape.end(), in.begin() + axis + 1, in.end());
    return im.outConst(0, std::move(o));
  }
  return im.out(0, im.op("mx.gather",
                         {im.val(0), im.param(idx, im.node->input(1))},
                         {im.na("axis", im.i64(axis))}));
}

/// GatherElements (along `axis`), GatherND (after `batch_dims`).
LogicalResult importGatherIndexed(Importer &im, StringRef t) {
  if (isFloatType(im.type(1)))
    return im.fail("indices must be integers");
  bool nd = t == "GatherND";
  StringRef attr = nd ? "batch_dims" : "axis";
  return im.out(0, im.op(nd ? "mx.gather_nd" : "mx.gather_elements",
                         {im.val(0), im.val(1)},
                         {im.na(attr, im.i64(im.attrInt(attr, 0)))}));
}

/// ScatterElements (Scatter in opsets 9-10, without reduction) and
/// ScatterND.
LogicalResult importScatter(Importer &im, StringRef t) {
  std::string red = im.attrStr("reduction", "none");
  if (red != "none" && red != "add" && red != "mul" && red != "max" &&
      red != "min")
    return im.fail("reduction '" + red + "' is not supported");
  if (isFloatType(im.type(1)))
    return im.fail("indices must be integers");
  if (im.type(0) != im.type(2))
    return im.fail("data and updates element types " + typeName(im.type(0)) +
                   " and " + typeName(im.type(2)) + " differ");
  SmallVector<NamedAttribute> attrs = {im.na("reduction", im.str(red))};
  bool nd = t == "ScatterND";
  if (!nd)
    attrs.push_back(im.na("axis", im.i64(im.attrInt("axis", 0))));
  return im.out(0, im.op(nd ? "mx.scatter_nd" : "mx.scatter_elements",
                         {im.val(0), im.val(1), im.val(2)}, attrs));
}

/// A Pad whose pads (or constant value) are known only at run time, to the
/// declared shape: along each axis a gather from output index i - begin,
/// clamped (edge), mirrored (reflect) or masked off (constant).
static LogicalResult importRunTimePad(Importer &im, StringRef mode) {
  if (im.has(3))
    return im.fail("the axes input is not supported");
  auto in = im.shape(0);
  int64_t r = in.size();
  auto declared = im.declaredShape(0, im.cst(1) ? 2 : 1,
                                   im.cst(1) ? "constant_value" : "pads");
  if (failed(declared))
    return failure();
  if ((int64_t)declared->size() != r || numElements(im.shape(1)) != 2 * r)
    return im.fail("pads of shape " + shapeText(im.shape(1)) +
                   " and the declared shape " + shapeText(*declared) +
                   " do not fit rank " + Twine(r));
  Value pads = im.int64Vector(1), x = im.val(0), inside;
  for (int64_t d = 0; d < r; ++d) {
    if (ShapedType::isDynamic(in[d]) || in[d] == 0)
      return im.fail("padding axis " + Twine(d) + " of extent " +
                     shapeText({in[d]}) + " at run time is not supported");
    Value zero = im.int64Scalar(0), last = im.int64Scalar(in[d] - 1);
    Value from = im.binary(im.iotaAlong(1, 0, (*declared)[d]),
                           im.elementOf(pads, d), "sub");
    if (mode == "reflect") {
      from = im.where(im.compare(from, zero, "less"),
                      im.scalar(from, "mul", -1), from);
      from = im.where(im.compare(from, last, "greater"),
                      im.scalar(from, "sub", 2.0 * (in[d] - 1), true), from);
    }
    if (mode == "constant") {
      Value ok = im.binary(im.compare(from, zero, "greater_equal"),
                           im.compare(from, last, "less_equal"), "and");
      std::vector<int64_t> along(r, 1);
      along[d] = (*declared)[d];
      ok = im.reshape(ok, along);
      inside = inside ? im.binary(inside, ok, "and") : ok;
    }
    from = im.binary(im.binary(from, last, "minimum"), zero, "maximum");
    x = im.op("mx.gather", {x, from}, {im.na("axis", im.i64(d))});
  }
  if (inside) {
    Value value = im.has(2) ? im.reshape(im.val(2), {})
                            : im.scalarParam(im.type(0), 0, "value");
    x = im.where(inside, x, value);
  }
  return im.out(0, x);
}

LogicalResult importPad(Importer &im, StringRef) {
  std::string mode = im.attrStr("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return im.fail("mode '" + mode + "' is not supported");
  std::vector<int64_t> pads;
  double value = 0.0;
  if (im.opset < 11) {
    pads = im.attrInts(im.opset < 2 ? "paddings" : "pads", {});
    value = im.attrFloat("value", 0.0);
  } else if (!im.cst(1) || (im.has(2) && !im.cst(2))) {
    return importRunTimePad(im, mode);
  } else {
    auto p = im.constInts(1, "pads");
    if (failed(p))
      return failure();
    pads = *p;
    if (im.has(2)) {
      auto v = im.constScalar(2, "constant_value");
      if (failed(v))
        return failure();
      value = *v;
    }
    if (im.has(3))
      return im.fail("the axes input is not supported");
  }
  if ((int64_t)pads.size() != 2 * im.rank(0))
    return im.fail("pads has " + Twine(pads.size()) + " values, expected " +
                   Twine(2 * im.rank(0)));
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return im.forward(0, 0);
  return im.out(0,
                im.op("mx.pad", im.val(0),
                      {im.na("pads", im.arr(pads)), im.na("mode", im.str(mode)),
                       im.na("value", im.f64(value))}));
}

LogicalResult importOneHot(Importer &im, StringRef) {
  auto is = im.shape(0);
  int64_t r = is.size(), axis;
  if (failed(im.axisAttr(-1, r + 1, axis)))
    return failure();
  int64_t depth;
  if (im.cst(1)) {
    auto depthValue = im.constScalar(1, "depth");
    if (failed(depthValue))
      return failure();
    depth = (int64_t)*depthValue;
  } else { // a run-time depth: the declared extent along the axis
    auto declared = im.declaredShape(0, 1, "depth");
    if (failed(declared))
      return failure();
    if ((int64_t)declared->size() != r + 1)
      return im.fail("the declared shape " + shapeText(*declared) +
                     " does not have rank " + Twine(r + 1));
    depth = (*declared)[axis];
  }
  if (depth < 1)
    return im.fail("depth " + Twine(depth) + " must be positive");
  if (numElements(im.shape(2)) != 2)
    return im.fail("values must hold two elements (off, on), got shape " +
                   shapeText(im.shape(2)));
  // Indices truncate to int64; negative ones count from depth. Others out of
  // range match no position and give an all-off row.
  Value idx = im.castTo(im.val(0), TP::INT64);
  Value isNeg = im.compare(idx, im.scalarParam(TP::INT64, 0, "zero"), "less");
  idx = im.op("mx.where", {isNeg, im.scalar(idx, "add", depth), idx});
  std::vector<int64_t> column(is);
  column.insert(column.begin() + axis, 1);
  Value hot = im.compare(im.reshape(idx, column),
                         im.iotaAlong(r + 1, axis, depth), "equal");
  Value off, on;
  if (const Const *vc = im.cst(2)) {
    Const o(vc->type, {}), n(vc->type, {});
    o.copy(0, *vc, 0);
    n.copy(0, *vc, 1);
    off = im.param(o, im.nodeName + "_off");
    on = im.param(n, im.nodeName + "_on");
  } else {
    Value values = im.reshape(im.val(2), {2});
    auto pick = [&](int64_t k) {
      return im.op("mx.gather",
                   {values, im.param(Const::ofInts({k}, std::vector<int64_t>{}),
                                     im.nodeName + "_pick")},
                   {im.na("axis", im.i64(0))});
    };
    off = pick(0);
    on = pick(1);
  }
  return im.out(0, im.op("mx.where", {hot, on, off}));
}

LogicalResult importTrilu(Importer &im, StringRef) {
  bool upper = im.attrInt("upper", 1);
  if (im.has(1) && !im.cst(1)) {
    // A run-time k: the mask column - row >= k (upper) or <= k, from iotas.
    auto in = im.shape(0);
    int64_t r = in.size();
    if (r < 2)
      return im.fail("input rank " + Twine(r) + " is below 2");
    if (numElements(im.shape(1)) != 1)
      return im.fail("input 'k' must hold one value, got shape " +
                     shapeText(im.shape(1)));
    Value diagonal = im.binary(im.iotaOfExtent(0, r - 1, 2, 1),
                               im.iotaOfExtent(0, r - 2, 2, 0), "sub");
    Value k = im.reshape(im.castTo(im.val(1), TP::INT64), {});
    Value keep =
        im.compare(diagonal, k, upper ? "greater_equal" : "less_equal");
    return im.out(
        0, im.where(keep, im.val(0), im.scalarParam(im.type(0), 0, "zero")));
  }
  int64_t k = 0;
  if (im.has(1)) {
    auto v = im.constInt(1, "k");
    if (failed(v))
      return failure();
    k = *v;
  }
  return im.out(
      0, im.op("mx.trilu", im.val(0),
               {im.na("upper", im.boolean(upper)), im.na("k", im.i64(k))}));
}

/// ReverseSequence: along the time axis, each batch entry's first
/// sequence_lens[b] steps reversed, the rest as they are: a gather of
/// per-(time, batch) source steps, computed at run time from the lengths.
LogicalResult importReverseSequence(Importer &im, StringRef) {
  auto xs = im.shape(0);
  int64_t rank = xs.size();
  int64_t time = im.attrInt("time_axis", 0),
          batch = im.attrInt("batch_axis", 1);
  if (rank < 2 || (time != 0 && time != 1) || (batch != 0 && batch != 1) ||
      time == batch)
    return im.fail("time_axis and batch_axis must be 0 and 1 (either way) of "
                   "an input of rank 2 or more");
  if (failed(im.requireStatic(0, "the input")))
    return failure();
  if (im.shape(1) != std::vector<int64_t>{xs[batch]})
    return im.fail("sequence_lens has shape " + shapeText(im.shape(1)) +
                   "; expected (" + Twine(xs[batch]) + ")");
  // t and len broadcast over (time, batch, 1, ...): the source step.
  std::vector<int64_t> lenShape(rank, 1);
  lenShape[batch] = xs[batch];
  Value t = im.iotaAlong(rank, time, xs[time]);
  Value len = im.reshape(im.castTo(im.val(1), TP::INT64), lenShape);
  Value reversed = im.binary(im.scalar(len, "sub", 1.0), t, "sub");
  Value source = im.where(im.compare(t, len, "less"), reversed, t);
  source = im.op("mx.broadcast_to", source, {im.na("shape", im.arr(xs))});
  return im.out(0, im.op("mx.gather_elements", {im.val(0), source},
                         {im.na("axis", im.i64(time))}));
}

} // namespace mxc::onnx
