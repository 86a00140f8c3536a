// SPDX-License-Identifier: Apache-2.0
// mxc --quantize=int8's model rewrite (Quantize.h): a float ONNX model into
// the QDQ form that QdqFusion.cpp turns into integer operators, as ONNX
// Runtime's static quantizer would write it for its U8S8 format. Which
// activations are quantized:
//
//   Conv / MatMul / Gemm with a constant float weight: its input, and its
//     output (after the Relu that alone reads it);
//   Add of two activations already quantized (a residual): both, and its
//     output likewise;
//
// each as QuantizeLinear -> DequantizeLinear right after its producer,
// the dequantized value taking the activation's name, so that every reader
// and a graph output read it without edits.
#include "compiler/frontends/onnx/Quantize.h"

#include "compiler/frontends/onnx/ImporterImpl.h"
#include "compiler/frontends/onnx/ModelFile.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace mxc::onnx {
namespace {

using ::onnx::GraphProto;
using ::onnx::ModelProto;
using ::onnx::NodeProto;
using ::onnx::TensorProto;

llvm::Expected<ModelProto> readModel(StringRef path) {
  ModelProto model;
  if (llvm::Error e = readProtoFile(path, model,
                                    "not a valid ONNX model (the protobuf "
                                    "cannot be parsed; is the file "
                                    "truncated?)"))
    return std::move(e);
  for (const TensorProto &t : model.graph().initializer())
    if (t.data_location() == TensorProto::EXTERNAL)
      return makeError("'" + path + "': initializer '" + t.name() +
                       "' keeps its data in an external file, which "
                       "--quantize does not read");
  return model;
}

int64_t defaultOpset(const ModelProto &model) {
  for (const auto &o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx")
      return o.version();
  return 0;
}

/// The quantized activations, graph inputs first, and the quantized nodes.
struct Plan {
  std::vector<std::string> activations;
  std::vector<int> nodes;
};

/// The graph's float constants by name: initializers, Constant nodes'
/// values and Identity nodes of either (torch's exporter shares equal
/// tensors, a folded BatchNorm's zero biases, through Identity).
std::map<std::string, const TensorProto *>
floatInitializers(const GraphProto &g) {
  std::map<std::string, const TensorProto *> out;
  for (const TensorProto &t : g.initializer())
    if (t.data_type() == TensorProto::FLOAT)
      out[t.name()] = &t;
  for (const NodeProto &n : g.node()) {
    if (n.output_size() != 1 ||
        (!n.domain().empty() && n.domain() != "ai.onnx"))
      continue;
    if (n.op_type() == "Constant")
      for (const auto &a : n.attribute())
        if (a.name() == "value" && a.has_t() &&
            a.t().data_type() == TensorProto::FLOAT)
          out[n.output(0)] = &a.t();
    if (n.op_type() == "Identity" && n.input_size() == 1)
      if (auto it = out.find(n.input(0)); it != out.end())
        out[n.output(0)] = it->second;
  }
  return out;
}

Plan plan(const ModelProto &model, const QuantizeSpec &spec) {
  const GraphProto &g = model.graph();
  auto floats = floatInitializers(g);
  std::set<std::string> initializers, outputs, inputs;
  for (const TensorProto &t : g.initializer())
    initializers.insert(t.name());
  for (const auto &o : g.output())
    outputs.insert(o.name());
  for (const auto &i : g.input())
    if (!initializers.count(i.name()))
      inputs.insert(i.name());
  std::map<std::string, std::vector<int>> readers;
  for (int i = 0; i < g.node_size(); ++i)
    for (const std::string &in : g.node(i).input())
      readers[in].push_back(i);
  auto weight = [&](const NodeProto &n, int i, size_t rank) {
    auto it = floats.find(inputOf(n, i));
    return it != floats.end() && (size_t)it->second->dims_size() == rank;
  };
  // An operator's output, or the output of the Relu that alone reads it.
  auto outputPoint = [&](const NodeProto &n) {
    const std::string &y = n.output(0);
    auto it = readers.find(y);
    if (!outputs.count(y) && it != readers.end() && it->second.size() == 1 &&
        g.node(it->second[0]).op_type() == "Relu")
      return g.node(it->second[0]).output(0);
    return y;
  };
  Plan p;
  std::set<std::string> quantized;
  auto add = [&](const std::string &t) {
    if (quantized.insert(t).second)
      p.activations.push_back(t);
  };
  for (int i = 0; i < g.node_size(); ++i) {
    const NodeProto &n = g.node(i);
    const std::string &op = n.op_type();
    if ((!n.domain().empty() && n.domain() != "ai.onnx") ||
        n.output_size() < 1 || spec.exclude.count(n.name()) ||
        spec.exclude.count(op) || n.input_size() < 2 ||
        initializers.count(n.input(0)))
      continue;
    bool bias = !inputOf(n, 2).empty();
    bool take = false;
    if (op == "Conv")
      take = weight(n, 1, 4) && (!bias || weight(n, 2, 1));
    else if (op == "MatMul")
      take = weight(n, 1, 2);
    else if (op == "Gemm")
      take =
          weight(n, 1, 2) && nodeIntAttr(n, "transA", 0) == 0 &&
          (!bias || (weight(n, 2, 1) && nodeFloatAttr(n, "beta", 1.0) == 1.0));
    else if (op == "Add")
      take = quantized.count(n.input(0)) && quantized.count(n.input(1));
    if (!take)
      continue;
    add(n.input(0));
    if (op == "Add")
      add(n.input(1));
    add(outputPoint(n));
    p.nodes.push_back(i);
  }
  std::stable_partition(
      p.activations.begin(), p.activations.end(),
      [&](const std::string &t) { return inputs.count(t) != 0; });
  return p;
}

/// `model`'s graph with `names` as float outputs too (those it has left
/// out).
void addOutputs(ModelProto &model, const std::vector<std::string> &names,
                const std::set<std::string> &skip) {
  GraphProto &g = *model.mutable_graph();
  std::set<std::string> have;
  for (const auto &o : g.output())
    have.insert(o.name());
  for (const std::string &t : names) {
    if (skip.count(t) || !have.insert(t).second)
      continue;
    ::onnx::ValueInfoProto *o = g.add_output();
    o->set_name(t);
    o->mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
  }
}

std::set<std::string> graphInputs(const GraphProto &g) {
  std::set<std::string> initializers, inputs;
  for (const TensorProto &t : g.initializer())
    initializers.insert(t.name());
  for (const auto &i : g.input())
    if (!initializers.count(i.name()))
      inputs.insert(i.name());
  return inputs;
}

/// A float initializer's values.
std::vector<float> floatValues(const TensorProto &t) {
  int64_t count = 1;
  for (int64_t d : t.dims())
    count *= d;
  std::vector<float> v(count);
  if (t.has_raw_data() && t.raw_data().size() == count * sizeof(float))
    std::memcpy(v.data(), t.raw_data().data(), count * sizeof(float));
  else
    for (int64_t i = 0; i < count && i < t.float_data_size(); ++i)
      v[i] = t.float_data(i);
  return v;
}

template <typename T>
TensorProto tensorOf(const std::string &name, int32_t type,
                     std::vector<int64_t> dims, const std::vector<T> &values) {
  TensorProto t;
  t.set_name(name);
  t.set_data_type(type);
  for (int64_t d : dims)
    t.add_dims(d);
  t.set_raw_data(std::string(reinterpret_cast<const char *>(values.data()),
                             values.size() * sizeof(T)));
  return t;
}

NodeProto nodeOf(const std::string &op, std::vector<std::string> inputs,
                 const std::string &output, int64_t axis = -1) {
  NodeProto n;
  n.set_op_type(op);
  n.set_name(output + "/" + op);
  for (const std::string &in : inputs)
    n.add_input(in);
  n.add_output(output);
  if (axis >= 0) {
    ::onnx::AttributeProto *a = n.add_attribute();
    a->set_name("axis");
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(axis);
  }
  return n;
}

/// round(v / scale), halves to even, saturated to [lo, hi].
int64_t quantizeValue(float v, float scale, int64_t lo, int64_t hi) {
  float q = std::nearbyint(v / scale);
  return std::isnan(q)
             ? 0
             : std::clamp<int64_t>(static_cast<int64_t>(std::clamp<float>(
                                       q, float(lo) - 1, float(hi) + 1)),
                                   lo, hi);
}

} // namespace

std::pair<float, int32_t> uint8Quantization(ActivationRange range) {
  float lo = std::min(range.lo, 0.0f), hi = std::max(range.hi, 0.0f);
  float scale = (hi - lo) / 255.0f;
  if (!(scale > 0) || !std::isfinite(scale))
    scale = 1.0f;
  auto zero = static_cast<int32_t>(
      std::clamp(std::nearbyint(-lo / scale), 0.0f, 255.0f));
  return {scale, zero};
}

llvm::Expected<std::vector<std::string>>
quantizedActivations(StringRef path, const QuantizeSpec &spec,
                     StringRef calibrationPath) {
  auto model = readModel(path);
  if (!model)
    return model.takeError();
  Plan p = plan(*model, spec);
  if (p.nodes.empty())
    return makeError("'" + path +
                     "': --quantize=int8 finds nothing to quantize (no Conv, "
                     "MatMul or Gemm with a constant float weight left in)");
  if (!calibrationPath.empty()) {
    addOutputs(*model, p.activations, graphInputs(model->graph()));
    if (llvm::Error e =
            writeModelFile(*model, calibrationPath, "the calibration model"))
      return std::move(e);
  }
  return p.activations;
}

llvm::Error
writeQuantizedModel(StringRef path, const QuantizeSpec &spec,
                    const std::map<std::string, ActivationRange> &ranges,
                    StringRef outPath, bool activationOutputs) {
  auto model = readModel(path);
  if (!model)
    return model.takeError();
  Plan p = plan(*model, spec);
  GraphProto &g = *model->mutable_graph();
  // Per-axis DequantizeLinear came with opset 13; older models get one
  // weight scale per tensor.
  bool perChannel = defaultOpset(*model) >= 13;
  auto floats = floatInitializers(g);
  std::set<std::string> inputs = graphInputs(g);
  std::set<std::string> quantized(p.activations.begin(), p.activations.end());
  std::vector<TensorProto> added;
  std::map<std::string, float> scales;
  for (const std::string &t : p.activations) {
    auto it = ranges.find(t);
    if (it == ranges.end())
      return makeError("no calibrated range for activation '" + t + "'");
    auto [scale, zero] = uint8Quantization(it->second);
    scales[t] = scale;
    added.push_back(
        tensorOf(t + "/scale", TensorProto::FLOAT, {}, std::vector{scale}));
    added.push_back(tensorOf(t + "/zero_point", TensorProto::UINT8, {},
                             std::vector{static_cast<uint8_t>(zero)}));
  }
  std::vector<NodeProto> nodes;
  // Q -> DQ of activation `t`: from `from` to `to`.
  auto quantizeDequantize = [&](const std::string &t, const std::string &from,
                                const std::string &to) {
    nodes.push_back(nodeOf("QuantizeLinear",
                           {from, t + "/scale", t + "/zero_point"},
                           t + "/quantized"));
    nodes.push_back(nodeOf("DequantizeLinear",
                           {t + "/quantized", t + "/scale", t + "/zero_point"},
                           to));
  };
  std::map<std::string, std::string> renamed; // graph inputs' readers
  for (const std::string &t : p.activations)
    if (inputs.count(t)) {
      quantizeDequantize(t, t, t + "/dequantized");
      renamed[t] = t + "/dequantized";
    }
  std::set<int> quantizedNodes(p.nodes.begin(), p.nodes.end());
  for (int i = 0; i < g.node_size(); ++i) {
    NodeProto n = g.node(i);
    for (int k = 0; k < n.input_size(); ++k)
      if (auto it = renamed.find(n.input(k)); it != renamed.end())
        n.set_input(k, it->second);
    const std::string &op = n.op_type();
    if (quantizedNodes.count(i) && op != "Add") {
      // The weight per output channel (a Conv's axis 0, a MatMul's 1, a
      // Gemm's 0 with transB, else 1), symmetric: scale max |w| / 127.
      const TensorProto &w = *floats.at(n.input(1));
      std::vector<int64_t> dims(w.dims().begin(), w.dims().end());
      int64_t axis =
          op == "Conv" || (op == "Gemm" && nodeIntAttr(n, "transB", 0) != 0)
              ? 0
              : 1;
      int64_t channels = dims[axis];
      int64_t inner = 1;
      for (size_t d = axis + 1; d < dims.size(); ++d)
        inner *= dims[d];
      std::vector<float> values = floatValues(w);
      auto channelOf = [&](int64_t k) { return k / inner % channels; };
      std::vector<float> wScale(perChannel ? channels : 1, 0.0f);
      for (int64_t k = 0; k < (int64_t)values.size(); ++k) {
        float &s = wScale[perChannel ? channelOf(k) : 0];
        s = std::max(s, std::fabs(values[k]));
      }
      for (float &s : wScale)
        s = s > 0 && std::isfinite(s) ? s / 127.0f : 1.0f;
      std::vector<int8_t> wq(values.size());
      for (int64_t k = 0; k < (int64_t)values.size(); ++k)
        wq[k] = static_cast<int8_t>(quantizeValue(
            values[k], wScale[perChannel ? channelOf(k) : 0], -127, 127));
      std::string base = n.input(1) + "/" + std::to_string(i);
      added.push_back(tensorOf(base + "/int8", TensorProto::INT8, dims, wq));
      added.push_back(tensorOf(base + "/scale", TensorProto::FLOAT,
                               perChannel ? std::vector<int64_t>{channels}
                                          : std::vector<int64_t>{},
                               wScale));
      nodes.push_back(nodeOf("DequantizeLinear",
                             {base + "/int8", base + "/scale"},
                             base + "/dequantized", perChannel ? axis : -1));
      // The bias in int32 with the scale x_scale * w_scale (as float32, as
      // the fusion checks it).
      if (!inputOf(n, 2).empty()) {
        std::vector<float> bias = floatValues(*floats.at(n.input(2)));
        float sx = scales.at(g.node(i).input(0));
        // (One scale per channel, or one: a per-tensor DequantizeLinear.)
        std::vector<float> bScale(wScale.size());
        for (size_t c = 0; c < bScale.size(); ++c)
          bScale[c] = sx * wScale[c];
        std::vector<int32_t> bq(bias.size());
        for (size_t c = 0; c < bias.size(); ++c)
          bq[c] = static_cast<int32_t>(quantizeValue(
              bias[c], bScale[perChannel ? c : 0], -2147483647, 2147483647));
        std::string b = n.input(2) + "/" + std::to_string(i);
        added.push_back(tensorOf(b + "/int32", TensorProto::INT32,
                                 {(int64_t)bias.size()}, bq));
        added.push_back(
            tensorOf(b + "/scale", TensorProto::FLOAT,
                     perChannel ? std::vector<int64_t>{(int64_t)bias.size()}
                                : std::vector<int64_t>{},
                     bScale));
        nodes.push_back(nodeOf("DequantizeLinear", {b + "/int32", b + "/scale"},
                               b + "/dequantized", perChannel ? 0 : -1));
        n.set_input(2, b + "/dequantized");
      }
      n.set_input(1, base + "/dequantized");
    }
    std::vector<std::string> after;
    for (int k = 0; k < n.output_size(); ++k)
      if (quantized.count(n.output(k)) && !inputs.count(n.output(k))) {
        after.push_back(n.output(k));
        n.set_output(k, n.output(k) + "/float");
      }
    nodes.push_back(n);
    for (const std::string &t : after)
      quantizeDequantize(t, t + "/float", t);
  }
  // The float weights the rewrite replaced are dropped.
  std::set<std::string> read;
  for (const NodeProto &n : nodes)
    for (const std::string &in : n.input())
      read.insert(in);
  for (const auto &o : g.output())
    read.insert(o.name());
  google::protobuf::RepeatedPtrField<TensorProto> kept;
  for (const TensorProto &t : g.initializer())
    if (read.count(t.name()) || inputs.count(t.name()))
      *kept.Add() = t;
  for (TensorProto &t : added)
    *kept.Add() = std::move(t);
  g.mutable_initializer()->Swap(&kept);
  // (a graph input that names a dropped initializer, as IR 3 models list
  // them, goes too)
  google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto> keptInputs;
  std::set<std::string> initializerNames;
  for (const TensorProto &t : g.initializer())
    initializerNames.insert(t.name());
  for (const auto &in : g.input())
    if (inputs.count(in.name()) || initializerNames.count(in.name()))
      *keptInputs.Add() = in;
  g.mutable_input()->Swap(&keptInputs);
  g.clear_node();
  for (NodeProto &n : nodes)
    *g.add_node() = std::move(n);
  if (activationOutputs)
    addOutputs(*model, p.activations, inputs);
  return writeModelFile(*model, outPath, "the quantized model");
}

} // namespace mxc::onnx
