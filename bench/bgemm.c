// SPDX-License-Identifier: Apache-2.0
// Times libmxrt's bfloat16 products (mxrt_kernel_sgemm and
// mxrt_kernel_sconv2d with MXRT_KERNEL_BF16) against the float32 ones on
// the same operands, one thread, the calls alternating in one process so
// that all see the same stretches of a noisy machine: per shape the median
// of each, GFLOP/s and the speed-up. GEMMs pack both operands on every call
// (no MXRT_KERNEL_CONST_*); convolutions have constant weights
// (MXRT_KERNEL_CONST_A), as a compiled model's, so float32 takes Winograd
// or its direct kernels where it would, each in both layouts (NCHW, and
// NHWC, where --precision=bf16 runs layers of 16 channels and more).
// Prints the CPU and each family's
// path. Build and run from the project root after a build (one line):
//   cc -O2 -Iruntime/include bench/bgemm.c -Lbuild/lib -lmxrt
//      -Wl,-rpath,$PWD/build/lib -o /tmp/bgemm && /tmp/bgemm
// MXRT_KERNEL_ISA=avx512 times the widening path (no vdpbf16ps), portable
// the portable one.
#include "bench_util.h"
#include "mxrt/kernels.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *what;
  int64_t m, n, k;
} Shape;

static const Shape kShapes[] = {
    {"square 256", 256, 256, 256},
    {"square 512", 512, 512, 512},
    {"square 1024", 1024, 1024, 1024},
    {"ResNet-50 res2 3x3 im2col (64, 56x56)", 3136, 64, 576},
    {"BERT-base FF1, sequence 128", 128, 3072, 768},
};

typedef struct {
  const char *what;
  int64_t c, hw, f, kernel, stride;
} ConvShape;

static const ConvShape kConvs[] = {
    {"ResNet stem 7x7/2 (3 -> 64, 224x224)", 3, 224, 64, 7, 2},
    {"ResNet-18 3x3 (64, 56x56)", 64, 56, 64, 3, 1},
    {"ResNet-18 3x3 (256, 14x14)", 256, 14, 256, 3, 1},
    {"ResNet 3x3 (512, 7x7)", 512, 7, 512, 3, 1},
    {"ResNet-18 3x3/2 (128 -> 256, 28x28)", 128, 28, 256, 3, 2},
    {"ResNet-50 1x1 (256 -> 64, 56x56)", 256, 56, 64, 1, 1},
    {"ResNet-50 1x1/2 (256 -> 512, 56x56)", 256, 56, 512, 1, 2},
};

static void row(const char *what, const char *extents, double b, double f,
                double flops) {
  printf("| %s | %s | %.3f | %.3f | %.0f | %.0f | %.2f |\n", what, extents, b,
         f, flops / b * 1e-6, flops / f * 1e-6, f / b);
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 15;
  if (runs <= 0) {
    fprintf(stderr, "usage: bgemm [RUNS]\n");
    return 1;
  }
  char cpu[256];
  cpuName(cpu, sizeof cpu);
  const char *bpath = mxrt_kernel_path("bgemm");
  printf("CPU: %s; paths: bgemm %s, gemm %s; one thread, median of %d "
         "alternating calls\n\n",
         cpu, bpath ? bpath : "(not named)", mxrt_kernel_path("gemm"), runs);
  printf("| product | m x n x k | bfloat16 (ms) | float32 (ms) | bfloat16 "
         "GFLOP/s | float32 GFLOP/s | speed-up |\n"
         "|---|---|---:|---:|---:|---:|---:|\n");
  double *bt = malloc(sizeof(double) * runs),
         *ft = malloc(sizeof(double) * runs);
  for (size_t s = 0; s < sizeof kShapes / sizeof kShapes[0]; ++s) {
    const Shape *sh = &kShapes[s];
    int64_t m = sh->m, n = sh->n, k = sh->k;
    float *a = randomFloats(m * k), *b = randomFloats(k * n),
          *c = malloc(sizeof(float) * m * n);
    if (!a || !b || !c || !bt || !ft) {
      fprintf(stderr, "bgemm: out of memory\n");
      return 1;
    }
    for (int r = -2; r < runs; ++r) { // two untimed rounds first
      double t0 = nowMs();
      mxrt_kernel_sgemm(1, m, n, k, a, 0, k, 1, b, 0, n, 1, c, 0, n, 1, NULL, 0,
                        0, 0, MXRT_KERNEL_BF16);
      double t1 = nowMs();
      mxrt_kernel_sgemm(1, m, n, k, a, 0, k, 1, b, 0, n, 1, c, 0, n, 1, NULL, 0,
                        0, 0, 0);
      double t2 = nowMs();
      if (r >= 0) {
        bt[r] = t1 - t0;
        ft[r] = t2 - t1;
      }
    }
    char extents[64];
    snprintf(extents, sizeof extents, "%lld x %lld x %lld", (long long)m,
             (long long)n, (long long)k);
    row(sh->what, extents, sortedMedian(bt, runs), sortedMedian(ft, runs),
        2.0 * m * n * k);
    free(a), free(b), free(c);
  }
  printf("\n| convolution, batch 1, bias + ReLU | c h w -> f | bfloat16 NCHW "
         "(ms) | bfloat16 NHWC (ms) | float32 NCHW (ms) | float32 NHWC (ms) "
         "| best bfloat16 GFLOP/s | speed-up (best / best) |\n"
         "|---|---|---:|---:|---:|---:|---:|---:|\n");
  double *times[4];
  for (int v = 0; v < 4; ++v)
    times[v] = malloc(sizeof(double) * runs);
  for (size_t s = 0; s < sizeof kConvs / sizeof kConvs[0]; ++s) {
    const ConvShape *cv = &kConvs[s];
    int64_t c = cv->c, hw = cv->hw, f = cv->f, kk = cv->kernel, pad = kk / 2,
            st = cv->stride;
    int64_t o = (hw + 2 * pad - kk) / st + 1;
    // Distinct weights for each variant: each keeps its own packed copy.
    float *x = randomFloats(c * hw * hw), *bias = randomFloats(f),
          *y = malloc(sizeof(float) * f * o * o), *w[4];
    for (int v = 0; v < 4; ++v)
      w[v] = randomFloats(f * c * kk * kk);
    if (!x || !bias || !y || !w[0] || !w[1] || !w[2] || !w[3] || !times[3]) {
      fprintf(stderr, "bgemm: out of memory\n");
      return 1;
    }
    // Variants: bfloat16 NCHW, NHWC, float32 NCHW, NHWC, alternating.
    const int32_t flags[4] = {MXRT_KERNEL_BF16,
                              MXRT_KERNEL_BF16 | MXRT_KERNEL_NHWC, 0,
                              MXRT_KERNEL_NHWC};
    for (int r = -2; r < runs; ++r)
      for (int v = 0; v < 4; ++v) {
        double t0 = nowMs();
        mxrt_kernel_sconv2d(1, c, hw, hw, f, o, o, kk, kk, st, st, pad, pad, 1,
                            1, 1, x, w[v], bias, y,
                            flags[v] | MXRT_KERNEL_CONST_A | MXRT_KERNEL_RELU);
        if (r >= 0)
          times[v][r] = nowMs() - t0;
      }
    double ms[4];
    for (int v = 0; v < 4; ++v)
      ms[v] = sortedMedian(times[v], runs);
    double b = ms[0] < ms[1] ? ms[0] : ms[1],
           fl = ms[2] < ms[3] ? ms[2] : ms[3];
    printf("| %s | %lld %lld %lld -> %lld, %lldx%lld/%lld | %.3f | %.3f | %.3f "
           "| %.3f | %.0f | %.2f |\n",
           cv->what, (long long)c, (long long)hw, (long long)hw, (long long)f,
           (long long)kk, (long long)kk, (long long)st, ms[0], ms[1], ms[2],
           ms[3], 2.0 * f * o * o * c * kk * kk / b * 1e-6, fl / b);
    // (weights stay allocated: the kernels keep packed copies keyed by
    // their addresses)
    free(x), free(bias), free(y);
  }
  for (int v = 0; v < 4; ++v)
    free(times[v]);
  free(bt), free(ft);
  return 0;
}
