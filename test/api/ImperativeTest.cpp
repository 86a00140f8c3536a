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

#include <cmath>
#include <filesystem>

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
