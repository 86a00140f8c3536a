// SPDX-License-Identifier: Apache-2.0
// Builds mx ops from ONNX graphs. Values known at compile time (initializers,
// Constant nodes, shapes of static tensors and the small integer arithmetic on
// them) are folded on the host, so that the shape operands of Reshape, Slice,
// Pad, Expand, ... are constants; a folded value that a runtime op consumes
// becomes an embedded parameter. Every other node maps onto one or a few mx
// ops whose own type inference checks it, so shape errors name the node.
#include "compiler/frontends/onnx/Importer.h"
#include "compiler/frontends/onnx/Const.h"
#include "dialects/mx/MxDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <set>

using namespace mlir;
using namespace mxc;
using namespace mxc::onnx;
using llvm::Twine;

namespace {

/// The opsets of the default domain this importer knows the semantics of.
constexpr int64_t kMinOpset = 1;
constexpr int64_t kMaxOpset = 17;

llvm::Error makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The MLIR element type of an ONNX element type mxc runs, if any. (Unsigned
/// types have no signless equivalent that keeps their semantics.)
Type elementType(int32_t t, MLIRContext *ctx) {
  Builder b(ctx);
  switch (t) {
  case TP::FLOAT:
    return b.getF32Type();
  case TP::DOUBLE:
    return b.getF64Type();
  case TP::FLOAT16:
    return b.getF16Type();
  case TP::BFLOAT16:
    return b.getBF16Type();
  case TP::INT64:
    return b.getI64Type();
  case TP::INT32:
    return b.getI32Type();
  case TP::INT16:
    return b.getI16Type();
  case TP::INT8:
    return b.getI8Type();
  case TP::UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case TP::UINT16:
    return b.getIntegerType(16, /*isSigned=*/false);
  case TP::UINT32:
    return b.getIntegerType(32, /*isSigned=*/false);
  case TP::UINT64:
    return b.getIntegerType(64, /*isSigned=*/false);
  case TP::BOOL:
    return b.getI1Type();
  case TP::STRING:
    return mxc::mx::StringType::get(ctx);
  default:
    return {};
  }
}

int32_t onnxType(Type t) {
  if (t.isF32())
    return TP::FLOAT;
  if (t.isF64())
    return TP::DOUBLE;
  if (t.isF16())
    return TP::FLOAT16;
  if (t.isBF16())
    return TP::BFLOAT16;
  if (t.isUnsignedInteger(8))
    return TP::UINT8;
  if (t.isUnsignedInteger(16))
    return TP::UINT16;
  if (t.isUnsignedInteger(32))
    return TP::UINT32;
  if (t.isUnsignedInteger(64))
    return TP::UINT64;
  if (t.isInteger(64))
    return TP::INT64;
  if (t.isInteger(32))
    return TP::INT32;
  if (t.isInteger(16))
    return TP::INT16;
  if (t.isInteger(8))
    return TP::INT8;
  if (t.isInteger(1))
    return TP::BOOL;
  if (isa<mxc::mx::StringType>(t))
    return TP::STRING;
  llvm_unreachable("only types from elementType() are built");
}

/// One axis of an ONNX Slice after clamping: first index, step, count.
struct SliceAxis {
  int64_t start, step, count;
};

SliceAxis normalizeSlice(int64_t dim, int64_t start, int64_t end,
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

/// A named value of the graph: a runtime SSA value, a compile-time constant,
/// or both once the constant has been materialized as a parameter.
struct Tensor {
  Value value;
  std::shared_ptr<const Const> constant;
};

class Importer {
public:
  Importer(MLIRContext &ctx, ::onnx::ModelProto &model, std::string file,
           const mxc::onnx::ImportOptions &opts)
      : ctx(ctx), b(&ctx), model(model), file(std::move(file)), opts(opts) {}

  llvm::Expected<mxc::ImportedModel> run();

private:
  // --- Graph-level steps.
  llvm::Error readOpset();
  llvm::Error addInitializers();
  llvm::Error addInputs();
  llvm::Error importNode(::onnx::NodeProto &n, unsigned index);
  llvm::Error addOutputs();
  /// Reads `t`, taking its raw_data (not copying it).
  llvm::Expected<Const> readTensor(TP &t, const Twine &what);

  // --- Per-node state and helpers. Failures store the first message.
  LogicalResult fail(const Twine &message) {
    if (error.empty())
      error = message.str();
    return failure();
  }
  bool has(unsigned i) const {
    return (int)i < node->input_size() && !node->input(i).empty();
  }
  Tensor &in(unsigned i) { return tensors[node->input(i)]; }
  std::vector<int64_t> shape(unsigned i) { return shapeOf(in(i)); }
  int64_t rank(unsigned i) { return shape(i).size(); }
  int32_t type(unsigned i) { return typeOf(in(i)); }
  const Const *cst(unsigned i) {
    return has(i) ? in(i).constant.get() : nullptr;
  }
  bool allConst() {
    for (int i = 0; i < node->input_size(); ++i)
      if (has(i) && !cst(i))
        return false;
    return true;
  }
  Value val(unsigned i) { return materialize(node->input(i)); }
  bool wants(unsigned k) const {
    return (int)k < node->output_size() && !node->output(k).empty();
  }
  LogicalResult out(unsigned k, Value v) {
    if (!v)
      return failure();
    if (wants(k))
      tensors[node->output(k)] = Tensor{v, nullptr};
    return success();
  }
  LogicalResult outConst(unsigned k, Const c) {
    if (wants(k))
      tensors[node->output(k)] =
          Tensor{Value(), std::make_shared<const Const>(std::move(c))};
    return success();
  }
  LogicalResult forward(unsigned k, unsigned i) {
    if (wants(k))
      tensors[node->output(k)] = in(i);
    return success();
  }
  /// The integer values of constant input `i`, or a failure naming `what`.
  FailureOr<std::vector<int64_t>> constInts(unsigned i, StringRef what);
  FailureOr<double> constScalar(unsigned i, StringRef what);

  std::vector<int64_t> shapeOf(const Tensor &t) {
    if (t.value) {
      auto s = cast<RankedTensorType>(t.value.getType()).getShape();
      return {s.begin(), s.end()};
    }
    return t.constant->shape;
  }
  int32_t typeOf(const Tensor &t) {
    if (t.value)
      return onnxType(
          cast<RankedTensorType>(t.value.getType()).getElementType());
    return t.constant->type;
  }

  // Attributes of the current node; each one read is marked as handled.
  ::onnx::AttributeProto *attr(StringRef name) {
    usedAttrs.insert(name);
    auto it = attrMap.find(name);
    return it == attrMap.end() ? nullptr : it->second;
  }
  int64_t attrInt(StringRef name, int64_t dflt) {
    auto *a = attr(name);
    return a ? a->i() : dflt;
  }
  double attrFloat(StringRef name, double dflt) {
    auto *a = attr(name);
    return a ? a->f() : dflt;
  }
  std::string attrStr(StringRef name, StringRef dflt) {
    auto *a = attr(name);
    return a ? a->s() : dflt.str();
  }
  std::optional<std::vector<int64_t>> attrInts(StringRef name) {
    auto *a = attr(name);
    if (!a)
      return std::nullopt;
    return std::vector<int64_t>(a->ints().begin(), a->ints().end());
  }
  void ignoreAttrs(std::initializer_list<StringRef> names) {
    for (StringRef n : names)
      usedAttrs.insert(n);
  }

  // --- Building mx ops.
  Location loc() {
    return NameLoc::get(b.getStringAttr(nodeName),
                        FileLineColLoc::get(&ctx, file, 0, 0));
  }
  SmallVector<Value> create(StringRef name, ValueRange operands,
                            ArrayRef<NamedAttribute> attrs);
  Value op(StringRef name, ValueRange operands,
           ArrayRef<NamedAttribute> attrs = {}) {
    auto r = create(name, operands, attrs);
    return r.empty() ? Value() : r[0];
  }
  NamedAttribute na(StringRef name, Attribute a) {
    return b.getNamedAttr(name, a);
  }
  Attribute i64(int64_t v) { return b.getI64IntegerAttr(v); }
  Attribute f64(double v) { return b.getF64FloatAttr(v); }
  Attribute str(StringRef v) { return b.getStringAttr(v); }
  Attribute arr(ArrayRef<int64_t> v) { return b.getDenseI64ArrayAttr(v); }
  Attribute boolean(bool v) { return b.getBoolAttr(v); }

  Value materialize(const std::string &name);
  Value param(const Const &c, StringRef name);
  Value reshape(Value v, ArrayRef<int64_t> shape);
  /// A constant of `type`, which has no elements.
  Value emptyConstant(RankedTensorType type);
  Value unary(Value v, StringRef fn) {
    return op("mx.unary", v, {na("op", str(fn))});
  }
  Value binary(Value a, Value c, StringRef fn) {
    return op("mx.binary", {a, c}, {na("op", str(fn))});
  }
  Value scalar(Value v, StringRef fn, double s, bool reverse = false) {
    return op("mx.scalar", v,
              {na("op", str(fn)), na("scalar", f64(s)),
               na("reverse", boolean(reverse))});
  }
  Value castTo(Value v, int32_t t) {
    if (!v || typeOf(Tensor{v, nullptr}) == t)
      return v;
    return op("mx.cast", v, {na("to", TypeAttr::get(elementType(t, &ctx)))});
  }
  /// Output `k` is input `i` reshaped (on the host when it is constant).
  LogicalResult outReshaped(unsigned k, unsigned i,
                            const std::vector<int64_t> &shape);
  LogicalResult requireFloat(unsigned i);

  // --- Op handlers (one per ONNX op or family).
  LogicalResult importOp(StringRef opType);
  LogicalResult foldConstantNode();
  LogicalResult importElementwise(StringRef opType);
  LogicalResult importCompare(StringRef fn);
  LogicalResult importUnary(StringRef opType);
  LogicalResult importActivation(StringRef opType);
  LogicalResult importConv();
  LogicalResult importConvTranspose();
  LogicalResult importPool(bool isMax);
  LogicalResult importGlobalPool(bool isMax);
  LogicalResult importBatchNorm();
  LogicalResult importBatchNormTraining();
  LogicalResult importInstanceNorm();
  LogicalResult importLayerNorm();
  LogicalResult importGemm();
  LogicalResult importSoftmax(bool log);
  LogicalResult outAlongAxis(int64_t axis,
                             function_ref<Value(Value, int64_t)> fn);
  LogicalResult importReshape();
  LogicalResult importSqueeze(bool unsqueeze);
  LogicalResult importTranspose();
  LogicalResult importConcat();
  LogicalResult importSplit();
  LogicalResult importSlice();
  LogicalResult importGather();
  LogicalResult importExpand();
  LogicalResult importTile();
  LogicalResult importPad();
  LogicalResult importCast(int32_t to);
  LogicalResult importClip();
  LogicalResult importWhere();
  LogicalResult importReduce(StringRef opType);
  LogicalResult importArgReduce(StringRef fn);
  LogicalResult importDropout();
  LogicalResult importSeededDropout(double ratio);
  LogicalResult importShape();
  LogicalResult importRange();
  LogicalResult importDepthToSpace(bool toSpace);
  // ONNX-only indexing, scan, triangle, loss and predicate ops.
  LogicalResult importOnnxOnlyOp(StringRef opType);
  LogicalResult importGatherElements();
  LogicalResult importScatter(StringRef name);
  LogicalResult importGatherND();
  LogicalResult importCumSum();
  LogicalResult importTrilu();
  LogicalResult importHardmax();
  LogicalResult importIsInf();
  LogicalResult importShrink();
  LogicalResult importMeanVarianceNorm();
  LogicalResult importEyeLike();
  LogicalResult importOneHot();
  LogicalResult importLoss(bool withSoftmax);
  Value scalarParam(int32_t type, double v, StringRef name);
  Value iotaAlong(int64_t rank, int64_t axis, int64_t n);
  LogicalResult importPads(StringRef autoPad, ArrayRef<int64_t> in,
                           ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                           SmallVectorImpl<int64_t> &begin,
                           SmallVectorImpl<int64_t> &end);
  std::optional<Const> foldBinary(const Const &a, const Const &c, StringRef fn);

  MLIRContext &ctx;
  OpBuilder b;
  ::onnx::ModelProto &model;
  std::string file;
  const mxc::onnx::ImportOptions &opts;
  int64_t opset = 0;

  mxc::ImportedModel result;
  func::FuncOp func;
  Block *body = nullptr;
  unsigned numInputArgs = 0;
  llvm::StringMap<Tensor> tensors;
  /// Sequence values: the names (in `tensors`) of their elements, "x[0]",
  /// "x[1]", ... Sequences have a length and element shapes known at
  /// compile time.
  llvm::StringMap<std::vector<std::string>> sequences;
  /// Optional values that hold nothing.
  llvm::StringSet<> absent;
  llvm::StringSet<> paramNames;

  bool isValue(StringRef name) {
    return tensors.count(name) || sequences.count(name) || absent.count(name);
  }
  llvm::Error addSequenceInput(const ::onnx::ValueInfoProto &input,
                               const ::onnx::TypeProto &type);
  /// Identity on containers and the sequence / optional operators.
  llvm::Error
  importContainerNode(const ::onnx::NodeProto &n, unsigned index,
                      llvm::function_ref<llvm::Error(const Twine &)> nodeError);
  /// Nodes made by importContainerNode (kept: `node` points at them while
  /// they import).
  std::deque<::onnx::NodeProto> madeNodes;

  ::onnx::NodeProto *node = nullptr;
  std::string nodeName;
  llvm::StringMap<::onnx::AttributeProto *> attrMap;
  llvm::StringSet<> usedAttrs;
  std::string error;
};

/// Parses the protobuf file at `path` into `message` straight from the file
/// (no buffer of the whole file beside the parsed message); `what` says what
/// the file should hold.
static llvm::Error readProtoFile(StringRef path,
                                 google::protobuf::MessageLite &message,
                                 const Twine &what) {
  int fd;
  if (std::error_code ec = llvm::sys::fs::openFileForRead(path, fd))
    return makeError("'" + path + "': " + ec.message());
  google::protobuf::io::FileInputStream input(fd);
  input.SetCloseOnDelete(true);
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(fd, status))
    return makeError("'" + path + "': " + ec.message());
  bool parsed = status.getSize() <= (uint64_t)std::numeric_limits<int>::max() &&
                message.ParseFromZeroCopyStream(&input);
  if (input.GetErrno())
    return makeError(
        "'" + path + "': " +
        std::error_code(input.GetErrno(), std::generic_category()).message());
  if (!parsed)
    return makeError("'" + path + "': " + what);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Reading the model
//===----------------------------------------------------------------------===//

llvm::Error Importer::readOpset() {
  for (const auto &o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx")
      opset = o.version();
  if (opset == 0 && model.opset_import_size() == 0)
    opset = 1; // IR version 1 models had no opset_import
  if (opset == 0)
    return makeError("'" + file +
                     "': the model does not import the default ONNX domain "
                     "(only '" +
                     model.opset_import(0).domain() +
                     "'), which mxc does not support");
  if (opset < kMinOpset || opset > kMaxOpset)
    return makeError("'" + file + "': opset " + Twine(opset) +
                     " of the default ONNX domain is not supported (mxc "
                     "supports opsets " +
                     Twine(kMinOpset) + " to " + Twine(kMaxOpset) + ")");
  return llvm::Error::success();
}

/// The `length` bytes (all when negative) at `offset` of the file `path`,
/// read into a buffer of their own.
static llvm::Expected<std::shared_ptr<std::string>>
readFileSlice(StringRef path, int64_t offset, int64_t length,
              llvm::function_ref<llvm::Error(const Twine &)> bad) {
  auto opened = llvm::sys::fs::openNativeFileForRead(path);
  if (!opened)
    return bad("cannot read external data '" + path +
               "': " + llvm::errorToErrorCode(opened.takeError()).message());
  llvm::sys::fs::file_t fd = *opened;
  llvm::scope_exit close([&] { llvm::sys::fs::closeFile(fd); });
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(fd, status))
    return bad("cannot read external data '" + path + "': " + ec.message());
  int64_t size = status.getSize();
  if (offset < 0 || offset > size)
    return bad("external data offset is past the end of '" + path + "'");
  if (length < 0 || length > size - offset)
    length = size - offset;
  auto bytes = std::make_shared<std::string>(length, '\0');
  // One read may return less than asked (Linux reads at most 2 GiB).
  for (int64_t done = 0; done < length;) {
    auto read = llvm::sys::fs::readNativeFileSlice(
        fd, llvm::MutableArrayRef<char>(bytes->data() + done, length - done),
        offset + done);
    if (!read)
      return bad("cannot read external data '" + path +
                 "': " + llvm::errorToErrorCode(read.takeError()).message());
    if (*read == 0)
      return bad("cannot read external data '" + path +
                 "': it ended while reading");
    done += *read;
  }
  return bytes;
}

llvm::Expected<Const> Importer::readTensor(TP &t, const Twine &what) {
  auto bad = [&](const Twine &why) {
    return makeError("'" + file + "': " + what + ": " + why);
  };
  int32_t dt = t.data_type();
  switch (dt) {
  case TP::FLOAT:
  case TP::DOUBLE:
  case TP::FLOAT16:
  case TP::BFLOAT16:
  case TP::INT64:
  case TP::INT32:
  case TP::INT16:
  case TP::INT8:
  case TP::UINT8:
  case TP::UINT16:
  case TP::UINT32:
  case TP::UINT64:
  case TP::BOOL:
    break;
  default:
    return bad("element type " + typeName(dt) + " is not supported");
  }
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  for (int64_t d : shape)
    if (d < 0)
      return bad("negative dimension in " + shapeText(shape));
  int64_t n = numElements(shape);

  // Raw bytes are ONNX's own layout: they become the Const's storage as
  // they are.
  std::shared_ptr<std::string> raw;
  if (t.data_location() == TP::EXTERNAL) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto &e : t.external_data()) {
      if (e.key() == "location")
        location = e.value();
      else if (e.key() == "offset")
        offset = std::stoll(e.value());
      else if (e.key() == "length")
        length = std::stoll(e.value());
    }
    llvm::SmallString<256> path(llvm::sys::path::parent_path(file));
    llvm::sys::path::append(path, location);
    auto bytes = readFileSlice(path, offset, length, bad);
    if (!bytes)
      return bytes.takeError();
    raw = std::move(*bytes);
  } else if (t.has_raw_data()) {
    // Taken from the model, which keeps no copy.
    raw = std::make_shared<std::string>();
    raw->swap(*t.mutable_raw_data());
  }
  if (raw) {
    size_t elem = elementSize(dt);
    if (raw->size() != n * elem)
      return bad("holds " + Twine(raw->size()) + " bytes but shape " +
                 shapeText(shape) + " of " + typeName(dt) + " needs " +
                 Twine(n * elem));
    if (dt == TP::BOOL) // any non-zero byte is true; Consts hold 0 or 1
      for (char &c : *raw)
        c = c != 0;
    return Const(dt, std::move(shape), std::move(raw));
  }

  Const c(dt, shape);
  auto fill = [&](const auto &values, auto convert) {
    int64_t got = values.size();
    for (int64_t k = 0; k < std::min(n, got); ++k)
      convert(k, values[k]);
    return got;
  };
  auto setFloat = [&](int64_t k, double v) { c.set(k, v); };
  auto setInt = [&](int64_t k, int64_t v) { c.setInt(k, v); };
  int64_t got;
  switch (dt) {
  case TP::FLOAT:
    got = fill(t.float_data(), setFloat);
    break;
  case TP::DOUBLE:
    got = fill(t.double_data(), setFloat);
    break;
  case TP::INT64:
    got = fill(t.int64_data(), setInt);
    break;
  case TP::UINT32:
  case TP::UINT64: // held as its two's-complement bit pattern
    got = fill(t.uint64_data(), setInt);
    break;
  case TP::FLOAT16: // both hold their bits in int32_data
  case TP::BFLOAT16:
    got = fill(t.int32_data(), [&](int64_t k, int32_t bits) {
      c.set(k, bits16ToDouble(dt, (uint16_t)bits));
    });
    break;
  default: // the small integer types and bool use int32_data
    got = fill(t.int32_data(), setInt);
    break;
  }
  if (got != n)
    return bad("holds " + Twine(got) + " values but shape " + shapeText(shape) +
               " needs " + Twine(n));
  return c;
}

llvm::Error Importer::addInitializers() {
  for (TP &t : *model.mutable_graph()->mutable_initializer()) {
    auto c = readTensor(t, "initializer '" + t.name() + "'");
    if (!c)
      return c.takeError();
    tensors[t.name()] =
        Tensor{Value(), std::make_shared<const Const>(std::move(*c))};
  }
  if (model.graph().sparse_initializer_size())
    return makeError("'" + file + "': sparse initializers are not supported");
  for (const auto &bound : opts.boundInputs) {
    const std::string &name = bound.first, &path = bound.second;
    bool isInput = llvm::any_of(model.graph().input(), [&](const auto &in) {
      return in.name() == name;
    });
    if (!isInput || tensors.count(name))
      return makeError("'" + file + "': --bind '" + name +
                       "' is not an input of the graph");
    TP t;
    if (llvm::Error e =
            readProtoFile(path, t, "not a serialized ONNX TensorProto"))
      return e;
    auto c = readTensor(t, "--bind '" + name + "'");
    if (!c)
      return c.takeError();
    tensors[name] =
        Tensor{Value(), std::make_shared<const Const>(std::move(*c))};
  }
  return llvm::Error::success();
}

llvm::Error Importer::addInputs() {
  for (const auto &input : model.graph().input()) {
    // Inputs that have an initializer are weights (IR < 4 lists them).
    if (tensors.count(input.name()))
      continue;
    const ::onnx::TypeProto *typePtr = &input.type();
    bool optional = typePtr->has_optional_type();
    if (opts.absentInputs.count(input.name())) {
      if (!optional)
        return makeError("'" + file + "': --input '" + input.name() +
                         "=none': the input is not optional");
      absent.insert(input.name());
      continue;
    }
    if (optional)
      typePtr = &typePtr->optional_type().elem_type();
    if (typePtr->has_sequence_type()) {
      if (llvm::Error e = addSequenceInput(input, *typePtr))
        return e;
      continue;
    }
    if (opts.sequenceInputs.count(input.name()))
      return makeError("'" + file + "': --input '" + input.name() +
                       "=seq(...)': the input is not a sequence");
    const auto &type = *typePtr;
    if (!type.has_tensor_type())
      return makeError("'" + file + "': input '" + input.name() +
                       "' is not a tensor, sequence or optional (maps are "
                       "not supported)");
    int32_t dt = type.tensor_type().elem_type();
    Type et = elementType(dt, &ctx);
    if (!et)
      return makeError("'" + file + "': input '" + input.name() +
                       "' has element type " + typeName(dt) +
                       ", which mxc does not support");
    if (!type.tensor_type().has_shape())
      return makeError("'" + file + "': input '" + input.name() +
                       "' has no shape; give it with --input " + input.name() +
                       "=SHAPE");
    const auto &dims = type.tensor_type().shape().dim();
    std::vector<int64_t> shape;
    auto given = opts.inputShapes.find(input.name());
    if (given != opts.inputShapes.end()) {
      shape = given->second;
      if ((int)shape.size() != dims.size())
        return makeError("'" + file + "': --input '" + input.name() +
                         "' has rank " + Twine(shape.size()) +
                         " but the model's input has rank " +
                         Twine(dims.size()));
      for (int i = 0; i < dims.size(); ++i)
        if (dims[i].has_dim_value() && dims[i].dim_value() != shape[i])
          return makeError("'" + file + "': --input '" + input.name() +
                           "': dimension " + Twine(i) + " is " +
                           Twine(dims[i].dim_value()) + " in the model, not " +
                           Twine(shape[i]));
    } else {
      for (int i = 0; i < dims.size(); ++i) {
        if (dims[i].has_dim_value()) {
          if (dims[i].dim_value() < 0)
            return makeError("'" + file + "': input '" + input.name() +
                             "' has a negative dimension (" +
                             Twine(dims[i].dim_value()) + ")");
          shape.push_back(dims[i].dim_value());
          continue;
        }
        std::string sym =
            dims[i].has_dim_param() ? "'" + dims[i].dim_param() + "'" : "?";
        llvm::errs() << "mxc: note: '" << file << "': input '" << input.name()
                     << "' dimension " << i << " (" << sym
                     << ") is symbolic; using 1 (bind it with --input "
                     << input.name() << "=SHAPE)\n";
        shape.push_back(1);
      }
    }
    auto t = RankedTensorType::get(shape, et);
    Value arg = body->insertArgument(
        numInputArgs++, t,
        NameLoc::get(b.getStringAttr(input.name()),
                     FileLineColLoc::get(&ctx, file, 0, 0)));
    result.spec.inputs.push_back({input.name(), dtypeOf(dt), shape});
    tensors[input.name()] = Tensor{arg, nullptr};
  }
  for (const auto &entry : opts.inputShapes) {
    const std::string &name = entry.first;
    if (llvm::none_of(result.spec.inputs,
                      [&](const TensorSpec &t) { return t.name == name; }))
      return makeError("'" + file + "': --input '" + name +
                       "' is not an input of the graph");
  }
  for (const auto &entry : opts.sequenceInputs)
    if (!sequences.count(entry.first))
      return makeError("'" + file + "': --input '" + entry.first +
                       "' is not an input of the graph");
  return llvm::Error::success();
}

/// Renames, in `graph` and its subgraphs, the names it reads from outside
/// itself (not its inputs, initializers or node outputs) by `rename`.
static void renameOuterNames(::onnx::GraphProto &graph,
                             const std::map<std::string, std::string> &rename) {
  std::set<std::string> local;
  for (const auto &i : graph.input())
    local.insert(i.name());
  for (const auto &i : graph.initializer())
    local.insert(i.name());
  for (const auto &node : graph.node())
    for (const std::string &o : node.output())
      local.insert(o);
  auto renamed = [&](std::string &name) {
    auto r = rename.find(name);
    if (!name.empty() && !local.count(name) && r != rename.end())
      name = r->second;
  };
  for (auto &node : *graph.mutable_node()) {
    for (std::string &in : *node.mutable_input())
      renamed(in);
    for (auto &a : *node.mutable_attribute()) {
      if (a.has_g())
        renameOuterNames(*a.mutable_g(), rename);
      for (auto &g : *a.mutable_graphs())
        renameOuterNames(g, rename);
    }
  }
  for (auto &o : *graph.mutable_output())
    renamed(*o.mutable_name());
}

/// Sequences are lists of element tensors and optionals a value or nothing,
/// all known at compile time, so most of their operators only rearrange
/// names; ConcatFromSequence and SplitToSequence become the Concat / Split
/// (and Unsqueeze / Squeeze) nodes that compute them, imported as usual.
llvm::Error Importer::importContainerNode(
    const ::onnx::NodeProto &n, unsigned index,
    llvm::function_ref<llvm::Error(const Twine &)> nodeError) {
  StringRef t = n.op_type();
  static const llvm::StringMap<std::vector<std::string>> allowedAttrs = {
      {"SequenceEmpty", {"dtype"}},
      {"ConcatFromSequence", {"axis", "new_axis"}},
      {"SplitToSequence", {"axis", "keepdims"}},
      {"Optional", {"type"}},
      {"SequenceMap", {"body"}},
      {"Loop", {"body"}},
      {"If", {"then_branch", "else_branch"}}};
  std::map<std::string, const ::onnx::AttributeProto *> attrs;
  for (const auto &a : n.attribute()) {
    auto it = allowedAttrs.find(t);
    if (it == allowedAttrs.end() || !llvm::is_contained(it->second, a.name()))
      return nodeError("attribute '" + a.name() + "' is not supported");
    attrs[a.name()] = &a;
  }
  auto intAttr = [&](const std::string &name, int64_t fallback) {
    auto it = attrs.find(name);
    return it == attrs.end() ? fallback : it->second->i();
  };
  auto input = [&](int i) {
    return i < n.input_size() ? n.input(i) : std::string();
  };
  auto isTensor = [&](const std::string &name) {
    return tensors.count(name) != 0;
  };
  const std::string out = n.output_size() ? n.output(0) : std::string();
  auto setSequence = [&](const std::string &to,
                         const std::vector<std::string> &from) {
    std::vector<std::string> names;
    for (const std::string &e : from) {
      names.push_back(to + "[" + std::to_string(names.size()) + "]");
      Tensor v = tensors[e];
      tensors[names.back()] = v;
    }
    sequences[to] = std::move(names);
  };
  auto forwardValue = [&](const std::string &from, const std::string &to) {
    if (absent.count(from)) {
      absent.insert(to);
    } else if (sequences.count(from)) {
      std::vector<std::string> elements = sequences[from];
      setSequence(to, elements);
    } else {
      Tensor v = tensors[from];
      tensors[to] = v;
    }
  };
  auto sequenceInput = [&](int i) -> FailureOr<std::vector<std::string>> {
    auto it = sequences.find(input(i));
    if (it == sequences.end())
      return failure();
    return it->second;
  };
  auto constInt = [&](int i) -> FailureOr<int64_t> {
    auto it = tensors.find(input(i));
    if (it == tensors.end() || !it->second.constant ||
        it->second.constant->size() != 1)
      return failure();
    return it->second.constant->i(0);
  };
  auto setConst = [&](const std::string &to, Const c) {
    tensors[to] = Tensor{Value(), std::make_shared<const Const>(std::move(c))};
  };
  // Imports a node made here, named after this one.
  auto importMade = [&](::onnx::NodeProto made) -> llvm::Error {
    made.set_name(nodeName);
    madeNodes.push_back(std::move(made));
    return importNode(madeNodes.back(), index);
  };
  auto addInts = [](::onnx::NodeProto &node, const std::string &name,
                    llvm::ArrayRef<int64_t> values) {
    auto *a = node.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (int64_t v : values)
      a->add_ints(v);
  };
  auto addInt = [](::onnx::NodeProto &node, const std::string &name,
                   int64_t value) {
    auto *a = node.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(value);
  };
  // Unsqueeze / Squeeze of `from` at `axis` into `to`, as this opset spells
  // them (axes an input from opset 13).
  auto reshapeNode = [&](StringRef op, const std::string &from,
                         const std::string &to, int64_t axis) {
    ::onnx::NodeProto made;
    made.set_op_type(op.str());
    made.add_input(from);
    made.add_output(to);
    if (opset >= 13) {
      std::string axes = to + "#axes";
      setConst(axes, Const::ofInts({axis}));
      made.add_input(axes);
    } else {
      addInts(made, "axes", {axis});
    }
    return importMade(std::move(made));
  };

  if (t == "Identity" || t == "OptionalGetElement") {
    if (t != "Identity" && absent.count(input(0)))
      return nodeError("optional input '" + input(0) + "' holds no value");
    forwardValue(input(0), out);
    return llvm::Error::success();
  }
  if (t == "Optional") {
    if (input(0).empty())
      absent.insert(out);
    else
      forwardValue(input(0), out);
    return llvm::Error::success();
  }
  if (t == "OptionalHasElement") {
    Const c(TP::BOOL, {});
    c.setInt(0, !input(0).empty() && !absent.count(input(0)));
    setConst(out, std::move(c));
    return llvm::Error::success();
  }
  if (t == "SequenceEmpty") {
    sequences[out] = {};
    return llvm::Error::success();
  }
  if (t == "SequenceConstruct") {
    std::vector<std::string> elements;
    for (const std::string &in : n.input()) {
      if (!isTensor(in))
        return nodeError("input '" + in + "' is not a tensor");
      elements.push_back(in);
    }
    setSequence(out, elements);
    return llvm::Error::success();
  }
  if (t == "SplitToSequence") {
    if (!isTensor(input(0)))
      return nodeError("input '" + input(0) + "' is not a tensor");
    std::vector<int64_t> shape = shapeOf(tensors[input(0)]);
    int64_t r = shape.size(), axis = intAttr("axis", 0);
    if (axis < -r || axis >= r)
      return nodeError("axis " + Twine(axis) + " is out of range for rank " +
                       Twine(r));
    if (axis < 0)
      axis += r;
    int64_t extent = shape[axis];
    std::vector<int64_t> sizes;
    bool squeeze = false;
    if (input(1).empty()) {
      sizes.assign(extent, 1);
      squeeze = intAttr("keepdims", 1) == 0;
    } else {
      auto it = tensors.find(input(1));
      if (it == tensors.end() || !it->second.constant)
        return nodeError("split '" + input(1) +
                         "' must be a compile-time constant");
      const Const &c = *it->second.constant;
      int64_t total = 0;
      if (c.shape.empty()) {
        int64_t s = c.i(0);
        if (s <= 0)
          return nodeError("split " + Twine(s) + " must be positive");
        for (int64_t left = extent; left > 0; left -= s)
          sizes.push_back(std::min(s, left));
        total = extent;
      } else {
        for (int64_t k = 0; k < c.size(); ++k) {
          if (c.i(k) < 0)
            return nodeError("split sizes must not be negative");
          sizes.push_back(c.i(k));
          total += c.i(k);
        }
      }
      if (total != extent)
        return nodeError("split " + shapeText(sizes) +
                         " does not add up to extent " + Twine(extent));
    }
    std::vector<std::string> names;
    for (size_t k = 0; k < sizes.size(); ++k)
      names.push_back(out + "[" + std::to_string(k) + "]");
    if (!sizes.empty()) {
      ::onnx::NodeProto split;
      split.set_op_type("Split");
      split.add_input(input(0));
      if (opset >= 13) {
        std::string name = out + "#split";
        setConst(name, Const::ofInts(sizes));
        split.add_input(name);
      } else {
        addInts(split, "split", sizes);
      }
      addInt(split, "axis", axis);
      for (const std::string &name : names)
        split.add_output(squeeze ? name + "#kept" : name);
      if (llvm::Error e = importMade(std::move(split)))
        return e;
      if (squeeze)
        for (const std::string &name : names)
          if (llvm::Error e =
                  reshapeNode("Squeeze", name + "#kept", name, axis))
            return e;
    }
    sequences[out] = std::move(names);
    return llvm::Error::success();
  }
  // Imports `body`'s nodes under names prefixed by `prefix`; `rename`
  // holds the body inputs' new names and receives its values'.
  auto importBody =
      [&](const ::onnx::GraphProto &body, const std::string &prefix,
          std::map<std::string, std::string> &rename) -> llvm::Error {
    if (body.initializer_size() || body.sparse_initializer_size())
      return nodeError("initializers in a subgraph are not supported");
    for (const ::onnx::NodeProto &bodyNode : body.node()) {
      ::onnx::NodeProto made = bodyNode;
      for (std::string &in : *made.mutable_input()) {
        auto r = rename.find(in);
        if (!in.empty() && r != rename.end())
          in = r->second;
      }
      // Subgraphs of the node (an If in a Loop body) may name this body's
      // values too.
      for (auto &a : *made.mutable_attribute()) {
        if (a.has_g())
          renameOuterNames(*a.mutable_g(), rename);
        for (auto &g : *a.mutable_graphs())
          renameOuterNames(g, rename);
      }
      for (std::string &o : *made.mutable_output()) {
        if (o.empty())
          continue;
        rename[o] = prefix + o;
        o = prefix + o;
      }
      if (llvm::Error e = importMade(std::move(made)))
        return e;
    }
    return llvm::Error::success();
  };
  auto bodyOutput = [&](const std::map<std::string, std::string> &rename,
                        const std::string &name) -> std::string {
    auto r = rename.find(name);
    std::string v = r == rename.end() ? name : r->second;
    return isValue(v) ? v : std::string();
  };
  auto constBool = [&](const std::string &name) -> std::optional<bool> {
    auto it = tensors.find(name);
    if (it == tensors.end() || !it->second.constant ||
        it->second.constant->size() != 1)
      return std::nullopt;
    return it->second.constant->i(0) != 0;
  };
  if (t == "If") {
    // A condition known at compile time picks the branch to import.
    std::optional<bool> cond = constBool(input(0));
    if (!cond)
      return nodeError("condition '" + input(0) +
                       "' must be a compile-time constant (control flow is "
                       "unrolled; run-time conditions are not supported)");
    const char *branch = *cond ? "then_branch" : "else_branch";
    if (!attrs.count(branch))
      return nodeError("attribute '" + Twine(branch) + "' is required");
    const ::onnx::GraphProto &body = attrs[branch]->g();
    if (body.output_size() != n.output_size())
      return nodeError("the branch makes " + Twine(body.output_size()) +
                       " outputs; the node has " + Twine(n.output_size()));
    std::map<std::string, std::string> rename;
    if (llvm::Error e = importBody(body, nodeName + "#" + branch + "#", rename))
      return e;
    for (int k = 0; k < n.output_size(); ++k) {
      std::string v = bodyOutput(rename, body.output(k).name());
      if (v.empty())
        return nodeError("branch output '" + body.output(k).name() +
                         "' is not computed");
      forwardValue(v, n.output(k));
    }
    return llvm::Error::success();
  }
  if (t == "Loop") {
    // Unrolled: the trip count and every iteration's condition must be
    // known at compile time.
    if (!attrs.count("body"))
      return nodeError("attribute 'body' is required");
    const ::onnx::GraphProto &body = attrs["body"]->g();
    int64_t carried = n.input_size() - 2;
    if (carried < 0 || body.input_size() != carried + 2 ||
        body.output_size() < carried + 1 ||
        n.output_size() != body.output_size() - 1)
      return nodeError("the body's inputs and outputs do not match the "
                       "node's");
    int64_t trips = std::numeric_limits<int64_t>::max();
    if (!input(0).empty()) {
      auto m = constInt(0);
      if (failed(m))
        return nodeError("trip count '" + input(0) +
                         "' must be a compile-time constant (loops are "
                         "unrolled; run-time trip counts are not supported)");
      trips = *m;
    }
    bool cond = true;
    if (!input(1).empty()) {
      std::optional<bool> c = constBool(input(1));
      if (!c)
        return nodeError("condition '" + input(1) +
                         "' must be a compile-time constant (loops are "
                         "unrolled; run-time conditions are not supported)");
      cond = *c;
    }
    if (input(0).empty() && input(1).empty())
      return nodeError("a loop without a trip count or condition never "
                       "ends");
    constexpr int64_t kMaxTrips = 4096;
    std::vector<std::string> values;
    for (int64_t k = 0; k < carried; ++k)
      values.push_back(input(k + 2));
    int64_t scans = body.output_size() - 1 - carried;
    std::vector<std::vector<std::string>> scanned(scans);
    for (int64_t i = 0; i < trips && cond; ++i) {
      if (i == kMaxTrips)
        return nodeError("more than " + Twine(kMaxTrips) +
                         " iterations to unroll");
      std::string prefix = nodeName + "#" + std::to_string(i) + "#";
      std::map<std::string, std::string> rename;
      Const iter(TP::INT64, {});
      iter.setInt(0, i);
      setConst(prefix + body.input(0).name(), std::move(iter));
      Const c(TP::BOOL, {});
      c.setInt(0, 1);
      setConst(prefix + body.input(1).name(), std::move(c));
      for (int k = 0; k < body.input_size(); ++k) {
        if (k >= 2)
          forwardValue(values[k - 2], prefix + body.input(k).name());
        rename[body.input(k).name()] = prefix + body.input(k).name();
      }
      if (llvm::Error e = importBody(body, prefix, rename))
        return e;
      std::string condOut = bodyOutput(rename, body.output(0).name());
      std::optional<bool> next = constBool(condOut);
      if (!next)
        return nodeError("the body's condition '" + body.output(0).name() +
                         "' must be a compile-time constant (loops are "
                         "unrolled; run-time conditions are not supported)");
      cond = *next;
      for (int64_t k = 0; k < carried + scans; ++k) {
        std::string v = bodyOutput(rename, body.output(k + 1).name());
        if (v.empty())
          return nodeError("body output '" + body.output(k + 1).name() +
                           "' is not computed");
        if (k < carried)
          values[k] = v;
        else
          scanned[k - carried].push_back(v);
      }
    }
    for (int64_t k = 0; k < carried; ++k)
      forwardValue(values[k], n.output(k));
    // Scan outputs stack the iterations' values along a new first axis.
    for (int64_t k = 0; k < scans; ++k) {
      const std::string &to = n.output(carried + k);
      if (scanned[k].empty())
        return nodeError("scan output '" + to +
                         "' of a loop that runs no iteration is not "
                         "supported");
      ::onnx::NodeProto concat;
      concat.set_op_type("Concat");
      for (const std::string &v : scanned[k]) {
        if (!isTensor(v))
          return nodeError("scan output '" + to + "' is not a tensor");
        std::string expanded = to + "#" + v;
        if (llvm::Error e = reshapeNode("Unsqueeze", v, expanded, 0))
          return e;
        concat.add_input(expanded);
      }
      concat.add_output(to);
      addInt(concat, "axis", 0);
      if (llvm::Error e = importMade(std::move(concat)))
        return e;
    }
    return llvm::Error::success();
  }
  if (t == "SequenceMap") {
    // The body once per element, its values renamed per iteration.
    if (!attrs.count("body"))
      return nodeError("attribute 'body' is required");
    const ::onnx::GraphProto &body = attrs["body"]->g();
    auto first = sequenceInput(0);
    if (failed(first))
      return nodeError("input '" + input(0) + "' is not a sequence");
    if (body.input_size() != n.input_size() ||
        body.output_size() != n.output_size())
      return nodeError("the body takes " + Twine(body.input_size()) +
                       " inputs and makes " + Twine(body.output_size()) +
                       " outputs; the node has " + Twine(n.input_size()) +
                       " and " + Twine(n.output_size()));
    size_t count = first->size();
    std::vector<std::vector<std::string>> results(n.output_size());
    for (size_t i = 0; i < count; ++i) {
      std::string prefix = nodeName + "#" + std::to_string(i) + "#";
      std::map<std::string, std::string> rename;
      for (int k = 0; k < n.input_size(); ++k) {
        std::string name = prefix + body.input(k).name();
        auto s = sequences.find(input(k));
        if (s != sequences.end()) {
          if (s->second.size() != count)
            return nodeError("sequence '" + input(k) + "' has " +
                             Twine(s->second.size()) + " elements, '" +
                             input(0) + "' " + Twine(count));
          Tensor v = tensors[s->second[i]];
          tensors[name] = v;
        } else if (isTensor(input(k))) {
          Tensor v = tensors[input(k)];
          tensors[name] = v;
        } else {
          return nodeError("input '" + input(k) +
                           "' is neither a sequence nor a tensor");
        }
        rename[body.input(k).name()] = name;
      }
      if (llvm::Error e = importBody(body, prefix, rename))
        return e;
      for (int k = 0; k < n.output_size(); ++k) {
        auto r = rename.find(body.output(k).name());
        if (r == rename.end() || !tensors.count(r->second))
          return nodeError("body output '" + body.output(k).name() +
                           "' is not a tensor the body computes");
        results[k].push_back(r->second);
      }
    }
    for (int k = 0; k < n.output_size(); ++k)
      setSequence(n.output(k), results[k]);
    return llvm::Error::success();
  }
  auto seq = sequenceInput(0);
  if (failed(seq))
    return nodeError("input '" + input(0) + "' is not a sequence");
  int64_t length = seq->size();
  // A position input (SequenceAt / Insert / Erase): a constant in
  // [-length, length + extra), else failure.
  auto position = [&](int i, int64_t fallback,
                      int64_t extra) -> FailureOr<int64_t> {
    int64_t p = fallback;
    if (!input(i).empty()) {
      auto v = constInt(i);
      if (failed(v))
        return failure();
      p = *v;
    }
    if (p < -length || p >= length + extra)
      return failure();
    return p < 0 ? p + length : p;
  };
  auto positionError = [&](int i) {
    return nodeError("position '" + input(i) +
                     "' must be a compile-time constant scalar within the "
                     "sequence's " +
                     Twine(length) + " elements");
  };
  if (t == "SequenceLength") {
    Const c(TP::INT64, {});
    c.setInt(0, length);
    setConst(out, std::move(c));
    return llvm::Error::success();
  }
  if (t == "SequenceAt" || t == "SequenceErase") {
    auto p = position(1, -1, 0);
    if (failed(p))
      return positionError(1);
    if (t == "SequenceAt") {
      Tensor v = tensors[(*seq)[*p]];
      tensors[out] = v;
    } else {
      std::vector<std::string> rest = *seq;
      rest.erase(rest.begin() + *p);
      setSequence(out, rest);
    }
    return llvm::Error::success();
  }
  if (t == "SequenceInsert") {
    if (!isTensor(input(1)))
      return nodeError("input '" + input(1) + "' is not a tensor");
    auto p = position(2, length, 1);
    if (failed(p))
      return positionError(2);
    std::vector<std::string> elements = *seq;
    elements.insert(elements.begin() + *p, input(1));
    setSequence(out, elements);
    return llvm::Error::success();
  }
  if (t == "ConcatFromSequence") {
    if (!attrs.count("axis"))
      return nodeError("attribute 'axis' is required");
    if (seq->empty())
      return nodeError("the sequence is empty: nothing to concatenate");
    int64_t axis = intAttr("axis", 0);
    bool newAxis = intAttr("new_axis", 0) != 0;
    std::vector<std::string> parts = *seq;
    if (newAxis) {
      int64_t r = shapeOf(tensors[parts[0]]).size() + 1;
      if (axis < -r || axis >= r)
        return nodeError("axis " + Twine(axis) + " is out of range for rank " +
                         Twine(r));
      if (axis < 0)
        axis += r;
      for (std::string &p : parts) {
        std::string expanded = out + "#" + p;
        if (llvm::Error e = reshapeNode("Unsqueeze", p, expanded, axis))
          return e;
        p = expanded;
      }
    }
    ::onnx::NodeProto concat;
    concat.set_op_type("Concat");
    for (const std::string &p : parts)
      concat.add_input(p);
    concat.add_output(out);
    addInt(concat, "axis", axis);
    return importMade(std::move(concat));
  }
  return nodeError("operator '" + t + "' is not supported");
}

llvm::Error Importer::addSequenceInput(const ::onnx::ValueInfoProto &input,
                                       const ::onnx::TypeProto &type) {
  const std::string &name = input.name();
  auto given = opts.sequenceInputs.find(name);
  if (given == opts.sequenceInputs.end())
    return makeError("'" + file + "': input '" + name +
                     "' is a sequence; give its length and element shapes "
                     "with --input " +
                     name + "=seq(SHAPE,...)");
  const auto &elem = type.sequence_type().elem_type();
  if (!elem.has_tensor_type())
    return makeError("'" + file + "': input '" + name +
                     "' is a sequence of non-tensors, which is not "
                     "supported");
  int32_t dt = elem.tensor_type().elem_type();
  Type et = elementType(dt, &ctx);
  if (!et)
    return makeError("'" + file + "': input '" + name + "' has element type " +
                     typeName(dt) + ", which mxc does not support");
  std::vector<std::string> &names = sequences[name];
  for (const std::vector<int64_t> &shape : given->second) {
    std::string element = name + "[" + std::to_string(names.size()) + "]";
    if (elem.tensor_type().has_shape()) {
      const auto &dims = elem.tensor_type().shape().dim();
      if ((int)shape.size() != dims.size())
        return makeError("'" + file + "': --input '" + name + "': element " +
                         Twine(names.size()) + " has rank " +
                         Twine(shape.size()) + " but the model's elements " +
                         "have rank " + Twine(dims.size()));
      for (int i = 0; i < dims.size(); ++i)
        if (dims[i].has_dim_value() && dims[i].dim_value() != shape[i])
          return makeError("'" + file + "': --input '" + name + "': element " +
                           Twine(names.size()) + ": dimension " + Twine(i) +
                           " is " + Twine(dims[i].dim_value()) +
                           " in the model, not " + Twine(shape[i]));
    }
    Value arg = body->insertArgument(
        numInputArgs++, RankedTensorType::get(shape, et),
        NameLoc::get(b.getStringAttr(element),
                     FileLineColLoc::get(&ctx, file, 0, 0)));
    result.spec.inputs.push_back({element, dtypeOf(dt), shape});
    tensors[element] = Tensor{arg, nullptr};
    names.push_back(element);
  }
  return llvm::Error::success();
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
  if (!t.value && t.constant)
    t.value = param(*t.constant, name);
  return t.value;
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

FailureOr<double> Importer::constScalar(unsigned i, StringRef what) {
  const Const *c = cst(i);
  if (!c)
    return fail("input '" + what + "' must be a compile-time constant");
  if (c->size() != 1)
    return fail("input '" + what + "' must hold one value, got shape " +
                shapeText(c->shape));
  return c->f(0);
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
    if (t.getNumElements() != 0) {
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

LogicalResult Importer::outReshaped(unsigned k, unsigned i,
                                    const std::vector<int64_t> &shape) {
  if (numElements(shape) != numElements(this->shape(i)))
    return fail("cannot reshape " + shapeText(this->shape(i)) + " to " +
                shapeText(shape));
  if (const Const *c = cst(i)) {
    Const r = *c;
    r.shape = shape;
    return outConst(k, std::move(r));
  }
  return out(k, reshape(val(i), shape));
}

LogicalResult Importer::requireFloat(unsigned i) {
  if (!isFloatType(type(i)))
    return fail("input " + Twine(i) + " has element type " + typeName(type(i)) +
                "; only floating-point tensors are "
                "supported here");
  return success();
}

//===----------------------------------------------------------------------===//
// Nodes
//===----------------------------------------------------------------------===//

llvm::Error Importer::importNode(::onnx::NodeProto &n, unsigned index) {
  node = &n;
  nodeName = n.name();
  for (int k = 0; k < n.output_size() && nodeName.empty(); ++k)
    nodeName = n.output(k);
  if (nodeName.empty())
    nodeName = "#" + std::to_string(index);
  attrMap.clear();
  usedAttrs.clear();
  error.clear();
  auto nodeError = [&](const Twine &message) {
    return makeError("'" + file + "': node '" + nodeName + "' (" + n.op_type() +
                     ", opset " + Twine(opset) + "): " + message);
  };
  if (!n.domain().empty() && n.domain() != "ai.onnx")
    return nodeError("operators of domain '" + n.domain() +
                     "' are not supported");
  for (auto &a : *n.mutable_attribute()) {
    if (!a.ref_attr_name().empty())
      return nodeError("attribute '" + a.name() +
                       "' refers to a function attribute, which is not "
                       "supported");
    attrMap[a.name()] = &a;
  }
  for (int i = 0; i < n.input_size(); ++i)
    if (!n.input(i).empty() && !isValue(n.input(i)))
      return nodeError("input '" + n.input(i) +
                       "' is not produced by any earlier node, input or "
                       "initializer");
  // Sequences and optionals are known at compile time: their ops are
  // bookkeeping, or become tensor nodes (see importContainerNode).
  static const llvm::StringSet<> containerOps = {"SequenceEmpty",
                                                 "SequenceConstruct",
                                                 "SequenceAt",
                                                 "SequenceLength",
                                                 "SequenceInsert",
                                                 "SequenceErase",
                                                 "ConcatFromSequence",
                                                 "SplitToSequence",
                                                 "OptionalHasElement",
                                                 "OptionalGetElement",
                                                 "Optional",
                                                 "SequenceMap",
                                                 "Loop",
                                                 "If"};
  bool takesContainer = llvm::any_of(n.input(), [&](const std::string &in) {
    return sequences.count(in) || absent.count(in);
  });
  if (containerOps.count(n.op_type()) ||
      (takesContainer && n.op_type() == "Identity"))
    return importContainerNode(n, index, nodeError);
  if (takesContainer)
    return nodeError("sequence and optional inputs are not supported here "
                     "(only Identity and the sequence and optional operators "
                     "take them)");
  // bfloat16 values are only stored and converted: no other op computes
  // with them.
  static const llvm::StringSet<> bf16Ops = {"Cast", "CastLike", "Identity",
                                            "Constant"};
  auto bf16Error = [&](const std::string &name) -> llvm::Error {
    if (name.empty() || bf16Ops.count(n.op_type()) || !tensors.count(name) ||
        typeOf(tensors[name]) != TP::BFLOAT16)
      return llvm::Error::success();
    return nodeError("bfloat16 tensor '" + name +
                     "' is not supported here (only Cast, CastLike, Identity "
                     "and Constant take or make bfloat16)");
  };
  // Strings are only converted and passed along (mxc-lower-strings).
  static const llvm::StringSet<> stringOps = {"Cast", "CastLike", "Identity"};
  auto stringError = [&](const std::string &name) -> llvm::Error {
    if (name.empty() || stringOps.count(n.op_type()) || !tensors.count(name) ||
        typeOf(tensors[name]) != TP::STRING)
      return llvm::Error::success();
    return nodeError("string tensor '" + name +
                     "' is not supported here (only Cast, CastLike and "
                     "Identity take or make strings)");
  };
  for (const std::string &name : n.input())
    if (llvm::Error e = bf16Error(name))
      return e;
  for (const std::string &name : n.input())
    if (llvm::Error e = stringError(name))
      return e;
  if (failed(importOp(n.op_type())))
    return nodeError(error.empty() ? "failed to import" : error);
  for (const std::string &name : n.output())
    if (llvm::Error e = bf16Error(name))
      return e;
  for (const std::string &name : n.output())
    if (llvm::Error e = stringError(name))
      return e;
  for (const auto &a : n.attribute())
    if (!usedAttrs.count(a.name()))
      return nodeError("attribute '" + a.name() + "' is not supported");
  for (int k = 0; k < n.output_size(); ++k)
    if (!n.output(k).empty() && !tensors.count(n.output(k)))
      return nodeError("output " + Twine(k) + " ('" + n.output(k) +
                       "') is not supported");
  return llvm::Error::success();
}

LogicalResult Importer::importOp(StringRef t) {
  static const llvm::StringSet<> elementwise = {
      "Add", "Sub", "Mul",  "Div", "Pow", "Mod", "Max",
      "Min", "Sum", "Mean", "And", "Or",  "Xor", "BitShift"};
  static const llvm::StringSet<> unaryOps = {
      "Abs",  "Neg",  "Exp",   "Log",   "Sqrt",  "Reciprocal", "Ceil", "Floor",
      "Sign", "Erf",  "Round", "Sin",   "Cos",   "Tan",        "Asin", "Acos",
      "Atan", "Sinh", "Cosh",  "Asinh", "Acosh", "Atanh",      "Not"};
  static const llvm::StringSet<> activations = {
      "Relu",      "Sigmoid", "Tanh",           "Softplus", "Softsign",
      "LeakyRelu", "Elu",     "Selu",           "Celu",     "HardSigmoid",
      "HardSwish", "PRelu",   "ThresholdedRelu"};
  if (elementwise.count(t))
    return importElementwise(t);
  if (unaryOps.count(t))
    return importUnary(t);
  if (activations.count(t))
    return importActivation(t);
  if (t.starts_with("Reduce"))
    return importReduce(t);
  if (t == "Equal")
    return importCompare("equal");
  if (t == "Greater")
    return importCompare("greater");
  if (t == "Less")
    return importCompare("less");
  if (t == "GreaterOrEqual")
    return importCompare("greater_equal");
  if (t == "LessOrEqual")
    return importCompare("less_equal");
  if (t == "Constant" || t == "ConstantOfShape" || t == "Size")
    return foldConstantNode();
  if (t == "Shape")
    return importShape();
  if (t == "Range")
    return importRange();
  if (t == "Identity")
    return forward(0, 0);
  if (t == "Dropout")
    return importDropout();
  if (t == "Conv")
    return importConv();
  if (t == "ConvTranspose")
    return importConvTranspose();
  if (t == "MaxPool" || t == "AveragePool")
    return importPool(t == "MaxPool");
  if (t == "GlobalMaxPool" || t == "GlobalAveragePool")
    return importGlobalPool(t == "GlobalMaxPool");
  if (t == "BatchNormalization")
    return importBatchNorm();
  if (t == "InstanceNormalization")
    return importInstanceNorm();
  if (t == "LayerNormalization")
    return importLayerNorm();
  if (t == "LRN") {
    if (failed(requireFloat(0)))
      return failure();
    int64_t size = attrInt("size", 0);
    if (size % 2 == 0)
      return fail("an even size (" + Twine(size) + ") is not supported");
    return out(0, op("mx.LRN", val(0),
                     {na("alpha", f64(attrFloat("alpha", 1e-4))),
                      na("beta", f64(attrFloat("beta", 0.75))),
                      na("knorm", f64(attrFloat("bias", 1.0))),
                      na("nsize", i64(size))}));
  }
  if (t == "Gemm")
    return importGemm();
  if (t == "MatMul")
    return out(0, op("mx.matmul", {val(0), val(1)}));
  if (t == "Softmax" || t == "LogSoftmax")
    return importSoftmax(t == "LogSoftmax");
  if (t == "Flatten") {
    auto s = shape(0);
    int64_t r = s.size(), axis = attrInt("axis", 1);
    if (axis < 0)
      axis += r;
    if (axis < 0 || axis > r)
      return fail("axis " + Twine(attrInt("axis", 1)) +
                  " is out of range for rank " + Twine(r));
    int64_t lead = numElements(llvm::ArrayRef(s).take_front(axis));
    return outReshaped(0, 0,
                       {lead, numElements(s) / std::max<int64_t>(lead, 1)});
  }
  if (t == "Reshape")
    return importReshape();
  if (t == "Squeeze" || t == "Unsqueeze")
    return importSqueeze(t == "Unsqueeze");
  if (t == "Transpose")
    return importTranspose();
  if (t == "Concat")
    return importConcat();
  if (t == "Split")
    return importSplit();
  if (t == "Slice")
    return importSlice();
  if (t == "Gather")
    return importGather();
  if (t == "Expand")
    return importExpand();
  if (t == "Tile")
    return importTile();
  if (t == "Pad")
    return importPad();
  if (t == "Cast")
    return importCast((int32_t)attrInt("to", TP::UNDEFINED));
  if (t == "CastLike")
    return importCast(type(1));
  if (t == "Clip")
    return importClip();
  if (t == "Where")
    return importWhere();
  if (t == "ArgMax" || t == "ArgMin")
    return importArgReduce(t == "ArgMax" ? "max" : "min");
  if (t == "DepthToSpace" || t == "SpaceToDepth")
    return importDepthToSpace(t == "SpaceToDepth");
  return importOnnxOnlyOp(t);
}

LogicalResult Importer::foldConstantNode() {
  StringRef t = node->op_type();
  if (t == "Size")
    return outConst(
        0, Const::ofInts({numElements(shape(0))}, std::vector<int64_t>{}));
  if (t == "ConstantOfShape") {
    auto dims = constInts(0, "input");
    if (failed(dims))
      return failure();
    Const c(TP::FLOAT, *dims);
    if (auto *a = attr("value")) {
      auto v = readTensor(*a->mutable_t(), "attribute 'value'");
      if (!v)
        return fail(llvm::toString(v.takeError()));
      if (v->size() != 1)
        return fail("attribute 'value' must hold one element");
      c = Const(v->type, *dims);
      for (int64_t k = 0; k < c.size(); ++k)
        c.copy(k, *v, 0);
    }
    return outConst(0, std::move(c));
  }
  // Constant: exactly one of its value attributes.
  if (auto *a = attr("value")) {
    auto v = readTensor(*a->mutable_t(), "attribute 'value'");
    if (!v)
      return fail(llvm::toString(v.takeError()));
    return outConst(0, std::move(*v));
  }
  if (const auto *a = attr("value_float")) {
    Const c(TP::FLOAT, {});
    c.set(0, a->f());
    return outConst(0, std::move(c));
  }
  if (const auto *a = attr("value_floats")) {
    Const c(TP::FLOAT, {(int64_t)a->floats_size()});
    for (int k = 0; k < a->floats_size(); ++k)
      c.set(k, a->floats(k));
    return outConst(0, std::move(c));
  }
  if (const auto *a = attr("value_int"))
    return outConst(0, Const::ofInts({a->i()}, std::vector<int64_t>{}));
  if (const auto *a = attr("value_ints"))
    return outConst(0, Const::ofInts(std::vector<int64_t>(a->ints().begin(),
                                                          a->ints().end())));
  if (attr("sparse_value"))
    return fail("sparse constants are not supported");
  if (attr("value_string") || attr("value_strings"))
    return fail("string constants are not supported");
  return fail("has no value attribute");
}

LogicalResult Importer::importShape() {
  auto s = shape(0);
  int64_t r = s.size();
  int64_t start = attrInt("start", 0), end = attrInt("end", r);
  if (start < 0)
    start += r;
  if (end < 0)
    end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  std::vector<int64_t> dims(s.begin() + start,
                            s.begin() + std::max(start, end));
  return outConst(0, Const::ofInts(dims));
}

LogicalResult Importer::importRange() {
  if (!allConst())
    return fail("start, limit and delta must be compile-time constants");
  const Const &start = *cst(0), &limit = *cst(1), &delta = *cst(2);
  if (start.size() != 1 || limit.size() != 1 || delta.size() != 1)
    return fail("start, limit and delta must be scalars");
  if (delta.f(0) == 0)
    return fail("delta must not be 0");
  double n = std::ceil((limit.f(0) - start.f(0)) / delta.f(0));
  int64_t count = std::max<int64_t>(0, (int64_t)n);
  Const c(start.type, {count});
  for (int64_t k = 0; k < count; ++k) {
    if (c.isFloat())
      c.set(k, start.f(0) + k * delta.f(0));
    else
      c.setInt(k, start.i(0) + k * delta.i(0));
  }
  return outConst(0, std::move(c));
}

std::optional<Const> Importer::foldBinary(const Const &a, const Const &c,
                                          StringRef fn) {
  auto shapeOut = broadcastShapes({a.shape, c.shape});
  // uint64 values past INT64_MAX would fold as negative: left to run time.
  if (!shapeOut || a.type == TP::UINT64 || c.type == TP::UINT64)
    return std::nullopt;
  bool cmp = fn == "equal" || fn == "greater" || fn == "less" ||
             fn == "greater_equal" || fn == "less_equal";
  Const r(cmp ? (int32_t)TP::BOOL : a.type, *shapeOut);
  auto ia = broadcastIndex(a.shape, *shapeOut);
  auto ic = broadcastIndex(c.shape, *shapeOut);
  bool fl = a.isFloat();
  for (int64_t k = 0; k < r.size(); ++k) {
    if (fl) {
      double x = a.f(ia[k]), y = c.f(ic[k]);
      double v = fn == "add"             ? x + y
                 : fn == "sub"           ? x - y
                 : fn == "mul"           ? x * y
                 : fn == "div"           ? x / y
                 : fn == "power"         ? std::pow(x, y)
                 : fn == "maximum"       ? std::max(x, y)
                 : fn == "minimum"       ? std::min(x, y)
                 : fn == "fmod"          ? std::fmod(x, y)
                 : fn == "equal"         ? double(x == y)
                 : fn == "greater"       ? double(x > y)
                 : fn == "less"          ? double(x < y)
                 : fn == "greater_equal" ? double(x >= y)
                 : fn == "less_equal"    ? double(x <= y)
                                         : NAN;
      if (std::isnan(v) && fn != "div" && fn != "power" && fn != "fmod" &&
          !std::isnan(x) && !std::isnan(y))
        return std::nullopt;
      r.set(k, v);
      continue;
    }
    int64_t x = a.i(ia[k]), y = c.i(ic[k]);
    if ((fn == "div" || fn == "mod" || fn == "fmod") && y == 0)
      return std::nullopt;
    int64_t v;
    if (fn == "add")
      v = x + y;
    else if (fn == "sub")
      v = x - y;
    else if (fn == "mul")
      v = x * y;
    else if (fn == "div")
      v = x / y;
    else if (fn == "fmod")
      v = x % y;
    else if (fn == "mod")
      v = ((x % y) + y) % y;
    else if (fn == "maximum")
      v = std::max(x, y);
    else if (fn == "minimum")
      v = std::min(x, y);
    else if (fn == "power")
      v = (int64_t)std::pow((double)x, (double)y);
    else if (fn == "and")
      v = x && y;
    else if (fn == "or")
      v = x || y;
    else if (fn == "xor")
      v = bool(x) != bool(y);
    else if (fn == "equal")
      v = x == y;
    else if (fn == "greater")
      v = x > y;
    else if (fn == "less")
      v = x < y;
    else if (fn == "greater_equal")
      v = x >= y;
    else if (fn == "less_equal")
      v = x <= y;
    else
      return std::nullopt;
    r.setInt(k, v);
  }
  return r;
}

LogicalResult Importer::importElementwise(StringRef t) {
  StringRef fn = llvm::StringSwitch<StringRef>(t)
                     .Cases({"Add", "Sum", "Mean"}, "add")
                     .Case("Sub", "sub")
                     .Case("Mul", "mul")
                     .Case("Div", "div")
                     .Case("Pow", "power")
                     .Case("Mod", "mod")
                     .Case("Max", "maximum")
                     .Case("Min", "minimum")
                     .Case("And", "and")
                     .Case("Or", "or")
                     .Case("Xor", "xor")
                     .Case("BitShift", "shift");
  if (t == "BitShift") {
    std::string direction = attrStr("direction", "");
    if (direction != "LEFT" && direction != "RIGHT")
      return fail("direction '" + direction + "' is not LEFT or RIGHT");
    fn = direction == "LEFT" ? "shift_left" : "shift_right";
  }
  if (t == "Mod" && attrInt("fmod", 0))
    fn = "fmod";
  if (t == "Mod" && fn == "mod" && isFloatType(type(0)))
    return fail("fmod=0 is not defined for floating-point inputs");
  int n = node->input_size();
  if (n < 1 ||
      (n != 2 && !(t == "Sum" || t == "Mean" || t == "Max" || t == "Min")))
    return fail("expects 2 inputs, got " + Twine(n));
  // Opsets before 7: `broadcast` aligns B with A at `axis` instead of NumPy's
  // trailing alignment.
  std::vector<int64_t> rhsShape = shape(n - 1);
  bool legacy = false;
  if (attr("broadcast") && attrInt("broadcast", 0)) {
    int64_t ra = rank(0), rb = rhsShape.size();
    int64_t axis = attrInt("axis", ra - rb);
    if (axis < 0)
      axis += ra;
    if (axis < 0 || axis + rb > ra)
      return fail("broadcast axis " + Twine(attrInt("axis", ra - rb)) +
                  " does not fit shapes " + shapeText(shape(0)) + " and " +
                  shapeText(rhsShape));
    rhsShape.resize(ra - axis, 1);
    legacy = true;
  } else {
    ignoreAttrs({"axis"});
  }
  ignoreAttrs({"consumed_inputs"});

  // Pow: the exponent may have another type than the base.
  auto operandType = type(0);
  if (allConst()) {
    Const acc = *cst(0);
    bool ok = true;
    for (int i = 1; i < n && ok; ++i) {
      Const rhs = *cst(i);
      if (i == n - 1 && legacy)
        rhs.shape = rhsShape;
      if (rhs.type != acc.type) {
        Const conv(acc.type, rhs.shape);
        for (int64_t k = 0; k < rhs.size(); ++k)
          conv.isFloat() ? conv.set(k, rhs.f(k)) : conv.setInt(k, rhs.i(k));
        rhs = std::move(conv);
      }
      auto r = foldBinary(acc, rhs, fn);
      ok = r.has_value();
      if (ok)
        acc = std::move(*r);
    }
    if (ok && t == "Mean") {
      Const d = acc;
      for (int64_t k = 0; k < d.size(); ++k)
        d.set(k, acc.f(k) / n);
      acc = std::move(d);
    }
    if (ok)
      return outConst(0, std::move(acc));
  }

  Value acc = val(0);
  for (int i = 1; i < n; ++i) {
    Value rhs = val(i);
    if (i == n - 1 && legacy)
      rhs = reshape(rhs, rhsShape);
    if (rhs && type(i) != operandType) {
      if (t != "Pow")
        return fail("input element types " + typeName(operandType) + " and " +
                    typeName(type(i)) + " differ");
      rhs = castTo(rhs, operandType);
    }
    if (fn == "fmod" && isFloatType(operandType)) {
      // C fmod: a - trunc(a / b) * b, trunc(q) = sign(q) * floor(|q|).
      Value q = binary(acc, rhs, "div");
      Value tq =
          binary(unary(q, "sign"), unary(unary(q, "abs"), "floor"), "mul");
      acc = binary(acc, binary(tq, rhs, "mul"), "sub");
    } else if (fn == "fmod") {
      // Integer division truncates, so this is C's remainder.
      acc = binary(acc, binary(binary(acc, rhs, "div"), rhs, "mul"), "sub");
    } else {
      acc = binary(acc, rhs, fn);
    }
  }
  if (t == "Mean")
    acc = scalar(acc, "div", n);
  return out(0, acc);
}

LogicalResult Importer::importCompare(StringRef fn) {
  if (type(0) != type(1))
    return fail("input element types " + typeName(type(0)) + " and " +
                typeName(type(1)) + " differ");
  if (allConst())
    if (auto r = foldBinary(*cst(0), *cst(1), fn))
      return outConst(0, std::move(*r));
  return out(0, op("mx.compare", {val(0), val(1)}, {na("op", str(fn))}));
}

LogicalResult Importer::importUnary(StringRef t) {
  ignoreAttrs({"consumed_inputs"});
  std::string fn = t == "Neg" ? "negative" : t.lower();
  if (const Const *c = cst(0)) {
    // Host folding of the few unary ops that shape arithmetic uses (trip
    // counts: Range's function body takes ceil of a quotient).
    if (t == "Neg" || t == "Not" || t == "Abs" || t == "Ceil" || t == "Floor") {
      Const r = *c;
      for (int64_t k = 0; k < r.size(); ++k) {
        if (t == "Not")
          r.setInt(k, !c->i(k));
        else if (c->isFloat())
          r.set(k, t == "Neg"    ? -c->f(k)
                   : t == "Abs"  ? std::fabs(c->f(k))
                   : t == "Ceil" ? std::ceil(c->f(k))
                                 : std::floor(c->f(k)));
        else
          r.setInt(k, t == "Neg"   ? -c->i(k)
                      : t == "Abs" ? std::abs(c->i(k))
                                   : c->i(k));
      }
      return outConst(0, std::move(r));
    }
  }
  return out(0, unary(val(0), fn));
}

LogicalResult Importer::importActivation(StringRef t) {
  Value x = val(0);
  bool fl = has(0) && isFloatType(type(0));
  ignoreAttrs({"consumed_inputs"});
  if (t == "Relu") {
    if (const Const *c = cst(0)) { // shape arithmetic, folded on the host
      Const r = *c;
      for (int64_t k = 0; k < r.size(); ++k) {
        if (c->isFloat())
          r.set(k, std::max(c->f(k), 0.0));
        else
          r.setInt(k, std::max<int64_t>(c->i(k), 0));
      }
      return outConst(0, std::move(r));
    }
    if (!fl)
      return out(0, scalar(x, "maximum", 0.0));
    return out(0, op("mx.Activation", x, {na("act_type", str("relu"))}));
  }
  if (failed(requireFloat(0)))
    return failure();
  if (t == "Sigmoid" || t == "Tanh" || t == "Softplus" || t == "Softsign") {
    StringRef act = t == "Sigmoid"    ? "sigmoid"
                    : t == "Tanh"     ? "tanh"
                    : t == "Softplus" ? "softrelu"
                                      : "softsign";
    return out(0, op("mx.Activation", x, {na("act_type", str(act))}));
  }
  auto leaky = [&](Value v, StringRef act, double slope) {
    return op("mx.LeakyReLU", v,
              {na("act_type", str(act)), na("slope", f64(slope))});
  };
  if (t == "LeakyRelu")
    return out(0, leaky(x, "leaky", attrFloat("alpha", 0.01)));
  if (t == "Elu")
    return out(0, leaky(x, "elu", attrFloat("alpha", 1.0)));
  if (t == "Selu") {
    double alpha = attrFloat("alpha", 1.67326319217681884765625);
    double gamma = attrFloat("gamma", 1.05070102214813232421875);
    return out(0, scalar(leaky(x, "elu", alpha), "mul", gamma));
  }
  if (t == "Celu") {
    // alpha * elu(x / alpha)
    double alpha = attrFloat("alpha", 1.0);
    return out(
        0, scalar(leaky(scalar(x, "div", alpha), "elu", 1.0), "mul", alpha));
  }
  if (t == "HardSigmoid" || t == "HardSwish") {
    double alpha = t == "HardSwish" ? 1.0 / 6 : attrFloat("alpha", 0.2);
    double beta = t == "HardSwish" ? 0.5 : attrFloat("beta", 0.5);
    Value h = op("mx.clip", scalar(scalar(x, "mul", alpha), "add", beta),
                 {na("a_min", f64(0.0)), na("a_max", f64(1.0))});
    return out(0, t == "HardSwish" ? binary(x, h, "mul") : h);
  }
  if (t == "ThresholdedRelu") {
    // x > alpha ? x : 0
    double alpha = attrFloat("alpha", 1.0);
    Const a(type(0), {}), zero(type(0), {});
    a.set(0, alpha);
    Value cond =
        op("mx.compare", {x, param(a, "alpha")}, {na("op", str("greater"))});
    return out(0, op("mx.where", {cond, x, param(zero, "zero")}));
  }
  // PRelu: max(0, x) + slope * min(0, x), the slope broadcasting to x.
  Value slope = val(1);
  auto xs = shape(0), ss = shape(1);
  if (opset < 7 && ss.size() == 1 && xs.size() > 2 && ss[0] == xs[1]) {
    // Before opset 7 a 1-D slope is per channel (axis 1).
    std::vector<int64_t> s(xs.size() - 1, 1);
    s[0] = ss[0];
    slope = reshape(slope, s);
  }
  Value pos = scalar(x, "maximum", 0.0), neg = scalar(x, "minimum", 0.0);
  return out(0, binary(pos, binary(neg, slope, "mul"), "add"));
}

LogicalResult Importer::importPads(StringRef autoPad, ArrayRef<int64_t> in,
                                   ArrayRef<int64_t> kernel,
                                   ArrayRef<int64_t> strides,
                                   SmallVectorImpl<int64_t> &begin,
                                   SmallVectorImpl<int64_t> &end) {
  size_t n = in.size();
  begin.assign(n, 0);
  end.assign(n, 0);
  if (autoPad == "NOTSET" || autoPad.empty()) {
    if (auto pads = attrInts("pads")) {
      if (pads->size() != 2 * n)
        return fail("pads has " + Twine(pads->size()) + " values, expected " +
                    Twine(2 * n));
      for (size_t i = 0; i < n; ++i) {
        begin[i] = (*pads)[i];
        end[i] = (*pads)[n + i];
        if (begin[i] < 0 || end[i] < 0)
          return fail("negative pads are not supported");
      }
    }
    return success();
  }
  attr("pads");
  if (autoPad == "VALID")
    return success();
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return fail("auto_pad '" + autoPad + "' is not supported");
  for (size_t i = 0; i < n; ++i) {
    int64_t o = (in[i] + strides[i] - 1) / strides[i];
    int64_t total =
        std::max<int64_t>(0, (o - 1) * strides[i] + kernel[i] - in[i]);
    int64_t small = total / 2;
    begin[i] = autoPad == "SAME_UPPER" ? small : total - small;
    end[i] = total - begin[i];
  }
  return success();
}

/// Pads for mx.pad over all axes of a NC... tensor: (before, after) per
/// spatial axis, zero on N and C.
static SmallVector<int64_t> fullPads(ArrayRef<int64_t> begin,
                                     ArrayRef<int64_t> end) {
  SmallVector<int64_t> p = {0, 0};
  p.append(begin.begin(), begin.end());
  p.append({0, 0});
  p.append(end.begin(), end.end());
  return p;
}

LogicalResult Importer::importConv() {
  if (failed(requireFloat(0)) || failed(requireFloat(1)))
    return failure();
  auto xs = shape(0), ws = shape(1);
  int64_t n = xs.size() - 2;
  if (n == 3)
    return fail("3-D convolution is not supported (1-D and 2-D only)");
  if (n != 1 && n != 2)
    return fail("input shape " + shapeText(xs) +
                " is not NCW or NCHW (1-D or 2-D convolution)");
  if (ws.size() != xs.size())
    return fail("weight shape " + shapeText(ws) + " does not match input " +
                shapeText(xs));
  std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  if (auto k = attrInts("kernel_shape"); k && *k != kernel)
    return fail("kernel_shape " + shapeText(*k) +
                " does not match the weight shape " + shapeText(ws));
  auto strides = attrInts("strides").value_or(std::vector<int64_t>(n, 1));
  auto dil = attrInts("dilations").value_or(std::vector<int64_t>(n, 1));
  if ((int64_t)strides.size() != n || (int64_t)dil.size() != n)
    return fail("strides and dilations need " + Twine(n) + " values");
  SmallVector<int64_t> span;
  for (int64_t i = 0; i < n; ++i)
    span.push_back((kernel[i] - 1) * dil[i] + 1);
  SmallVector<int64_t> begin, end;
  if (failed(importPads(attrStr("auto_pad", "NOTSET"),
                        llvm::ArrayRef(xs).drop_front(2), span, strides, begin,
                        end)))
    return failure();
  Value x = val(0);
  SmallVector<int64_t> pad(begin);
  if (begin != end) {
    x = op("mx.pad", x, {na("pads", arr(fullPads(begin, end)))});
    pad.assign(n, 0);
  }
  SmallVector<Value> operands = {x, val(1)};
  if (has(2))
    operands.push_back(val(2));
  return out(0, op("mx.Convolution", operands,
                   {na("kernel", arr(kernel)), na("stride", arr(strides)),
                    na("dilate", arr(dil)), na("pad", arr(pad)),
                    na("num_filter", i64(ws[0])),
                    na("num_group", i64(attrInt("group", 1))),
                    na("no_bias", boolean(!has(2)))}));
}

LogicalResult Importer::importConvTranspose() {
  if (failed(requireFloat(0)) || failed(requireFloat(1)))
    return failure();
  auto xs = shape(0), ws = shape(1);
  int64_t n = xs.size() - 2;
  if (n == 3)
    return fail("3-D transposed convolution is not supported (1-D and 2-D "
                "only)");
  if ((n != 1 && n != 2) || ws.size() != xs.size())
    return fail("input shape " + shapeText(xs) + " and weight shape " +
                shapeText(ws) + " are not a 1-D or 2-D transposed convolution");
  int64_t group = attrInt("group", 1);
  std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  if (auto k = attrInts("kernel_shape"); k && *k != kernel)
    return fail("kernel_shape " + shapeText(*k) +
                " does not match the weight shape " + shapeText(ws));
  auto strides = attrInts("strides").value_or(std::vector<int64_t>(n, 1));
  auto dil = attrInts("dilations").value_or(std::vector<int64_t>(n, 1));
  auto adj = attrInts("output_padding").value_or(std::vector<int64_t>(n, 0));
  if ((int64_t)strides.size() != n || (int64_t)dil.size() != n ||
      (int64_t)adj.size() != n)
    return fail("strides, dilations and output_padding need " + Twine(n) +
                " values");
  std::string autoPad = attrStr("auto_pad", "NOTSET");
  auto outShape = attrInts("output_shape");
  SmallVector<int64_t> begin(n, 0), end(n, 0);
  if (outShape && outShape->size() == xs.size())
    outShape = std::vector<int64_t>(outShape->begin() + 2, outShape->end());
  if (outShape || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    attr("pads");
    for (int64_t i = 0; i < n; ++i) {
      int64_t target = outShape ? (*outShape)[i] : xs[2 + i] * strides[i];
      int64_t full =
          strides[i] * (xs[2 + i] - 1) + adj[i] + (kernel[i] - 1) * dil[i] + 1;
      int64_t total = full - target;
      if (total < 0 && adj[i] - total < strides[i]) {
        // A larger output only adds positions no input reaches (adj).
        adj[i] -= total;
        total = 0;
      }
      if (total < 0)
        return fail("output_shape " + shapeText(*outShape) +
                    " is larger than the full transposed convolution");
      if (autoPad == "SAME_UPPER") {
        begin[i] = total / 2;
        end[i] = total - begin[i];
      } else {
        end[i] = total / 2;
        begin[i] = total - end[i];
      }
    }
  } else if (autoPad == "NOTSET" || autoPad == "VALID") {
    if (auto pads = attrInts("pads"); pads && autoPad == "NOTSET") {
      if ((int64_t)pads->size() != 2 * n)
        return fail("pads needs " + Twine(2 * n) + " values");
      for (int64_t i = 0; i < n; ++i) {
        begin[i] = (*pads)[i];
        end[i] = (*pads)[n + i];
      }
    }
  } else {
    return fail("auto_pad '" + autoPad + "' is not supported");
  }
  // Deconvolution pads symmetrically; crop what remains on one side.
  SmallVector<int64_t> pad;
  for (int64_t i = 0; i < n; ++i)
    pad.push_back(std::min(begin[i], end[i]));
  SmallVector<Value> operands = {val(0), val(1)};
  if (has(2))
    operands.push_back(val(2));
  Value y = op("mx.Deconvolution", operands,
               {na("kernel", arr(kernel)), na("stride", arr(strides)),
                na("dilate", arr(dil)), na("pad", arr(pad)),
                na("adj", arr(adj)), na("num_filter", i64(ws[1] * group)),
                na("num_group", i64(group)), na("no_bias", boolean(!has(2)))});
  if (y && begin != end) {
    auto ys = cast<RankedTensorType>(y.getType()).getShape();
    SmallVector<int64_t> sb = {0, 0}, se = {ys[0], ys[1]};
    for (int64_t i = 0; i < n; ++i) {
      sb.push_back(begin[i] - pad[i]);
      se.push_back(ys[2 + i] - (end[i] - pad[i]));
    }
    y = op("mx.slice", y, {na("begin", arr(sb)), na("end", arr(se))});
  }
  return out(0, y);
}

LogicalResult Importer::importPool(bool isMax) {
  // Max pooling also takes integers (MaxPool: int8 and uint8).
  if (!(isMax && !isFloatType(type(0)) && type(0) != TP::BOOL) &&
      failed(requireFloat(0)))
    return failure();
  auto xs = shape(0);
  int64_t n = xs.size() - 2;
  if (n < 1 || n > 3)
    return fail("input shape " + shapeText(xs) + " is not NCW, NCHW or NCDHW");
  auto kernel = attrInts("kernel_shape");
  if (!kernel || (int64_t)kernel->size() != n)
    return fail("kernel_shape needs " + Twine(n) + " values");
  auto strides = attrInts("strides").value_or(std::vector<int64_t>(n, 1));
  if ((int64_t)strides.size() != n)
    return fail("strides needs " + Twine(n) + " values");
  auto dilations = attrInts("dilations").value_or(std::vector<int64_t>(n, 1));
  if ((int64_t)dilations.size() != n)
    return fail("dilations needs " + Twine(n) + " values");
  bool dilated = llvm::any_of(dilations, [](int64_t d) { return d != 1; });
  if (dilated && !isMax)
    return fail("dilations " + shapeText(dilations) +
                " are not supported for average pooling");
  int64_t storageOrder = attrInt("storage_order", 0); // only for Indices
  bool ceil = attrInt("ceil_mode", 0);
  bool includePad = !isMax && attrInt("count_include_pad", 0);
  std::vector<int64_t> extent(n);
  for (int64_t i = 0; i < n; ++i)
    extent[i] = ((*kernel)[i] - 1) * dilations[i] + 1;
  SmallVector<int64_t> begin, end;
  if (failed(importPads(attrStr("auto_pad", "NOTSET"),
                        llvm::ArrayRef(xs).drop_front(2), extent, strides,
                        begin, end)))
    return failure();
  if (wants(1) && !isMax)
    return fail("AveragePool has a single output");
  if (wants(1)) {
    // Indices address the unpadded input, so the op pads itself.
    SmallVector<int64_t> pads(begin);
    pads.append(end);
    SmallVector<Value> ys =
        create("mx.max_pool_with_indices", val(0),
               {na("kernel", arr(*kernel)), na("stride", arr(strides)),
                na("dilate", arr(dilations)), na("pad", arr(pads)),
                na("ceil_mode", boolean(ceil)),
                na("storage_order", i64(storageOrder))});
    if (ys.empty())
      return failure();
    (void)out(0, ys[0]);
    return out(1, ys[1]);
  }
  Value x = val(0);
  SmallVector<int64_t> pad(begin);
  bool asymmetric = begin != end;
  if (asymmetric) {
    // Explicit padding that never wins a max or that an including average
    // counts; an excluding average divides a sum by the valid counts.
    double v = !isMax                 ? 0.0
               : isFloatType(type(0)) ? -std::numeric_limits<double>::infinity()
                                      : lowestInt(type(0));
    x = op("mx.pad", x,
           {na("pads", arr(fullPads(begin, end))), na("value", f64(v))});
    pad.assign(n, 0);
  }
  StringRef poolType = isMax                       ? "max"
                       : asymmetric && !includePad ? "sum"
                                                   : "avg";
  Value y = op("mx.Pooling", x,
               {na("kernel", arr(*kernel)), na("stride", arr(strides)),
                na("dilate", arr(dilations)), na("pad", arr(pad)),
                na("pool_type", str(poolType)),
                na("pooling_convention", str(ceil ? "full" : "valid")),
                na("count_include_pad", boolean(includePad))});
  if (y && poolType == "sum") {
    auto ys = cast<RankedTensorType>(y.getType()).getShape();
    std::vector<int64_t> cshape = {1, 1};
    cshape.insert(cshape.end(), ys.begin() + 2, ys.end());
    Const counts(type(0), cshape);
    for (int64_t k = 0; k < counts.size(); ++k) {
      int64_t rem = k, count = 1;
      for (int64_t i = n; i-- > 0;) {
        int64_t o = rem % ys[2 + i];
        rem /= ys[2 + i];
        int64_t lo = o * strides[i], hi = lo + (*kernel)[i];
        lo = std::max(lo, begin[i]);
        hi = std::min(hi, begin[i] + xs[2 + i]);
        count *= std::max<int64_t>(hi - lo, 1);
      }
      counts.set(k, (double)count);
    }
    y = binary(y, param(counts, nodeName + "_counts"), "div");
  }
  return out(0, y);
}

LogicalResult Importer::importGlobalPool(bool isMax) {
  if (failed(requireFloat(0)))
    return failure();
  int64_t r = rank(0);
  if (r == 3 || r == 4)
    return out(0, op("mx.Pooling", val(0),
                     {na("global_pool", boolean(true)),
                      na("pool_type", str(isMax ? "max" : "avg"))}));
  if (r < 3)
    return fail("input must have rank >= 3");
  SmallVector<int64_t> axes;
  for (int64_t i = 2; i < r; ++i)
    axes.push_back(i);
  return out(0, op("mx.reduce", val(0),
                   {na("op", str(isMax ? "max" : "mean")),
                    na("axis", arr(axes)), na("keepdims", boolean(true))}));
}

LogicalResult Importer::importBatchNorm() {
  ignoreAttrs({"is_test", "consumed_inputs"});
  if (attrInt("spatial", 1) != 1)
    return fail("spatial=0 is not supported");
  if (failed(requireFloat(0)))
    return failure();
  if (rank(0) < 2)
    return fail("input must have rank >= 2");
  if (attrInt("training_mode", 0))
    return importBatchNormTraining();
  attr("momentum");
  if (wants(1) || wants(2) || wants(3) || wants(4))
    return fail("the running statistics outputs need training_mode=1");
  return out(0,
             op("mx.BatchNorm", {val(0), val(1), val(2), val(3), val(4)},
                {na("eps", f64(attrFloat("epsilon", 1e-5))),
                 na("fix_gamma", boolean(false)),
                 na("use_global_stats", boolean(true)), na("axis", i64(1))}));
}

/// BatchNormalization with training_mode=1 (opset 14+): normalizes with the
/// batch mean and population variance over every axis but 1, and outputs
/// the running statistics: running = input * momentum + batch * (1 -
/// momentum).
LogicalResult Importer::importBatchNormTraining() {
  if (wants(3) || wants(4))
    return fail("the saved mean / variance outputs are not supported");
  auto xs = shape(0);
  int64_t r = xs.size();
  SmallVector<int64_t> axes = {0};
  for (int64_t i = 2; i < r; ++i)
    axes.push_back(i);
  auto mean = [&](Value v) {
    return op("mx.reduce", v,
              {na("op", str("mean")), na("axis", arr(axes)),
               na("keepdims", boolean(true))});
  };
  std::vector<int64_t> cs(r, 1);
  cs[1] = xs[1];
  Value x = val(0);
  Value batchMean = mean(x);
  Value d = binary(x, batchMean, "sub");
  Value batchVar = mean(binary(d, d, "mul"));
  Value inv =
      unary(scalar(batchVar, "add", attrFloat("epsilon", 1e-5)), "rsqrt");
  Value y = binary(binary(d, inv, "mul"), reshape(val(1), cs), "mul");
  if (failed(out(0, binary(y, reshape(val(2), cs), "add"))))
    return failure();
  double momentum = attrFloat("momentum", 0.9);
  std::vector<int64_t> channels = {xs[1]};
  auto running = [&](unsigned k, unsigned input, Value batch) {
    Value old = scalar(val(input), "mul", momentum);
    return out(k, binary(old,
                         scalar(reshape(batch, channels), "mul", 1 - momentum),
                         "add"));
  };
  if (wants(1) && failed(running(1, 3, batchMean)))
    return failure();
  if (wants(2) && failed(running(2, 4, batchVar)))
    return failure();
  return success();
}

LogicalResult Importer::importInstanceNorm() {
  if (failed(requireFloat(0)))
    return failure();
  auto xs = shape(0);
  int64_t r = xs.size();
  if (r < 3)
    return fail("input must have rank >= 3");
  SmallVector<int64_t> axes;
  for (int64_t i = 2; i < r; ++i)
    axes.push_back(i);
  auto mean = [&](Value v) {
    return op("mx.reduce", v,
              {na("op", str("mean")), na("axis", arr(axes)),
               na("keepdims", boolean(true))});
  };
  Value x = val(0);
  Value d = binary(x, mean(x), "sub");
  Value var = mean(binary(d, d, "mul"));
  Value inv = unary(scalar(var, "add", attrFloat("epsilon", 1e-5)), "rsqrt");
  std::vector<int64_t> cs(r - 1, 1);
  cs[0] = xs[1];
  Value y = binary(binary(d, inv, "mul"), reshape(val(1), cs), "mul");
  return out(0, binary(y, reshape(val(2), cs), "add"));
}

LogicalResult Importer::importLayerNorm() {
  if (failed(requireFloat(0)))
    return failure();
  if (attrInt("stash_type", 1) != 1)
    return fail("stash_type " + Twine(attrInt("stash_type", 1)) +
                " is not supported (only 1, float32 statistics)");
  auto xs = shape(0);
  int64_t r = xs.size(), axis = attrInt("axis", -1);
  if (axis < 0)
    axis += r;
  if (axis < 0 || axis >= r)
    return fail("axis " + Twine(attrInt("axis", -1)) +
                " is out of range for rank " + Twine(r));
  int64_t lead = numElements(llvm::ArrayRef(xs).take_front(axis));
  int64_t k = numElements(xs) / lead;
  auto vector = [&](unsigned i, double dflt) -> Value {
    if (!has(i)) {
      Const c(type(0), {k});
      for (int64_t j = 0; j < k; ++j)
        c.set(j, dflt);
      return param(c, nodeName + (i == 1 ? "_scale" : "_bias"));
    }
    std::vector<int64_t> s(xs.begin() + axis, xs.end());
    if (numElements(shape(i)) != k)
      return reshape(op("mx.broadcast_to", val(i), {na("shape", arr(s))}), {k});
    return reshape(val(i), {k});
  };
  double eps = attrFloat("epsilon", 1e-5);
  Value flat = reshape(val(0), {lead, k});
  Value y = op("mx.LayerNorm", {flat, vector(1, 1.0), vector(2, 0.0)},
               {na("axis", i64(-1)), na("eps", f64(eps))});
  if (failed(out(0, reshape(y, xs))))
    return failure();
  if (!wants(1) && !wants(2))
    return success();
  // The statistics outputs, of shape xs[:axis] + (1,)*: recomputed.
  std::vector<int64_t> statShape(xs.begin(), xs.begin() + axis);
  statShape.resize(r, 1);
  auto mean = [&](Value v) {
    return op("mx.reduce", v,
              {na("op", str("mean")), na("axis", arr({1})),
               na("keepdims", boolean(true))});
  };
  Value mu = mean(flat);
  Value d = binary(flat, mu, "sub");
  Value inv = unary(scalar(mean(binary(d, d, "mul")), "add", eps), "rsqrt");
  if (failed(out(1, reshape(mu, statShape))))
    return failure();
  return out(2, reshape(inv, statShape));
}

LogicalResult Importer::importGemm() {
  ignoreAttrs({"broadcast"});
  bool ta = attrInt("transA", 0), tb = attrInt("transB", 0);
  double alpha = attrFloat("alpha", 1.0), beta = attrFloat("beta", 1.0);
  if (rank(0) != 2 || rank(1) != 2)
    return fail("A and B must be 2-D, got " + shapeText(shape(0)) + " and " +
                shapeText(shape(1)));
  Value y;
  if (isFloatType(type(0))) {
    y = op("mx.dot", {val(0), val(1)},
           {na("transpose_a", boolean(ta)), na("transpose_b", boolean(tb))});
  } else {
    Value a = val(0), bm = val(1);
    if (ta)
      a = op("mx.transpose", a);
    if (tb)
      bm = op("mx.transpose", bm);
    y = op("mx.matmul", {a, bm});
  }
  if (alpha != 1.0)
    y = scalar(y, "mul", alpha);
  if (has(2) && beta != 0.0) {
    Value c;
    if (const Const *cc = cst(2); cc && beta != 1.0) {
      Const scaled = *cc;
      for (int64_t k = 0; k < scaled.size(); ++k)
        scaled.set(k, cc->f(k) * beta);
      c = param(scaled, node->input(2) + "_scaled");
    } else {
      c = val(2);
      if (beta != 1.0)
        c = scalar(c, "mul", beta);
    }
    y = binary(y, c, "add");
  }
  return out(0, y);
}

/// Output 0 as `fn` of input 0 along `axis`. Before opset 13 the softmax
/// family views the input as 2-D, split before `axis`, and applies `fn`
/// along the second axis.
LogicalResult Importer::outAlongAxis(int64_t axis,
                                     function_ref<Value(Value, int64_t)> fn) {
  auto xs = shape(0);
  if (opset >= 13 || axis == (int64_t)xs.size() - 1)
    return out(0, fn(val(0), axis));
  int64_t lead = numElements(llvm::ArrayRef(xs).take_front(axis));
  Value flat = reshape(val(0), {lead, numElements(xs) / lead});
  return out(0, reshape(fn(flat, 1), xs));
}

LogicalResult Importer::importSoftmax(bool log) {
  if (failed(requireFloat(0)))
    return failure();
  auto xs = shape(0);
  int64_t r = xs.size(), axis = attrInt("axis", opset < 13 ? 1 : -1);
  if (axis < 0)
    axis += r;
  if (axis < 0 || axis >= std::max<int64_t>(r, 1))
    return fail("axis " + Twine(attrInt("axis", 0)) +
                " is out of range for rank " + Twine(r));
  auto softmax = [&](Value v, int64_t a) {
    return op("mx.softmax", v, {na("axis", i64(a)), na("log", boolean(log))});
  };
  return outAlongAxis(axis, softmax);
}

LogicalResult Importer::importReshape() {
  std::vector<int64_t> target;
  if (has(1)) {
    auto s = constInts(1, "shape");
    if (failed(s))
      return failure();
    target = *s;
  } else if (auto s = attrInts("shape")) {
    target = *s;
  } else {
    return fail("has no shape");
  }
  ignoreAttrs({"consumed_inputs"});
  bool allowZero = attrInt("allowzero", 0);
  auto in = shape(0);
  int64_t inferred = -1, known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && !allowZero) {
      if (i >= in.size())
        return fail("shape " + shapeText(target) + " copies dimension " +
                    Twine(i) + " of input " + shapeText(in));
      target[i] = in[i];
    }
    if (target[i] == -1) {
      if (inferred >= 0)
        return fail("shape " + shapeText(target) + " has more than one -1");
      inferred = i;
      continue;
    }
    if (target[i] < 0)
      return fail("shape " + shapeText(target) + " has a negative extent");
    known *= target[i];
  }
  if (inferred >= 0) {
    if (known == 0 || numElements(in) % known)
      return fail("cannot reshape " + shapeText(in) + " to " +
                  shapeText(target));
    target[inferred] = numElements(in) / known;
  }
  return outReshaped(0, 0, target);
}

LogicalResult Importer::importSqueeze(bool unsqueeze) {
  std::optional<std::vector<int64_t>> axes;
  if (opset >= 13) {
    if (has(1)) {
      auto a = constInts(1, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
  } else {
    axes = attrInts("axes");
  }
  auto in = shape(0);
  int64_t r = in.size();
  std::vector<int64_t> outShape;
  if (unsqueeze) {
    if (!axes)
      return fail("needs axes");
    int64_t ro = r + axes->size();
    std::vector<bool> isNew(ro, false);
    for (int64_t a : *axes) {
      int64_t n = a < 0 ? a + ro : a;
      if (n < 0 || n >= ro || isNew[n])
        return fail("axes " + shapeText(*axes) + " are invalid for rank " +
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
          return fail("cannot squeeze axis " + Twine(a) + " of shape " +
                      shapeText(in));
        drop[n] = true;
      }
    }
    for (int64_t i = 0; i < r; ++i)
      if (!drop[i])
        outShape.push_back(in[i]);
  }
  return outReshaped(0, 0, outShape);
}

LogicalResult Importer::importTranspose() {
  auto in = shape(0);
  int64_t r = in.size();
  std::vector<int64_t> perm;
  if (auto p = attrInts("perm")) {
    perm = *p;
  } else {
    for (int64_t i = r - 1; i >= 0; --i)
      perm.push_back(i);
  }
  if ((int64_t)perm.size() != r)
    return fail("perm " + shapeText(perm) + " does not fit rank " + Twine(r));
  if (const Const *c = cst(0)) {
    // out[p] = in[q] where q[perm[i]] = p[i].
    std::vector<int64_t> os, strides(r, 1);
    for (int64_t i = r - 1; i > 0; --i)
      strides[i - 1] = strides[i] * in[i];
    for (int64_t p : perm) {
      if (p < 0 || p >= r)
        return fail("perm " + shapeText(perm) + " is not a permutation");
      os.push_back(in[p]);
    }
    Const o(c->type, os);
    std::vector<int64_t> pos(r, 0);
    for (int64_t k = 0; k < o.size(); ++k) {
      int64_t from = 0;
      for (int64_t i = 0; i < r; ++i)
        from += pos[i] * strides[perm[i]];
      o.copy(k, *c, from);
      for (int64_t i = r; i-- > 0;) {
        if (++pos[i] < os[i])
          break;
        pos[i] = 0;
      }
    }
    return outConst(0, std::move(o));
  }
  return out(0, op("mx.transpose", val(0), {na("axes", arr(perm))}));
}

LogicalResult Importer::importConcat() {
  int64_t r = rank(0), axis = attrInt("axis", 1);
  if (axis < 0)
    axis += r;
  if (axis < 0 || axis >= r)
    return fail("axis " + Twine(attrInt("axis", 1)) +
                " is out of range for rank " + Twine(r));
  if (allConst()) {
    std::vector<int64_t> os = shape(0);
    os[axis] = 0;
    for (int i = 0; i < node->input_size(); ++i) {
      auto s = shape(i);
      if ((int64_t)s.size() != r || type(i) != type(0))
        return fail("inputs differ in rank or element type");
      os[axis] += s[axis];
    }
    Const o(type(0), os);
    int64_t inner = numElements(llvm::ArrayRef(os).drop_front(axis + 1));
    int64_t outer = numElements(llvm::ArrayRef(os).take_front(axis));
    int64_t k = 0;
    for (int64_t q = 0; q < outer; ++q)
      for (int i = 0; i < node->input_size(); ++i) {
        const Const &c = *cst(i);
        int64_t chunk = c.shape[axis] * inner;
        for (int64_t j = 0; j < chunk; ++j)
          o.copy(k++, c, q * chunk + j);
      }
    return outConst(0, std::move(o));
  }
  SmallVector<Value> operands;
  for (int i = 0; i < node->input_size(); ++i)
    if (numElements(shape(i)) != 0) // ONNX allows empty inputs
      operands.push_back(val(i));
  if (operands.size() == 1)
    return out(0, operands[0]);
  return out(0, op("mx.Concat", operands, {na("dim", i64(axis))}));
}

LogicalResult Importer::importSplit() {
  auto in = shape(0);
  int64_t r = in.size(), axis = attrInt("axis", 0);
  if (axis < 0)
    axis += r;
  if (axis < 0 || axis >= r)
    return fail("axis " + Twine(attrInt("axis", 0)) +
                " is out of range for rank " + Twine(r));
  int64_t parts = node->output_size();
  std::vector<int64_t> sizes;
  if (opset >= 13 && has(1)) {
    auto s = constInts(1, "split");
    if (failed(s))
      return failure();
    sizes = *s;
  } else if (auto s = attrInts("split")) {
    sizes = *s;
  } else {
    if (in[axis] % parts)
      return fail("extent " + Twine(in[axis]) + " of axis " + Twine(axis) +
                  " does not split into " + Twine(parts) + " equal parts");
    sizes.assign(parts, in[axis] / parts);
  }
  int64_t total = 0;
  for (int64_t s : sizes)
    total += s;
  if ((int64_t)sizes.size() != parts || total != in[axis])
    return fail("split " + shapeText(sizes) + " does not divide extent " +
                Twine(in[axis]) + " into " + Twine(parts) + " outputs");
  int64_t start = 0;
  for (int64_t k = 0; k < parts; ++k, start += sizes[k - 1]) {
    if (!wants(k))
      continue;
    if (const Const *c = cst(0)) {
      std::vector<std::vector<int64_t>> idx;
      for (int64_t i = 0; i < r; ++i) {
        std::vector<int64_t> v;
        int64_t lo = i == axis ? start : 0;
        int64_t n = i == axis ? sizes[k] : in[i];
        for (int64_t j = 0; j < n; ++j)
          v.push_back(lo + j);
        idx.push_back(std::move(v));
      }
      (void)outConst(k, selectIndices(*c, idx));
      continue;
    }
    SmallVector<int64_t> sb(axis + 1, 0), se(in.begin(), in.begin() + axis + 1);
    sb[axis] = start;
    se[axis] = start + sizes[k];
    if (failed(out(k, op("mx.slice", val(0),
                         {na("begin", arr(sb)), na("end", arr(se))}))))
      return failure();
  }
  return success();
}

LogicalResult Importer::importSlice() {
  std::vector<int64_t> starts, ends, axes, steps;
  if (opset < 10) {
    starts = attrInts("starts").value_or(std::vector<int64_t>{});
    ends = attrInts("ends").value_or(std::vector<int64_t>{});
    axes = attrInts("axes").value_or(std::vector<int64_t>{});
  } else {
    auto s = constInts(1, "starts");
    auto e = constInts(2, "ends");
    if (failed(s) || failed(e))
      return failure();
    starts = *s;
    ends = *e;
    if (has(3)) {
      auto a = constInts(3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (has(4)) {
      auto st = constInts(4, "steps");
      if (failed(st))
        return failure();
      steps = *st;
    }
  }
  auto in = shape(0);
  int64_t r = in.size();
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return fail("starts, ends, axes and steps differ in length");
  std::vector<SliceAxis> perAxis;
  for (int64_t i = 0; i < r; ++i)
    perAxis.push_back({0, 1, in[i]});
  std::vector<bool> seen(r, false);
  int64_t last = -1;
  for (size_t j = 0; j < starts.size(); ++j) {
    int64_t a = axes[j] < 0 ? axes[j] + r : axes[j];
    if (a < 0 || a >= r || seen[a])
      return fail("axes " + shapeText(axes) + " are invalid for rank " +
                  Twine(r));
    if (steps[j] == 0)
      return fail("steps must not be 0");
    seen[a] = true;
    last = std::max(last, a);
    perAxis[a] = normalizeSlice(in[a], starts[j], ends[j], steps[j]);
  }
  if (const Const *c = cst(0)) {
    std::vector<std::vector<int64_t>> idx;
    for (const SliceAxis &s : perAxis) {
      std::vector<int64_t> v;
      for (int64_t k = 0; k < s.count; ++k)
        v.push_back(s.start + k * s.step);
      idx.push_back(std::move(v));
    }
    return outConst(0, selectIndices(*c, idx));
  }
  SmallVector<int64_t> sb, se, ss;
  for (int64_t i = 0; i <= last; ++i) {
    const SliceAxis &s = perAxis[i];
    int64_t stop = s.start + s.count * s.step;
    sb.push_back(s.start);
    // A negative step that runs past index 0 needs Python's "before 0".
    se.push_back(stop < 0 ? -in[i] - 1 : stop);
    ss.push_back(s.step);
  }
  if (last < 0)
    return forward(0, 0);
  return out(
      0, op("mx.slice", val(0),
            {na("begin", arr(sb)), na("end", arr(se)), na("step", arr(ss))}));
}

LogicalResult Importer::importGather() {
  auto in = shape(0);
  int64_t r = in.size(), axis = attrInt("axis", 0);
  if (axis < 0)
    axis += r;
  if (axis < 0 || axis >= r)
    return fail("axis " + Twine(attrInt("axis", 0)) +
                " is out of range for rank " + Twine(r));
  if (isFloatType(type(1)))
    return fail("indices must be integers");
  if (const Const *ic = cst(1)) {
    Const idx(TP::INT64, ic->shape);
    for (int64_t k = 0; k < idx.size(); ++k) {
      int64_t v = ic->i(k);
      if (v < -in[axis] || v >= in[axis])
        return fail("index " + Twine(v) + " is out of range for extent " +
                    Twine(in[axis]));
      idx.setInt(k, v < 0 ? v + in[axis] : v);
    }
    if (const Const *dc = cst(0)) {
      // Host gather: select along `axis`, then give the indices their shape.
      std::vector<std::vector<int64_t>> sel;
      for (int64_t i = 0; i < r; ++i) {
        std::vector<int64_t> v;
        if (i == axis)
          v = idx.intValues();
        else
          for (int64_t j = 0; j < in[i]; ++j)
            v.push_back(j);
        sel.push_back(std::move(v));
      }
      Const o = selectIndices(*dc, sel);
      o.shape.assign(in.begin(), in.begin() + axis);
      o.shape.insert(o.shape.end(), idx.shape.begin(), idx.shape.end());
      o.shape.insert(o.shape.end(), in.begin() + axis + 1, in.end());
      return outConst(0, std::move(o));
    }
    return out(0, op("mx.gather", {val(0), param(idx, node->input(1))},
                     {na("axis", i64(axis))}));
  }
  return out(0, op("mx.gather", {val(0), val(1)}, {na("axis", i64(axis))}));
}

LogicalResult Importer::importExpand() {
  auto s = constInts(1, "shape");
  if (failed(s))
    return failure();
  auto in = shape(0);
  auto target = broadcastShapes({in, *s});
  if (!target)
    return fail("input shape " + shapeText(in) + " does not broadcast with " +
                shapeText(*s));
  if (const Const *c = cst(0)) {
    Const o(c->type, *target);
    auto idx = broadcastIndex(in, *target);
    for (int64_t k = 0; k < o.size(); ++k)
      o.copy(k, *c, idx[k]);
    return outConst(0, std::move(o));
  }
  if (*target == in)
    return forward(0, 0);
  return out(0, op("mx.broadcast_to", val(0), {na("shape", arr(*target))}));
}

LogicalResult Importer::importTile() {
  auto reps = constInts(1, "repeats");
  if (failed(reps))
    return failure();
  auto in = shape(0);
  if (reps->size() != in.size())
    return fail("repeats " + shapeText(*reps) + " does not fit rank " +
                Twine(in.size()));
  // (d0, d1, ...) -> (1, d0, 1, d1, ...) -> (r0, d0, r1, d1, ...) -> merged.
  SmallVector<int64_t> split, wide, merged;
  for (size_t i = 0; i < in.size(); ++i) {
    split.append({1, in[i]});
    wide.append({(*reps)[i], in[i]});
    merged.push_back((*reps)[i] * in[i]);
  }
  Value x = reshape(val(0), split);
  x = op("mx.broadcast_to", x, {na("shape", arr(wide))});
  return out(0, reshape(x, merged));
}

LogicalResult Importer::importPad() {
  std::string mode = attrStr("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return fail("mode '" + mode + "' is not supported");
  std::vector<int64_t> pads;
  double value = 0.0;
  if (opset < 11) {
    pads = attrInts(opset < 2 ? "paddings" : "pads")
               .value_or(std::vector<int64_t>{});
    value = attrFloat("value", 0.0);
  } else {
    auto p = constInts(1, "pads");
    if (failed(p))
      return failure();
    pads = *p;
    if (has(2)) {
      auto v = constScalar(2, "constant_value");
      if (failed(v))
        return failure();
      value = *v;
    }
    if (has(3))
      return fail("the axes input is not supported");
  }
  if ((int64_t)pads.size() != 2 * rank(0))
    return fail("pads has " + Twine(pads.size()) + " values, expected " +
                Twine(2 * rank(0)));
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return forward(0, 0);
  return out(0, op("mx.pad", val(0),
                   {na("pads", arr(pads)), na("mode", str(mode)),
                    na("value", f64(value))}));
}

LogicalResult Importer::importCast(int32_t to) {
  if (node->op_type() == "Cast")
    attr("saturate");
  if (const Const *c = cst(0)) {
    if (!isFloatType(to) && to != TP::INT64 && to != TP::INT32 &&
        to != TP::INT8 && to != TP::UINT8 && to != TP::BOOL &&
        to != TP::INT16 && to != TP::UINT16 && to != TP::UINT32)
      return fail("cast to " + typeName(to) + " is not supported");
    Const o(to, c->shape);
    for (int64_t k = 0; k < c->size(); ++k) {
      if (c->isFloat())
        o.set(k, c->isFloat() && !o.isFloat() && to != TP::BOOL
                     ? std::trunc(c->f(k))
                     : c->f(k));
      else
        o.setInt(k, c->i(k));
    }
    return outConst(0, std::move(o));
  }
  Type et = elementType(to, &ctx);
  if (!et)
    return fail("cast to " + typeName(to) + " is not supported");
  return out(0, castTo(val(0), to));
}

LogicalResult Importer::importClip() {
  int32_t t = type(0);
  double lo, hi;
  if (isFloatType(t)) {
    lo = -std::numeric_limits<double>::infinity();
    hi = std::numeric_limits<double>::infinity();
  } else {
    // The largest bounds that survive a round trip through f64.
    int64_t bits = t == TP::INT64 ? 64 : t == TP::INT32 ? 32 : 8;
    lo = bits == 64 ? -9223372036854774784.0 : -std::ldexp(1.0, bits - 1);
    hi = bits == 64 ? 9223372036854774784.0 : std::ldexp(1.0, bits - 1) - 1;
  }
  if (opset < 11) {
    ignoreAttrs({"consumed_inputs"});
    lo = attrFloat("min", lo);
    hi = attrFloat("max", hi);
  } else {
    // Bounds computed at run time clamp with maximum / minimum.
    if ((has(1) && !cst(1)) || (has(2) && !cst(2))) {
      Value y = val(0);
      for (unsigned i : {1u, 2u}) {
        if (!has(i))
          continue;
        if (rank(i) != 0 && numElements(shape(i)) != 1)
          return fail("min and max must be scalars");
        y = binary(y, reshape(val(i), {}), i == 1 ? "maximum" : "minimum");
      }
      return out(0, y);
    }
    if (has(1)) {
      auto v = constScalar(1, "min");
      if (failed(v))
        return failure();
      lo = *v;
    }
    if (has(2)) {
      auto v = constScalar(2, "max");
      if (failed(v))
        return failure();
      hi = *v;
    }
  }
  if (lo > hi)
    return fail("min " + std::to_string(lo) + " exceeds max " +
                std::to_string(hi));
  return out(
      0, op("mx.clip", val(0), {na("a_min", f64(lo)), na("a_max", f64(hi))}));
}

LogicalResult Importer::importWhere() {
  if (type(0) != TP::BOOL)
    return fail("the condition must be a bool tensor");
  if (allConst()) {
    auto os = broadcastShapes({shape(0), shape(1), shape(2)});
    if (!os)
      return fail("shapes do not broadcast");
    Const o(type(1), *os);
    auto ic = broadcastIndex(shape(0), *os), ix = broadcastIndex(shape(1), *os),
         iy = broadcastIndex(shape(2), *os);
    for (int64_t k = 0; k < o.size(); ++k)
      o.copy(k, cst(0)->i(ic[k]) ? *cst(1) : *cst(2),
             cst(0)->i(ic[k]) ? ix[k] : iy[k]);
    return outConst(0, std::move(o));
  }
  return out(0, op("mx.where", {val(0), val(1), val(2)}));
}

LogicalResult Importer::importReduce(StringRef t) {
  StringRef fn = llvm::StringSwitch<StringRef>(t)
                     .Case("ReduceSum", "sum")
                     .Case("ReduceMean", "mean")
                     .Case("ReduceMax", "max")
                     .Case("ReduceMin", "min")
                     .Case("ReduceProd", "prod")
                     .Case("ReduceL1", "l1")
                     .Case("ReduceL2", "l2")
                     .Case("ReduceSumSquare", "sumsquare")
                     .Case("ReduceLogSumExp", "logsumexp")
                     .Case("ReduceLogSum", "sum")
                     .Default("");
  if (fn.empty())
    return fail("operator '" + t + "' is not supported");
  bool keep = attrInt("keepdims", 1);
  bool axesInput = t == "ReduceSum" ? opset >= 13 : opset >= 18;
  std::vector<int64_t> axes;
  if (axesInput) {
    if (has(1)) {
      auto a = constInts(1, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
  } else if (auto a = attrInts("axes")) {
    axes = *a;
  }
  if (axes.empty() && attrInt("noop_with_empty_axes", 0))
    return forward(0, 0);
  auto in = shape(0);
  int64_t r = in.size();
  std::vector<bool> reduced(r, axes.empty());
  for (int64_t a : axes) {
    int64_t n = a < 0 ? a + r : a;
    if (n < 0 || n >= r)
      return fail("axis " + Twine(a) + " is out of range for rank " + Twine(r));
    reduced[n] = true;
  }
  SmallVector<int64_t> all, onnxShape;
  for (int64_t i = 0; i < r; ++i) {
    if (reduced[i])
      all.push_back(i);
    if (!reduced[i])
      onnxShape.push_back(in[i]);
    else if (keep)
      onnxShape.push_back(1);
  }
  Value y = op(
      "mx.reduce", val(0),
      {na("op", str(fn)), na("axis", arr(all)), na("keepdims", boolean(keep))});
  if (t == "ReduceLogSum")
    y = unary(y, "log");
  // mx.reduce gives (1,) where ONNX gives a scalar.
  return out(0, reshape(y, onnxShape));
}

LogicalResult Importer::importArgReduce(StringRef fn) {
  return out(0, op("mx.argreduce", val(0),
                   {na("op", str(fn)), na("axis", i64(attrInt("axis", 0))),
                    na("keepdims", boolean(attrInt("keepdims", 1))),
                    na("select_last_index",
                       boolean(attrInt("select_last_index", 0)))}));
}

LogicalResult Importer::importDropout() {
  ignoreAttrs({"is_test", "ratio", "consumed_inputs"});
  if (has(2)) {
    const Const *train = cst(2);
    if (!train)
      return fail("training_mode must be a compile-time constant");
    // Training with ratio 0 keeps everything, as inference does.
    const Const *ratio = cst(1);
    if (has(1) && !ratio)
      return fail("ratio must be a compile-time constant");
    double p = has(1) ? ratio->f(0) : 0.5;
    if (train->size() && train->i(0) && p != 0)
      return importSeededDropout(p);
  }
  attr("seed");
  if (wants(1)) {
    // The mask of an inference dropout keeps everything.
    Const mask(TP::BOOL, shape(0));
    for (int64_t k = 0; k < mask.size(); ++k)
      mask.setInt(k, 1);
    (void)outConst(1, std::move(mask));
  }
  return forward(0, 0);
}

/// Dropout in training mode with a `seed`: the mask is fixed by the seed,
/// so it is drawn at compile time, from MT19937 seeded with it and NumPy's
/// uniform doubles (53 bits from two draws), as ONNX's reference
/// implementation draws it: kept where u >= ratio, scaled by 1 / (1 -
/// ratio). Every call applies the same mask.
LogicalResult Importer::importSeededDropout(double ratio) {
  auto seed = attrInt("seed", -1);
  if (!attr("seed") || seed < 0 || seed > 0xffffffffll)
    return fail("training_mode=true needs a seed attribute in [0, 2^32) "
                "(the mask is drawn at compile time)");
  if (!(ratio > 0 && ratio < 1))
    return fail("ratio " + std::to_string(ratio) + " is not in [0, 1)");
  if (failed(requireFloat(0)))
    return failure();
  std::mt19937 gen{static_cast<uint32_t>(seed)};
  Const scale(type(0), shape(0)), mask(TP::BOOL, shape(0));
  for (int64_t k = 0; k < scale.size(); ++k) {
    uint32_t a = gen() >> 5, b = gen() >> 6;
    double u = (a * 67108864.0 + b) / 9007199254740992.0;
    bool keep = u >= ratio;
    scale.set(k, keep ? 1.0 / (1.0 - ratio) : 0.0);
    mask.setInt(k, keep);
  }
  Value y = binary(val(0), param(scale, nodeName + "_mask"), "mul");
  if (wants(1) && failed(outConst(1, std::move(mask))))
    return failure();
  return out(0, y);
}

LogicalResult Importer::importDepthToSpace(bool toSpace) {
  auto xs = shape(0);
  if (xs.size() != 4)
    return fail("input must be NCHW");
  int64_t bs = attrInt("blocksize", 0);
  if (bs < 1)
    return fail("blocksize must be positive");
  int64_t n = xs[0], c = xs[1], h = xs[2], w = xs[3];
  Value x = val(0);
  if (toSpace) {
    // SpaceToDepth: (n, c, h/b, b, w/b, b) -> (n, b, b, c, h/b, w/b).
    if (h % bs || w % bs)
      return fail("spatial extents must be multiples of blocksize");
    x = reshape(x, {n, c, h / bs, bs, w / bs, bs});
    x = op("mx.transpose", x, {na("axes", arr({0, 3, 5, 1, 2, 4}))});
    return out(0, reshape(x, {n, c * bs * bs, h / bs, w / bs}));
  }
  if (c % (bs * bs))
    return fail("channels must be a multiple of blocksize^2");
  bool crd = attrStr("mode", "DCR") == "CRD";
  int64_t oc = c / (bs * bs);
  if (crd) {
    x = reshape(x, {n, oc, bs, bs, h, w});
    x = op("mx.transpose", x, {na("axes", arr({0, 1, 4, 2, 5, 3}))});
  } else {
    x = reshape(x, {n, bs, bs, oc, h, w});
    x = op("mx.transpose", x, {na("axes", arr({0, 3, 4, 1, 5, 2}))});
  }
  return out(0, reshape(x, {n, oc, h * bs, w * bs}));
}

//===----------------------------------------------------------------------===//
// ONNX-only ops: indexing, scans, triangles, losses, predicates
//===----------------------------------------------------------------------===//

LogicalResult Importer::importOnnxOnlyOp(StringRef t) {
  if (t == "GatherElements")
    return importGatherElements();
  if (t == "ScatterElements" || t == "Scatter")
    return importScatter("mx.scatter_elements");
  if (t == "GatherND")
    return importGatherND();
  if (t == "ScatterND")
    return importScatter("mx.scatter_nd");
  if (t == "CumSum")
    return importCumSum();
  if (t == "Trilu")
    return importTrilu();
  if (t == "Hardmax")
    return importHardmax();
  if (t == "IsNaN") {
    if (failed(requireFloat(0)))
      return failure();
    // Only NaN compares unequal to itself (not_equal is unordered).
    return out(
        0, op("mx.compare", {val(0), val(0)}, {na("op", str("not_equal"))}));
  }
  if (t == "IsInf")
    return importIsInf();
  if (t == "Shrink")
    return importShrink();
  if (t == "MeanVarianceNormalization")
    return importMeanVarianceNorm();
  if (t == "EyeLike")
    return importEyeLike();
  if (t == "OneHot")
    return importOneHot();
  if (t == "NegativeLogLikelihoodLoss" || t == "SoftmaxCrossEntropyLoss")
    return importLoss(t == "SoftmaxCrossEntropyLoss");
  return fail("operator '" + t + "' is not supported");
}

/// A rank-0 parameter holding `v` as element type `type`.
Value Importer::scalarParam(int32_t type, double v, StringRef name) {
  Const c(type, {});
  c.set(0, v);
  return param(c, nodeName + "_" + name.str());
}

/// 0, 1, ..., n - 1 (int64) along `axis` of a rank-`rank` tensor whose other
/// extents are 1: compared with indices, it broadcasts them to one-hot rows.
Value Importer::iotaAlong(int64_t rank, int64_t axis, int64_t n) {
  std::vector<int64_t> s(rank, 1);
  s[axis] = n;
  std::vector<int64_t> v(n);
  for (int64_t k = 0; k < n; ++k)
    v[k] = k;
  return param(Const::ofInts(std::move(v), s), nodeName + "_iota");
}

LogicalResult Importer::importGatherElements() {
  if (isFloatType(type(1)))
    return fail("indices must be integers");
  return out(0, op("mx.gather_elements", {val(0), val(1)},
                   {na("axis", i64(attrInt("axis", 0)))}));
}

/// ScatterElements (Scatter in opsets 9-10, without reduction) and
/// ScatterND, as mx op `name`.
LogicalResult Importer::importScatter(StringRef name) {
  std::string red = attrStr("reduction", "none");
  if (red != "none" && red != "add" && red != "mul" && red != "max" &&
      red != "min")
    return fail("reduction '" + red + "' is not supported");
  if (isFloatType(type(1)))
    return fail("indices must be integers");
  if (type(0) != type(2))
    return fail("data and updates element types " + typeName(type(0)) +
                " and " + typeName(type(2)) + " differ");
  SmallVector<NamedAttribute> attrs = {na("reduction", str(red))};
  if (name == "mx.scatter_elements")
    attrs.push_back(na("axis", i64(attrInt("axis", 0))));
  return out(0, op(name, {val(0), val(1), val(2)}, attrs));
}

LogicalResult Importer::importGatherND() {
  if (isFloatType(type(1)))
    return fail("indices must be integers");
  return out(0, op("mx.gather_nd", {val(0), val(1)},
                   {na("batch_dims", i64(attrInt("batch_dims", 0)))}));
}

LogicalResult Importer::importCumSum() {
  auto axis = constInts(1, "axis");
  if (failed(axis))
    return failure();
  if (axis->size() != 1)
    return fail("input 'axis' must hold one value, got shape " +
                shapeText(shape(1)));
  if (type(0) == TP::BOOL)
    return fail("boolean inputs are not supported");
  return out(0, op("mx.cumsum", val(0),
                   {na("axis", i64((*axis)[0])),
                    na("exclusive", boolean(attrInt("exclusive", 0))),
                    na("reverse", boolean(attrInt("reverse", 0)))}));
}

LogicalResult Importer::importTrilu() {
  int64_t k = 0;
  if (has(1)) {
    auto v = constInts(1, "k");
    if (failed(v))
      return failure();
    if (v->size() != 1)
      return fail("input 'k' must hold one value, got shape " +
                  shapeText(shape(1)));
    k = (*v)[0];
  }
  return out(0,
             op("mx.trilu", val(0),
                {na("upper", boolean(attrInt("upper", 1))), na("k", i64(k))}));
}

LogicalResult Importer::importHardmax() {
  if (failed(requireFloat(0)))
    return failure();
  auto xs = shape(0);
  int64_t r = xs.size(), axis = attrInt("axis", opset < 13 ? 1 : -1);
  if (axis < 0)
    axis += r;
  if (axis < 0 || axis >= r)
    return fail("axis " + Twine(attrInt("axis", 0)) +
                " is out of range for rank " + Twine(r));
  // 1 at the first maximum along the axis: argmax == iota.
  auto hardmax = [&](Value v, int64_t a) -> Value {
    auto s = cast<RankedTensorType>(v.getType()).getShape();
    Value idx = op("mx.argreduce", v,
                   {na("op", str("max")), na("axis", i64(a)),
                    na("keepdims", boolean(true))});
    Value hot = op("mx.compare", {idx, iotaAlong(s.size(), a, s[a])},
                   {na("op", str("equal"))});
    return castTo(hot, type(0));
  };
  return outAlongAxis(axis, hardmax);
}

LogicalResult Importer::importIsInf() {
  if (failed(requireFloat(0)))
    return failure();
  bool neg = attrInt("detect_negative", 1), pos = attrInt("detect_positive", 1);
  double inf = std::numeric_limits<double>::infinity();
  auto equal = [&](Value v, double s) {
    return op("mx.compare", {v, scalarParam(type(0), s, "inf")},
              {na("op", str("equal"))});
  };
  if (neg && pos)
    return out(0, equal(unary(val(0), "abs"), inf));
  if (neg || pos)
    return out(0, equal(val(0), pos ? inf : -inf));
  return outConst(0, Const(TP::BOOL, shape(0)));
}

LogicalResult Importer::importShrink() {
  if (failed(requireFloat(0)))
    return failure();
  double lambd = attrFloat("lambd", 0.5), bias = attrFloat("bias", 0.0);
  // x < -lambd ? x + bias : (x > lambd ? x - bias : 0)
  Value x = val(0);
  auto compare = [&](StringRef fn, double s, StringRef name) {
    return op("mx.compare", {x, scalarParam(type(0), s, name)},
              {na("op", str(fn))});
  };
  Value high = op("mx.where",
                  {compare("greater", lambd, "lambd"), scalar(x, "sub", bias),
                   scalarParam(type(0), 0.0, "zero")});
  return out(0, op("mx.where", {compare("less", -lambd, "neg_lambd"),
                                scalar(x, "add", bias), high}));
}

LogicalResult Importer::importMeanVarianceNorm() {
  if (failed(requireFloat(0)))
    return failure();
  int64_t r = rank(0);
  std::vector<int64_t> axes =
      attrInts("axes").value_or(std::vector<int64_t>{0, 2, 3});
  SmallVector<int64_t> norm;
  for (int64_t a : axes) {
    int64_t n = a < 0 ? a + r : a;
    if (n < 0 || n >= r || llvm::is_contained(norm, n))
      return fail("axes do not fit rank " + Twine(r));
    norm.push_back(n);
  }
  llvm::sort(norm);
  auto mean = [&](Value v) {
    return op("mx.reduce", v,
              {na("op", str("mean")), na("axis", arr(norm)),
               na("keepdims", boolean(true))});
  };
  // ONNX's function body: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9).
  Value x = val(0), mu = mean(x);
  Value var = binary(mean(binary(x, x, "mul")), binary(mu, mu, "mul"), "sub");
  Value dev = scalar(unary(var, "sqrt"), "add", 1e-9);
  return out(0, binary(binary(x, mu, "sub"), dev, "div"));
}

LogicalResult Importer::importEyeLike() {
  // The result depends on the input's shape only: a constant.
  auto xs = shape(0);
  if (xs.size() != 2)
    return fail("input must be 2-D, got shape " + shapeText(xs));
  int32_t t = attr("dtype") ? (int32_t)attrInt("dtype", 0) : type(0);
  if (!elementType(t, &ctx))
    return fail("dtype " + typeName(t) + " is not supported");
  int64_t k = attrInt("k", 0);
  Const c(t, xs);
  for (int64_t i = 0; i < xs[0]; ++i)
    if (i + k >= 0 && i + k < xs[1])
      c.setInt(i * xs[1] + i + k, 1);
  return outConst(0, std::move(c));
}

LogicalResult Importer::importOneHot() {
  auto depthValue = constScalar(1, "depth");
  if (failed(depthValue))
    return failure();
  int64_t depth = (int64_t)*depthValue;
  if (depth < 1)
    return fail("depth " + Twine(depth) + " must be positive");
  if (numElements(shape(2)) != 2)
    return fail("values must hold two elements (off, on), got shape " +
                shapeText(shape(2)));
  auto is = shape(0);
  int64_t r = is.size(), axis = attrInt("axis", -1);
  if (axis < 0)
    axis += r + 1;
  if (axis < 0 || axis > r)
    return fail("axis " + Twine(attrInt("axis", -1)) +
                " is out of range for rank " + Twine(r + 1));
  // Indices truncate to int64; negative ones count from depth. Others out of
  // range match no position and give an all-off row.
  Value idx = castTo(val(0), TP::INT64);
  Value isNeg = op("mx.compare", {idx, scalarParam(TP::INT64, 0, "zero")},
                   {na("op", str("less"))});
  idx = op("mx.where", {isNeg, scalar(idx, "add", depth), idx});
  std::vector<int64_t> column(is);
  column.insert(column.begin() + axis, 1);
  Value hot =
      op("mx.compare", {reshape(idx, column), iotaAlong(r + 1, axis, depth)},
         {na("op", str("equal"))});
  Value off, on;
  if (const Const *vc = cst(2)) {
    Const o(vc->type, {}), n(vc->type, {});
    o.copy(0, *vc, 0);
    n.copy(0, *vc, 1);
    off = param(o, nodeName + "_off");
    on = param(n, nodeName + "_on");
  } else {
    Value values = reshape(val(2), {2});
    auto pick = [&](int64_t k) {
      return op("mx.gather",
                {values, param(Const::ofInts({k}, std::vector<int64_t>{}),
                               nodeName + "_pick")},
                {na("axis", i64(0))});
    };
    off = pick(0);
    on = pick(1);
  }
  return out(0, op("mx.where", {hot, on, off}));
}

/// NegativeLogLikelihoodLoss, and SoftmaxCrossEntropyLoss as a log-softmax
/// over the classes (axis 1) followed by it. Per element of the target:
/// loss = -w[t] * input[n, t, d...], with w = 1 without weights and w = 0
/// where t = ignore_index; mean divides the sum by the sum of w.
LogicalResult Importer::importLoss(bool withSoftmax) {
  if (failed(requireFloat(0)))
    return failure();
  std::string reduction = attrStr("reduction", "mean");
  if (reduction != "none" && reduction != "mean" && reduction != "sum")
    return fail("reduction '" + reduction + "' is not supported");
  auto xs = shape(0), ts = shape(1);
  if (xs.size() < 2)
    return fail("input must have rank >= 2, got shape " + shapeText(xs));
  std::vector<int64_t> want(xs);
  want.erase(want.begin() + 1);
  if (ts != want)
    return fail("target shape " + shapeText(ts) + " does not match input " +
                shapeText(xs));
  if (isFloatType(type(1)))
    return fail("target must be integers");
  if (has(2) && (rank(2) != 1 || shape(2)[0] != xs[1]))
    return fail("weight must have shape (C,) = " + shapeText({xs[1]}));
  Value x = val(0);
  if (withSoftmax) {
    x = op("mx.softmax", x, {na("axis", i64(1)), na("log", boolean(true))});
    if (failed(out(1, x)))
      return failure();
  }
  // Ignored targets read class 0, masked afterwards.
  Value target = val(1), ignored;
  if (attr("ignore_index")) {
    ignored = op("mx.compare",
                 {target, scalarParam(type(1), attrInt("ignore_index", 0),
                                      "ignore_index")},
                 {na("op", str("equal"))});
    target =
        op("mx.where", {ignored, scalarParam(type(1), 0, "class0"), target});
  }
  std::vector<int64_t> column(xs);
  column[1] = 1;
  Value picked = op("mx.gather_elements", {x, reshape(target, column)},
                    {na("axis", i64(1))});
  Value zero = scalarParam(type(0), 0.0, "zero");
  Value loss = unary(reshape(picked, ts), "negative");
  Value weight;
  if (has(2))
    weight = op("mx.gather", {val(2), target}, {na("axis", i64(0))});
  if (ignored) {
    loss = op("mx.where", {ignored, zero, loss});
    weight =
        op("mx.where",
           {ignored, zero, weight ? weight : scalarParam(type(0), 1.0, "one")});
  }
  if (has(2))
    loss = binary(loss, weight, "mul");
  if (reduction == "none")
    return out(0, loss);
  auto sum = [&](Value v) {
    return reshape(op("mx.reduce", v, {na("op", str("sum"))}), {});
  };
  if (reduction == "sum")
    return out(0, sum(loss));
  if (!weight)
    return out(0, reshape(op("mx.reduce", loss, {na("op", str("mean"))}), {}));
  return out(0, binary(sum(loss), sum(weight), "div"));
}

//===----------------------------------------------------------------------===//
// The graph
//===----------------------------------------------------------------------===//

llvm::Error Importer::addOutputs() {
  SmallVector<Value> outs;
  node = nullptr;
  // A sequence output is its elements, "y[0]", "y[1]", ...; an optional
  // output without a value is no output at all.
  std::vector<std::pair<std::string, const ::onnx::ValueInfoProto *>> named;
  for (const auto &o : model.graph().output()) {
    if (absent.count(o.name()))
      continue;
    auto seq = sequences.find(o.name());
    if (seq == sequences.end()) {
      named.push_back({o.name(), &o});
      continue;
    }
    for (const std::string &e : seq->second)
      named.push_back({o.name() + e.substr(e.rfind('[')), nullptr});
  }
  for (auto [outName, info] : named) {
    ::onnx::ValueInfoProto element;
    element.set_name(outName);
    if (!info) {
      // The element tensor under the sequence's own name.
      std::string src =
          sequences[outName.substr(0, outName.rfind('['))]
                   [std::stoul(outName.substr(outName.rfind('[') + 1))];
      tensors[outName] = tensors[src];
    }
    const ::onnx::ValueInfoProto &o = info ? *info : element;
    auto it = tensors.find(o.name());
    if (it == tensors.end())
      return makeError("'" + file + "': graph output '" + o.name() +
                       "' is not produced by any node");
    nodeName = o.name();
    error.clear();
    Value v = materialize(o.name());
    if (!v)
      return makeError("'" + file + "': graph output '" + o.name() +
                       "': " + error);
    auto t = cast<RankedTensorType>(v.getType());
    int32_t dt = onnxType(t.getElementType());
    if (o.type().has_tensor_type()) {
      const auto &tt = o.type().tensor_type();
      if (tt.elem_type() != TP::UNDEFINED && tt.elem_type() != dt)
        return makeError("'" + file + "': graph output '" + o.name() +
                         "' is declared " + typeName(tt.elem_type()) +
                         " but computes " + typeName(dt));
      // Static extents the model declares must match what mxc computed
      // (guards against silently wrong semantics).
      if (tt.has_shape() && opts.inputShapes.empty()) {
        std::vector<int64_t> declared;
        bool agree = tt.shape().dim_size() == t.getRank();
        for (int i = 0; i < tt.shape().dim_size(); ++i) {
          const auto &d = tt.shape().dim(i);
          declared.push_back(d.has_dim_value() ? d.dim_value() : -1);
          agree =
              agree && (!d.has_dim_value() || d.dim_value() == t.getDimSize(i));
        }
        if (!agree)
          return makeError("'" + file + "': graph output '" + o.name() +
                           "' is declared with shape " + shapeText(declared) +
                           " but computes " + shapeText(t.getShape()));
      }
    }
    outs.push_back(v);
    result.spec.outputs.push_back(
        {o.name(), dtypeOf(dt),
         std::vector<int64_t>(t.getShape().begin(), t.getShape().end())});
  }
  func::ReturnOp::create(b, result.module->getLoc(), outs);
  func.setFunctionType(
      b.getFunctionType(body->getArgumentTypes(), TypeRange(ValueRange(outs))));
  return llvm::Error::success();
}

llvm::Expected<mxc::ImportedModel> Importer::run() {
  if (auto err = readOpset())
    return std::move(err);
  ctx.loadDialect<mx::MxDialect, func::FuncDialect>();
  result.module = ModuleOp::create(FileLineColLoc::get(&ctx, file, 0, 0));
  b.setInsertionPointToEnd(result.module->getBody());
  func = func::FuncOp::create(b, result.module->getLoc(), "forward",
                              b.getFunctionType({}, {}));
  body = func.addEntryBlock();
  b.setInsertionPointToEnd(body);

  if (auto err = addInitializers())
    return std::move(err);
  if (auto err = addInputs())
    return std::move(err);
  unsigned index = 0;
  for (::onnx::NodeProto &n : *model.mutable_graph()->mutable_node())
    if (auto err = importNode(n, index++))
      return std::move(err);
  if (auto err = addOutputs())
    return std::move(err);
  if (failed(verify(*result.module)))
    return makeError("'" + file + "': the imported module does not verify");
  return std::move(result);
}

} // namespace

llvm::Expected<mxc::ImportedModel>
mxc::onnx::importModel(MLIRContext &context, StringRef path,
                       const ImportOptions &options) {
  ::onnx::ModelProto model;
  if (llvm::Error e = readProtoFile(
          path, model,
          "not a valid ONNX model (the protobuf cannot be parsed; is the file "
          "truncated?)"))
    return std::move(e);
  if (!model.has_graph())
    return makeError("'" + path + "': the ONNX model has no graph");
  Importer importer(context, model, path.str(), options);
  return importer.run();
}
