// SPDX-License-Identifier: Apache-2.0
//
// mx::Symbol (mxc/symbol.h): graph nodes shared between symbols, MXNet's
// naming and JSON format, and shape inference by the MXNet importer (the
// graph written as JSON, read back as the frontend reads a file, imported
// into the mx dialect, whose ops infer their result shapes).

#include "mxc/symbol.h"

#include "compiler/frontends/mxnet/Importer.h"
#include "compiler/frontends/mxnet/Symbol.h"
#include "dialects/mx/MxDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <unordered_map>

namespace mx {

struct Symbol::Node {
  std::string op; // "null" for a variable
  std::string name;
  std::map<std::string, std::string> attrs;
  std::vector<Entry> inputs;
  unsigned numVisible = 1; // outputs a symbol may use
  unsigned numOutputs = 1; // MXNet's count, hidden ones too
  bool isVariable() const { return op == "null"; }
};

namespace detail {

enum class Role { Input, Variadic, Param, Aux };

/// One MXNet operator: its tensor operands' roles in operand order and
/// how many outputs MXNet's operator has (0: its visible outputs).
struct OpInfo {
  const char *name;
  std::vector<std::pair<const char *, Role>> operands;
  unsigned numOutputs;
};

const std::vector<OpInfo> &operators();

const OpInfo *findOperator(const std::string &name) {
  static const std::unordered_map<std::string, const OpInfo *> byName = [] {
    std::unordered_map<std::string, const OpInfo *> map;
    for (const OpInfo &op : operators())
      map[op.name] = &op;
    return map;
  }();
  auto it = byName.find(name);
  return it == byName.end() ? nullptr : it->second;
}

std::string format(int64_t v) { return std::to_string(v); }
std::string format(bool v) { return v ? "True" : "False"; }
std::string format(const std::string &v) { return v; }
/// The shortest text that reads back as `v` (as Python's repr).
std::string format(double v) {
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  if (std::isnan(v))
    return "nan";
  char text[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    if (std::strtod(text, nullptr) == v)
      break;
  }
  return text;
}
/// MXNet's tuple syntax: "(3, 3)", "(3,)", "()".
std::string format(const std::vector<int64_t> &v) {
  std::string text = "(";
  for (size_t i = 0; i < v.size(); ++i)
    text += (i ? ", " : "") + std::to_string(v[i]);
  return text + (v.size() == 1 ? ",)" : ")");
}

/// The automatic-name counters of this thread: one map per live
/// NameScope, the innermost last (MXNet's NameManager is per thread too).
std::vector<std::map<std::string, int>> &nameCounters() {
  thread_local std::vector<std::map<std::string, int>> counters(1);
  return counters;
}

/// A node name MXNet's name manager would give: the op's name in lower
/// case and a count per name.
std::string autoName(const std::string &op) {
  std::string base;
  for (char c : op)
    base += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return base + std::to_string(nameCounters().back()[base]++);
}

/// Builds one operator node (the generated functions' bodies).
class OpCall {
public:
  OpCall(const char *op, const std::string &name)
      : node(std::make_shared<Symbol::Node>()) {
    node->op = op;
    node->name = name.empty() ? autoName(op) : name;
  }

  void input(const char *operand, const Symbol &s) {
    node->inputs.push_back(one(operand, s));
  }
  void inputs(const std::vector<Symbol> &symbols) {
    if (symbols.empty())
      fail("takes at least one input");
    for (size_t i = 0; i < symbols.size(); ++i)
      node->inputs.push_back(
          one(("input " + std::to_string(i)).c_str(), symbols[i]));
    node->attrs["num_args"] = std::to_string(symbols.size());
  }
  /// A parameter operand: `given`, else a new variable `<name>_<operand>`;
  /// nothing where it is not `present` (bias with no_bias).
  void variable(const char *operand, const Symbol &given, bool /*aux*/,
                bool present) {
    if (!present) {
      if (!given.empty())
        fail(std::string("operand '") + operand +
             "' is given but the attributes leave it out");
      return;
    }
    node->inputs.push_back(
        given.empty()
            ? Symbol::Variable(node->name + "_" + operand).outputs()[0]
            : one(operand, given));
  }
  template <typename T>
  void attr(const char *key, const T &value, const T &defaultValue) {
    if (!(value == defaultValue))
      node->attrs[key] = format(value);
  }
  template <typename T>
  void required(const char *key, const std::optional<T> &value) {
    if (!value)
      fail(std::string("attribute '") + key + "' is required");
    node->attrs[key] = format(*value);
  }
  Symbol finish(int64_t visible, unsigned total) {
    if (visible < 1)
      fail("needs at least one output");
    node->numVisible = static_cast<unsigned>(visible);
    node->numOutputs = std::max(total, node->numVisible);
    std::vector<Symbol::Entry> outs;
    for (unsigned i = 0; i < node->numVisible; ++i)
      outs.push_back({node, i});
    return Symbol(std::move(outs));
  }

private:
  Symbol::Entry one(const char *operand, const Symbol &s) {
    if (s.NumOutputs() != 1)
      fail(std::string("operand '") + operand + "' has " +
           std::to_string(s.NumOutputs()) +
           " outputs; it needs one (pick one with [i])");
    return s.outputs()[0];
  }
  [[noreturn]] void fail(const std::string &why) {
    throw Error("node '" + node->name + "' (" + node->op + "): " + why);
  }

  std::shared_ptr<Symbol::Node> node;
};

} // namespace detail

namespace {

using Entry = Symbol::Entry;
using NodePtr = std::shared_ptr<Symbol::Node>;

/// Every node the outputs reach, inputs before their users (MXNet's depth
/// first order: a node's inputs in operand order, then the node), without
/// recursion (graphs may be deep).
std::vector<Symbol::Node *> topoOrder(const std::vector<Entry> &outputs) {
  std::vector<Symbol::Node *> order;
  std::set<Symbol::Node *> seen;
  std::vector<std::pair<Symbol::Node *, size_t>> stack;
  for (const Entry &out : outputs) {
    if (!seen.insert(out.node.get()).second)
      continue;
    stack.push_back({out.node.get(), 0});
    while (!stack.empty()) {
      auto &[node, next] = stack.back();
      if (next < node->inputs.size()) {
        Symbol::Node *input = node->inputs[next++].node.get();
        if (seen.insert(input).second)
          stack.push_back({input, 0});
        continue;
      }
      order.push_back(node);
      stack.pop_back();
    }
  }
  return order;
}

/// The variables used at an auxiliary-state operand of their consumer.
std::set<Symbol::Node *>
auxVariables(const std::vector<Symbol::Node *> &order) {
  std::set<Symbol::Node *> aux;
  for (Symbol::Node *node : order) {
    const detail::OpInfo *info = detail::findOperator(node->op);
    if (!info)
      continue;
    for (size_t i = 0; i < node->inputs.size() && i < info->operands.size();
         ++i)
      if (info->operands[i].second == detail::Role::Aux &&
          node->inputs[i].node->isVariable())
        aux.insert(node->inputs[i].node.get());
  }
  return aux;
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char esc[8];
        std::snprintf(esc, sizeof esc, "\\u%04x", c);
        out += esc;
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

std::string outputName(const Symbol::Node &node, unsigned index) {
  if (node.isVariable())
    return node.name;
  if (node.numVisible == 1)
    return node.name + "_output";
  return node.name + "_output" + std::to_string(index);
}

mxc::mxnet::SymbolGraph parse(const std::string &json) {
  auto graph = mxc::mxnet::parseSymbolJson(json, "symbol");
  if (!graph)
    throw Error(llvm::toString(graph.takeError()));
  return std::move(*graph);
}

} // namespace

NameScope::NameScope() { detail::nameCounters().emplace_back(); }
NameScope::~NameScope() { detail::nameCounters().pop_back(); }

Symbol Symbol::Variable(const std::string &name,
                        const std::map<std::string, std::string> &attrs) {
  if (name.empty())
    throw Error("a variable needs a name");
  auto node = std::make_shared<Node>();
  node->op = "null";
  node->name = name;
  node->attrs = attrs;
  return Symbol({{node, 0}});
}

Symbol Symbol::Group(const std::vector<Symbol> &symbols) {
  std::vector<Entry> outs;
  for (const Symbol &s : symbols)
    outs.insert(outs.end(), s.outputs().begin(), s.outputs().end());
  return Symbol(std::move(outs));
}

Symbol Symbol::FromJSON(const std::string &json) {
  mxc::mxnet::SymbolGraph graph = parse(json);
  std::vector<NodePtr> nodes;
  std::vector<unsigned> used(graph.nodes.size(), 0);
  auto note = [&](const mxc::mxnet::EntryRef &e) {
    used[e.node] = std::max(used[e.node], e.index + 1);
  };
  for (const auto &n : graph.nodes)
    for (const auto &in : n.inputs)
      note(in);
  for (const auto &h : graph.heads)
    note(h);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const mxc::mxnet::SymbolNode &n = graph.nodes[i];
    if (!n.subgraphs.empty())
      throw Error("symbol: node '" + n.name + "' (" + n.op +
                  "): control-flow subgraphs are not supported");
    auto node = std::make_shared<Node>();
    node->op = n.isVariable ? "null" : n.op;
    node->name = n.name;
    node->attrs = n.attrs;
    for (const auto &in : n.inputs)
      node->inputs.push_back({nodes[in.node], in.index});
    const detail::OpInfo *info = detail::findOperator(node->op);
    unsigned visible = std::max(1u, used[i]);
    if (node->op == "SliceChannel" || node->op == "split")
      if (auto count = mxc::mxnet::parseIntAttr(
              n.attrs.count("num_outputs") ? n.attrs.at("num_outputs") : "1"))
        visible = std::max<unsigned>(visible, unsigned(*count));
    node->numVisible = visible;
    node->numOutputs = std::max(visible, info ? info->numOutputs : 1u);
    nodes.push_back(std::move(node));
  }
  std::vector<Entry> outs;
  for (const auto &h : graph.heads)
    outs.push_back({nodes[h.node], h.index});
  return Symbol(std::move(outs));
}

Symbol Symbol::Load(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    throw Error("'" + path + "': " + buffer.getError().message());
  auto graph = mxc::mxnet::parseSymbolJson((*buffer)->getBuffer(), path);
  if (!graph)
    throw Error(llvm::toString(graph.takeError()));
  return FromJSON(std::string((*buffer)->getBuffer()));
}

std::string Symbol::ToJSON() const {
  std::vector<Node *> order = topoOrder(outputs_);
  std::unordered_map<Node *, size_t> index;
  for (size_t i = 0; i < order.size(); ++i)
    index[order[i]] = i;
  std::string out = "{\n  \"nodes\": [\n";
  for (size_t i = 0; i < order.size(); ++i) {
    const Node &n = *order[i];
    out += "    {\n      \"op\": " + jsonString(n.op) +
           ",\n      \"name\": " + jsonString(n.name) + ",\n";
    if (!n.attrs.empty()) {
      out += "      \"attrs\": {";
      bool first = true;
      for (const auto &[key, value] : n.attrs) {
        out += std::string(first ? "\n" : ",\n") + "        " +
               jsonString(key) + ": " + jsonString(value);
        first = false;
      }
      out += "\n      },\n";
    }
    out += "      \"inputs\": [";
    for (size_t k = 0; k < n.inputs.size(); ++k)
      out += (k ? ", [" : "[") + std::to_string(index[n.inputs[k].node.get()]) +
             ", " + std::to_string(n.inputs[k].index) + ", 0]";
    out += "]\n    }" + std::string(i + 1 < order.size() ? "," : "") + "\n";
  }
  out += "  ],\n  \"arg_nodes\": [";
  bool first = true;
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i]->isVariable()) {
      out += (first ? "" : ", ") + std::to_string(i);
      first = false;
    }
  out += "],\n  \"node_row_ptr\": [0";
  size_t rows = 0;
  for (Node *n : order)
    out += ", " + std::to_string(rows += n->numOutputs);
  out += "],\n  \"heads\": [";
  for (size_t k = 0; k < outputs_.size(); ++k)
    out += (k ? ", [" : "[") + std::to_string(index[outputs_[k].node.get()]) +
           ", " + std::to_string(outputs_[k].index) + ", 0]";
  out += "],\n  \"attrs\": {\"mxnet_version\": [\"int\", 10901]}\n}\n";
  return out;
}

void Symbol::Save(const std::string &path) const {
  std::string text = ToJSON();
  std::string temp = path + ".tmp";
  {
    std::error_code ec;
    llvm::raw_fd_ostream file(temp, ec);
    if (ec)
      throw Error("'" + path + "': " + ec.message());
    file << text;
    file.close();
    if (file.has_error()) {
      file.clear_error();
      llvm::sys::fs::remove(temp);
      throw Error("'" + path + "': writing failed");
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    throw Error("'" + path + "': " + ec.message());
  }
}

Symbol Symbol::operator[](size_t index) const {
  if (index >= outputs_.size())
    throw Error("output " + std::to_string(index) + " of a symbol with " +
                std::to_string(outputs_.size()) + " outputs");
  return Symbol({outputs_[index]});
}

std::string Symbol::Name() const {
  if (outputs_.size() != 1)
    throw Error("Name() of a symbol with " + std::to_string(outputs_.size()) +
                " outputs");
  return outputs_[0].node->name;
}

std::vector<std::string> Symbol::ListArguments() const {
  std::vector<Node *> order = topoOrder(outputs_);
  std::set<Node *> aux = auxVariables(order);
  std::vector<std::string> names;
  for (Node *n : order)
    if (n->isVariable() && !aux.count(n))
      names.push_back(n->name);
  return names;
}

std::vector<std::string> Symbol::ListAuxiliaryStates() const {
  std::vector<Node *> order = topoOrder(outputs_);
  std::set<Node *> aux = auxVariables(order);
  std::vector<std::string> names;
  for (Node *n : order)
    if (aux.count(n))
      names.push_back(n->name);
  return names;
}

std::vector<std::string> Symbol::ListOutputs() const {
  std::vector<std::string> names;
  for (const Entry &e : outputs_)
    names.push_back(outputName(*e.node, e.index));
  return names;
}

std::optional<std::string> Symbol::GetAttr(const std::string &key) const {
  Name(); // one output
  auto it = outputs_[0].node->attrs.find(key);
  if (it == outputs_[0].node->attrs.end())
    return std::nullopt;
  return it->second;
}

void Symbol::SetAttr(const std::string &key, const std::string &value) {
  Name();
  outputs_[0].node->attrs[key] = value;
}

Symbol Symbol::operator()(const std::map<std::string, Symbol> &inputs) const {
  std::vector<Node *> order = topoOrder(outputs_);
  std::unordered_map<Node *, Entry> copies;
  std::set<std::string> replaced;
  for (Node *n : order) {
    if (n->isVariable()) {
      auto it = inputs.find(n->name);
      if (it != inputs.end()) {
        if (it->second.NumOutputs() != 1)
          throw Error("composing: the symbol for '" + n->name + "' has " +
                      std::to_string(it->second.NumOutputs()) +
                      " outputs; it needs one");
        copies[n] = it->second.outputs()[0];
        replaced.insert(n->name);
        continue;
      }
    }
    auto copy = std::make_shared<Node>(*n);
    for (Entry &in : copy->inputs) {
      const Entry &to = copies.at(in.node.get());
      in = {to.node, to.index + in.index}; // a variable's index is 0
    }
    copies[n] = {copy, 0};
  }
  for (const auto &[name, symbol] : inputs)
    if (!replaced.count(name))
      throw Error("composing: the symbol has no variable '" + name + "'");
  std::vector<Entry> outs;
  for (const Entry &e : outputs_) {
    const Entry &to = copies.at(e.node.get());
    outs.push_back({to.node, to.index + e.index});
  }
  return Symbol(std::move(outs));
}

InferredShapes
Symbol::InferShape(const std::map<std::string, Shape> &known) const {
  mxc::mxnet::SymbolGraph graph = parse(ToJSON());
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  context.loadDialect<mxc::mx::MxDialect, mlir::func::FuncDialect>();
  mxc::mxnet::ImportOptions options;
  for (const auto &[name, shape] : known)
    options.inputShapes[name] = shape;
  options.withLabels = true;
  auto model = mxc::mxnet::importGraph(context, graph, options);
  if (!model)
    throw Error(llvm::toString(model.takeError()));
  std::map<std::string, Shape> shapes;
  for (const auto &t : model->spec.inputs)
    shapes[t.name] = t.shape;
  auto lookup = [&](const std::string &name) {
    auto it = shapes.find(name);
    if (it == shapes.end())
      throw Error("InferShape: '" + name +
                  "' is not used by the symbol's outputs");
    return it->second;
  };
  InferredShapes result;
  for (const std::string &name : ListArguments())
    result.arguments.push_back(lookup(name));
  for (const std::string &name : ListAuxiliaryStates())
    result.auxiliaryStates.push_back(lookup(name));
  for (const auto &t : model->spec.outputs)
    result.outputs.push_back(t.shape);
  return result;
}

Symbol operator+(const Symbol &a, const Symbol &b) {
  return sym::elemwise_add(a, b, {.name = detail::autoName("_Plus")});
}
Symbol operator-(const Symbol &a, const Symbol &b) {
  return sym::elemwise_sub(a, b, {.name = detail::autoName("_Minus")});
}
Symbol operator*(const Symbol &a, const Symbol &b) {
  return sym::elemwise_mul(a, b, {.name = detail::autoName("_Mul")});
}
Symbol operator/(const Symbol &a, const Symbol &b) {
  return sym::elemwise_div(a, b, {.name = detail::autoName("_Div")});
}
Symbol operator+(const Symbol &a, double b) {
  return sym::_plus_scalar(
      a, {.name = detail::autoName("_PlusScalar"), .scalar = b});
}
Symbol operator-(const Symbol &a, double b) {
  return sym::_minus_scalar(
      a, {.name = detail::autoName("_MinusScalar"), .scalar = b});
}
Symbol operator*(const Symbol &a, double b) {
  return sym::_mul_scalar(
      a, {.name = detail::autoName("_MulScalar"), .scalar = b});
}
Symbol operator/(const Symbol &a, double b) {
  return sym::_div_scalar(
      a, {.name = detail::autoName("_DivScalar"), .scalar = b});
}
Symbol operator+(double a, const Symbol &b) { return b + a; }
Symbol operator-(double a, const Symbol &b) {
  return sym::_rminus_scalar(
      b, {.name = detail::autoName("_RMinusScalar"), .scalar = a});
}
Symbol operator*(double a, const Symbol &b) { return b * a; }
Symbol operator/(double a, const Symbol &b) {
  return sym::_rdiv_scalar(
      b, {.name = detail::autoName("_RDivScalar"), .scalar = a});
}

#include "compiler/api/symbol_ops.cpp.inc"

Symbol sym::interleaved_matmul_selfatt_qk(
    const Symbol &queries_keys_values,
    const sym::interleaved_matmul_selfattArgs &args) {
  detail::OpCall call("_contrib_interleaved_matmul_selfatt_qk", args.name);
  call.input("queries_keys_values", queries_keys_values);
  call.required("heads", args.heads);
  return call.finish(1, 1);
}

Symbol sym::interleaved_matmul_selfatt_valatt(
    const Symbol &queries_keys_values, const Symbol &attention,
    const sym::interleaved_matmul_selfattArgs &args) {
  detail::OpCall call("_contrib_interleaved_matmul_selfatt_valatt", args.name);
  call.input("queries_keys_values", queries_keys_values);
  call.input("attention", attention);
  call.required("heads", args.heads);
  return call.finish(1, 1);
}

} // namespace mx
