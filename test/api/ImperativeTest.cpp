// SPDX-License-Identifier: Apache-2.0
//
// The imperative operators (mxc/imperative.h) against the end-to-end
// fixtures of test/e2e/ops, whose references NumPy and MXNet's own
// conventions wrote (test/e2e/gen_fixtures.py): every fixture's one-node
// symbol through nd::Invoke, and the generated nd:: functions (data,
// parameter, auxiliary, variadic and multi-output operands) on the same
// arrays; errors name the operator and operand.

#include "mxc/imperative.h"
#include "ErrorOf.h"

#include "mxrt/mxrt.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

namespace {

using mx::NDArray;
using mx::Symbol;
namespace nd = mx::nd;
namespace fs = std::filesystem;

const fs::path kOps = MXC_E2E_OPS_DIR;

/// One fixture: its symbol, arrays by variable name, reference outputs in
/// ListOutputs order and tolerances.
struct Fixture {
  Symbol symbol;
  std::map<std::string, NDArray> arrays;
  std::vector<NDArray> refs;
  double atol = 1e-5, rtol = 1e-4;
};

NDArray loadNpy(const fs::path &path) {
  mxrt_tensor *t = nullptr;
  if (mxrt_tensor_load_npy(path.c_str(), &t) != MXRT_OK)
    throw mx::Error(path.string() + ": " + mxrt_last_error());
  std::unique_ptr<mxrt_tensor, void (*)(mxrt_tensor *)> owner(
      t, mxrt_tensor_release);
  return NDArray::FromTensor(t);
}

Fixture loadFixture(const fs::path &dir) {
  Fixture f;
  f.symbol = Symbol::Load((dir / "symbol.json").string());
  auto text = llvm::MemoryBuffer::getFile((dir / "case.json").string());
  if (!text)
    throw mx::Error(dir.string() + ": no case.json");
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*text)->getBuffer());
  if (!json)
    throw mx::Error(dir.string() + ": " + llvm::toString(json.takeError()));
  const llvm::json::Object *c = json->getAsObject();
  if (auto atol = c->getNumber("atol"))
    f.atol = *atol;
  if (auto rtol = c->getNumber("rtol"))
    f.rtol = *rtol;
  if (const llvm::json::Object *inputs = c->getObject("inputs"))
    for (const auto &entry : *inputs) {
      std::string name = entry.first.str();
      f.arrays[name] = loadNpy(dir / ("in_" + name + ".npy"));
    }
  if (fs::exists(dir / "model.params"))
    for (auto &[key, array] : NDArray::Load((dir / "model.params").string())) {
      std::string name = key;
      if (name.rfind("arg:", 0) == 0 || name.rfind("aux:", 0) == 0)
        name = name.substr(4);
      f.arrays[name] = array;
    }
  for (const std::string &out : f.symbol.ListOutputs())
    f.refs.push_back(loadNpy(dir / ("ref_" + out + ".npy")));
  return f;
}

/// Empty when `got` matches `want` within atol + rtol * |want|.
std::string mismatch(const NDArray &got, const NDArray &want, double atol,
                     double rtol) {
  if (got.shape() != want.shape())
    return "shape " + NDArray::shapeText(got.shape()) + ", want " +
           NDArray::shapeText(want.shape());
  std::vector<float> g = got.ToVector(), w = want.ToVector();
  for (size_t i = 0; i < g.size(); ++i)
    if (!(std::fabs(double(g[i]) - w[i]) <= atol + rtol * std::fabs(w[i])))
      return "element " + std::to_string(i) + ": " + std::to_string(g[i]) +
             ", want " + std::to_string(w[i]);
  return "";
}

void expectMatches(const std::vector<NDArray> &got, const Fixture &f,
                   const std::string &what) {
  ASSERT_EQ(got.size(), f.refs.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    std::string diff = mismatch(got[i], f.refs[i], f.atol, f.rtol);
    EXPECT_EQ(diff, "") << what << ", output " << i;
  }
}

// Every fixture mxc compiles (not the expected-error ones): its symbol,
// run imperatively, gives the recorded outputs.
TEST(ImperativeTest, EveryFixtureThroughInvoke) {
  int checked = 0;
  std::vector<std::string> skipped;
  for (const auto &entry : fs::directory_iterator(kOps)) {
    const fs::path &dir = entry.path();
    if (fs::exists(dir / "expect_error.txt"))
      continue;
    Fixture f;
    try {
      f = loadFixture(dir);
    } catch (const mx::Error &e) {
      // NDArray holds float32 only: fixtures of other dtypes' files.
      skipped.push_back(dir.filename().string() + " (" + e.what() + ")");
      continue;
    }
    std::vector<NDArray> got;
    std::string error = errorOf([&] { got = nd::Invoke(f.symbol, f.arrays); });
    ASSERT_EQ(error, "(no error)") << dir.filename();
    expectMatches(got, f, dir.filename().string());
    ++checked;
  }
  for (const std::string &s : skipped)
    std::printf("skipped %s\n", s.c_str());
  // 136 fixtures, a few of them for other dtypes or errors.
  EXPECT_GE(checked, 120);
}

/// The fixture's one operator node: MXNet op name, attributes as text and
/// its operands' variable names in order; false for a graph of several.
bool operatorNode(const fs::path &dir, std::string &op,
                  std::map<std::string, std::string> &attrs,
                  std::vector<std::string> &operands) {
  auto text = llvm::MemoryBuffer::getFile((dir / "symbol.json").string());
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*text)->getBuffer());
  if (!json) {
    llvm::consumeError(json.takeError());
    return false;
  }
  const llvm::json::Array *nodes = json->getAsObject()->getArray("nodes");
  const llvm::json::Object *found = nullptr;
  for (const llvm::json::Value &v : *nodes)
    if (v.getAsObject()->getString("op") != "null") {
      if (found)
        return false;
      found = v.getAsObject();
    }
  if (!found)
    return false;
  op = found->getString("op")->str();
  for (const char *key : {"attrs", "attr", "param"})
    if (const llvm::json::Object *a = found->getObject(key))
      for (const auto &[k, v] : *a)
        attrs[k.str()] = v.getAsString()->str();
  for (const llvm::json::Value &in : *found->getArray("inputs")) {
    int64_t index = *(*in.getAsArray())[0].getAsInteger();
    operands.push_back((*nodes)[index].getAsObject()->getString("name")->str());
  }
  return true;
}

// Every fixture's operator through its generated function, called by name
// (nd::Call) with the fixture's own attribute text; with the functions
// checked below, every generated function is covered.
TEST(ImperativeTest, EveryGeneratedFunction) {
  std::set<std::string> covered;
  for (const auto &entry : fs::directory_iterator(kOps)) {
    const fs::path &dir = entry.path();
    std::string op;
    std::map<std::string, std::string> attrs;
    std::vector<std::string> names;
    if (fs::exists(dir / "expect_error.txt") ||
        !operatorNode(dir, op, attrs, names) || !nd::detail::byName().count(op))
      continue;
    // A tuple entry of None (slice's "from the start") has no form in the
    // Args structs, whose tuples are integers: such cases run through
    // Invoke above.
    if (std::any_of(attrs.begin(), attrs.end(), [](const auto &a) {
          return a.second.find("None") != std::string::npos;
        }))
      continue;
    Fixture f;
    try {
      f = loadFixture(dir);
    } catch (const mx::Error &) {
      continue; // not float32 (see above)
    }
    std::vector<NDArray> operands;
    for (const std::string &name : names)
      operands.push_back(f.arrays.count(name) ? f.arrays[name] : NDArray());
    std::vector<NDArray> got;
    std::string error = errorOf([&] { got = nd::Call(op, operands, attrs); });
    ASSERT_EQ(error, "(no error)") << dir.filename() << " (" << op << ")";
    // The graph's heads pick outputs of the node (BatchNorm shows one).
    got.resize(f.refs.size());
    expectMatches(got, f, dir.filename().string() + " (" + op + ")");
    covered.insert(op);
  }
  // The functions no fixture has, against the C++ library's math.
  NDArray x({6}, {-2.5f, -1, -0.25f, 0, 0.5f, 3});
  std::vector<float> v = x.ToVector();
  auto check = [&](const char *op, std::vector<NDArray> got,
                   float (*want)(float), double tol) {
    ASSERT_EQ(got.size(), 1u) << op;
    std::vector<float> g = got[0].ToVector();
    for (size_t i = 0; i < v.size(); ++i)
      EXPECT_NEAR(g[i], want(v[i]), tol) << op << " at " << v[i];
    covered.insert(op);
  };
  check(
      "relu", nd::Call("relu", {x}), [](float a) { return std::max(a, 0.0f); },
      0);
  check(
      "sigmoid", nd::Call("sigmoid", {x}),
      [](float a) { return 1 / (1 + std::exp(-a)); }, 1e-6);
  check(
      "tanh", nd::Call("tanh", {x}), [](float a) { return std::tanh(a); },
      1e-6);
  check(
      "softsign", nd::Call("softsign", {x}),
      [](float a) { return a / (1 + std::fabs(a)); }, 1e-6);
  check(
      "erf", nd::Call("erf", {x}), [](float a) { return std::erf(a); }, 1e-6);
  check(
      "_rpower_scalar", nd::Call("_rpower_scalar", {x}, {{"scalar", "2"}}),
      [](float a) { return std::pow(2.0f, a); }, 1e-5);
  // The regression heads at inference: the identity, or the logistic.
  check(
      "LinearRegressionOutput", nd::Call("LinearRegressionOutput", {x}),
      [](float a) { return a; }, 0);
  check(
      "MAERegressionOutput", nd::Call("MAERegressionOutput", {x}),
      [](float a) { return a; }, 0);
  check(
      "LogisticRegressionOutput", nd::Call("LogisticRegressionOutput", {x}),
      [](float a) { return 1 / (1 + std::exp(-a)); }, 1e-6);
  // slice's fixtures all have a None bound: one with integers, against
  // the loops over the kept elements.
  std::vector<float> cube(2 * 3 * 4);
  for (size_t i = 0; i < cube.size(); ++i)
    cube[i] = float(i);
  std::vector<NDArray> sliced = nd::Call(
      "slice", {NDArray({2, 3, 4}, cube)},
      {{"begin", "(1, 0, 1)"}, {"end", "(2, 3, 4)"}, {"step", "(1, 2, 2)"}});
  std::vector<float> want;
  for (int j = 0; j < 3; j += 2)
    for (int k = 1; k < 4; k += 2)
      want.push_back(cube[(1 * 3 + j) * 4 + k]);
  ASSERT_EQ(sliced.size(), 1u);
  EXPECT_EQ(sliced[0].shape(), (mx::Shape{1, 2, 2}));
  EXPECT_EQ(sliced[0].ToVector(), want);
  covered.insert("slice");
  for (const auto &[name, fn] : nd::detail::byName())
    EXPECT_TRUE(covered.count(name)) << "nd::" << name << " is not checked";
}

// nd::Call reads MXNet's attribute text and refuses what it cannot read.
TEST(ImperativeTest, CallReadsAttributeText) {
  NDArray x = NDArray::Ones({1, 1, 4, 4});
  std::vector<NDArray> pooled = nd::Call(
      "Pooling", {x},
      {{"kernel", "(2, 2)"}, {"stride", "[2,2]"}, {"pool_type", "avg"}});
  EXPECT_EQ(pooled[0].shape(), (mx::Shape{1, 1, 2, 2}));
  EXPECT_EQ(errorOf([&] { nd::Call("Nope", {x}); }),
            "nd::Call: no operator 'Nope'");
  EXPECT_EQ(errorOf([&] {
              nd::Call("Pooling", {x}, {{"kernel", "(2, x)"}});
            }),
            "nd::Pooling: attribute 'kernel' is '(2, x)', not a tuple of "
            "integers");
  EXPECT_EQ(
      errorOf([&] {
        nd::Call("Activation", {x}, {{"act_type", "relu"}, {"slope", "1"}});
      }),
      "nd::Activation: no attribute 'slope'");
}

// The generated functions pass each operand to the right place.
TEST(ImperativeTest, GeneratedFunctionsMatchTheFixtures) {
  Fixture conv = loadFixture(kOps / "conv2d_basic");
  std::vector<std::string> args = conv.symbol.ListArguments(); // data, w, b
  ASSERT_EQ(args.size(), 3u);
  NDArray y = nd::Convolution(conv.arrays[args[0]], conv.arrays[args[1]],
                              conv.arrays[args[2]],
                              {.kernel = mx::Shape{3, 3},
                               .num_filter = conv.arrays[args[1]].shape()[0]});
  expectMatches({y}, conv, "nd::Convolution");

  Fixture bn = loadFixture(kOps / "bn_no_fix_gamma");
  std::vector<std::string> in = bn.symbol.ListArguments(),
                           aux = bn.symbol.ListAuxiliaryStates();
  ASSERT_EQ(in.size(), 3u);
  ASSERT_EQ(aux.size(), 2u);
  std::vector<NDArray> bnOut = nd::BatchNorm(
      bn.arrays[in[0]], bn.arrays[in[1]], bn.arrays[in[2]], bn.arrays[aux[0]],
      bn.arrays[aux[1]],
      {.eps = std::stod(*bn.symbol[0].GetAttr("eps")), .fix_gamma = false});
  expectMatches(bnOut, bn, "nd::BatchNorm");

  Fixture concat = loadFixture(kOps / "concat");
  std::vector<NDArray> parts;
  for (const std::string &name : concat.symbol.ListArguments())
    parts.push_back(concat.arrays[name]);
  NDArray joined = nd::Concat(
      parts,
      {.dim = std::stoll(concat.symbol[0].GetAttr("dim").value_or("1"))});
  expectMatches({joined}, concat, "nd::Concat");

  Fixture split = loadFixture(kOps / "split");
  std::vector<NDArray> halves = nd::SliceChannel(
      split.arrays["data"],
      {.num_outputs = std::stoll(*split.symbol[0].GetAttr("num_outputs")),
       .axis = std::stoll(split.symbol[0].GetAttr("axis").value_or("1"))});
  expectMatches(halves, split, "nd::SliceChannel");
}

// Operators chain without waits: each call is pushed behind the one that
// writes its operand.
TEST(ImperativeTest, CallsChainOnTheEngine) {
  NDArray x({2, 3}, {-1, 2, -3, 4, -5, 6});
  NDArray w({2, 3}, {1, 0, 0, 0, 1, 0}), b({2}, {0.5f, -0.5f});
  NDArray h = nd::FullyConnected(x, w, b, {.num_hidden = 2});
  NDArray r = nd::Activation(h, {.act_type = "relu"});
  // h = x w^T + b: rows (-0.5, 1.5) and (4.5, -5.5); relu clips.
  EXPECT_EQ(r.ToVector(), (std::vector<float>{0, 1.5f, 4.5f, 0}));
  EXPECT_EQ(h.ToVector(), (std::vector<float>{-0.5f, 1.5f, 4.5f, -5.5f}));
}

TEST(ImperativeTest, ErrorsNameTheOperatorAndOperand) {
  NDArray x = NDArray::Ones({1, 2, 4, 4}), w = NDArray::Ones({3, 2, 3, 3});
  std::string bias = errorOf([&] {
    nd::Convolution(x, w, NDArray(),
                    {.kernel = mx::Shape{3, 3}, .num_filter = 3});
  });
  EXPECT_NE(bias.find("nd::Convolution"), std::string::npos) << bias;
  EXPECT_NE(bias.find("bias"), std::string::npos) << bias;
  // The compiler's own shape error, naming the node.
  std::string shapes = errorOf([&] {
    nd::Convolution(
        x, NDArray::Ones({3, 5, 3, 3}), NDArray(),
        {.kernel = mx::Shape{3, 3}, .num_filter = 3, .no_bias = true});
  });
  EXPECT_NE(shapes.find("convolution0"), std::string::npos) << shapes;
}

} // namespace
