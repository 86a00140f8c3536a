// SPDX-License-Identifier: Apache-2.0
//
// What the KVStore's translation units share (libmxrt_kvstore, not
// installed): tensor helpers, a key's entry, the built-in update rules, the
// communication thread of the collectives (Comm), dist_async's server
// (AsyncServer, kvstore_async.cpp) and the store itself.
#ifndef MXRT_SRC_KVSTORE_INTERNAL_H
#define MXRT_SRC_KVSTORE_INTERNAL_H

#include "mxrt/kvstore.h"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace mxrt::kv {

using Clock = std::chrono::steady_clock;

inline std::string shapeOf(const mxrt_tensor *t) {
  int32_t ndim = mxrt_tensor_ndim(t);
  if (ndim == 0)
    return "scalar";
  std::string s;
  for (int32_t d = 0; d < ndim; ++d)
    s += (d ? "x" : "") + std::to_string(mxrt_tensor_shape(t)[d]);
  return s;
}

inline bool sameLayout(const mxrt_tensor *a, const mxrt_tensor *b) {
  if (mxrt_tensor_dtype(a) != mxrt_tensor_dtype(b) ||
      mxrt_tensor_ndim(a) != mxrt_tensor_ndim(b))
    return false;
  return std::equal(mxrt_tensor_shape(a),
                    mxrt_tensor_shape(a) + mxrt_tensor_ndim(a),
                    mxrt_tensor_shape(b));
}

struct TensorDeleter {
  void operator()(mxrt_tensor *t) const { mxrt_tensor_release(t); }
};
using TensorPtr = std::unique_ptr<mxrt_tensor, TensorDeleter>;

inline mxrt_status newLike(const mxrt_tensor *like, TensorPtr &out) {
  mxrt_tensor *t;
  if (mxrt_status status =
          mxrt_tensor_create(mxrt_tensor_dtype(like), mxrt_tensor_ndim(like),
                             mxrt_tensor_shape(like), &t))
    return status;
  std::memset(mxrt_tensor_data(t), 0, mxrt_tensor_size_bytes(t));
  out.reset(t);
  return MXRT_OK;
}

inline float *floats(mxrt_tensor *t) {
  return static_cast<float *>(mxrt_tensor_data(t));
}

/// One key's value, the scratch its pushes merge into, and its optimizer
/// state.
struct Entry {
  /// What every tensor of the key must be, fixed at init: `value` and
  /// `merged` trade places in engine operations while calls check tensors
  /// against the key, so the checks read these instead.
  mxrt_dtype dtype = MXRT_F32;
  std::vector<int64_t> shape;
  TensorPtr value;
  TensorPtr merged;
  std::vector<TensorPtr> states;
  int64_t updates = 0;
  mxrt_var *var = nullptr;
  /// A pushpull of a store that keeps no values (mxrt_kvstore_set_keep_
  /// values) left `value` stale; a push without a rule or an init or
  /// load sets it again.
  bool valueGone = false;
};

/// The built-in update rules, the formulas of passes/graph/TrainStep.cpp.
struct Optimizer {
  std::string name;
  mxrt_optimizer_options o;

  size_t numStates() const { return stateNames().size(); }

  /// What each state is saved as.
  std::vector<std::string> stateNames() const {
    if (name == "momentum")
      return {"momentum"};
    if (name == "adam")
      return {"mean", "var"};
    if (name == "rmsprop")
      return {"sqavg"};
    return {};
  }

  /// One update of all n elements.
  void apply(const float *grad, float *w, Entry &entry, int64_t n) const {
    ++entry.updates;
    applyRange(grad, w, entry, 0, n);
  }

  /// Elements [begin, end) of the update counted in entry.updates (the
  /// caller counts it once for all its ranges).
  void applyRange(const float *grad, float *w, Entry &entry, int64_t begin,
                  int64_t end) const {
    float *s0 =
        entry.states.size() > 0 ? floats(entry.states[0].get()) : nullptr;
    float *s1 =
        entry.states.size() > 1 ? floats(entry.states[1].get()) : nullptr;
    double t = double(entry.updates);
    float adamLr =
        float(o.learning_rate * std::sqrt(1.0 - std::pow(o.beta2, t)) /
              (1.0 - std::pow(o.beta1, t)));
    for (int64_t i = begin; i < end; ++i) {
      float g = grad[i] * o.rescale_grad;
      if (o.clip_gradient > 0)
        g = std::min(std::max(g, -o.clip_gradient), o.clip_gradient);
      g += o.weight_decay * w[i];
      if (name == "sgd") {
        w[i] -= o.learning_rate * g;
      } else if (name == "momentum") {
        s0[i] = o.momentum * s0[i] - o.learning_rate * g;
        w[i] += s0[i];
      } else if (name == "adam") {
        s0[i] = o.beta1 * s0[i] + (1 - o.beta1) * g;
        s1[i] = o.beta2 * s1[i] + (1 - o.beta2) * g * g;
        w[i] -= adamLr * s0[i] / (std::sqrt(s1[i]) + o.epsilon);
      } else { // rmsprop
        s0[i] = o.rho * s0[i] + (1 - o.rho) * g * g;
        w[i] -= o.learning_rate * g / std::sqrt(s0[i] + o.epsilon);
      }
    }
  }
};

/// The MPI side of a dist store: its communicator, the communication
/// thread that makes its collectives in call order, the watchdog, and the
/// workers' hosts for the two-level sum (kvstore_comm.cpp).
class Comm {
public:
  /// A collective: `run` makes it (on the communication thread) and
  /// returns its status; `what` names it for the watchdog ("pushpull of key
  /// 3").
  struct Request {
    std::function<mxrt_status()> run;
    std::function<void(mxrt_status, const std::string &)> done;
    std::string what;
  };

  mxrt_status start(double timeoutSeconds);
  void stop();

  /// The sequence number of the next collective, taken when the call that
  /// needs it is made.
  uint64_t reserve() { return nextReserved++; }

  /// Hands over collective `seq`; they run in sequence order.
  void submit(uint64_t seq, Request request);

  /// Runs a collective now (its sequence number reserved by the caller)
  /// and waits for it.
  mxrt_status runNow(uint64_t seq, std::function<mxrt_status()> run,
                     std::string what);

  /// out = the sum over every worker of `in` (MPI_IN_PLACE: of out), count
  /// elements of `type`: one MPI_Allreduce, or in two levels where the
  /// workers share hosts and there are several hosts (a sum over each
  /// host's shared memory, one across the hosts, a broadcast back). False
  /// where an MPI call failed.
  bool sum(const void *in, void *out, int count, MPI_Datatype type);

  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  /// Hosts the workers run on (MXRT_KVSTORE_RANKS_PER_HOST=k: every k
  /// consecutive ranks count as one, so one machine stands in for several)
  /// and whether sums go in two levels.
  int hosts = 1;
  bool twoLevel = false;

private:
  static void finalizeAtExit();
  mxrt_status splitHosts();
  void loop();
  void respond();
  std::string silentWorkers();
  void watch();

  static constexpr int kPing = 1, kPong = 2;
  std::mutex mutex;
  std::condition_variable wake;    // the communication thread's
  std::condition_variable stopped; // the watchdog's
  std::map<uint64_t, Request> requests;
  std::atomic<uint64_t> nextReserved{0};
  uint64_t nextToRun = 0;
  bool stopping = false;
  bool busy = false;
  std::string current;
  Clock::time_point since;
  double timeout = 0;
  std::thread thread, watchdog, responder;
  MPI_Comm live = MPI_COMM_NULL;
  // This host's workers (local rank 0 first) and, on local rank 0, the
  // hosts' first workers.
  MPI_Comm host = MPI_COMM_NULL, leaders = MPI_COMM_NULL;
  int hostRank = 0;
  std::atomic<bool> responding{true};
};

/// The pieces a dist_sync push reduces one after the other: 1 MiB, which
/// stays in L2 for the copy or update that follows each in an in-place
/// pushpull, and which Open MPI reduces faster than one large piece
/// (bench/kvstore_bench.cpp, docs/distributed.md).
constexpr int64_t kChunkBytes = 1 << 20;

inline MPI_Datatype mpiType(mxrt_dtype dtype) {
  return dtype == MXRT_F64 ? MPI_DOUBLE : MPI_FLOAT;
}

/// Waits for `request` (MPI_Test in a loop, sleeping between tries, since
/// Open MPI's blocking calls spin a core); past `timeout` seconds (> 0)
/// ends the job with a message naming this rank and `what`.
void waitOrAbort(MPI_Request &request, double timeout, int rank, int size,
                 const std::string &what);

/// dist_async's parameter server: every rank serves the keys k with k %
/// size == rank on a thread of its own, applying each push as it arrives
/// and answering pulls with the value at that moment. Messages go over a
/// communicator of their own: a header (kind, key, reply tag) then, for a
/// push, the gradient.
class AsyncServer {
public:
  enum Kind : int64_t { Push = 1, Pull = 2, Stop = 3, Flush = 4 };
  struct Header {
    int64_t kind, key, replyTag;
  };
  static constexpr int kHeaderTag = 1, kDataTag = 2, kFirstReplyTag = 16;

  mxrt_status start(mxrt_kvstore *owner, MPI_Comm world, double timeoutSeconds);
  /// Tells every server this worker is done, then waits for its own to
  /// hear the same from every worker.
  void stop();
  int serverOf(int32_t key) const {
    return int(uint32_t(key) % uint32_t(size));
  }
  /// Sends a push of `count` elements at `data` to the key's server.
  void push(int32_t key, const void *data, int64_t count, MPI_Datatype type);
  /// Fetches the key's value from its server into `out`.
  void pull(int32_t key, void *out, int64_t count, MPI_Datatype type);
  /// Returns once every server has applied every push this worker sent.
  void flush();

  /// Guards the served entries against save and load on other threads.
  std::mutex entries;
  /// A pull waits while its worker pushed the key more than this many
  /// times beyond the slowest running worker; negative: never.
  std::atomic<int32_t> staleness{-1};

private:
  struct Deferred {
    int source;
    Header header;
  };
  void serve();
  bool mayAnswer(int source, int64_t key);
  void answer(int source, const Header &h);

  mxrt_kvstore *store = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  double timeout = 0;
  std::mutex sending; // a header and its data go out together
  std::atomic<int> nextReply{0};
  std::thread thread;
  // Server thread only:
  std::map<int64_t, std::vector<int64_t>> pushes; // key -> per worker
  std::vector<bool> stopped;
  std::vector<Deferred> deferred;
};

} // namespace mxrt::kv

struct mxrt_kvstore {
  std::string type;
  bool dist = false;
  mxrt_engine *engine = nullptr;
  std::map<int32_t, mxrt::kv::Entry> keys;
  std::mutex varsMutex;
  std::unordered_map<const mxrt_tensor *, mxrt_var *> tensorVars;
  std::unique_ptr<mxrt::kv::Optimizer> optimizer;
  mxrt_kvstore_updater updater = nullptr;
  void *updaterArg = nullptr;
  mxrt::kv::Comm comm;
  bool async = false;
  /// mxrt_kvstore_set_keep_values.
  bool keepValues = true;
  mxrt::kv::AsyncServer server;

  mxrt_var *varOf(const mxrt_tensor *t) {
    std::lock_guard<std::mutex> lock(varsMutex);
    mxrt_var *&var = tensorVars[t];
    if (!var && mxrt_engine_new_var(engine, &var) != MXRT_OK)
      var = nullptr;
    return var;
  }

  /// The entry of `key`, or NOT_FOUND naming the call.
  mxrt_status find(const char *what, int32_t key, mxrt::kv::Entry *&out) {
    auto it = keys.find(key);
    if (it == keys.end())
      return mxrt_set_error(MXRT_NOT_FOUND,
                            "%s: key %d was never initialized (%s store, "
                            "rank %d)",
                            what, key, type.c_str(), comm.rank);
    out = &it->second;
    return MXRT_OK;
  }

  mxrt_status checkTensors(const char *what, int32_t key,
                           const mxrt::kv::Entry &entry,
                           mxrt_tensor *const *tensors, size_t n,
                           const char *role) {
    if (n == 0 || !tensors)
      return mxrt_set_error(MXRT_INVALID_ARGUMENT, "%s: key %d: no %s given",
                            what, key, role);
    for (size_t i = 0; i < n; ++i) {
      if (!tensors[i])
        return mxrt_set_error(MXRT_INVALID_ARGUMENT,
                              "%s: key %d: %s %zu is NULL", what, key, role, i);
      const mxrt_tensor *t = tensors[i];
      if (mxrt_tensor_dtype(t) != entry.dtype ||
          !std::equal(entry.shape.begin(), entry.shape.end(),
                      mxrt_tensor_shape(t),
                      mxrt_tensor_shape(t) + mxrt_tensor_ndim(t))) {
        std::string held = "scalar";
        for (size_t d = 0; d < entry.shape.size(); ++d)
          held = (d ? held + "x" : "") + std::to_string(entry.shape[d]);
        return mxrt_set_error(
            MXRT_INVALID_ARGUMENT,
            "%s: key %d: %s %zu is %s %s, the key holds %s %s (rank %d)", what,
            key, role, i, mxrt_dtype_name(mxrt_tensor_dtype(t)),
            mxrt::kv::shapeOf(t).c_str(), mxrt_dtype_name(entry.dtype),
            held.c_str(), comm.rank);
      }
    }
    return MXRT_OK;
  }

  /// Applies the update (or the assignment) of `key` from `gradient`
  /// (entry.merged unless given).
  mxrt_status update(int32_t key, mxrt::kv::Entry &entry,
                     mxrt_tensor *gradient = nullptr) {
    if (!gradient)
      gradient = entry.merged.get();
    if (entry.valueGone && (updater || optimizer))
      return mxrt_set_error(MXRT_NOT_FOUND,
                            "push of key %d: the key holds no value to "
                            "update (its last pushpull kept none: "
                            "mxrt_kvstore_set_keep_values 0); init it again",
                            key);
    if (updater)
      return updater(key, gradient, entry.value.get(), updaterArg);
    int64_t n = mxrt_tensor_num_elements(entry.value.get());
    if (optimizer) {
      optimizer->apply(mxrt::kv::floats(gradient),
                       mxrt::kv::floats(entry.value.get()), entry, n);
      return MXRT_OK;
    }
    // The merged sum becomes the value; the old value's buffer is the
    // next push's scratch (a swap, not a copy of the whole array).
    entry.valueGone = false;
    if (gradient == entry.merged.get())
      std::swap(entry.value, entry.merged);
    else
      std::memcpy(mxrt_tensor_data(entry.value.get()),
                  mxrt_tensor_data(gradient), mxrt_tensor_size_bytes(gradient));
    return MXRT_OK;
  }
};

#endif // MXRT_SRC_KVSTORE_INTERNAL_H
