// SPDX-License-Identifier: Apache-2.0
//
// A thin C++ face on mxrt/kvstore.h: the store as a move-only owner, calls
// that throw mxrt::Error, updaters as callables. Header-only; it adds no
// symbols to libmxrt_kvstore, so the C API stays its only interface.

#ifndef MXRT_KVSTORE_HPP
#define MXRT_KVSTORE_HPP

#include "mxrt/engine.hpp"
#include "mxrt/kvstore.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mxrt {

class KVStore {
public:
  /// Updates `stored` in place from the merged `gradient` of `key`; a
  /// throw becomes the push's failure.
  using Updater = std::function<void(int32_t key, const mxrt_tensor *gradient,
                                     mxrt_tensor *stored)>;

  explicit KVStore(const std::string &type, int32_t numThreads = 0) {
    check(mxrt_kvstore_create(type.c_str(), numThreads, &store_));
  }
  ~KVStore() { mxrt_kvstore_release(store_); }
  KVStore(KVStore &&other) noexcept
      : store_(std::exchange(other.store_, nullptr)),
        updater_(std::move(other.updater_)) {}
  KVStore &operator=(KVStore &&other) noexcept {
    std::swap(store_, other.store_);
    std::swap(updater_, other.updater_);
    return *this;
  }
  KVStore(const KVStore &) = delete;
  KVStore &operator=(const KVStore &) = delete;

  mxrt_kvstore *get() const { return store_; }
  std::string type() const { return mxrt_kvstore_type(store_); }
  int32_t rank() const { return mxrt_kvstore_rank(store_); }
  int32_t numWorkers() const { return mxrt_kvstore_num_workers(store_); }
  int32_t numHosts() const { return mxrt_kvstore_num_hosts(store_); }

  void init(int32_t key, const mxrt_tensor *value) {
    check(mxrt_kvstore_init(store_, key, value));
  }
  /// One tensor per device context; summed.
  void push(int32_t key, const std::vector<mxrt_tensor *> &values,
            int32_t priority = 0) {
    check(
        mxrt_kvstore_push(store_, key, values.data(), values.size(), priority));
  }
  void pull(int32_t key, const std::vector<mxrt_tensor *> &outs,
            int32_t priority = 0) {
    check(mxrt_kvstore_pull(store_, key, outs.data(), outs.size(), priority));
  }
  void pushPull(int32_t key, const std::vector<mxrt_tensor *> &values,
                const std::vector<mxrt_tensor *> &outs, int32_t priority = 0) {
    check(mxrt_kvstore_pushpull(store_, key, values.data(), values.size(),
                                outs.data(), outs.size(), priority));
  }
  /// The list forms: one tensor a key (see mxrt_kvstore_push_list).
  void push(const std::vector<int32_t> &keys,
            const std::vector<mxrt_tensor *> &values, int32_t priority = 0) {
    sameSize(keys, values);
    check(mxrt_kvstore_push_list(store_, keys.size(), keys.data(),
                                 values.data(), 1, priority));
  }
  void pull(const std::vector<int32_t> &keys,
            const std::vector<mxrt_tensor *> &outs, int32_t priority = 0) {
    sameSize(keys, outs);
    check(mxrt_kvstore_pull_list(store_, keys.size(), keys.data(), outs.data(),
                                 1, priority));
  }
  void pushPull(const std::vector<int32_t> &keys,
                const std::vector<mxrt_tensor *> &values,
                const std::vector<mxrt_tensor *> &outs, int32_t priority = 0) {
    sameSize(keys, values);
    sameSize(keys, outs);
    check(mxrt_kvstore_pushpull_list(store_, keys.size(), keys.data(),
                                     values.data(), outs.data(), 1, priority));
  }

  /// A built-in rule (sgd, momentum, adam, rmsprop); defaults without
  /// options.
  void setOptimizer(const std::string &name,
                    const mxrt_optimizer_options *options = nullptr) {
    check(mxrt_kvstore_set_optimizer(store_, name.c_str(), options));
  }
  void setUpdater(Updater updater) {
    auto owned = std::make_unique<Updater>(std::move(updater));
    check(mxrt_kvstore_set_updater(store_, &KVStore::callUpdater, owned.get()));
    updater_ = std::move(owned);
  }
  void setStaleness(int32_t maxSteps) {
    check(mxrt_kvstore_set_staleness(store_, maxSteps));
  }
  void setKeepValues(bool keep) {
    check(mxrt_kvstore_set_keep_values(store_, keep ? 1 : 0));
  }

  mxrt_var *tensorVar(const mxrt_tensor *tensor) {
    mxrt_var *var;
    check(mxrt_kvstore_tensor_var(store_, tensor, &var));
    return var;
  }

  void save(const std::string &path) {
    check(mxrt_kvstore_save(store_, path.c_str()));
  }
  void load(const std::string &path) {
    check(mxrt_kvstore_load(store_, path.c_str()));
  }
  void waitAll() { check(mxrt_kvstore_wait_all(store_)); }
  void barrier() { check(mxrt_kvstore_barrier(store_)); }

private:
  template <typename A, typename B>
  static void sameSize(const std::vector<A> &a, const std::vector<B> &b) {
    if (a.size() != b.size())
      throw Error(MXRT_INVALID_ARGUMENT,
                  "mxrt::KVStore: " + std::to_string(a.size()) + " keys, " +
                      std::to_string(b.size()) + " tensors");
  }

  static mxrt_status callUpdater(int32_t key, const mxrt_tensor *gradient,
                                 mxrt_tensor *stored, void *arg) {
    try {
      (*static_cast<Updater *>(arg))(key, gradient, stored);
      return MXRT_OK;
    } catch (const Error &e) {
      return mxrt_set_error(e.status(), "%s", e.what());
    } catch (const std::exception &e) {
      return mxrt_set_error(MXRT_INTERNAL, "updater of key %d: %s", int(key),
                            e.what());
    }
  }

  mxrt_kvstore *store_ = nullptr;
  std::unique_ptr<Updater> updater_;
};

} // namespace mxrt

#endif // MXRT_KVSTORE_HPP
