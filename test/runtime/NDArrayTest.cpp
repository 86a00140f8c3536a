// SPDX-License-Identifier: Apache-2.0
//
// mx::NDArray on libmxrt's dependency engine (mxc/ndarray.h): operations
// return at once and run on the engine's threads; those on different arrays
// run at the same time, those on one array in the order they were made
// (read after write, write after read, write after write); reading values
// waits; a failed operation's error reaches its outputs, what reads them,
// and WaitAll; a buffer outlives its last array while operations on it are
// pending. Links libmxrt alone.

#include "mxc/ndarray.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace {

using mx::NDArray;
using namespace std::chrono_literals;

/// Spins until `flag` is set or `limit` passes; whether it was set. (A
/// deadlock detector, not a timing assertion: the limit is seconds.)
bool waitFor(const std::atomic<bool> &flag, std::chrono::seconds limit = 20s) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (!flag.load()) {
    if (std::chrono::steady_clock::now() > end)
      return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const mx::Error &e) {
    return e.what();
  }
  return "";
}

TEST(NDArrayEngineTest, OperationsReturnBeforeTheyRun) {
  NDArray a = NDArray::Zeros({4});
  std::atomic<bool> release{false}, ran{false};
  NDArray::Push("gate",
                [&] {
                  waitFor(release);
                  ran = true;
                },
                {}, {a});
  a += 1.0f; // queued behind the gate
  EXPECT_FALSE(ran.load()) << "Push waited for its operation";
  release = true;
  EXPECT_EQ(a.ToVector(), std::vector<float>(4, 1.0f));
  EXPECT_TRUE(ran.load());
}

TEST(NDArrayEngineTest, IndependentOperationsRunConcurrently) {
  // Each operation waits for the other to start: only an engine that runs
  // them at the same time finishes both.
  NDArray a = NDArray::Zeros({8}), b = NDArray::Zeros({8});
  std::atomic<bool> aStarted{false}, bStarted{false};
  std::atomic<bool> aSaw{false}, bSaw{false};
  NDArray::Push("a",
                [&] {
                  aStarted = true;
                  aSaw = waitFor(bStarted);
                },
                {}, {a});
  NDArray::Push("b",
                [&] {
                  bStarted = true;
                  bSaw = waitFor(aStarted);
                },
                {}, {b});
  NDArray::WaitAll();
  EXPECT_TRUE(aSaw.load() && bSaw.load())
      << "operations on different arrays did not overlap";
}

TEST(NDArrayEngineTest, OperationsOnOneArrayKeepTheirOrder) {
  NDArray w = NDArray::Zeros({1000}), g = NDArray::Full({1000}, 0.5f);
  // Write after write, with a slow first writer: a later, quick update
  // must not run before it.
  NDArray::Push("slow fill",
                [p = w.GetData()] {
                  std::this_thread::sleep_for(50ms);
                  std::fill_n(p, 1000, 3.0f);
                },
                {}, {w});
  // Read after write: each update reads what the one before wrote.
  for (int i = 0; i < 100; ++i)
    w -= 0.1f * g; // 3 - 100 * 0.05 = -2
  // Write after read: a slow reader sees w before the write made after it.
  float seen = 0;
  NDArray::Push("slow read",
                [&seen, p = w.GetData()] {
                  std::this_thread::sleep_for(50ms);
                  seen = p[999];
                },
                {w}, {});
  w *= 0.0f;
  NDArray::WaitAll();
  EXPECT_NEAR(seen, -2.0f, 1e-4);
  EXPECT_EQ(w.ToVector(), std::vector<float>(1000, 0.0f));
}

TEST(NDArrayEngineTest, WritersOfOneArrayNeverOverlap) {
  NDArray a = NDArray::Zeros({1});
  std::atomic<int> active{0}, most{0};
  for (int i = 0; i < 20; ++i)
    NDArray::Push("writer",
                  [&] {
                    int now = ++active;
                    most = std::max(most.load(), now);
                    std::this_thread::sleep_for(1ms);
                    --active;
                  },
                  {}, {a});
  a.WaitToRead();
  EXPECT_EQ(most.load(), 1);
}

TEST(NDArrayEngineTest, DataWaitsForPendingWritesAndReads) {
  NDArray a = NDArray::Zeros({16}), b = NDArray::Ones({16});
  NDArray::Push("slow fill",
                [p = a.GetData()] {
                  std::this_thread::sleep_for(30ms);
                  std::fill_n(p, 16, 7.0f);
                },
                {}, {a});
  EXPECT_EQ(static_cast<const NDArray &>(a).data()[15], 7.0f);
  // A pending reader of b finishes before data() hands b out for writing.
  std::atomic<float> seen{0};
  NDArray::Push("slow read",
                [&seen, p = b.GetData()] {
                  std::this_thread::sleep_for(30ms);
                  seen = p[0];
                },
                {b}, {});
  b.data()[0] = 5.0f;
  EXPECT_EQ(seen.load(), 1.0f);
}

TEST(NDArrayEngineTest, ErrorsReachReadersAndWaitAll) {
  NDArray a = NDArray::Zeros({4}), b = NDArray::Zeros({4});
  NDArray::Push("broken op",
                [] { throw std::runtime_error("the op's own reason"); }, {},
                {a});
  b += a; // reads the failed array: skipped, fails b too
  std::string onA = errorOf([&] { a.WaitToRead(); });
  EXPECT_NE(onA.find("the op's own reason"), std::string::npos) << onA;
  std::string onB = errorOf([&] { b.WaitToRead(); });
  EXPECT_NE(onB.find("the op's own reason"), std::string::npos) << onB;
  EXPECT_NE(errorOf([] { NDArray::WaitAll(); }), "");
  // WaitAll reported it; an array written anew is good again.
  EXPECT_EQ(errorOf([] { NDArray::WaitAll(); }), "");
  a.CopyFrom(NDArray::Full({4}, 2.0f));
  EXPECT_EQ(a.ToVector(), std::vector<float>(4, 2.0f));
}

TEST(NDArrayEngineTest, BuffersOutliveTheirArraysWhileOperationsPend) {
  std::atomic<bool> release{false};
  std::vector<float> result;
  NDArray out = NDArray::Zeros({256});
  {
    NDArray in = NDArray::Full({256}, 4.0f);
    NDArray::Push("gate", [&] { waitFor(release); }, {}, {in});
    out.CopyFrom(in);
  } // `in` is gone; its buffer must stay until the copy ran
  release = true;
  EXPECT_EQ(out.ToVector(), std::vector<float>(256, 4.0f));
}

TEST(NDArrayEngineTest, ArithmeticMatchesScalarLoops) {
  NDArray a({2, 3}, {1, 2, 3, 4, 5, 6}), b({2, 3}, {6, 5, 4, 3, 2, 1});
  EXPECT_EQ((a + b).ToVector(), std::vector<float>(6, 7.0f));
  EXPECT_EQ((a * b).ToVector(), (std::vector<float>{6, 10, 12, 12, 10, 6}));
  NDArray c = a.Copy();
  c -= 2.0f * b;
  EXPECT_EQ(c.ToVector(), (std::vector<float>{-11, -8, -5, -2, 1, 4}));
  EXPECT_EQ(a.ToVector(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  std::string shapes = errorOf([&] { a += NDArray::Zeros({3, 2}); });
  EXPECT_NE(shapes.find("shapes (2, 3) and (3, 2) differ"), std::string::npos)
      << shapes;
}

} // namespace
