// SPDX-License-Identifier: Apache-2.0
// Fuzzes the MXNet symbol JSON reader (parseSymbolJson: the JSON itself,
// node and head references, nested subgraphs, attributes) and the attribute
// parsers every operator's import goes through (ints, floats, bools, tuples).
// The importer behind them is fuzzed with the whole pipeline (compile).
#include "compiler/frontends/mxnet/Symbol.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>

using namespace mxc::mxnet;

namespace {

void consume(llvm::Error err) { llvm::consumeError(std::move(err)); }
template <typename T> void consume(llvm::Expected<T> value) {
  if (!value)
    llvm::consumeError(value.takeError());
}

void visit(const SymbolGraph &graph) {
  consume(checkUniqueNames(graph, /*variablesOnly=*/true));
  consume(checkUniqueNames(graph, /*variablesOnly=*/false));
  for (const SymbolNode &node : graph.nodes) {
    (void)graph.findNode(node.name);
    for (const auto &[key, value] : node.attrs) {
      consume(parseIntAttr(value));
      consume(parseOptionalIntAttr(value));
      consume(parseBoolAttr(value));
      consume(parseFloatAttr(value));
      consume(parseOptionalFloatAttr(value));
      consume(parseIntTupleAttr(value));
      consume(parseOptionalIntTupleAttr(value));
      consume(parseFloatTupleAttr(value));
    }
    for (const SymbolGraph &subgraph : node.subgraphs)
      visit(subgraph);
  }
  for (HeadRef head : graph.heads)
    for (unsigned outputs : {1u, 3u})
      (void)outputName(graph, head, outputs);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto graph = parseSymbolJson(text, "fuzz-symbol.json");
  if (!graph) {
    llvm::consumeError(graph.takeError());
    return 0;
  }
  visit(*graph);
  return 0;
}
