// SPDX-License-Identifier: Apache-2.0
//
// A thin C++ face on mxrt/engine.h: operations as callables, variables and
// the engine as move-only owners. Header-only; it adds no symbols to
// libmxrt, so the C API stays its only interface.

#ifndef MXRT_ENGINE_HPP
#define MXRT_ENGINE_HPP

#include "mxrt/engine.h"

#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mxrt {

/// The failure of an mxrt call, with mxrt_last_error's words.
class Error : public std::runtime_error {
public:
  Error(mxrt_status status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  mxrt_status status() const { return status_; }

private:
  mxrt_status status_;
};

/// Throws Error for a failed status.
inline void check(mxrt_status status) {
  if (status != MXRT_OK)
    throw Error(status, mxrt_last_error());
}

class Engine {
public:
  /// A body returns MXRT_OK or a failure (mxrt_set_error gives it words).
  using Fn = std::function<mxrt_status()>;

  explicit Engine(int32_t numThreads = 0) {
    check(mxrt_engine_create(numThreads, &engine_));
  }
  ~Engine() { mxrt_engine_release(engine_); }
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;

  mxrt_engine *get() const { return engine_; }
  int32_t numThreads() const { return mxrt_engine_num_threads(engine_); }

  mxrt_var *newVar() {
    mxrt_var *var;
    check(mxrt_engine_new_var(engine_, &var));
    return var;
  }
  void deleteVar(mxrt_var *var) { check(mxrt_engine_delete_var(engine_, var)); }

  /// Runs `fn` once what it reads and writes is free (see mxrt_engine_push).
  void push(Fn fn, std::initializer_list<mxrt_var *> reads,
            std::initializer_list<mxrt_var *> writes, int32_t priority = 0,
            const char *name = nullptr) {
    std::vector<mxrt_var *> r(reads), w(writes);
    push(std::move(fn), r, w, priority, name);
  }
  void push(Fn fn, const std::vector<mxrt_var *> &reads,
            const std::vector<mxrt_var *> &writes, int32_t priority = 0,
            const char *name = nullptr) {
    auto *body = new Fn(std::move(fn));
    mxrt_status status = mxrt_engine_push(
        engine_, &Engine::call, body, &Engine::release, reads.data(),
        reads.size(), writes.data(), writes.size(), priority, name);
    if (status != MXRT_OK) {
      delete body;
      check(status);
    }
  }

  /// Throws the variable's failure, if it has one.
  void waitForVar(mxrt_var *var) {
    check(mxrt_engine_wait_for_var(engine_, var));
  }
  void waitAll() { check(mxrt_engine_wait_all(engine_)); }

private:
  static mxrt_status call(void *arg) {
    try {
      return (*static_cast<Fn *>(arg))();
    } catch (const std::exception &e) {
      return mxrt_set_error(MXRT_INTERNAL, "%s", e.what());
    } catch (...) {
      return mxrt_set_error(MXRT_INTERNAL, "an engine operation threw");
    }
  }
  static void release(void *arg) { delete static_cast<Fn *>(arg); }

  mxrt_engine *engine_ = nullptr;
};

} // namespace mxrt

#endif // MXRT_ENGINE_HPP
