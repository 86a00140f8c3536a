// SPDX-License-Identifier: Apache-2.0
//
// dist_async's parameter server (AsyncServer in kvstore_internal.h): a
// thread on every rank that serves its share of the keys, and the bounded
// waits of its messages.

#include "kvstore_internal.h"

namespace mxrt::kv {

/// Waits for `request` (MPI_Test in a loop, sleeping between tries, since
/// Open MPI's blocking calls spin a core); past `timeout` seconds (> 0)
/// ends the job with a message naming this rank and `what`.
void waitOrAbort(MPI_Request &request, double timeout, int rank, int size,
                 const std::string &what) {
  Clock::time_point start = Clock::now();
  int spins = 0;
  for (;;) {
    int flag = 0;
    MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
    if (flag)
      return;
    if (timeout > 0 &&
        std::chrono::duration<double>(Clock::now() - start).count() > timeout) {
      std::fprintf(stderr,
                   "mxrt kvstore: rank %d of %d: %s made no progress for "
                   "%.0f s: another worker died or stalled; aborting the job "
                   "(MXRT_KVSTORE_TIMEOUT sets the limit)\n",
                   rank, size, what.c_str(), timeout);
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 3);
      std::_Exit(3);
    }
    if (++spins > 64)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

mxrt_status AsyncServer::start(mxrt_kvstore *owner, MPI_Comm world,
                               double timeoutSeconds) {
  store = owner;
  timeout = timeoutSeconds;
  if (MPI_Comm_dup(world, &comm) != MPI_SUCCESS)
    return mxrt_set_error(MXRT_INTERNAL,
                          "mxrt_kvstore_create: MPI_Comm_dup failed");
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  stopped.assign(size, false);
  thread = std::thread([this] { serve(); });
  return MXRT_OK;
}

void AsyncServer::stop() {
  if (!thread.joinable())
    return;
  Header h{Stop, 0, 0};
  for (int to = 0; to < size; ++to) {
    std::lock_guard<std::mutex> lock(sending);
    MPI_Request request;
    MPI_Isend(&h, sizeof h, MPI_BYTE, to, kHeaderTag, comm, &request);
    waitOrAbort(request, timeout, rank, size,
                "the end of the run (rank " + std::to_string(to) + ")");
  }
  thread.join();
  MPI_Comm_free(&comm);
}

void AsyncServer::push(int32_t key, const void *data, int64_t count,
                       MPI_Datatype type) {
  Header h{Push, key, 0};
  int to = serverOf(key);
  std::string what =
      "push of key " + std::to_string(key) + " to rank " + std::to_string(to);
  std::lock_guard<std::mutex> lock(sending);
  MPI_Request requests[2];
  MPI_Isend(&h, sizeof h, MPI_BYTE, to, kHeaderTag, comm, &requests[0]);
  MPI_Isend(data, int(count), type, to, kDataTag, comm, &requests[1]);
  waitOrAbort(requests[0], timeout, rank, size, what);
  waitOrAbort(requests[1], timeout, rank, size, what);
}

void AsyncServer::pull(int32_t key, void *out, int64_t count,
                       MPI_Datatype type) {
  // A tag of its own, so that concurrent pulls of this worker each get
  // their own reply.
  int span = 1 << 14;
  Header h{Pull, key, kFirstReplyTag + nextReply.fetch_add(1) % span};
  int from = serverOf(key);
  MPI_Request reply, request;
  MPI_Irecv(out, int(count), type, from, int(h.replyTag), comm, &reply);
  {
    std::lock_guard<std::mutex> lock(sending);
    MPI_Isend(&h, sizeof h, MPI_BYTE, from, kHeaderTag, comm, &request);
    waitOrAbort(request, timeout, rank, size,
                "pull of key " + std::to_string(key) + " from rank " +
                    std::to_string(from));
  }
  // No timeout here: a pull may wait for slower workers (staleness).
  waitOrAbort(reply, 0, rank, size, "");
}

void AsyncServer::flush() {
  for (int to = 0; to < size; ++to) {
    Header h{Flush, 0, kFirstReplyTag + nextReply.fetch_add(1) % (1 << 14)};
    int64_t ack = 0;
    std::string what = "a flush of rank " + std::to_string(to);
    MPI_Request reply, request;
    MPI_Irecv(&ack, 1, MPI_INT64_T, to, int(h.replyTag), comm, &reply);
    {
      std::lock_guard<std::mutex> lock(sending);
      MPI_Isend(&h, sizeof h, MPI_BYTE, to, kHeaderTag, comm, &request);
      waitOrAbort(request, timeout, rank, size, what);
    }
    waitOrAbort(reply, timeout, rank, size, what);
  }
}

bool AsyncServer::mayAnswer(int source, int64_t key) {
  int32_t bound = staleness.load();
  if (bound < 0)
    return true;
  std::vector<int64_t> &counts = pushes[key];
  counts.resize(size, 0);
  int64_t slowest = INT64_MAX;
  for (int r = 0; r < size; ++r)
    if (!stopped[r] && r != source)
      slowest = std::min(slowest, counts[r]);
  return slowest == INT64_MAX || counts[source] - slowest <= bound;
}

void AsyncServer::answer(int source, const Header &h) {
  Entry *entry;
  mxrt_tensor *value;
  {
    std::lock_guard<std::mutex> lock(entries);
    entry = &store->keys.at(int32_t(h.key));
    value = entry->value.get();
  }
  MPI_Request request;
  MPI_Isend(mxrt_tensor_data(value), int(mxrt_tensor_num_elements(value)),
            mpiType(mxrt_tensor_dtype(value)), source, int(h.replyTag), comm,
            &request);
  waitOrAbort(request, timeout, rank, size,
              "the answer to rank " + std::to_string(source) +
                  "'s pull of key " + std::to_string(h.key));
}

void AsyncServer::serve() {
  int running = size;
  while (running > 0) {
    Header h;
    MPI_Status status;
    MPI_Request request;
    MPI_Irecv(&h, sizeof h, MPI_BYTE, MPI_ANY_SOURCE, kHeaderTag, comm,
              &request);
    // Idle servers wait here as long as the run lasts.
    int flag = 0, spins = 0;
    while (!flag) {
      MPI_Test(&request, &flag, &status);
      if (!flag && ++spins > 64)
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    int source = status.MPI_SOURCE;
    if (h.kind == Stop) {
      stopped[source] = true;
      --running;
    } else if (h.kind == Push) {
      Entry *found;
      {
        std::lock_guard<std::mutex> lock(entries);
        found = &store->keys.at(int32_t(h.key));
      }
      Entry &entry = *found;
      mxrt_tensor *merged = entry.merged.get();
      MPI_Request data;
      MPI_Irecv(mxrt_tensor_data(merged), int(mxrt_tensor_num_elements(merged)),
                mpiType(mxrt_tensor_dtype(merged)), source, kDataTag, comm,
                &data);
      waitOrAbort(data, timeout, rank, size,
                  "rank " + std::to_string(source) + "'s push of key " +
                      std::to_string(h.key));
      {
        std::lock_guard<std::mutex> lock(entries);
        if (store->update(int32_t(h.key), entry) != MXRT_OK) {
          std::fprintf(stderr,
                       "mxrt kvstore: rank %d: the update of key %lld "
                       "failed: %s; aborting the job\n",
                       rank, (long long)h.key, mxrt_last_error());
          std::fflush(stderr);
          MPI_Abort(MPI_COMM_WORLD, 4);
        }
      }
      std::vector<int64_t> &counts = pushes[h.key];
      counts.resize(size, 0);
      ++counts[source];
    } else if (h.kind == Pull) {
      deferred.push_back({source, h});
    } else if (h.kind == Flush) {
      // Every earlier message of `source` has been handled (they arrive in
      // the order it sent them).
      int64_t ack = 1;
      MPI_Request reply;
      MPI_Isend(&ack, 1, MPI_INT64_T, source, int(h.replyTag), comm, &reply);
      waitOrAbort(reply, timeout, rank, size,
                  "the answer to rank " + std::to_string(source) + "'s flush");
    }
    // Answer every pull the staleness bound lets through (all of them
    // once every worker has stopped).
    for (size_t i = 0; i < deferred.size();) {
      if (running == 0 ||
          mayAnswer(deferred[i].source, deferred[i].header.key)) {
        answer(deferred[i].source, deferred[i].header);
        deferred.erase(deferred.begin() + long(i));
      } else {
        ++i;
      }
    }
  }
}

} // namespace mxrt::kv
