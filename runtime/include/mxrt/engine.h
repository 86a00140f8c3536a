/* SPDX-License-Identifier: Apache-2.0
 *
 * libmxrt's dependency engine, as in MXNet: an operation declares the
 * variables it reads and the variables it writes, and the engine runs
 * operations that do not conflict in parallel on its threads while it keeps
 * every conflicting pair (read-after-write, write-after-read,
 * write-after-write) in the order they were pushed. The KVStore's pushes and
 * pulls run on it, so that communication overlaps computation.
 *
 * A variable is a token, not data: it stands for whatever the operations
 * that name it agree it guards (a parameter's buffer, a key of a KVStore).
 *
 * Errors: an operation that fails marks the variables it writes with its
 * status and message; an operation that reads a marked variable is skipped
 * and passes the mark on to the variables it writes, as MXNet passes
 * exceptions downstream. An operation that only writes a marked variable
 * runs, and clears the mark when it succeeds (it replaced what failed).
 * mxrt_engine_wait_for_var returns a variable's mark, mxrt_engine_wait_all
 * the first failure since the last wait_all.
 *
 * The conventions of mxrt.h hold (status results, mxrt_last_error, owned
 * objects released by *_release).
 */
#ifndef MXRT_ENGINE_H
#define MXRT_ENGINE_H

#include "mxrt/mxrt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mxrt_engine mxrt_engine;
typedef struct mxrt_var mxrt_var;
/** Handed to an asynchronous operation; it calls mxrt_engine_complete with
 *  it exactly once, from any thread, when its work is done. */
typedef struct mxrt_engine_done mxrt_engine_done;

/** An operation's body. Returns MXRT_OK or the status of its failure; the
 *  message is this thread's mxrt_last_error (mxrt_set_error sets one). */
typedef mxrt_status (*mxrt_engine_fn)(void *arg);
/** An asynchronous body: starts its work and returns; whoever finishes the
 *  work calls mxrt_engine_complete(done, ...). */
typedef void (*mxrt_engine_async_fn)(void *arg, mxrt_engine_done *done);

/** An engine with `num_threads` worker threads (0: one per core). */
MXRT_API mxrt_status mxrt_engine_create(int32_t num_threads,
                                        mxrt_engine **out_engine);
/** Waits for every pushed operation, then frees the engine. NULL is a no-op.
 *  Variables not deleted are freed with it. */
MXRT_API void mxrt_engine_release(mxrt_engine *engine);
MXRT_API int32_t mxrt_engine_num_threads(const mxrt_engine *engine);

/** A new variable of `engine`. */
MXRT_API mxrt_status mxrt_engine_new_var(mxrt_engine *engine,
                                         mxrt_var **out_var);
/** Frees `var` once every operation pushed so far that names it has run;
 *  returns at once. The handle must not be used afterwards. */
MXRT_API mxrt_status mxrt_engine_delete_var(mxrt_engine *engine, mxrt_var *var);

/** Pushes an operation: fn(arg) runs on an engine thread once every earlier
 *  operation that writes a variable of `reads`, or reads or writes one of
 *  `writes`, has finished. A variable listed in both counts as written;
 *  duplicates are allowed. Among ready operations a higher `priority` runs
 *  first. `release_arg` (may be NULL) frees `arg` after the operation ran or
 *  was skipped. `name` (may be NULL) is copied and appears in messages.
 *  Fails only on bad arguments or memory; the operation's own outcome is
 *  reported through its variables. */
MXRT_API mxrt_status mxrt_engine_push(mxrt_engine *engine, mxrt_engine_fn fn,
                                      void *arg, void (*release_arg)(void *),
                                      mxrt_var *const *reads, size_t num_reads,
                                      mxrt_var *const *writes,
                                      size_t num_writes, int32_t priority,
                                      const char *name);
/** As mxrt_engine_push, for a body that completes later through
 *  mxrt_engine_complete (MXNet's PushAsync): the engine thread is free as
 *  soon as fn returns, and the variables stay held until completion. */
MXRT_API mxrt_status
mxrt_engine_push_async(mxrt_engine *engine, mxrt_engine_async_fn fn, void *arg,
                       void (*release_arg)(void *), mxrt_var *const *reads,
                       size_t num_reads, mxrt_var *const *writes,
                       size_t num_writes, int32_t priority, const char *name);
/** Ends an asynchronous operation with `status` and `message` (copied; may
 *  be NULL). Exactly once per operation. */
MXRT_API void mxrt_engine_complete(mxrt_engine_done *done, mxrt_status status,
                                   const char *message);

/** Blocks until every operation pushed so far that writes `var` has
 *  finished; returns the variable's error mark (MXRT_OK if none), its
 *  message in mxrt_last_error. */
MXRT_API mxrt_status mxrt_engine_wait_for_var(mxrt_engine *engine,
                                              mxrt_var *var);
/** Blocks until every operation pushed so far that reads or writes one of
 *  `vars` has finished (a buffer may then be written); returns the first
 *  error mark among them (MXRT_OK if none), its message in
 *  mxrt_last_error. Returns at once for variables with nothing pending. */
MXRT_API mxrt_status mxrt_engine_wait_to_write(mxrt_engine *engine,
                                               mxrt_var *const *vars,
                                               size_t count);
/** Blocks until every operation pushed so far has finished; returns the
 *  first failure since the previous wait_all (MXRT_OK if none) and forgets
 *  it. */
MXRT_API mxrt_status mxrt_engine_wait_all(mxrt_engine *engine);

/** Sets this thread's last error message (printf-style) and returns
 *  `status`: how an operation's body, or any code built on libmxrt, reports
 *  a failure in the runtime's words. */
MXRT_API mxrt_status mxrt_set_error(mxrt_status status, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MXRT_ENGINE_H */
