// SPDX-License-Identifier: Apache-2.0
//
// The C++ symbol API (mxc/symbol.h): what MXNet's own Symbol would answer
// for the same graphs (argument, output and auxiliary-state names and
// order, automatic names), shapes from the compiler's inference, errors
// naming the node, JSON that reads back, and the networks of
// examples/symbol_models against the files examples/models/gen_models.py
// wrote in Python.

#include "mxc/symbol.h"
#include "ErrorOf.h"
#include "networks.h"

#include "compiler/frontends/mxnet/Symbol.h"

#include <gtest/gtest.h>

namespace {

using mx::Shape;
using mx::Symbol;
namespace sym = mx::sym;
using Names = std::vector<std::string>;

Symbol twoLayerNet() {
  Symbol x = Symbol::Variable("data");
  x = sym::FullyConnected(x, {.name = "fc1", .num_hidden = 32});
  x = sym::Activation(x, {.name = "relu1", .act_type = "relu"});
  x = sym::FullyConnected(x, {.name = "fc2", .num_hidden = 10});
  return sym::SoftmaxOutput(x, {.name = "softmax"});
}

TEST(SymbolTest, ListsArgumentsOutputsInMXNetOrder) {
  Symbol net = twoLayerNet();
  EXPECT_EQ(net.ListArguments(),
            (Names{"data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias",
                   "softmax_label"}));
  EXPECT_EQ(net.ListOutputs(), Names{"softmax_output"});
  EXPECT_TRUE(net.ListAuxiliaryStates().empty());
  EXPECT_EQ(net.Name(), "softmax");
}

TEST(SymbolTest, BatchNormStatesAreAuxiliary) {
  Symbol x = sym::Convolution(
      Symbol::Variable("data"),
      {.name = "conv", .kernel = {{3, 3}}, .num_filter = 8, .no_bias = true});
  x = sym::BatchNorm(x, {.name = "bn"});
  EXPECT_EQ(x.ListArguments(),
            (Names{"data", "conv_weight", "bn_gamma", "bn_beta"}));
  EXPECT_EQ(x.ListAuxiliaryStates(),
            (Names{"bn_moving_mean", "bn_moving_var"}));
}

TEST(SymbolTest, AutomaticNamesCountPerOperator) {
  mx::NameScope scope;
  Symbol a = Symbol::Variable("a"), b = Symbol::Variable("b");
  Symbol c = sym::FullyConnected(a, {.num_hidden = 4});
  Symbol d = sym::FullyConnected(c, {.num_hidden = 4});
  Symbol e = (a + b) * 2.0;
  EXPECT_EQ(c.Name(), "fullyconnected0");
  EXPECT_EQ(d.Name(), "fullyconnected1");
  EXPECT_EQ(e.Name(), "_mulscalar0");
  EXPECT_EQ(d.ListArguments(),
            (Names{"a", "fullyconnected0_weight", "fullyconnected0_bias",
                   "fullyconnected1_weight", "fullyconnected1_bias"}));
  {
    mx::NameScope inner;
    EXPECT_EQ(sym::FullyConnected(a, {.num_hidden = 4}).Name(),
              "fullyconnected0");
  }
  EXPECT_EQ(sym::FullyConnected(a, {.num_hidden = 4}).Name(),
            "fullyconnected2");
}

TEST(SymbolTest, InfersShapesOfEveryArgument) {
  Symbol x = sym::Convolution(
      Symbol::Variable("data"),
      {.name = "conv", .kernel = {{3, 3}}, .pad = {1, 1}, .num_filter = 16});
  x = sym::BatchNorm(x, {.name = "bn"});
  x = sym::Pooling(x, {.name = "pool", .global_pool = true});
  x = sym::FullyConnected(x, {.name = "fc", .num_hidden = 10});
  mx::InferredShapes shapes = x.InferShape({{"data", {2, 3, 8, 8}}});
  EXPECT_EQ(x.ListArguments(),
            (Names{"data", "conv_weight", "conv_bias", "bn_gamma", "bn_beta",
                   "fc_weight", "fc_bias"}));
  EXPECT_EQ(
      shapes.arguments,
      (std::vector<Shape>{
          {2, 3, 8, 8}, {16, 3, 3, 3}, {16}, {16}, {16}, {10, 16}, {10}}));
  EXPECT_EQ(shapes.auxiliaryStates, (std::vector<Shape>{{16}, {16}}));
  EXPECT_EQ(shapes.outputs, (std::vector<Shape>{{2, 10}}));
}

TEST(SymbolTest, ShapeErrorsNameTheNode) {
  Symbol a = Symbol::Variable("a"), b = Symbol::Variable("b");
  Symbol sum = sym::elemwise_add(a, b, {.name = "add"});
  std::string error = errorOf([&] {
    sum.InferShape({{"a", {2, 3}}, {"b", {3, 2}}});
  });
  EXPECT_NE(error.find("node 'add' (elemwise_add)"), std::string::npos)
      << error;
  Symbol conv = sym::Convolution(
      a, {.name = "conv", .kernel = {{5, 5}}, .num_filter = 4});
  error = errorOf([&] { conv.InferShape({{"a", {1, 1, 3, 3}}}); });
  EXPECT_NE(error.find("node 'conv' (Convolution)"), std::string::npos)
      << error;
}

TEST(SymbolTest, MissingRequiredAttributeNamesTheNode) {
  Symbol a = Symbol::Variable("a");
  EXPECT_EQ(errorOf([&] { sym::FullyConnected(a, {.name = "fc"}); }),
            "node 'fc' (FullyConnected): attribute 'num_hidden' is required");
  Symbol two = Symbol::Group({a, a});
  EXPECT_EQ(errorOf([&] { sym::relu(two, {.name = "r"}); }),
            "node 'r' (relu): operand 'data' has 2 outputs; it needs one "
            "(pick one with [i])");
  EXPECT_EQ(errorOf([&] {
              sym::FullyConnected(a, {.name = "fc",
                                      .num_hidden = 2,
                                      .no_bias = true,
                                      .bias = Symbol::Variable("b")});
            }),
            "node 'fc' (FullyConnected): operand 'bias' is given but the "
            "attributes leave it out");
}

TEST(SymbolTest, JsonReadsBackTheSameGraph) {
  Symbol net = twoLayerNet();
  std::string json = net.ToJSON();
  Symbol back = Symbol::FromJSON(json);
  EXPECT_EQ(back.ListArguments(), net.ListArguments());
  EXPECT_EQ(back.ListOutputs(), net.ListOutputs());
  EXPECT_EQ(back.ToJSON(), json);
  // Only attributes off their defaults are written, in MXNet's syntax.
  EXPECT_NE(json.find("\"num_hidden\": \"32\""), std::string::npos) << json;
  EXPECT_EQ(json.find("no_bias"), std::string::npos) << json;
  EXPECT_NE(json.find("\"node_row_ptr\": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"),
            std::string::npos)
      << json;
}

TEST(SymbolTest, AttributesAreWrittenInMXNetSyntax) {
  Symbol x = sym::Convolution(
      Symbol::Variable("data"),
      {.name = "c", .kernel = {{3, 3}}, .stride = {2, 2}, .num_filter = 4});
  x = sym::BatchNorm(x, {.name = "bn", .eps = 2e-5, .fix_gamma = false});
  x = sym::Dropout(x, {.name = "d", .p = 0.25});
  std::string json = x.ToJSON();
  for (const char *text :
       {"\"kernel\": \"(3, 3)\"", "\"stride\": \"(2, 2)\"",
        "\"eps\": \"2e-05\"", "\"fix_gamma\": \"False\"", "\"p\": \"0.25\""})
    EXPECT_NE(json.find(text), std::string::npos) << text << "\n" << json;
  // BatchNorm has three outputs in MXNet, Dropout two.
  EXPECT_NE(json.find("\"node_row_ptr\": [0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 13]"),
            std::string::npos)
      << json;
}

TEST(SymbolTest, ComposesBySubstitutingVariables) {
  Symbol body = sym::FullyConnected(Symbol::Variable("x"),
                                    {.name = "inner", .num_hidden = 3});
  Symbol stem = sym::Activation(Symbol::Variable("data"),
                                {.name = "act", .act_type = "tanh"});
  Symbol composed = body({{"x", stem}});
  EXPECT_EQ(composed.ListArguments(),
            (Names{"data", "inner_weight", "inner_bias"}));
  EXPECT_EQ(body.ListArguments(), (Names{"x", "inner_weight", "inner_bias"}));
  EXPECT_EQ(composed.InferShape({{"data", {5, 7}}}).outputs,
            (std::vector<Shape>{{5, 3}}));
  EXPECT_EQ(errorOf([&] {
              body({{"y", stem}});
            }),
            "composing: the symbol has no variable 'y'");
}

TEST(SymbolTest, SplitOutputsAndGroups) {
  Symbol parts = sym::SliceChannel(Symbol::Variable("data"),
                                   {.name = "split", .num_outputs = 3});
  EXPECT_EQ(parts.NumOutputs(), 3u);
  EXPECT_EQ(parts.ListOutputs(),
            (Names{"split_output0", "split_output1", "split_output2"}));
  Symbol group = Symbol::Group({parts[2], parts[0] + parts[1]});
  EXPECT_EQ(group.InferShape({{"data", {2, 6}}}).outputs,
            (std::vector<Shape>{{2, 2}, {2, 2}}));
  Symbol back = Symbol::FromJSON(group.ToJSON());
  EXPECT_EQ(back.ListOutputs(), group.ListOutputs());
}

TEST(SymbolTest, BadJsonNamesTheProblem) {
  EXPECT_NE(errorOf([] { Symbol::FromJSON("{\"nodes\": ["); }), "(no error)");
  EXPECT_NE(errorOf([] {
              Symbol::Load("/nonexistent/x.json");
            }).find("'/nonexistent/x.json'"),
            std::string::npos);
}

// The C++ networks build the graphs the Python generator wrote (the same
// ops and names in the same order, the same argument and auxiliary-state
// names and inferred shapes), although the Python files also spell out
// attributes at their defaults.
TEST(SymbolTest, NetworksMatchThePythonWrittenFiles) {
  for (const networks::Network &n : networks::all()) {
    SCOPED_TRACE(n.file);
    mx::NameScope scope;
    Symbol ours = n.build();
    Symbol theirs =
        Symbol::Load(std::string(MXC_EXAMPLES_DIR) + "/models/" + n.file);
    EXPECT_EQ(ours.ListArguments(), theirs.ListArguments());
    EXPECT_EQ(ours.ListAuxiliaryStates(), theirs.ListAuxiliaryStates());
    EXPECT_EQ(ours.ListOutputs(), theirs.ListOutputs());
    std::map<std::string, Shape> data = {{"data", {1, 3, 224, 224}}};
    mx::InferredShapes a = ours.InferShape(data), b = theirs.InferShape(data);
    EXPECT_EQ(a.arguments, b.arguments);
    EXPECT_EQ(a.auxiliaryStates, b.auxiliaryStates);
    EXPECT_EQ(a.outputs, b.outputs);
    // Node by node: the same op, name and inputs; every attribute written
    // here has the Python file's value (which also spells out defaults).
    auto ourGraph = mxc::mxnet::parseSymbolJson(ours.ToJSON(), "ours");
    auto theirGraph = mxc::mxnet::parseSymbolJson(theirs.ToJSON(), "theirs");
    ASSERT_TRUE(bool(ourGraph) && bool(theirGraph));
    ASSERT_EQ(ourGraph->nodes.size(), theirGraph->nodes.size());
    for (size_t i = 0; i < ourGraph->nodes.size(); ++i) {
      const auto &o = ourGraph->nodes[i], &t = theirGraph->nodes[i];
      EXPECT_EQ(o.op, t.op) << o.name;
      EXPECT_EQ(o.name, t.name);
      ASSERT_EQ(o.inputs.size(), t.inputs.size()) << o.name;
      for (size_t k = 0; k < o.inputs.size(); ++k)
        EXPECT_TRUE(o.inputs[k] == t.inputs[k]) << o.name << " input " << k;
      for (const auto &[key, value] : o.attrs) {
        auto it = t.attrs.find(key);
        ASSERT_NE(it, t.attrs.end()) << o.name << " " << key;
        EXPECT_EQ(value, it->second) << o.name << " " << key;
      }
    }
    // Written and read back: still the same graph.
    Symbol back = Symbol::FromJSON(ours.ToJSON());
    EXPECT_EQ(back.ListArguments(), theirs.ListArguments());
  }
}

} // namespace
