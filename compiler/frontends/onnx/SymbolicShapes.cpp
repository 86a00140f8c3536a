// SPDX-License-Identifier: Apache-2.0
// Shape computations on run-time extents (docs/dynamic-shapes.md). A model
// exported with dynamic axes computes shapes from `Shape` of its tensors:
// Shape -> Gather -> Unsqueeze -> Concat -> Reshape, with a little integer
// arithmetic (a head count times the batch). The importer follows those
// values as SymTensors, whose elements are constants or products of
// run-time extents, and turns a Reshape to such a shape into mx.Reshape's
// codes: 0 where an extent is the input's own on the same axis, -1 for the
// one left to infer. Equal extents are known equal by their symbols
// (dimSymbol): an input's dimension name, followed through the ops that
// keep an operand's extent.
#include "compiler/frontends/onnx/ImporterImpl.h"
#include "passes/lowering/DynamicExtents.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mxc::onnx;

namespace {

SymExtent constant(int64_t v) {
  SymExtent e;
  e.coef = 0;
  e.offset = v;
  return e;
}

/// a * b where at most one factor is symbolic with no offset, or both
/// are products; none when the result is not of SymExtent's form.
std::optional<SymExtent> multiply(const SymExtent &a, const SymExtent &b) {
  if (a.isConst() && b.isConst())
    return constant(a.value() * b.value());
  if (a.isConst() || b.isConst()) {
    const SymExtent &s = a.isConst() ? b : a;
    int64_t k = a.isConst() ? a.value() : b.value();
    if (s.div != 1 && s.offset != 0)
      return std::nullopt;
    SymExtent r = s;
    r.coef *= k;
    r.offset *= k;
    return r;
  }
  if (a.offset || b.offset || a.div != 1 || b.div != 1)
    return std::nullopt;
  // The dims in order of their symbols, their refs alongside.
  std::vector<std::pair<std::string, std::pair<Value, int64_t>>> both;
  for (const SymExtent *e : {&a, &b})
    for (auto [d, ref] : llvm::zip(e->dims, e->refs))
      both.push_back({d, ref});
  llvm::stable_sort(both, [](auto &x, auto &y) { return x.first < y.first; });
  SymExtent r;
  r.coef = a.coef * b.coef;
  for (auto &[d, ref] : both) {
    r.dims.push_back(d);
    r.refs.push_back(ref);
  }
  return r;
}

/// a op b for op in + - / (integer division of non-negative extents).
std::optional<SymExtent> combine(StringRef op, const SymExtent &a,
                                 const SymExtent &b) {
  if (op == "Mul")
    return multiply(a, b);
  if (a.isConst() && b.isConst()) {
    int64_t x = a.value(), y = b.value();
    if (op == "Add")
      return constant(x + y);
    if (op == "Sub")
      return constant(x - y);
    if (op == "Div" && y != 0)
      return constant(x / y);
    return std::nullopt;
  }
  if (!b.isConst())
    return std::nullopt;
  SymExtent r = a;
  int64_t k = b.value();
  if (op == "Add" || op == "Sub") {
    r.offset += op == "Add" ? k : -k;
    return r;
  }
  // Division: exact on the coefficient, or of the whole product.
  if (op == "Div" && k > 0 && r.offset == 0) {
    if (r.coef % k == 0 && r.div == 1)
      r.coef /= k;
    else
      r.div *= k;
    return r;
  }
  return std::nullopt;
}

/// `e` as an entry of mx.reshape_to_extents's `extents`: a constant, or
/// coef, div, offset and (source, axis) pairs, the sources appended to
/// `sources` (1-based in the entry) as first needed.
std::vector<int64_t> termOf(const SymExtent &e,
                            SmallVectorImpl<Value> &sources) {
  if (e.isConst())
    return {e.value()};
  std::vector<int64_t> term = {e.coef, e.div, e.offset};
  for (auto [value, axis] : e.refs) {
    auto at = llvm::find(sources, value);
    if (at == sources.end()) {
      sources.push_back(value);
      at = std::prev(sources.end());
    }
    term.push_back(at - sources.begin() + 1);
    term.push_back(axis);
  }
  return term;
}

bool sameExtent(const SymExtent &a, const SymExtent &b) {
  return a.coef == b.coef && a.div == b.div && a.offset == b.offset &&
         a.dims == b.dims;
}

} // namespace

Value Importer::symValue(const SymTensor &t) {
  // Element e as a (1,) int64 tensor: a constant, or the sum of a run-time
  // extent's worth of ones (mx.fill_to_extents, then mx.reduce), plus its
  // offset (an extent may be 0: a decoder's empty cache).
  Type intType = elementType(TP::INT64, &ctx);
  SmallVector<Value> parts;
  for (const SymExtent &e : t.elems) {
    if (e.isConst()) {
      parts.push_back(
          param(Const::ofInts({e.value()}, std::vector<int64_t>{1}), "extent"));
      continue;
    }
    SymExtent product = e;
    product.offset = 0;
    SmallVector<Value> sources;
    Attribute extents = b.getArrayAttr({arr(termOf(product, sources))});
    Value ones = op("mx.fill_to_extents", sources,
                    {na("extents", extents), na("value", f64(1.0)),
                     na("element_type", mlir::TypeAttr::get(intType))});
    Value sum = op("mx.reduce", ones,
                   {na("op", str("sum")), na("axis", arr({0})),
                    na("keepdims", boolean(true))});
    if (e.offset)
      sum = op("mx.scalar", sum,
               {na("op", str("add")), na("scalar", f64(double(e.offset)))});
    parts.push_back(sum);
  }
  if (parts.empty())
    return param(Const::ofInts({}, t.shape), "extents"); // none: ()
  Value v = parts.size() == 1 ? parts[0]
                              : op("mx.Concat", parts, {na("dim", i64(0))});
  return reshape(v, t.shape);
}

std::string Importer::dimSymbol(Value v, int64_t axis) {
  auto type = cast<RankedTensorType>(v.getType());
  if (!type.isDynamicDim(axis))
    return std::to_string(type.getDimSize(axis));
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    std::string input;
    if (auto name = dyn_cast<NameLoc>(arg.getLoc()))
      input = name.getName().str();
    auto own = inputDimSymbols.find(input);
    if (own != inputDimSymbols.end() && size_t(axis) < own->second.size() &&
        !own->second[axis].empty())
      return own->second[axis];
    auto given = opts.dynamicAxes.find(input);
    if (given != opts.dynamicAxes.end() &&
        size_t(axis) < given->second.size() && !given->second[axis].empty())
      return given->second[axis];
    return input + "#" + std::to_string(axis);
  }
  Operation *def = v.getDefiningOp();
  unsigned result = cast<OpResult>(v).getResultNumber();
  if (auto source = lowering::extentSource(def, result, axis))
    return dimSymbol(def->getOperand(source->first), source->second);
  // An extent the op computes: a symbol of its own.
  char own[64];
  std::snprintf(own, sizeof own, "%%%p#%u#%lld", static_cast<void *>(def),
                result, (long long)axis);
  return own;
}

LogicalResult Importer::outSym(unsigned k, SymTensor t) {
  if (!wants(k))
    return success();
  if (llvm::all_of(t.elems, [](const SymExtent &e) { return e.isConst(); })) {
    std::vector<int64_t> values;
    for (const SymExtent &e : t.elems)
      values.push_back(e.value());
    return outConst(k, Const::ofInts(values, t.shape));
  }
  tensors[node->output(k)] =
      Tensor{Value(), nullptr, std::make_shared<const SymTensor>(std::move(t))};
  return success();
}

LogicalResult Importer::importSymbolic(StringRef opType) {
  // Input i as a SymTensor (a constant integer tensor becomes one).
  auto symOf = [&](unsigned i) -> std::optional<SymTensor> {
    if (!has(i))
      return std::nullopt;
    if (in(i).sym)
      return *in(i).sym;
    const Const *c = cst(i);
    if (!c || c->shape.size() > 1)
      return std::nullopt;
    SymTensor t{c->shape, {}};
    for (int64_t j = 0; j < c->size(); ++j)
      t.elems.push_back(constant(c->i(j)));
    return t;
  };
  auto notFollowed = [&]() {
    return fail(opType +
                " on values computed from run-time extents (Shape of a "
                "tensor with dynamic extents) is not supported yet");
  };
  if (opType == "Identity" || opType == "Cast") {
    int64_t to = attrInt("to", 7);
    if (to != 6 && to != 7) // int32, int64
      return notFollowed();
    return forward(0, 0);
  }
  if (opType == "Reshape" && !in(0).sym) {
    // Data reshaped to a shape with run-time extents: mx.Reshape's codes.
    auto shape = symOf(1);
    if (!shape || shape->shape.size() != 1 || !in(0).value)
      return notFollowed();
    bool allowZero = attrInt("allowzero", 0);
    Value x = val(0);
    auto xType = cast<RankedTensorType>(x.getType());
    std::vector<int64_t> codes;
    int64_t unresolved = -1;
    // Failing codes, the extents are computed at run time.
    auto toExtents = [&]() -> LogicalResult {
      SmallVector<Value> sources;
      SmallVector<Attribute> extents;
      for (auto [i, e] : llvm::enumerate(shape->elems)) {
        if (e.isConst()) {
          int64_t v = e.value();
          if (v == 0 && !allowZero && int64_t(i) < xType.getRank() &&
              !xType.isDynamicDim(i))
            v = xType.getDimSize(i);
          if (v < 0)
            return fail("shape element " + Twine(i) + " is " + Twine(v) +
                        " beside extents computed at run time");
          extents.push_back(arr({v}));
          continue;
        }
        extents.push_back(arr(termOf(e, sources)));
      }
      SmallVector<Value> operands = {x};
      operands.append(sources);
      return out(0, op("mx.reshape_to_extents", operands,
                       {na("extents", b.getArrayAttr(extents))}));
    };
    for (auto [i, e] : llvm::enumerate(shape->elems)) {
      if (e.isConst()) {
        if (e.value() < -1 || (e.value() == 0 && allowZero))
          return fail("shape element " + Twine(i) + " is " + Twine(e.value()));
        codes.push_back(e.value());
        continue;
      }
      SymExtent own;
      if (int64_t(i) < xType.getRank())
        own.dims = {dimSymbol(x, i)};
      if (int64_t(i) < xType.getRank() && sameExtent(e, own)) {
        codes.push_back(0);
        continue;
      }
      if (unresolved >= 0 || llvm::is_contained(codes, -1))
        return toExtents();
      unresolved = i;
      codes.push_back(-1);
    }
    (void)attr("allowzero");
    return out(0, op("mx.Reshape", x, {na("shape", arr(codes))}));
  }
  if (opType == "Gather") {
    auto data = symOf(0);
    const Const *indices = cst(1);
    if (!data || data->shape.size() != 1 || !indices || attrInt("axis", 0) != 0)
      return notFollowed();
    SymTensor t{indices->shape, {}};
    int64_t n = data->elems.size();
    for (int64_t j = 0; j < indices->size(); ++j) {
      int64_t at = indices->i(j) < 0 ? indices->i(j) + n : indices->i(j);
      if (at < 0 || at >= n)
        return fail("index " + Twine(indices->i(j)) + " is out of range for " +
                    Twine(n) + " extents");
      t.elems.push_back(data->elems[at]);
    }
    return outSym(0, std::move(t));
  }
  if (opType == "Unsqueeze" || opType == "Squeeze" || opType == "Reshape" ||
      opType == "Flatten") {
    if (!in(0).sym)
      return notFollowed();
    SymTensor t = *in(0).sym;
    (void)attr("axes");
    (void)attr("allowzero");
    (void)attr("axis");
    t.shape = t.elems.size() == 1 && opType == "Squeeze"
                  ? std::vector<int64_t>{}
                  : std::vector<int64_t>{int64_t(t.elems.size())};
    return outSym(0, std::move(t));
  }
  if (opType == "Concat") {
    if (attrInt("axis", 0) != 0 && attrInt("axis", 0) != -1)
      return notFollowed();
    SymTensor t{{0}, {}};
    for (int i = 0; i < node->input_size(); ++i) {
      auto part = symOf(i);
      if (!part || part->shape.size() != 1)
        return notFollowed();
      t.elems.insert(t.elems.end(), part->elems.begin(), part->elems.end());
    }
    t.shape = {int64_t(t.elems.size())};
    return outSym(0, std::move(t));
  }
  if (opType == "Add" || opType == "Sub" || opType == "Mul" ||
      opType == "Div") {
    auto a = symOf(0), b = symOf(1);
    if (!a || !b)
      return notFollowed();
    size_t n = std::max(a->elems.size(), b->elems.size());
    if ((a->elems.size() != n && a->elems.size() != 1) ||
        (b->elems.size() != n && b->elems.size() != 1))
      return notFollowed();
    SymTensor t{a->shape.size() >= b->shape.size() ? a->shape : b->shape, {}};
    for (size_t j = 0; j < n; ++j) {
      auto r = combine(opType, a->elems[a->elems.size() == 1 ? 0 : j],
                       b->elems[b->elems.size() == 1 ? 0 : j]);
      if (!r)
        return notFollowed();
      t.elems.push_back(*r);
    }
    return outSym(0, std::move(t));
  }
  if (opType == "Range") {
    // start + i * delta below a limit computed at run time: delta 1.
    auto start = symOf(0), limit = symOf(1), delta = symOf(2);
    if (!start || !limit || !delta || start->elems.size() != 1 ||
        limit->elems.size() != 1 || delta->elems.size() != 1 ||
        !start->elems[0].isConst() || !delta->elems[0].isConst() ||
        delta->elems[0].value() != 1)
      return notFollowed();
    auto count = combine("Sub", limit->elems[0], start->elems[0]);
    if (!count)
      return notFollowed();
    SmallVector<Value> sources;
    Attribute extents = b.getArrayAttr({arr(termOf(*count, sources))});
    Type et = elementType(TP::INT64, &ctx);
    return out(0, op("mx.fill_to_extents", sources,
                     {na("extents", extents),
                      na("value", f64(double(start->elems[0].value()))),
                      na("delta", f64(1.0)), na("iota", b.getBoolAttr(true)),
                      na("element_type", mlir::TypeAttr::get(et))}));
  }
  if (opType == "ConstantOfShape") {
    auto shape = symOf(0);
    if (!shape || shape->shape.size() != 1)
      return notFollowed();
    int32_t type = TP::FLOAT;
    double value = 0;
    if (auto *a = attr("value")) {
      if (!a->has_t() || a->t().dims_size() > 1)
        return fail("attribute 'value' must be a one-element tensor");
      auto c = readTensor(*a->mutable_t(), "attribute 'value'");
      if (!c) {
        (void)fail(toString(c.takeError()));
        return failure();
      }
      if (c->size() != 1)
        return fail("attribute 'value' must hold one element");
      type = c->type;
      value = c->f(0);
    }
    Type et = elementType(type, &ctx);
    if (!et)
      return notFollowed();
    SmallVector<Value> sources;
    SmallVector<Attribute> extents;
    for (const SymExtent &e : shape->elems)
      extents.push_back(arr(termOf(e, sources)));
    return out(
        0, op("mx.fill_to_extents", sources,
              {na("extents", b.getArrayAttr(extents)), na("value", f64(value)),
               na("element_type", mlir::TypeAttr::get(et))}));
  }
  if (opType == "Slice") {
    auto data = symOf(0);
    auto starts = constInts(1, "starts"), ends = constInts(2, "ends");
    if (!data || data->shape.size() != 1 || failed(starts) || failed(ends) ||
        starts->size() != 1 || ends->size() != 1 || has(4))
      return notFollowed();
    int64_t n = data->elems.size();
    int64_t s = std::clamp<int64_t>(
        (*starts)[0] < 0 ? (*starts)[0] + n : (*starts)[0], 0, n);
    int64_t e =
        std::clamp<int64_t>((*ends)[0] < 0 ? (*ends)[0] + n : (*ends)[0], 0, n);
    SymTensor t{{std::max<int64_t>(e - s, 0)}, {}};
    for (int64_t j = s; j < e; ++j)
      t.elems.push_back(data->elems[j]);
    return outSym(0, std::move(t));
  }
  return notFollowed();
}
