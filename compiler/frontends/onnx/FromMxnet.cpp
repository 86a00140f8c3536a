// SPDX-License-Identifier: Apache-2.0
// MXNet models as ONNX (FromMxnet.h): each operator node of the symbol
// graph becomes the ONNX nodes that compute what MXNet's inference does
// (its attribute defaults included: BatchNorm eps 1e-3 and fix_gamma,
// FullyConnected's flatten, Pooling's count_include_pad), each variable an
// initializer from the .params file or a graph input.
#include "compiler/frontends/onnx/FromMxnet.h"
#include "compiler/frontends/onnx/ModelFile.h"

#include "compiler/frontends/mxnet/Params.h"
#include "compiler/frontends/mxnet/Symbol.h"

#include "llvm/ADT/STLExtras.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <limits>
#include <optional>
#include <set>

namespace mxc::onnx {
namespace {

using mxnet::AttrReader;
using mxnet::SymbolGraph;
using mxnet::SymbolNode;
using ::onnx::GraphProto;
using ::onnx::ModelProto;
using ::onnx::NodeProto;
using ::onnx::TensorProto;

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Operators whose second input is a training label, dropped here.
bool isLoss(llvm::StringRef op) {
  return llvm::is_contained({"SoftmaxOutput", "LinearRegressionOutput",
                             "LogisticRegressionOutput", "MAERegressionOutput"},
                            op);
}

using OpTable = std::map<std::string, const char *, std::less<>>;

/// `op`'s entry in `table`, or null.
const char *lookup(const OpTable &table, llvm::StringRef op) {
  auto it = table.find(op);
  return it == table.end() ? nullptr : it->second;
}

/// The binary operators' ONNX forms.
const char *binaryOp(llvm::StringRef op) {
  static const OpTable table = {{"elemwise_add", "Add"},
                                {"_Plus", "Add"},
                                {"_plus", "Add"},
                                {"broadcast_add", "Add"},
                                {"broadcast_plus", "Add"},
                                {"elemwise_sub", "Sub"},
                                {"_Minus", "Sub"},
                                {"_minus", "Sub"},
                                {"broadcast_sub", "Sub"},
                                {"broadcast_minus", "Sub"},
                                {"elemwise_mul", "Mul"},
                                {"_Mul", "Mul"},
                                {"_mul", "Mul"},
                                {"broadcast_mul", "Mul"},
                                {"elemwise_div", "Div"},
                                {"_Div", "Div"},
                                {"_div", "Div"},
                                {"broadcast_div", "Div"},
                                {"broadcast_maximum", "Max"},
                                {"broadcast_minimum", "Min"},
                                {"_maximum", "Max"},
                                {"_minimum", "Min"},
                                {"_power", "Pow"},
                                {"broadcast_power", "Pow"}};
  return lookup(table, op);
}

/// Operators of one input that are one ONNX operator without attributes.
const char *unaryOp(llvm::StringRef op) {
  static const OpTable table = {{"relu", "Relu"},
                                {"sigmoid", "Sigmoid"},
                                {"tanh", "Tanh"},
                                {"exp", "Exp"},
                                {"log", "Log"},
                                {"sqrt", "Sqrt"},
                                {"abs", "Abs"},
                                {"negative", "Neg"},
                                {"reciprocal", "Reciprocal"},
                                {"Flatten", "Flatten"},
                                {"flatten", "Flatten"},
                                {"Dropout", "Identity"},
                                {"BlockGrad", "Identity"},
                                {"stop_gradient", "Identity"},
                                {"_copy", "Identity"},
                                {"identity", "Identity"}};
  return lookup(table, op);
}

/// The scalar operators (`scalar` attribute) as a binary ONNX operator, the
/// scalar on the right.
const char *scalarOp(llvm::StringRef op) {
  static const OpTable table = {
      {"_plus_scalar", "Add"},    {"_minus_scalar", "Sub"},
      {"_mul_scalar", "Mul"},     {"_div_scalar", "Div"},
      {"_maximum_scalar", "Max"}, {"_minimum_scalar", "Min"},
      {"_power_scalar", "Pow"}};
  return lookup(table, op);
}

class Writer {
public:
  Writer(const SymbolGraph &graph, llvm::StringRef fileName)
      : graph(graph), fileName(fileName.str()) {
    model.set_ir_version(7);
    model.set_producer_name("mxc");
    auto *opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(13);
    g = model.mutable_graph();
    g->set_name("mxnet");
  }

  llvm::Error run(const std::map<std::string, mxnet::NamedArray> &params,
                  const std::map<std::string, std::vector<int64_t>> &shapes);

  const ModelProto &result() const { return model; }

private:
  /// A fresh value name based on `base`.
  std::string fresh(const std::string &base) {
    std::string name = base;
    for (int i = 1; used.count(name); ++i)
      name = base + "_" + std::to_string(i);
    used.insert(name);
    return name;
  }

  TensorProto *addFloats(const std::string &name, std::vector<int64_t> dims,
                         const float *data, int64_t count) {
    TensorProto *t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(TensorProto::FLOAT);
    for (int64_t d : dims)
      t->add_dims(d);
    t->set_raw_data(data, count * sizeof(float));
    return t;
  }

  /// A 1-D int64 initializer (shapes, axes).
  std::string int64s(const std::string &base, llvm::ArrayRef<int64_t> v) {
    std::string name = fresh(base);
    TensorProto *t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(v.size()));
    t->set_raw_data(v.data(), v.size() * sizeof(int64_t));
    return name;
  }

  std::string scalar(const std::string &base, float v) {
    std::string name = fresh(base);
    addFloats(name, {}, &v, 1);
    return name;
  }

  NodeProto *node(const char *op, const std::string &name,
                  std::vector<std::string> inputs, const std::string &output) {
    NodeProto *n = g->add_node();
    n->set_op_type(op);
    n->set_name(fresh(name));
    for (const std::string &in : inputs)
      n->add_input(in);
    n->add_output(output);
    return n;
  }

  static void ints(NodeProto *n, const char *name,
                   llvm::ArrayRef<int64_t> values) {
    auto *a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (int64_t v : values)
      a->add_ints(v);
  }
  static void integer(NodeProto *n, const char *name, int64_t v) {
    auto *a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void real(NodeProto *n, const char *name, float v) {
    auto *a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }

  /// The static shape of `value` as ONNX's shape inference finds it in the
  /// graph made so far, if it does.
  std::optional<std::vector<int64_t>> inferredShape(const std::string &value) {
    // A copy without the weights' data (their shapes are what inference
    // reads; a Reshape's target shape keeps its values).
    ModelProto sofar = model;
    for (TensorProto &t : *sofar.mutable_graph()->mutable_initializer())
      if (t.data_type() == TensorProto::FLOAT) {
        t.clear_raw_data();
        t.set_data_location(TensorProto::DEFAULT);
      }
    try {
      ::onnx::shape_inference::InferShapes(sofar);
    } catch (const std::exception &) {
      return std::nullopt;
    }
    auto find = [&](const auto &infos) -> std::optional<std::vector<int64_t>> {
      for (const ::onnx::ValueInfoProto &v : infos) {
        if (v.name() != value || !v.type().tensor_type().has_shape())
          continue;
        std::vector<int64_t> dims;
        for (const auto &d : v.type().tensor_type().shape().dim()) {
          if (!d.has_dim_value())
            return std::nullopt;
          dims.push_back(d.dim_value());
        }
        return dims;
      }
      return std::nullopt;
    };
    if (auto s = find(sofar.graph().value_info()))
      return s;
    return find(sofar.graph().input());
  }

  /// Node `index`'s ONNX nodes; `out` its output's value name.
  llvm::Error convert(unsigned index, const std::string &out);

  const SymbolGraph &graph;
  std::string fileName;
  ModelProto model;
  GraphProto *g;
  std::set<std::string> used;
  /// Value names of node outputs (index 0 only) and of variables.
  std::map<unsigned, std::string> values;
  const std::map<std::string, mxnet::NamedArray> *params = nullptr;
};

llvm::Error
Writer::run(const std::map<std::string, mxnet::NamedArray> &arrays,
            const std::map<std::string, std::vector<int64_t>> &shapes) {
  params = &arrays;
  // Readers of each variable, to tell a label from an input.
  std::map<unsigned, std::vector<std::pair<unsigned, unsigned>>> readers;
  for (unsigned i = 0; i < graph.nodes.size(); ++i)
    for (unsigned k = 0; k < graph.nodes[i].inputs.size(); ++k)
      readers[graph.nodes[i].inputs[k].node].push_back({i, k});
  // Output names first: MXNet's, which the library's outputs keep.
  std::vector<std::string> outputs;
  for (const mxnet::HeadRef &head : graph.heads) {
    if (head.index != 0)
      return error("'" + fileName + "': output " + llvm::Twine(head.index) +
                   " of node '" + graph.nodes[head.node].name +
                   "' is a graph output; only first outputs are converted");
    outputs.push_back(mxnet::outputName(graph, head, 1));
    used.insert(outputs.back());
  }
  for (unsigned i = 0; i < graph.nodes.size(); ++i) {
    const SymbolNode &n = graph.nodes[i];
    if (!n.isVariable)
      continue;
    if (auto it = arrays.find(n.name); it != arrays.end()) {
      auto data = it->second.toFloat32();
      if (!data)
        return error("'" + fileName + "': weight '" + n.name +
                     "': " + llvm::toString(data.takeError()));
      std::string name = fresh(n.name);
      addFloats(name, it->second.shape, data->data(),
                static_cast<int64_t>(data->size()));
      values[i] = name;
      continue;
    }
    const auto &r = readers[i];
    bool label = !r.empty() && llvm::all_of(r, [&](auto reader) {
      return isLoss(graph.nodes[reader.first].op) && reader.second > 0;
    });
    if (label || r.empty())
      continue;
    auto shape = shapes.find(n.name);
    if (shape == shapes.end())
      return error("'" + fileName + "': input '" + n.name +
                   "' is not in the .params file and has no shape: give it "
                   "with --input " +
                   n.name + "=SHAPE");
    std::string name = fresh(n.name);
    auto *in = g->add_input();
    in->set_name(name);
    auto *tensor = in->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(TensorProto::FLOAT);
    for (int64_t d : shape->second)
      tensor->mutable_shape()->add_dim()->set_dim_value(d);
    values[i] = name;
  }
  for (unsigned i = 0; i < graph.nodes.size(); ++i)
    if (!graph.nodes[i].isVariable)
      if (llvm::Error e = convert(i, values[i] = fresh(graph.nodes[i].name)))
        return e;
  for (size_t h = 0; h < graph.heads.size(); ++h) {
    node("Identity", outputs[h], {values.at(graph.heads[h].node)}, outputs[h]);
    auto *out = g->add_output();
    out->set_name(outputs[h]);
    out->mutable_type()->mutable_tensor_type()->set_elem_type(
        TensorProto::FLOAT);
  }
  return llvm::Error::success();
}

llvm::Error Writer::convert(unsigned index, const std::string &out) {
  const SymbolNode &n = graph.nodes[index];
  AttrReader attrs(n, fileName);
  llvm::StringRef op = n.op;
  std::vector<std::string> in;
  for (const mxnet::EntryRef &e : n.inputs) {
    if (e.index != 0)
      return attrs.makeError("reads output " + llvm::Twine(e.index) +
                             " of node '" + graph.nodes[e.node].name +
                             "'; only first outputs are converted");
    auto it = values.find(e.node);
    in.push_back(it == values.end() ? "" : it->second);
  }
  auto need = [&](size_t count) -> llvm::Error {
    for (size_t k = 0; k < count; ++k)
      if (k >= in.size() || in[k].empty())
        return attrs.makeError("input " + llvm::Twine(k) + " is missing");
    return llvm::Error::success();
  };
  // Integer tuple attributes, `rank` long (padded with `fill`).
  auto tuple =
      [&](const char *key, size_t rank,
          int64_t fill) -> llvm::Expected<llvm::SmallVector<int64_t, 4>> {
    auto v = attrs.getTuple(key);
    if (!v)
      return v.takeError();
    if (v->empty())
      v->assign(rank, fill);
    if (v->size() != rank)
      return attrs.makeError("'" + llvm::Twine(key) + "' has " +
                             llvm::Twine(v->size()) + " values, expected " +
                             llvm::Twine(rank));
    return *v;
  };
  if (const char *onnxOp = unaryOp(op)) {
    if (llvm::Error e = need(1))
      return e;
    NodeProto *x = node(onnxOp, n.name, {in[0]}, out);
    if (llvm::StringRef(onnxOp) == "Flatten")
      integer(x, "axis", 1);
    return llvm::Error::success();
  }
  if (const char *onnxOp = binaryOp(op)) {
    if (llvm::Error e = need(2))
      return e;
    node(onnxOp, n.name, {in[0], in[1]}, out);
    return llvm::Error::success();
  }
  if (const char *onnxOp = scalarOp(op)) {
    auto s = attrs.getFloat("scalar", 1.0);
    if (!s)
      return s.takeError();
    if (llvm::Error e = need(1))
      return e;
    node(onnxOp, n.name, {in[0], scalar(n.name + "_scalar", float(*s))}, out);
    return llvm::Error::success();
  }
  if (op == "_rminus_scalar" ||
      op == "_rdiv_scalar") { // scalar - x, scalar / x
    auto s = attrs.getFloat("scalar", 1.0);
    if (!s)
      return s.takeError();
    if (llvm::Error e = need(1))
      return e;
    node(op == "_rminus_scalar" ? "Sub" : "Div", n.name,
         {scalar(n.name + "_scalar", float(*s)), in[0]}, out);
    return llvm::Error::success();
  }
  if (op == "square" || op == "rsqrt") {
    if (llvm::Error e = need(1))
      return e;
    if (op == "square") {
      node("Mul", n.name, {in[0], in[0]}, out);
      return llvm::Error::success();
    }
    std::string root = fresh(n.name + "_sqrt");
    node("Sqrt", n.name + "_sqrt", {in[0]}, root);
    node("Reciprocal", n.name, {root}, out);
    return llvm::Error::success();
  }
  if (op == "dot" || op == "batch_dot") {
    auto ta = attrs.getBool("transpose_a", false),
         tb = attrs.getBool("transpose_b", false);
    if (!ta || !tb)
      return llvm::joinErrors(ta.takeError(), tb.takeError());
    if (llvm::Error e = need(2))
      return e;
    // dot of two matrices; batch_dot of two stacks of them (rank 3).
    std::vector<int64_t> perm = op == "dot" ? std::vector<int64_t>{1, 0}
                                            : std::vector<int64_t>{0, 2, 1};
    for (auto [k, t] : {std::pair{0, *ta}, std::pair{1, *tb}})
      if (t) {
        std::string turned = fresh(n.name + "_t" + std::to_string(k));
        ints(node("Transpose", n.name + "_transpose", {in[k]}, turned), "perm",
             perm);
        in[k] = turned;
      }
    node("MatMul", n.name, {in[0], in[1]}, out);
    return llvm::Error::success();
  }
  if (op == "expand_dims") {
    auto axis = attrs.getInt("axis", 0);
    if (!axis)
      return axis.takeError();
    if (llvm::Error e = need(1))
      return e;
    node("Unsqueeze", n.name, {in[0], int64s(n.name + "_axes", {*axis})}, out);
    return llvm::Error::success();
  }
  if (op == "slice" || op == "slice_axis") {
    if (llvm::Error e = need(1))
      return e;
    // ONNX clamps out-of-range starts and ends; None is the whole extent in
    // the step's direction (past the last element, or before the first).
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max(),
                      kMin = std::numeric_limits<int64_t>::min();
    std::vector<int64_t> starts, ends, axes, steps;
    if (op == "slice_axis") {
      auto axis = attrs.getInt("axis", 0);
      auto begin = attrs.getInt("begin", 0);
      auto end = attrs.getOptionalInt("end");
      if (!axis || !begin || !end)
        return llvm::joinErrors(
            llvm::joinErrors(axis.takeError(), begin.takeError()),
            end.takeError());
      starts = {*begin}, ends = {end->value_or(kMax)}, axes = {*axis},
      steps = {1};
    } else {
      auto begin = attrs.getOptionalTuple("begin");
      auto end = attrs.getOptionalTuple("end");
      auto step = attrs.getOptionalTuple("step");
      if (!begin || !end || !step)
        return llvm::joinErrors(
            llvm::joinErrors(begin.takeError(), end.takeError()),
            step.takeError());
      if (begin->size() != end->size() ||
          (!step->empty() && step->size() != begin->size()))
        return attrs.makeError("begin, end and step differ in length");
      for (size_t d = 0; d < begin->size(); ++d) {
        int64_t by = step->empty() ? 1 : (*step)[d].value_or(1);
        if (by == 0)
          return attrs.makeError("a step of 0 is not converted");
        starts.push_back((*begin)[d].value_or(by > 0 ? 0 : kMax));
        ends.push_back((*end)[d].value_or(by > 0 ? kMax : kMin));
        axes.push_back(static_cast<int64_t>(d));
        steps.push_back(by);
      }
    }
    node("Slice", n.name,
         {in[0], int64s(n.name + "_starts", starts),
          int64s(n.name + "_ends", ends), int64s(n.name + "_axes", axes),
          int64s(n.name + "_steps", steps)},
         out);
    return llvm::Error::success();
  }
  if (op == "squeeze") {
    if (llvm::Error e = need(1))
      return e;
    auto axes = attrs.getTuple("axis");
    if (!axes)
      return axes.takeError();
    std::vector<std::string> inputs = {in[0]};
    if (!axes->empty())
      inputs.push_back(int64s(n.name + "_axes", *axes));
    node("Squeeze", n.name, inputs, out);
    return llvm::Error::success();
  }
  if (op == "LRN") {
    auto size = attrs.getInt("nsize", 0);
    auto alpha = attrs.getFloat("alpha", 1e-4),
         beta = attrs.getFloat("beta", 0.75),
         knorm = attrs.getFloat("knorm", 2.0);
    if (!size || !alpha || !beta || !knorm)
      return llvm::joinErrors(
          llvm::joinErrors(size.takeError(), alpha.takeError()),
          llvm::joinErrors(beta.takeError(), knorm.takeError()));
    if (llvm::Error e = need(1))
      return e;
    NodeProto *x = node("LRN", n.name, {in[0]}, out);
    integer(x, "size", *size);
    real(x, "alpha", float(*alpha));
    real(x, "beta", float(*beta));
    real(x, "bias", float(*knorm));
    return llvm::Error::success();
  }
  if (op == "sum" || op == "mean" || op == "max" || op == "min") {
    auto axes = attrs.getTuple("axis");
    auto keep = attrs.getBool("keepdims", false);
    auto exclude = attrs.getBool("exclude", false);
    if (!axes || !keep || !exclude)
      return llvm::joinErrors(
          llvm::joinErrors(axes.takeError(), keep.takeError()),
          exclude.takeError());
    if (*exclude)
      return attrs.makeError("exclude=True is not converted");
    if (llvm::Error e = need(1))
      return e;
    const char *reduce = op == "sum"    ? "ReduceSum"
                         : op == "mean" ? "ReduceMean"
                         : op == "max"  ? "ReduceMax"
                                        : "ReduceMin";
    std::vector<std::string> inputs = {in[0]};
    if (op == "sum" && !axes->empty()) // opset 13: ReduceSum's axes an input
      inputs.push_back(int64s(n.name + "_axes", *axes));
    // Over every axis without keepdims MXNet's result has shape (1,).
    bool whole = axes->empty() && !*keep;
    std::string reduced = whole ? fresh(n.name + "_all") : out;
    NodeProto *x =
        node(reduce, whole ? n.name + "_all" : n.name, inputs, reduced);
    if (op != "sum" && !axes->empty())
      ints(x, "axes", *axes);
    integer(x, "keepdims", *keep || whole ? 1 : 0);
    if (whole)
      node("Reshape", n.name, {reduced, int64s(n.name + "_shape", {1})}, out);
    return llvm::Error::success();
  }
  if (op == "add_n" || op == "ElementWiseSum") {
    if (llvm::Error e = need(in.size()))
      return e;
    node("Sum", n.name, in, out);
    return llvm::Error::success();
  }
  if (op == "Convolution") {
    auto kernel = attrs.getTuple("kernel");
    if (!kernel)
      return kernel.takeError();
    size_t rank = kernel->size();
    auto layout = attrs.getString("layout", "None");
    if (rank != 2 || (layout != "None" && layout != "NCHW"))
      return attrs.makeError("only 2-D NCHW convolutions are converted");
    auto stride = tuple("stride", rank, 1);
    auto dilate = tuple("dilate", rank, 1);
    auto pad = tuple("pad", rank, 0);
    auto group = attrs.getInt("num_group", 1);
    auto noBias = attrs.getBool("no_bias", false);
    if (!stride || !dilate || !pad || !group || !noBias)
      return llvm::joinErrors(
          llvm::joinErrors(stride.takeError(), dilate.takeError()),
          llvm::joinErrors(
              pad.takeError(),
              llvm::joinErrors(group.takeError(), noBias.takeError())));
    if (llvm::Error e = need(*noBias ? 2 : 3))
      return e;
    in.resize(*noBias ? 2 : 3);
    NodeProto *x = node("Conv", n.name, in, out);
    ints(x, "kernel_shape", *kernel);
    ints(x, "strides", *stride);
    ints(x, "dilations", *dilate);
    ints(x, "pads", {(*pad)[0], (*pad)[1], (*pad)[0], (*pad)[1]});
    integer(x, "group", *group);
    return llvm::Error::success();
  }
  if (op == "BatchNorm") {
    auto eps = attrs.getFloat("eps", 1e-3);
    auto fixGamma = attrs.getBool("fix_gamma", true);
    auto axis = attrs.getInt("axis", 1);
    auto meanVar = attrs.getBool("output_mean_var", false);
    if (!eps || !fixGamma || !axis || !meanVar)
      return llvm::joinErrors(
          llvm::joinErrors(eps.takeError(), fixGamma.takeError()),
          llvm::joinErrors(axis.takeError(), meanVar.takeError()));
    if (*axis != 1 || *meanVar)
      return attrs.makeError(
          "only axis 1 without output_mean_var is converted");
    if (llvm::Error e = need(5))
      return e;
    if (*fixGamma) { // gamma is 1 whatever the file holds
      auto it = params->find(graph.nodes[n.inputs[1].node].name);
      if (it == params->end())
        return attrs.makeError("gamma is not in the .params file");
      std::vector<float> ones(it->second.numElements(), 1.0f);
      in[1] = fresh(n.name + "_gamma_fixed");
      addFloats(in[1], it->second.shape, ones.data(),
                static_cast<int64_t>(ones.size()));
    }
    NodeProto *x = node("BatchNormalization", n.name, in, out);
    real(x, "epsilon", float(*eps));
    return llvm::Error::success();
  }
  if (op == "Activation" || op == "LeakyReLU") {
    if (llvm::Error e = need(1))
      return e;
    std::string type =
        attrs.getString("act_type", op == "LeakyReLU" ? "leaky" : "");
    static const std::map<std::string, const char *> activations = {
        {"relu", "Relu"},
        {"sigmoid", "Sigmoid"},
        {"tanh", "Tanh"},
        {"softrelu", "Softplus"},
        {"softsign", "Softsign"}};
    if (op == "Activation") {
      auto it = activations.find(type);
      if (it == activations.end())
        return attrs.makeError("act_type '" + type + "' is not converted");
      node(it->second, n.name, {in[0]}, out);
      return llvm::Error::success();
    }
    auto slope = attrs.getFloat("slope", 0.25);
    if (!slope)
      return slope.takeError();
    if (type == "selu") { // SELU's fixed constants, as MXNet's
      node("Selu", n.name, {in[0]}, out);
      return llvm::Error::success();
    }
    if (type != "leaky" && type != "elu")
      return attrs.makeError("act_type '" + type + "' is not converted");
    NodeProto *x =
        node(type == "leaky" ? "LeakyRelu" : "Elu", n.name, {in[0]}, out);
    real(x, "alpha", float(*slope));
    return llvm::Error::success();
  }
  if (op == "Pooling") {
    if (llvm::Error e = need(1))
      return e;
    std::string type = attrs.getString("pool_type", "max");
    auto global = attrs.getBool("global_pool", false);
    if (!global)
      return global.takeError();
    if (type != "max" && type != "avg")
      return attrs.makeError("pool_type '" + type + "' is not converted");
    if (*global) {
      node(type == "max" ? "GlobalMaxPool" : "GlobalAveragePool", n.name,
           {in[0]}, out);
      return llvm::Error::success();
    }
    auto kernel = attrs.getTuple("kernel");
    if (!kernel)
      return kernel.takeError();
    size_t rank = kernel->size();
    auto stride = tuple("stride", rank, 1);
    auto pad = tuple("pad", rank, 0);
    auto countPad = attrs.getBool("count_include_pad", true);
    if (!stride || !pad || !countPad)
      return llvm::joinErrors(
          llvm::joinErrors(stride.takeError(), pad.takeError()),
          countPad.takeError());
    std::string convention = attrs.getString("pooling_convention", "valid");
    bool padded = llvm::any_of(*pad, [](int64_t p) { return p != 0; });
    // "full" rounds the output's extent up; with padding, ONNX's ceil_mode
    // and MXNet may disagree on a last window that starts in the padding.
    if (rank != 2 || (convention != "valid" && convention != "full") ||
        (convention == "full" && padded))
      return attrs.makeError("2-D pooling of convention valid (or full "
                             "without padding) is converted, not this one");
    NodeProto *x =
        node(type == "max" ? "MaxPool" : "AveragePool", n.name, {in[0]}, out);
    ints(x, "kernel_shape", *kernel);
    ints(x, "strides", *stride);
    ints(x, "pads", {(*pad)[0], (*pad)[1], (*pad)[0], (*pad)[1]});
    if (convention == "full")
      integer(x, "ceil_mode", 1);
    if (type == "avg")
      integer(x, "count_include_pad", *countPad ? 1 : 0);
    return llvm::Error::success();
  }
  if (op == "FullyConnected") {
    auto noBias = attrs.getBool("no_bias", false);
    auto flatten = attrs.getBool("flatten", true);
    if (!noBias || !flatten)
      return llvm::joinErrors(noBias.takeError(), flatten.takeError());
    if (llvm::Error e = need(*noBias ? 2 : 3))
      return e;
    if (*flatten) {
      std::string flat = fresh(n.name + "_flat");
      integer(node("Flatten", n.name + "_flatten", {in[0]}, flat), "axis", 1);
      std::vector<std::string> gemmIn = {flat, in[1]};
      if (!*noBias)
        gemmIn.push_back(in[2]);
      integer(node("Gemm", n.name, gemmIn, out), "transB", 1);
      return llvm::Error::success();
    }
    std::string weightT = fresh(n.name + "_weight_t");
    ints(node("Transpose", n.name + "_transpose", {in[1]}, weightT), "perm",
         {1, 0});
    if (*noBias) {
      node("MatMul", n.name, {in[0], weightT}, out);
      return llvm::Error::success();
    }
    std::string product = fresh(n.name + "_product");
    node("MatMul", n.name + "_matmul", {in[0], weightT}, product);
    node("Add", n.name, {product, in[2]}, out);
    return llvm::Error::success();
  }
  if (op == "Concat" || op == "concat") {
    auto dim = attrs.getInt("dim", 1);
    if (!dim)
      return dim.takeError();
    if (llvm::Error e = need(in.size()))
      return e;
    integer(node("Concat", n.name, in, out), "axis", *dim);
    return llvm::Error::success();
  }
  if (op == "softmax" || op == "log_softmax" || op == "SoftmaxActivation" ||
      op == "SoftmaxOutput") {
    if (llvm::Error e = need(1))
      return e;
    auto temperature = attrs.getOptionalFloat("temperature");
    if (!temperature)
      return temperature.takeError();
    if (*temperature && **temperature != 1.0)
      return attrs.makeError("a temperature other than 1 is not converted");
    // The axis, or over everything but the batch axis (`flattened`):
    // SoftmaxOutput but with multi_output (axis 1) or preserve_shape (the
    // last), SoftmaxActivation but in channel mode (axis 1).
    int64_t axis = 1;
    bool flattened = false;
    if (op == "softmax" || op == "log_softmax") {
      auto a = attrs.getInt("axis", -1);
      if (!a)
        return a.takeError();
      axis = *a;
    } else if (op == "SoftmaxOutput") {
      auto multi = attrs.getBool("multi_output", false);
      auto preserve = attrs.getBool("preserve_shape", false);
      if (!multi || !preserve)
        return llvm::joinErrors(multi.takeError(), preserve.takeError());
      axis = *preserve ? -1 : 1;
      flattened = !*multi && !*preserve;
    } else {
      flattened = attrs.getString("mode", "instance") != "channel";
    }
    if (flattened) {
      std::optional<std::vector<int64_t>> shape = inferredShape(in[0]);
      if (!shape)
        return attrs.makeError("the input's shape does not follow from the "
                               "graph inputs' shapes");
      if (shape->size() > 2) { // flattened, then in the input's shape again
        std::string flat = fresh(n.name + "_flat"),
                    soft = fresh(n.name + "_softmax");
        integer(node("Flatten", n.name + "_flatten", {in[0]}, flat), "axis", 1);
        integer(node("Softmax", n.name + "_softmax", {flat}, soft), "axis", 1);
        node("Reshape", n.name, {soft, int64s(n.name + "_shape", *shape)}, out);
        return llvm::Error::success();
      }
    }
    integer(node(op == "log_softmax" ? "LogSoftmax" : "Softmax", n.name,
                 {in[0]}, out),
            "axis", axis);
    return llvm::Error::success();
  }
  if (op == "Reshape" || op == "reshape") {
    if (llvm::Error e = need(1))
      return e;
    auto shape = attrs.getTuple(attrs.has("shape") ? "shape" : "target_shape");
    auto reverse = attrs.getBool("reverse", false);
    if (!shape || !reverse)
      return llvm::joinErrors(shape.takeError(), reverse.takeError());
    if (*reverse || llvm::any_of(*shape, [](int64_t d) { return d < -1; }))
      return attrs.makeError(
          "only shapes of sizes, 0 (copy) and -1 (infer) are converted");
    node("Reshape", n.name, {in[0], int64s(n.name + "_shape", *shape)}, out);
    return llvm::Error::success();
  }
  if (op == "clip") {
    if (llvm::Error e = need(1))
      return e;
    auto lo = attrs.getFloat("a_min", 0), hi = attrs.getFloat("a_max", 0);
    if (!lo || !hi)
      return llvm::joinErrors(lo.takeError(), hi.takeError());
    if (!attrs.has("a_min") || !attrs.has("a_max"))
      return attrs.makeError("a_min and a_max are required");
    node("Clip", n.name,
         {in[0], scalar(n.name + "_min", float(*lo)),
          scalar(n.name + "_max", float(*hi))},
         out);
    return llvm::Error::success();
  }
  if (op == "transpose") {
    if (llvm::Error e = need(1))
      return e;
    auto axes = attrs.getTuple("axes");
    if (!axes)
      return axes.takeError();
    NodeProto *x = node("Transpose", n.name, {in[0]}, out);
    if (!axes->empty())
      ints(x, "perm", *axes);
    return llvm::Error::success();
  }
  return attrs.makeError("operator '" + n.op +
                         "' has no ONNX form in mxc's converter (Convolution, "
                         "BatchNorm, Activation, LeakyReLU, Pooling, LRN, "
                         "FullyConnected, dot, Flatten, Concat, elementwise "
                         "and scalar arithmetic, reductions, softmax, "
                         "Reshape, expand_dims, squeeze, slice, clip, "
                         "transpose, Dropout)");
}

} // namespace

llvm::Error
writeMxnetAsOnnx(llvm::StringRef symbolPath, llvm::StringRef paramsPath,
                 const std::map<std::string, std::vector<int64_t>> &inputShapes,
                 llvm::StringRef outPath) {
  auto graph = mxnet::readSymbolFile(symbolPath);
  if (!graph)
    return graph.takeError();
  std::map<std::string, mxnet::NamedArray> params;
  if (!paramsPath.empty()) {
    auto arrays = mxnet::readParamsFile(paramsPath);
    if (!arrays)
      return arrays.takeError();
    for (mxnet::NamedArray &a : *arrays)
      params[a.name] = std::move(a);
  }
  for (const SymbolNode &n : graph->nodes)
    if (!n.subgraphs.empty())
      return error("'" + symbolPath + "': node '" + n.name + "' (" + n.op +
                   ") holds a subgraph, which is not converted to ONNX");
  Writer writer(*graph, symbolPath);
  if (llvm::Error e = writer.run(params, inputShapes))
    return e;
  // The outputs' shapes (a valid model has them), and the intermediate
  // values', by ONNX's own inference.
  ModelProto model = writer.result();
  try {
    ::onnx::shape_inference::InferShapes(
        model, ::onnx::OpSchemaRegistry::Instance(),
        ::onnx::ShapeInferenceOptions(/*check_type_val=*/true,
                                      /*strict_mode_val=*/1));
  } catch (const std::exception &e) {
    return error("'" + symbolPath +
                 "': its ONNX form does not check: " + e.what());
  }
  for (const auto &out : model.graph().output())
    if (!out.type().tensor_type().has_shape())
      return error("'" + symbolPath + "': the shape of output '" + out.name() +
                   "' does not follow from the inputs' shapes");
  return writeModelFile(model, outPath,
                        "the ONNX form of '" + symbolPath.str() + "'");
}

} // namespace mxc::onnx
