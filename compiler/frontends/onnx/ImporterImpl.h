// SPDX-License-Identifier: Apache-2.0
// The ONNX importer's state, private to this folder: the value table
// (runtime values, compile-time Consts, sequences, absent optionals), the
// current node's inputs, attributes and outputs, and the mx-op builders
// through which the handlers of the family files (see OpTable.cpp) work.
#ifndef MXC_COMPILER_FRONTENDS_ONNX_IMPORTERIMPL_H
#define MXC_COMPILER_FRONTENDS_ONNX_IMPORTERIMPL_H

#include "compiler/frontends/onnx/Const.h"
#include "compiler/frontends/onnx/Importer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <deque>
#include <map>

namespace mxc::onnx {

/// Integer attribute `name` of `n`, `dflt` when absent.
inline int64_t nodeIntAttr(const ::onnx::NodeProto &n, llvm::StringRef name,
                           int64_t dflt) {
  for (const auto &a : n.attribute())
    if (a.name() == name)
      return a.i();
  return dflt;
}

/// Float attribute `name` of `n`, `dflt` when absent.
inline double nodeFloatAttr(const ::onnx::NodeProto &n, llvm::StringRef name,
                            double dflt) {
  for (const auto &a : n.attribute())
    if (a.name() == name)
      return a.f();
  return dflt;
}

/// Input `i` of `n`, "" when absent.
inline std::string inputOf(const ::onnx::NodeProto &n, int i) {
  return i < n.input_size() ? n.input(i) : std::string();
}

/// Parses the protobuf file at `path` into `message` straight from the file
/// (no buffer of the whole file beside the parsed message); `what` says what
/// the file should hold.
llvm::Error readProtoFile(llvm::StringRef path,
                          google::protobuf::MessageLite &message,
                          const llvm::Twine &what);

using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::SmallVectorImpl;
using llvm::StringRef;
using llvm::Twine;
using mlir::Attribute;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::NamedAttribute;
using mlir::RankedTensorType;
using mlir::Type;
using mlir::Value;
using mlir::ValueRange;

/// An error carrying `message` (a frontend error, not an invariant).
llvm::Error makeError(const Twine &message);

/// The MLIR element type of an ONNX element type mxc runs, if any. (Unsigned
/// types have no signless equivalent that keeps their semantics.)
Type elementType(int32_t t, mlir::MLIRContext *ctx);
/// The ONNX element type of a type elementType() makes.
int32_t onnxType(Type t);

/// A named value of the graph: a runtime SSA value, a compile-time constant,
/// or both once the constant has been materialized as a parameter.
/// An integer known only at run time, as the importer follows it through
/// the shape computations of a model with dynamic extents:
/// coef * (the product of `dims`) / div + offset, each dim a run-time extent
/// named by its symbol (Importer::dimSymbol).
struct SymExtent {
  int64_t coef = 1, div = 1, offset = 0;
  std::vector<std::string> dims;
  /// Where each of `dims` can be read at run time: a value and its axis.
  std::vector<std::pair<Value, int64_t>> refs;
  bool isConst() const { return dims.empty(); }
  /// The value of a constant one.
  int64_t value() const { return coef / div + offset; }
};

/// A shape-like integer tensor (a scalar or a vector) some of whose elements
/// are run-time extents: the output of Shape on a tensor with dynamic
/// extents and the small arithmetic on it.
struct SymTensor {
  std::vector<int64_t> shape; ///< () or (n,)
  std::vector<SymExtent> elems;
};

/// A small int64 scalar or vector computed at run time from data-dependent
/// extents (the Shape of a counted tensor, and the arithmetic on it): each
/// element a constant, or an int64 scalar known at run time with an upper
/// bound. Its Tensor's `value` holds the whole at run time; TopK's k and
/// ConstantOfShape's shape read the bounds.
struct BoundedInts {
  std::vector<int64_t> shape; ///< () or (n,)
  /// Per element: the run-time scalar, or null where it is a constant.
  std::vector<Value> values;
  /// Per element: the constant, or the run-time value's upper bound.
  std::vector<int64_t> bounds;
};

struct Tensor {
  Value value;
  std::shared_ptr<const Const> constant;
  std::shared_ptr<const SymTensor> sym;
  /// A data-dependent extent (NonZero's, Compress's, ...): `value` holds
  /// its static bound along axis `countAxis`, of which the first `count`
  /// (an int64 scalar, known at run time) are the tensor's; the rest is
  /// padding no result may depend on.
  Value count;
  int64_t countAxis = -1;
  std::shared_ptr<const BoundedInts> bounded;
};

/// One model's import: the graph-level steps (run), the node being imported
/// for the handlers, and the value table.
///
/// Values known at compile time (initializers, Constant nodes, shapes of
/// static tensors and the small integer arithmetic on them) are folded on
/// the host, so that the shape operands of Reshape, Slice, Pad, Expand, ...
/// are constants; a folded value that a runtime op consumes becomes an
/// embedded parameter. Every other node maps onto one or a few mx ops whose
/// own type inference checks it, so shape errors name the node.
class Importer {
public:
  Importer(mlir::MLIRContext &ctx, ::onnx::ModelProto &model, std::string file,
           const ImportOptions &opts)
      : ctx(ctx), b(&ctx), model(model), file(std::move(file)), opts(opts) {}

  /// Imports the whole model; the Importer is used once.
  llvm::Expected<ImportedModel> run();

  //===--------------------------------------------------------------------===//
  // The node being imported, for the tensor operators' handlers. Failures
  // keep the first message; the caller names the node.
  //===--------------------------------------------------------------------===//

  mlir::MLIRContext &ctx;
  mlir::OpBuilder b;
  int64_t opset = 0;
  ::onnx::NodeProto *node = nullptr;
  /// The node's name, else its first output's, else "#index".
  std::string nodeName;

  /// Fails the node with `message` (the first failure's message wins).
  LogicalResult fail(const Twine &message) {
    if (error.empty())
      error = message.str();
    return mlir::failure();
  }
  /// Whether input `i` is given (present and not "").
  bool has(unsigned i) const {
    return (int)i < node->input_size() && !node->input(i).empty();
  }
  /// Input `i`, and its shape, rank and ONNX element type.
  Tensor &in(unsigned i) { return tensors[node->input(i)]; }
  std::vector<int64_t> shape(unsigned i) { return shapeOf(in(i)); }
  int64_t rank(unsigned i) { return shape(i).size(); }
  int32_t type(unsigned i) { return typeOf(in(i)); }
  /// Input `i`'s value when it is a compile-time constant, else null.
  const Const *cst(unsigned i) {
    return has(i) ? in(i).constant.get() : nullptr;
  }
  /// Whether every input given is a compile-time constant.
  bool allConst();
  /// Input `i` as a runtime value (a constant becomes a parameter).
  Value val(unsigned i) { return materialize(node->input(i)); }
  /// Whether output `k` is asked for.
  bool wants(unsigned k) const {
    return (int)k < node->output_size() && !node->output(k).empty();
  }
  /// Output `k` is `v` (a failure when `v` is null: the op failed).
  LogicalResult out(unsigned k, Value v);
  /// Output `k` is the compile-time constant `c`.
  LogicalResult outConst(unsigned k, Const c);
  /// Output `k` is `v`, whose extent along `axis` is a bound of which the
  /// first `count` (an int64 scalar) are the output's.
  LogicalResult outCounted(unsigned k, Value v, Value count, int64_t axis);
  /// Input `i` as bounded integers: its BoundedInts, or a constant integer
  /// scalar or vector's; null otherwise.
  std::shared_ptr<const BoundedInts> bounded(unsigned i);
  /// Output `k` is the bounded integers `t` (computed at run time).
  LogicalResult outBounded(unsigned k, BoundedInts t);
  /// `v` with the elements past `count` along `axis` replaced by the
  /// scalar `fill` (so that a reduction over the axis ignores them).
  Value maskCounted(Value v, Value count, int64_t axis, Value fill);
  /// Where each slot of `mask` (a bool vector) goes when the kept entries
  /// move to the front in order: an int64 vector that sends kept entry i
  /// to the number of kept entries before it, and the others after all the
  /// kept ones, in order (a permutation); and how many are kept (an int64
  /// scalar).
  std::pair<Value, Value> frontSlots(Value mask);
  /// The inverse of a permutation `slots` of n entries: for each slot, the
  /// entry that goes there.
  Value invertSlots(Value slots, int64_t n);
  /// Output `k` is input `i`.
  LogicalResult forward(unsigned k, unsigned i) {
    if (wants(k))
      tensors[node->output(k)] = in(i);
    return mlir::success();
  }
  /// Output `k` is input `i` reshaped (on the host when it is constant).
  LogicalResult outReshaped(unsigned k, unsigned i,
                            const std::vector<int64_t> &shape);
  /// The integer values of constant input `i`, or a failure naming `what`.
  FailureOr<std::vector<int64_t>> constInts(unsigned i, StringRef what);
  /// Constant input `i`'s integers into `values` when the input is given
  /// (`values` is left as it is otherwise).
  LogicalResult optionalConstInts(unsigned i, StringRef what,
                                  std::vector<int64_t> &values);
  /// The one integer of constant input `i`, or a failure naming `what`.
  FailureOr<int64_t> constInt(unsigned i, StringRef what);
  /// The one value of constant input `i`, or a failure naming `what`.
  FailureOr<double> constScalar(unsigned i, StringRef what);
  /// Fails unless input `i` has a floating-point element type.
  LogicalResult requireFloat(unsigned i);
  /// Fails unless every extent of input `i` (`what`) is static.
  LogicalResult requireStatic(unsigned i, StringRef what);

  // Shape-like inputs known only at run time (graph inputs a plain user
  // feeds: a Reshape's shape, Slice's starts, Trilu's k, ...). Where the
  // result's shape depends on their values, it is the one the model
  // declares for the output; what else depends on them is computed at run
  // time with mx ops on the small integer tensors.

  /// The shape the model declares for output `k` (a graph output's or a
  /// value_info's type) when every extent is a number and no --input
  /// changed the graph's input shapes; else a failure saying that input
  /// `i` (`what`) is known only at run time and the shape is not declared.
  FailureOr<std::vector<int64_t>> declaredShape(unsigned k, unsigned i,
                                                StringRef what);
  /// Input `i` (an integer scalar or vector) as a run-time int64 vector.
  Value int64Vector(unsigned i);
  /// Element `k` of the int64 vector `v`, a scalar.
  Value elementOf(Value v, int64_t k);
  /// The int64 scalar `v`.
  Value int64Scalar(int64_t v) { return scalarParam(TP::INT64, v, "c"); }
  Value where(Value cond, Value x, Value y) {
    return op("mx.where", {cond, x, y});
  }
  /// The bool scalar: does some element of int64 vector `v` equal `axis`
  /// of a rank-`rank` tensor (counted from the front or, negative, from
  /// the back)?
  Value holdsAxis(Value v, int64_t axis, int64_t rank);

  std::vector<int64_t> shapeOf(const Tensor &t);
  /// The ONNX element type of `t`.
  int32_t typeOf(const Tensor &t);

  /// Attribute `name` of the current node, or null. Each attribute asked
  /// for is marked as handled; one never asked for fails the node. (The
  /// node is the importer's own: a handler may take a tensor's bytes.)
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
  /// Attribute `name`'s integers, `dflt` when it is absent.
  std::vector<int64_t> attrInts(StringRef name, std::vector<int64_t> dflt) {
    return attrInts(name).value_or(std::move(dflt));
  }
  /// Attribute `axis` (default `dflt`), counted from the end when negative,
  /// which must lie in [0, rank) (in [0, rank] when `inclusive`).
  LogicalResult axisAttr(int64_t dflt, int64_t rank, int64_t &axis,
                         bool inclusive = false);
  /// Marks `names` as handled (attributes that change nothing here).
  void ignoreAttrs(std::initializer_list<StringRef> names) {
    for (StringRef n : names)
      usedAttrs.insert(n);
  }
  /// Reads `t`, taking its raw_data (not copying it); `what` names it in
  /// errors.
  llvm::Expected<Const> readTensor(TP &t, const Twine &what);

  //===--------------------------------------------------------------------===//
  // Building mx ops at the current node.
  //===--------------------------------------------------------------------===//

  /// The location of ops made for the current node: its name in the file.
  mlir::Location loc();
  /// The results of mx op `name`, empty on failure (the op's message kept).
  SmallVector<Value> create(StringRef name, ValueRange operands,
                            ArrayRef<NamedAttribute> attrs);
  /// The first result of mx op `name`, null on failure.
  Value op(StringRef name, ValueRange operands,
           ArrayRef<NamedAttribute> attrs = {}) {
    auto r = create(name, operands, attrs);
    return r.empty() ? Value() : r[0];
  }
  /// Attributes of the mx ops, briefly.
  NamedAttribute na(StringRef name, Attribute a) {
    return b.getNamedAttr(name, a);
  }
  Attribute i64(int64_t v) { return b.getI64IntegerAttr(v); }
  Attribute f64(double v) { return b.getF64FloatAttr(v); }
  Attribute str(StringRef v) { return b.getStringAttr(v); }
  Attribute arr(ArrayRef<int64_t> v) { return b.getDenseI64ArrayAttr(v); }
  Attribute boolean(bool v) { return b.getBoolAttr(v); }

  /// The runtime value of `name` (a constant becomes a parameter once).
  Value materialize(const std::string &name);
  /// A shape-like tensor of run-time extents as an int64 tensor of its
  /// shape, computed at run time.
  Value symValue(const SymTensor &t);
  /// A parameter holding `c`; it shares c's bytes.
  Value param(const Const &c, StringRef name);
  /// A rank-0 parameter holding `v` as element type `type`.
  Value scalarParam(int32_t type, double v, StringRef name);
  /// 0, 1, ..., n - 1 (int64) along `axis` of a rank-`rank` tensor whose
  /// other extents are 1: compared with indices, it broadcasts them to
  /// one-hot rows.
  /// iotaAlong of input i's extent on axis `from`, computed at run time
  /// when that extent is dynamic.
  Value iotaOfExtent(unsigned i, int64_t from, int64_t rank, int64_t axis);
  Value iotaAlong(int64_t rank, int64_t axis, int64_t n);
  /// `v` reshaped to `shape` (itself when it has that shape already).
  Value reshape(Value v, ArrayRef<int64_t> shape);
  /// A constant of `type`, which has no elements.
  Value emptyConstant(RankedTensorType type);
  /// mx.unary / mx.binary / mx.scalar / mx.compare `fn`.
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
  Value compare(Value a, Value c, StringRef fn) {
    return op("mx.compare", {a, c}, {na("op", str(fn))});
  }
  /// mx.reduce `fn` over `axes`, keeping them as extents of 1.
  Value reduceKeep(Value v, StringRef fn, ArrayRef<int64_t> axes) {
    return op("mx.reduce", v,
              {na("op", str(fn)), na("axis", arr(axes)),
               na("keepdims", boolean(true))});
  }
  /// `v` cast to ONNX element type `t` (itself when it has that type).
  Value castTo(Value v, int32_t t);

  //===--------------------------------------------------------------------===//
  // The value table, for the sequence, optional and control-flow handlers.
  //===--------------------------------------------------------------------===//

  /// Every named tensor value so far.
  llvm::StringMap<Tensor> tensors;
  /// Sequence values: the names (in `tensors`) of their elements, "x[0]",
  /// "x[1]", ... Sequences have a length and element shapes known at
  /// compile time.
  llvm::StringMap<std::vector<std::string>> sequences;
  /// Optional values that hold nothing.
  llvm::StringSet<> absent;
  /// Nodes the container handlers make (kept: `node` points at them while
  /// they import).
  std::deque<::onnx::NodeProto> madeNodes;

  /// Whether `name` is a value: a tensor, a sequence or an absent optional.
  bool isValue(StringRef name) {
    return tensors.count(name) || sequences.count(name) || absent.count(name);
  }
  /// The symbol of run-time extent `axis` of `v`: an input's dimension name,
  /// followed through the ops that keep an operand's extent (extentSource),
  /// else a name of its own. Equal symbols are equal extents.
  std::string dimSymbol(Value v, int64_t axis);
  /// The dimension names of each input's axes ("" where static).
  std::map<std::string, std::vector<std::string>> inputDimSymbols;
  /// Output `k` is `t`, a constant when none of its elements is symbolic.
  LogicalResult outSym(unsigned k, SymTensor t);
  /// Imports the current node when an input is a SymTensor; fails naming
  /// the op when it is not a shape computation mxc follows.
  LogicalResult importSymbolic(StringRef opType);

  /// The data-dependent extent a node's outputs get from its inputs (no
  /// count when none has one), or an error when the node cannot take the
  /// input that has one.
  struct CountedExtent {
    Value count;
    int64_t axis = -1;
  };
  llvm::Expected<CountedExtent> countedPropagation(const ::onnx::NodeProto &n);
  /// The axes [start, end) that Shape's attributes (opset 15) pick of a
  /// rank-`rank` tensor, clamped as ONNX clamps them.
  std::pair<int64_t, int64_t> shapeRange(int64_t rank);
  /// Shape of a tensor with a data-dependent extent: bounded integers.
  LogicalResult importCountedShape();
  /// The bounded integers the current node's output 0 holds when its
  /// inputs are bounded integers and constants (Gather, Concat, Unsqueeze,
  /// ReduceMin, Min, ...), after its handler computed the run-time value.
  void propagateBounded();
  /// Concat along the data-dependent axis of its inputs: their kept
  /// elements, in order, to the front; the count their sum. One
  /// computation per list of counts and bounds (Concats of the same
  /// pieces' boxes, scores and labels share the result's count).
  struct ConcatPlan {
    Value source; ///< per output slot, the slot of the joined bounds
    Value count;
  };
  std::map<std::vector<std::pair<void *, int64_t>>, ConcatPlan> concatPlans;
  /// The random operators imported so far (each draws its own stream).
  int64_t randomNodes = 0;
  /// Concat (along `axis`) of the current node's inputs, some counted.
  LogicalResult importCountedConcat(int64_t axis);
  /// Imports node `n`, the `index`th of its graph (which names it when it
  /// has no name and no outputs).
  llvm::Error importNode(::onnx::NodeProto &n, unsigned index);
  /// An error naming node `n` (the current node's name).
  llvm::Error nodeError(const ::onnx::NodeProto &n, const Twine &message) const;

private:
  llvm::Error readOpset();
  llvm::Error addInitializers();
  llvm::Error addInputs();
  /// The QLinearConv / QLinearMatMul / QGemm / QLinearAdd (and Max, for a
  /// Relu) that replace the QDQ-quantized Conv, MatMul, Gemm or Add ending
  /// at QuantizeLinear `q`, when it ends one (QdqFusion.cpp).
  std::optional<std::vector<::onnx::NodeProto>>
  fuseAtQuantize(const ::onnx::NodeProto &q);
  /// The graph's producers and use counts, made at the first
  /// QuantizeLinear (QdqFusion.cpp).
  struct QdqUses;
  std::shared_ptr<QdqUses> qdqUses;
  llvm::Error addSequenceInput(const ::onnx::ValueInfoProto &input,
                               const ::onnx::TypeProto &type);
  using Dims =
      google::protobuf::RepeatedPtrField<::onnx::TensorShapeProto_Dimension>;
  /// Checks a shape given with --input against the model's `dims`; `what`
  /// begins the errors, `modelRank` says whose rank the model gives.
  llvm::Error checkGivenShape(const std::vector<int64_t> &shape,
                              const Dims &dims, const Twine &what,
                              StringRef modelRank);
  /// Adds graph input (or sequence element) `name` as a function argument.
  void addInputArgument(const std::string &name, int32_t dt,
                        const std::vector<int64_t> &shape);
  llvm::Error addOutputs();
  /// `v`, whose extent along `axis` is a bound of which the first `count`
  /// are its own, with those elements first in row-major order as if it
  /// had extent `count` there (the rest after them).
  Value compactCounted(Value v, Value count, int64_t axis);

  ::onnx::ModelProto &model;
  std::string file;
  const ImportOptions &opts;

  ImportedModel result;
  mlir::func::FuncOp func;
  mlir::Block *body = nullptr;
  unsigned numInputArgs = 0;
  llvm::StringSet<> paramNames;

  /// The static shapes the model declares for values (declaredShape), read
  /// on first use.
  std::optional<llvm::StringMap<std::vector<int64_t>>> declaredShapes;
  llvm::StringMap<::onnx::AttributeProto *> attrMap;
  llvm::StringSet<> usedAttrs;
  std::string error;
  /// Bytes of external data read so far (MXC_MAX_INPUT_BYTES caps them).
  uint64_t externalBytes = 0;
};

/// The current node's Conv of `x` (shape `xs`) by `w` (shape `ws`), plus
/// `bias` when given, with its window and padding attributes; null (the
/// node failed) on a bad shape or attribute. (ConvPool.cpp; the
/// quantization operators convolve with it too.)
Value convolve(Importer &im, Value x, Value w, Value bias, ArrayRef<int64_t> xs,
               ArrayRef<int64_t> ws);

/// A sequence, optional or control-flow node while it imports. These values
/// are known at compile time, so their operators mostly rename values, or
/// make tensor nodes (Split, Concat, a body's nodes) imported as usual.
class ContainerNode {
public:
  ContainerNode(Importer &im, const ::onnx::NodeProto &n, unsigned index)
      : im(im), n(n), index(index),
        out(n.output_size() ? n.output(0) : std::string()) {}

  Importer &im;
  /// The node being imported.
  const ::onnx::NodeProto &n;
  /// The node's position in its graph (names made nodes without a name).
  unsigned index;
  /// Output 0's name (or "").
  const std::string out;

  /// An error naming the node.
  llvm::Error error(const Twine &message) const {
    return im.nodeError(n, message);
  }
  /// Fails on an attribute not in `names`; those can then be read.
  llvm::Error allowAttributes(std::initializer_list<StringRef> names);
  /// An attribute allowAttributes() let through, or null.
  const ::onnx::AttributeProto *attribute(StringRef name) const {
    auto it = attrs.find(name.str());
    return it == attrs.end() ? nullptr : it->second;
  }
  int64_t intAttribute(StringRef name, int64_t fallback) const {
    const auto *a = attribute(name);
    return a ? a->i() : fallback;
  }
  /// Graph attribute `name`, or an error saying it is required.
  llvm::Expected<const ::onnx::GraphProto *> graphAttribute(StringRef name);

  /// Input `i`'s name, "" when absent.
  std::string input(int i) const {
    return i < n.input_size() ? n.input(i) : std::string();
  }
  /// Whether `name` is a tensor (not a sequence or an absent optional).
  bool isTensor(const std::string &name) const {
    return im.tensors.count(name) != 0;
  }
  /// The elements of sequence input `i`, or an error saying it is none.
  llvm::Expected<std::vector<std::string>> sequenceInput(int i) const;
  /// allowAttributes(`attributes`), then sequenceInput(0): the prologue of
  /// the operators on one sequence.
  llvm::Expected<std::vector<std::string>>
  sequenceOperand(std::initializer_list<StringRef> attributes);
  /// The value of `name`, a constant of one element.
  std::optional<int64_t> constInt(const std::string &name) const;
  /// The value of `name`, a constant of one element, as a condition.
  std::optional<bool> constBool(const std::string &name) const {
    auto v = constInt(name);
    return v ? std::optional<bool>(*v != 0) : std::nullopt;
  }

  /// `to` becomes a sequence of the values of `from`, renamed "to[i]".
  void setSequence(const std::string &to, const std::vector<std::string> &from);
  /// `to` becomes what `from` is: a tensor, a sequence or nothing.
  void forwardValue(const std::string &from, const std::string &to);
  /// `to` becomes the tensor `from` is.
  void copyTensor(const std::string &from, const std::string &to) {
    Tensor v = im.tensors[from]; // a copy: inserting `to` may move it
    im.tensors[to] = v;
  }
  /// `to` becomes the compile-time constant `c`.
  void setConst(const std::string &to, Const c);
  /// Imports a node made here, named after this one.
  llvm::Error importMade(::onnx::NodeProto made);
  /// Makes node `op` of `inputs`, `outputs` and an `axis` attribute.
  static ::onnx::NodeProto makeNode(StringRef op,
                                    const std::vector<std::string> &inputs,
                                    const std::vector<std::string> &outputs,
                                    int64_t axis);
  /// Integers the made node takes as its input `name` from opset 13 (held
  /// by the constant `valueName`), as an attribute before.
  void addIntsOperand(::onnx::NodeProto &made, const std::string &name,
                      const std::string &valueName, ArrayRef<int64_t> values);
  /// Squeezes or unsqueezes (`op`) `from` at `axis` into `to`.
  llvm::Error importReshape(StringRef op, const std::string &from,
                            const std::string &to, int64_t axis);
  /// Concatenates the tensors `parts` along `axis` into `to`, each first
  /// given a new axis there when `stack`.
  llvm::Error importConcat(std::vector<std::string> parts,
                           const std::string &to, int64_t axis, bool stack);

private:
  std::map<std::string, const ::onnx::AttributeProto *> attrs;
};

} // namespace mxc::onnx

#endif // MXC_COMPILER_FRONTENDS_ONNX_IMPORTERIMPL_H
