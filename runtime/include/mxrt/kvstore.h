/* SPDX-License-Identifier: Apache-2.0
 *
 * The KVStore of the MXNet paper: parameters kept under integer keys,
 * gradients pushed to them, an update applied where the values live, and
 * the updated values pulled back. In libmxrt_kvstore (which links Open MPI
 * for the distributed types; libmxrt itself does not).
 *
 * Types:
 *  - "local": one process; a push of several tensors (one per device
 *    context) sums them, then updates.
 *  - "dist_sync": one process per worker, launched by `mpirun`; a push sums
 *    over the process's tensors first, then across all workers (MPI
 *    allreduce), and every worker applies the same update, so that after
 *    each push every worker holds the same values.
 *  - "dist_async": a parameter server on every worker, key k on rank
 *    k % num_workers: a push sends this worker's sum there and the update
 *    is applied when it arrives; a pull fetches the value as the server
 *    holds it then (other workers' pushes may or may not be in it:
 *    eventual consistency, optionally bounded, see
 *    mxrt_kvstore_set_staleness). No collectives after init: workers may
 *    make different numbers of pushes.
 *
 * Pushes and pulls are operations of the store's dependency engine
 * (mxrt/engine.h): they return at once and run in the order they were made
 * for each key; a pushed tensor must not change, and a pulled one must not
 * be read, before mxrt_kvstore_wait_all (or a wait on the tensor's engine
 * variable, mxrt_kvstore_tensor_var). Collectives run in the order of the
 * calls, which must be the same on every worker.
 *
 * The conventions of mxrt.h hold.
 */
#ifndef MXRT_KVSTORE_H
#define MXRT_KVSTORE_H

#include "mxrt/engine.h"
#include "mxrt/mxrt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mxrt_kvstore mxrt_kvstore;

/** The built-in update rules, as `mxc --train` applies them:
 *  g' = rescale_grad * clip(g, clip_gradient) + wd * w, then
 *  sgd: w -= lr g'; momentum: m = momentum m - lr g', w += m;
 *  adam: bias-corrected with beta1, beta2, epsilon; rmsprop: rho, epsilon. */
typedef struct mxrt_optimizer_options {
  float learning_rate; /* 0.01 */
  float weight_decay;  /* 0 */
  float momentum;      /* 0.9 */
  float beta1;         /* 0.9 */
  float beta2;         /* 0.999 */
  float epsilon;       /* 1e-8 */
  float rho;           /* 0.9 */
  float rescale_grad;  /* 1 */
  float clip_gradient; /* <= 0: no clipping (default) */
} mxrt_optimizer_options;

/** Fills `options` with the defaults above. */
MXRT_API void mxrt_optimizer_options_init(mxrt_optimizer_options *options);

/** A user update: called where the value lives with the key, the merged
 *  gradient and the stored value, which it updates in place. */
typedef mxrt_status (*mxrt_kvstore_updater)(int32_t key,
                                            const mxrt_tensor *gradient,
                                            mxrt_tensor *stored, void *arg);

/** A store of `type` ("local", "dist_sync", "dist_async"). A dist type
 * initializes MPI on first use (or joins an MPI the app initialized with
 *  MPI_THREAD_MULTIPLE). Pass `num_threads` for the store's engine (0: two). */
MXRT_API mxrt_status mxrt_kvstore_create(const char *type, int32_t num_threads,
                                         mxrt_kvstore **out_store);
/** Waits for the store's operations, then frees it. NULL is a no-op. */
MXRT_API void mxrt_kvstore_release(mxrt_kvstore *store);

MXRT_API const char *mxrt_kvstore_type(const mxrt_kvstore *store);
/** This worker's rank in [0, num_workers); 0 for "local". */
MXRT_API int32_t mxrt_kvstore_rank(const mxrt_kvstore *store);
MXRT_API int32_t mxrt_kvstore_num_workers(const mxrt_kvstore *store);
/** The hosts the workers run on (ranks that share memory count as one;
 *  the environment variable MXRT_KVSTORE_RANKS_PER_HOST=k makes every k
 *  consecutive ranks one instead); 1 for "local". Where several workers
 *  share a host and there are several hosts, dist_sync sums in two levels:
 *  inside each host first, then across the hosts. */
MXRT_API int32_t mxrt_kvstore_num_hosts(const mxrt_kvstore *store);

/** Stores a copy of `value` under `key` (rank 0's value on every worker of
 *  a dist store). Synchronous; every worker calls it for the same keys. */
MXRT_API mxrt_status mxrt_kvstore_init(mxrt_kvstore *store, int32_t key,
                                       const mxrt_tensor *value);

/** Pushes the sum of `values` (one per device, each of the key's shape and
 *  dtype) to `key`: with an optimizer or updater set, it updates the value;
 *  without, the merged sum replaces it. Asynchronous. */
MXRT_API mxrt_status mxrt_kvstore_push(mxrt_kvstore *store, int32_t key,
                                       mxrt_tensor *const *values,
                                       size_t num_values, int32_t priority);
/** Copies the key's value into each of `outs`, after every earlier push of
 *  the key. Asynchronous. */
MXRT_API mxrt_status mxrt_kvstore_pull(mxrt_kvstore *store, int32_t key,
                                       mxrt_tensor *const *outs,
                                       size_t num_outs, int32_t priority);
/** push, then pull, in one call. */
MXRT_API mxrt_status mxrt_kvstore_pushpull(mxrt_kvstore *store, int32_t key,
                                           mxrt_tensor *const *values,
                                           size_t num_values,
                                           mxrt_tensor *const *outs,
                                           size_t num_outs, int32_t priority);

/** The list forms: keys[i] with values[i * per_key .. (i + 1) * per_key)
 *  (one tensor per device each), as the calls above one key after the
 *  other. Every key and tensor is checked before any operation is queued:
 *  on a failure nothing was pushed or pulled. */
MXRT_API mxrt_status mxrt_kvstore_push_list(mxrt_kvstore *store,
                                            size_t num_keys,
                                            const int32_t *keys,
                                            mxrt_tensor *const *values,
                                            size_t per_key, int32_t priority);
MXRT_API mxrt_status mxrt_kvstore_pull_list(mxrt_kvstore *store,
                                            size_t num_keys,
                                            const int32_t *keys,
                                            mxrt_tensor *const *outs,
                                            size_t per_key, int32_t priority);
MXRT_API mxrt_status mxrt_kvstore_pushpull_list(
    mxrt_kvstore *store, size_t num_keys, const int32_t *keys,
    mxrt_tensor *const *values, mxrt_tensor *const *outs, size_t per_key,
    int32_t priority);

/** dist_sync only: whether a pushpull without an optimizer or updater
 *  also keeps the sum as the key's value (`keep` 1, the default) or only
 *  writes it into its outputs (0). Without the copy into the store's own
 *  value a single-tensor pushpull costs what a bare MPI_Allreduce of the
 *  same bytes costs: the store as a plain allreduce of gradients, each
 *  worker updating its own parameters (MXNet's update_on_kvstore=False
 *  with a Horovod store). The key then holds no value: a later pull or
 *  save fails naming the key, and a push with an optimizer or updater set
 *  has nothing to update, until a push without one or an init sets it. */
MXRT_API mxrt_status mxrt_kvstore_set_keep_values(mxrt_kvstore *store,
                                                  int32_t keep);

/** Applies built-in rule `name` (sgd, momentum, adam, rmsprop) on pushes;
 *  `options` may be NULL for the defaults. */
MXRT_API mxrt_status
mxrt_kvstore_set_optimizer(mxrt_kvstore *store, const char *name,
                           const mxrt_optimizer_options *options);
/** Applies `updater` on pushes instead of a built-in rule. */
MXRT_API mxrt_status mxrt_kvstore_set_updater(mxrt_kvstore *store,
                                              mxrt_kvstore_updater updater,
                                              void *arg);

/** dist_async only: a worker's pull of a key waits while that worker has
 *  pushed the key more than `max_steps` times beyond the slowest worker
 *  still running (stale synchronous parallel; 0 is lockstep); negative
 *  (the default): no bound. Every worker sets the same bound. */
MXRT_API mxrt_status mxrt_kvstore_set_staleness(mxrt_kvstore *store,
                                                int32_t max_steps);

/** The engine variable guarding `tensor` in this store's operations, so
 *  that an app's own engine operations can order against pushes and pulls
 *  (mxrt_engine_wait_for_var on it waits for a pull into it). */
MXRT_API mxrt_status mxrt_kvstore_tensor_var(mxrt_kvstore *store,
                                             const mxrt_tensor *tensor,
                                             mxrt_var **out_var);
MXRT_API mxrt_engine *mxrt_kvstore_engine(mxrt_kvstore *store);

/** Writes every key's value and optimizer state to `path` as an MXNet
 *  .params file ("key:3" the value; "key:3:momentum", "key:3:mean",
 *  "key:3:var", "key:3:sqavg" the states; "key:3:updates" adam's step),
 *  after the pushes made so far. The file appears complete or not at all;
 *  on a dist store rank 0 writes it and every worker returns once it is
 *  there. */
MXRT_API mxrt_status mxrt_kvstore_save(mxrt_kvstore *store, const char *path);
/** Replaces the value and optimizer state of every initialized key with a
 *  file mxrt_kvstore_save wrote; each must be present with its shape, and
 *  nothing changes when one is not. On a dist store every worker reads the
 *  file. */
MXRT_API mxrt_status mxrt_kvstore_load(mxrt_kvstore *store, const char *path);

/** Waits for every push and pull made so far; returns the first failure. */
MXRT_API mxrt_status mxrt_kvstore_wait_all(mxrt_kvstore *store);
/** Waits for this worker's operations, then for every worker to get here;
 *  on a dist_async store every push made before it is then applied. */
MXRT_API mxrt_status mxrt_kvstore_barrier(mxrt_kvstore *store);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MXRT_KVSTORE_H */
