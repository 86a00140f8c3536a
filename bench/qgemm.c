// SPDX-License-Identifier: Apache-2.0
// Times libmxrt's 8-bit integer GEMM (mxrt_kernel_qgemm_u8s8: uint8 A with a
// zero point, int8 B) against its float32 GEMM (mxrt_kernel_sgemm), and its
// 8-bit convolution (mxrt_kernel_qconv2d_u8s8) against the float32 one
// (mxrt_kernel_sconv2d, constant weights: Winograd where it takes it) on
// ResNet layers, on the same shapes, one thread, the two calls alternating in
// one process so that both see the same stretches of a noisy machine: per shape
// the median of each, GOP/s and the speed-up. Prints the CPU and the path each
// family took (mxrt_kernel_path). Build and run from the project root after a
// build:
//   cc -O2 -Iruntime/include bench/qgemm.c -Lbuild/lib -lmxrt \
//      -Wl,-rpath,$PWD/build/lib -o /tmp/qgemm && /tmp/qgemm
// MXRT_KERNEL_ISA=avx2 or portable times the lower paths.
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

typedef struct {
  const char *what;
  int64_t c, hw, f, kernel, stride;
} ConvShape;

static const ConvShape kConvs[] = {
    {"ResNet-18 conv2 3x3 (64, 56x56)", 64, 56, 64, 3, 1},
    {"ResNet-18 conv3 3x3 (128, 28x28)", 128, 28, 128, 3, 1},
    {"ResNet-18 conv4 3x3 (256, 14x14)", 256, 14, 256, 3, 1},
    {"ResNet-18 conv5 3x3 (512, 7x7)", 512, 7, 512, 3, 1},
    {"ResNet-18 conv3 3x3/2 (64 -> 128, 56x56)", 64, 56, 128, 3, 2},
    {"ResNet-18 conv1 7x7/2 (3 -> 64, 224x224)", 3, 224, 64, 7, 2},
    {"ResNet-50 1x1 (256 -> 64, 56x56)", 256, 56, 64, 1, 1},
    {"ResNet-50 1x1 (64 -> 256, 56x56)", 64, 56, 256, 1, 1},
    {"ResNet-50 1x1 (1024 -> 256, 14x14)", 1024, 14, 256, 1, 1},
    {"ResNet-50 1x1 (512 -> 2048, 7x7)", 512, 7, 2048, 1, 1},
};

static const Shape kShapes[] = {
    {"square 256", 256, 256, 256},
    {"square 1024", 1024, 1024, 1024},
    {"BERT-base QKV, sequence 128", 128, 2304, 768},
    {"BERT-base FF1, sequence 128", 128, 3072, 768},
    {"BERT-base FF2, sequence 128", 128, 768, 3072},
    {"ResNet-50 res4 1x1 (1024 -> 256, 14x14)", 196, 256, 1024},
    {"ResNet-50 res3 3x3 im2col (128, 28x28)", 784, 128, 1152},
};

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 15;
  if (runs <= 0) {
    fprintf(stderr, "usage: qgemm [RUNS]\n");
    return 1;
  }
  char cpu[256];
  cpuName(cpu, sizeof cpu);
  printf("CPU: %s; paths: qgemm %s, gemm %s; one thread, median of %d "
         "alternating calls\n\n",
         cpu, mxrt_kernel_path("qgemm"), mxrt_kernel_path("gemm"), runs);
  printf("| shape | m x n x k | int8 (ms) | float32 (ms) | int8 GOP/s | "
         "float32 GFLOP/s | speed-up |\n|---|---|---:|---:|---:|---:|---:|\n");
  double *qt = malloc(sizeof(double) * runs),
         *ft = malloc(sizeof(double) * runs);
  for (size_t s = 0; s < sizeof kShapes / sizeof kShapes[0]; ++s) {
    const Shape *sh = &kShapes[s];
    int64_t m = sh->m, n = sh->n, k = sh->k;
    uint8_t *a = malloc(m * k);
    int8_t *b = malloc(k * n);
    int32_t *c = malloc(sizeof(int32_t) * m * n);
    float *fa = malloc(sizeof(float) * m * k),
          *fb = malloc(sizeof(float) * k * n),
          *fc = malloc(sizeof(float) * m * n);
    if (!a || !b || !c || !fa || !fb || !fc || !qt || !ft) {
      fprintf(stderr, "qgemm: out of memory\n");
      return 1;
    }
    for (int64_t i = 0; i < m * k; ++i)
      fa[i] = (float)(a[i] = (uint8_t)(i * 7 + 3));
    for (int64_t i = 0; i < k * n; ++i)
      fb[i] = (float)(b[i] = (int8_t)(i * 13 + 5));
    const int32_t aZero = 128;
    for (int r = -2; r < runs; ++r) { // two untimed rounds first
      double t0 = nowMs();
      mxrt_kernel_qgemm_u8s8(m, n, k, a, k, &aZero, b, n, NULL, 0, c, n, 0);
      double t1 = nowMs();
      mxrt_kernel_sgemm(1, m, n, k, fa, 0, k, 1, fb, 0, n, 1, fc, 0, n, 1, NULL,
                        0, 0, 0, 0);
      double t2 = nowMs();
      if (r >= 0) {
        qt[r] = t1 - t0;
        ft[r] = t2 - t1;
      }
    }
    double q = sortedMedian(qt, runs), f = sortedMedian(ft, runs),
           ops = 2.0 * m * n * k;
    printf("| %s | %lld x %lld x %lld | %.3f | %.3f | %.0f | %.0f | %.2f |\n",
           sh->what, (long long)m, (long long)n, (long long)k, q, f,
           ops / q * 1e-6, ops / f * 1e-6, f / q);
    free(a), free(b), free(c), free(fa), free(fb), free(fc);
  }
  printf("\n| convolution, batch 1 | int8 NCHW (ms) | int8 NHWC (ms) | float32 "
         "(ms) | int8 NHWC GOP/s | float32 GFLOP/s | speed-up (NHWC) |\n"
         "|---|---:|---:|---:|---:|---:|---:|\n");
  double *ht = malloc(sizeof(double) * runs);
  if (!ht) {
    fprintf(stderr, "qgemm: out of memory\n");
    return 1;
  }
  for (size_t s = 0; s < sizeof kConvs / sizeof kConvs[0]; ++s) {
    const ConvShape *cv = &kConvs[s];
    int64_t c = cv->c, hw = cv->hw, f = cv->f, kk = cv->kernel, pad = kk / 2,
            st = cv->stride;
    int64_t o = (hw + 2 * pad - kk) / st + 1, wsize = f * c * kk * kk;
    uint8_t *x = malloc(c * hw * hw);
    int8_t *wt = malloc(wsize);
    int32_t *y = malloc(sizeof(int32_t) * f * o * o);
    float *fx = malloc(sizeof(float) * c * hw * hw),
          *fw = malloc(sizeof(float) * wsize),
          *fy = malloc(sizeof(float) * f * o * o);
    if (!x || !wt || !y || !fx || !fw || !fy) {
      fprintf(stderr, "qgemm: out of memory\n");
      return 1;
    }
    for (int64_t i = 0; i < c * hw * hw; ++i)
      fx[i] = (float)(x[i] = (uint8_t)(i * 7 + 3));
    for (int64_t i = 0; i < wsize; ++i)
      fw[i] = (float)(wt[i] = (int8_t)(i * 13 + 5));
    const int32_t xZero = 128;
    for (int r = -2; r < runs; ++r) {
      double t0 = nowMs();
      mxrt_kernel_qconv2d_u8s8(1, c, hw, hw, f, o, o, kk, kk, st, st, pad, pad,
                               1, 1, 1, x, &xZero, wt, NULL, 0, NULL, y,
                               MXRT_KERNEL_CONST_B);
      double t1 = nowMs();
      mxrt_kernel_sconv2d(1, c, hw, hw, f, o, o, kk, kk, st, st, pad, pad, 1, 1,
                          1, fx, fw, NULL, fy, MXRT_KERNEL_CONST_A);
      double t2 = nowMs();
      // (The same bytes read channels last: the times do not depend on
      // the values.)
      mxrt_kernel_qconv2d_u8s8(1, c, hw, hw, f, o, o, kk, kk, st, st, pad, pad,
                               1, 1, 1, x, &xZero, wt, NULL, 0, NULL, y,
                               MXRT_KERNEL_CONST_B | MXRT_KERNEL_NHWC);
      double t3 = nowMs();
      if (r >= 0) {
        qt[r] = t1 - t0;
        ft[r] = t2 - t1;
        ht[r] = t3 - t2;
      }
    }
    double q = sortedMedian(qt, runs), fl = sortedMedian(ft, runs),
           h = sortedMedian(ht, runs), ops = 2.0 * f * o * o * c * kk * kk;
    printf("| %s | %.3f | %.3f | %.3f | %.0f | %.0f | %.2f |\n", cv->what, q, h,
           fl, ops / h * 1e-6, ops / fl * 1e-6, fl / h);
    free(x), free(wt), free(y), free(fx), free(fw), free(fy);
  }
  free(qt), free(ft), free(ht);
  return 0;
}
