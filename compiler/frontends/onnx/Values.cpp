// SPDX-License-Identifier: Apache-2.0
// The current node's side of the ONNX importer: its inputs as values or
// constants, its outputs, the parameters constants become, and the building
// of mx ops, which the operator handlers call; and the element types
// between ONNX and MLIR.
#include "compiler/frontends/onnx/ImporterImpl.h"
#include "dialects/mx/MxDialect.h"

using namespace mlir;
using namespace mxc;
using namespace mxc::onnx;

Type mxc::onnx::elementType(int32_t t, MLIRContext *ctx) {
  const ElementKind *k = elementKind(t);
  if (!k)
    return {};
  Builder b(ctx);
  switch (k->kind) {
  case 'f':
    return k->bits == 16   ? b.getF16Type()
           : k->bits == 32 ? Type(b.getF32Type())
                           : Type(b.getF64Type());
  case 'b':
    return b.getBF16Type();
  case 'u':
    return b.getIntegerType(k->bits, /*isSigned=*/false);
  case 's':
    return mx::StringType::get(ctx);
  default:
    return b.getIntegerType(k->bits);
  }
}

int32_t mxc::onnx::onnxType(Type t) {
  bool isString = isa<mx::StringType>(t);
  char kind = isString                ? 's'
              : t.isBF16()            ? 'b'
              : isa<FloatType>(t)     ? 'f'
              : t.isUnsignedInteger() ? 'u'
                                      : 'i';
  unsigned bits = isString ? 64 : t.getIntOrFloatBitWidth();
  for (const ElementKind &k : elementKinds())
    if (k.kind == kind && k.bits == bits)
      return k.onnx;
  llvm_unreachable("only types from elementType() are built");
}

//===----------------------------------------------------------------------===//

bool Importer::allConst() {
  for (int i = 0; i < node->input_size(); ++i)
    if (has(i) && !cst(i))
      return false;
  return true;
}

LogicalResult Importer::out(unsigned k, Value v) {
  if (!v)
    return failure();
  if (wants(k))
    tensors[node->output(k)] = Tensor{v, nullptr};
  return success();
}

LogicalResult Importer::outCounted(unsigned k, Value v, Value count,
                                   int64_t axis) {
  if (!v || !count)
    return failure();
  if (wants(k))
    tensors[node->output(k)] = Tensor{v, nullptr, nullptr, count, axis};
  return success();
}

std::pair<Value, Value> Importer::frontSlots(Value mask) {
  int64_t n = cast<RankedTensorType>(mask.getType()).getDimSize(0);
  Value kept = castTo(mask, TP::INT64);
  Value before = op("mx.cumsum", kept, {na("axis", i64(0))}); // inclusive
  Value count = reshape(
      op("mx.slice", before, {na("begin", arr({n - 1})), na("end", arr({n}))}),
      {});
  Value iota = iotaAlong(1, 0, n);
  // kept: before - 1; dropped: count + (its index - kept entries up to it)
  Value front = scalar(before, "sub", 1.0);
  Value back = binary(count, binary(iota, before, "sub"), "add");
  return {where(mask, front, back), count};
}

Value Importer::invertSlots(Value slots, int64_t n) {
  Value zeros = op("mx.broadcast_to", int64Scalar(0), {na("shape", arr({n}))});
  return op("mx.scatter_elements", {zeros, slots, iotaAlong(1, 0, n)},
            {na("axis", i64(0))});
}

LogicalResult Importer::outConst(unsigned k, Const c) {
  if (wants(k))
    tensors[node->output(k)] =
        Tensor{Value(), std::make_shared<const Const>(std::move(c))};
  return success();
}

std::vector<int64_t> Importer::shapeOf(const Tensor &t) {
  if (t.sym)
    return t.sym->shape;
  if (t.value) {
    auto s = cast<RankedTensorType>(t.value.getType()).getShape();
    return {s.begin(), s.end()};
  }
  return t.constant->shape;
}

int32_t Importer::typeOf(const Tensor &t) {
  if (t.sym)
    return TP::INT64;
  if (t.value)
    return onnxType(cast<RankedTensorType>(t.value.getType()).getElementType());
  return t.constant->type;
}

Value Importer::param(const Const &c, StringRef name) {
  Type et = elementType(c.type, &ctx);
  if (!et || c.type == TP::STRING) {
    (void)fail("constant '" + name + "' of element type " + typeName(c.type) +
               " cannot be used at run time");
    return {};
  }
  std::string unique = name.empty() ? "const" : name.str();
  for (int k = 1; !paramNames.insert(unique).second; ++k)
    unique = (name.empty() ? "const" : name.str()) + "_" + std::to_string(k);
  Value arg =
      body->addArgument(RankedTensorType::get(c.shape, et),
                        NameLoc::get(b.getStringAttr(unique),
                                     FileLineColLoc::get(&ctx, file, 0, 0)));
  // A Const's bytes are the parameter's layout already: shared, not copied.
  result.spec.addParam({unique, dtypeOf(c.type), c.shape}, c.share());
  return arg;
}

Value Importer::materialize(const std::string &name) {
  Tensor &t = tensors[name];
  if (t.sym && !t.value)
    t.value = symValue(*t.sym); // an extent used as data: computed
  if (!t.value && t.constant)
    t.value = param(*t.constant, name);
  return t.value;
}

Value Importer::scalarParam(int32_t type, double v, StringRef name) {
  Const c(type, {});
  c.set(0, v);
  return param(c, nodeName + "_" + name.str());
}

Value Importer::iotaAlong(int64_t rank, int64_t axis, int64_t n) {
  std::vector<int64_t> s(rank, 1);
  s[axis] = n;
  return param(Const::ofInts(iota(0, n), s), nodeName + "_iota");
}

Value Importer::iotaOfExtent(unsigned i, int64_t from, int64_t rank,
                             int64_t axis) {
  int64_t n = shape(i)[from];
  if (!ShapedType::isDynamic(n))
    return iotaAlong(rank, axis, n);
  // 0, 1, ... up to the run-time extent (mx.fill_to_extents), then the
  // other axes of extent 1.
  Value v = op(
      "mx.fill_to_extents", {val(i)},
      {na("extents", b.getArrayAttr({arr({1, 1, 0, 1, from})})),
       na("value", f64(0.0)), na("delta", f64(1.0)),
       na("iota", b.getBoolAttr(true)),
       na("element_type", mlir::TypeAttr::get(elementType(TP::INT64, &ctx)))});
  std::vector<int64_t> codes(rank, 1);
  codes[axis] = -1;
  return op("mx.Reshape", v, {na("shape", arr(codes))});
}

FailureOr<std::vector<int64_t>> Importer::constInts(unsigned i,
                                                    StringRef what) {
  const Const *c = cst(i);
  if (!c)
    return fail("input '" + what +
                "' must be a compile-time constant (an initializer, a "
                "Constant or a foldable shape computation; bind a graph "
                "input with --bind NAME=FILE.pb)");
  if (c->isFloat())
    return fail("input '" + what + "' must be an integer tensor");
  return c->intValues();
}

LogicalResult Importer::optionalConstInts(unsigned i, StringRef what,
                                          std::vector<int64_t> &values) {
  if (!has(i))
    return success();
  auto v = constInts(i, what);
  if (failed(v))
    return failure();
  values = std::move(*v);
  return success();
}

FailureOr<int64_t> Importer::constInt(unsigned i, StringRef what) {
  auto v = constInts(i, what);
  if (failed(v))
    return failure();
  if (v->size() != 1)
    return fail("input '" + what + "' must hold one value, got shape " +
                shapeText(shape(i)));
  return (*v)[0];
}

FailureOr<double> Importer::constScalar(unsigned i, StringRef what) {
  const Const *c = cst(i);
  if (!c)
    return fail("input '" + what + "' must be a compile-time constant");
  if (c->size() != 1)
    return fail("input '" + what + "' must hold one value, got shape " +
                shapeText(c->shape));
  return c->f(0);
}

FailureOr<std::vector<int64_t>> Importer::declaredShape(unsigned k, unsigned i,
                                                        StringRef what) {
  if (!declaredShapes) {
    declaredShapes.emplace();
    auto read = [&](const ::onnx::ValueInfoProto &v) {
      if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape())
        return;
      std::vector<int64_t> dims;
      for (const auto &d : v.type().tensor_type().shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() < 0)
          return;
        dims.push_back(d.dim_value());
      }
      (*declaredShapes)[v.name()] = std::move(dims);
    };
    for (const auto &v : model.graph().value_info())
      read(v);
    for (const auto &v : model.graph().output())
      read(v);
  }
  if (opts.inputShapes.empty() && wants(k))
    if (auto it = declaredShapes->find(node->output(k));
        it != declaredShapes->end())
      return it->second;
  return fail("input '" + what +
              "' must be a compile-time constant (an initializer, a Constant "
              "or a foldable shape computation; bind a graph input with "
              "--bind NAME=FILE.pb), or the model must declare a static "
              "shape for output " +
              (wants(k) ? "'" + node->output(k) + "'" : Twine(k)) +
              (opts.inputShapes.empty()
                   ? ""
                   : " (declared shapes are not used with --input)"));
}

Value Importer::int64Vector(unsigned i) {
  Value v = castTo(val(i), TP::INT64);
  return reshape(v, {numElements(shape(i))});
}

Value Importer::elementOf(Value v, int64_t k) {
  return op(
      "mx.gather",
      {v, param(Const::ofInts({k}, std::vector<int64_t>{}), nodeName + "_at")},
      {na("axis", i64(0))});
}

Value Importer::holdsAxis(Value v, int64_t axis, int64_t rank) {
  Value hit = binary(compare(v, int64Scalar(axis), "equal"),
                     compare(v, int64Scalar(axis - rank), "equal"), "or");
  Value any = reduceKeep(castTo(hit, TP::INT64), "max", {0});
  return reshape(compare(any, int64Scalar(1), "equal"), {});
}

LogicalResult Importer::axisAttr(int64_t dflt, int64_t rank, int64_t &axis,
                                 bool inclusive) {
  int64_t given = attrInt("axis", dflt);
  axis = given;
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank || (axis == rank && !inclusive))
    return fail("axis " + Twine(given) + " is out of range for rank " +
                Twine(rank));
  return success();
}

LogicalResult Importer::requireFloat(unsigned i) {
  if (!isFloatType(type(i)))
    return fail("input " + Twine(i) + " has element type " + typeName(type(i)) +
                "; only floating-point tensors are "
                "supported here");
  return success();
}

LogicalResult Importer::requireStatic(unsigned i, StringRef what) {
  auto s = shape(i);
  if (llvm::any_of(s, ShapedType::isDynamic))
    return fail(what + "'s extents must be static, got " + shapeText(s));
  return success();
}

//===----------------------------------------------------------------------===//
// Building mx ops
//===----------------------------------------------------------------------===//

Location Importer::loc() {
  return NameLoc::get(b.getStringAttr(nodeName),
                      FileLineColLoc::get(&ctx, file, 0, 0));
}

SmallVector<Value> Importer::create(StringRef name, ValueRange operands,
                                    ArrayRef<NamedAttribute> attrs) {
  if (llvm::any_of(operands, [](Value v) { return !v; }))
    return {};
  std::string error;
  FailureOr<Operation *> made =
      buildVerifiedOp(b, loc(), name, operands, attrs, error);
  if (failed(made)) {
    (void)fail(name + ": " + error);
    return {};
  }
  Operation *created = *made;
  // Empty results hold no values: they become empty constants, and an op
  // whose results are all empty is not computed at all.
  SmallVector<Value> results(created->result_begin(), created->result_end());
  bool allEmpty = true;
  for (Value &r : results) {
    auto t = cast<RankedTensorType>(r.getType());
    if (!t.hasStaticShape() || t.getNumElements() != 0) {
      allEmpty = false;
      continue;
    }
    r = emptyConstant(t);
  }
  if (allEmpty)
    created->erase();
  return results;
}

Value Importer::emptyConstant(RankedTensorType type) {
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  return param(Const(onnxType(type.getElementType()), shape),
               nodeName + "_empty");
}

Value Importer::reshape(Value v, ArrayRef<int64_t> shape) {
  if (!v)
    return v;
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getShape() == shape)
    return v;
  if (numElements(shape) == 0) // mx.Reshape reads 0 as "keep this extent"
    return emptyConstant(t.clone(shape));
  return op("mx.Reshape", v, {na("shape", arr(shape))});
}

Value Importer::castTo(Value v, int32_t t) {
  if (!v || typeOf(Tensor{v, nullptr}) == t)
    return v;
  return op("mx.cast", v, {na("to", TypeAttr::get(elementType(t, &ctx)))});
}

LogicalResult Importer::outReshaped(unsigned k, unsigned i,
                                    const std::vector<int64_t> &shape) {
  if (numElements(shape) != numElements(this->shape(i)))
    return fail("cannot reshape " + shapeText(this->shape(i)) + " to " +
                shapeText(shape));
  if (const Const *c = cst(i)) {
    Const r = *c; // shares the bytes
    r.shape = shape;
    return outConst(k, std::move(r));
  }
  return out(k, reshape(val(i), shape));
}

//===----------------------------------------------------------------------===//
