// SPDX-License-Identifier: Apache-2.0
//
// The thread pool behind mxrt_instance_options.num_threads. Each instance
// with more than one thread owns a pool of num_threads - 1 workers; the
// calling thread is the last member, so a pool of T threads never runs more
// than T threads at once and an app that calls instances from its own
// threads controls the total through num_threads. Kernels find the pool of
// the call they run in through ThreadPool::current(). Not installed.

#ifndef MXRT_SRC_THREADPOOL_H
#define MXRT_SRC_THREADPOOL_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace mxrt {

class ThreadPool {
public:
  /// A task body: runs task `index` of a parallelFor with `arg`.
  using TaskFn = void (*)(void *arg, int64_t index);

  /// A pool of `numThreads` threads, the caller included.
  explicit ThreadPool(int32_t numThreads);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  int32_t size() const { return static_cast<int32_t>(workers.size()) + 1; }

  /// Runs fn(arg, i) for every i in [0, numTasks) on the pool's threads and
  /// the caller, and returns when all have finished. Thread j (the caller
  /// 0, workers 1..) runs the contiguous block of tasks from
  /// j * numTasks / size() on, so that a kernel's piece j lands on the same
  /// thread call after call and finds what that thread wrote last in its
  /// own cache (a piece that moves pulls its part of the tensors across
  /// cores: 0.2-0.5 us a cache line on this project's VM when its vCPUs sit
  /// far apart). A worker that has not begun its block some microseconds
  /// after the caller finished its own gets it run by the caller, so a
  /// worker the OS has descheduled does not hold the call up. Not reentrant:
  /// one parallelFor per pool at a time (an instance runs one call at a time).
  void parallelFor(int64_t numTasks, TaskFn fn, void *arg);

  /// The pool of the instance call running on this thread, or NULL when the
  /// call is single-threaded (kernels then run serially).
  static ThreadPool *current();

  /// Makes `pool` current on this thread for the lifetime of the scope.
  class Scope {
  public:
    explicit Scope(ThreadPool *pool);
    ~Scope();

  private:
    ThreadPool *previous;
  };

private:
  /// Who runs a worker's block: the generation of the last job whose block
  /// was claimed, by the worker or the caller, whichever swapped it first.
  /// A cache line each; only the worker touches it unless the caller steps
  /// in, so claiming costs the worker no transfer between cores.
  struct alignas(64) Block {
    std::atomic<uint64_t> claimed{0};
  };

  void workerLoop(int32_t self);
  /// Runs block `self` of job `job` if no one has claimed it.
  void runBlock(int32_t self, uint64_t job);

  std::vector<std::thread> workers;
  std::mutex mutex;
  std::condition_variable wake;
  /// Bumped for every parallelFor; workers wait for a new value.
  std::atomic<uint64_t> generation{0};
  std::atomic<bool> stopping{false};
  // The job being run.
  TaskFn taskFn = nullptr;
  void *taskArg = nullptr;
  int64_t numTasks = 0;
  std::vector<Block> blocks;
  /// Workers still inside the current job.
  std::atomic<int32_t> busyWorkers{0};
};

} // namespace mxrt

#endif // MXRT_SRC_THREADPOOL_H
