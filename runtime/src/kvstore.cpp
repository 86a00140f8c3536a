// SPDX-License-Identifier: Apache-2.0
//
// libmxrt_kvstore: the KVStore of mxrt/kvstore.h on the dependency engine,
// with Open MPI for the distributed types. Each key has an engine variable;
// a push writes it, a pull reads it, so each key's operations keep their
// order while different keys' run side by side. Collectives are made by one
// communication thread in the order of the calls that asked for them (the
// same order on every worker), and a watchdog ends the job with a message
// naming the rank and key when one makes no progress within the timeout.

#include "kvstore_internal.h"

using namespace mxrt::kv;

namespace {

/// Sums `values` into `merged`.
void sumInto(mxrt_tensor *merged, const std::vector<mxrt_tensor *> &values) {
  size_t bytes = mxrt_tensor_size_bytes(merged);
  std::memcpy(mxrt_tensor_data(merged), mxrt_tensor_data(values[0]), bytes);
  int64_t n = mxrt_tensor_num_elements(merged);
  for (size_t v = 1; v < values.size(); ++v) {
    if (mxrt_tensor_dtype(merged) == MXRT_F64) {
      auto *out = static_cast<double *>(mxrt_tensor_data(merged));
      auto *in = static_cast<const double *>(mxrt_tensor_data(values[v]));
      for (int64_t i = 0; i < n; ++i)
        out[i] += in[i];
    } else {
      float *out = floats(merged);
      const float *in = floats(values[v]);
      for (int64_t i = 0; i < n; ++i)
        out[i] += in[i];
    }
  }
}

/// The sum over the workers of `to`'s elements, taken from `from` (or
/// MPI_IN_PLACE: from `to` itself) into `to` by Comm::sum, kChunkBytes at a
/// time (Open MPI reduces large arrays faster in pieces); each piece is
/// copied from `from` into `to` and reduced in place there (an
/// out-of-place allreduce copies its input first anyway, the whole array
/// before it starts: bench/kvstore_bench.cpp's last column), and
/// piece(begin, count) runs after it, while it is in cache. `what` names
/// the call in an error.
template <typename Piece>
mxrt_status allreduceInPieces(mxrt_kvstore *store, const char *what,
                              int32_t key, const void *from, mxrt_tensor *to,
                              const Piece &piece) {
  int64_t n = mxrt_tensor_num_elements(to);
  int64_t esize = int64_t(mxrt_tensor_size_bytes(to) / size_t(n));
  int64_t chunk = std::max<int64_t>(1, kChunkBytes / esize);
  auto *out = static_cast<char *>(mxrt_tensor_data(to));
  for (int64_t begin = 0; begin < n; begin += chunk) {
    int64_t count = std::min(chunk, n - begin);
    char *at = out + begin * esize;
    const char *in = from == MPI_IN_PLACE
                         ? at
                         : static_cast<const char *>(from) + begin * esize;
    if (in != at)
      std::memcpy(at, in, size_t(count * esize));
    if (!store->comm.sum(MPI_IN_PLACE, at, int(count),
                         mpiType(mxrt_tensor_dtype(to))))
      return mxrt_set_error(MXRT_INTERNAL,
                            "%s of key %d: the sum over the workers (MPI) "
                            "failed on rank %d",
                            what, key, store->comm.rank);
    piece(begin, count);
  }
  return MXRT_OK;
}

/// What a pull or save of a key whose value was not kept says.
mxrt_status valueGoneError(const char *what, int32_t key) {
  return mxrt_set_error(MXRT_NOT_FOUND,
                        "%s of key %d: the store keeps no values "
                        "(mxrt_kvstore_set_keep_values 0) and the key's last "
                        "pushpull left none; push or init it first",
                        what, key);
}

struct PushJob {
  mxrt_kvstore *store;
  int32_t key;
  Entry *entry;
  std::vector<mxrt_tensor *> values;
  uint64_t seq;
  mxrt_tensor *out = nullptr; // pushPullOne's output
};

/// dist_sync pushpull of one tensor into one output (or into itself): a
/// piece at a time, the pushed values copied into the output (unless it is
/// the pushed tensor), summed there in place, then updated, and the value
/// comes back into it while the piece is in cache; one pass over the array
/// instead of a push's and then a pull's.
void pushPullOne(void *arg, mxrt_engine_done *done) {
  auto *job = static_cast<PushJob *>(arg);
  mxrt_kvstore *store = job->store;
  Entry *entry = job->entry;
  int32_t key = job->key;
  mxrt_tensor *tensor = job->out;
  const void *from = job->values[0] == tensor
                         ? MPI_IN_PLACE
                         : mxrt_tensor_data(job->values[0]);
  store->comm.submit(
      job->seq,
      {[store, entry, key, tensor, from]() -> mxrt_status {
         // Each piece updated (or copied into the value) while in cache.
         int64_t esize = int64_t(mxrt_tensor_size_bytes(tensor) /
                                 size_t(mxrt_tensor_num_elements(tensor)));
         auto *sum = static_cast<char *>(mxrt_tensor_data(tensor));
         auto *value =
             static_cast<char *>(mxrt_tensor_data(entry->value.get()));
         const Optimizer *rule =
             store->updater ? nullptr : store->optimizer.get();
         if (rule)
           ++entry->updates;
         if (entry->valueGone && (rule || store->updater))
           return mxrt_set_error(MXRT_NOT_FOUND,
                                 "pushpull of key %d: the key holds no value "
                                 "to update (its last pushpull kept none: "
                                 "mxrt_kvstore_set_keep_values 0); init it "
                                 "again",
                                 key);
         bool keep = rule || store->updater || store->keepValues;
         entry->valueGone = !keep;
         if (mxrt_status status = allreduceInPieces(
                 store, "pushpull", key, from, tensor,
                 [&](int64_t begin, int64_t count) {
                   size_t bytes = size_t(count * esize);
                   char *at = sum + begin * esize;
                   if (store->updater)
                     return;
                   if (rule) { // the updated value comes back
                     rule->applyRange(reinterpret_cast<const float *>(sum),
                                      reinterpret_cast<float *>(value), *entry,
                                      begin, begin + count);
                     std::memcpy(at, value + begin * esize, bytes);
                   } else if (keep) { // the sum is the value
                     std::memcpy(value + begin * esize, at, bytes);
                   }
                 }))
           return status;
         if (!store->updater)
           return MXRT_OK;
         if (mxrt_status status = store->update(key, *entry, tensor))
           return status;
         std::memcpy(sum, value, mxrt_tensor_size_bytes(tensor));
         return MXRT_OK;
       },
       [done](mxrt_status status, const std::string &message) {
         mxrt_engine_complete(done, status, message.c_str());
       },
       "pushpull of key " + std::to_string(key)});
}

mxrt_status pushLocal(void *arg) {
  auto *job = static_cast<PushJob *>(arg);
  sumInto(job->entry->merged.get(), job->values);
  return job->store->update(job->key, *job->entry);
}

/// dist_sync: merge this worker's tensors, then hand the allreduce and the
/// update to the communication thread, which completes the operation.
void pushDist(void *arg, mxrt_engine_done *done) {
  auto *job = static_cast<PushJob *>(arg);
  mxrt_kvstore *store = job->store;
  Entry *entry = job->entry;
  int32_t key = job->key;
  // One tensor is reduced straight from where it is; more are summed first.
  const void *source = MPI_IN_PLACE;
  if (job->values.size() == 1)
    source = mxrt_tensor_data(job->values[0]);
  else
    sumInto(entry->merged.get(), job->values);
  store->comm.submit(job->seq,
                     {[store, entry, key, source]() -> mxrt_status {
                        if (mxrt_status status = allreduceInPieces(
                                store, "push", key, source, entry->merged.get(),
                                [](int64_t, int64_t) {}))
                          return status;
                        return store->update(key, *entry);
                      },
                      [done](mxrt_status status, const std::string &message) {
                        mxrt_engine_complete(done, status, message.c_str());
                      },
                      "push of key " + std::to_string(key)});
}

struct PullJob {
  Entry *entry;
  std::vector<mxrt_tensor *> outs;
  mxrt_kvstore *store = nullptr;
  int32_t key = 0;
};

/// dist_async: this worker's tensors summed (one is sent as it is) and
/// sent to the key's server, which applies the update when it arrives.
mxrt_status pushAsync(void *arg) {
  auto *job = static_cast<PushJob *>(arg);
  mxrt_tensor *first = job->values[0];
  const void *data = mxrt_tensor_data(first);
  TensorPtr sum;
  if (job->values.size() > 1) {
    if (mxrt_status status = newLike(first, sum))
      return status;
    sumInto(sum.get(), job->values);
    data = mxrt_tensor_data(sum.get());
  }
  job->store->server.push(job->key, data, mxrt_tensor_num_elements(first),
                          mpiType(mxrt_tensor_dtype(first)));
  return MXRT_OK;
}

/// dist_async: the key's value as its server holds it now.
mxrt_status pullAsync(void *arg) {
  auto *job = static_cast<PullJob *>(arg);
  mxrt_tensor *first = job->outs[0];
  job->store->server.pull(job->key, mxrt_tensor_data(first),
                          mxrt_tensor_num_elements(first),
                          mpiType(mxrt_tensor_dtype(first)));
  for (size_t i = 1; i < job->outs.size(); ++i)
    std::memcpy(mxrt_tensor_data(job->outs[i]), mxrt_tensor_data(first),
                mxrt_tensor_size_bytes(first));
  return MXRT_OK;
}

mxrt_status pullCopy(void *arg) {
  auto *job = static_cast<PullJob *>(arg);
  if (job->entry->valueGone)
    return valueGoneError("pull", job->key);
  for (mxrt_tensor *out : job->outs)
    std::memcpy(mxrt_tensor_data(out),
                mxrt_tensor_data(job->entry->value.get()),
                mxrt_tensor_size_bytes(out));
  return MXRT_OK;
}

template <typename T> void deleteJob(void *arg) {
  delete static_cast<T *>(arg);
}

/// What push and pull check before they queue anything: the store, the key
/// and the tensors' layout against the key's.
mxrt_status checkCall(mxrt_kvstore *store, const char *what, int32_t key,
                      mxrt_tensor *const *tensors, size_t n, const char *role,
                      Entry *&entry) {
  if (!store)
    return mxrt_set_error(MXRT_INVALID_ARGUMENT, "%s: store is NULL", what);
  if (mxrt_status status = store->find(what, key, entry))
    return status;
  return store->checkTensors(what, key, *entry, tensors, n, role);
}

/// Checks every key of a list call, then makes `one` for each.
template <typename One>
mxrt_status forKeys(mxrt_kvstore *store, const char *what, size_t numKeys,
                    const int32_t *keys, mxrt_tensor *const *tensors,
                    size_t perKey, mxrt_tensor *const *outs, const One &one) {
  if (numKeys > 0 && !keys)
    return mxrt_set_error(MXRT_INVALID_ARGUMENT, "%s: keys is NULL", what);
  for (size_t i = 0; i < numKeys; ++i) {
    Entry *entry;
    if (mxrt_status status = checkCall(store, what, keys[i],
                                       tensors ? tensors + i * perKey : nullptr,
                                       perKey, "value", entry))
      return status;
    if (outs)
      if (mxrt_status status = store->checkTensors(
              what, keys[i], *entry, outs + i * perKey, perKey, "output"))
        return status;
  }
  for (size_t i = 0; i < numKeys; ++i)
    if (mxrt_status status = one(i))
      return status;
  return MXRT_OK;
}

} // namespace

extern "C" {

void mxrt_optimizer_options_init(mxrt_optimizer_options *o) {
  if (!o)
    return;
  *o = {0.01f, 0.0f, 0.9f, 0.9f, 0.999f, 1e-8f, 0.9f, 1.0f, 0.0f};
}

mxrt_status mxrt_kvstore_create(const char *type, int32_t num_threads,
                                mxrt_kvstore **out_store) {
  if (!type || !out_store)
    return mxrt_set_error(MXRT_INVALID_ARGUMENT,
                          "mxrt_kvstore_create: %s is NULL",
                          type ? "out_store" : "type");
  std::string t = type;
  if (t != "local" && t != "dist_sync" && t != "dist_async")
    return mxrt_set_error(MXRT_INVALID_ARGUMENT,
                          "mxrt_kvstore_create: unknown type '%s' (local, "
                          "dist_sync, dist_async)",
                          type);
  auto store = std::make_unique<mxrt_kvstore>();
  store->type = t;
  store->dist = t != "local";
  store->async = t == "dist_async";
  if (mxrt_status status =
          mxrt_engine_create(num_threads > 0 ? num_threads : 2, &store->engine))
    return status;
  if (store->dist) {
    double timeout = 120;
    if (const char *env = std::getenv("MXRT_KVSTORE_TIMEOUT"))
      timeout = std::atof(env);
    if (mxrt_status status = store->comm.start(timeout)) {
      mxrt_engine_release(store->engine);
      return status;
    }
    if (store->async)
      if (mxrt_status status =
              store->server.start(store.get(), store->comm.comm, timeout)) {
        mxrt_engine_release(store->engine);
        store->comm.stop();
        return status;
      }
  }
  *out_store = store.release();
  return MXRT_OK;
}

void mxrt_kvstore_release(mxrt_kvstore *store) {
  if (!store)
    return;
  mxrt_engine_release(store->engine); // runs what is pending first
  if (store->async)
    store->server.stop();
  store->comm.stop();
  delete store;
}

const char *mxrt_kvstore_type(const mxrt_kvstore *store) {
  return store ? store->type.c_str() : "";
}
int32_t mxrt_kvstore_rank(const mxrt_kvstore *store) {
  return store ? store->comm.rank : 0;
}
int32_t mxrt_kvstore_num_workers(const mxrt_kvstore *store) {
  return store ? store->comm.size : 0;
}
int32_t mxrt_kvstore_num_hosts(const mxrt_kvstore *store) {
  return store ? store->comm.hosts : 0;
}
mxrt_engine *mxrt_kvstore_engine(mxrt_kvstore *store) {
  return store ? store->engine : nullptr;
}

mxrt_status mxrt_kvstore_init(mxrt_kvstore *store, int32_t key,
                              const mxrt_tensor *value) {
  const char *what = "mxrt_kvstore_init";
  if (!store || !value)
    return mxrt_set_error(MXRT_INVALID_ARGUMENT, "%s: %s is NULL", what,
                          store ? "value" : "store");
  mxrt_dtype dtype = mxrt_tensor_dtype(value);
  if (dtype != MXRT_F32 && dtype != MXRT_F64)
    return mxrt_set_error(MXRT_UNSUPPORTED,
                          "%s: key %d: dtype %s (float32 and float64 only)",
                          what, key, mxrt_dtype_name(dtype));
  if (dtype == MXRT_F64 && store->optimizer)
    return mxrt_set_error(MXRT_UNSUPPORTED,
                          "%s: key %d: the built-in %s rule updates float32 "
                          "values; a float64 key needs an updater "
                          "(mxrt_kvstore_set_updater)",
                          what, key, store->optimizer->name.c_str());
  if (store->keys.count(key))
    return mxrt_set_error(MXRT_INVALID_ARGUMENT,
                          "%s: key %d is already initialized", what, key);
  if (store->dist && mxrt_tensor_num_elements(value) > INT32_MAX)
    return mxrt_set_error(MXRT_UNSUPPORTED,
                          "%s: key %d: %lld elements, more than one MPI call "
                          "takes (2^31 - 1)",
                          what, key,
                          (long long)mxrt_tensor_num_elements(value));
  Entry entry;
  entry.dtype = mxrt_tensor_dtype(value);
  entry.shape.assign(mxrt_tensor_shape(value),
                     mxrt_tensor_shape(value) + mxrt_tensor_ndim(value));
  if (mxrt_status status = newLike(value, entry.value))
    return status;
  if (mxrt_status status = newLike(value, entry.merged))
    return status;
  std::memcpy(mxrt_tensor_data(entry.value.get()),
              mxrt_tensor_data(const_cast<mxrt_tensor *>(value)),
              mxrt_tensor_size_bytes(value));
  if (store->optimizer)
    for (size_t s = 0; s < store->optimizer->numStates(); ++s) {
      entry.states.emplace_back();
      if (mxrt_status status = newLike(value, entry.states.back()))
        return status;
    }
  if (mxrt_status status = mxrt_engine_new_var(store->engine, &entry.var))
    return status;
  if (store->dist) {
    mxrt_tensor *v = entry.value.get();
    MPI_Comm comm = store->comm.comm;
    if (mxrt_status status = store->comm.runNow(
            store->comm.reserve(),
            [v, comm]() -> mxrt_status {
              return MPI_Bcast(
                         mxrt_tensor_data(v), int(mxrt_tensor_num_elements(v)),
                         mpiType(mxrt_tensor_dtype(v)), 0, comm) == MPI_SUCCESS
                         ? MXRT_OK
                         : mxrt_set_error(MXRT_INTERNAL, "MPI_Bcast failed");
            },
            "init of key " + std::to_string(key)))
      return status;
  }
  {
    std::lock_guard<std::mutex> lock(store->server.entries);
    store->keys.emplace(key, std::move(entry));
  }
  // dist_async: no push reaches a server before it holds the key.
  if (store->async)
    return mxrt_kvstore_barrier(store);
  return MXRT_OK;
}

mxrt_status mxrt_kvstore_push(mxrt_kvstore *store, int32_t key,
                              mxrt_tensor *const *values, size_t num_values,
                              int32_t priority) {
  Entry *entry;
  if (mxrt_status status = checkCall(store, "mxrt_kvstore_push", key, values,
                                     num_values, "value", entry))
    return status;
  auto job = std::make_unique<PushJob>();
  job->store = store;
  job->key = key;
  job->entry = entry;
  job->values.assign(values, values + num_values);
  std::vector<mxrt_var *> reads;
  for (mxrt_tensor *v : job->values)
    reads.push_back(store->varOf(v));
  std::string name = "push of key " + std::to_string(key);
  mxrt_status status;
  if (store->async) {
    status = mxrt_engine_push(store->engine, pushAsync, job.get(),
                              deleteJob<PushJob>, reads.data(), reads.size(),
                              &entry->var, 1, priority, name.c_str());
  } else if (store->dist) {
    job->seq = store->comm.reserve();
    status = mxrt_engine_push_async(
        store->engine, pushDist, job.get(), deleteJob<PushJob>, reads.data(),
        reads.size(), &entry->var, 1, priority, name.c_str());
  } else {
    status = mxrt_engine_push(store->engine, pushLocal, job.get(),
                              deleteJob<PushJob>, reads.data(), reads.size(),
                              &entry->var, 1, priority, name.c_str());
  }
  if (status == MXRT_OK) {
    job.release();
  } else if (store->dist && !store->async) {
    // Its sequence number is taken: release it, or this worker's later
    // collectives would wait for it for ever. (The other workers, which
    // make this collective, then wait until the watchdog ends the job.)
    store->comm.submit(job->seq,
                       {[] { return MXRT_OK; },
                        [](mxrt_status, const std::string &) {}, name});
  }
  return status;
}

mxrt_status mxrt_kvstore_pull(mxrt_kvstore *store, int32_t key,
                              mxrt_tensor *const *outs, size_t num_outs,
                              int32_t priority) {
  Entry *entry;
  if (mxrt_status status = checkCall(store, "mxrt_kvstore_pull", key, outs,
                                     num_outs, "output", entry))
    return status;
  auto job = std::make_unique<PullJob>();
  job->entry = entry;
  job->outs.assign(outs, outs + num_outs);
  job->store = store;
  job->key = key;
  std::vector<mxrt_var *> writes;
  for (mxrt_tensor *out : job->outs)
    writes.push_back(store->varOf(out));
  std::string name = "pull of key " + std::to_string(key);
  mxrt_status status =
      mxrt_engine_push(store->engine, store->async ? pullAsync : pullCopy,
                       job.get(), deleteJob<PullJob>, &entry->var, 1,
                       writes.data(), writes.size(), priority, name.c_str());
  if (status == MXRT_OK)
    job.release();
  return status;
}

mxrt_status mxrt_kvstore_pushpull(mxrt_kvstore *store, int32_t key,
                                  mxrt_tensor *const *values, size_t num_values,
                                  mxrt_tensor *const *outs, size_t num_outs,
                                  int32_t priority) {
  if (store && store->dist && !store->async && num_values == 1 &&
      num_outs == 1 && values && outs) {
    const char *what = "mxrt_kvstore_pushpull";
    Entry *entry;
    if (mxrt_status status =
            checkCall(store, what, key, values, 1, "value", entry))
      return status;
    if (mxrt_status status =
            store->checkTensors(what, key, *entry, outs, 1, "output"))
      return status;
    auto job = std::make_unique<PushJob>();
    job->store = store;
    job->key = key;
    job->entry = entry;
    job->values = {values[0]};
    job->out = outs[0];
    job->seq = store->comm.reserve();
    mxrt_var *reads[1] = {store->varOf(values[0])};
    mxrt_var *writes[2] = {store->varOf(outs[0]), entry->var};
    bool same = values[0] == outs[0];
    std::string name = "pushpull of key " + std::to_string(key);
    mxrt_status status =
        mxrt_engine_push_async(store->engine, pushPullOne, job.get(),
                               deleteJob<PushJob>, same ? nullptr : reads,
                               same ? 0 : 1, writes, 2, priority, name.c_str());
    if (status == MXRT_OK) {
      job.release();
    } else { // release its sequence number (see mxrt_kvstore_push)
      store->comm.submit(job->seq,
                         {[] { return MXRT_OK; },
                          [](mxrt_status, const std::string &) {}, name});
    }
    return status;
  }
  if (mxrt_status status =
          mxrt_kvstore_push(store, key, values, num_values, priority))
    return status;
  return mxrt_kvstore_pull(store, key, outs, num_outs, priority);
}

mxrt_status mxrt_kvstore_push_list(mxrt_kvstore *store, size_t num_keys,
                                   const int32_t *keys,
                                   mxrt_tensor *const *values, size_t per_key,
                                   int32_t priority) {
  return forKeys(store, "mxrt_kvstore_push_list", num_keys, keys, values,
                 per_key, nullptr, [&](size_t i) {
                   return mxrt_kvstore_push(
                       store, keys[i], values + i * per_key, per_key, priority);
                 });
}

mxrt_status mxrt_kvstore_pull_list(mxrt_kvstore *store, size_t num_keys,
                                   const int32_t *keys,
                                   mxrt_tensor *const *outs, size_t per_key,
                                   int32_t priority) {
  return forKeys(store, "mxrt_kvstore_pull_list", num_keys, keys, outs, per_key,
                 nullptr, [&](size_t i) {
                   return mxrt_kvstore_pull(store, keys[i], outs + i * per_key,
                                            per_key, priority);
                 });
}

mxrt_status mxrt_kvstore_pushpull_list(mxrt_kvstore *store, size_t num_keys,
                                       const int32_t *keys,
                                       mxrt_tensor *const *values,
                                       mxrt_tensor *const *outs, size_t per_key,
                                       int32_t priority) {
  return forKeys(store, "mxrt_kvstore_pushpull_list", num_keys, keys, values,
                 per_key, outs, [&](size_t i) {
                   return mxrt_kvstore_pushpull(
                       store, keys[i], values + i * per_key, per_key,
                       outs + i * per_key, per_key, priority);
                 });
}

mxrt_status mxrt_kvstore_set_optimizer(mxrt_kvstore *store, const char *name,
                                       const mxrt_optimizer_options *options) {
  const char *what = "mxrt_kvstore_set_optimizer";
  if (!store || !name)
    return mxrt_set_error(MXRT_INVALID_ARGUMENT, "%s: %s is NULL", what,
                          store ? "name" : "store");
  std::string n = name;
  if (n != "sgd" && n != "momentum" && n != "adam" && n != "rmsprop")
    return mxrt_set_error(MXRT_INVALID_ARGUMENT,
                          "%s: unknown optimizer '%s' (sgd, momentum, adam, "
                          "rmsprop)",
                          what, name);
  if (!store->keys.empty())
    return mxrt_set_error(MXRT_INVALID_ARGUMENT,
                          "%s: set the optimizer before the first init", what);
  auto optimizer = std::make_unique<Optimizer>();
  optimizer->name = n;
  if (options)
    optimizer->o = *options;
  else
    mxrt_optimizer_options_init(&optimizer->o);
  store->optimizer = std::move(optimizer);
  store->updater = nullptr;
  return MXRT_OK;
}

mxrt_status mxrt_kvstore_set_updater(mxrt_kvstore *store,
                                     mxrt_kvstore_updater updater, void *arg) {
  if (!store || !updater)
    return mxrt_set_error(MXRT_INVALID_ARGUMENT,
                          "mxrt_kvstore_set_updater: %s is NULL",
                          store ? "updater" : "store");
  store->updater = updater;
  store->updaterArg = arg;
  store->optimizer.reset();
  return MXRT_OK;
}

mxrt_status mxrt_kvstore_set_staleness(mxrt_kvstore *store, int32_t max_steps) {
  if (!store)
    return mxrt_set_error(MXRT_INVALID_ARGUMENT,
                          "mxrt_kvstore_set_staleness: store is NULL");
  if (!store->async)
    return mxrt_set_error(MXRT_INVALID_ARGUMENT,
                          "mxrt_kvstore_set_staleness: a %s store has no "
                          "staleness (dist_async only)",
                          store->type.c_str());
  store->server.staleness = max_steps;
  return MXRT_OK;
}

mxrt_status mxrt_kvstore_set_keep_values(mxrt_kvstore *store, int32_t keep) {
  if (!store)
    return mxrt_set_error(MXRT_INVALID_ARGUMENT,
                          "mxrt_kvstore_set_keep_values: store is NULL");
  if (!store->dist || store->async)
    return mxrt_set_error(MXRT_INVALID_ARGUMENT,
                          "mxrt_kvstore_set_keep_values: a %s store always "
                          "keeps its values (dist_sync only)",
                          store->type.c_str());
  if (mxrt_status status = mxrt_kvstore_wait_all(store))
    return status;
  store->keepValues = keep != 0;
  return MXRT_OK;
}

mxrt_status mxrt_kvstore_tensor_var(mxrt_kvstore *store,
                                    const mxrt_tensor *tensor,
                                    mxrt_var **out_var) {
  if (!store || !tensor || !out_var)
    return mxrt_set_error(MXRT_INVALID_ARGUMENT,
                          "mxrt_kvstore_tensor_var: an argument is NULL");
  mxrt_var *var = store->varOf(tensor);
  if (!var)
    return mxrt_set_error(MXRT_OUT_OF_MEMORY, "mxrt_kvstore_tensor_var: out "
                                              "of memory");
  *out_var = var;
  return MXRT_OK;
}

mxrt_status mxrt_kvstore_wait_all(mxrt_kvstore *store) {
  if (!store)
    return mxrt_set_error(MXRT_INVALID_ARGUMENT,
                          "mxrt_kvstore_wait_all: store is NULL");
  return mxrt_engine_wait_all(store->engine);
}

mxrt_status mxrt_kvstore_barrier(mxrt_kvstore *store) {
  if (mxrt_status status = mxrt_kvstore_wait_all(store))
    return status;
  if (!store->dist)
    return MXRT_OK;
  if (store->async) // every push made so far is applied when it returns
    store->server.flush();
  MPI_Comm comm = store->comm.comm;
  return store->comm.runNow(
      store->comm.reserve(),
      [comm]() -> mxrt_status {
        return MPI_Barrier(comm) == MPI_SUCCESS
                   ? MXRT_OK
                   : mxrt_set_error(MXRT_INTERNAL, "MPI_Barrier failed");
      },
      "barrier");
}

mxrt_status mxrt_kvstore_save(mxrt_kvstore *store, const char *path) {
  if (!store || !path)
    return mxrt_set_error(MXRT_INVALID_ARGUMENT,
                          "mxrt_kvstore_save: %s is NULL",
                          store ? "path" : "store");
  if (mxrt_status status = mxrt_kvstore_wait_all(store))
    return status;
  for (auto &[key, entry] : store->keys)
    if (entry.valueGone)
      return valueGoneError("mxrt_kvstore_save", key);
  // dist_async: each key's value and states as its server holds them once
  // every push made before the save is applied, sent to every worker.
  std::map<int32_t, std::vector<TensorPtr>> snapshots;
  std::map<int32_t, int64_t> snapshotUpdates;
  if (store->async) {
    if (mxrt_status status = mxrt_kvstore_barrier(store))
      return status;
    for (auto &[key, entry] : store->keys) {
      std::vector<mxrt_tensor *> live = {entry.value.get()};
      for (TensorPtr &state : entry.states)
        live.push_back(state.get());
      std::vector<TensorPtr> &copies = snapshots[key];
      int root = store->server.serverOf(key);
      int64_t &updates = snapshotUpdates[key];
      for (mxrt_tensor *t : live) {
        copies.emplace_back();
        if (mxrt_status status = newLike(t, copies.back()))
          return status;
      }
      if (store->comm.rank == root) {
        std::lock_guard<std::mutex> lock(store->server.entries);
        for (size_t i = 0; i < live.size(); ++i)
          std::memcpy(mxrt_tensor_data(copies[i].get()),
                      mxrt_tensor_data(live[i]),
                      mxrt_tensor_size_bytes(live[i]));
        updates = entry.updates;
      }
      MPI_Comm comm = store->comm.comm;
      if (mxrt_status status = store->comm.runNow(
              store->comm.reserve(),
              [&copies, &updates, root, comm]() -> mxrt_status {
                for (TensorPtr &t : copies)
                  if (MPI_Bcast(mxrt_tensor_data(t.get()),
                                int(mxrt_tensor_num_elements(t.get())),
                                mpiType(mxrt_tensor_dtype(t.get())), root,
                                comm) != MPI_SUCCESS)
                    return mxrt_set_error(MXRT_INTERNAL, "MPI_Bcast failed");
                return MPI_Bcast(&updates, 1, MPI_INT64_T, root, comm) ==
                               MPI_SUCCESS
                           ? MXRT_OK
                           : mxrt_set_error(MXRT_INTERNAL, "MPI_Bcast failed");
              },
              "save of key " + std::to_string(key)))
        return status;
    }
  }
  mxrt_status saved = MXRT_OK;
  std::string message;
  if (store->comm.rank == 0) {
    std::vector<std::string> names;
    std::vector<const mxrt_tensor *> tensors;
    std::vector<TensorPtr> counts;
    std::vector<std::string> stateNames = store->optimizer
                                              ? store->optimizer->stateNames()
                                              : std::vector<std::string>();
    for (auto &[key, entry] : store->keys) {
      std::string base = "key:" + std::to_string(key);
      std::vector<const mxrt_tensor *> saved = {entry.value.get()};
      for (TensorPtr &state : entry.states)
        saved.push_back(state.get());
      int64_t updates = entry.updates;
      if (store->async) {
        for (size_t i = 0; i < saved.size(); ++i)
          saved[i] = snapshots[key][i].get();
        updates = snapshotUpdates[key];
      }
      names.push_back(base);
      tensors.push_back(saved[0]);
      for (size_t i = 1; i < saved.size(); ++i) {
        names.push_back(base + ":" + stateNames[i - 1]);
        tensors.push_back(saved[i]);
      }
      mxrt_tensor *count;
      if (mxrt_status status = mxrt_tensor_create(MXRT_I64, 0, nullptr, &count))
        return status;
      counts.emplace_back(count);
      *static_cast<int64_t *>(mxrt_tensor_data(count)) = updates;
      names.push_back(base + ":updates");
      tensors.push_back(count);
    }
    std::vector<const char *> cNames;
    for (const std::string &name : names)
      cNames.push_back(name.c_str());
    saved = mxrt_params_save(path, names.size(), cNames.data(), tensors.data());
    if (saved)
      message = mxrt_last_error();
  }
  if (store->dist) {
    // Everyone learns whether rank 0's save worked.
    MPI_Comm comm = store->comm.comm;
    int status = int(saved);
    if (mxrt_status failed = store->comm.runNow(
            store->comm.reserve(),
            [comm, &status]() -> mxrt_status {
              return MPI_Bcast(&status, 1, MPI_INT, 0, comm) == MPI_SUCCESS
                         ? MXRT_OK
                         : mxrt_set_error(MXRT_INTERNAL, "MPI_Bcast failed");
            },
            "save"))
      return failed;
    if (status != MXRT_OK && store->comm.rank != 0)
      return mxrt_set_error(mxrt_status(status),
                            "mxrt_kvstore_save: rank 0 could not write '%s'",
                            path);
  }
  if (saved)
    return mxrt_set_error(saved, "%s", message.c_str());
  return MXRT_OK;
}

mxrt_status mxrt_kvstore_load(mxrt_kvstore *store, const char *path) {
  const char *what = "mxrt_kvstore_load";
  if (!store || !path)
    return mxrt_set_error(MXRT_INVALID_ARGUMENT, "%s: %s is NULL", what,
                          store ? "path" : "store");
  if (mxrt_status status = mxrt_kvstore_wait_all(store))
    return status;
  if (store->async) { // no push made before the load lands after it
    if (mxrt_status status = mxrt_kvstore_barrier(store))
      return status;
  }
  mxrt_params *raw;
  if (mxrt_status status = mxrt_params_load(path, &raw))
    return status;
  std::unique_ptr<mxrt_params, void (*)(mxrt_params *)> params(
      raw, mxrt_params_release);
  std::vector<std::string> stateNames = store->optimizer
                                            ? store->optimizer->stateNames()
                                            : std::vector<std::string>();
  // Check everything before changing anything.
  struct Copy {
    mxrt_tensor *to;
    const mxrt_tensor *from;
  };
  std::vector<Copy> copies;
  std::vector<std::pair<Entry *, int64_t>> updates;
  for (auto &[key, entry] : store->keys) {
    std::string base = "key:" + std::to_string(key);
    std::vector<std::pair<std::string, mxrt_tensor *>> wanted = {
        {base, entry.value.get()}};
    for (size_t i = 0; i < entry.states.size(); ++i)
      wanted.push_back({base + ":" + stateNames[i], entry.states[i].get()});
    for (auto &[name, to] : wanted) {
      const mxrt_tensor *from = mxrt_params_find(params.get(), name.c_str());
      if (!from)
        return mxrt_set_error(MXRT_NOT_FOUND,
                              "%s: '%s' holds no '%s' (rank %d)", what, path,
                              name.c_str(), store->comm.rank);
      if (!sameLayout(from, to))
        return mxrt_set_error(
            MXRT_INVALID_ARGUMENT,
            "%s: '%s': '%s' is %s %s, the key holds %s %s (rank %d)", what,
            path, name.c_str(), mxrt_dtype_name(mxrt_tensor_dtype(from)),
            shapeOf(from).c_str(), mxrt_dtype_name(mxrt_tensor_dtype(to)),
            shapeOf(to).c_str(), store->comm.rank);
      copies.push_back({to, from});
    }
    const mxrt_tensor *count =
        mxrt_params_find(params.get(), (base + ":updates").c_str());
    int64_t n = 0;
    if (count && mxrt_tensor_dtype(count) == MXRT_I64 &&
        mxrt_tensor_num_elements(count) == 1)
      n = *static_cast<const int64_t *>(
          mxrt_tensor_data(const_cast<mxrt_tensor *>(count)));
    updates.emplace_back(&entry, n);
  }
  {
    std::lock_guard<std::mutex> lock(store->server.entries);
    for (const Copy &c : copies)
      std::memcpy(mxrt_tensor_data(c.to),
                  mxrt_tensor_data(const_cast<mxrt_tensor *>(c.from)),
                  mxrt_tensor_size_bytes(c.to));
    for (auto &[entry, n] : updates)
      entry->updates = n;
  }
  return mxrt_kvstore_barrier(store);
}

} // extern "C"
