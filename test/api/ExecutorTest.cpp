// SPDX-License-Identifier: Apache-2.0
//
// mx::Executor (mxc/executor.h): a symbol built in C++ and compiled in this
// process gives the outputs of the same graph written as JSON and compiled
// ahead of time by the mxc tool; its gradients match finite differences of
// its own loss; parameters updated in place through Param reach the next
// call; libraries come from the in-memory and on-disk caches; bad inputs
// throw errors that name them.

#include "mxc/executor.h"
#include "ErrorOf.h"

#include "mxrt/mxrt.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace {

using mx::Executor;
using mx::NDArray;
using mx::Shape;
using mx::Symbol;
namespace sym = mx::sym;
namespace fs = std::filesystem;

/// A fresh folder under the test's temporary directory.
fs::path tempDir(const std::string &name) {
  fs::path dir = fs::temp_directory_path() /
                 ("mxc-executor-test-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// How many of the compiled libraries in `dir` name `symbol` (a runtime
/// function they import is among their dynamic symbols).
int librariesNaming(const fs::path &dir, const std::string &symbol) {
  int count = 0;
  for (const auto &entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".so")
      continue;
    std::ifstream file(entry.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(file)),
                      std::istreambuf_iterator<char>());
    count += bytes.find(symbol) != std::string::npos;
  }
  return count;
}

/// One query row of attention in float64: softmax over the `keys` keys of
/// scale * (q . k_c), times the values; q(e), k(c, e) and v(c, e) read the
/// operands. The row's `dv` outputs.
template <typename Q, typename K, typename V>
std::vector<double> attentionRow(int64_t keys, int64_t d, int64_t dv,
                                 double scale, Q q, K k, V v) {
  std::vector<double> p(keys), out(dv, 0.0);
  double top = -1e300, sum = 0;
  for (int64_t c = 0; c < keys; ++c) {
    double dot = 0;
    for (int64_t e = 0; e < d; ++e)
      dot += q(e) * k(c, e);
    top = std::max(top, p[c] = scale * dot);
  }
  for (double &x : p)
    sum += (x = std::exp(x - top));
  for (int64_t e = 0; e < dv; ++e)
    for (int64_t c = 0; c < keys; ++c)
      out[e] += p[c] / sum * v(c, e);
  return out;
}

/// Convolution, BatchNorm, ReLU, max pooling, FullyConnected, softmax.
Symbol smallConvNet() {
  Symbol x = Symbol::Variable("data");
  x = sym::Convolution(x, {.name = "conv1",
                           .kernel = Shape{3, 3},
                           .pad = Shape{1, 1},
                           .num_filter = 4});
  x = sym::BatchNorm(x, {.name = "bn1"});
  x = sym::Activation(x, {.name = "relu1", .act_type = "relu"});
  x = sym::Pooling(x, {.name = "pool1",
                       .kernel = Shape{2, 2},
                       .pool_type = "max",
                       .stride = Shape{2, 2}});
  x = sym::FullyConnected(x, {.name = "fc1", .num_hidden = 5});
  return sym::SoftmaxOutput(x, {.name = "softmax"});
}

Symbol mlp() {
  Symbol x = Symbol::Variable("data");
  x = sym::FullyConnected(x, {.name = "fc1", .num_hidden = 5});
  x = sym::Activation(x, {.name = "tanh1", .act_type = "tanh"});
  x = sym::FullyConnected(x, {.name = "fc2", .num_hidden = 3});
  return sym::SoftmaxOutput(x, {.name = "softmax"});
}

// build -> JSON -> mxc -> the same outputs as the Executor, after a step
// through Param's in-place view (which SaveParams must see too). The views
// exist before the calls, so the convolution's packed (BatchNorm-scaled)
// weight from the first Forward is only renewed because the Executor
// reports the update.
TEST(ExecutorTest, OutputsMatchTheAotCompiledJson) {
  Symbol net = smallConvNet();
  Shape dataShape{2, 1, 8, 8};
  Executor exec(net, {{"data", dataShape}}, {.seed = 7});
  // bn1's beta too: Forward folds the BatchNorm into conv1 as a scale and
  // shift, its kernel keeping the scaled weight until the parameters
  // change (so does Backward's update of the running mean and variance).
  std::vector<std::string> names = {"conv1_weight", "bn1_beta", "fc1_weight",
                                    "fc1_bias"};
  std::vector<NDArray> views;
  for (const std::string &name : names)
    views.push_back(exec.Param(name));
  exec.SetInput("data", NDArray::Uniform(dataShape, -1.0f, 1.0f, 3));
  exec.SetInput("softmax_label", NDArray({2}, {1.0f, 3.0f}));
  exec.Forward(); // packs (and scales) the weights of before the update
  exec.Backward();
  for (size_t i = 0; i < names.size(); ++i)
    views[i] -= 0.5f * exec.Gradient(names[i]);
  exec.Forward();
  std::vector<float> expected = exec.Outputs()[0].ToVector();
  ASSERT_EQ(expected.size(), 10u);

  fs::path dir = tempDir("aot");
  net.Save(dir / "net.json");
  exec.SaveParams(dir / "net.params");
  std::string command =
      std::string(MXC_TOOL) + " " + (dir / "net.json").string() + " --params " +
      (dir / "net.params").string() + " --input data=2x1x8x8 -o " +
      (dir / "libnet.so").string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;

  mxrt_model *model = nullptr;
  ASSERT_EQ(mxrt_model_open((dir / "libnet.so").c_str(), &model), MXRT_OK)
      << mxrt_last_error();
  mxrt_instance *instance = nullptr;
  ASSERT_EQ(mxrt_instance_create(model, nullptr, &instance), MXRT_OK)
      << mxrt_last_error();
  ASSERT_EQ(mxrt_model_num_inputs(model), 1);
  NDArray out({2, 5});
  mxrt_tensor *in = exec.Input("data").tensor(), *o = out.tensor();
  ASSERT_EQ(mxrt_instance_run(instance, &in, 1, &o, 1), MXRT_OK)
      << mxrt_last_error();
  std::vector<float> actual = out.ToVector();
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], 1e-5f * (1 + std::fabs(expected[i])))
        << "output " << i;
  mxrt_instance_release(instance);
  mxrt_model_release(model);
  fs::remove_all(dir);
}

// libmxrt's C API without the Executor: an app that writes a parameter
// through a view and reports nothing still has the next call read the new
// value (every call takes a new parameter generation once a view exists),
// though `forward` keeps its weights packed between calls.
TEST(ExecutorTest, ViewWritesReachTheNextCallWithoutReports) {
  fs::path dir = tempDir("views");
  smallConvNet().Save(dir / "net.json");
  std::string command =
      std::string(MXC_TOOL) + " " + (dir / "net.json").string() +
      " --input data=2x1x8x8 --train -o " + (dir / "libnet.so").string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  mxrt_model *model = nullptr;
  ASSERT_EQ(mxrt_model_open((dir / "libnet.so").c_str(), &model), MXRT_OK)
      << mxrt_last_error();
  mxrt_instance *instance = nullptr;
  ASSERT_EQ(mxrt_instance_create(model, nullptr, &instance), MXRT_OK);
  int32_t conv = 0;
  ASSERT_EQ(mxrt_model_find_param(model, "conv1_weight", &conv), MXRT_OK);
  mxrt_tensor *view = nullptr;
  ASSERT_EQ(mxrt_instance_param_view(instance, conv, &view), MXRT_OK);
  NDArray x = NDArray::Uniform({2, 1, 8, 8}, -1.0f, 1.0f, 9), out({2, 5});
  auto forward = [&] {
    mxrt_tensor *in = x.tensor(), *o = out.tensor();
    EXPECT_EQ(mxrt_instance_run(instance, &in, 1, &o, 1), MXRT_OK)
        << mxrt_last_error();
    return out.ToVector();
  };
  std::vector<float> before = forward();
  EXPECT_EQ(forward(), before); // packed once, read twice
  float *w = static_cast<float *>(mxrt_tensor_data(view));
  for (int64_t i = 0; i < mxrt_tensor_num_elements(view); ++i)
    w[i] = 0.0f; // conv1 now outputs zeros: BatchNorm, ReLU, ... a constant
  std::vector<float> after = forward();
  EXPECT_NE(after, before) << "the call read the packed weights of before";
  for (int i = 0; i < 5; ++i)
    EXPECT_NEAR(after[i], after[5 + i], 1e-6) << "images differ at " << i;
  mxrt_tensor_release(view);
  mxrt_instance_release(instance);
  mxrt_model_release(model);
  fs::remove_all(dir);
}

// Backward's gradients against central differences of the cross entropy
// summed over the batch that Forward's probabilities give (MXNet's
// executors give SoftmaxOutput's gradient unscaled; its Module scales the
// update by 1 / batch).
TEST(ExecutorTest, BackwardMatchesFiniteDifferences) {
  const int64_t batch = 4, classes = 3;
  Executor exec(mlp(), {{"data", {batch, 6}}}, {.seed = 5});
  exec.SetInput("data", NDArray::Uniform({batch, 6}, -1.0f, 1.0f, 9));
  std::vector<float> labels = {0, 2, 1, 2};
  exec.SetInput("softmax_label", NDArray({batch}, labels));
  auto loss = [&] {
    exec.Forward();
    const float *p = exec.Outputs()[0].data();
    double sum = 0;
    for (int64_t b = 0; b < batch; ++b)
      sum -= std::log(double(p[b * classes + int64_t(labels[b])]));
    return sum;
  };
  exec.Backward();
  int checked = 0;
  for (const std::string &name :
       {"fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"}) {
    std::vector<float> grad = exec.Gradient(name).ToVector();
    NDArray w = exec.Param(name);
    ASSERT_EQ(w.size(), grad.size()) << name;
    for (size_t i = 0; i < w.size(); ++i) {
      const float eps = 1e-2f, saved = w.data()[i];
      w.data()[i] = saved + eps;
      double up = loss();
      w.data()[i] = saved - eps;
      double down = loss();
      w.data()[i] = saved;
      double fd = (up - down) / (2 * eps);
      EXPECT_NEAR(grad[i], fd, 1e-3 + 1e-2 * std::fabs(fd))
          << name << "[" << i << "]";
      ++checked;
    }
  }
  EXPECT_EQ(checked, 5 * 6 + 5 + 3 * 5 + 3);
}

TEST(ExecutorTest, LibrariesComeFromTheCaches) {
  Symbol net = mlp();
  Executor first(net, {{"data", {2, 6}}}, {.seed = 21});
  Executor second(net, {{"data", {2, 6}}}, {.seed = 21});
  EXPECT_TRUE(second.cached());
  Executor otherShape(net, {{"data", {3, 6}}}, {.seed = 21});
  EXPECT_FALSE(otherShape.cached());

  fs::path dir = tempDir("cache");
  std::vector<float> before;
  {
    Executor onDisk(net, {{"data", {2, 6}}}, {.seed = 22, .cacheDir = dir});
    EXPECT_FALSE(onDisk.cached());
    onDisk.Forward();
    before = onDisk.Outputs()[0].ToVector();
  }
  int libraries = 0;
  for (const auto &entry : fs::directory_iterator(dir))
    libraries += entry.path().extension() == ".so";
  EXPECT_EQ(libraries, 1);
  // Nothing in this process holds it now: it is loaded from the folder.
  Executor again(net, {{"data", {2, 6}}}, {.seed = 22, .cacheDir = dir});
  EXPECT_TRUE(again.cached());
  again.Forward();
  EXPECT_EQ(again.Outputs()[0].ToVector(), before);
  fs::remove_all(dir);
}

TEST(ExecutorTest, ErrorsNameWhatIsWrong) {
  Executor exec(mlp(), {{"data", {2, 6}}}, {.seed = 1});
  EXPECT_NE(errorOf([&] {
              exec.SetInput("data", NDArray({2, 5}));
            }).find("input 'data' has shape (2, 6), not (2, 5)"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { exec.Input("label"); }).find("no input 'label'"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              exec.Param("fc3_weight");
            }).find("no parameter 'fc3_weight'"),
            std::string::npos);
  EXPECT_NE(
      errorOf([&] { exec.Gradient("data"); }).find("no gradient of 'data'"),
      std::string::npos);
  // The compiler's own message, naming the operator node; the failed
  // compile leaves no folder behind in the temporary directory.
  fs::path tmp = tempDir("errors");
  const char *oldTmp = std::getenv("TMPDIR");
  std::string saved = oldTmp ? oldTmp : "";
  setenv("TMPDIR", tmp.c_str(), 1);
  std::string shapes =
      errorOf([&] { Executor bad(smallConvNet(), {{"data", {2, 6}}}); });
  oldTmp ? setenv("TMPDIR", saved.c_str(), 1) : unsetenv("TMPDIR");
  EXPECT_NE(shapes.find("Executor: "), std::string::npos) << shapes;
  EXPECT_NE(shapes.find("conv1"), std::string::npos) << shapes;
  EXPECT_TRUE(fs::is_empty(tmp)) << fs::directory_iterator(tmp)->path();
  fs::remove_all(tmp);
}

} // namespace

// MXNet's Reshape: an executor for another batch size that starts from this
// one's parameters. The MLP keeps rows apart, so the batch-2 executor's
// outputs are the first two rows of the batch-4 executor's on the same rows,
// after an update that only the copied parameters carry; a shape change that
// reaches a parameter (the data's features) is refused naming it.
TEST(ExecutorTest, ReshapeRunsAnotherBatchWithTheParameters) {
  Symbol net = mlp();
  Executor exec(net, {{"data", Shape{4, 6}}}, {.seed = 11});
  NDArray data = NDArray::Uniform({4, 6}, -1.0f, 1.0f, 5);
  exec.SetInput("data", data);
  exec.SetInput("softmax_label", NDArray({4}, {0.0f, 1.0f, 2.0f, 1.0f}));
  exec.Backward();
  NDArray w = exec.Param("fc1_weight");
  w -= 0.5f * exec.Gradient("fc1_weight");
  exec.Forward();
  std::vector<float> four = exec.Outputs()[0].ToVector();

  Executor two = exec.Reshape({{"data", Shape{2, 6}}});
  std::vector<float> rows = data.ToVector();
  rows.resize(2 * 6);
  two.SetInput("data", NDArray({2, 6}, rows));
  two.Forward();
  std::vector<float> out = two.Outputs()[0].ToVector();
  ASSERT_EQ(out.size(), 6u);
  for (size_t i = 0; i < out.size(); ++i)
    EXPECT_NEAR(out[i], four[i], 1e-6f) << "output " << i;
  // A fresh executor at batch 2 has other (seeded, not updated) weights.
  Executor fresh(net, {{"data", Shape{2, 6}}}, {.seed = 11});
  fresh.SetInput("data", NDArray({2, 6}, rows));
  fresh.Forward();
  EXPECT_NE(fresh.Outputs()[0].ToVector(), out);

  EXPECT_NE(errorOf([&] {
              exec.Reshape({{"data", Shape{4, 7}}});
            }).find("parameter 'fc1_weight' has shape (5, 6) here but (5, 7)"),
            std::string::npos);
}

// GluonNLP's BERT attention built in C++: interleaved_matmul_selfatt_qk,
// softmax, interleaved_matmul_selfatt_valatt over one (seq, batch,
// heads * 3 * d) projection. The library calls the fused attention kernel
// and matches float64 loops over MXNet's definitions.
TEST(ExecutorTest, InterleavedAttentionBuiltInCxxRunsFused) {
  const int64_t seq = 5, batch = 2, heads = 2, d = 4, width = heads * 3 * d;
  Symbol qkv = Symbol::Variable("qkv");
  Symbol att = sym::softmax(
      sym::interleaved_matmul_selfatt_qk(qkv, {.heads = heads}), {.axis = -1});
  Symbol net =
      sym::interleaved_matmul_selfatt_valatt(qkv, att, {.heads = heads});
  fs::path dir = tempDir("interleaved");
  Executor exec(net, {{"qkv", Shape{seq, batch, width}}}, {.cacheDir = dir});
  NDArray in = NDArray::Uniform({seq, batch, width}, -1.0f, 1.0f, 4);
  exec.SetInput("qkv", in);
  exec.Forward();
  std::vector<float> got = exec.Outputs()[0].ToVector();
  std::vector<float> x = in.ToVector();
  ASSERT_EQ(got.size(), size_t(seq * batch * heads * d));
  // Element e of projection j (0 query, 1 key, 2 value) of head h at
  // position s of batch n.
  auto at = [&](int64_t s, int64_t n, int64_t h, int64_t j, int64_t e) {
    return double(x[(s * batch + n) * width + (h * 3 + j) * d + e]);
  };
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t r = 0; r < seq; ++r) {
        std::vector<double> want = attentionRow(
            seq, d, d, 1 / std::sqrt(double(d)),
            [&](int64_t e) { return at(r, n, h, 0, e); },
            [&](int64_t c, int64_t e) { return at(c, n, h, 1, e); },
            [&](int64_t c, int64_t e) { return at(c, n, h, 2, e); });
        for (int64_t e = 0; e < d; ++e)
          EXPECT_NEAR(got[(r * batch + n) * heads * d + h * d + e], want[e],
                      1e-5)
              << "batch " << n << " head " << h << " row " << r;
      }
  EXPECT_EQ(librariesNaming(dir, "mxrt_kernel_sattention"), 1);
  fs::remove_all(dir);
  // heads is required.
  EXPECT_NE(errorOf([&] {
              sym::interleaved_matmul_selfatt_qk(qkv);
            }).find("attribute 'heads' is required"),
            std::string::npos);
}

// MXNet 1.x's attention built in C++ (batch_dot with transpose_b, scaled by
// _mul_scalar, softmax, batch_dot) compiles to the fused attention kernel,
// as the same graph read from JSON does: the library calls
// mxrt_kernel_sattention, and its output matches float64 loops. Its every
// variable is an input, so the library is an inference one (Backward says
// there is nothing to differentiate).
TEST(ExecutorTest, AttentionBuiltInCxxRunsFused) {
  const int64_t heads = 3, sq = 5, sk = 7, d = 8, dv = 6;
  Symbol q = Symbol::Variable("q"), k = Symbol::Variable("k"),
         v = Symbol::Variable("v");
  Symbol scores = sym::_mul_scalar(sym::batch_dot(q, k, {.transpose_b = true}),
                                   {.scalar = 0.35});
  Symbol net = sym::batch_dot(sym::softmax(scores, {.axis = -1}), v);
  fs::path dir = tempDir("attention");
  Executor exec(net,
                {{"q", Shape{heads, sq, d}},
                 {"k", Shape{heads, sk, d}},
                 {"v", Shape{heads, sk, dv}}},
                {.cacheDir = dir});
  NDArray qa = NDArray::Uniform({heads, sq, d}, -1.0f, 1.0f, 1),
          ka = NDArray::Uniform({heads, sk, d}, -1.0f, 1.0f, 2),
          va = NDArray::Uniform({heads, sk, dv}, -1.0f, 1.0f, 3);
  exec.SetInput("q", qa);
  exec.SetInput("k", ka);
  exec.SetInput("v", va);
  exec.Forward();
  std::vector<float> got = exec.Outputs()[0].ToVector();
  std::vector<float> qv = qa.ToVector(), kv = ka.ToVector(), vv = va.ToVector();
  ASSERT_EQ(got.size(), size_t(heads * sq * dv));
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t r = 0; r < sq; ++r) {
      std::vector<double> want = attentionRow(
          sk, d, dv, 0.35,
          [&](int64_t e) { return double(qv[(h * sq + r) * d + e]); },
          [&](int64_t c, int64_t e) {
            return double(kv[(h * sk + c) * d + e]);
          },
          [&](int64_t c, int64_t e) {
            return double(vv[(h * sk + c) * dv + e]);
          });
      for (int64_t e = 0; e < dv; ++e)
        EXPECT_NEAR(got[(h * sq + r) * dv + e], want[e], 1e-5)
            << "head " << h << " row " << r << " column " << e;
    }
  // The library imports the fused kernel (its name is in its dynamic
  // symbols): the scores were never a tensor of their own.
  EXPECT_EQ(librariesNaming(dir, "mxrt_kernel_sattention"), 1);
  fs::remove_all(dir);
  // Every variable is an input: an inference library, nothing to learn.
  EXPECT_TRUE(exec.ParamNames().empty());
  EXPECT_NE(errorOf([&] { exec.Backward(); }).find("has no parameters"),
            std::string::npos);
}
