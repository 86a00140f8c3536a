// SPDX-License-Identifier: Apache-2.0
//
// The dependency engine: independent operations run at the same time,
// conflicting ones in push order, failures reach the waiters and skip what
// depends on them. Each ordering test fails if the engine ignored the
// variables (the later operation would see the earlier one's work undone).

#include "mxrt/engine.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;

/// `n` parties meet or time out: true when all arrived within `timeout`.
class Rendezvous {
public:
  explicit Rendezvous(int n) : remaining(n) {}
  bool arriveAndWait(std::chrono::milliseconds timeout = 5000ms) {
    std::unique_lock<std::mutex> lock(mutex);
    if (--remaining == 0)
      met.notify_all();
    return met.wait_for(lock, timeout, [&] { return remaining <= 0; });
  }

private:
  std::mutex mutex;
  std::condition_variable met;
  int remaining;
};

TEST(EngineTest, RunsIndependentOperationsConcurrently) {
  mxrt::Engine engine(2);
  mxrt_var *a = engine.newVar(), *b = engine.newVar();
  // Each waits for the other to have started: serial execution times out.
  Rendezvous both(2);
  std::atomic<int> met{0};
  for (mxrt_var *v : {a, b})
    engine.push(
        [&] {
          met += both.arriveAndWait();
          return MXRT_OK;
        },
        {}, {v});
  engine.waitAll();
  EXPECT_EQ(met.load(), 2);
}

TEST(EngineTest, ReadersOfOneVariableShareIt) {
  mxrt::Engine engine(2);
  mxrt_var *v = engine.newVar();
  Rendezvous both(2);
  std::atomic<int> met{0};
  for (int i = 0; i < 2; ++i)
    engine.push(
        [&] {
          met += both.arriveAndWait();
          return MXRT_OK;
        },
        {v}, {});
  engine.waitAll();
  EXPECT_EQ(met.load(), 2);
}

TEST(EngineTest, KeepsReadAfterWriteOrder) {
  mxrt::Engine engine(4);
  mxrt_var *v = engine.newVar();
  int value = 0;
  std::vector<int> seen;
  std::mutex seenMutex;
  for (int round = 1; round <= 20; ++round) {
    // A slow write, then a read that must see it.
    engine.push(
        [&value, round] {
          std::this_thread::sleep_for(1ms);
          value = round;
          return MXRT_OK;
        },
        {}, {v});
    engine.push(
        [&] {
          std::lock_guard<std::mutex> lock(seenMutex);
          seen.push_back(value);
          return MXRT_OK;
        },
        {v}, {});
  }
  engine.waitAll();
  ASSERT_EQ(seen.size(), 20u);
  for (int round = 1; round <= 20; ++round)
    EXPECT_EQ(seen[round - 1], round);
}

TEST(EngineTest, KeepsWriteAfterReadAndWriteAfterWriteOrder) {
  mxrt::Engine engine(4);
  mxrt_var *v = engine.newVar();
  int value = 1;
  int readByFirst = -1;
  // A slow reader, then a writer that must not overtake it.
  engine.push(
      [&] {
        std::this_thread::sleep_for(20ms);
        readByFirst = value;
        return MXRT_OK;
      },
      {v}, {});
  engine.push(
      [&] {
        value = 2;
        return MXRT_OK;
      },
      {}, {v});
  // Writers in a chain: a non-atomic read-modify-write each.
  std::vector<int> order;
  for (int i = 0; i < 50; ++i)
    engine.push(
        [&order, i] {
          order.push_back(i);
          return MXRT_OK;
        },
        {}, {v});
  engine.waitForVar(v);
  EXPECT_EQ(readByFirst, 1);
  EXPECT_EQ(value, 2);
  ASSERT_EQ(order.size(), 50u);
  for (int i = 0; i < 50; ++i)
    EXPECT_EQ(order[i], i);
}

TEST(EngineTest, WaitForVarWaitsOnlyForItsWriters) {
  mxrt::Engine engine(2);
  mxrt_var *slow = engine.newVar(), *fast = engine.newVar();
  std::atomic<bool> release{false}, fastDone{false};
  engine.push(
      [&] {
        while (!release)
          std::this_thread::sleep_for(1ms);
        return MXRT_OK;
      },
      {}, {slow});
  engine.push(
      [&] {
        fastDone = true;
        return MXRT_OK;
      },
      {}, {fast});
  engine.waitForVar(fast);
  EXPECT_TRUE(fastDone);
  release = true;
  engine.waitAll();
}

// wait_to_write: a running reader holds it (wait_for_var does not wait
// for readers); an idle variable returns at once; a failed write's mark
// comes back rather than being cleared by the barrier.
TEST(EngineTest, WaitToWriteWaitsForReadersToo) {
  mxrt::Engine engine(2);
  mxrt_var *v = engine.newVar(), *idle = engine.newVar(),
           *out = engine.newVar();
  std::atomic<bool> release{false}, readerDone{false};
  engine.push(
      [&] {
        while (!release)
          std::this_thread::sleep_for(1ms);
        readerDone = true;
        return MXRT_OK;
      },
      {v}, {out});
  engine.waitForVar(v); // no writer pending: returns with the reader running
  EXPECT_FALSE(readerDone);
  std::thread releaser([&] {
    std::this_thread::sleep_for(20ms);
    release = true;
  });
  mxrt_var *both[] = {v, idle};
  EXPECT_EQ(mxrt_engine_wait_to_write(engine.get(), both, 2), MXRT_OK);
  EXPECT_TRUE(readerDone);
  releaser.join();
  EXPECT_EQ(mxrt_engine_wait_to_write(engine.get(), &idle, 1), MXRT_OK);
  engine.push([] { return mxrt_set_error(MXRT_IO_ERROR, "bad write"); }, {},
              {v});
  engine.push([] { return MXRT_OK; }, {v}, {out}); // a reader, skipped
  EXPECT_EQ(mxrt_engine_wait_to_write(engine.get(), &v, 1), MXRT_IO_ERROR);
  EXPECT_STREQ(mxrt_last_error(), "bad write");
  EXPECT_EQ(mxrt_engine_wait_to_write(engine.get(), nullptr, 1),
            MXRT_INVALID_ARGUMENT);
  EXPECT_EQ(mxrt_engine_wait_to_write(nullptr, &v, 1), MXRT_INVALID_ARGUMENT);
  mxrt_engine_wait_all(engine.get());
}

TEST(EngineTest, FailuresReachWaitersAndSkipDependents) {
  mxrt::Engine engine(2);
  mxrt_var *a = engine.newVar(), *b = engine.newVar();
  bool dependentRan = false;
  engine.push([] { return mxrt_set_error(MXRT_IO_ERROR, "disk on fire"); }, {},
              {a}, 0, "write-a");
  engine.push(
      [&] {
        dependentRan = true;
        return MXRT_OK;
      },
      {a}, {b}, 0, "a-to-b");
  EXPECT_EQ(mxrt_engine_wait_for_var(engine.get(), b), MXRT_IO_ERROR);
  EXPECT_STREQ(mxrt_last_error(), "disk on fire");
  EXPECT_FALSE(dependentRan);
  EXPECT_EQ(mxrt_engine_wait_all(engine.get()), MXRT_IO_ERROR);
  // Reported once, then forgotten.
  EXPECT_EQ(mxrt_engine_wait_all(engine.get()), MXRT_OK);
  // A write that succeeds replaces the failed value.
  engine.push([] { return MXRT_OK; }, {}, {a});
  EXPECT_EQ(mxrt_engine_wait_for_var(engine.get(), a), MXRT_OK);
  // A failure without words is named by its operation.
  engine.push([] { return MXRT_INTERNAL; }, {}, {a}, 0, "silent");
  EXPECT_EQ(mxrt_engine_wait_for_var(engine.get(), a), MXRT_INTERNAL);
  EXPECT_NE(std::string(mxrt_last_error()).find("'silent'"), std::string::npos)
      << mxrt_last_error();
  // An exception in a C++ body is a failure, not an abort.
  engine.push([]() -> mxrt_status { throw std::runtime_error("thrown"); }, {},
              {b});
  EXPECT_THROW(engine.waitForVar(b), mxrt::Error);
  EXPECT_EQ(mxrt_engine_wait_all(engine.get()), MXRT_INTERNAL);
}

TEST(EngineTest, AsyncOperationsHoldTheirVariablesUntilComplete) {
  mxrt::Engine engine(1);
  mxrt_var *v = engine.newVar();
  struct Job {
    std::thread finisher;
    std::atomic<bool> finished{false};
  } job;
  auto start = [](void *arg, mxrt_engine_done *done) {
    auto *job = static_cast<Job *>(arg);
    job->finisher = std::thread([job, done] {
      std::this_thread::sleep_for(20ms);
      job->finished = true;
      mxrt_engine_complete(done, MXRT_OK, nullptr);
    });
  };
  mxrt_var *writes[] = {v};
  ASSERT_EQ(mxrt_engine_push_async(engine.get(), start, &job, nullptr, nullptr,
                                   0, writes, 1, 0, "async"),
            MXRT_OK);
  // The engine's one thread is free while the async work runs...
  mxrt_var *other = engine.newVar();
  bool otherRan = false;
  engine.push(
      [&] {
        otherRan = !job.finished;
        return MXRT_OK;
      },
      {}, {other});
  engine.waitForVar(other);
  EXPECT_TRUE(otherRan);
  // ... and a reader of v waits for its completion.
  bool sawFinished = false;
  engine.push(
      [&] {
        sawFinished = job.finished;
        return MXRT_OK;
      },
      {v}, {});
  engine.waitAll();
  EXPECT_TRUE(sawFinished);
  job.finisher.join();
}

TEST(EngineTest, HigherPriorityRunsFirstAmongReadyOperations) {
  mxrt::Engine engine(1);
  mxrt_var *gate = engine.newVar();
  std::atomic<bool> open{false};
  engine.push(
      [&] {
        while (!open)
          std::this_thread::sleep_for(1ms);
        return MXRT_OK;
      },
      {}, {gate});
  std::vector<int> order;
  for (int priority : {0, 5, 1})
    engine.push(
        [&order, priority] {
          order.push_back(priority);
          return MXRT_OK;
        },
        {}, {engine.newVar()}, priority);
  open = true;
  engine.waitAll();
  EXPECT_EQ(order, (std::vector<int>{5, 1, 0}));
}

TEST(EngineTest, DeletedVariablesWaitForTheirOperations) {
  mxrt::Engine engine(2);
  mxrt_var *v = engine.newVar();
  std::atomic<int> ran{0};
  for (int i = 0; i < 10; ++i)
    engine.push(
        [&] {
          std::this_thread::sleep_for(1ms);
          ++ran;
          return MXRT_OK;
        },
        {}, {v});
  engine.deleteVar(v);
  engine.waitAll();
  EXPECT_EQ(ran.load(), 10);
}

TEST(EngineTest, RejectsBadArguments) {
  mxrt_engine *engine = nullptr;
  EXPECT_EQ(mxrt_engine_create(-1, &engine), MXRT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mxrt_last_error()).find("num_threads"),
            std::string::npos);
  ASSERT_EQ(mxrt_engine_create(1, &engine), MXRT_OK);
  EXPECT_EQ(mxrt_engine_num_threads(engine), 1);
  auto noop = [](void *) { return MXRT_OK; };
  EXPECT_EQ(mxrt_engine_push(engine, nullptr, nullptr, nullptr, nullptr, 0,
                             nullptr, 0, 0, nullptr),
            MXRT_INVALID_ARGUMENT);
  mxrt_var *missing[] = {nullptr};
  EXPECT_EQ(mxrt_engine_push(engine, noop, nullptr, nullptr, missing, 1,
                             nullptr, 0, 0, "bad"),
            MXRT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mxrt_last_error()).find("'bad'"), std::string::npos);
  mxrt_var *v;
  ASSERT_EQ(mxrt_engine_new_var(engine, &v), MXRT_OK);
  ASSERT_EQ(mxrt_engine_delete_var(engine, v), MXRT_OK);
  EXPECT_EQ(mxrt_engine_wait_all(nullptr), MXRT_INVALID_ARGUMENT);
  mxrt_engine_release(engine);
  mxrt_engine_release(nullptr);
}

} // namespace
