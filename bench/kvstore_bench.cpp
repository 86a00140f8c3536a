// SPDX-License-Identifier: Apache-2.0
//
// What the KVStore costs over the collective it runs on: pushpull of one
// float32 key (a dist_sync store, no optimizer) into the pushed tensor
// itself, against a bare in-place MPI_Allreduce of the same bytes, and
// into another tensor, against a bare out-of-place one (and that plus a
// copy: what a store that keeps its own value must at least do), and the
// in-place pushpull of a store that keeps no values
// (mxrt_kvstore_set_keep_values 0: the store as a plain allreduce), in
// interleaved rounds of the same run, medians per size. Run under mpirun
// (bench/README.md):
//   mpirun -np 2 build/bin/mxrt-kvstore-bench [--sizes-mb 1,4,16,64,256]
//          [--rounds 5]
// Rank 0 prints a Markdown table.

#include "mxrt/kvstore.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void check(mxrt_status status, const char *what) {
  if (status != MXRT_OK) {
    std::fprintf(stderr, "%s: %s\n", what, mxrt_last_error());
    std::exit(1);
  }
}

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Milliseconds `fn` takes, started together on every rank.
template <typename Fn> double timed(const Fn &fn) {
  MPI_Barrier(MPI_COMM_WORLD);
  double start = now();
  fn();
  return 1e3 * (now() - start);
}

} // namespace

int main(int argc, char **argv) {
  std::vector<int64_t> sizesMb = {1, 4, 16, 64, 256};
  int rounds = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--rounds") {
      rounds = std::atoi(argv[i + 1]);
    } else if (flag == "--sizes-mb") {
      sizesMb.clear();
      for (const char *p = argv[i + 1]; *p;) {
        sizesMb.push_back(std::strtoll(p, const_cast<char **>(&p), 10));
        if (*p == ',')
          ++p;
      }
    } else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  mxrt_kvstore *store;
  check(mxrt_kvstore_create("dist_sync", 0, &store), "mxrt_kvstore_create");
  int rank = mxrt_kvstore_rank(store), size = mxrt_kvstore_num_workers(store);
  if (rank == 0)
    std::printf(
        "pushpull vs MPI_Allreduce, float32, %d ranks, medians of %d "
        "interleaved rounds\n\n| MB | MPI_Allreduce in place ms | "
        "pushpull in place ms | / allreduce in place | pushpull in place, "
        "no kept value ms | / allreduce in place | MPI_Allreduce out "
        "of place ms | pushpull into another ms | / allreduce out of place "
        "| out-of-place allreduce + copy ms | / allreduce out of place "
        "|\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        size, rounds);
  int32_t key = 0;
  for (int64_t mb : sizesMb) {
    int64_t n = mb * (1 << 20) / 4;
    mxrt_tensor *grad, *out, *bare, *scratch, *out2, *inPlace;
    check(mxrt_tensor_create(MXRT_F32, 1, &n, &grad), "tensor");
    check(mxrt_tensor_create(MXRT_F32, 1, &n, &out), "tensor");
    check(mxrt_tensor_create(MXRT_F32, 1, &n, &bare), "tensor");
    check(mxrt_tensor_create(MXRT_F32, 1, &n, &scratch), "tensor");
    check(mxrt_tensor_create(MXRT_F32, 1, &n, &out2), "tensor");
    check(mxrt_tensor_create(MXRT_F32, 1, &n, &inPlace), "tensor");
    for (mxrt_tensor *t : {grad, out, bare, scratch, out2, inPlace})
      std::fill_n(static_cast<float *>(mxrt_tensor_data(t)), n, 1.0f);
    check(mxrt_kvstore_init(store, key, grad), "init");
    std::vector<double> mpi, mpiOut, kv, floor, kvInPlace, kvLean;
    for (int r = 0; r <= rounds; ++r) { // round 0 warms up
      double bareMs = timed([&] {
        MPI_Allreduce(MPI_IN_PLACE, mxrt_tensor_data(bare), int(n), MPI_FLOAT,
                      MPI_SUM, MPI_COMM_WORLD);
      });
      double kvMs = timed([&] {
        check(mxrt_kvstore_pushpull(store, key, &grad, 1, &out, 1, 0),
              "pushpull");
        check(mxrt_kvstore_wait_all(store), "wait");
      });
      double bareOutMs = timed([&] {
        MPI_Allreduce(mxrt_tensor_data(grad), mxrt_tensor_data(scratch), int(n),
                      MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      });
      // The floor of a store that keeps its pushed tensor and its own
      // value: an out-of-place allreduce, then a copy into the output.
      double floorMs = timed([&] {
        MPI_Allreduce(mxrt_tensor_data(grad), mxrt_tensor_data(scratch), int(n),
                      MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        std::memcpy(mxrt_tensor_data(out2), mxrt_tensor_data(scratch), n * 4);
      });
      // pushpull into the pushed tensor (the allreduce in place).
      std::fill_n(static_cast<float *>(mxrt_tensor_data(inPlace)), n, 1.0f);
      double inPlaceMs = timed([&] {
        check(mxrt_kvstore_pushpull(store, key, &inPlace, 1, &inPlace, 1, 0),
              "pushpull in place");
        check(mxrt_kvstore_wait_all(store), "wait");
      });
      if (static_cast<float *>(mxrt_tensor_data(inPlace))[n / 2] !=
          float(size)) {
        std::fprintf(stderr, "rank %d: in-place pushpull gave %g\n", rank,
                     static_cast<float *>(mxrt_tensor_data(inPlace))[n / 2]);
        return 1;
      }
      // The same without keeping the sum as the key's value.
      check(mxrt_kvstore_set_keep_values(store, 0), "keep values");
      std::fill_n(static_cast<float *>(mxrt_tensor_data(inPlace)), n, 1.0f);
      double leanMs = timed([&] {
        check(mxrt_kvstore_pushpull(store, key, &inPlace, 1, &inPlace, 1, 0),
              "pushpull in place, no kept value");
        check(mxrt_kvstore_wait_all(store), "wait");
      });
      check(mxrt_kvstore_set_keep_values(store, 1), "keep values");
      if (static_cast<float *>(mxrt_tensor_data(inPlace))[n - 1] !=
          float(size)) {
        std::fprintf(stderr, "rank %d: pushpull without a value gave %g\n",
                     rank,
                     static_cast<float *>(mxrt_tensor_data(inPlace))[n - 1]);
        return 1;
      }
      if (r > 0) {
        mpi.push_back(bareMs);
        mpiOut.push_back(bareOutMs);
        kv.push_back(kvMs);
        floor.push_back(floorMs);
        kvInPlace.push_back(inPlaceMs);
        kvLean.push_back(leanMs);
      }
    }
    float expect = float(size);
    if (static_cast<float *>(mxrt_tensor_data(out))[n - 1] != expect) {
      std::fprintf(stderr, "rank %d: pushpull gave %g, expected %g\n", rank,
                   static_cast<float *>(mxrt_tensor_data(out))[n - 1], expect);
      return 1;
    }
    if (rank == 0)
      std::printf("| %lld | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | "
                  "%.2f | %.2f | %.2f |\n",
                  (long long)mb, median(mpi), median(kvInPlace),
                  median(kvInPlace) / median(mpi), median(kvLean),
                  median(kvLean) / median(mpi), median(mpiOut), median(kv),
                  median(kv) / median(mpiOut), median(floor),
                  median(floor) / median(mpiOut));
    std::fflush(stdout);
    for (mxrt_tensor *t : {grad, out, bare, scratch, out2, inPlace})
      mxrt_tensor_release(t);
    ++key;
  }
  // The update's layout (bare MPI, SGD): replicated (allreduce, every rank
  // updates the whole array) against sharded (reduce-scatter, each rank
  // updates its 1/N, allgather of the new values).
  if (rank == 0)
    std::printf("\nSGD update, replicated vs sharded, %d ranks, medians of "
                "%d interleaved rounds\n\n| MB | allreduce + update ms | "
                "reduce-scatter + update + allgather ms | sharded / "
                "replicated |\n|---:|---:|---:|---:|\n",
                size, rounds);
  for (int64_t mb : sizesMb) {
    int64_t n = mb * (1 << 20) / 4, part = n / size;
    std::vector<float> g(n, 1.0f), w(n, 0.0f), shard(part);
    std::vector<double> replicated, sharded;
    for (int r = 0; r <= rounds; ++r) {
      double replicatedMs = timed([&] {
        MPI_Allreduce(MPI_IN_PLACE, g.data(), int(n), MPI_FLOAT, MPI_SUM,
                      MPI_COMM_WORLD);
        for (int64_t i = 0; i < n; ++i)
          w[i] -= 0.01f * g[i];
      });
      double shardedMs = timed([&] {
        MPI_Reduce_scatter_block(g.data(), shard.data(), int(part), MPI_FLOAT,
                                 MPI_SUM, MPI_COMM_WORLD);
        float *mine = w.data() + rank * part;
        for (int64_t i = 0; i < part; ++i)
          mine[i] -= 0.01f * shard[i];
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, w.data(), int(part),
                      MPI_FLOAT, MPI_COMM_WORLD);
      });
      if (r > 0) {
        replicated.push_back(replicatedMs);
        sharded.push_back(shardedMs);
      }
    }
    if (rank == 0)
      std::printf("| %lld | %.2f | %.2f | %.2f |\n", (long long)mb,
                  median(replicated), median(sharded),
                  median(sharded) / median(replicated));
    std::fflush(stdout);
  }
  mxrt_kvstore_release(store);
  return 0;
}
