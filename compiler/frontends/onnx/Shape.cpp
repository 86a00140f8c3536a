// SPDX-License-Identifier: Apache-2.0
// ONNX's constants and shape operators: Constant, ConstantOfShape, Size,
// Shape, Range and EyeLike fold to Consts; Identity, Flatten, Reshape,
// (Un)Squeeze, Transpose, Expand, Tile and DepthToSpace / SpaceToDepth
// rearrange a tensor, on the host when it is a constant.
#include "compiler/frontends/onnx/ImporterImpl.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;

namespace mxc::onnx {

/// Constant's value attribute, or ConstantOfShape's, as a Const.
static FailureOr<Const> valueAttr(Importer &im, ::onnx::AttributeProto &a) {
  auto v = im.readTensor(*a.mutable_t(), "attribute 'value'");
  if (!v)
    return im.fail(llvm::toString(v.takeError()));
  return std::move(*v);
}

LogicalResult importConstant(Importer &im, StringRef) {
  // Exactly one of its value attributes.
  if (auto *a = im.attr("value")) {
    auto v = valueAttr(im, *a);
    if (failed(v))
      return failure();
    return im.outConst(0, std::move(*v));
  }
  if (const auto *a = im.attr("value_float")) {
    Const c(TP::FLOAT, {});
    c.set(0, a->f());
    return im.outConst(0, std::move(c));
  }
  if (const auto *a = im.attr("value_floats")) {
    Const c(TP::FLOAT, {(int64_t)a->floats_size()});
    for (int k = 0; k < a->floats_size(); ++k)
      c.set(k, a->floats(k));
    return im.outConst(0, std::move(c));
  }
  if (const auto *a = im.attr("value_int"))
    return im.outConst(0, Const::ofInts({a->i()}, std::vector<int64_t>{}));
  if (const auto *a = im.attr("value_ints"))
    return im.outConst(0, Const::ofInts(std::vector<int64_t>(a->ints().begin(),
                                                             a->ints().end())));
  if (im.attr("sparse_value"))
    return im.fail("sparse constants are not supported");
  if (im.attr("value_string") || im.attr("value_strings"))
    return im.fail("string constants are not supported");
  return im.fail("has no value attribute");
}

LogicalResult importConstantOfShape(Importer &im, StringRef) {
  FailureOr<std::vector<int64_t>> dims;
  // A shape with one data-dependent extent (the Shape of a counted
  // tensor): the constant at its bounds, counted along that axis.
  Value count;
  int64_t countAxis = -1;
  if (auto b = im.bounded(0); b && !im.cst(0)) {
    for (auto [k, v] : llvm::enumerate(b->values))
      if (v) {
        if (count)
          return im.fail("input 'input' has more than one extent known only "
                         "at run time");
        count = v, countAxis = k;
      }
    dims = b->bounds;
  } else if (im.cst(0)) {
    dims = im.constInts(0, "input");
  } else { // a run-time shape: the declared one, of as many extents
    dims = im.declaredShape(0, 0, "input");
    if (succeeded(dims) && (int64_t)dims->size() != numElements(im.shape(0)))
      return im.fail("the declared shape " + shapeText(*dims) +
                     " does not have the " + Twine(numElements(im.shape(0))) +
                     " extents of input 'input'");
  }
  if (failed(dims))
    return failure();
  // The constant is built on the host: its size must be sane (8 bytes per
  // element at most).
  constexpr int64_t kMaxBytes = int64_t(256) << 20;
  int64_t n = 1;
  for (int64_t d : *dims)
    if (d < 0 || llvm::MulOverflow(n, d, n) || n > kMaxBytes / 8)
      return im.fail("shape " + shapeText(*dims) +
                     " is negative or too large for a constant (at most " +
                     Twine(kMaxBytes >> 20) + " MiB)");
  Const c(TP::FLOAT, *dims);
  if (auto *a = im.attr("value")) {
    auto v = valueAttr(im, *a);
    if (failed(v))
      return failure();
    if (v->size() != 1)
      return im.fail("attribute 'value' must hold one element");
    c = Const(v->type, *dims);
    for (int64_t k = 0; k < c.size(); ++k)
      c.copy(k, *v, 0);
  }
  if (count) {
    Const one(c.type, {});
    if (c.size() > 0)
      one.copy(0, c, 0);
    Value filled = im.op("mx.broadcast_to", im.param(one, "value"),
                         {im.na("shape", im.arr(*dims))});
    return im.outCounted(0, filled, count, countAxis);
  }
  return im.outConst(0, std::move(c));
}

LogicalResult importSize(Importer &im, StringRef) {
  if (llvm::any_of(im.shape(0), ShapedType::isDynamic))
    return im.fail("the size of '" + im.node->input(0) +
                   "' is known only at run time; shape computations on "
                   "run-time extents are not supported yet");
  return im.outConst(
      0, Const::ofInts({numElements(im.shape(0))}, std::vector<int64_t>{}));
}

std::pair<int64_t, int64_t> Importer::shapeRange(int64_t rank) {
  int64_t start = attrInt("start", 0), end = attrInt("end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  return {start, std::max(start, end)};
}

LogicalResult importShape(Importer &im, StringRef) {
  auto s = im.shape(0);
  auto [start, end] = im.shapeRange(s.size());
  std::vector<int64_t> dims(s.begin() + start, s.begin() + end);
  // Run-time extents are followed symbolically (SymbolicShapes.cpp).
  SymTensor t{{int64_t(dims.size())}, {}};
  for (auto [i, d] : llvm::enumerate(dims)) {
    SymExtent e;
    if (ShapedType::isDynamic(d)) {
      e.dims = {im.dimSymbol(im.val(0), start + i)};
      e.refs = {{im.val(0), int64_t(start + i)}};
    } else {
      e.coef = 0;
      e.offset = d;
    }
    t.elems.push_back(e);
  }
  return im.outSym(0, std::move(t));
}

/// A Range whose start, limit or delta is known only at run time: the
/// declared extent n, start + delta * (0, 1, ..., n - 1).
static LogicalResult importRunTimeRange(Importer &im) {
  static const char *names[] = {"start", "limit", "delta"};
  unsigned runTime = !im.cst(0) ? 0 : !im.cst(1) ? 1 : 2;
  auto declared = im.declaredShape(0, runTime, names[runTime]);
  if (failed(declared))
    return failure();
  if (declared->size() != 1)
    return im.fail("the declared shape " + shapeText(*declared) +
                   " is not a vector");
  for (unsigned i = 0; i < 3; ++i)
    if (numElements(im.shape(i)) != 1)
      return im.fail("start, limit and delta must be scalars");
  int32_t t = im.type(0);
  Value k = im.castTo(im.iotaAlong(1, 0, (*declared)[0]), t);
  Value start = im.reshape(im.val(0), {}), delta = im.reshape(im.val(2), {});
  return im.out(0, im.binary(im.binary(k, delta, "mul"), start, "add"));
}

LogicalResult importRange(Importer &im, StringRef) {
  if (!im.allConst())
    return importRunTimeRange(im);
  const Const &start = *im.cst(0), &limit = *im.cst(1), &delta = *im.cst(2);
  if (start.size() != 1 || limit.size() != 1 || delta.size() != 1)
    return im.fail("start, limit and delta must be scalars");
  if (delta.f(0) == 0)
    return im.fail("delta must not be 0");
  double n = std::ceil((limit.f(0) - start.f(0)) / delta.f(0));
  // Built on the host, like ConstantOfShape's: at most 2^25 elements.
  constexpr int64_t kMaxCount = int64_t(1) << 25;
  if (!(n <= double(kMaxCount)))
    return im.fail("the range has more elements than a constant may (" +
                   Twine(kMaxCount) + ")");
  int64_t count = std::max<int64_t>(0, (int64_t)n);
  Const c(start.type, {count});
  for (int64_t k = 0; k < count; ++k) {
    if (c.isFloat())
      c.set(k, start.f(0) + k * delta.f(0));
    else // wrapping, as the model's own integer arithmetic would
      c.setInt(k, (int64_t)((uint64_t)start.i(0) +
                            (uint64_t)k * (uint64_t)delta.i(0)));
  }
  return im.outConst(0, std::move(c));
}

LogicalResult importEyeLike(Importer &im, StringRef) {
  // The result depends on the input's shape only: a constant.
  auto xs = im.shape(0);
  if (xs.size() != 2)
    return im.fail("input must be 2-D, got shape " + shapeText(xs));
  int32_t t = im.attr("dtype") ? (int32_t)im.attrInt("dtype", 0) : im.type(0);
  if (!elementType(t, &im.ctx))
    return im.fail("dtype " + typeName(t) + " is not supported");
  int64_t k = im.attrInt("k", 0);
  Const c(t, xs);
  for (int64_t i = 0; i < xs[0]; ++i)
    if (i + k >= 0 && i + k < xs[1])
      c.setInt(i * xs[1] + i + k, 1);
  return im.outConst(0, std::move(c));
}

LogicalResult importIdentity(Importer &im, StringRef) {
  return im.forward(0, 0);
}

LogicalResult importFlatten(Importer &im, StringRef) {
  auto s = im.shape(0);
  int64_t axis;
  if (failed(im.axisAttr(1, s.size(), axis, /*inclusive=*/true)))
    return failure();
  int64_t lead = numElements(ArrayRef(s).take_front(axis));
  return im.outReshaped(0, 0,
                        {lead, numElements(s) / std::max<int64_t>(lead, 1)});
}

LogicalResult importReshape(Importer &im, StringRef) {
  std::vector<int64_t> target;
  if (im.has(1) && !im.cst(1)) {
    // A run-time shape: the declared one, of as many extents.
    auto declared = im.declaredShape(0, 1, "shape");
    if (failed(declared))
      return failure();
    if ((int64_t)declared->size() != numElements(im.shape(1)))
      return im.fail("the declared shape " + shapeText(*declared) +
                     " does not have the " + Twine(numElements(im.shape(1))) +
                     " extents of input 'shape'");
    im.ignoreAttrs({"allowzero"});
    return im.outReshaped(0, 0, *declared);
  }
  if (im.has(1)) {
    auto s = im.constInts(1, "shape");
    if (failed(s))
      return failure();
    target = *s;
  } else if (auto s = im.attrInts("shape")) {
    target = *s;
  } else {
    return im.fail("has no shape");
  }
  im.ignoreAttrs({"consumed_inputs"});
  bool allowZero = im.attrInt("allowzero", 0);
  auto in = im.shape(0);
  int64_t inferred = -1, known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && !allowZero) {
      if (i >= in.size())
        return im.fail("shape " + shapeText(target) + " copies dimension " +
                       Twine(i) + " of input " + shapeText(in));
      target[i] = in[i];
    }
    if (target[i] == -1) {
      if (inferred >= 0)
        return im.fail("shape " + shapeText(target) + " has more than one -1");
      inferred = i;
      continue;
    }
    if (target[i] < 0)
      return im.fail("shape " + shapeText(target) + " has a negative extent");
    if (llvm::MulOverflow(known, target[i], known))
      return im.fail("shape " + shapeText(target) +
                     " has more elements than fit in 64 bits");
  }
  if (inferred >= 0) {
    if (known == 0 || numElements(in) % known)
      return im.fail("cannot reshape " + shapeText(in) + " to " +
                     shapeText(target));
    target[inferred] = numElements(in) / known;
  }
  return im.outReshaped(0, 0, target);
}

/// Squeeze, Unsqueeze (axes an attribute before opset 13, then an input).
LogicalResult importSqueeze(Importer &im, StringRef t) {
  std::optional<std::vector<int64_t>> axes;
  if (im.opset < 13) {
    axes = im.attrInts("axes");
  } else if (im.has(1) && !im.cst(1)) {
    // Run-time axes: the declared shape, whose rank they change by their
    // count.
    auto declared = im.declaredShape(0, 1, "axes");
    if (failed(declared))
      return failure();
    int64_t n = numElements(im.shape(1));
    if ((int64_t)declared->size() != im.rank(0) + (t == "Unsqueeze" ? n : -n))
      return im.fail("the declared shape " + shapeText(*declared) +
                     " does not have the rank " + Twine(t) + " of " + Twine(n) +
                     " axes gives");
    return im.outReshaped(0, 0, *declared);
  } else if (im.has(1)) {
    axes.emplace();
    if (failed(im.optionalConstInts(1, "axes", *axes)))
      return failure();
  }
  auto in = im.shape(0);
  int64_t r = in.size();
  std::vector<int64_t> outShape;
  if (t == "Unsqueeze") {
    if (!axes)
      return im.fail("needs axes");
    int64_t ro = r + axes->size();
    std::vector<bool> isNew(ro, false);
    for (int64_t a : *axes) {
      int64_t n = a < 0 ? a + ro : a;
      if (n < 0 || n >= ro || isNew[n])
        return im.fail("axes " + shapeText(*axes) + " are invalid for rank " +
                       Twine(r));
      isNew[n] = true;
    }
    for (int64_t i = 0, src = 0; i < ro; ++i)
      outShape.push_back(isNew[i] ? 1 : in[src++]);
  } else {
    std::vector<bool> drop(r, false);
    if (!axes || axes->empty()) {
      for (int64_t i = 0; i < r; ++i)
        drop[i] = in[i] == 1;
    } else {
      for (int64_t a : *axes) {
        int64_t n = a < 0 ? a + r : a;
        if (n < 0 || n >= r || in[n] != 1)
          return im.fail("cannot squeeze axis " + Twine(a) + " of shape " +
                         shapeText(in));
        drop[n] = true;
      }
    }
    for (int64_t i = 0; i < r; ++i)
      if (!drop[i])
        outShape.push_back(in[i]);
  }
  return im.outReshaped(0, 0, outShape);
}

LogicalResult importTranspose(Importer &im, StringRef) {
  auto in = im.shape(0);
  int64_t r = in.size();
  std::vector<int64_t> perm;
  if (auto p = im.attrInts("perm")) {
    perm = *p;
  } else {
    for (int64_t i = r - 1; i >= 0; --i)
      perm.push_back(i);
  }
  if ((int64_t)perm.size() != r)
    return im.fail("perm " + shapeText(perm) + " does not fit rank " +
                   Twine(r));
  if (const Const *c = im.cst(0)) {
    // out[p] = in[q] where q[perm[i]] = p[i].
    std::vector<int64_t> os, strides(r, 1);
    for (int64_t i = r - 1; i > 0; --i)
      strides[i - 1] = strides[i] * in[i];
    for (int64_t p : perm) {
      if (p < 0 || p >= r)
        return im.fail("perm " + shapeText(perm) + " is not a permutation");
      os.push_back(in[p]);
    }
    return im.outConst(0, rearrange(*c, os, [&](ArrayRef<int64_t> pos) {
                         int64_t from = 0;
                         for (int64_t i = 0; i < r; ++i)
                           from += pos[i] * strides[perm[i]];
                         return from;
                       }));
  }
  return im.out(
      0, im.op("mx.transpose", im.val(0), {im.na("axes", im.arr(perm))}));
}

LogicalResult importExpand(Importer &im, StringRef) {
  // A run-time shape: the declared result, which it must broadcast to.
  auto s =
      im.cst(1) ? im.constInts(1, "shape") : im.declaredShape(0, 1, "shape");
  if (failed(s))
    return failure();
  auto in = im.shape(0);
  auto target = broadcastShapes({in, *s});
  if (!im.cst(1) && target != *s)
    return im.fail("input shape " + shapeText(in) +
                   " does not broadcast to the declared shape " +
                   shapeText(*s));
  if (!target)
    return im.fail("input shape " + shapeText(in) +
                   " does not broadcast with " + shapeText(*s));
  if (const Const *c = im.cst(0)) {
    Const o(c->type, *target);
    auto idx = broadcastIndex(in, *target);
    for (int64_t k = 0; k < o.size(); ++k)
      o.copy(k, *c, idx[k]);
    return im.outConst(0, std::move(o));
  }
  if (*target == in)
    return im.forward(0, 0);
  return im.out(0, im.op("mx.broadcast_to", im.val(0),
                         {im.na("shape", im.arr(*target))}));
}

LogicalResult importTile(Importer &im, StringRef) {
  auto in = im.shape(0);
  FailureOr<std::vector<int64_t>> reps;
  if (im.cst(1)) {
    reps = im.constInts(1, "repeats");
  } else if (auto declared = im.declaredShape(0, 1, "repeats");
             succeeded(declared)) {
    // Run-time repeats: each declared extent a multiple of the input's.
    reps.emplace();
    for (size_t i = 0; i < declared->size() && i < in.size(); ++i) {
      int64_t d = (*declared)[i];
      if (in[i] == 0 ? d != 0 : ShapedType::isDynamic(in[i]) || d % in[i])
        return im.fail("the declared shape " + shapeText(*declared) +
                       " does not repeat input shape " + shapeText(in));
      reps->push_back(in[i] ? d / in[i] : 1);
    }
  }
  if (failed(reps))
    return failure();
  if (reps->size() != in.size())
    return im.fail("repeats " + shapeText(*reps) + " does not fit rank " +
                   Twine(in.size()));
  // (d0, d1, ...) -> (1, d0, 1, d1, ...) -> (r0, d0, r1, d1, ...) -> merged.
  SmallVector<int64_t> split, wide, merged;
  for (size_t i = 0; i < in.size(); ++i) {
    split.append({1, in[i]});
    wide.append({(*reps)[i], in[i]});
    merged.push_back((*reps)[i] * in[i]);
  }
  Value x = im.reshape(im.val(0), split);
  x = im.op("mx.broadcast_to", x, {im.na("shape", im.arr(wide))});
  return im.out(0, im.reshape(x, merged));
}

/// DepthToSpace, SpaceToDepth.
LogicalResult importDepthToSpace(Importer &im, StringRef t) {
  auto xs = im.shape(0);
  if (xs.size() != 4)
    return im.fail("input must be NCHW");
  int64_t bs = im.attrInt("blocksize", 0);
  if (bs < 1)
    return im.fail("blocksize must be positive");
  int64_t n = xs[0], c = xs[1], h = xs[2], w = xs[3];
  // Each is a reshape to 6-D, a transpose and a reshape back to 4-D.
  auto permute = [&](ArrayRef<int64_t> split, ArrayRef<int64_t> perm,
                     ArrayRef<int64_t> merged) {
    Value x = im.reshape(im.val(0), split);
    x = im.op("mx.transpose", x, {im.na("axes", im.arr(perm))});
    return im.out(0, im.reshape(x, merged));
  };
  if (t == "SpaceToDepth") {
    // (n, c, h/b, b, w/b, b) -> (n, b, b, c, h/b, w/b).
    if (h % bs || w % bs)
      return im.fail("spatial extents must be multiples of blocksize");
    return permute({n, c, h / bs, bs, w / bs, bs}, {0, 3, 5, 1, 2, 4},
                   {n, c * bs * bs, h / bs, w / bs});
  }
  if (c % (bs * bs))
    return im.fail("channels must be a multiple of blocksize^2");
  bool crd = im.attrStr("mode", "DCR") == "CRD";
  int64_t oc = c / (bs * bs);
  std::vector<int64_t> merged = {n, oc, h * bs, w * bs};
  if (crd)
    return permute({n, oc, bs, bs, h, w}, {0, 1, 4, 2, 5, 3}, merged);
  return permute({n, bs, bs, oc, h, w}, {0, 3, 4, 1, 5, 2}, merged);
}

} // namespace mxc::onnx
