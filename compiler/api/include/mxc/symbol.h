// SPDX-License-Identifier: Apache-2.0
//
// The C++ symbol API: networks built as MXNet symbols in C++ — variables,
// one function per MXNet operator mxc implements (generated from the mx
// dialect's definitions, with MXNet's parameter names and defaults),
// composition, groups, shape inference — and written as MXNet symbol JSON
// that MXNet 1.x loads and `mxc` compiles. Errors throw mx::Error with a
// message naming the node. Needs only the C++17 standard library here; the
// implementation (libMXCSymbol) links the compiler's MXNet frontend.

#ifndef MXC_SYMBOL_H
#define MXC_SYMBOL_H

#include "mxc/base.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mx {

/// InferShape's answer, in ListArguments / ListOutputs /
/// ListAuxiliaryStates order.
struct InferredShapes {
  std::vector<Shape> arguments, outputs, auxiliaryStates;
};

/// While it lives, nodes made without a name on this thread count from 0
/// again (`convolution0`, `convolution1`, ...), as inside MXNet's
/// `with mx.name.NameManager():`.
class NameScope {
public:
  NameScope();
  ~NameScope();
  NameScope(const NameScope &) = delete;
  NameScope &operator=(const NameScope &) = delete;
};

/// A symbolic expression: one or more outputs of a graph of operator nodes
/// over variables. Cheap to copy (nodes are shared and immutable once
/// built; SetAttr changes the node every copy sees).
class Symbol {
public:
  struct Node;
  /// One output of one node.
  struct Entry {
    std::shared_ptr<Node> node;
    unsigned index = 0;
  };

  /// No outputs; as an operator's parameter operand: "make a variable".
  Symbol() = default;
  explicit Symbol(std::vector<Entry> outputs) : outputs_(std::move(outputs)) {}

  /// A free variable: an input, a learned parameter or an auxiliary state.
  /// `attrs` are MXNet's variable attributes (`__shape__`, `__lr_mult__`).
  static Symbol Variable(const std::string &name,
                         const std::map<std::string, std::string> &attrs = {});
  /// The outputs of every symbol, in order, as one symbol.
  static Symbol Group(const std::vector<Symbol> &symbols);
  /// Reads MXNet symbol JSON (any version MXNet 1.x loads).
  static Symbol FromJSON(const std::string &json);
  /// Reads an MXNet symbol JSON file (`model-symbol.json`).
  static Symbol Load(const std::string &path);

  /// MXNet symbol JSON of the graph (nodes in topological order).
  std::string ToJSON() const;
  /// Writes ToJSON() to `path`, or nothing where it fails (a temporary
  /// file renamed into place).
  void Save(const std::string &path) const;

  bool empty() const { return outputs_.empty(); }
  size_t NumOutputs() const { return outputs_.size(); }
  /// Output `index` alone.
  Symbol operator[](size_t index) const;
  /// The node's name (of a one-output symbol).
  std::string Name() const;
  /// The free variables that are not auxiliary states, in MXNet's order
  /// (depth first from the outputs, inputs in operand order).
  std::vector<std::string> ListArguments() const;
  /// The outputs' names (`fc1_output`, `split0_output1`, or a variable's
  /// own name).
  std::vector<std::string> ListOutputs() const;
  /// The auxiliary states (BatchNorm's moving mean and variance).
  std::vector<std::string> ListAuxiliaryStates() const;

  /// An attribute of the (one-output) symbol's node.
  std::optional<std::string> GetAttr(const std::string &key) const;
  void SetAttr(const std::string &key, const std::string &value);

  /// Composition: a copy of this graph with the variables named in
  /// `inputs` replaced by those symbols (each one output).
  Symbol operator()(const std::map<std::string, Symbol> &inputs) const;

  /// Shapes of every argument, output and auxiliary state from the shapes
  /// of some arguments (usually the data), by the compiler's own shape
  /// inference; an error names the node that cannot take its inputs.
  InferredShapes InferShape(const std::map<std::string, Shape> &known) const;

  const std::vector<Entry> &outputs() const { return outputs_; }

private:
  std::vector<Entry> outputs_;
};

/// Elementwise arithmetic (equal shapes; the broadcast_* functions
/// broadcast) and with a scalar, as MXNet's Python operators (named as
/// they name them: `_plus0`, `_mulscalar0`).
Symbol operator+(const Symbol &a, const Symbol &b);
Symbol operator-(const Symbol &a, const Symbol &b);
Symbol operator*(const Symbol &a, const Symbol &b);
Symbol operator/(const Symbol &a, const Symbol &b);
Symbol operator+(const Symbol &a, double b);
Symbol operator-(const Symbol &a, double b);
Symbol operator*(const Symbol &a, double b);
Symbol operator/(const Symbol &a, double b);
Symbol operator+(double a, const Symbol &b);
Symbol operator-(double a, const Symbol &b);
Symbol operator*(double a, const Symbol &b);
Symbol operator/(double a, const Symbol &b);

/// One function per MXNet operator: positional data operands, then an
/// `<Op>Args` struct of the node name, the attributes (MXNet's names and
/// defaults; required ones are std::optional and checked) and the
/// parameter operands, made as variables `<name>_<operand>` when absent:
///   auto fc = mx::sym::FullyConnected(x, {.name = "fc1", .num_hidden = 10});
namespace sym {
#include "mxc/symbol_ops.h.inc"

/// MXNet's self-attention over interleaved projections (GluonNLP's BERT):
/// `queries_keys_values` is (seq, batch, heads * 3 * d), each head's query,
/// key and value side by side; `heads` is required.
struct interleaved_matmul_selfattArgs {
  std::string name;
  std::optional<int64_t> heads;
};
/// _contrib_interleaved_matmul_selfatt_qk: (batch * heads, seq, seq), each
/// head's queries / sqrt(d) times its keys.
Symbol
interleaved_matmul_selfatt_qk(const Symbol &queries_keys_values,
                              const interleaved_matmul_selfattArgs &args = {});
/// _contrib_interleaved_matmul_selfatt_valatt: (seq, batch, heads * d),
/// `attention` (qk's shape) times each head's values.
Symbol interleaved_matmul_selfatt_valatt(
    const Symbol &queries_keys_values, const Symbol &attention,
    const interleaved_matmul_selfattArgs &args = {});
} // namespace sym

} // namespace mx

#endif // MXC_SYMBOL_H
