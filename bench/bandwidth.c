// SPDX-License-Identifier: Apache-2.0
//
// The machine's read bandwidth, the bound of a decoder's token-by-token step
// (each token streams every weight once): THREADS threads each sum their own
// contiguous part of a buffer of MIB mebibytes (a cache line at a time, four
// running sums), best of ROUNDS passes over pages written beforehand. Build it
// with -O3 -march=native: on the Intel Xeon VM, eight scalar sums read 8.5
// GB/s on one core, the same loop vectorized 15 (mxc's decode step streams
// its weights at 13). Prints one JSON line:
//   {"threads": T, "bytes": B, "gbs": G}
//
//   bandwidth [THREADS] [MIB] [ROUNDS]      (defaults 1, 1024, 5)

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  const uint64_t *words;
  size_t count;
  pthread_barrier_t *start;
  uint64_t sum;
} Part;

// Four running sums of 64-byte vectors (GCC / Clang vector extensions: one
// load per cache line whatever the flags; with -march=native one AVX-512 or
// two AVX2 loads), so that neither the adds nor the loads' count, only the
// memory, sets the pace. `w` is 64-byte aligned.
typedef uint64_t Line __attribute__((vector_size(64)));

static uint64_t sumWords(const uint64_t *w, size_t n) {
  const Line *lines = (const Line *)w;
  Line s[4] = {{0}, {0}, {0}, {0}};
  size_t i = 0, nLines = n / 8;
  for (; i + 4 <= nLines; i += 4)
    for (int j = 0; j < 4; ++j)
      s[j] += lines[i + j];
  for (; i < nLines; ++i)
    s[0] += lines[i];
  uint64_t sum = 0;
  for (size_t k = nLines * 8; k < n; ++k)
    sum += w[k];
  Line total = s[0] + s[1] + s[2] + s[3];
  for (int j = 0; j < 8; ++j)
    sum += total[j];
  return sum;
}

static void *readPart(void *arg) {
  Part *p = arg;
  pthread_barrier_wait(p->start);
  p->sum = sumWords(p->words, p->count);
  return NULL;
}

static double nowSeconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  long mib = argc > 2 ? atol(argv[2]) : 1024;
  int rounds = argc > 3 ? atoi(argv[3]) : 5;
  if (argc > 4 || threads < 1 || threads > 1024 || mib < 1 || rounds < 1) {
    fprintf(stderr, "usage: bandwidth [THREADS] [MIB] [ROUNDS]\n");
    return 2;
  }
  size_t bytes = (size_t)mib << 20, count = bytes / sizeof(uint64_t);
  uint64_t *words = aligned_alloc(4096, bytes);
  if (!words) {
    fprintf(stderr, "bandwidth: cannot allocate %ld MiB\n", mib);
    return 1;
  }
  for (size_t i = 0; i < count; ++i)
    words[i] = i;
  Part *parts = calloc(threads, sizeof(Part));
  pthread_t *ids = calloc(threads, sizeof(pthread_t));
  pthread_barrier_t start;
  if (!parts || !ids || pthread_barrier_init(&start, NULL, threads + 1)) {
    fprintf(stderr, "bandwidth: cannot set up %d threads\n", threads);
    return 1;
  }
  double best = 1e300;
  uint64_t check = 0;
  for (int round = 0; round < rounds; ++round) {
    for (int t = 0; t < threads; ++t) {
      size_t begin = count * t / threads, end = count * (t + 1) / threads;
      parts[t] = (Part){words + begin, end - begin, &start, 0};
      if (pthread_create(&ids[t], NULL, readPart, &parts[t])) {
        fprintf(stderr, "bandwidth: cannot start thread %d\n", t);
        return 1;
      }
    }
    pthread_barrier_wait(&start);
    double begin = nowSeconds();
    for (int t = 0; t < threads; ++t) {
      pthread_join(ids[t], NULL);
      check += parts[t].sum;
    }
    double seconds = nowSeconds() - begin;
    if (seconds < best)
      best = seconds;
  }
  // The sums are printed so that no pass can be optimized away.
  printf("{\"threads\": %d, \"bytes\": %zu, \"gbs\": %.2f, \"check\": %llu}\n",
         threads, bytes, bytes / best / 1e9, (unsigned long long)check);
  free(parts);
  free(ids);
  free(words);
  return 0;
}
