// SPDX-License-Identifier: Apache-2.0
// Builds mx ops from MXNet symbol graphs. Each MXNet operator maps to one mx
// op (or a family op with a fixed `op` attribute); its attribute strings are
// converted by a per-op list, attributes that would change the meaning but
// are not modelled are rejected, and result types come from the ops' own
// inference, so shape errors are found here with the node's name.
#include "compiler/frontends/mxnet/Importer.h"
#include "compiler/frontends/mxnet/Params.h"
#include "compiler/frontends/mxnet/Symbol.h"
#include "dialects/mx/MxDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>

#include <cstring>
#include <limits>
#include <set>

using namespace mlir;
using namespace mxc;
using namespace mxc::mxnet;
using llvm::Twine;

namespace {

llvm::Error makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string shapeText(ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

/// Converts one node's attribute strings to mx attributes; remembers the
/// first error and which attributes were looked at.
class AttrConverter {
public:
  AttrConverter(const SymbolNode &node, StringRef file, Builder &b)
      : node(node), reader(node, file), b(b) {}

  void i64(StringRef key, StringRef as = {}) {
    convert(key, as, reader.getInt(key, 0),
            [&](int64_t v) { return b.getI64IntegerAttr(v); });
  }
  void f64(StringRef key, StringRef as = {}) {
    if (!take(key))
      return;
    auto v = reader.getOptionalFloat(key);
    if (!v)
      return fail(v.takeError());
    if (*v)
      attrs.set(as.empty() ? key : as, b.getF64FloatAttr(**v));
  }
  void boolean(StringRef key, StringRef as = {}) {
    convert(key, as, reader.getBool(key, false),
            [&](bool v) { return b.getBoolAttr(v); });
  }
  void tuple(StringRef key, StringRef as = {}) {
    if (llvm::StringRef(reader.getString(key)).trim() == "None") {
      (void)take(key);
      return;
    }
    convert(key, as, reader.getTuple(key),
            [&](ArrayRef<int64_t> v) { return b.getDenseI64ArrayAttr(v); });
  }
  void str(StringRef key, StringRef as = {}) {
    if (!take(key))
      return;
    attrs.set(as.empty() ? key : as, b.getStringAttr(reader.getString(key)));
  }
  /// Attributes with no effect on inference results.
  void ignore(std::initializer_list<StringRef> keys) {
    for (StringRef k : keys)
      seen.insert(k);
  }
  /// An attribute that is accepted only with the listed values.
  void only(StringRef key, std::initializer_list<StringRef> values) {
    if (!take(key))
      return;
    std::string v = reader.getString(key);
    if (!llvm::is_contained(values, StringRef(v)))
      fail(reader.makeError("attribute '" + key + "' = \"" + v +
                            "\" is not supported"));
  }
  void set(StringRef name, Attribute value) { attrs.set(name, value); }

  /// Sets `as` (or `key`) to `make` of the attribute `key` read as `value`,
  /// when the node has it; remembers a parse error.
  template <typename T, typename Make>
  void convert(StringRef key, StringRef as, llvm::Expected<T> value,
               Make make) {
    if (!take(key)) {
      llvm::consumeError(value.takeError());
      return;
    }
    if (!value)
      return fail(value.takeError());
    attrs.set(as.empty() ? key : as, make(*value));
  }
  std::string get(StringRef key) { return reader.getString(key); }
  bool has(StringRef key) { return reader.has(key); }
  const AttrReader &getReader() { return reader; }

  void fail(llvm::Error err) {
    if (error.empty())
      error = llvm::toString(std::move(err));
    else
      llvm::consumeError(std::move(err));
  }

  /// The converted attributes, or the first error (including attributes that
  /// were never looked at: MXNet semantics mxc does not model).
  llvm::Expected<NamedAttrList> finish() {
    for (auto &[key, value] : node.attrs) {
      if (StringRef(key).starts_with("__") || seen.count(key))
        continue;
      fail(reader.makeError("attribute '" + key + "' = \"" + value +
                            "\" is not supported"));
    }
    if (!error.empty())
      return makeError(error);
    return attrs;
  }

private:
  bool take(StringRef key) {
    seen.insert(key);
    return reader.has(key);
  }

  const SymbolNode &node;
  AttrReader reader;
  Builder &b;
  NamedAttrList attrs;
  llvm::StringSet<> seen;
  std::string error;
};

/// How an MXNet operator maps onto the mx dialect.
struct OpMapping {
  StringRef mxOp;
  /// Fixed attribute of a family op (`op` of mx.binary, ...).
  StringRef family;
};

/// MXNet 1.x's self-attention products over interleaved projections
/// (GluonNLP's BERT): built from mx ops by importInterleavedAttention.
bool isInterleavedAttention(StringRef op) {
  op.consume_front("_contrib_");
  return op == "interleaved_matmul_selfatt_qk" ||
         op == "interleaved_matmul_selfatt_valatt";
}

std::optional<OpMapping> lookupOp(StringRef op) {
  auto binary = [](StringRef fn) { return OpMapping{"mx.binary", fn}; };
  auto scalar = [](StringRef fn) { return OpMapping{"mx.scalar", fn}; };
  auto unary = [](StringRef fn) { return OpMapping{"mx.unary", fn}; };
  auto reduce = [](StringRef fn) { return OpMapping{"mx.reduce", fn}; };
  return llvm::StringSwitch<std::optional<OpMapping>>(op)
      .Case("FullyConnected", OpMapping{"mx.FullyConnected", {}})
      .Case("Convolution", OpMapping{"mx.Convolution", {}})
      .Case("Pooling", OpMapping{"mx.Pooling", {}})
      .Case("Activation", OpMapping{"mx.Activation", {}})
      .Case("LeakyReLU", OpMapping{"mx.LeakyReLU", {}})
      .Cases({"BatchNorm", "CuDNNBatchNorm"}, OpMapping{"mx.BatchNorm", {}})
      .Case("Dropout", OpMapping{"mx.Dropout", {}})
      .Case("LRN", OpMapping{"mx.LRN", {}})
      .Case("Embedding", OpMapping{"mx.Embedding", {}})
      .Case("softmax", OpMapping{"mx.softmax", {}})
      .Case("log_softmax", OpMapping{"mx.softmax", "log"})
      .Cases({"SoftmaxOutput", "Softmax"}, OpMapping{"mx.SoftmaxOutput", {}})
      .Case("LinearRegressionOutput",
            OpMapping{"mx.LinearRegressionOutput", {}})
      .Case("LogisticRegressionOutput",
            OpMapping{"mx.LogisticRegressionOutput", {}})
      .Case("MAERegressionOutput", OpMapping{"mx.MAERegressionOutput", {}})
      .Cases({"elemwise_add", "_plus", "_Plus", "_add", "broadcast_add",
              "broadcast_plus"},
             binary("add"))
      .Cases({"elemwise_sub", "_minus", "_Minus", "_sub", "broadcast_sub",
              "broadcast_minus"},
             binary("sub"))
      .Cases({"elemwise_mul", "_mul", "_Mul", "broadcast_mul"}, binary("mul"))
      .Cases({"elemwise_div", "_div", "_Div", "broadcast_div"}, binary("div"))
      .Cases({"_maximum", "_Maximum", "broadcast_maximum"}, binary("maximum"))
      .Cases({"_minimum", "_Minimum", "broadcast_minimum"}, binary("minimum"))
      .Cases({"_power", "_Power", "broadcast_power"}, binary("power"))
      .Cases({"_plus_scalar", "_PlusScalar"}, scalar("add"))
      .Cases({"_minus_scalar", "_MinusScalar"}, scalar("sub"))
      .Cases({"_rminus_scalar", "_RMinusScalar"}, scalar("rsub"))
      .Cases({"_mul_scalar", "_MulScalar"}, scalar("mul"))
      .Cases({"_div_scalar", "_DivScalar"}, scalar("div"))
      .Cases({"_rdiv_scalar", "_RDivScalar"}, scalar("rdiv"))
      .Cases({"_maximum_scalar", "_MaximumScalar"}, scalar("maximum"))
      .Cases({"_minimum_scalar", "_MinimumScalar"}, scalar("minimum"))
      .Cases({"_power_scalar", "_PowerScalar"}, scalar("power"))
      .Cases({"_rpower_scalar", "_RPowerScalar"}, scalar("rpower"))
      .Cases({"exp", "log", "sqrt", "rsqrt", "square", "abs", "negative",
              "reciprocal", "relu", "sigmoid", "tanh", "softsign", "erf"},
             unary(op))
      .Case("clip", OpMapping{"mx.clip", {}})
      .Case("dot", OpMapping{"mx.dot", {}})
      .Case("batch_dot", OpMapping{"mx.dot", "batch"})
      .Cases({"sum", "sum_axis"}, reduce("sum"))
      .Case("mean", reduce("mean"))
      .Cases({"max", "max_axis"}, reduce("max"))
      .Cases({"min", "min_axis"}, reduce("min"))
      .Cases({"Flatten", "flatten"}, OpMapping{"mx.Flatten", {}})
      .Cases({"Reshape", "reshape"}, OpMapping{"mx.Reshape", {}})
      .Case("transpose", OpMapping{"mx.transpose", {}})
      .Case("expand_dims", OpMapping{"mx.expand_dims", {}})
      .Case("squeeze", OpMapping{"mx.squeeze", {}})
      .Cases({"Concat", "concat"}, OpMapping{"mx.Concat", {}})
      .Cases({"slice", "crop"}, OpMapping{"mx.slice", {}})
      .Case("slice_axis", OpMapping{"mx.slice", "axis"})
      .Cases({"SliceChannel", "split"}, OpMapping{"mx.SliceChannel", {}})
      .Cases({"BlockGrad", "stop_gradient"}, OpMapping{"mx.BlockGrad", {}})
      .Cases({"_copy", "identity", "_identity"}, OpMapping{"", "identity"})
      .Default(std::nullopt);
}

/// Loss heads whose label input is not used at inference.
bool isLossWithLabel(StringRef op) {
  return op == "SoftmaxOutput" || op == "Softmax" ||
         op == "LinearRegressionOutput" || op == "LogisticRegressionOutput" ||
         op == "MAERegressionOutput";
}

/// Initial values of a parameter, by MXNet's naming conventions: *_bias,
/// *_beta and *_moving_mean are 0, *_gamma and *_moving_var 1, anything
/// else is a weight drawn from Xavier's uniform distribution (magnitude 3,
/// fan average: U(-s, s), s = sqrt(6 / (fan_in + fan_out)) with the fans of
/// an (out, in, k...) weight). The stream depends only on `seed` and the
/// name, so every import of a model gets the same values.
std::vector<float> initialValues(StringRef name, ArrayRef<int64_t> shape,
                                 uint64_t seed) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  auto filled = [&](float v) { return std::vector<float>(n, v); };
  if (name.ends_with("_bias") || name.ends_with("_beta") ||
      name.ends_with("_moving_mean"))
    return filled(0.0f);
  if (name.ends_with("_gamma") || name.ends_with("_moving_var"))
    return filled(1.0f);
  int64_t receptive = 1;
  for (size_t i = 2; i < shape.size(); ++i)
    receptive *= shape[i];
  double fanOut = shape.empty() ? 1.0 : double(shape[0] * receptive);
  double fanIn = shape.size() < 2 ? 1.0 : double(shape[1] * receptive);
  double scale = std::sqrt(6.0 / (fanIn + fanOut));
  // splitmix64 over a seed mixed with the name (FNV-1a).
  uint64_t state = 1469598103934665603ull ^ seed;
  for (char c : name)
    state = (state ^ uint8_t(c)) * 1099511628211ull;
  std::vector<float> values(n);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    double u = double(z >> 11) * 0x1p-53; // [0, 1)
    values[i] = float((2.0 * u - 1.0) * scale);
  }
  return values;
}

class Importer {
public:
  Importer(MLIRContext &ctx, const SymbolGraph &graph,
           const ImportOptions &opts)
      : ctx(ctx), b(&ctx), graph(graph), opts(opts) {}

  llvm::Expected<ImportedModel> run();

private:
  llvm::Error loadParams();
  llvm::Expected<Value> variable(unsigned nodeIndex, unsigned consumer,
                                 unsigned operandIndex,
                                 ArrayRef<Value> operandsSoFar);
  llvm::Error importNode(unsigned index);
  llvm::Error importInterleavedAttention(const SymbolNode &node, unsigned index,
                                         ArrayRef<Value> operands);
  llvm::Expected<Value> attachLoss(Value out, const std::string &outName);
  llvm::Expected<NamedAttrList> convertAttrs(const SymbolNode &node,
                                             const OpMapping &m,
                                             ArrayRef<Value> operands);
  std::optional<std::vector<int64_t>>
  inferParamShape(const SymbolNode &consumer, unsigned operandIndex,
                  ArrayRef<Value> operandsSoFar);
  llvm::Error nodeError(const SymbolNode &node, const Twine &message) {
    return makeError("'" + graph.fileName + "': node '" + node.name + "' (" +
                     node.op + "): " + message);
  }
  Location locOf(const SymbolNode &node) {
    return NameLoc::get(b.getStringAttr(node.name),
                        FileLineColLoc::get(&ctx, graph.fileName, 0, 0));
  }

  MLIRContext &ctx;
  OpBuilder b;
  const SymbolGraph &graph;
  const ImportOptions &opts;

  ImportedModel result;
  func::FuncOp func;
  Block *body = nullptr;
  /// Values per node output.
  std::vector<SmallVector<Value>> values;
  /// Parameters from the .params file by bare name.
  std::map<std::string, NamedArray> params;
  std::set<std::string> usedParams;
  unsigned numInputArgs = 0;
};

llvm::Error Importer::loadParams() {
  if (opts.paramsPath.empty())
    return llvm::Error::success();
  auto arrays = readParamsFile(opts.paramsPath);
  if (!arrays)
    return arrays.takeError();
  for (NamedArray &a : *arrays) {
    if (a.name.empty())
      return makeError("'" + opts.paramsPath +
                       "': arrays have no names; mxc needs named parameters");
    if (params.count(a.name))
      return makeError("'" + opts.paramsPath + "': parameter '" + a.name +
                       "' appears twice");
    std::string name = a.name;
    params.emplace(name, std::move(a));
  }
  return llvm::Error::success();
}

std::optional<std::vector<int64_t>>
Importer::inferParamShape(const SymbolNode &consumer, unsigned operandIndex,
                          ArrayRef<Value> operandsSoFar) {
  if (operandsSoFar.empty())
    return std::nullopt;
  auto data = cast<RankedTensorType>(operandsSoFar[0].getType()).getShape();
  AttrReader r(consumer);
  auto getInt = [&](StringRef key, int64_t dflt) -> int64_t {
    auto v = r.getInt(key, dflt);
    if (!v) {
      llvm::consumeError(v.takeError());
      return -1;
    }
    return *v;
  };
  StringRef op = consumer.op;
  if (op == "Convolution" && data.size() >= 3) {
    int64_t f = getInt("num_filter", -1), g = getInt("num_group", 1);
    if (operandIndex == 2)
      return std::vector<int64_t>{f};
    auto kernel = r.getTuple("kernel");
    if (!kernel) {
      llvm::consumeError(kernel.takeError());
      return std::nullopt;
    }
    std::vector<int64_t> shape = {f, g > 0 ? data[1] / g : -1};
    shape.insert(shape.end(), kernel->begin(), kernel->end());
    return shape;
  }
  if (op == "FullyConnected") {
    int64_t h = getInt("num_hidden", -1);
    if (operandIndex == 2)
      return std::vector<int64_t>{h};
    auto flatten = r.getBool("flatten", true);
    bool flat =
        flatten ? *flatten : (llvm::consumeError(flatten.takeError()), true);
    int64_t k = 1;
    if (flat)
      for (size_t i = 1; i < data.size(); ++i)
        k *= data[i];
    else
      k = data.back();
    return std::vector<int64_t>{h, k};
  }
  if ((op == "BatchNorm" || op == "CuDNNBatchNorm") && !data.empty()) {
    int64_t axis = getInt("axis", 1);
    if (axis < 0)
      axis += data.size();
    if (axis < 0 || axis >= (int64_t)data.size())
      return std::nullopt;
    return std::vector<int64_t>{data[axis]};
  }
  if (op == "LeakyReLU" && data.size() >= 2)
    return std::vector<int64_t>{data[1]};
  if (op == "Embedding")
    return std::vector<int64_t>{getInt("input_dim", -1),
                                getInt("output_dim", -1)};
  return std::nullopt;
}

llvm::Expected<Value> Importer::variable(unsigned nodeIndex, unsigned consumer,
                                         unsigned operandIndex,
                                         ArrayRef<Value> operandsSoFar) {
  if (!values[nodeIndex].empty())
    return values[nodeIndex][0];
  const SymbolNode &var = graph.nodes[nodeIndex];
  const SymbolNode &user = graph.nodes[consumer];
  Type f32 = b.getF32Type();
  Value arg;
  auto input = opts.inputShapes.find(var.name);
  auto param = params.find(var.name);
  bool isLabel =
      opts.withLabels && isLossWithLabel(user.op) && operandIndex == 1;
  if (isLabel && input == opts.inputShapes.end()) {
    if (operandsSoFar.empty())
      return nodeError(user, "the label needs the data operand first");
    auto data = cast<RankedTensorType>(operandsSoFar[0].getType()).getShape();
    // Class indices for SoftmaxOutput, one target per output otherwise.
    bool classes = user.op == "SoftmaxOutput" || user.op == "Softmax";
    std::vector<int64_t> shape(data.begin(), data.end() - (classes ? 1 : 0));
    auto type = RankedTensorType::get(shape, f32);
    arg = body->insertArgument(numInputArgs++, type, locOf(var));
    result.spec.inputs.push_back({var.name, mxc::DType::F32, shape});
  } else if (input != opts.inputShapes.end()) {
    auto type = RankedTensorType::get(input->second, f32);
    arg = body->insertArgument(numInputArgs++, type, locOf(var));
    result.spec.inputs.push_back({var.name, mxc::DType::F32, input->second});
  } else if (param != params.end()) {
    NamedArray &a = param->second;
    if (a.isNone)
      return makeError("'" + opts.paramsPath + "': parameter '" + var.name +
                       "' is an empty array");
    if (auto expected = inferParamShape(user, operandIndex, operandsSoFar);
        expected && *expected != a.shape)
      return nodeError(user, "parameter '" + var.name + "' has shape " +
                                 shapeText(a.shape) + " in '" +
                                 opts.paramsPath + "' but the node needs " +
                                 shapeText(*expected));
    auto floats = a.toFloat32();
    if (!floats)
      return makeError("'" + opts.paramsPath + "': parameter '" + var.name +
                       "': " + llvm::toString(floats.takeError()));
    usedParams.insert(var.name);
    auto type = RankedTensorType::get(a.shape, f32);
    arg = body->addArgument(type, locOf(var));
    result.spec.addParam({var.name, mxc::DType::F32, a.shape},
                         reinterpret_cast<const uint8_t *>(floats->data()));
    // BatchNorm's moving mean and variance (operands 3, 4) are aux states.
    result.spec.params.back().aux =
        user.op == "BatchNorm" && (operandIndex == 3 || operandIndex == 4);
  } else if (opts.paramsPath.empty() && opts.initializeParams) {
    auto shape = inferParamShape(user, operandIndex, operandsSoFar);
    if (!shape || llvm::any_of(*shape, [](int64_t d) { return d < 1; }))
      return nodeError(user, "the shape of parameter '" + var.name +
                                 "' is unknown; give it with --input " +
                                 var.name + "=SHAPE");
    std::vector<float> data = initialValues(var.name, *shape, opts.initSeed);
    arg = body->addArgument(RankedTensorType::get(*shape, f32), locOf(var));
    result.spec.addParam({var.name, mxc::DType::F32, *shape},
                         reinterpret_cast<const uint8_t *>(data.data()));
    result.spec.params.back().aux =
        user.op == "BatchNorm" && (operandIndex == 3 || operandIndex == 4);
  } else if (opts.paramsPath.empty()) {
    // No parameters given: the compiled model takes them as inputs.
    auto shape = inferParamShape(user, operandIndex, operandsSoFar);
    if (!shape || llvm::any_of(*shape, [](int64_t d) { return d < 1; }))
      return nodeError(user, "the shape of input '" + var.name +
                                 "' is unknown; give it with --input " +
                                 var.name + "=SHAPE");
    auto type = RankedTensorType::get(*shape, f32);
    arg = body->insertArgument(numInputArgs++, type, locOf(var));
    result.spec.inputs.push_back({var.name, mxc::DType::F32, *shape});
  } else if (inferParamShape(user, operandIndex, operandsSoFar)) {
    return nodeError(user, "parameter '" + var.name + "' is missing from '" +
                               opts.paramsPath + "'");
  } else {
    return nodeError(user, "input '" + var.name +
                               "' has no shape; give it with --input " +
                               var.name + "=SHAPE");
  }
  values[nodeIndex].push_back(arg);
  return arg;
}

/// Python-style resolution of MXNet's None slice bounds for one axis.
void resolveSliceBounds(std::optional<int64_t> begin,
                        std::optional<int64_t> end, int64_t step, int64_t dim,
                        int64_t &outBegin, int64_t &outEnd) {
  outBegin = begin ? *begin : (step > 0 ? 0 : dim - 1);
  outEnd = end ? *end : (step > 0 ? dim : -dim - 1);
}

llvm::Expected<NamedAttrList> Importer::convertAttrs(const SymbolNode &node,
                                                     const OpMapping &m,
                                                     ArrayRef<Value> operands) {
  AttrConverter c(node, graph.fileName, b);
  StringRef op = m.mxOp;
  c.ignore({"workspace", "cudnn_tune", "cudnn_off", "num_args",
            "key_var_num_args", "ctx_group", "lr_mult", "wd_mult",
            "forward_stype", "sparse_grad"});
  if (op == "mx.FullyConnected") {
    c.i64("num_hidden");
    c.boolean("no_bias");
    c.boolean("flatten");
  } else if (op == "mx.Convolution") {
    for (StringRef k : {"kernel", "stride", "dilate", "pad"})
      c.tuple(k);
    c.i64("num_filter");
    c.i64("num_group");
    c.boolean("no_bias");
    c.only("layout", {"NCW", "NCHW", "None"});
  } else if (op == "mx.Pooling") {
    c.tuple("kernel");
    c.tuple("stride");
    c.tuple("pad");
    c.str("pool_type");
    c.boolean("global_pool");
    c.str("pooling_convention");
    if (c.has("count_include_pad") && c.get("count_include_pad") != "None")
      c.boolean("count_include_pad");
    else
      c.ignore({"count_include_pad"});
    c.only("layout", {"NCW", "NCHW", "None"});
  } else if (op == "mx.Activation") {
    c.str("act_type");
  } else if (op == "mx.LeakyReLU") {
    c.str("act_type");
    c.f64("slope");
    c.ignore({"lower_bound", "upper_bound"});
  } else if (op == "mx.BatchNorm") {
    c.f64("eps");
    c.f64("momentum");
    c.boolean("fix_gamma");
    c.boolean("use_global_stats");
    c.i64("axis");
    c.only("output_mean_var", {"False", "false", "0"});
    c.ignore({"min_calib_range", "max_calib_range", "act_type"});
  } else if (op == "mx.Dropout") {
    c.f64("p");
    c.only("mode", {"training"});
    c.ignore({"axes"});
  } else if (op == "mx.LRN") {
    for (StringRef k : {"alpha", "beta", "knorm"})
      c.f64(k);
    c.i64("nsize");
  } else if (op == "mx.Embedding") {
    c.i64("input_dim");
    c.i64("output_dim");
    c.only("dtype", {"float32"});
  } else if (op == "mx.softmax") {
    c.i64("axis");
    c.f64("temperature");
    c.only("use_length", {"False", "false", "0"});
    c.only("dtype", {"float32", "None"});
    if (m.family == "log")
      c.set("log", b.getBoolAttr(true));
  } else if (op == "mx.LinearRegressionOutput" ||
             op == "mx.LogisticRegressionOutput" ||
             op == "mx.MAERegressionOutput") {
    c.f64("grad_scale");
  } else if (op == "mx.SoftmaxOutput") {
    c.f64("grad_scale");
    c.f64("ignore_label");
    c.boolean("multi_output");
    c.boolean("use_ignore");
    c.boolean("preserve_shape");
    c.str("normalization");
    c.ignore({"out_grad", "smooth_alpha"});
  } else if (op == "mx.binary") {
    c.set("op", b.getStringAttr(m.family));
    // elemwise_* and the _plus family need equal shapes; only broadcast_*
    // broadcast.
    if (!StringRef(node.op).starts_with("broadcast_") && operands.size() == 2 &&
        operands[0].getType() != operands[1].getType())
      return nodeError(
          node,
          "operand shapes " +
              shapeText(
                  cast<RankedTensorType>(operands[0].getType()).getShape()) +
              " and " +
              shapeText(
                  cast<RankedTensorType>(operands[1].getType()).getShape()) +
              " differ (use a broadcast_* op to broadcast)");
  } else if (op == "mx.scalar") {
    StringRef fn = m.family;
    bool reverse = fn.consume_front("r");
    c.set("op", b.getStringAttr(fn));
    c.set("reverse", b.getBoolAttr(reverse));
    c.f64("scalar");
    c.ignore({"is_int"});
    if (!c.has("scalar"))
      c.set("scalar", b.getF64FloatAttr(1.0));
  } else if (op == "mx.unary") {
    c.set("op", b.getStringAttr(m.family));
  } else if (op == "mx.clip") {
    c.f64("a_min");
    c.f64("a_max");
  } else if (op == "mx.dot") {
    c.boolean("transpose_a");
    c.boolean("transpose_b");
    if (m.family == "batch")
      c.set("batch", b.getBoolAttr(true));
  } else if (op == "mx.reduce") {
    c.set("op", b.getStringAttr(m.family));
    c.tuple("axis");
    c.boolean("keepdims");
    c.boolean("exclude");
  } else if (op == "mx.Reshape") {
    c.tuple("shape");
    c.boolean("reverse");
    c.only("target_shape", {"(0,0)", "()", "(0, 0)"});
    c.only("keep_highest", {"False", "false", "0"});
  } else if (op == "mx.transpose") {
    c.tuple("axes");
  } else if (op == "mx.expand_dims") {
    c.i64("axis");
  } else if (op == "mx.squeeze") {
    c.tuple("axis");
  } else if (op == "mx.Concat") {
    c.i64("dim");
  } else if (op == "mx.SliceChannel") {
    c.i64("num_outputs");
    c.i64("axis");
    c.boolean("squeeze_axis");
  } else if (op == "mx.slice") {
    if (operands.size() != 1)
      return nodeError(node, "expects 1 input, got " + Twine(operands.size()));
    auto shape = cast<RankedTensorType>(operands[0].getType()).getShape();
    SmallVector<int64_t> begin, end, step;
    if (m.family == "axis") {
      c.ignore({"axis", "begin", "end"});
      const AttrReader &r = c.getReader();
      auto axis = r.getInt("axis", 0);
      if (!axis)
        return axis.takeError();
      auto first = r.getInt("begin", 0);
      if (!first)
        return first.takeError();
      auto last = r.getOptionalInt("end");
      if (!last)
        return last.takeError();
      int64_t ax = *axis < 0 ? *axis + (int64_t)shape.size() : *axis;
      if (ax < 0 || ax >= (int64_t)shape.size())
        return nodeError(node, "axis " + Twine(*axis) +
                                   " is out of range for shape " +
                                   shapeText(shape));
      for (int64_t i = 0; i <= ax; ++i) {
        int64_t lo = 0, hi = shape[i];
        if (i == ax)
          resolveSliceBounds(*first, *last, 1, shape[i], lo, hi);
        begin.push_back(lo);
        end.push_back(hi);
      }
    } else {
      c.ignore({"begin", "end", "step"});
      const AttrReader &r = c.getReader();
      auto bs = r.getOptionalTuple("begin");
      if (!bs)
        return bs.takeError();
      auto es = r.getOptionalTuple("end");
      if (!es)
        return es.takeError();
      SmallVector<std::optional<int64_t>, 4> ss;
      if (r.has("step")) {
        auto s = r.getOptionalTuple("step");
        if (!s)
          return s.takeError();
        ss = *s;
      }
      if (bs->size() != es->size() || bs->size() > shape.size() ||
          (!ss.empty() && ss.size() != bs->size()))
        return nodeError(node, "begin, end and step must have equal lengths of "
                               "at most the rank " +
                                   Twine(shape.size()));
      for (size_t i = 0; i < bs->size(); ++i) {
        int64_t s = i < ss.size() && ss[i] ? *ss[i] : 1;
        if (s == 0)
          return nodeError(node, "step must not be 0");
        int64_t lo, hi;
        resolveSliceBounds((*bs)[i], (*es)[i], s, shape[i], lo, hi);
        begin.push_back(lo);
        end.push_back(hi);
        step.push_back(s);
      }
    }
    c.set("begin", b.getDenseI64ArrayAttr(begin));
    c.set("end", b.getDenseI64ArrayAttr(end));
    if (!step.empty())
      c.set("step", b.getDenseI64ArrayAttr(step));
  }
  return c.finish();
}

llvm::Error Importer::importNode(unsigned index) {
  const SymbolNode &node = graph.nodes[index];
  std::optional<OpMapping> m = lookupOp(node.op);
  bool interleaved = isInterleavedAttention(node.op);
  if (!m && !interleaved)
    return nodeError(node, "unknown operator '" + node.op +
                               "' (not supported by mxc)");
  // Operands, with variables resolved on first use.
  SmallVector<Value> operands;
  for (auto [i, in] : llvm::enumerate(node.inputs)) {
    if (isLossWithLabel(node.op) && i == 1 && !opts.withLabels)
      continue; // the label: unused at inference
    const SymbolNode &src = graph.nodes[in.node];
    if (src.isVariable) {
      auto v = variable(in.node, index, i, operands);
      if (!v)
        return v.takeError();
      operands.push_back(*v);
      continue;
    }
    if (in.index >= values[in.node].size())
      return nodeError(node, "input " + Twine(i) + " refers to output " +
                                 Twine(in.index) + " of node '" + src.name +
                                 "', which has " +
                                 Twine(values[in.node].size()) + " outputs");
    operands.push_back(values[in.node][in.index]);
  }
  if (interleaved)
    return importInterleavedAttention(node, index, operands);
  if (m->family == "identity") {
    if (operands.size() != 1)
      return nodeError(node, "expects 1 input, got " + Twine(operands.size()));
    values[index].push_back(operands[0]);
    return llvm::Error::success();
  }
  auto attrs = convertAttrs(node, *m, operands);
  if (!attrs)
    return attrs.takeError();

  // Operand count: optional bias / gamma follow MXNet's flags.
  StringRef op = m->mxOp;
  auto noBias = [&] {
    auto a = attrs->get("no_bias");
    return a && cast<BoolAttr>(a).getValue();
  };
  size_t expected = operands.size();
  if (op == "mx.FullyConnected" || op == "mx.Convolution")
    expected = noBias() ? 2 : 3;
  else if (op == "mx.BatchNorm")
    expected = 5;
  else if (op == "mx.Embedding" || op == "mx.binary" || op == "mx.dot")
    expected = 2;
  else if (isLossWithLabel(node.op))
    expected = opts.withLabels ? 2 : 1;
  else if (op == "mx.LeakyReLU") {
    auto act = attrs->get("act_type");
    expected = act && cast<StringAttr>(act).getValue() == "prelu" ? 2 : 1;
  } else if (op != "mx.Concat")
    expected = 1;
  if (operands.size() != expected)
    return nodeError(node, "expects " + Twine(expected) + " inputs, got " +
                               Twine(operands.size()));

  std::string error;
  FailureOr<Operation *> created =
      buildVerifiedOp(b, locOf(node), op, operands, attrs->getAttrs(), error);
  if (failed(created))
    return nodeError(node, error);
  values[index].assign((*created)->result_begin(), (*created)->result_end());
  return llvm::Error::success();
}

/// interleaved_matmul_selfatt_qk(qkv, heads) and _valatt(qkv, att, heads):
/// qkv is (seq, batch, heads * 3 * d), each head's query, key and value
/// side by side. As MXNet defines them: qk = batch_dot(q / sqrt(d), k^T)
/// over (batch * heads, seq, d) views, valatt = att . v back in qkv's
/// layout (seq, batch, heads * d). Built as the Reshape / slice / transpose
/// / batch_dot ops those definitions name, the scale after the product
/// (where MXNet's explicit attention has it), so that the attention fusion
/// sees the same pattern as in a graph written with batch_dot.
llvm::Error Importer::importInterleavedAttention(const SymbolNode &node,
                                                 unsigned index,
                                                 ArrayRef<Value> operands) {
  bool qk = StringRef(node.op).ends_with("_qk");
  size_t expected = qk ? 1 : 2;
  if (operands.size() != expected)
    return nodeError(node, "expects " + Twine(expected) + " inputs, got " +
                               Twine(operands.size()));
  for (const auto &[key, value] : node.attrs)
    if (key != "heads" && !StringRef(key).starts_with("__"))
      return nodeError(node, "attribute '" + key + "' is not supported");
  AttrReader reader(node, graph.fileName);
  auto heads = reader.getInt("heads", 0);
  if (!heads)
    return heads.takeError();
  if (*heads <= 0)
    return nodeError(node, "needs heads >= 1 (got " + Twine(*heads) + ")");
  auto qkvType = dyn_cast<RankedTensorType>(operands[0].getType());
  if (!qkvType || qkvType.getRank() != 3 ||
      ShapedType::isDynamic(qkvType.getDimSize(2)) ||
      qkvType.getDimSize(2) % (3 * *heads))
    return nodeError(node, "needs queries_keys_values of shape (seq, batch, "
                           "heads * 3 * d) with heads = " +
                               Twine(*heads) + ", got " +
                               shapeText(qkvType ? qkvType.getShape()
                                                 : ArrayRef<int64_t>{}));
  int64_t d = qkvType.getDimSize(2) / (3 * *heads);
  Location loc = locOf(node);
  std::string error;
  auto build = [&](StringRef op, ValueRange in,
                   ArrayRef<NamedAttribute> attrs) -> FailureOr<Value> {
    FailureOr<Operation *> created =
        buildVerifiedOp(b, loc, op, in, attrs, error);
    if (failed(created))
      return failure();
    return (*created)->getResult(0);
  };
  auto ints = [&](ArrayRef<int64_t> v) { return b.getDenseI64ArrayAttr(v); };
  auto named = [&](StringRef key, Attribute a) {
    return b.getNamedAttr(key, a);
  };
  // Projection j (0 queries, 1 keys, 2 values) as (batch * heads, seq, d).
  auto projection = [&](int64_t j) -> FailureOr<Value> {
    constexpr int64_t kAll = std::numeric_limits<int32_t>::max();
    FailureOr<Value> v = build("mx.Reshape", operands[0],
                               {named("shape", ints({0, 0, *heads, 3, -1}))});
    if (succeeded(v))
      v = build("mx.slice", *v,
                {named("begin", ints({0, 0, 0, j})),
                 named("end", ints({kAll, kAll, kAll, j + 1})),
                 named("step", ints({}))});
    if (succeeded(v))
      v = build("mx.Reshape", *v, {named("shape", ints({0, 0, 0, -1}))});
    if (succeeded(v))
      v = build("mx.transpose", *v, {named("axes", ints({1, 2, 0, 3}))});
    if (succeeded(v))
      v = build("mx.Reshape", *v, {named("shape", ints({-3, 0, 0}))});
    return v;
  };
  FailureOr<Value> out = failure();
  if (qk) {
    FailureOr<Value> q = projection(0), k = projection(1);
    if (succeeded(q) && succeeded(k))
      out = build("mx.dot", {*q, *k},
                  {named("transpose_b", b.getBoolAttr(true)),
                   named("batch", b.getBoolAttr(true))});
    if (succeeded(out))
      out =
          build("mx.scalar", *out,
                {named("op", b.getStringAttr("mul")),
                 named("scalar", b.getF64FloatAttr(1 / std::sqrt(double(d))))});
  } else {
    FailureOr<Value> v = projection(2);
    if (succeeded(v))
      out = build("mx.dot", {operands[1], *v},
                  {named("batch", b.getBoolAttr(true))});
    if (succeeded(out))
      out = build("mx.Reshape", *out,
                  {named("shape", ints({-4, -1, *heads, 0, 0}))});
    if (succeeded(out))
      out = build("mx.transpose", *out, {named("axes", ints({2, 0, 1, 3}))});
    if (succeeded(out))
      out = build("mx.Reshape", *out, {named("shape", ints({0, 0, -1}))});
  }
  if (failed(out))
    return nodeError(node, error);
  values[index].push_back(*out);
  return llvm::Error::success();
}

/// `out` through the loss head opts.loss names, with a new label input
/// (`<outName>_label`) of the head's label shape (class indices for
/// softmax-ce, the output's shape otherwise).
llvm::Expected<Value> Importer::attachLoss(Value out,
                                           const std::string &outName) {
  static const std::pair<StringRef, StringRef> heads[] = {
      {"softmax-ce", "mx.SoftmaxOutput"},
      {"l2", "mx.LinearRegressionOutput"},
      {"l1", "mx.MAERegressionOutput"},
      {"sigmoid-bce", "mx.LogisticRegressionOutput"}};
  auto head = llvm::find_if(
      heads, [&](const auto &entry) { return entry.first == opts.loss; });
  if (head == std::end(heads))
    return makeError("--loss '" + opts.loss +
                     "' is not one of softmax-ce, l2, l1, sigmoid-bce");
  ArrayRef<int64_t> outShape = cast<RankedTensorType>(out.getType()).getShape();
  bool classes = opts.loss == "softmax-ce";
  if (classes && outShape.empty())
    return makeError("--loss softmax-ce needs outputs with a class axis, "
                     "not scalars");
  std::string name = outName + "_label";
  std::vector<int64_t> shape(outShape.begin(),
                             outShape.end() - (classes ? 1 : 0));
  if (auto given = opts.inputShapes.find(name); given != opts.inputShapes.end())
    shape = given->second;
  Location loc = NameLoc::get(b.getStringAttr(name));
  Value label = body->insertArgument(
      numInputArgs++, RankedTensorType::get(shape, b.getF32Type()), loc);
  result.spec.inputs.push_back({name, mxc::DType::F32, shape});
  std::string error;
  FailureOr<Operation *> created =
      buildVerifiedOp(b, loc, head->second, {out, label}, {}, error);
  if (failed(created))
    return makeError("'" + graph.fileName + "': --loss " + opts.loss + ": " +
                     error);
  return (*created)->getResult(0);
}

llvm::Expected<ImportedModel> Importer::run() {
  if (auto err = loadParams())
    return std::move(err);
  for (auto &[name, shape] : opts.inputShapes) {
    auto n = graph.findNode(name);
    bool lossLabel = !opts.loss.empty() && StringRef(name).ends_with("_label");
    if (!lossLabel && (!n || !graph.nodes[*n].isVariable))
      return makeError("'" + graph.fileName + "': --input '" + name +
                       "' is not an input of the graph");
    for (int64_t d : shape)
      if (d < 1)
        return makeError("--input '" + name + "': extents must be positive");
  }
  ctx.loadDialect<mx::MxDialect, func::FuncDialect>();
  result.module =
      ModuleOp::create(FileLineColLoc::get(&ctx, graph.fileName, 0, 0));
  b.setInsertionPointToEnd(result.module->getBody());
  func = func::FuncOp::create(b, result.module->getLoc(), opts.funcName,
                              b.getFunctionType({}, {}));
  body = func.addEntryBlock();
  b.setInsertionPointToEnd(body);
  values.resize(graph.nodes.size());

  // Import only what the heads need.
  std::vector<bool> needed(graph.nodes.size(), false);
  for (const HeadRef &h : graph.heads)
    needed[h.node] = true;
  for (size_t i = graph.nodes.size(); i-- > 0;)
    if (needed[i])
      for (const EntryRef &in : graph.nodes[i].inputs)
        needed[in.node] = true;
  for (unsigned i = 0; i < graph.nodes.size(); ++i)
    if (needed[i] && !graph.nodes[i].isVariable)
      if (auto err = importNode(i))
        return std::move(err);

  SmallVector<Value> outs;
  for (const HeadRef &h : graph.heads) {
    const SymbolNode &node = graph.nodes[h.node];
    if (node.isVariable) {
      auto v = variable(h.node, h.node, 0, {});
      if (!v)
        return v.takeError();
    }
    if (h.index >= values[h.node].size())
      return makeError("'" + graph.fileName + "': head refers to output " +
                       Twine(h.index) + " of node '" + node.name + "'");
    Value v = values[h.node][h.index];
    if (!opts.loss.empty() && opts.withLabels) {
      if (isLossWithLabel(node.op) || node.op == "MakeLoss")
        return nodeError(node, "the model already ends in a loss head; "
                               "--loss is for models that end at their "
                               "outputs");
      auto withLoss =
          attachLoss(v, graph.heads.size() == 1
                            ? std::string("softmax")
                            : outputName(graph, h, values[h.node].size()));
      if (!withLoss)
        return withLoss.takeError();
      v = *withLoss;
    }
    outs.push_back(v);
    auto type = cast<RankedTensorType>(v.getType());
    result.spec.outputs.push_back(
        {outputName(graph, h, values[h.node].size()), mxc::DType::F32,
         std::vector<int64_t>(type.getShape().begin(), type.getShape().end())});
  }
  func::ReturnOp::create(b, result.module->getLoc(), outs);
  func.setFunctionType(
      b.getFunctionType(body->getArgumentTypes(), TypeRange(ValueRange(outs))));
  // Names for the gradient pass: inputs, then the parameters in spec order,
  // marked mx.param (learned) or mx.aux (moving statistics).
  for (unsigned i = 0; i < body->getNumArguments(); ++i) {
    bool isParam = i >= numInputArgs;
    const TensorSpec &t =
        isParam ? result.spec.params[i - numInputArgs] : result.spec.inputs[i];
    func.setArgAttr(i, "mx.name", b.getStringAttr(t.name));
    if (isParam)
      func.setArgAttr(
          i, result.spec.params[i - numInputArgs].aux ? "mx.aux" : "mx.param",
          b.getUnitAttr());
  }

  for (auto &[name, array] : params)
    if (!usedParams.count(name))
      return makeError("'" + opts.paramsPath + "': parameter '" + name +
                       "' is not used by the graph in '" + graph.fileName +
                       "'");
  for (const auto &entry : opts.inputShapes) {
    const std::string &name = entry.first;
    if (llvm::none_of(result.spec.inputs,
                      [&](const TensorSpec &t) { return t.name == name; }))
      return makeError("'" + graph.fileName + "': --input '" + name +
                       "' is not used by the graph's outputs");
  }

  if (failed(verify(*result.module)))
    return makeError("'" + graph.fileName +
                     "': the imported module does not verify");
  return std::move(result);
}

} // namespace

llvm::Expected<ImportedModel>
mxc::mxnet::importModel(MLIRContext &context, StringRef symbolPath,
                        const ImportOptions &options) {
  auto graph = readSymbolFile(symbolPath);
  if (!graph)
    return graph.takeError();
  Importer importer(context, *graph, options);
  return importer.run();
}

llvm::Expected<ImportedModel>
mxc::mxnet::importGraph(MLIRContext &context, const SymbolGraph &graph,
                        const ImportOptions &options) {
  Importer importer(context, graph, options);
  return importer.run();
}
