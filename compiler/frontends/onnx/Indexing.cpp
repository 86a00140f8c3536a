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
  for (int i = 0; i < n; ++i)
    if (numElements(im.shape(i)) != 0) // ONNX allows empty inputs
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
  if (im.opset >= 13 && im.has(1)) {
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

LogicalResult importSlice(Importer &im, StringRef) {
  std::vector<int64_t> starts, ends, axes, steps;
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
  return im.out(0, im.op("mx.slice", im.val(0),
                         {im.na("begin", im.arr(sb)), im.na("end", im.arr(se)),
                          im.na("step", im.arr(ss))}));
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

LogicalResult importPad(Importer &im, StringRef) {
  std::string mode = im.attrStr("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return im.fail("mode '" + mode + "' is not supported");
  std::vector<int64_t> pads;
  double value = 0.0;
  if (im.opset < 11) {
    pads = im.attrInts(im.opset < 2 ? "paddings" : "pads", {});
    value = im.attrFloat("value", 0.0);
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
  auto depthValue = im.constScalar(1, "depth");
  if (failed(depthValue))
    return failure();
  int64_t depth = (int64_t)*depthValue;
  if (depth < 1)
    return im.fail("depth " + Twine(depth) + " must be positive");
  if (numElements(im.shape(2)) != 2)
    return im.fail("values must hold two elements (off, on), got shape " +
                   shapeText(im.shape(2)));
  auto is = im.shape(0);
  int64_t r = is.size(), axis;
  if (failed(im.axisAttr(-1, r + 1, axis)))
    return failure();
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
  int64_t k = 0;
  if (im.has(1)) {
    auto v = im.constInt(1, "k");
    if (failed(v))
      return failure();
    k = *v;
  }
  return im.out(0, im.op("mx.trilu", im.val(0),
                         {im.na("upper", im.boolean(im.attrInt("upper", 1))),
                          im.na("k", im.i64(k))}));
}

} // namespace mxc::onnx
