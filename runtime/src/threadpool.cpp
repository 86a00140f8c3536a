// SPDX-License-Identifier: Apache-2.0
#include "threadpool.h"

#include "mxrt/kernels.h"

#include <algorithm>
#include <chrono>

namespace mxrt {
namespace {
thread_local ThreadPool *currentPool = nullptr;

/// How long an idle worker polls for the next job before it sleeps: long
/// enough to cover the gap between two kernels of one model call, short
/// enough not to hold a core the app wants once the call has returned.
constexpr std::chrono::microseconds kSpinTime{200};

/// How long the caller of parallelFor waits for a worker to begin its
/// block before it runs the block itself: a spinning worker begins within
/// a microsecond; one the OS has put to sleep or descheduled takes tens.
constexpr std::chrono::microseconds kStealAfter{20};

/// One step of a busy wait: a hint to the core, not a system call
/// (sched_yield costs microseconds in a virtual machine, as much as the
/// small kernels the pool runs).
inline void spinPause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}
} // namespace

ThreadPool::ThreadPool(int32_t numThreads)
    : blocks(static_cast<size_t>(std::max(numThreads, 1))) {
  for (int32_t i = 1; i < numThreads; ++i)
    workers.emplace_back([this, i] { workerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping.store(true, std::memory_order_release);
    generation.fetch_add(1, std::memory_order_release);
  }
  wake.notify_all();
  for (std::thread &worker : workers)
    worker.join();
}

void ThreadPool::runBlock(int32_t self, uint64_t job) {
  std::atomic<uint64_t> &claimed = blocks[self].claimed;
  if (claimed.load(std::memory_order_acquire) == job ||
      claimed.exchange(job, std::memory_order_acq_rel) == job)
    return;
  int64_t threads = size();
  for (int64_t i = self * numTasks / threads,
               end = (self + 1) * numTasks / threads;
       i < end; ++i)
    taskFn(taskArg, i);
}

void ThreadPool::workerLoop(int32_t self) {
  uint64_t seen = 0;
  while (true) {
    // Poll for a while, then sleep until the next job or the end.
    auto deadline = std::chrono::steady_clock::now() + kSpinTime;
    for (int polls = 1; generation.load(std::memory_order_acquire) == seen;
         ++polls) {
      spinPause();
      if (polls % 64 == 0 && std::chrono::steady_clock::now() >= deadline)
        break;
    }
    if (generation.load(std::memory_order_acquire) == seen) {
      std::unique_lock<std::mutex> lock(mutex);
      wake.wait(lock, [&] {
        return generation.load(std::memory_order_acquire) != seen;
      });
    }
    seen = generation.load(std::memory_order_acquire);
    if (stopping.load(std::memory_order_acquire))
      return;
    runBlock(self, seen);
    busyWorkers.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void ThreadPool::parallelFor(int64_t count, TaskFn fn, void *arg) {
  if (workers.empty() || count <= 1) {
    for (int64_t i = 0; i < count; ++i)
      fn(arg, i);
    return;
  }
  uint64_t job;
  {
    std::lock_guard<std::mutex> lock(mutex);
    taskFn = fn;
    taskArg = arg;
    numTasks = count;
    busyWorkers.store(static_cast<int32_t>(workers.size()),
                      std::memory_order_relaxed);
    job = generation.fetch_add(1, std::memory_order_release) + 1;
  }
  wake.notify_all();
  runBlock(0, job);
  // Then wait; a worker that has not begun its block by kStealAfter gets it
  // run here. Not sooner: reading a worker's claim makes the worker's next
  // claim a transfer between cores.
  auto deadline = std::chrono::steady_clock::now() + kStealAfter;
  bool stolen = false;
  for (int polls = 1; busyWorkers.load(std::memory_order_acquire) != 0;
       ++polls) {
    spinPause();
    if (!stolen && polls % 64 == 0 &&
        std::chrono::steady_clock::now() >= deadline) {
      for (int32_t j = 1; j < size(); ++j)
        runBlock(j, job);
      stolen = true;
    }
  }
}

ThreadPool *ThreadPool::current() { return currentPool; }

ThreadPool::Scope::Scope(ThreadPool *pool) : previous(currentPool) {
  currentPool = pool;
}

ThreadPool::Scope::~Scope() { currentPool = previous; }

} // namespace mxrt

namespace {
struct LoopChunks {
  mxrt_loop_body body;
  void *ctx;
  int64_t n, chunks;
};
} // namespace

extern "C" void mxrt_parallel_for(mxrt_loop_body body, void *ctx, int64_t n) {
  if (n <= 0)
    return;
  mxrt::ThreadPool *pool = mxrt::ThreadPool::current();
  int64_t chunks = pool ? std::min<int64_t>(pool->size(), n) : 1;
  if (chunks <= 1) {
    body(ctx, 0, n);
    return;
  }
  LoopChunks loop{body, ctx, n, chunks};
  pool->parallelFor(
      chunks,
      [](void *arg, int64_t i) {
        const LoopChunks &l = *static_cast<const LoopChunks *>(arg);
        // Chunk i: [i * n / chunks, (i + 1) * n / chunks), sizes within one.
        l.body(l.ctx, i * l.n / l.chunks, (i + 1) * l.n / l.chunks);
      },
      &loop);
}
