// SPDX-License-Identifier: Apache-2.0
//
// bench/perf_bench.py's one-thread SGEMM timing: mxc's compiled MatMul model
// (through libmxrt's C API, as mxrun calls it) and OpenBLAS's cblas_sgemm in
// one process, call by call in turn (mxc, OpenBLAS, OpenBLAS, mxc, ...), on
// the same A and B. On a VM whose speed swings by a quarter within seconds,
// two processes timed one after the other can land in different stretches;
// calls that alternate share every stretch, so their ratio is what the
// kernels differ by. Each side runs once untimed, then WARMUP more times,
// then RUNS timed calls; the line printed is one JSON object with each
// side's median and minimum in ms. Both outputs are compared (the largest
// difference scaled by max(1, max |C|) is printed as "difference").
//
//   sgemm_pair LIB N WARMUP RUNS A.bin B.bin
//
// LIB is the compiled model (inputs A and B, N x N float32; one output).

#include "bench_util.h"

#include <cblas.h>
#include <mxrt/mxrt.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "sgemm_pair: %s%s%s\n", what, detail ? ": " : "",
          detail ? detail : "");
  exit(1);
}

typedef struct {
  mxrt_instance *instance;
  const void *inputs[2];
  void *outputs[1];
  int n;
  const float *a, *b;
  float *blasC;
} Sides;

static void runMxc(const Sides *s) {
  if (mxrt_instance_run_raw(s->instance, s->inputs, s->outputs))
    fail("the model's run failed", mxrt_last_error());
}

static void runBlas(const Sides *s) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s->n, s->n, s->n, 1.0f,
              s->a, s->n, s->b, s->n, 0.0f, s->blasC, s->n);
}

static double timed(void (*call)(const Sides *), const Sides *s) {
  double start = nowMs();
  call(s);
  return nowMs() - start;
}

static void printSide(const char *name, double *times, int runs) {
  double median = sortedMedian(times, runs);
  printf("\"%s\": {\"median_ms\": %.6f, \"min_ms\": %.6f, \"runs\": %d}", name,
         median, times[0], runs);
}

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: sgemm_pair LIB N WARMUP RUNS A.bin B.bin\n");
    return 1;
  }
  int n = atoi(argv[2]), warmup = atoi(argv[3]), runs = atoi(argv[4]);
  if (n <= 0 || warmup < 0 || runs <= 0)
    fail("N and RUNS must be positive, WARMUP not negative", NULL);
  size_t count = (size_t)n * n;

  mxrt_model *model = NULL;
  if (mxrt_model_open(argv[1], &model))
    fail("cannot open the model", mxrt_last_error());
  mxrt_instance_options options;
  mxrt_instance_options_init(&options);
  options.num_threads = 1;
  Sides s = {0};
  if (mxrt_instance_create(model, &options, &s.instance))
    fail("cannot create an instance", mxrt_last_error());
  if (mxrt_model_num_inputs(model) != 2 || mxrt_model_num_outputs(model) != 1)
    fail("the model must have inputs A, B and one output", argv[1]);
  for (int i = 0; i < 3; ++i) {
    mxrt_tensor_info info;
    if ((i < 2 ? mxrt_model_input_info(model, i, &info)
               : mxrt_model_output_info(model, 0, &info)) ||
        info.dtype != MXRT_F32 || info.ndim != 2 || info.shape[0] != n ||
        info.shape[1] != n)
      fail("the model's inputs and output must be N x N float32", argv[1]);
  }
  openblas_set_num_threads(1);

  s.n = n;
  s.a = readMatrix("sgemm_pair", argv[5], count);
  s.b = readMatrix("sgemm_pair", argv[6], count);
  float *mxcC = aligned_alloc(64, count * sizeof(float));
  s.blasC = aligned_alloc(64, count * sizeof(float));
  double *mxcTimes = malloc(runs * sizeof(double));
  double *blasTimes = malloc(runs * sizeof(double));
  if (!mxcC || !s.blasC || !mxcTimes || !blasTimes)
    fail("out of memory", NULL);
  s.inputs[0] = s.a;
  s.inputs[1] = s.b;
  s.outputs[0] = mxcC;

  for (int i = 0; i <= warmup; ++i) {
    runMxc(&s);
    runBlas(&s);
  }
  double difference = 0, scale = 1;
  for (size_t i = 0; i < count; ++i) {
    difference = fmax(difference, fabs((double)mxcC[i] - s.blasC[i]));
    scale = fmax(scale, fabs((double)s.blasC[i]));
  }
  // mxc first on even calls, OpenBLAS first on odd ones: neither always
  // runs right after the other.
  for (int i = 0; i < runs; ++i) {
    if (i % 2 == 0) {
      mxcTimes[i] = timed(runMxc, &s);
      blasTimes[i] = timed(runBlas, &s);
    } else {
      blasTimes[i] = timed(runBlas, &s);
      mxcTimes[i] = timed(runMxc, &s);
    }
  }
  printf("{");
  printSide("mxc", mxcTimes, runs);
  printf(", ");
  printSide("OpenBLAS", blasTimes, runs);
  printf(", \"difference\": %.3g, \"config\": \"%s\"}\n", difference / scale,
         openblas_get_config());
  mxrt_instance_release(s.instance);
  mxrt_model_release(model);
  return 0;
}
