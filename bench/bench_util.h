/* SPDX-License-Identifier: Apache-2.0
 *
 * Helpers of the C benches (sgemm.c, sgemm_pair.c, conv_layers.c,
 * pool_layers.c): reading a raw float32 matrix, random floats, a monotonic
 * clock in ms, and the median of a set of times. */
#ifndef MXC_BENCH_UTIL_H
#define MXC_BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* `count` floats from the raw file at `path`, 64-byte aligned; on failure
 * prints "<program>: cannot read ..." and exits 1. */
static inline float *readMatrix(const char *program, const char *path,
                                size_t count) {
  float *data = aligned_alloc(64, count * sizeof(float));
  FILE *file = fopen(path, "rb");
  if (!data || !file || fread(data, sizeof(float), count, file) != count) {
    fprintf(stderr, "%s: cannot read %zu floats from %s\n", program, count,
            path);
    exit(1);
  }
  fclose(file);
  return data;
}

/* `count` floats uniform in [-0.5, 0.5] from rand(). */
static inline float *randomFloats(int64_t count) {
  float *v = malloc(count * sizeof(float));
  for (int64_t i = 0; i < count; ++i)
    v[i] = (float)rand() / RAND_MAX - 0.5f;
  return v;
}

static inline double nowMs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static inline int compareDoubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts times[0..runs) and returns their median (times[0] is then the
 * minimum). */
static inline double sortedMedian(double *times, int runs) {
  qsort(times, runs, sizeof(double), compareDoubles);
  return runs % 2 ? times[runs / 2]
                  : (times[runs / 2 - 1] + times[runs / 2]) / 2;
}

#endif /* MXC_BENCH_UTIL_H */
