// SPDX-License-Identifier: Apache-2.0
//
// One worker of the multi-process KVStore tests, started by
// KVStoreTest.cpp through `mpirun -np N`. Modes:
//   sync K   K momentum steps of least squares, each worker on its shard of
//            the global batch through a dist_sync store; rank 0 checks the
//            parameters against one process doing the same K steps on the
//            whole batch (plain loops, no store) to 1e-5 relative.
//   sync-inplace K   the same with each pushpull into the pushed tensor
//            itself (the in-place allreduce), the result copied to w.
//            Both print how many hosts the store saw (two-level sums where
//            MXRT_KVSTORE_RANKS_PER_HOST makes several of one machine).
//   allreduce K   the same steps through a store that keeps no values
//            (mxrt_kvstore_set_keep_values 0), each worker updating its
//            own parameters from the in-place pushpull's sum; then a pull
//            and a save of a key whose value went must fail naming it.
//   checkpoint K FILE   the first K/2 of those steps, a save to FILE, and
//            rank 1 killed; resume K FILE: a load of FILE and the last
//            K/2 steps, checked as `sync K` is.
//   errors   a push of the wrong shape and a pull of an unknown key fail
//            with messages naming the key.
//   kill     rank 1 kills itself after init; the others keep pushing.
//   stall    rank 1 stops itself (SIGSTOP) after init; the others' watchdog
//            must end the job, naming rank 1 as not answering.
//   absent   rank 1 sleeps after init, alive but making no call: the
//            watchdog ends the job, saying every worker still answers.
//   async K S   K steps of noise-free least squares on a dist_async store
//            (staleness bound S, -1 none; without one, more steps while a
//            rank's values are not yet close), rank 1 slower than the others:
//            the parameters must reach the exact solution, and with a bound
//            rank 0 must never see rank 1 more than S steps behind.
// Prints "PASS" on rank 0 and exits 0 when its checks hold.

#include "mxrt/kvstore.h"

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

constexpr int kDim = 8;
constexpr int kBatch = 24; // divisible by 1, 2, 3, 4 workers
constexpr float kLr = 0.1f, kMomentum = 0.9f;

void check(mxrt_status status, const char *what) {
  if (status != MXRT_OK) {
    std::fprintf(stderr, "%s failed: %s\n", what, mxrt_last_error());
    std::exit(1);
  }
}

mxrt_tensor *tensor(const std::vector<float> &values) {
  int64_t shape[1] = {int64_t(values.size())};
  mxrt_tensor *t;
  check(mxrt_tensor_create(MXRT_F32, 1, shape, &t), "mxrt_tensor_create");
  std::memcpy(mxrt_tensor_data(t), values.data(), values.size() * 4);
  return t;
}

float *data(mxrt_tensor *t) {
  return static_cast<float *>(mxrt_tensor_data(t));
}

/// The same pseudo-random data on every worker.
struct Problem {
  std::vector<float> x, y;
  Problem() {
    uint32_t state = 12345;
    auto next = [&] {
      state = state * 1664525u + 1013904223u;
      return float(state >> 8) / float(1 << 24) - 0.5f;
    };
    for (int i = 0; i < kBatch * kDim; ++i)
      x.push_back(next());
    for (int i = 0; i < kBatch; ++i)
      y.push_back(next());
  }
  /// Gradient sum of rows [begin, end) of 1/2 (x w + b - y)^2.
  void gradient(const std::vector<float> &w, float b, int begin, int end,
                std::vector<float> &gw, float &gb) const {
    gw.assign(kDim, 0.0f);
    gb = 0;
    for (int i = begin; i < end; ++i) {
      float r = b - y[i];
      for (int d = 0; d < kDim; ++d)
        r += x[i * kDim + d] * w[d];
      for (int d = 0; d < kDim; ++d)
        gw[d] += r * x[i * kDim + d];
      gb += r;
    }
  }
};

/// Rank 0's check of `steps` momentum steps from w0 (weights w, bias b)
/// against one process doing them on the whole batch, the rule written
/// out: 1e-5 relative; also that the parameters moved.
int checkAgainstOneProcess(const Problem &problem, const std::vector<float> &w0,
                           int steps, const float *w, float b) {
  std::vector<float> rw = w0, mw(kDim, 0.0f), g;
  float rb = 0, mb = 0, grb;
  for (int step = 0; step < steps; ++step) {
    problem.gradient(rw, rb, 0, kBatch, g, grb);
    for (int d = 0; d < kDim; ++d) {
      mw[d] = kMomentum * mw[d] - kLr * g[d] / kBatch;
      rw[d] += mw[d];
    }
    mb = kMomentum * mb - kLr * grb / kBatch;
    rb += mb;
  }
  int bad = 0;
  auto near = [](float a, float e) {
    return std::fabs(a - e) <= 1e-5f * std::max(1.0f, std::fabs(e));
  };
  for (int d = 0; d < kDim; ++d)
    if (!near(w[d], rw[d])) {
      std::fprintf(stderr, "w[%d] = %.8g, single process %.8g\n", d, w[d],
                   rw[d]);
      ++bad;
    }
  if (!near(b, rb)) {
    std::fprintf(stderr, "b = %.8g, single process %.8g\n", b, rb);
    ++bad;
  }
  // The parameters moved: a store that never updated would fail above,
  // unless the steps did nothing.
  if (near(rw[0], w0[0]))
    ++bad;
  return bad;
}

/// `mode`: "sync" runs all `steps`; "checkpoint" the first half, saves the
/// store to `path`, and then rank 1 dies while the others train on;
/// "resume" loads `path` and runs the second half.
int runSync(mxrt_kvstore *store, int steps, const std::string &mode,
            const char *path) {
  int rank = mxrt_kvstore_rank(store), size = mxrt_kvstore_num_workers(store);
  Problem problem;
  mxrt_optimizer_options options;
  mxrt_optimizer_options_init(&options);
  options.learning_rate = kLr;
  options.momentum = kMomentum;
  options.rescale_grad = 1.0f / kBatch;
  check(mxrt_kvstore_set_optimizer(store, "momentum", &options), "optimizer");
  std::vector<float> w0(kDim, 0.1f);
  // Every rank passes its own initial values: init must give rank 0's.
  std::vector<float> mine(kDim, float(rank));
  mxrt_tensor *w = tensor(rank == 0 ? w0 : mine);
  mxrt_tensor *b = tensor({0.0f});
  check(mxrt_kvstore_init(store, 0, w), "init w");
  check(mxrt_kvstore_init(store, 1, b), "init b");
  int first = 0, last = steps;
  if (mode == "checkpoint")
    last = steps / 2;
  if (mode == "resume") {
    check(mxrt_kvstore_load(store, path), "load");
    first = steps / 2;
  }
  check(mxrt_kvstore_pull(store, 0, &w, 1, 0), "pull w");
  check(mxrt_kvstore_pull(store, 1, &b, 1, 0), "pull b");
  check(mxrt_kvstore_wait_all(store), "wait");
  mxrt_tensor *gw = tensor(std::vector<float>(kDim));
  mxrt_tensor *gb = tensor({0.0f});
  int shard = kBatch / size;
  for (int step = first; step < last; ++step) {
    std::vector<float> wv(data(w), data(w) + kDim), g;
    float gbv;
    problem.gradient(wv, data(b)[0], rank * shard, (rank + 1) * shard, g, gbv);
    std::memcpy(data(gw), g.data(), kDim * 4);
    data(gb)[0] = gbv;
    if (mode == "sync-inplace") {
      check(mxrt_kvstore_pushpull(store, 0, &gw, 1, &gw, 1, 0), "pushpull w");
      check(mxrt_kvstore_pushpull(store, 1, &gb, 1, &gb, 1, 1), "pushpull b");
      check(mxrt_kvstore_wait_all(store), "wait");
      std::memcpy(data(w), data(gw), kDim * 4);
      data(b)[0] = data(gb)[0];
      continue;
    }
    check(mxrt_kvstore_pushpull(store, 0, &gw, 1, &w, 1, 0), "pushpull w");
    check(mxrt_kvstore_pushpull(store, 1, &gb, 1, &b, 1, 1), "pushpull b");
    check(mxrt_kvstore_wait_all(store), "wait");
  }
  if (mode == "checkpoint") {
    check(mxrt_kvstore_save(store, path), "save");
    if (rank == 1)
      std::raise(SIGKILL);
    for (;;) { // killed with the job
      check(mxrt_kvstore_pushpull(store, 0, &gw, 1, &w, 1, 0), "pushpull");
      check(mxrt_kvstore_wait_all(store), "wait");
    }
  }
  if (rank != 0)
    return 0;
  int bad = checkAgainstOneProcess(problem, w0, steps, data(w), data(b)[0]);
  std::printf("%d workers, %d hosts\n", size, mxrt_kvstore_num_hosts(store));
  return bad;
}

/// "allreduce K": a dist_sync store that keeps no values, as a plain
/// allreduce of the gradients (pushpull in place), each worker applying
/// the momentum rule to its own parameters: rank 0 checks them against
/// one process as `sync` does. Then a pull and a save of a key whose value
/// went must fail naming it (and write no file), and a push must set it
/// again.
int runAllreduce(mxrt_kvstore *store, int steps) {
  int rank = mxrt_kvstore_rank(store), size = mxrt_kvstore_num_workers(store);
  check(mxrt_kvstore_set_keep_values(store, 0), "keep values");
  Problem problem;
  std::vector<float> w0(kDim, 0.1f), w = w0, mw(kDim, 0.0f), g;
  float b = 0, mb = 0, gbv;
  mxrt_tensor *gw = tensor(std::vector<float>(kDim)), *gb = tensor({0.0f});
  check(mxrt_kvstore_init(store, 0, gw), "init w");
  check(mxrt_kvstore_init(store, 1, gb), "init b");
  int shard = kBatch / size;
  for (int step = 0; step < steps; ++step) {
    problem.gradient(w, b, rank * shard, (rank + 1) * shard, g, gbv);
    std::memcpy(data(gw), g.data(), kDim * 4);
    data(gb)[0] = gbv;
    check(mxrt_kvstore_pushpull(store, 0, &gw, 1, &gw, 1, 0), "pushpull w");
    check(mxrt_kvstore_pushpull(store, 1, &gb, 1, &gb, 1, 1), "pushpull b");
    check(mxrt_kvstore_wait_all(store), "wait");
    for (int d = 0; d < kDim; ++d) {
      mw[d] = kMomentum * mw[d] - kLr * data(gw)[d] / kBatch;
      w[d] += mw[d];
    }
    mb = kMomentum * mb - kLr * data(gb)[0] / kBatch;
    b += mb;
  }
  int bad = 0;
  auto expectFailure = [&](mxrt_status status, const char *what) {
    std::string message = status == MXRT_OK ? "" : mxrt_last_error();
    if (message.find("key 0") == std::string::npos ||
        message.find("keeps no values") == std::string::npos) {
      std::fprintf(stderr,
                   "rank %d: %s: expected a failure naming key 0, got "
                   "'%s'\n",
                   rank, what, message.c_str());
      ++bad;
    }
  };
  mxrt_tensor *out = tensor(std::vector<float>(kDim));
  check(mxrt_kvstore_pull(store, 0, &out, 1, 0), "queue the pull");
  expectFailure(mxrt_kvstore_wait_all(store), "pull");
  std::string path = "kvstore-allreduce-" + std::to_string(rank) + ".params";
  expectFailure(mxrt_kvstore_save(store, path.c_str()), "save");
  if (access(path.c_str(), F_OK) == 0) {
    std::fprintf(stderr, "rank %d: the failed save wrote %s\n", rank,
                 path.c_str());
    std::remove(path.c_str());
    ++bad;
  }
  // A push sets the value again: the sum of every worker's gw (all equal).
  std::vector<float> sum(data(gw), data(gw) + kDim);
  check(mxrt_kvstore_push(store, 0, &gw, 1, 0), "push");
  check(mxrt_kvstore_pull(store, 0, &out, 1, 0), "pull");
  check(mxrt_kvstore_wait_all(store), "wait after push");
  for (int d = 0; d < kDim; ++d)
    if (std::fabs(data(out)[d] - size * sum[d]) >
        1e-5f * std::max(1.0f, std::fabs(size * sum[d]))) {
      std::fprintf(stderr,
                   "rank %d: pulled %.8g after the push, expected %.8g\n", rank,
                   data(out)[d], size * sum[d]);
      ++bad;
    }
  if (rank == 0)
    bad += checkAgainstOneProcess(problem, w0, steps, w.data(), b);
  return bad;
}

/// Rank 1's step counter in the async test: a key rank 0 serves, as it
/// does key 0, with 2, 3 or 4 workers (a server handles each worker's
/// messages in the order it sent them).
constexpr int32_t kCounterKey = 12;

/// The dist_async update: plain SGD on keys 0 and 1; the counter takes the
/// pushed value.
mxrt_status asyncUpdate(int32_t key, const mxrt_tensor *gradient,
                        mxrt_tensor *stored, void *) {
  const float *g = static_cast<const float *>(
      mxrt_tensor_data(const_cast<mxrt_tensor *>(gradient)));
  float *w = data(stored);
  for (int64_t i = 0; i < mxrt_tensor_num_elements(stored); ++i)
    w[i] = key == kCounterKey ? g[i] : w[i] - 1.0f * g[i] / kBatch;
  return MXRT_OK;
}

int runAsync(mxrt_kvstore *store, int steps, int staleness) {
  int rank = mxrt_kvstore_rank(store), size = mxrt_kvstore_num_workers(store);
  Problem problem;
  // y = x w* + b*: the least-squares solution is exactly (w*, b*).
  std::vector<float> wStar(kDim);
  for (int d = 0; d < kDim; ++d)
    wStar[d] = 0.25f * float(d) - 0.8f;
  float bStar = 0.3f;
  for (int i = 0; i < kBatch; ++i) {
    float y = bStar;
    for (int d = 0; d < kDim; ++d)
      y += problem.x[i * kDim + d] * wStar[d];
    problem.y[i] = y;
  }
  check(mxrt_kvstore_set_updater(store, asyncUpdate, nullptr), "updater");
  if (staleness >= 0)
    check(mxrt_kvstore_set_staleness(store, staleness), "staleness");
  mxrt_tensor *w = tensor(std::vector<float>(kDim, 0.0f));
  mxrt_tensor *b = tensor({0.0f});
  mxrt_tensor *counter = tensor({0.0f});
  check(mxrt_kvstore_init(store, 0, w), "init w");
  check(mxrt_kvstore_init(store, 1, b), "init b");
  check(mxrt_kvstore_init(store, kCounterKey, counter), "init counter");
  mxrt_tensor *gw = tensor(std::vector<float>(kDim));
  mxrt_tensor *gb = tensor({0.0f});
  int shard = kBatch / size, bad = 0;
  // Without a bound, how fast the stale gradients converge depends on how
  // the processes were scheduled (a loaded machine lets one rank run far
  // ahead): past `steps`, each rank goes on while the values it pulls are
  // further than 1e-4 from the solution, up to 10 x `steps`. (Every
  // gradient step of a shard of this consistent system brings the values
  // no further from the solution, so the ranks that go on cannot undo the
  // others'.) With a bound the ranks stop together: one that went on
  // would wait for a finished one.
  auto near = [&] {
    for (int d = 0; d < kDim; ++d)
      if (std::fabs(data(w)[d] - wStar[d]) > 1e-4f)
        return false;
    return std::fabs(data(b)[0] - bStar) <= 1e-4f;
  };
  for (int step = 0;; ++step) {
    check(mxrt_kvstore_pull(store, 0, &w, 1, 0), "pull w");
    check(mxrt_kvstore_pull(store, 1, &b, 1, 0), "pull b");
    check(mxrt_kvstore_wait_all(store), "wait");
    if (step >= steps && (staleness >= 0 || near() || step >= 10 * steps))
      break;
    if (rank == 0 && staleness >= 0) {
      // This pull of key 0 came after `step` pushes of it; rank 1 pushes
      // its counter before each of its own pushes of key 0.
      check(mxrt_kvstore_pull(store, kCounterKey, &counter, 1, 0),
            "pull counter");
      check(mxrt_kvstore_wait_all(store), "wait");
      if (data(counter)[0] < float(step - staleness)) {
        std::fprintf(stderr,
                     "step %d: rank 1 has made %g steps, more than %d "
                     "behind\n",
                     step, data(counter)[0], staleness);
        ++bad;
      }
    }
    std::vector<float> wv(data(w), data(w) + kDim), g;
    float gbv;
    problem.gradient(wv, data(b)[0], rank * shard, (rank + 1) * shard, g, gbv);
    std::memcpy(data(gw), g.data(), kDim * 4);
    data(gb)[0] = gbv;
    if (rank == 1) {
      usleep(2000);
      data(counter)[0] = float(step + 1);
      check(mxrt_kvstore_push(store, kCounterKey, &counter, 1, 0),
            "push counter");
      // Sent before the push of key 0 below (the engine may run two keys'
      // pushes in either order).
      check(mxrt_kvstore_wait_all(store), "wait");
    }
    check(mxrt_kvstore_push(store, 0, &gw, 1, 0), "push w");
    check(mxrt_kvstore_push(store, 1, &gb, 1, 0), "push b");
  }
  // After a barrier every worker's pushes are applied.
  check(mxrt_kvstore_barrier(store), "barrier");
  check(mxrt_kvstore_pull(store, 0, &w, 1, 0), "pull w");
  check(mxrt_kvstore_pull(store, 1, &b, 1, 0), "pull b");
  check(mxrt_kvstore_wait_all(store), "wait");
  for (int d = 0; d < kDim; ++d)
    if (std::fabs(data(w)[d] - wStar[d]) > 1e-3f) {
      std::fprintf(stderr, "rank %d: w[%d] = %.6g, the solution %.6g\n", rank,
                   d, data(w)[d], wStar[d]);
      ++bad;
    }
  if (std::fabs(data(b)[0] - bStar) > 1e-3f) {
    std::fprintf(stderr, "rank %d: b = %.6g, the solution %.6g\n", rank,
                 data(b)[0], bStar);
    ++bad;
  }
  return bad;
}

int runErrors(mxrt_kvstore *store) {
  mxrt_tensor *w = tensor(std::vector<float>(kDim, 1.0f));
  mxrt_tensor *wrong = tensor(std::vector<float>(kDim + 1, 1.0f));
  check(mxrt_kvstore_init(store, 3, w), "init");
  int bad = 0;
  if (mxrt_kvstore_push(store, 3, &wrong, 1, 0) != MXRT_INVALID_ARGUMENT ||
      !std::strstr(mxrt_last_error(), "key 3")) {
    std::fprintf(stderr, "wrong shape: %s\n", mxrt_last_error());
    ++bad;
  }
  if (mxrt_kvstore_pull(store, 42, &w, 1, 0) != MXRT_NOT_FOUND ||
      !std::strstr(mxrt_last_error(), "key 42")) {
    std::fprintf(stderr, "unknown key: %s\n", mxrt_last_error());
    ++bad;
  }
  check(mxrt_kvstore_barrier(store), "barrier");
  return bad;
}

/// Rank 1 dies, stops or sleeps after init; the others push until the job
/// ends.
int runFailure(mxrt_kvstore *store, const std::string &mode) {
  mxrt_tensor *w = tensor(std::vector<float>(kDim, 1.0f));
  check(mxrt_kvstore_init(store, 0, w), "init");
  if (mxrt_kvstore_rank(store) == 1 && mode == "absent")
    for (;;)
      sleep(1);
  if (mxrt_kvstore_rank(store) == 1)
    std::raise(mode == "stall" ? SIGSTOP : SIGKILL);
  for (int i = 0; i < 1000; ++i) {
    check(mxrt_kvstore_pushpull(store, 0, &w, 1, &w, 1, 0), "pushpull");
    check(mxrt_kvstore_wait_all(store), "wait");
    usleep(10000);
  }
  std::fprintf(stderr, "rank %d: the job should have ended\n",
               mxrt_kvstore_rank(store));
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s sync K | sync-inplace K | allreduce K | "
                 "checkpoint K FILE | "
                 "resume K FILE | errors | "
                 "kill | stall | absent | async K STALENESS\n",
                 argv[0]);
    return 2;
  }
  std::string mode = argv[1];
  mxrt_kvstore *store;
  check(mxrt_kvstore_create(mode == "async" ? "dist_async" : "dist_sync", 0,
                            &store),
        "mxrt_kvstore_create");
  int bad;
  if (mode == "async")
    bad = runAsync(store, argc > 2 ? std::atoi(argv[2]) : 300,
                   argc > 3 ? std::atoi(argv[3]) : -1);
  else if (mode == "sync" || mode == "sync-inplace" || mode == "checkpoint" ||
           mode == "resume")
    bad = runSync(store, argc > 2 ? std::atoi(argv[2]) : 5, mode,
                  argc > 3 ? argv[3] : "");
  else if (mode == "allreduce")
    bad = runAllreduce(store, argc > 2 ? std::atoi(argv[2]) : 5);
  else if (mode == "errors")
    bad = runErrors(store);
  else
    bad = runFailure(store, mode);
  int rank = mxrt_kvstore_rank(store);
  mxrt_kvstore_release(store);
  if (rank == 0 && bad == 0)
    std::printf("PASS\n");
  return bad ? 1 : 0;
}
