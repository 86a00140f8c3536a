// SPDX-License-Identifier: Apache-2.0
//
// OpenBLAS's side of bench/perf_bench.py's SGEMM row: C = A * B for N x N
// row-major float32 matrices read from raw files, through cblas_sgemm at a
// given thread count. Like mxrun and ort_run.js, it runs once untimed (that
// C is written), then WARMUP more times untimed, then RUNS timed, and prints
// the median latency as one JSON line.
//
//   sgemm N THREADS WARMUP RUNS A.bin B.bin [C.bin]

#include "bench_util.h"

#include <cblas.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void sgemm(int n, const float *a, const float *b, float *c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b,
              n, 0.0f, c, n);
}

int main(int argc, char **argv) {
  if (argc < 7 || argc > 8) {
    fprintf(stderr, "usage: sgemm N THREADS WARMUP RUNS A.bin B.bin [C.bin]\n");
    return 1;
  }
  int n = atoi(argv[1]), threads = atoi(argv[2]);
  int warmup = atoi(argv[3]), runs = atoi(argv[4]);
  if (n <= 0 || threads <= 0 || warmup < 0 || runs <= 0) {
    fprintf(stderr, "sgemm: N, THREADS and RUNS must be positive\n");
    return 1;
  }
  size_t count = (size_t)n * n;
  float *a = readMatrix("sgemm", argv[5], count),
        *b = readMatrix("sgemm", argv[6], count);
  float *c = malloc(count * sizeof(float));
  double *times = malloc(runs * sizeof(double));
  if (!c || !times)
    return 1;
  openblas_set_num_threads(threads);

  sgemm(n, a, b, c);
  if (argc == 8) {
    FILE *file = fopen(argv[7], "wb");
    if (!file || fwrite(c, sizeof(float), count, file) != count) {
      fprintf(stderr, "sgemm: cannot write %s\n", argv[7]);
      return 1;
    }
    fclose(file);
  }
  for (int i = 0; i < warmup; ++i)
    sgemm(n, a, b, c);
  for (int i = 0; i < runs; ++i) {
    double start = nowMs();
    sgemm(n, a, b, c);
    times[i] = nowMs() - start;
  }
  double median = sortedMedian(times, runs);
  printf("{\"median_ms\": %.6f, \"min_ms\": %.6f, \"runs\": %d, "
         "\"config\": \"%s\"}\n",
         median, times[0], runs, openblas_get_config());
  free(a);
  free(b);
  free(c);
  free(times);
  return 0;
}
