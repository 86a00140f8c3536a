/* SPDX-License-Identifier: Apache-2.0
 *
 * Helpers of the C benches (sgemm.c, sgemm_pair.c, conv_layers.c,
 * pool_layers.c, qgemm.c, bgemm.c): reading a raw float32 matrix, random
 * floats, a monotonic clock in ms, the median of a set of times and the
 * CPU's name. */
#ifndef MXC_BENCH_UTIL_H
#define MXC_BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The CPU's model name from /proc/cpuinfo ("unknown" elsewhere). */
static inline void cpuName(char *out, size_t size) {
  snprintf(out, size, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return;
  char line[512];
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "model name", 10) == 0) {
      char *colon = strchr(line, ':');
      if (colon) {
        snprintf(out, size, "%s", colon + 2);
        out[strcspn(out, "\n")] = 0;
      }
      break;
    }
  fclose(f);
}

#endif /* MXC_BENCH_UTIL_H */
