// SPDX-License-Identifier: Apache-2.0
//
// The collectives' side of a dist store (Comm in kvstore_internal.h): the
// communication thread that makes them in call order, the watchdog that
// ends a job whose collective makes no progress, the liveness probes it
// names the silent workers by, and the two-level sum across hosts.

#include "kvstore_internal.h"

namespace mxrt::kv {

void Comm::finalizeAtExit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized)
    MPI_Finalize();
}

mxrt_status Comm::start(double timeoutSeconds) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  int provided = 0;
  if (!initialized) {
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) !=
        MPI_SUCCESS)
      return mxrt_set_error(MXRT_INTERNAL,
                            "mxrt_kvstore_create: MPI_Init_thread failed");
    std::atexit(finalizeAtExit);
  } else {
    MPI_Query_thread(&provided);
  }
  if (provided < MPI_THREAD_MULTIPLE)
    return mxrt_set_error(
        MXRT_UNSUPPORTED,
        "mxrt_kvstore_create: this MPI gives thread level %d, the store "
        "needs MPI_THREAD_MULTIPLE (%d)",
        provided, int(MPI_THREAD_MULTIPLE));
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_dup(MPI_COMM_WORLD, &live);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (mxrt_status status = splitHosts())
    return status;
  timeout = timeoutSeconds;
  thread = std::thread([this] { loop(); });
  watchdog = std::thread([this] { watch(); });
  responder = std::thread([this] { respond(); });
  return MXRT_OK;
}

/// MPI_COMM_TYPE_SHARED groups the ranks that share a host's memory;
/// MXRT_KVSTORE_RANKS_PER_HOST=k makes ranks [0, k), [k, 2k), ... the
/// hosts instead (a test of the two-level sum on one machine).
mxrt_status Comm::splitHosts() {
  int perHost = 0;
  if (const char *env = std::getenv("MXRT_KVSTORE_RANKS_PER_HOST")) {
    perHost = std::atoi(env);
    if (perHost < 1)
      return mxrt_set_error(MXRT_INVALID_ARGUMENT,
                            "mxrt_kvstore_create: MXRT_KVSTORE_RANKS_PER_HOST "
                            "is '%s', not a positive count",
                            env);
  }
  int ok = perHost ? MPI_Comm_split(comm, rank / perHost, rank, &host)
                   : MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank,
                                         MPI_INFO_NULL, &host);
  if (ok != MPI_SUCCESS)
    return mxrt_set_error(MXRT_INTERNAL,
                          "mxrt_kvstore_create: splitting the workers by "
                          "host failed on rank %d",
                          rank);
  MPI_Comm_rank(host, &hostRank);
  int first = hostRank == 0;
  MPI_Allreduce(&first, &hosts, 1, MPI_INT, MPI_SUM, comm);
  MPI_Comm_split(comm, first ? 0 : MPI_UNDEFINED, rank, &leaders);
  twoLevel = hosts > 1 && hosts < size;
  return MXRT_OK;
}

bool Comm::sum(const void *in, void *out, int count, MPI_Datatype type) {
  if (!twoLevel)
    return MPI_Allreduce(in, out, count, type, MPI_SUM, comm) == MPI_SUCCESS;
  // MPI_Reduce takes MPI_IN_PLACE at its root only.
  const void *send = in == MPI_IN_PLACE && hostRank != 0 ? out : in;
  if (MPI_Reduce(send, out, count, type, MPI_SUM, 0, host) != MPI_SUCCESS)
    return false;
  if (hostRank == 0 && MPI_Allreduce(MPI_IN_PLACE, out, count, type, MPI_SUM,
                                     leaders) != MPI_SUCCESS)
    return false;
  return MPI_Bcast(out, count, type, 0, host) == MPI_SUCCESS;
}

void Comm::stop() {
  if (!thread.joinable())
    return;
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  stopped.notify_all();
  thread.join();
  watchdog.join();
  // The responder answers until every worker has stopped asking: a
  // barrier on its communicator, then it leaves.
  MPI_Barrier(live);
  responding = false;
  responder.join();
  MPI_Comm_free(&live);
  if (leaders != MPI_COMM_NULL)
    MPI_Comm_free(&leaders);
  MPI_Comm_free(&host);
  MPI_Comm_free(&comm);
}

void Comm::submit(uint64_t seq, Request request) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    requests.emplace(seq, std::move(request));
  }
  wake.notify_one();
}

mxrt_status Comm::runNow(uint64_t seq, std::function<mxrt_status()> run,
                         std::string what) {
  std::mutex m;
  std::condition_variable cv;
  bool finished = false;
  mxrt_status result = MXRT_OK;
  std::string message;
  submit(seq, {std::move(run),
               [&](mxrt_status status, const std::string &text) {
                 std::lock_guard<std::mutex> lock(m);
                 result = status;
                 message = text;
                 finished = true;
                 cv.notify_all();
               },
               std::move(what)});
  std::unique_lock<std::mutex> lock(m);
  cv.wait(lock, [&] { return finished; });
  if (result != MXRT_OK)
    return mxrt_set_error(result, "%s", message.c_str());
  return MXRT_OK;
}

void Comm::loop() {
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    wake.wait(lock, [&] { return stopping || requests.count(nextToRun); });
    auto it = requests.find(nextToRun);
    if (it == requests.end())
      return;
    Request request = std::move(it->second);
    requests.erase(it);
    ++nextToRun;
    current = request.what;
    since = Clock::now();
    busy = true;
    lock.unlock();
    mxrt_set_error(MXRT_OK, "%s", "");
    mxrt_status status = request.run();
    std::string message = status ? mxrt_last_error() : "";
    lock.lock();
    busy = false;
    lock.unlock();
    request.done(status, message);
    lock.lock();
  }
}

/// Answers other workers' liveness probes (a thread of its own, so that
/// a worker busy elsewhere still answers; a stopped or dead one does not).
void Comm::respond() {
  while (responding) {
    int probe = 0, flag = 0;
    MPI_Status status;
    MPI_Request request;
    MPI_Irecv(&probe, 1, MPI_INT, MPI_ANY_SOURCE, kPing, live, &request);
    while (!flag && responding) {
      MPI_Test(&request, &flag, &status);
      if (!flag)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (!flag) {
      MPI_Cancel(&request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      return;
    }
    MPI_Send(&probe, 1, MPI_INT, status.MPI_SOURCE, kPong, live);
  }
}

/// The workers that do not answer a probe within two seconds, as "1, 3".
std::string Comm::silentWorkers() {
  std::vector<MPI_Request> pings, pongs;
  std::vector<int> out(size, 1), in(size, 0), peers;
  for (int r = 0; r < size; ++r) {
    if (r == rank)
      continue;
    peers.push_back(r);
    pongs.emplace_back();
    MPI_Irecv(&in[r], 1, MPI_INT, r, kPong, live, &pongs.back());
    pings.emplace_back();
    MPI_Isend(&out[r], 1, MPI_INT, r, kPing, live, &pings.back());
  }
  Clock::time_point start = Clock::now();
  std::vector<int> answered(peers.size(), 0);
  while (std::chrono::duration<double>(Clock::now() - start).count() < 2) {
    bool all = true;
    for (size_t i = 0; i < peers.size(); ++i) {
      if (!answered[i])
        MPI_Test(&pongs[i], &answered[i], MPI_STATUS_IGNORE);
      all = all && answered[i];
    }
    if (all)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::string silent;
  for (size_t i = 0; i < peers.size(); ++i)
    if (!answered[i])
      silent += (silent.empty() ? "" : ", ") + std::to_string(peers[i]);
  return silent; // the job is about to end: the requests die with it
}

/// Ends the job when a collective makes no progress within the timeout:
/// a worker that died or stalled leaves the others inside it for ever.
/// Before it does, it probes the others and names those that do not
/// answer.
void Comm::watch() {
  std::unique_lock<std::mutex> lock(mutex);
  while (!stopping) {
    stopped.wait_for(lock, std::chrono::milliseconds(100));
    if (busy && timeout > 0 &&
        std::chrono::duration<double>(Clock::now() - since).count() > timeout) {
      std::string what = current;
      lock.unlock();
      std::string silent = silentWorkers();
      std::string who =
          silent.empty()
              ? "every other worker answers a liveness probe: one is "
                "alive but not making this call"
              : "rank " + silent +
                    " does not answer a liveness probe "
                    "(stopped or hung)";
      std::fprintf(stderr,
                   "mxrt kvstore: rank %d of %d: %s made no progress for "
                   "%.0f s: %s; aborting the job (MXRT_KVSTORE_TIMEOUT "
                   "sets the limit)\n",
                   rank, size, what.c_str(), timeout, who.c_str());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 3);
      std::_Exit(3);
    }
  }
}

} // namespace mxrt::kv
