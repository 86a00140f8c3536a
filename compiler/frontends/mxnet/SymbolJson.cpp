// SPDX-License-Identifier: Apache-2.0
// Reads MXNet symbol JSON into a SymbolGraph, accepting every layout MXNet's
// own loader (nnvm LoadJSON + legacy_json_util.cc) accepts and applying the
// same upgrades, and parses MXNet's attribute string syntax. Bad input becomes
// an llvm::Error naming the file and the offending node; nothing here aborts.

#include "compiler/frontends/mxnet/Symbol.h"
#include "compiler/model/InputLimit.h"
#include "llvm/Support/FileSystem.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

using namespace llvm;

namespace mxc::mxnet {

namespace {

Error makeStringError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// Attribute strings
//===----------------------------------------------------------------------===//

constexpr StringLiteral kWhatInt = "an integer";
constexpr StringLiteral kWhatOptionalInt = "an integer or None";
constexpr StringLiteral kWhatBool = "a boolean (True/False/true/false/1/0)";
constexpr StringLiteral kWhatFloat = "a number";
constexpr StringLiteral kWhatOptionalFloat = "a number or None";
constexpr StringLiteral kWhatIntTuple = "a tuple of integers";
constexpr StringLiteral kWhatOptionalIntTuple =
    "a tuple of integers or None values";
constexpr StringLiteral kWhatFloatTuple = "a tuple of numbers";

std::optional<int64_t> tryParseInt(StringRef text) {
  text = text.trim();
  // Python 2 wrote longs as "3L"; MXNet's tuple parser skips the suffix.
  if (text.ends_with("L"))
    text = text.drop_back();
  int64_t value;
  if (text.empty() || text.getAsInteger(10, value))
    return std::nullopt;
  return value;
}

std::optional<bool> tryParseBool(StringRef text) {
  text = text.trim();
  if (text == "True" || text == "true" || text == "1")
    return true;
  if (text == "False" || text == "false" || text == "0")
    return false;
  return std::nullopt;
}

std::optional<double> tryParseFloat(StringRef text) {
  std::string copy = text.trim().str();
  if (copy.empty())
    return std::nullopt;
  char *end = nullptr;
  errno = 0;
  double value = std::strtod(copy.c_str(), &end);
  // Out-of-range literals saturate to +-inf or 0, as MXNet's parser does.
  if (end != copy.c_str() + copy.size())
    return std::nullopt;
  return value;
}

/// "None" (no value) or a value `parse` reads.
template <typename T>
std::optional<std::optional<T>>
tryParseOptional(StringRef text, std::optional<T> (*parse)(StringRef)) {
  if (text.trim() == "None")
    return std::optional<T>();
  if (std::optional<T> value = parse(text))
    return value;
  return std::nullopt;
}

std::optional<std::optional<int64_t>> tryParseOptionalInt(StringRef text) {
  return tryParseOptional<int64_t>(text, tryParseInt);
}

std::optional<std::optional<double>> tryParseOptionalFloat(StringRef text) {
  return tryParseOptional<double>(text, tryParseFloat);
}

/// Splits "(a, b)", "[a, b]", "(a,)", "()" or a bare "a" into elements and
/// parses each with `parseElem`.
template <typename Elem, typename ParseElem>
std::optional<SmallVector<Elem, 4>> tryParseTuple(StringRef text,
                                                  ParseElem parseElem) {
  text = text.trim();
  if (text.empty())
    return std::nullopt;
  SmallVector<Elem, 4> result;
  if (text.front() == '(' || text.front() == '[') {
    char close = text.front() == '(' ? ')' : ']';
    if (text.size() < 2 || text.back() != close)
      return std::nullopt;
    text = text.drop_front().drop_back().trim();
    if (text.empty())
      return result;
    // One trailing comma is Python's 1-tuple spelling: "(3,)".
    if (text.ends_with(","))
      text = text.drop_back();
  }
  SmallVector<StringRef, 4> parts;
  text.split(parts, ',');
  for (StringRef part : parts) {
    part = part.trim();
    if (part.empty())
      return std::nullopt;
    auto elem = parseElem(part);
    if (!elem)
      return std::nullopt;
    result.push_back(*elem);
  }
  return result;
}

std::optional<SmallVector<int64_t, 4>> tryParseIntTuple(StringRef text) {
  return tryParseTuple<int64_t>(text, tryParseInt);
}
std::optional<SmallVector<std::optional<int64_t>, 4>>
tryParseOptionalIntTuple(StringRef text) {
  return tryParseTuple<std::optional<int64_t>>(text, tryParseOptionalInt);
}
std::optional<SmallVector<double, 4>> tryParseFloatTuple(StringRef text) {
  return tryParseTuple<double>(text, tryParseFloat);
}

template <typename T>
Expected<T> parseOrFail(StringRef text, std::optional<T> parsed,
                        StringRef what) {
  if (parsed)
    return std::move(*parsed);
  return makeStringError("\"" + text + "\" is not " + what);
}

} // namespace

Expected<int64_t> parseIntAttr(StringRef text) {
  return parseOrFail(text, tryParseInt(text), kWhatInt);
}
Expected<std::optional<int64_t>> parseOptionalIntAttr(StringRef text) {
  return parseOrFail(text, tryParseOptionalInt(text), kWhatOptionalInt);
}
Expected<bool> parseBoolAttr(StringRef text) {
  return parseOrFail(text, tryParseBool(text), kWhatBool);
}
Expected<double> parseFloatAttr(StringRef text) {
  return parseOrFail(text, tryParseFloat(text), kWhatFloat);
}
Expected<std::optional<double>> parseOptionalFloatAttr(StringRef text) {
  return parseOrFail(text, tryParseOptionalFloat(text), kWhatOptionalFloat);
}
Expected<SmallVector<int64_t, 4>> parseIntTupleAttr(StringRef text) {
  return parseOrFail(text, tryParseIntTuple(text), kWhatIntTuple);
}
Expected<SmallVector<std::optional<int64_t>, 4>>
parseOptionalIntTupleAttr(StringRef text) {
  return parseOrFail(text, tryParseOptionalIntTuple(text),
                     kWhatOptionalIntTuple);
}
Expected<SmallVector<double, 4>> parseFloatTupleAttr(StringRef text) {
  return parseOrFail(text, tryParseFloatTuple(text), kWhatFloatTuple);
}

//===----------------------------------------------------------------------===//
// AttrReader
//===----------------------------------------------------------------------===//

bool AttrReader::has(StringRef key) const {
  return node.attrs.count(key.str()) != 0;
}

std::string AttrReader::getString(StringRef key, StringRef defaultValue) const {
  auto it = node.attrs.find(key.str());
  return it == node.attrs.end() ? defaultValue.str() : it->second;
}

Error AttrReader::makeError(const Twine &message) const {
  std::string prefix;
  if (!fileName.empty())
    prefix = "'" + fileName + "': ";
  prefix += "node '" + node.name + "' (" +
            (node.isVariable ? std::string("variable") : node.op) + "): ";
  return makeStringError(prefix + message);
}

namespace {
/// Shared body of the typed getters: default when absent, parse otherwise.
template <typename T, typename TryParse>
Expected<T> getTyped(const AttrReader &reader, const SymbolNode &node,
                     StringRef key, T defaultValue, TryParse tryParse,
                     StringRef what) {
  auto it = node.attrs.find(key.str());
  if (it == node.attrs.end())
    return defaultValue;
  if (auto parsed = tryParse(it->second))
    return T(std::move(*parsed));
  return reader.makeError("attribute '" + key + "' = \"" + it->second +
                          "\" is not " + what);
}
} // namespace

Expected<int64_t> AttrReader::getInt(StringRef key,
                                     int64_t defaultValue) const {
  return getTyped(*this, node, key, defaultValue, tryParseInt, kWhatInt);
}
Expected<std::optional<int64_t>>
AttrReader::getOptionalInt(StringRef key,
                           std::optional<int64_t> defaultValue) const {
  return getTyped(*this, node, key, defaultValue, tryParseOptionalInt,
                  kWhatOptionalInt);
}
Expected<bool> AttrReader::getBool(StringRef key, bool defaultValue) const {
  return getTyped(*this, node, key, defaultValue, tryParseBool, kWhatBool);
}
Expected<double> AttrReader::getFloat(StringRef key,
                                      double defaultValue) const {
  return getTyped(*this, node, key, defaultValue, tryParseFloat, kWhatFloat);
}
Expected<std::optional<double>>
AttrReader::getOptionalFloat(StringRef key,
                             std::optional<double> defaultValue) const {
  return getTyped(*this, node, key, defaultValue, tryParseOptionalFloat,
                  kWhatOptionalFloat);
}
Expected<SmallVector<int64_t, 4>>
AttrReader::getTuple(StringRef key, ArrayRef<int64_t> defaultValue) const {
  return getTyped(
      *this, node, key,
      SmallVector<int64_t, 4>(defaultValue.begin(), defaultValue.end()),
      tryParseIntTuple, kWhatIntTuple);
}
Expected<SmallVector<std::optional<int64_t>, 4>>
AttrReader::getOptionalTuple(StringRef key) const {
  return getTyped(*this, node, key, SmallVector<std::optional<int64_t>, 4>(),
                  tryParseOptionalIntTuple, kWhatOptionalIntTuple);
}
Expected<SmallVector<double, 4>>
AttrReader::getFloatTuple(StringRef key, ArrayRef<double> defaultValue) const {
  return getTyped(
      *this, node, key,
      SmallVector<double, 4>(defaultValue.begin(), defaultValue.end()),
      tryParseFloatTuple, kWhatFloatTuple);
}

//===----------------------------------------------------------------------===//
// Symbol JSON
//===----------------------------------------------------------------------===//

namespace {

/// MXNET_MAKE_VERSION(0, 9, 0): files older than this lack the auxiliary-state
/// variables of BatchNorm.
constexpr int64_t kVersion0_9_0 = 900;
/// Deeper JSON nesting than this is not a symbol file; refusing it up front
/// keeps the recursive JSON parser off a hostile stack-exhausting input.
constexpr unsigned kMaxJsonNesting = 256;
/// Subgraph nesting limit (control flow inside control flow ...).
constexpr unsigned kMaxSubgraphDepth = 32;
/// The most inputs a node may have: compile time grows faster than linearly
/// in them (bufferizing a Concat of 3,000 inputs: 6 s, of 20,000: minutes).
constexpr size_t kMaxNodeInputs = 4096;

/// Attribute keys MXNet stores hidden as `__key__` (c_api_common.h,
/// kHiddenKeys); legacy_json_util.cc renames the bare forms on load.
constexpr StringLiteral kHiddenKeys[] = {"ctx_group",    "lr_mult",
                                         "wd_mult",      "force_mirroring",
                                         "mirror_stage", "profiler_scope"};

/// The input names of the operators whose auxiliary states pre-0.9 files
/// omitted (FListInputNames in MXNet's batch_norm*.cc).
constexpr StringLiteral kBatchNormInputs[] = {"data", "gamma", "beta",
                                              "moving_mean", "moving_var"};
bool hasLegacyAuxStates(StringRef op) {
  return op == "BatchNorm" || op == "BatchNorm_v1" || op == "CuDNNBatchNorm";
}

/// The byte offset at which `text` nests deeper than `maxDepth`, if it does.
std::optional<size_t> findExcessiveNesting(StringRef text, unsigned maxDepth) {
  bool inString = false, escaped = false;
  unsigned depth = 0;
  for (size_t i = 0, e = text.size(); i != e; ++i) {
    char c = text[i];
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth)
        return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

/// Turns llvm::json's "[3:5, byte=40]: Expected , or ]" into
/// "line 3, column 5: Expected , or ]".
std::string describeJsonError(Error error) {
  std::string text = toString(std::move(error));
  StringRef rest = text;
  unsigned line, column;
  if (rest.consume_front("[") && !rest.consumeInteger(10, line) &&
      rest.consume_front(":") && !rest.consumeInteger(10, column)) {
    size_t close = rest.find("]: ");
    if (close != StringRef::npos)
      return ("line " + Twine(line) + ", column " + Twine(column) + ": " +
              rest.drop_front(close + 3))
          .str();
  }
  return text;
}

class GraphParser {
public:
  explicit GraphParser(StringRef fileName) : fileName(fileName.str()) {}

  Expected<SymbolGraph> parseGraph(const json::Value &value,
                                   const std::string &where, unsigned depth);

private:
  Error fail(const std::string &where, const Twine &message) const {
    return makeStringError("'" + fileName + "': " + where + message);
  }
  Expected<EntryRef> parseEntry(const json::Value &value,
                                const std::string &where,
                                const Twine &what) const;
  Error parseAttrDict(const json::Object &node, StringRef key, SymbolNode &out,
                      const std::string &where) const;
  Expected<SymbolNode> parseNode(const json::Value &value, unsigned index,
                                 const std::string &where, unsigned depth);
  Expected<int64_t> parseVersion(const json::Object &graph,
                                 const std::string &where) const;

  std::string fileName;
};

std::string nodeLabel(unsigned index, const SymbolNode &node) {
  return "node " + std::to_string(index) + " ('" + node.name + "')";
}

Expected<EntryRef> GraphParser::parseEntry(const json::Value &value,
                                           const std::string &where,
                                           const Twine &what) const {
  const json::Array *array = value.getAsArray();
  if (!array || (array->size() != 2 && array->size() != 3))
    return fail(where, what + " is not a [node, index] or [node, index, "
                              "version] array");
  int64_t fields[3] = {0, 0, 0};
  for (size_t i = 0; i < array->size(); ++i) {
    std::optional<int64_t> field = (*array)[i].getAsInteger();
    if (!field || *field < 0 || *field > int64_t(UINT32_MAX))
      return fail(where, what + " has a field that is not a non-negative "
                                "32-bit integer");
    fields[i] = *field;
  }
  return EntryRef{unsigned(fields[0]), unsigned(fields[1])};
}

// nnvm reads "attrs" and "attr" into the node's dictionary and merges "param"
// (the pre-nnvm name) without overwriting; the caller applies them oldest
// first so that the current key wins.
Error GraphParser::parseAttrDict(const json::Object &node, StringRef key,
                                 SymbolNode &out,
                                 const std::string &where) const {
  const json::Value *value = node.get(key);
  if (!value || value->kind() == json::Value::Null)
    return Error::success();
  const json::Object *dict = value->getAsObject();
  if (!dict)
    return fail(where, "\"" + key + "\" is not a JSON object");
  for (const auto &[attrName, attrValue] : *dict) {
    std::optional<StringRef> text = attrValue.getAsString();
    if (!text)
      return fail(where, "attribute '" + StringRef(attrName) + "' in \"" + key +
                             "\" is not a string");
    out.attrs[attrName.str()] = text->str();
  }
  return Error::success();
}

Expected<SymbolNode> GraphParser::parseNode(const json::Value &value,
                                            unsigned index,
                                            const std::string &where,
                                            unsigned depth) {
  std::string label = "node " + std::to_string(index);
  const json::Object *object = value.getAsObject();
  if (!object)
    return fail(where, label + " is not a JSON object");

  SymbolNode node;
  const json::Value *name = object->get("name");
  if (!name)
    return fail(where, label + " has no \"name\"");
  if (!name->getAsString())
    return fail(where, label + ": \"name\" is not a string");
  node.name = name->getAsString()->str();
  label = nodeLabel(index, node);

  const json::Value *op = object->get("op");
  if (!op)
    return fail(where, label + " has no \"op\"");
  if (!op->getAsString())
    return fail(where, label + ": \"op\" is not a string");
  node.op = op->getAsString()->str();
  if (node.op.empty())
    return fail(where, label + ": \"op\" is empty (variables use \"null\")");
  node.isVariable = node.op == "null";

  std::string nodeWhere = where + label + ": ";
  for (StringRef key : {"param", "attr", "attrs"})
    if (Error error = parseAttrDict(*object, key, node, nodeWhere))
      return error;

  // MXNet (legacy_json_util.cc, UpgradeJSON_FixParsing) stores bare hidden
  // keys such as "lr_mult" as "__lr_mult__".
  for (StringRef hidden : kHiddenKeys) {
    auto it = node.attrs.find(hidden.str());
    if (it == node.attrs.end())
      continue;
    node.attrs[("__" + hidden + "__").str()] = it->second;
    node.attrs.erase(it);
  }

  // "inputs" is required by MXNet; an absent list is read as no inputs.
  if (const json::Value *inputs = object->get("inputs")) {
    const json::Array *array = inputs->getAsArray();
    if (!array)
      return fail(where, label + ": \"inputs\" is not an array");
    if (node.isVariable && !array->empty())
      return fail(where, label + ": a variable (op \"null\") has inputs");
    if (array->size() > kMaxNodeInputs)
      return fail(where, label + ": " + Twine(array->size()) +
                             " inputs, more than the " + Twine(kMaxNodeInputs) +
                             " mxc takes");
    for (auto [i, input] : enumerate(*array)) {
      Expected<EntryRef> entry =
          parseEntry(input, nodeWhere, "input " + Twine(i));
      if (!entry)
        return entry.takeError();
      node.inputs.push_back(*entry);
    }
  }

  if (const json::Value *subgraphs = object->get("subgraphs")) {
    const json::Array *array = subgraphs->getAsArray();
    if (!array)
      return fail(where, label + ": \"subgraphs\" is not an array");
    if (!array->empty() && depth + 1 > kMaxSubgraphDepth)
      return fail(where, label + ": subgraphs nest deeper than " +
                             Twine(kMaxSubgraphDepth) + " levels");
    for (auto [i, subgraph] : enumerate(*array)) {
      Expected<SymbolGraph> parsed = parseGraph(
          subgraph, nodeWhere + "subgraph " + std::to_string(i) + ": ",
          depth + 1);
      if (!parsed)
        return parsed.takeError();
      node.subgraphs.push_back(std::move(*parsed));
    }
  }
  // "control_deps" and "backward_source_id" carry no dataflow; ignored.
  return node;
}

Expected<int64_t> GraphParser::parseVersion(const json::Object &graph,
                                            const std::string &where) const {
  const json::Value *attrs = graph.get("attrs");
  if (!attrs)
    return 0;
  const json::Object *object = attrs->getAsObject();
  if (!object)
    return fail(where, "graph \"attrs\" is not a JSON object");
  const json::Value *version = object->get("mxnet_version");
  if (!version)
    return 0;
  // Written by MXNet as ["int", 10600].
  const json::Array *pair = version->getAsArray();
  std::optional<int64_t> number;
  if (pair && pair->size() == 2 && (*pair)[0].getAsString())
    number = (*pair)[1].getAsInteger();
  if (!number || *number < 0)
    return fail(where, "\"attrs\".\"mxnet_version\" is not [\"int\", "
                       "<non-negative version>]");
  return *number;
}

/// MXNet's UpgradeJSON_000800_000900: files before 0.9.0 did not store the
/// auxiliary states, so BatchNorm nodes have 3 inputs. Adds the variables
/// `<node name>_moving_mean` / `_moving_var` (with a copy of the node's
/// attributes, as MXNet does) just before each such node, keeping the node list
/// topologically ordered, and renumbers everything after them.
void addLegacyAuxStates(SymbolGraph &graph) {
  bool needed = any_of(graph.nodes, [](const SymbolNode &node) {
    return hasLegacyAuxStates(node.op) &&
           node.inputs.size() < std::size(kBatchNormInputs);
  });
  if (!needed)
    return;

  std::vector<unsigned> newIndex(graph.nodes.size());
  std::vector<unsigned> addedVariables;
  std::vector<SymbolNode> nodes;
  nodes.reserve(graph.nodes.size());
  for (auto [i, node] : enumerate(graph.nodes)) {
    for (EntryRef &input : node.inputs)
      input.node = newIndex[input.node];
    if (hasLegacyAuxStates(node.op)) {
      for (size_t k = node.inputs.size(); k < std::size(kBatchNormInputs);
           ++k) {
        SymbolNode var;
        var.op = "null";
        var.isVariable = true;
        // DefaultVarName: the argument name alone for an unnamed node.
        var.name = node.name.empty()
                       ? kBatchNormInputs[k].str()
                       : node.name + "_" + kBatchNormInputs[k].str();
        var.attrs = node.attrs;
        addedVariables.push_back(unsigned(nodes.size()));
        node.inputs.push_back(EntryRef{unsigned(nodes.size()), 0});
        nodes.push_back(std::move(var));
      }
    }
    newIndex[i] = unsigned(nodes.size());
    nodes.push_back(std::move(node));
  }
  for (HeadRef &head : graph.heads)
    head.node = newIndex[head.node];
  for (unsigned &arg : graph.argNodes)
    arg = newIndex[arg];
  llvm::append_range(graph.argNodes, addedVariables);
  llvm::sort(graph.argNodes);
  graph.nodes = std::move(nodes);
}

Expected<SymbolGraph> GraphParser::parseGraph(const json::Value &value,
                                              const std::string &where,
                                              unsigned depth) {
  const json::Object *object = value.getAsObject();
  if (!object)
    return fail(where, "the top level is not a JSON object");

  SymbolGraph graph;
  graph.fileName = fileName;

  const json::Value *nodes = object->get("nodes");
  if (!nodes)
    return fail(where, "no \"nodes\" array (not an MXNet symbol file?)");
  const json::Array *nodeArray = nodes->getAsArray();
  if (!nodeArray)
    return fail(where, "\"nodes\" is not an array");
  for (auto [i, nodeValue] : enumerate(*nodeArray)) {
    Expected<SymbolNode> node = parseNode(nodeValue, i, where, depth);
    if (!node)
      return node.takeError();
    for (auto [k, input] : enumerate(node->inputs)) {
      std::string label = where + nodeLabel(i, *node) + ": input " +
                          std::to_string(k) + " refers to ";
      if (input.node >= nodeArray->size())
        return fail(label, "node " + Twine(input.node) +
                               ", but the graph has " +
                               Twine(nodeArray->size()) + " nodes");
      if (input.node >= i)
        return fail(label, "node " + Twine(input.node) +
                               ", which does not come before it (inputs "
                               "must refer to earlier nodes; a cycle?)");
      const SymbolNode &source = graph.nodes[input.node];
      if (source.isVariable && input.index != 0)
        return fail(label, "output " + Twine(input.index) + " of variable '" +
                               source.name + "', which has one output");
    }
    graph.nodes.push_back(std::move(*node));
  }
  unsigned numNodes = graph.nodes.size();

  const json::Value *heads = object->get("heads");
  if (!heads)
    return fail(where, "no \"heads\" array (the graph outputs)");
  const json::Array *headArray = heads->getAsArray();
  if (!headArray)
    return fail(where, "\"heads\" is not an array");
  for (auto [i, headValue] : enumerate(*headArray)) {
    Expected<EntryRef> head = parseEntry(headValue, where, "head " + Twine(i));
    if (!head)
      return head.takeError();
    if (head->node >= numNodes)
      return fail(where, "head " + Twine(i) + " refers to node " +
                             Twine(head->node) + ", but the graph has " +
                             Twine(numNodes) + " nodes");
    const SymbolNode &source = graph.nodes[head->node];
    if (source.isVariable && head->index != 0)
      return fail(where, "head " + Twine(i) + " refers to output " +
                             Twine(head->index) + " of variable '" +
                             source.name + "', which has one output");
    graph.heads.push_back(*head);
  }

  // "arg_nodes" is redundant (the variables in node order); MXNet requires
  // it, this reader recomputes it when absent.
  if (const json::Value *args = object->get("arg_nodes")) {
    const json::Array *argArray = args->getAsArray();
    if (!argArray)
      return fail(where, "\"arg_nodes\" is not an array");
    for (auto [i, arg] : enumerate(*argArray)) {
      std::optional<int64_t> index = arg.getAsInteger();
      if (!index || *index < 0 || *index >= int64_t(numNodes))
        return fail(where, "arg_nodes entry " + Twine(i) +
                               " is not a node index below " + Twine(numNodes));
      if (!graph.nodes[*index].isVariable)
        return fail(where, "arg_nodes entry " + Twine(i) + " refers to " +
                               nodeLabel(*index, graph.nodes[*index]) +
                               ", which is not a variable");
      graph.argNodes.push_back(unsigned(*index));
    }
    llvm::sort(graph.argNodes);
    graph.argNodes.erase(
        std::unique(graph.argNodes.begin(), graph.argNodes.end()),
        graph.argNodes.end());
  } else {
    for (unsigned i = 0; i < numNodes; ++i)
      if (graph.nodes[i].isVariable)
        graph.argNodes.push_back(i);
  }

  Expected<int64_t> version = parseVersion(*object, where);
  if (!version)
    return version.takeError();
  graph.mxnetVersion = *version;
  // "node_row_ptr" is derived data; ignored.

  // A missing version means 0.8.0 to MXNet.
  if (graph.mxnetVersion < kVersion0_9_0)
    addLegacyAuxStates(graph);
  return graph;
}

} // namespace

std::optional<unsigned> SymbolGraph::findNode(StringRef name) const {
  for (auto [i, node] : enumerate(nodes))
    if (node.name == name)
      return unsigned(i);
  return std::nullopt;
}

Expected<SymbolGraph> parseSymbolJson(StringRef text,
                                      StringRef fileNameForMessages) {
  auto fail = [&](const Twine &message) {
    return makeStringError("'" + fileNameForMessages + "': " + message);
  };
  if (std::optional<size_t> offset =
          findExcessiveNesting(text, kMaxJsonNesting))
    return fail("malformed JSON: nesting deeper than " +
                Twine(kMaxJsonNesting) + " levels at byte " + Twine(*offset));
  Expected<json::Value> value = json::parse(text);
  if (!value)
    return fail("malformed JSON at " + describeJsonError(value.takeError()));
  return GraphParser(fileNameForMessages).parseGraph(*value, "", 0);
}

Expected<SymbolGraph> readSymbolFile(StringRef path) {
  uint64_t size;
  if (!sys::fs::file_size(path, size))
    if (Error e = checkInputBytes(path, size))
      return std::move(e);
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return makeStringError("'" + path +
                           "': cannot read: " + buffer.getError().message());
  return parseSymbolJson((*buffer)->getBuffer(), path);
}

std::string outputName(const SymbolGraph &graph, HeadRef head,
                       unsigned numOutputsOfThatNode) {
  assert(head.node < graph.nodes.size() && "head out of range");
  const SymbolNode &node = graph.nodes[head.node];
  if (node.isVariable)
    return node.name;
  // Operators with FListOutputNames other than output0, output1, ...
  static const std::pair<StringRef, std::array<StringRef, 3>> kNamedOutputs[] =
      {{"BatchNorm", {"output", "mean", "var"}},
       {"BatchNorm_v1", {"output", "mean", "var"}},
       {"CuDNNBatchNorm", {"output", "mean", "var"}},
       {"SyncBatchNorm", {"output", "mean", "var"}},
       {"_contrib_SyncBatchNorm", {"output", "mean", "var"}},
       {"LayerNorm", {"output", "mean", "std"}},
       {"GroupNorm", {"output", "mean", "std"}},
       {"RNN", {"output", "state_output", "statecell_output"}}};
  std::string suffix = "output";
  if (numOutputsOfThatNode > 1) {
    suffix += std::to_string(head.index);
    for (const auto &[op, names] : kNamedOutputs)
      if (op == node.op && head.index < names.size())
        suffix = names[head.index].str();
  }
  return node.name.empty() ? suffix : node.name + "_" + suffix;
}

Error checkUniqueNames(const SymbolGraph &graph, bool variablesOnly) {
  std::map<StringRef, unsigned> seen;
  for (auto [i, node] : enumerate(graph.nodes)) {
    if (variablesOnly && !node.isVariable)
      continue;
    auto [it, inserted] = seen.try_emplace(node.name, unsigned(i));
    if (!inserted)
      return makeStringError("'" + graph.fileName + "': nodes " +
                             Twine(it->second) + " and " + Twine(i) +
                             " are both named '" + node.name + "'");
  }
  return Error::success();
}

} // namespace mxc::mxnet
