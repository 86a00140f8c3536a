// SPDX-License-Identifier: Apache-2.0
// Extents the data decides, past the operators that make them: the Shape of
// a counted tensor as bounded integers (each element a constant or a
// run-time scalar with an upper bound) and the small arithmetic on them,
// which gives TopK a run-time k and ConstantOfShape a counted shape with
// static bounds; and the masking that keeps a counted tensor's padding out
// of reductions. torchvision's detection post-processing is this: per
// class, k = min(300, the kept boxes' count) for TopK, labels as
// ConstantOfShape(Shape(scores)), the classes' boxes joined by Concat.
#include "compiler/frontends/onnx/ImporterImpl.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace mxc::onnx {

std::shared_ptr<const BoundedInts> Importer::bounded(unsigned i) {
  if (!has(i))
    return nullptr;
  const Tensor &t = in(i);
  if (t.bounded)
    return t.bounded;
  const Const *c = t.constant.get();
  if (!c || c->shape.size() > 1 || c->isFloat() || c->type == TP::BOOL ||
      c->type == TP::STRING || c->size() > 64)
    return nullptr;
  auto b = std::make_shared<BoundedInts>();
  b->shape = c->shape;
  for (int64_t k = 0; k < c->size(); ++k) {
    b->values.push_back(Value());
    b->bounds.push_back(c->i(k));
  }
  return b;
}

LogicalResult Importer::outBounded(unsigned k, BoundedInts t) {
  if (!wants(k))
    return success();
  if (llvm::all_of(t.values, [](Value v) { return !v; }))
    return outConst(k, Const::ofInts(t.bounds, t.shape));
  SmallVector<Value> parts;
  for (auto [v, bound] : llvm::zip(t.values, t.bounds))
    parts.push_back(
        reshape(v ? castTo(v, TP::INT64) : int64Scalar(bound), {1}));
  Value all = parts.size() == 1 ? parts[0]
                                : op("mx.Concat", parts, {na("dim", i64(0))});
  Value v = reshape(all, t.shape);
  if (!v)
    return failure();
  Tensor out{v, nullptr};
  out.bounded = std::make_shared<const BoundedInts>(std::move(t));
  tensors[node->output(k)] = std::move(out);
  return success();
}

Value Importer::maskCounted(Value v, Value count, int64_t axis, Value fill) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  int64_t n = cast<RankedTensorType>(v.getType()).getDimSize(axis);
  Value kept = compare(iotaAlong(rank, axis, n), count, "less");
  return where(kept, v, fill);
}

LogicalResult Importer::importCountedShape() {
  const Tensor &t = in(0);
  auto s = shapeOf(t);
  auto [start, end] = shapeRange(s.size());
  BoundedInts b;
  for (int64_t d = start; d < end; ++d) {
    if (ShapedType::isDynamic(s[d]))
      return fail("extent " + Twine(d) + " of '" + node->input(0) +
                  "' is dynamic beside one the data decides");
    b.values.push_back(d == t.countAxis ? t.count : Value());
    b.bounds.push_back(s[d]);
  }
  b.shape = {int64_t(b.bounds.size())};
  return outBounded(0, std::move(b));
}

void Importer::propagateBounded() {
  StringRef opType = node->op_type();
  static const llvm::StringSet<> ops = {
      "Gather",  "Concat",   "Unsqueeze", "Squeeze",   "Reshape",
      "Flatten", "Identity", "Cast",      "ReduceMin", "ReduceMax",
      "Min",     "Max",      "Add",       "Mul"};
  if (!ops.contains(opType) || !wants(0))
    return;
  bool any = false;
  for (unsigned i = 0; i < (unsigned)node->input_size(); ++i)
    any = any || (has(i) && in(i).bounded);
  auto it = tensors.find(node->output(0));
  if (!any || it == tensors.end() || !it->second.value)
    return;
  Value y = it->second.value;
  auto yt = cast<RankedTensorType>(y.getType());
  if (yt.getRank() > 1 || !yt.hasStaticShape() ||
      !yt.getElementType().isInteger(64))
    return;
  std::vector<int64_t> yshape(yt.getShape().begin(), yt.getShape().end());
  int64_t n = yt.getNumElements();
  // Element k of the result, computed at run time.
  auto element = [&](int64_t k) {
    return reshape(op("mx.slice", reshape(y, {n}),
                      {na("begin", arr({k})), na("end", arr({k + 1}))}),
                   {});
  };
  BoundedInts out;
  out.shape = yshape;
  auto x = bounded(0);
  if (!x)
    return;
  if (opType == "Gather") {
    const Const *idx = cst(1);
    if (!idx || x->shape.size() != 1 || attrInt("axis", 0) != 0)
      return;
    for (int64_t k = 0; k < idx->size(); ++k) {
      int64_t j = idx->i(k);
      if (j < 0)
        j += x->shape[0];
      if (j < 0 || j >= x->shape[0])
        return;
      out.values.push_back(x->values[j]);
      out.bounds.push_back(x->bounds[j]);
    }
  } else if (opType == "Concat") {
    for (unsigned i = 0; i < (unsigned)node->input_size(); ++i) {
      auto p = bounded(i);
      if (!p)
        return;
      llvm::append_range(out.values, p->values);
      llvm::append_range(out.bounds, p->bounds);
    }
  } else if (opType == "ReduceMin" || opType == "ReduceMax") {
    if (n != 1 || x->bounds.empty())
      return;
    bool least = opType == "ReduceMin";
    int64_t bound = x->bounds[0];
    for (int64_t b : x->bounds)
      bound = least ? std::min(bound, b) : std::max(bound, b);
    out.values = {element(0)};
    out.bounds = {bound};
  } else if (opType == "Min" || opType == "Max" || opType == "Add" ||
             opType == "Mul") {
    // Elementwise on non-negative extents: the bounds combine alike.
    std::vector<std::shared_ptr<const BoundedInts>> xs;
    for (unsigned i = 0; i < (unsigned)node->input_size(); ++i) {
      auto p = bounded(i);
      if (!p || (p->bounds.size() != 1 && int64_t(p->bounds.size()) != n) ||
          llvm::any_of(p->bounds, [](int64_t b) { return b < 0; }))
        return;
      xs.push_back(p);
    }
    for (int64_t k = 0; k < n; ++k) {
      int64_t bound = 0;
      for (auto [i, p] : llvm::enumerate(xs)) {
        int64_t b = p->bounds[p->bounds.size() == 1 ? 0 : k];
        bound = i == 0            ? b
                : opType == "Min" ? std::min(bound, b)
                : opType == "Max" ? std::max(bound, b)
                : opType == "Add" ? bound + b
                                  : bound * b;
      }
      out.values.push_back(element(k));
      out.bounds.push_back(bound);
    }
  } else {
    // Reshaping and casting: the same elements.
    if (int64_t(x->bounds.size()) != n)
      return;
    out.values = x->values;
    out.bounds = x->bounds;
  }
  if (int64_t(out.bounds.size()) != n)
    return;
  it->second.bounded = std::make_shared<const BoundedInts>(std::move(out));
}

LogicalResult Importer::importCountedConcat(int64_t axis) {
  int n = node->input_size();
  Value count;
  int64_t countAxis = -1;
  bool differ = false;
  for (int i = 0; i < n; ++i) {
    const Tensor &t = in(i);
    if (!t.count)
      continue;
    if (countAxis >= 0 && t.countAxis != countAxis)
      return fail("inputs have extents found only as the model runs on "
                  "different axes");
    differ = differ || (count && t.count != count);
    count = t.count, countAxis = t.countAxis;
  }
  // Inputs without elements drop out, as in importConcat.
  SmallVector<Value> operands;
  for (int i = 0; i < n; ++i)
    if (!llvm::is_contained(shape(i), 0))
      operands.push_back(val(i));
  if (operands.empty())
    return fail("every input is empty");
  Value joined = operands.size() == 1
                     ? operands[0]
                     : op("mx.Concat", operands, {na("dim", i64(axis))});
  if (!joined)
    return failure();
  if (axis != countAxis) {
    // Along another axis: every counted input must keep the same rows.
    if (differ)
      return fail("inputs have different extents found only as the model "
                  "runs on axis " +
                  Twine(countAxis) + ", which Concat along axis " +
                  Twine(axis) + " does not take");
    return outCounted(0, joined, count, countAxis);
  }
  // Along the counted axis: each input's kept elements, in order, to the
  // front. The plan is shared by Concats of the same pieces.
  std::vector<std::pair<void *, int64_t>> key;
  for (int i = 0; i < n; ++i) {
    const Tensor &t = in(i);
    key.push_back(
        {t.count ? t.count.getAsOpaquePointer() : nullptr, shape(i)[axis]});
  }
  auto plan = concatPlans.find(key);
  if (plan == concatPlans.end()) {
    SmallVector<Value> masks;
    int64_t total = 0;
    for (int i = 0; i < n; ++i) {
      int64_t bound = shape(i)[axis];
      total += bound;
      if (bound == 0)
        continue;
      Value c = in(i).count ? in(i).count : int64Scalar(bound);
      masks.push_back(compare(iotaAlong(1, 0, bound), c, "less"));
    }
    Value mask = masks.size() == 1
                     ? masks[0]
                     : op("mx.Concat", masks, {na("dim", i64(0))});
    auto [slots, kept] = frontSlots(mask);
    plan = concatPlans.insert({key, {invertSlots(slots, total), kept}}).first;
  }
  Value y =
      op("mx.gather", {joined, plan->second.source}, {na("axis", i64(axis))});
  return outCounted(0, y, plan->second.count, axis);
}

} // namespace mxc::onnx
