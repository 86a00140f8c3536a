// SPDX-License-Identifier: Apache-2.0
// The in-memory form of an MXNet symbol JSON file (`model-symbol.json`): the
// node list in MXNet's own order with attribute strings kept verbatim, older
// file layouts upgraded the way MXNet upgrades them, and parsers for MXNet's
// attribute string syntax. The MLIR importer builds on this; nothing here
// knows about MLIR.

#ifndef MXC_COMPILER_FRONTENDS_MXNET_SYMBOL_H
#define MXC_COMPILER_FRONTENDS_MXNET_SYMBOL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mxc::mxnet {

/// One output of one node: MXNet's `[node, index, version]` entry (the
/// version is dropped). Used for node inputs and graph heads.
struct EntryRef {
  unsigned node = 0;
  unsigned index = 0;

  friend bool operator==(const EntryRef &a, const EntryRef &b) {
    return a.node == b.node && a.index == b.index;
  }
  friend bool operator!=(const EntryRef &a, const EntryRef &b) {
    return !(a == b);
  }
};

/// A graph output.
using HeadRef = EntryRef;

struct SymbolGraph;

/// One node: an operator application, or a variable (op "null") such as the
/// data input, a weight or an auxiliary state.
struct SymbolNode {
  /// Operator name as MXNet registers it ("Convolution"); "null" for
  /// variables.
  std::string op;
  /// Node name; not necessarily unique (MXNet allows duplicates).
  std::string name;
  /// Attributes as MXNet wrote them, e.g. {"kernel", "(3, 3)"}. Variables keep
  /// theirs too (`__shape__`, `__dtype__`, `__init__`, `__lr_mult__`, ...).
  std::map<std::string, std::string> attrs;
  /// Inputs; each refers to an earlier node of the same graph.
  std::vector<EntryRef> inputs;
  /// Nested graphs of control-flow and partitioned-subgraph operators
  /// (`_foreach`, `_while_loop`, `_cond`, `_sg_*`), in file order.
  std::vector<SymbolGraph> subgraphs;
  /// True for op "null".
  bool isVariable = false;
};

/// A whole symbol file. Nodes are topologically ordered: every input refers to
/// an earlier node.
struct SymbolGraph {
  /// The file the graph came from, for messages.
  std::string fileName;
  std::vector<SymbolNode> nodes;
  /// Indices of the variable nodes (arguments and auxiliary states), in
  /// increasing order.
  std::vector<unsigned> argNodes;
  /// The graph outputs.
  std::vector<HeadRef> heads;
  /// `attrs.mxnet_version` (major * 10000 + minor * 100 + patch), or 0 when
  /// the file does not record it (MXNet then assumes 0.8.0).
  int64_t mxnetVersion = 0;

  /// The index of the first node called `name`, if any.
  std::optional<unsigned> findNode(llvm::StringRef name) const;
};

/// Parses the text of an MXNet symbol JSON file of any version MXNet can load,
/// and upgrades pre-0.9 files (missing BatchNorm auxiliary-state variables).
/// Errors name `fileNameForMessages`.
llvm::Expected<SymbolGraph>
parseSymbolJson(llvm::StringRef text, llvm::StringRef fileNameForMessages);

/// Reads and parses the symbol JSON file at `path`.
llvm::Expected<SymbolGraph> readSymbolFile(llvm::StringRef path);

/// The name MXNet gives graph output `head` (as `Symbol.list_outputs()` does):
/// the variable's name for a variable; `<name>_output` for a node with one
/// visible output; `<name>_output<index>` for a node with several (split /
/// SliceChannel), except the BatchNorm family whose outputs are `output`,
/// `mean` and `var`. The caller knows the node's visible output count.
std::string outputName(const SymbolGraph &graph, HeadRef head,
                       unsigned numOutputsOfThatNode);

/// Fails, naming the name and both nodes, when two nodes (only variables if
/// `variablesOnly`) share a name. MXNet loads such graphs, but binding weights
/// by name is then ambiguous.
llvm::Error checkUniqueNames(const SymbolGraph &graph,
                             bool variablesOnly = true);

//===----------------------------------------------------------------------===//
// MXNet attribute strings
//===----------------------------------------------------------------------===//
//
// Each parser accepts what MXNet's parameter parser accepts and fails with a
// message of the form `"<text>" is not <an integer | a tuple of integers...>`.

/// An integer: "3", "-1"; Python 2's long suffix ("3L") is accepted.
llvm::Expected<int64_t> parseIntAttr(llvm::StringRef text);
/// An integer or "None".
llvm::Expected<std::optional<int64_t>>
parseOptionalIntAttr(llvm::StringRef text);
/// "True", "False", "true", "false", "1" or "0".
llvm::Expected<bool> parseBoolAttr(llvm::StringRef text);
/// A number: "0.9", "1e-05", "inf", "-inf", "nan".
llvm::Expected<double> parseFloatAttr(llvm::StringRef text);
/// A number or "None".
llvm::Expected<std::optional<double>>
parseOptionalFloatAttr(llvm::StringRef text);
/// A tuple of integers: "(3, 3)", "(3,)", "[1, 2]", "()"; a bare "3" is the
/// 1-tuple (3,).
llvm::Expected<llvm::SmallVector<int64_t, 4>>
parseIntTupleAttr(llvm::StringRef text);
/// A tuple whose elements may be "None", as slice's begin/end: "(None, 2)".
llvm::Expected<llvm::SmallVector<std::optional<int64_t>, 4>>
parseOptionalIntTupleAttr(llvm::StringRef text);
/// A tuple of numbers: "(0.5, 1.0)".
llvm::Expected<llvm::SmallVector<double, 4>>
parseFloatTupleAttr(llvm::StringRef text);

/// Typed access to one node's attributes with defaults for absent ones. A
/// present but malformed value is an error such as
/// `node 'conv0' (Convolution): attribute 'kernel' = "(3, x)" is not a tuple
/// of integers`.
class AttrReader {
public:
  /// `node` must outlive the reader. A non-empty `fileName` prefixes errors.
  explicit AttrReader(const SymbolNode &node, llvm::StringRef fileName = "")
      : node(node), fileName(fileName.str()) {}

  /// Whether the attribute is present.
  bool has(llvm::StringRef key) const;
  /// The raw string, or `defaultValue` when absent.
  std::string getString(llvm::StringRef key,
                        llvm::StringRef defaultValue = "") const;
  llvm::Expected<int64_t> getInt(llvm::StringRef key,
                                 int64_t defaultValue) const;
  llvm::Expected<std::optional<int64_t>>
  getOptionalInt(llvm::StringRef key,
                 std::optional<int64_t> defaultValue = std::nullopt) const;
  llvm::Expected<bool> getBool(llvm::StringRef key, bool defaultValue) const;
  llvm::Expected<double> getFloat(llvm::StringRef key,
                                  double defaultValue) const;
  llvm::Expected<std::optional<double>>
  getOptionalFloat(llvm::StringRef key,
                   std::optional<double> defaultValue = std::nullopt) const;
  llvm::Expected<llvm::SmallVector<int64_t, 4>>
  getTuple(llvm::StringRef key,
           llvm::ArrayRef<int64_t> defaultValue = {}) const;
  llvm::Expected<llvm::SmallVector<std::optional<int64_t>, 4>>
  getOptionalTuple(llvm::StringRef key) const;
  llvm::Expected<llvm::SmallVector<double, 4>>
  getFloatTuple(llvm::StringRef key,
                llvm::ArrayRef<double> defaultValue = {}) const;

  /// An error prefixed like the reader's own: `node 'conv0' (Convolution): `
  /// + `message`. For the importer's checks (missing required attribute,
  /// unsupported value).
  llvm::Error makeError(const llvm::Twine &message) const;

private:
  const SymbolNode &node;
  std::string fileName;
};

} // namespace mxc::mxnet

#endif // MXC_COMPILER_FRONTENDS_MXNET_SYMBOL_H
