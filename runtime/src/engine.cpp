// SPDX-License-Identifier: Apache-2.0
//
// The dependency engine behind mxrt/engine.h. Each variable keeps the queue
// of operations waiting for it, in push order; an operation runs once every
// variable it names has granted it access (readers share, a writer is
// alone), so conflicting operations keep their push order and the rest run
// side by side. One mutex guards all of it: operations are coarse (a KVStore
// push, a model call), so the lock is taken a few times per millisecond.

#include "mxrt/engine.h"

#include "internal.h"

#include <algorithm>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <deque>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

/// An operation; its handle is also what an asynchronous body completes.
struct mxrt_engine_done;
using Op = mxrt_engine_done;

namespace {

/// An operation's claim on a variable.
struct Access {
  mxrt_var *var;
  bool write;
};

/// Failure carried by a variable or by the engine: a status and its words.
struct Mark {
  mxrt_status status = MXRT_OK;
  std::string message;
};

} // namespace

struct mxrt_var {
  /// Operations that named this variable and have not been granted it yet.
  std::deque<std::pair<Op *, bool>> queue;
  int64_t runningReaders = 0;
  bool writerRunning = false;
  /// Operations pushed and not finished that name this variable.
  int64_t refs = 0;
  /// Writes pushed / finished: writes to one variable run one at a time in
  /// push order, so wait_for_var waits for `writesDone` to catch up.
  uint64_t writesPushed = 0;
  uint64_t writesDone = 0;
  Mark mark;
  bool deleted = false;
};

struct mxrt_engine_done {
  mxrt_engine_fn fn = nullptr;
  mxrt_engine_async_fn asyncFn = nullptr;
  void *arg = nullptr;
  void (*releaseArg)(void *) = nullptr;
  std::vector<Access> accesses;
  int32_t priority = 0;
  uint64_t sequence = 0;
  std::string name;
  /// Grants still missing (+1 while the push is in progress).
  int64_t waiting = 0;
  /// Set when a variable it reads was marked: it is skipped, and this is
  /// passed on.
  Mark inherited;
  mxrt_engine *engine = nullptr;
};

namespace {

struct ReadyOrder {
  bool operator()(const Op *a, const Op *b) const {
    if (a->priority != b->priority)
      return a->priority < b->priority;
    return a->sequence > b->sequence;
  }
};

} // namespace

struct mxrt_engine {
  std::mutex mutex;
  /// Workers wait here for ready operations.
  std::condition_variable work;
  /// Waiters (wait_for_var, wait_all) wait here for finished operations.
  std::condition_variable finished;
  std::priority_queue<Op *, std::vector<Op *>, ReadyOrder> ready;
  std::vector<std::thread> workers;
  std::unordered_set<mxrt_var *> vars;
  uint64_t nextSequence = 0;
  /// Operations pushed and not finished.
  int64_t pending = 0;
  /// The first failure since the last wait_all.
  Mark firstFailure;
  bool stopping = false;

  // The functions below run with `mutex` held.

  void grant(Op *op) {
    if (--op->waiting == 0) {
      ready.push(op);
      work.notify_one();
    }
  }

  /// Grants `var` to the operations at the front of its queue that may run
  /// now: any number of readers, or one writer.
  void dispatch(mxrt_var *var) {
    while (!var->queue.empty()) {
      auto [op, write] = var->queue.front();
      if (write) {
        if (var->writerRunning || var->runningReaders > 0)
          return;
        var->writerRunning = true;
        var->queue.pop_front();
        grant(op);
        return;
      }
      if (var->writerRunning)
        return;
      ++var->runningReaders;
      var->queue.pop_front();
      grant(op);
    }
  }

  void freeIfDone(mxrt_var *var) {
    if (var->deleted && var->refs == 0) {
      vars.erase(var);
      delete var;
    }
  }

  /// Releases what `op` held and records how it ended.
  void finish(Op *op, const Mark &outcome) {
    for (const Access &access : op->accesses) {
      mxrt_var *var = access.var;
      if (access.write) {
        var->writerRunning = false;
        ++var->writesDone;
        var->mark = outcome;
      } else {
        --var->runningReaders;
      }
      --var->refs;
      dispatch(var);
      freeIfDone(var);
    }
    if (outcome.status != MXRT_OK && firstFailure.status == MXRT_OK)
      firstFailure = outcome;
    --pending;
    finished.notify_all();
  }

  mxrt_status push(Op *op, mxrt_var *const *reads, size_t numReads,
                   mxrt_var *const *writes, size_t numWrites) {
    const char *what = "mxrt_engine_push";
    if ((numReads && !reads) || (numWrites && !writes))
      return mxrt::fail(MXRT_INVALID_ARGUMENT,
                        "%s: a variable list is NULL with a nonzero count",
                        what);
    // One access per variable, a write where it is also read.
    auto add = [&](mxrt_var *var, bool write) {
      for (Access &access : op->accesses)
        if (access.var == var) {
          access.write = access.write || write;
          return;
        }
      op->accesses.push_back({var, write});
    };
    for (size_t i = 0; i < numReads; ++i)
      add(reads[i], false);
    for (size_t i = 0; i < numWrites; ++i)
      add(writes[i], true);
    std::lock_guard<std::mutex> lock(mutex);
    for (const Access &access : op->accesses)
      if (!access.var || !vars.count(access.var) || access.var->deleted)
        return mxrt::fail(MXRT_INVALID_ARGUMENT,
                          "%s: operation '%s' names a variable that is NULL, "
                          "deleted or of another engine",
                          what, op->name.c_str());
    op->engine = this;
    op->sequence = nextSequence++;
    op->waiting = int64_t(op->accesses.size()) + 1;
    ++pending;
    for (const Access &access : op->accesses) {
      mxrt_var *var = access.var;
      ++var->refs;
      if (access.write)
        ++var->writesPushed;
      var->queue.emplace_back(op, access.write);
      dispatch(var);
    }
    grant(op);
    return MXRT_OK;
  }

  void workerLoop() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      work.wait(lock, [&] { return stopping || !ready.empty(); });
      if (ready.empty())
        return;
      Op *op = ready.top();
      ready.pop();
      // All it reads is final now: a mark on any of it skips the operation.
      for (const Access &access : op->accesses)
        if (!access.write && access.var->mark.status != MXRT_OK) {
          op->inherited = access.var->mark;
          break;
        }
      lock.unlock();
      run(op);
      lock.lock();
    }
  }

  void run(Op *op) {
    if (op->inherited.status != MXRT_OK) {
      complete(op, op->inherited);
      return;
    }
    if (op->asyncFn) {
      op->asyncFn(op->arg, op);
      return;
    }
    mxrt::fail(MXRT_OK, "%s", "");
    mxrt_status status = op->fn(op->arg);
    Mark outcome;
    if (status != MXRT_OK) {
      outcome.status = status;
      const char *message = mxrt_last_error();
      outcome.message = *message ? message
                                 : "operation '" + op->name + "' failed with " +
                                       mxrt_status_string(status);
    }
    complete(op, outcome);
  }

  void complete(Op *op, const Mark &outcome) {
    if (op->releaseArg)
      op->releaseArg(op->arg);
    {
      std::lock_guard<std::mutex> lock(mutex);
      finish(op, outcome);
    }
    delete op;
  }
};

namespace {

mxrt_status pushOp(mxrt_engine *engine, mxrt_engine_fn fn,
                   mxrt_engine_async_fn asyncFn, void *arg,
                   void (*releaseArg)(void *), mxrt_var *const *reads,
                   size_t numReads, mxrt_var *const *writes, size_t numWrites,
                   int32_t priority, const char *name) {
  if (!engine || (!fn && !asyncFn))
    return mxrt::fail(MXRT_INVALID_ARGUMENT, "mxrt_engine_push: %s is NULL",
                      engine ? "fn" : "engine");
  auto *op = new Op;
  op->fn = fn;
  op->asyncFn = asyncFn;
  op->arg = arg;
  op->releaseArg = releaseArg;
  op->priority = priority;
  op->name = name ? name : "(unnamed)";
  mxrt_status status = engine->push(op, reads, numReads, writes, numWrites);
  if (status != MXRT_OK)
    delete op;
  return status;
}

} // namespace

mxrt_status mxrt_engine_create(int32_t num_threads, mxrt_engine **out_engine) {
  return mxrt::guarded([&]() -> mxrt_status {
    if (!out_engine)
      return mxrt::fail(MXRT_INVALID_ARGUMENT,
                        "mxrt_engine_create: out_engine is NULL");
    if (num_threads < 0 || num_threads > 4096)
      return mxrt::fail(MXRT_INVALID_ARGUMENT,
                        "mxrt_engine_create: num_threads is %d, expected 0 "
                        "(one per core) to 4096",
                        int(num_threads));
    if (num_threads == 0)
      num_threads = int32_t(std::max(1u, std::thread::hardware_concurrency()));
    auto engine = std::make_unique<mxrt_engine>();
    for (int32_t i = 0; i < num_threads; ++i)
      engine->workers.emplace_back([e = engine.get()] { e->workerLoop(); });
    *out_engine = engine.release();
    return MXRT_OK;
  });
}

void mxrt_engine_release(mxrt_engine *engine) {
  if (!engine)
    return;
  mxrt_engine_wait_all(engine);
  {
    std::lock_guard<std::mutex> lock(engine->mutex);
    engine->stopping = true;
  }
  engine->work.notify_all();
  for (std::thread &worker : engine->workers)
    worker.join();
  for (mxrt_var *var : engine->vars)
    delete var;
  delete engine;
}

int32_t mxrt_engine_num_threads(const mxrt_engine *engine) {
  return engine ? int32_t(engine->workers.size()) : 0;
}

mxrt_status mxrt_engine_new_var(mxrt_engine *engine, mxrt_var **out_var) {
  return mxrt::guarded([&]() -> mxrt_status {
    if (mxrt_status status = mxrt::checkNotNull(
            "mxrt_engine_new_var", {{"engine", engine}, {"out_var", out_var}}))
      return status;
    auto *var = new mxrt_var;
    std::lock_guard<std::mutex> lock(engine->mutex);
    engine->vars.insert(var);
    *out_var = var;
    return MXRT_OK;
  });
}

mxrt_status mxrt_engine_delete_var(mxrt_engine *engine, mxrt_var *var) {
  if (mxrt_status status = mxrt::checkNotNull(
          "mxrt_engine_delete_var", {{"engine", engine}, {"var", var}}))
    return status;
  std::lock_guard<std::mutex> lock(engine->mutex);
  if (!engine->vars.count(var) || var->deleted)
    return mxrt::fail(MXRT_INVALID_ARGUMENT,
                      "mxrt_engine_delete_var: the variable is deleted or of "
                      "another engine");
  var->deleted = true;
  engine->freeIfDone(var);
  return MXRT_OK;
}

mxrt_status mxrt_engine_push(mxrt_engine *engine, mxrt_engine_fn fn, void *arg,
                             void (*release_arg)(void *),
                             mxrt_var *const *reads, size_t num_reads,
                             mxrt_var *const *writes, size_t num_writes,
                             int32_t priority, const char *name) {
  return mxrt::guarded([&] {
    return pushOp(engine, fn, nullptr, arg, release_arg, reads, num_reads,
                  writes, num_writes, priority, name);
  });
}

mxrt_status mxrt_engine_push_async(mxrt_engine *engine, mxrt_engine_async_fn fn,
                                   void *arg, void (*release_arg)(void *),
                                   mxrt_var *const *reads, size_t num_reads,
                                   mxrt_var *const *writes, size_t num_writes,
                                   int32_t priority, const char *name) {
  return mxrt::guarded([&] {
    return pushOp(engine, nullptr, fn, arg, release_arg, reads, num_reads,
                  writes, num_writes, priority, name);
  });
}

void mxrt_engine_complete(mxrt_engine_done *done, mxrt_status status,
                          const char *message) {
  if (!done)
    return;
  Op *op = done;
  Mark outcome;
  outcome.status = status;
  if (status != MXRT_OK)
    outcome.message = message && *message
                          ? message
                          : "operation '" + op->name + "' failed with " +
                                mxrt_status_string(status);
  op->engine->complete(op, outcome);
}

mxrt_status mxrt_engine_wait_for_var(mxrt_engine *engine, mxrt_var *var) {
  if (mxrt_status status = mxrt::checkNotNull(
          "mxrt_engine_wait_for_var", {{"engine", engine}, {"var", var}}))
    return status;
  std::unique_lock<std::mutex> lock(engine->mutex);
  if (!engine->vars.count(var) || var->deleted)
    return mxrt::fail(MXRT_INVALID_ARGUMENT,
                      "mxrt_engine_wait_for_var: the variable is deleted or "
                      "of another engine");
  uint64_t target = var->writesPushed;
  engine->finished.wait(lock, [&] { return var->writesDone >= target; });
  if (var->mark.status != MXRT_OK)
    return mxrt::fail(var->mark.status, "%s", var->mark.message.c_str());
  return MXRT_OK;
}

mxrt_status mxrt_engine_wait_to_write(mxrt_engine *engine,
                                      mxrt_var *const *vars, size_t count) {
  if (mxrt_status status =
          mxrt::checkNotNull("mxrt_engine_wait_to_write", {{"engine", engine}}))
    return status;
  if (count > 0 && !vars)
    return mxrt::fail(MXRT_INVALID_ARGUMENT,
                      "mxrt_engine_wait_to_write: vars is NULL");
  // The writes first, and their marks (a barrier written after a failed
  // write would clear its mark).
  for (size_t i = 0; i < count; ++i)
    if (mxrt_status status = mxrt_engine_wait_for_var(engine, vars[i]))
      return status;
  std::vector<mxrt_var *> busy;
  {
    std::lock_guard<std::mutex> lock(engine->mutex);
    for (size_t i = 0; i < count; ++i)
      if (vars[i]->refs > 0)
        busy.push_back(vars[i]);
  }
  // Then the readers still running or queued, behind one no-op that writes
  // every variable that has any; idle variables (the common case: nothing
  // pending on an array handed to a kernel) need no engine thread at all.
  if (busy.empty())
    return MXRT_OK;
  if (mxrt_status pushed = mxrt_engine_push(
          engine, [](void *) { return MXRT_OK; }, nullptr, nullptr, nullptr, 0,
          busy.data(), busy.size(), 0, "wait_to_write"))
    return pushed;
  for (mxrt_var *var : busy)
    if (mxrt_status status = mxrt_engine_wait_for_var(engine, var))
      return status;
  return MXRT_OK;
}

mxrt_status mxrt_engine_wait_all(mxrt_engine *engine) {
  if (!engine)
    return mxrt::fail(MXRT_INVALID_ARGUMENT,
                      "mxrt_engine_wait_all: engine is NULL");
  std::unique_lock<std::mutex> lock(engine->mutex);
  engine->finished.wait(lock, [&] { return engine->pending == 0; });
  Mark failure = std::move(engine->firstFailure);
  engine->firstFailure = Mark();
  if (failure.status != MXRT_OK)
    return mxrt::fail(failure.status, "%s", failure.message.c_str());
  return MXRT_OK;
}

mxrt_status mxrt_set_error(mxrt_status status, const char *format, ...) {
  if (!format)
    return mxrt::fail(status, "%s", "");
  char buffer[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  return mxrt::fail(status, "%s", buffer);
}
