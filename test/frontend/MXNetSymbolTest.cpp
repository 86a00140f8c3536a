// SPDX-License-Identifier: Apache-2.0
// Symbol JSON reading: the real GluonCV/MXNet test files, the older layouts
// MXNet still loads (attr/param keys, [node, index] pairs, pre-0.9 BatchNorm
// without auxiliary states), output naming, and one case per rejected input.

#include "compiler/frontends/mxnet/Params.h"
#include "compiler/frontends/mxnet/Symbol.h"
#include "test/frontend/TestUtil.h"

#include "llvm/Support/FileSystem.h"

#include <set>
#include <string>

using namespace mxc::mxnet;
using mxc::test::errorOf;
using mxc::test::testDataPath;

namespace {

#define SKIP_IF_MISSING(path)                                                  \
  if (!llvm::sys::fs::exists(path))                                            \
  GTEST_SKIP() << "shared test data not found: " << (path)                     \
               << " (expected ../shared/testdata beside the project root)"

std::vector<EntryRef> entries(std::initializer_list<EntryRef> list) {
  return list;
}

TEST(MXNetSymbol, CifarResNet20) {
  std::string path = testDataPath("mxnet/cifar_resnet20_v1-symbol.json");
  SKIP_IF_MISSING(path);
  MXC_ASSERT_OK_AND_ASSIGN(graph, readSymbolFile(path));
  EXPECT_EQ(graph.fileName, path);
  ASSERT_EQ(graph.nodes.size(), 179u);
  EXPECT_EQ(graph.argNodes.size(), 108u);
  EXPECT_EQ(graph.mxnetVersion, 20000);
  EXPECT_EQ(graph.heads, entries({{178, 0}}));

  const SymbolNode &data = graph.nodes[0];
  EXPECT_TRUE(data.isVariable);
  EXPECT_EQ(data.op, "null");
  EXPECT_EQ(data.name, "data");

  const SymbolNode &conv = graph.nodes[2];
  EXPECT_EQ(conv.op, "Convolution");
  EXPECT_EQ(conv.name, "cifarresnetv10_conv0_fwd");
  EXPECT_FALSE(conv.isVariable);
  EXPECT_EQ(conv.inputs, entries({{0, 0}, {1, 0}}));
  AttrReader convAttrs(conv);
  EXPECT_EQ(*convAttrs.getTuple("kernel"),
            (llvm::SmallVector<int64_t, 4>{3, 3}));
  EXPECT_EQ(*convAttrs.getInt("num_filter", 0), 16);
  EXPECT_TRUE(*convAttrs.getBool("no_bias", false));
  EXPECT_EQ(conv.attrs.at("__profiler_scope__"), "cifarresnetv10:conv0:");

  const SymbolNode &weight = graph.nodes[1];
  EXPECT_EQ(weight.attrs.at("__shape__"), "(16, 3, 3, 3)");
  EXPECT_EQ(weight.attrs.at("__dtype__"), "0");
  EXPECT_EQ(weight.attrs.at("__lr_mult__"), "1.0");

  // Files from 0.9 on carry the auxiliary states; nothing is added.
  const SymbolNode &bn = graph.nodes[7];
  EXPECT_EQ(bn.op, "BatchNorm");
  EXPECT_EQ(bn.inputs, entries({{2, 0}, {3, 0}, {4, 0}, {5, 0}, {6, 0}}));
  EXPECT_EQ(graph.nodes[5].name, "cifarresnetv10_batchnorm0_running_mean");
  EXPECT_EQ(*AttrReader(bn).getFloat("eps", 1e-3), 1e-05);
  EXPECT_FALSE(*AttrReader(bn).getBool("fix_gamma", true));

  const SymbolNode &pool = graph.nodes[175];
  EXPECT_EQ(pool.attrs.at("pooling_convention"), "full");

  EXPECT_EQ(outputName(graph, graph.heads[0], 1),
            "cifarresnetv10_dense0_fwd_output");
  EXPECT_FALSE(bool(checkUniqueNames(graph, /*variablesOnly=*/false)));
  EXPECT_EQ(graph.findNode("cifarresnetv10_dense0_bias"), 177u);
  EXPECT_EQ(graph.findNode("nope"), std::nullopt);

  // Every variable but the data input names a weight of the .params file.
  std::string paramsPath = testDataPath("mxnet/cifar_resnet20_v1-0000.params");
  SKIP_IF_MISSING(paramsPath);
  MXC_ASSERT_OK_AND_ASSIGN(params, readParamsFile(paramsPath));
  std::set<std::string> weightNames;
  for (const NamedArray &array : params)
    weightNames.insert(array.name);
  for (unsigned arg : graph.argNodes) {
    const std::string &name = graph.nodes[arg].name;
    if (name != "data") {
      EXPECT_TRUE(weightNames.count(name)) << name;
    }
  }
}

TEST(MXNetSymbol, DnnlModel1) {
  std::string path = testDataPath("mxnet/test_dnnl_model1.json");
  SKIP_IF_MISSING(path);
  MXC_ASSERT_OK_AND_ASSIGN(graph, readSymbolFile(path));
  ASSERT_EQ(graph.nodes.size(), 73u);
  EXPECT_EQ(graph.argNodes.size(), 34u);
  EXPECT_EQ(graph.mxnetVersion, 10200);
  EXPECT_EQ(graph.heads, entries({{72, 0}}));
  const SymbolNode &softmax = graph.nodes[72];
  EXPECT_EQ(softmax.op, "SoftmaxOutput");
  EXPECT_TRUE(softmax.attrs.empty());
  EXPECT_EQ(softmax.inputs, entries({{70, 0}, {71, 0}}));
  // MXNet 1.2 copied the consumer's attributes onto weight variables; kept.
  EXPECT_EQ(graph.nodes[62].attrs.at("kernel"), "(1, 1)");
  EXPECT_EQ(*AttrReader(graph.nodes[60]).getTuple("dilate"),
            (llvm::SmallVector<int64_t, 4>{6, 6}));
  EXPECT_EQ(outputName(graph, graph.heads[0], 1), "softmax_output");
}

// A symbol as MXNet 0.8 wrote it: "param" and "attr" instead of "attrs",
// [node, index] pairs, backward_source_id, no mxnet_version, and BatchNorm
// with only data, gamma and beta.
constexpr const char *kLegacyJson = R"json({
  "nodes": [
    {"op": "null", "param": {}, "name": "data", "inputs": [],
     "backward_source_id": -1},
    {"op": "null", "param": {}, "name": "bn_gamma", "inputs": [],
     "backward_source_id": -1, "attr": {"lr_mult": "0.5"}},
    {"op": "null", "param": {}, "name": "bn_beta", "inputs": [],
     "backward_source_id": -1},
    {"op": "BatchNorm", "param": {"eps": "0.001", "fix_gamma": "True",
     "momentum": "0.9"}, "name": "bn", "inputs": [[0, 0], [1, 0], [2, 0]],
     "backward_source_id": -1, "attr": {"ctx_group": "dev1"}},
    {"op": "Activation", "param": {"act_type": "relu"}, "name": "relu",
     "inputs": [[3, 0]], "backward_source_id": -1}
  ],
  "arg_nodes": [0, 1, 2],
  "heads": [[4, 0]]
})json";

TEST(MXNetSymbol, LegacyBatchNormGetsAuxStates) {
  MXC_ASSERT_OK_AND_ASSIGN(graph, parseSymbolJson(kLegacyJson, "old.json"));
  EXPECT_EQ(graph.mxnetVersion, 0);
  ASSERT_EQ(graph.nodes.size(), 7u);
  // The new variables come just before the BatchNorm, keeping the order
  // topological; everything after is renumbered.
  EXPECT_EQ(graph.nodes[3].name, "bn_moving_mean");
  EXPECT_EQ(graph.nodes[4].name, "bn_moving_var");
  for (unsigned i : {3u, 4u}) {
    EXPECT_TRUE(graph.nodes[i].isVariable);
    EXPECT_EQ(graph.nodes[i].op, "null");
    EXPECT_TRUE(graph.nodes[i].inputs.empty());
    // MXNet copies the BatchNorm's attributes onto the new variables.
    EXPECT_EQ(graph.nodes[i].attrs.at("eps"), "0.001");
  }
  const SymbolNode &bn = graph.nodes[5];
  EXPECT_EQ(bn.name, "bn");
  EXPECT_EQ(bn.inputs, entries({{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}}));
  EXPECT_EQ(bn.attrs.at("fix_gamma"), "True");
  // Bare hidden keys become __key__, as MXNet's upgrader does.
  EXPECT_EQ(bn.attrs.at("__ctx_group__"), "dev1");
  EXPECT_EQ(bn.attrs.count("ctx_group"), 0u);
  EXPECT_EQ(graph.nodes[1].attrs.at("__lr_mult__"), "0.5");
  EXPECT_EQ(graph.nodes[6].inputs, entries({{5, 0}}));
  EXPECT_EQ(graph.heads, entries({{6, 0}}));
  EXPECT_EQ(graph.argNodes, (std::vector<unsigned>{0, 1, 2, 3, 4}));
  EXPECT_EQ(outputName(graph, graph.heads[0], 1), "relu_output");
}

TEST(MXNetSymbol, LegacyUpgradeFollowsTheVersion) {
  auto withVersion = [](const char *version) {
    std::string text = kLegacyJson;
    text.insert(text.rfind('}'),
                std::string(", \"attrs\": {\"mxnet_version\": [\"int\", ") +
                    version + "]}");
    return text;
  };
  // 0.8.0 recorded explicitly: upgraded.
  MXC_ASSERT_OK_AND_ASSIGN(old, parseSymbolJson(withVersion("800"), "a.json"));
  EXPECT_EQ(old.mxnetVersion, 800);
  EXPECT_EQ(old.nodes.size(), 7u);
  // 0.9.0 and later: taken as written (shape inference will complain).
  MXC_ASSERT_OK_AND_ASSIGN(recent,
                           parseSymbolJson(withVersion("900"), "b.json"));
  EXPECT_EQ(recent.mxnetVersion, 900);
  EXPECT_EQ(recent.nodes.size(), 5u);
  EXPECT_EQ(recent.nodes[3].inputs.size(), 3u);
}

TEST(MXNetSymbol, LegacyUnnamedBatchNormWithFourInputs) {
  const char *json = R"json({"nodes": [
    {"op": "null", "name": "x", "inputs": []},
    {"op": "null", "name": "g", "inputs": []},
    {"op": "null", "name": "b", "inputs": []},
    {"op": "null", "name": "m", "inputs": []},
    {"op": "BatchNorm", "name": "", "inputs": [[0,0],[1,0],[2,0],[3,0]]}],
    "arg_nodes": [0, 1, 2, 3], "heads": [[4, 0]]})json";
  MXC_ASSERT_OK_AND_ASSIGN(graph, parseSymbolJson(json, "c.json"));
  ASSERT_EQ(graph.nodes.size(), 6u);
  EXPECT_EQ(graph.nodes[4].name, "moving_var");
  EXPECT_EQ(graph.nodes[5].inputs.size(), 5u);
  EXPECT_EQ(graph.nodes[5].inputs[4], (EntryRef{4, 0}));
}

TEST(MXNetSymbol, AttributeKeysMergeWithCurrentWinning) {
  const char *json = R"json({"nodes": [
    {"op": "null", "name": "x", "inputs": [],
     "param": {"a": "param", "b": "param", "c": "param"},
     "attr": {"b": "attr", "c": "attr"},
     "attrs": {"c": "attrs"}}],
    "arg_nodes": [0], "heads": [[0, 0]],
    "attrs": {"mxnet_version": ["int", 10600]}})json";
  MXC_ASSERT_OK_AND_ASSIGN(graph, parseSymbolJson(json, "m.json"));
  const auto &attrs = graph.nodes[0].attrs;
  EXPECT_EQ(attrs.at("a"), "param");
  EXPECT_EQ(attrs.at("b"), "attr");
  EXPECT_EQ(attrs.at("c"), "attrs");
  EXPECT_EQ(outputName(graph, graph.heads[0], 1), "x");
}

TEST(MXNetSymbol, OptionalPartsAndSubgraphs) {
  // No arg_nodes (recomputed), node_row_ptr and control_deps ignored, a
  // subgraph parsed as a graph of its own.
  const char *json = R"json({"nodes": [
    {"op": "null", "name": "x", "inputs": []},
    {"op": "_foreach", "name": "loop", "inputs": [[0, 0, 0]],
     "attrs": {"num_outputs": "1"}, "control_deps": [0],
     "subgraphs": [{"nodes": [{"op": "null", "name": "y", "inputs": []},
                              {"op": "relu", "name": "r",
                               "inputs": [[0, 0, 0]]}],
                    "arg_nodes": [0], "heads": [[1, 0, 0]]}]}],
    "node_row_ptr": [0, 1, 2], "heads": [[1, 0, 0]]})json";
  MXC_ASSERT_OK_AND_ASSIGN(graph, parseSymbolJson(json, "s.json"));
  EXPECT_EQ(graph.argNodes, (std::vector<unsigned>{0}));
  ASSERT_EQ(graph.nodes[1].subgraphs.size(), 1u);
  const SymbolGraph &body = graph.nodes[1].subgraphs[0];
  EXPECT_EQ(body.nodes.size(), 2u);
  EXPECT_EQ(body.heads, entries({{1, 0}}));
}

TEST(MXNetSymbol, OutputNames) {
  const char *json = R"json({"nodes": [
    {"op": "null", "name": "x", "inputs": []},
    {"op": "SliceChannel", "name": "split0", "attrs": {"num_outputs": "3"},
     "inputs": [[0, 0, 0]]},
    {"op": "BatchNorm", "name": "bn", "attrs": {"output_mean_var": "True"},
     "inputs": [[1, 2, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]},
    {"op": "relu", "name": "", "inputs": [[2, 0, 0]]}],
    "heads": [[1, 0, 0], [1, 2, 0], [2, 1, 0], [2, 2, 0], [3, 0, 0],
              [0, 0, 0]],
    "attrs": {"mxnet_version": ["int", 10600]}})json";
  MXC_ASSERT_OK_AND_ASSIGN(graph, parseSymbolJson(json, "o.json"));
  EXPECT_EQ(outputName(graph, graph.heads[0], 3), "split0_output0");
  EXPECT_EQ(outputName(graph, graph.heads[1], 3), "split0_output2");
  EXPECT_EQ(outputName(graph, graph.heads[2], 3), "bn_mean");
  EXPECT_EQ(outputName(graph, graph.heads[3], 3), "bn_var");
  EXPECT_EQ(outputName(graph, graph.heads[4], 1), "output");
  EXPECT_EQ(outputName(graph, graph.heads[5], 1), "x");
}

TEST(MXNetSymbol, DuplicateNamesLoadButCanBeReported) {
  const char *json = R"json({"nodes": [
    {"op": "null", "name": "w", "inputs": []},
    {"op": "null", "name": "w", "inputs": []},
    {"op": "elemwise_add", "name": "w", "inputs": [[0, 0], [1, 0]]}],
    "heads": [[2, 0]]})json";
  MXC_ASSERT_OK_AND_ASSIGN(graph, parseSymbolJson(json, "dup.json"));
  EXPECT_EQ(graph.nodes.size(), 3u);
  EXPECT_EQ(graph.findNode("w"), 0u);
  EXPECT_EQ(errorOf(checkUniqueNames(graph)),
            "'dup.json': nodes 0 and 1 are both named 'w'");
}

std::string parseError(const std::string &json) {
  return errorOf(parseSymbolJson(json, "bad.json"));
}

/// A one-variable graph with `node` appended as node 1 and head [1, 0].
std::string withNode(const std::string &node) {
  return R"({"nodes": [{"op": "null", "name": "x", "inputs": []}, )" + node +
         R"(], "heads": [[1, 0]]})";
}

TEST(MXNetSymbol, MalformedJson) {
  EXPECT_EQ(parseError("{\n  \"nodes\": [\n    {\"op\": \"null\",,}\n"),
            "'bad.json': malformed JSON at line 3, column 19: Expected object "
            "key");
  EXPECT_EQ(parseError(""),
            "'bad.json': malformed JSON at line 1, column 0: Unexpected EOF");
  EXPECT_EQ(parseError(std::string(1000, '[')),
            "'bad.json': malformed JSON: nesting deeper than 256 levels at "
            "byte 256");
  // Brackets inside strings do not count as nesting.
  std::string name(1000, '[');
  EXPECT_TRUE(
      bool(parseSymbolJson(R"({"nodes": [{"op": "null", "name": ")" + name +
                               R"(", "inputs": []}], "heads": [[0, 0]]})",
                           "ok.json")));
}

TEST(MXNetSymbol, StructuralErrors) {
  EXPECT_EQ(parseError("[]"), "'bad.json': the top level is not a JSON object");
  EXPECT_EQ(parseError(R"({"heads": []})"),
            "'bad.json': no \"nodes\" array (not an MXNet symbol file?)");
  EXPECT_EQ(parseError(R"({"nodes": {}, "heads": []})"),
            "'bad.json': \"nodes\" is not an array");
  EXPECT_EQ(parseError(R"({"nodes": []})"),
            "'bad.json': no \"heads\" array (the graph outputs)");
  EXPECT_EQ(parseError(R"({"nodes": [], "heads": 3})"),
            "'bad.json': \"heads\" is not an array");
  EXPECT_EQ(parseError(R"({"nodes": [3], "heads": []})"),
            "'bad.json': node 0 is not a JSON object");
  EXPECT_EQ(parseError(R"({"nodes": [{"op": "null"}], "heads": []})"),
            "'bad.json': node 0 has no \"name\"");
  EXPECT_EQ(parseError(withNode(R"({"name": "n", "inputs": []})")),
            "'bad.json': node 1 ('n') has no \"op\"");
  EXPECT_EQ(parseError(withNode(R"({"op": 7, "name": "n", "inputs": []})")),
            "'bad.json': node 1 ('n'): \"op\" is not a string");
  EXPECT_EQ(parseError(withNode(R"({"op": "", "name": "n", "inputs": []})")),
            "'bad.json': node 1 ('n'): \"op\" is empty (variables use "
            "\"null\")");
  EXPECT_EQ(parseError(withNode(R"({"op": "relu", "name": 1})")),
            "'bad.json': node 1: \"name\" is not a string");
  EXPECT_EQ(
      parseError(withNode(R"({"op": "relu", "name": "n", "inputs": {}})")),
      "'bad.json': node 1 ('n'): \"inputs\" is not an array");
  EXPECT_EQ(parseError(
                withNode(R"({"op": "null", "name": "n", "inputs": [[0, 0]]})")),
            "'bad.json': node 1 ('n'): a variable (op \"null\") has inputs");
  EXPECT_EQ(
      parseError(withNode(R"({"op": "relu", "name": "n", "attrs": {"k": 3}})")),
      "'bad.json': node 1 ('n'): attribute 'k' in \"attrs\" is not a "
      "string");
  EXPECT_EQ(parseError(withNode(R"({"op": "relu", "name": "n", "attr": []})")),
            "'bad.json': node 1 ('n'): \"attr\" is not a JSON object");
  EXPECT_EQ(
      parseError(withNode(
          R"({"op": "relu", "name": "n", "subgraphs": [{"heads": []}]})")),
      "'bad.json': node 1 ('n'): subgraph 0: no \"nodes\" array (not an "
      "MXNet symbol file?)");
}

TEST(MXNetSymbol, BadReferences) {
  EXPECT_EQ(parseError(withNode(R"({"op": "relu", "name": "n",
                                    "inputs": [[0, 0], [5, 0]]})")),
            "'bad.json': node 1 ('n'): input 1 refers to node 5, but the graph "
            "has 2 nodes");
  EXPECT_EQ(
      parseError(R"({"nodes": [{"op": "relu", "name": "a", "inputs": [[1, 0]]},
                               {"op": "relu", "name": "b", "inputs": [[0, 0]]}],
                     "heads": [[1, 0]]})"),
      "'bad.json': node 0 ('a'): input 0 refers to node 1, which does not "
      "come before it (inputs must refer to earlier nodes; a cycle?)");
  EXPECT_EQ(parseError(
                withNode(R"({"op": "relu", "name": "n", "inputs": [[1, 0]]})")),
            "'bad.json': node 1 ('n'): input 0 refers to node 1, which does "
            "not come before it (inputs must refer to earlier nodes; a "
            "cycle?)");
  EXPECT_EQ(parseError(
                withNode(R"({"op": "relu", "name": "n", "inputs": [[0, 1]]})")),
            "'bad.json': node 1 ('n'): input 0 refers to output 1 of variable "
            "'x', which has one output");
  EXPECT_EQ(
      parseError(withNode(R"({"op": "relu", "name": "n", "inputs": [[0]]})")),
      "'bad.json': node 1 ('n'): input 0 is not a [node, index] or [node, "
      "index, version] array");
  EXPECT_EQ(parseError(withNode(
                R"({"op": "relu", "name": "n", "inputs": [[-1, 0]]})")),
            "'bad.json': node 1 ('n'): input 0 has a field that is not a "
            "non-negative 32-bit integer");
  EXPECT_EQ(parseError(withNode(
                R"({"op": "relu", "name": "n", "inputs": [["0", 0]]})")),
            "'bad.json': node 1 ('n'): input 0 has a field that is not a "
            "non-negative 32-bit integer");
  EXPECT_EQ(parseError(R"({"nodes": [{"op": "null", "name": "x", "inputs": []}],
                     "heads": [[0, 0], [3, 0]]})"),
            "'bad.json': head 1 refers to node 3, but the graph has 1 nodes");
  EXPECT_EQ(
      parseError(R"({"nodes": [{"op": "null", "name": "x", "inputs": []}],
                     "heads": [[0, 2]]})"),
      "'bad.json': head 0 refers to output 2 of variable 'x', which has one "
      "output");
  EXPECT_EQ(
      parseError(R"({"nodes": [{"op": "null", "name": "x", "inputs": []}],
                     "heads": [0]})"),
      "'bad.json': head 0 is not a [node, index] or [node, index, version] "
      "array");
  EXPECT_EQ(parseError(withNode(R"({"op": "relu", "name": "n",
                                    "inputs": [[0, 0]]}], "arg_nodes": [1)")),
            "'bad.json': arg_nodes entry 0 refers to node 1 ('n'), which is "
            "not a variable");
  EXPECT_EQ(parseError(withNode(R"({"op": "relu", "name": "n",
                                    "inputs": [[0, 0]]}], "arg_nodes": [0, 9)")),
            "'bad.json': arg_nodes entry 1 is not a node index below 2");
}

TEST(MXNetSymbol, BadVersion) {
  auto withAttrs = [](const std::string &attrs) {
    return R"({"nodes": [{"op": "null", "name": "x", "inputs": []}],
               "heads": [[0, 0]], "attrs": )" +
           attrs + "}";
  };
  const char *message = "'bad.json': \"attrs\".\"mxnet_version\" is not "
                        "[\"int\", <non-negative version>]";
  EXPECT_EQ(parseError(withAttrs(R"({"mxnet_version": 10600})")), message);
  EXPECT_EQ(parseError(withAttrs(R"({"mxnet_version": ["int", "x"]})")),
            message);
  EXPECT_EQ(parseError(withAttrs(R"([])")),
            "'bad.json': graph \"attrs\" is not a JSON object");
  // Other graph attributes are allowed and ignored.
  EXPECT_TRUE(bool(parseSymbolJson(
      withAttrs(R"({"dltype": ["list_int", [0]]})"), "ok.json")));
}

TEST(MXNetSymbol, MissingFile) {
  std::string message = errorOf(readSymbolFile("/nonexistent/net.json"));
  EXPECT_EQ(message.rfind("'/nonexistent/net.json': cannot read: ", 0), 0u)
      << message;
}

} // namespace
