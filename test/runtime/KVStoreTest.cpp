// SPDX-License-Identifier: Apache-2.0
//
// The KVStore: a local store's sums and update rules against values worked
// out here, its errors, and dist_sync across real processes (`mpirun -np 2`
// and `-np 4` of kvstore_worker, which checks itself against one process
// doing the same steps), including a worker that dies or stalls.

#include "mxrt/kvstore.h"
#include "mxrt/kvstore.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace {

struct Tensor {
  mxrt_tensor *t = nullptr;
  explicit Tensor(std::vector<float> values) {
    int64_t shape[1] = {int64_t(values.size())};
    EXPECT_EQ(mxrt_tensor_create(MXRT_F32, 1, shape, &t), MXRT_OK);
    std::memcpy(mxrt_tensor_data(t), values.data(), values.size() * 4);
  }
  ~Tensor() { mxrt_tensor_release(t); }
  float operator[](int i) const {
    return static_cast<float *>(mxrt_tensor_data(t))[i];
  }
};

struct Store {
  mxrt_kvstore *s = nullptr;
  Store() { EXPECT_EQ(mxrt_kvstore_create("local", 2, &s), MXRT_OK); }
  ~Store() { mxrt_kvstore_release(s); }
};

TEST(KVStoreTest, LocalSumsFourContextsThenAssigns) {
  Store store;
  EXPECT_STREQ(mxrt_kvstore_type(store.s), "local");
  EXPECT_EQ(mxrt_kvstore_rank(store.s), 0);
  EXPECT_EQ(mxrt_kvstore_num_workers(store.s), 1);
  Tensor init({0, 0, 0});
  ASSERT_EQ(mxrt_kvstore_init(store.s, 7, init.t), MXRT_OK);
  Tensor a({1, 2, 3}), b({10, 20, 30}), c({100, 200, 300}), d({-1, -2, -3});
  mxrt_tensor *values[] = {a.t, b.t, c.t, d.t};
  Tensor out1({0, 0, 0}), out2({0, 0, 0});
  mxrt_tensor *outs[] = {out1.t, out2.t};
  ASSERT_EQ(mxrt_kvstore_pushpull(store.s, 7, values, 4, outs, 2, 0), MXRT_OK);
  ASSERT_EQ(mxrt_kvstore_wait_all(store.s), MXRT_OK);
  for (int i = 0; i < 3; ++i) {
    float sum = (1 + 10 + 100 - 1) * float(i + 1);
    EXPECT_EQ(out1[i], sum);
    EXPECT_EQ(out2[i], sum);
  }
}

TEST(KVStoreTest, PushesOfOneKeyApplyInOrder) {
  Store store;
  mxrt_optimizer_options options;
  mxrt_optimizer_options_init(&options);
  options.learning_rate = 0.5f;
  options.momentum = 0.5f;
  ASSERT_EQ(mxrt_kvstore_set_optimizer(store.s, "momentum", &options), MXRT_OK);
  Tensor w({1.0f});
  ASSERT_EQ(mxrt_kvstore_init(store.s, 0, w.t), MXRT_OK);
  // Gradients 1, 2, 3, pushed without waiting: m = .5 m - .5 g; w += m.
  Tensor g1({1}), g2({2}), g3({3});
  for (Tensor *g : {&g1, &g2, &g3})
    ASSERT_EQ(mxrt_kvstore_push(store.s, 0, &g->t, 1, 0), MXRT_OK);
  ASSERT_EQ(mxrt_kvstore_pull(store.s, 0, &w.t, 1, 0), MXRT_OK);
  ASSERT_EQ(mxrt_kvstore_wait_all(store.s), MXRT_OK);
  float m = 0, ref = 1;
  for (float g : {1.0f, 2.0f, 3.0f}) {
    m = 0.5f * m - 0.5f * g;
    ref += m;
  }
  EXPECT_FLOAT_EQ(w[0], ref);
}

/// One step of each built-in rule with weight decay, rescale and clipping,
/// against the formulas of docs/training.md written out.
TEST(KVStoreTest, BuiltInRulesMatchTheirFormulas) {
  for (const char *name : {"sgd", "momentum", "adam", "rmsprop"}) {
    SCOPED_TRACE(name);
    Store store;
    mxrt_optimizer_options o;
    mxrt_optimizer_options_init(&o);
    o.learning_rate = 0.1f;
    o.weight_decay = 0.01f;
    o.rescale_grad = 0.5f;
    o.clip_gradient = 1.0f;
    ASSERT_EQ(mxrt_kvstore_set_optimizer(store.s, name, &o), MXRT_OK);
    std::vector<float> w0 = {0.5f, -1.0f, 2.0f}, grad = {4.0f, -0.6f, 1.0f};
    Tensor w(w0), g(grad);
    ASSERT_EQ(mxrt_kvstore_init(store.s, 0, w.t), MXRT_OK);
    for (int step = 0; step < 2; ++step)
      ASSERT_EQ(mxrt_kvstore_push(store.s, 0, &g.t, 1, 0), MXRT_OK);
    ASSERT_EQ(mxrt_kvstore_pull(store.s, 0, &w.t, 1, 0), MXRT_OK);
    ASSERT_EQ(mxrt_kvstore_wait_all(store.s), MXRT_OK);
    for (int i = 0; i < 3; ++i) {
      double p = w0[i], s0 = 0, s1 = 0;
      for (int t = 1; t <= 2; ++t) {
        double gi = std::min(std::max(grad[i] * 0.5, -1.0), 1.0) + 0.01 * p;
        std::string n = name;
        if (n == "sgd") {
          p -= 0.1 * gi;
        } else if (n == "momentum") {
          s0 = 0.9 * s0 - 0.1 * gi;
          p += s0;
        } else if (n == "adam") {
          s0 = 0.9 * s0 + 0.1 * gi;
          s1 = 0.999 * s1 + 0.001 * gi * gi;
          double lr =
              0.1 * std::sqrt(1 - std::pow(0.999, t)) / (1 - std::pow(0.9, t));
          p -= lr * s0 / (std::sqrt(s1) + 1e-8);
        } else {
          s0 = 0.9 * s0 + 0.1 * gi * gi;
          p -= 0.1 * gi / std::sqrt(s0 + 1e-8);
        }
      }
      EXPECT_NEAR(w[i], p, 1e-5 * std::max(1.0, std::fabs(p)));
    }
  }
}

TEST(KVStoreTest, UserUpdaterRunsOnTheMergedGradient) {
  Store store;
  auto updater = [](int32_t key, const mxrt_tensor *grad, mxrt_tensor *stored,
                    void *arg) -> mxrt_status {
    ++*static_cast<int *>(arg);
    auto *w = static_cast<float *>(mxrt_tensor_data(stored));
    auto *g = static_cast<const float *>(
        mxrt_tensor_data(const_cast<mxrt_tensor *>(grad)));
    w[0] = w[0] * 10 + g[0] + float(key);
    return MXRT_OK;
  };
  int calls = 0;
  ASSERT_EQ(mxrt_kvstore_set_updater(store.s, updater, &calls), MXRT_OK);
  Tensor w({1}), a({2}), b({3});
  ASSERT_EQ(mxrt_kvstore_init(store.s, 4, w.t), MXRT_OK);
  mxrt_tensor *values[] = {a.t, b.t};
  ASSERT_EQ(mxrt_kvstore_pushpull(store.s, 4, values, 2, &w.t, 1, 0), MXRT_OK);
  ASSERT_EQ(mxrt_kvstore_wait_all(store.s), MXRT_OK);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(w[0], 1 * 10 + 5 + 4);
}

TEST(KVStoreTest, ListFormsCheckEveryKeyBeforeQueueingAny) {
  Store store;
  Tensor w0({1, 1}), w1({5}), g0({2, 3}), g1({4}), o0({0, 0}), o1({0});
  ASSERT_EQ(mxrt_kvstore_init(store.s, 0, w0.t), MXRT_OK);
  ASSERT_EQ(mxrt_kvstore_init(store.s, 1, w1.t), MXRT_OK);
  int32_t keys[] = {0, 1};
  mxrt_tensor *grads[] = {g0.t, g1.t}, *outs[] = {o0.t, o1.t};
  // Key 1's output has key 0's shape: nothing is pushed.
  mxrt_tensor *badOuts[] = {o0.t, o0.t};
  EXPECT_EQ(mxrt_kvstore_pushpull_list(store.s, 2, keys, grads, badOuts, 1, 0),
            MXRT_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(mxrt_last_error(), "key 1"), nullptr)
      << mxrt_last_error();
  int32_t unknown[] = {0, 8};
  EXPECT_EQ(mxrt_kvstore_push_list(store.s, 2, unknown, grads, 1, 0),
            MXRT_NOT_FOUND);
  ASSERT_EQ(mxrt_kvstore_pull_list(store.s, 2, keys, outs, 1, 0), MXRT_OK);
  ASSERT_EQ(mxrt_kvstore_wait_all(store.s), MXRT_OK);
  EXPECT_EQ(o0[0], 1); // still the initial values
  EXPECT_EQ(o1[0], 5);
  // Without an optimizer a push's sum replaces the value.
  ASSERT_EQ(mxrt_kvstore_pushpull_list(store.s, 2, keys, grads, outs, 1, 0),
            MXRT_OK);
  ASSERT_EQ(mxrt_kvstore_wait_all(store.s), MXRT_OK);
  EXPECT_EQ(o0[0], 2);
  EXPECT_EQ(o0[1], 3);
  EXPECT_EQ(o1[0], 4);
}

TEST(KVStoreTest, CxxWrapperRunsCallablesAndThrows) {
  mxrt::KVStore store("local");
  Tensor w({1, 2}), g({10, 20}), wrong({1, 2, 3});
  store.init(3, w.t);
  int calls = 0;
  store.setUpdater(
      [&](int32_t key, const mxrt_tensor *grad, mxrt_tensor *stored) {
        ++calls;
        auto *v = static_cast<float *>(mxrt_tensor_data(stored));
        auto *d = static_cast<const float *>(
            mxrt_tensor_data(const_cast<mxrt_tensor *>(grad)));
        if (d[0] < 0)
          throw std::runtime_error("negative gradient");
        for (int i = 0; i < 2; ++i)
          v[i] -= 0.5f * d[i] + float(key);
      });
  store.pushPull(std::vector<int32_t>{3}, {g.t}, {w.t});
  store.waitAll();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(w[0], 1 - 5 - 3);
  EXPECT_EQ(w[1], 2 - 10 - 3);
  EXPECT_THROW(store.push(3, {wrong.t}), mxrt::Error);
  // An updater's throw is the push's failure, with its words.
  Tensor negative({-1, 0});
  store.push(3, {negative.t});
  try {
    store.waitAll();
    ADD_FAILURE() << "the updater's throw was lost";
  } catch (const mxrt::Error &e) {
    EXPECT_NE(std::string(e.what()).find("negative gradient"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(mxrt::KVStore("nonsense"), mxrt::Error);
  EXPECT_THROW(store.setKeepValues(false), mxrt::Error); // dist_sync only
}

TEST(KVStoreTest, BadCallsReturnErrorsNamingTheKey) {
  Store store;
  Tensor w({1, 2}), wrong({1, 2, 3});
  mxrt_kvstore *bad;
  EXPECT_EQ(mxrt_kvstore_create("dist_mystery", 0, &bad),
            MXRT_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(mxrt_last_error(), "dist_mystery"), nullptr);
  ASSERT_EQ(mxrt_kvstore_init(store.s, 1, w.t), MXRT_OK);
  EXPECT_EQ(mxrt_kvstore_init(store.s, 1, w.t), MXRT_INVALID_ARGUMENT);
  EXPECT_EQ(mxrt_kvstore_push(store.s, 1, &wrong.t, 1, 0),
            MXRT_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(mxrt_last_error(), "key 1"), nullptr)
      << mxrt_last_error();
  EXPECT_NE(std::strstr(mxrt_last_error(), "float32 3"), nullptr)
      << mxrt_last_error();
  EXPECT_EQ(mxrt_kvstore_pull(store.s, 9, &w.t, 1, 0), MXRT_NOT_FOUND);
  EXPECT_NE(std::strstr(mxrt_last_error(), "key 9"), nullptr);
  EXPECT_EQ(mxrt_kvstore_set_optimizer(store.s, "lion", nullptr),
            MXRT_INVALID_ARGUMENT);
  EXPECT_EQ(mxrt_kvstore_barrier(store.s), MXRT_OK);
  // Only dist_sync can drop its values.
  EXPECT_EQ(mxrt_kvstore_set_keep_values(store.s, 0), MXRT_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(mxrt_last_error(), "dist_sync only"), nullptr)
      << mxrt_last_error();
  // The built-in rules update float32: a float64 key needs an updater.
  Store sgd;
  ASSERT_EQ(mxrt_kvstore_set_optimizer(sgd.s, "sgd", nullptr), MXRT_OK);
  int64_t two = 2;
  mxrt_tensor *wide;
  ASSERT_EQ(mxrt_tensor_create(MXRT_F64, 1, &two, &wide), MXRT_OK);
  EXPECT_EQ(mxrt_kvstore_init(sgd.s, 4, wide), MXRT_UNSUPPORTED);
  EXPECT_NE(std::strstr(mxrt_last_error(), "key 4"), nullptr)
      << mxrt_last_error();
  mxrt_tensor_release(wide);
}

/// Runs kvstore_worker under mpirun; returns its exit status and output.
int runWorkers(int np, const std::string &args, std::string &output,
               const std::string &env = "") {
  std::string command = "timeout 120 mpirun --oversubscribe";
  if (geteuid() == 0)
    command += " --allow-run-as-root";
  // Containers often forbid the cross-memory attach vader uses by default.
  command += " --mca btl_vader_single_copy_mechanism none";
  if (!env.empty())
    command += " -x " + env;
  command += " -np " + std::to_string(np) + " " MXRT_KVSTORE_WORKER " " + args +
             " 2>&1";
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe)
    return -1;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    output.append(buffer.data(), n);
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(DistKVStoreTest, SyncEqualsOneProcessOnTheGlobalBatch) {
  for (int np : {2, 4}) {
    std::string output;
    EXPECT_EQ(runWorkers(np, "sync 6", output), 0) << output;
    EXPECT_NE(output.find("PASS"), std::string::npos) << output;
  }
}

TEST(DistKVStoreTest, InPlacePushPullEqualsOneProcess) {
  // pushpull into the pushed tensor: the allreduce in place, the updated
  // value back into it.
  for (int np : {2, 4}) {
    std::string output;
    EXPECT_EQ(runWorkers(np, "sync-inplace 6", output), 0) << output;
    EXPECT_NE(output.find("PASS"), std::string::npos) << output;
  }
}

TEST(DistKVStoreTest, AStoreWithoutValuesIsAnAllreduce) {
  // set_keep_values(0): pushpull sums without keeping the value; each
  // worker updates its own parameters; pull and save then fail.
  for (int np : {2, 4}) {
    std::string output;
    EXPECT_EQ(runWorkers(np, "allreduce 6", output), 0) << output;
    EXPECT_NE(output.find("PASS"), std::string::npos) << output;
  }
}

TEST(DistKVStoreTest, TwoLevelSumsEqualOneProcess) {
  // Four ranks as two hosts of two: sums inside each host, then across the
  // hosts, then back; both pushpull forms.
  for (const char *mode : {"sync 6", "sync-inplace 6"}) {
    std::string output;
    EXPECT_EQ(runWorkers(4, mode, output, "MXRT_KVSTORE_RANKS_PER_HOST=2"), 0)
        << mode << "\n"
        << output;
    EXPECT_NE(output.find("4 workers, 2 hosts"), std::string::npos) << output;
    EXPECT_NE(output.find("PASS"), std::string::npos) << output;
  }
  // One machine: one host, one level.
  std::string output;
  EXPECT_EQ(runWorkers(2, "sync 2", output), 0) << output;
  EXPECT_NE(output.find("2 workers, 1 hosts"), std::string::npos) << output;
}

TEST(DistKVStoreTest, AsyncConvergesWithAndWithoutAStalenessBound) {
  // Noise-free least squares: every run must reach the exact solution;
  // with a bound, the slow rank is never further behind than it allows.
  for (const char *args : {"async 1500 -1", "async 1500 0", "async 1500 2"})
    for (int np : {2, 4}) {
      std::string output;
      EXPECT_EQ(runWorkers(np, args, output), 0) << args << "\n" << output;
      EXPECT_NE(output.find("PASS"), std::string::npos) << output;
    }
}

TEST(DistKVStoreTest, AKilledRunResumesFromItsCheckpoint) {
  std::string dir = testing::TempDir();
  std::string path =
      dir + "/mxrt-kvstore-checkpoint-" + std::to_string(getpid()) + ".params";
  std::string output;
  EXPECT_NE(runWorkers(2, "checkpoint 6 " + path, output), 0) << output;
  ASSERT_EQ(access(path.c_str(), R_OK), 0) << output;
  // The resumed run ends where six uninterrupted steps end.
  output.clear();
  EXPECT_EQ(runWorkers(2, "resume 6 " + path, output), 0) << output;
  EXPECT_NE(output.find("PASS"), std::string::npos) << output;
  std::remove(path.c_str());
}

TEST(KVStoreTest, SaveAndLoadKeepValuesAndOptimizerState) {
  std::string path = testing::TempDir() + "/mxrt-kvstore-local-" +
                     std::to_string(getpid()) + ".params";
  mxrt_optimizer_options o;
  mxrt_optimizer_options_init(&o);
  o.learning_rate = 0.1f;
  Tensor w({1, 2}), g({0.5f, -0.5f});
  // Reference: three adam steps in one store.
  Store ref;
  ASSERT_EQ(mxrt_kvstore_set_optimizer(ref.s, "adam", &o), MXRT_OK);
  ASSERT_EQ(mxrt_kvstore_init(ref.s, 2, w.t), MXRT_OK);
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(mxrt_kvstore_push(ref.s, 2, &g.t, 1, 0), MXRT_OK);
  Tensor expected({0, 0});
  ASSERT_EQ(mxrt_kvstore_pull(ref.s, 2, &expected.t, 1, 0), MXRT_OK);
  ASSERT_EQ(mxrt_kvstore_wait_all(ref.s), MXRT_OK);
  // One step, save, and two more in a new store loaded from the file.
  {
    Store first;
    ASSERT_EQ(mxrt_kvstore_set_optimizer(first.s, "adam", &o), MXRT_OK);
    ASSERT_EQ(mxrt_kvstore_init(first.s, 2, w.t), MXRT_OK);
    ASSERT_EQ(mxrt_kvstore_push(first.s, 2, &g.t, 1, 0), MXRT_OK);
    ASSERT_EQ(mxrt_kvstore_save(first.s, path.c_str()), MXRT_OK);
  }
  Store second;
  ASSERT_EQ(mxrt_kvstore_set_optimizer(second.s, "adam", &o), MXRT_OK);
  ASSERT_EQ(mxrt_kvstore_init(second.s, 2, w.t), MXRT_OK);
  ASSERT_EQ(mxrt_kvstore_load(second.s, path.c_str()), MXRT_OK);
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(mxrt_kvstore_push(second.s, 2, &g.t, 1, 0), MXRT_OK);
  Tensor got({0, 0});
  ASSERT_EQ(mxrt_kvstore_pull(second.s, 2, &got.t, 1, 0), MXRT_OK);
  ASSERT_EQ(mxrt_kvstore_wait_all(second.s), MXRT_OK);
  EXPECT_FLOAT_EQ(got[0], expected[0]);
  EXPECT_FLOAT_EQ(got[1], expected[1]);
  // A store whose keys the file lacks changes nothing and says why.
  Store other;
  Tensor v({7});
  ASSERT_EQ(mxrt_kvstore_init(other.s, 5, v.t), MXRT_OK);
  EXPECT_EQ(mxrt_kvstore_load(other.s, path.c_str()), MXRT_NOT_FOUND);
  EXPECT_NE(std::strstr(mxrt_last_error(), "'key:5'"), nullptr)
      << mxrt_last_error();
  std::remove(path.c_str());
}

TEST(DistKVStoreTest, WrongShapesAndUnknownKeysFail) {
  std::string output;
  EXPECT_EQ(runWorkers(2, "errors", output), 0) << output;
  EXPECT_NE(output.find("PASS"), std::string::npos) << output;
}

TEST(DistKVStoreTest, AKilledWorkerEndsTheJobNamingIt) {
  std::string output;
  EXPECT_NE(runWorkers(2, "kill", output), 0) << output;
  // mpirun names the rank that died.
  EXPECT_NE(output.find("rank 1"), std::string::npos) << output;
  EXPECT_EQ(output.find("should have ended"), std::string::npos) << output;
}

TEST(DistKVStoreTest, AStalledWorkerTimesOutNamingTheKeyAndTheRank) {
  std::string output;
  int status = runWorkers(2, "stall", output, "MXRT_KVSTORE_TIMEOUT=3");
  EXPECT_NE(status, 0) << output;
  EXPECT_NE(status, 124) << "the job hung until timeout(1) ended it\n"
                         << output;
  EXPECT_NE(output.find("rank 0 of 2: pushpull of key 0 made no progress"),
            std::string::npos)
      << output;
  // The liveness probe names the stopped worker.
  EXPECT_NE(output.find("rank 1 does not answer a liveness probe"),
            std::string::npos)
      << output;
}

TEST(DistKVStoreTest, AnAbsentWorkerTimesOutAnsweringTheProbe) {
  // Rank 1 is alive (its probe responder answers) but never pushes.
  std::string output;
  int status = runWorkers(2, "absent", output, "MXRT_KVSTORE_TIMEOUT=3");
  EXPECT_NE(status, 0) << output;
  EXPECT_NE(status, 124) << output;
  EXPECT_NE(output.find("every other worker answers a liveness probe"),
            std::string::npos)
      << output;
}

} // namespace
