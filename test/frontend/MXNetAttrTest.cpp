// SPDX-License-Identifier: Apache-2.0
// MXNet attribute strings ("(3, 3)", "True", "1e-05", "(None, 2)"): what the
// parsers accept, what they reject, and the messages AttrReader gives the
// importer for a malformed attribute.

#include "compiler/frontends/mxnet/Symbol.h"
#include "test/frontend/TestUtil.h"

#include <cmath>
#include <limits>

using namespace mxc::mxnet;
using mxc::test::errorOf;

namespace {

using Ints = llvm::SmallVector<int64_t, 4>;
using OptInts = llvm::SmallVector<std::optional<int64_t>, 4>;

Ints tuple(llvm::StringRef text) {
  auto result = parseIntTupleAttr(text);
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return {};
  }
  return *result;
}

TEST(MXNetAttr, IntTuples) {
  EXPECT_EQ(tuple("(3, 3)"), (Ints{3, 3}));
  EXPECT_EQ(tuple("(3,)"), (Ints{3}));
  EXPECT_EQ(tuple("[1, 2]"), (Ints{1, 2}));
  EXPECT_EQ(tuple("()"), Ints{});
  EXPECT_EQ(tuple("[]"), Ints{});
  EXPECT_EQ(tuple("3"), (Ints{3}));
  EXPECT_EQ(tuple(" ( -1 ,2,  0 ) "), (Ints{-1, 2, 0}));
  // Python 2 longs, as old MXNet files wrote them.
  EXPECT_EQ(tuple("(3L, 3L)"), (Ints{3, 3}));
  EXPECT_EQ(tuple("(1, 16, 32, 32)"), (Ints{1, 16, 32, 32}));
}

TEST(MXNetAttr, BadIntTuples) {
  for (const char *bad :
       {"", "(", ")", "(3, x)", "(3,,)", "(,)", "(3 3)", "(3, 3]", "(1.5, 2)",
        "x", "(None, 2)", "((1, 2))", "(99999999999999999999,)"})
    EXPECT_EQ(errorOf(parseIntTupleAttr(bad)),
              "\"" + std::string(bad) + "\" is not a tuple of integers")
        << bad;
}

TEST(MXNetAttr, OptionalIntTuples) {
  auto parsed = parseOptionalIntTupleAttr("(None, 2)");
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(*parsed, (OptInts{std::nullopt, 2}));
  parsed = parseOptionalIntTupleAttr("(0, None, -1)");
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(*parsed, (OptInts{0, std::nullopt, -1}));
  EXPECT_EQ(errorOf(parseOptionalIntTupleAttr("(none, 2)")),
            "\"(none, 2)\" is not a tuple of integers or None values");
}

TEST(MXNetAttr, FloatTuples) {
  auto parsed = parseFloatTupleAttr("(0.5, 1, 2e-1)");
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(*parsed, (llvm::SmallVector<double, 4>{0.5, 1.0, 0.2}));
  EXPECT_EQ(errorOf(parseFloatTupleAttr("(0.5, a)")),
            "\"(0.5, a)\" is not a tuple of numbers");
}

TEST(MXNetAttr, Scalars) {
  EXPECT_EQ(*parseIntAttr("16"), 16);
  EXPECT_EQ(*parseIntAttr("-1"), -1);
  EXPECT_EQ(*parseIntAttr(" 7 "), 7);
  EXPECT_EQ(*parseIntAttr("9223372036854775807"),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(errorOf(parseIntAttr("1.5")), "\"1.5\" is not an integer");
  EXPECT_EQ(errorOf(parseIntAttr("")), "\"\" is not an integer");
  EXPECT_EQ(errorOf(parseIntAttr("0x10")), "\"0x10\" is not an integer");

  EXPECT_EQ(*parseOptionalIntAttr("None"), std::nullopt);
  EXPECT_EQ(*parseOptionalIntAttr("-2"), std::optional<int64_t>(-2));
  EXPECT_EQ(errorOf(parseOptionalIntAttr("none")),
            "\"none\" is not an integer or None");

  for (const char *yes : {"True", "true", "1"})
    EXPECT_TRUE(*parseBoolAttr(yes)) << yes;
  for (const char *no : {"False", "false", "0"})
    EXPECT_FALSE(*parseBoolAttr(no)) << no;
  EXPECT_EQ(errorOf(parseBoolAttr("yes")),
            "\"yes\" is not a boolean (True/False/true/false/1/0)");
  EXPECT_EQ(errorOf(parseBoolAttr("TRUE")),
            "\"TRUE\" is not a boolean (True/False/true/false/1/0)");

  EXPECT_EQ(*parseFloatAttr("1e-05"), 1e-05);
  EXPECT_EQ(*parseFloatAttr("0.9"), 0.9);
  EXPECT_EQ(*parseFloatAttr("3"), 3.0);
  EXPECT_EQ(*parseFloatAttr("inf"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(*parseFloatAttr("-inf"), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(*parseFloatAttr("nan")));
  EXPECT_EQ(errorOf(parseFloatAttr("1e-05x")), "\"1e-05x\" is not a number");
  EXPECT_EQ(errorOf(parseFloatAttr("")), "\"\" is not a number");
  EXPECT_EQ(*parseOptionalFloatAttr("None"), std::nullopt);
  EXPECT_EQ(**parseOptionalFloatAttr("-0.5"), -0.5);
}

SymbolNode convNode() {
  SymbolNode node;
  node.op = "Convolution";
  node.name = "conv0";
  node.attrs = {{"kernel", "(3, x)"}, {"stride", "(2, 2)"},
                {"num_filter", "16"}, {"no_bias", "True"},
                {"layout", "NCHW"},   {"num_group", "one"},
                {"eps", "1e-05"},     {"begin", "(None, 2)"},
                {"flag", "maybe"},    {"scales", "(1.5, 2)"},
                {"axis", "None"},     {"min_calib_range", "-3.5"}};
  return node;
}

TEST(MXNetAttr, ReaderValuesAndDefaults) {
  SymbolNode node = convNode();
  AttrReader attrs(node);
  EXPECT_TRUE(attrs.has("stride"));
  EXPECT_FALSE(attrs.has("dilate"));
  EXPECT_EQ(*attrs.getTuple("stride"), (Ints{2, 2}));
  EXPECT_EQ(*attrs.getTuple("dilate", {1, 1}), (Ints{1, 1}));
  EXPECT_EQ(*attrs.getTuple("pad"), Ints{});
  EXPECT_EQ(*attrs.getInt("num_filter", 0), 16);
  EXPECT_EQ(*attrs.getInt("absent", 42), 42);
  EXPECT_TRUE(*attrs.getBool("no_bias", false));
  EXPECT_TRUE(*attrs.getBool("absent", true));
  EXPECT_EQ(*attrs.getFloat("eps", 1e-3), 1e-05);
  EXPECT_EQ(*attrs.getFloat("absent", 1e-3), 1e-3);
  EXPECT_EQ(attrs.getString("layout"), "NCHW");
  EXPECT_EQ(attrs.getString("absent", "NCHW"), "NCHW");
  EXPECT_EQ(*attrs.getOptionalTuple("begin"), (OptInts{std::nullopt, 2}));
  EXPECT_EQ(*attrs.getOptionalInt("axis"), std::nullopt);
  EXPECT_EQ(*attrs.getOptionalInt("absent", 1), std::optional<int64_t>(1));
  EXPECT_EQ(**attrs.getOptionalFloat("min_calib_range"), -3.5);
  EXPECT_EQ(*attrs.getFloatTuple("scales"),
            (llvm::SmallVector<double, 4>{1.5, 2.0}));
}

TEST(MXNetAttr, ReaderErrorsNameNodeAttributeAndValue) {
  SymbolNode node = convNode();
  AttrReader attrs(node);
  EXPECT_EQ(errorOf(attrs.getTuple("kernel")),
            "node 'conv0' (Convolution): attribute 'kernel' = \"(3, x)\" is "
            "not a tuple of integers");
  EXPECT_EQ(errorOf(attrs.getInt("num_group", 1)),
            "node 'conv0' (Convolution): attribute 'num_group' = \"one\" is "
            "not an integer");
  EXPECT_EQ(errorOf(attrs.getBool("flag", false)),
            "node 'conv0' (Convolution): attribute 'flag' = \"maybe\" is not "
            "a boolean (True/False/true/false/1/0)");
  EXPECT_EQ(errorOf(attrs.getFloat("layout", 0)),
            "node 'conv0' (Convolution): attribute 'layout' = \"NCHW\" is not "
            "a number");
  EXPECT_EQ(errorOf(attrs.getOptionalTuple("layout")),
            "node 'conv0' (Convolution): attribute 'layout' = \"NCHW\" is not "
            "a tuple of integers or None values");
  EXPECT_EQ(errorOf(attrs.makeError("'kernel' is required")),
            "node 'conv0' (Convolution): 'kernel' is required");

  AttrReader withFile(node, "net-symbol.json");
  EXPECT_EQ(errorOf(withFile.getTuple("kernel")),
            "'net-symbol.json': node 'conv0' (Convolution): attribute "
            "'kernel' = \"(3, x)\" is not a tuple of integers");

  SymbolNode var;
  var.op = "null";
  var.name = "w";
  var.isVariable = true;
  var.attrs = {{"__shape__", "(3, ?)"}};
  EXPECT_EQ(errorOf(AttrReader(var).getTuple("__shape__")),
            "node 'w' (variable): attribute '__shape__' = \"(3, ?)\" is not a "
            "tuple of integers");
}

} // namespace
