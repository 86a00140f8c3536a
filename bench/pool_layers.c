// SPDX-License-Identifier: Apache-2.0
// Times mxrt_kernel_spool2d and mxrt_kernel_spool2d_backward, one thread,
// on the pooling layers of the networks bench/train_bench.py trains
// (Inception-BN and ResNet-18 at 224x224): per layer the median time and
// the bytes the pass must move at least (x, y and dy read, dx written; the
// forward x read and y written) per second. Build and run from the project
// root after a build:
//   cc -O2 -Iruntime/include bench/pool_layers.c -Lbuild/lib -lmxrt \
//      -Wl,-rpath,$PWD/build/lib -o /tmp/pool_layers && /tmp/pool_layers
// An argument (inception or resnet18) times that network's layers only; a
// second sets the batch (default 32).
#include "bench_util.h"
#include <mxrt/kernels.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  const char *net, *name;
  int64_t c, h, w, k, s, p;
  int32_t flags;
} Layer;

static const Layer kLayers[] = {
    {"inception", "pool_1 max", 64, 112, 112, 3, 2, 0, 0},
    {"inception", "pool_2 max", 192, 56, 56, 3, 2, 0, 0},
    {"inception", "3a avg", 192, 28, 28, 3, 1, 1, MXRT_KERNEL_POOL_AVG},
    {"inception", "3c max", 320, 28, 28, 3, 2, 1, 0},
    {"inception", "4a avg", 576, 14, 14, 3, 1, 1, MXRT_KERNEL_POOL_AVG},
    {"inception", "4e max", 576, 14, 14, 3, 2, 1, 0},
    {"inception", "5b max", 1024, 7, 7, 3, 1, 1, 0},
    {"resnet18", "stem max", 64, 112, 112, 3, 2, 1, 0},
};

int main(int argc, char **argv) {
  const char *only = argc > 1 && strcmp(argv[1], "all") ? argv[1] : NULL;
  int64_t n = argc > 2 ? atol(argv[2]) : 32;
  printf("| net | layer (c h w, k s p) | forward ms | GB/s | backward ms | "
         "GB/s |\n|---|---|---:|---:|---:|---:|\n");
  for (size_t i = 0; i < sizeof kLayers / sizeof kLayers[0]; ++i) {
    const Layer *l = &kLayers[i];
    if (only && strcmp(only, l->net) != 0)
      continue;
    int64_t oh = (l->h + 2 * l->p - l->k) / l->s + 1;
    int64_t ow = (l->w + 2 * l->p - l->k) / l->s + 1;
    int64_t in = n * l->c * l->h * l->w, out = n * l->c * oh * ow;
    float *x = randomFloats(in), *dx = randomFloats(in);
    float *y = randomFloats(out), *dy = randomFloats(out);
    enum { kRuns = 15 };
    double ms[2];
    for (int pass = 0; pass < 2; ++pass) {
      double times[kRuns];
      for (int r = -2; r < kRuns; ++r) {
        double t0 = nowMs();
        if (pass == 0)
          mxrt_kernel_spool2d(n, l->c, l->h, l->w, oh, ow, l->k, l->k, l->s,
                              l->s, l->p, l->p, x, l->c * l->h * l->w,
                              l->h * l->w, l->w, 1, y, l->c * oh * ow, oh * ow,
                              ow, 1, l->flags);
        else
          mxrt_kernel_spool2d_backward(n, l->c, l->h, l->w, oh, ow, l->k, l->k,
                                       l->s, l->s, l->p, l->p, x, y, dy, dx,
                                       l->flags);
        if (r >= 0)
          times[r] = nowMs() - t0;
      }
      ms[pass] = sortedMedian(times, kRuns);
    }
    double fwdBytes = 4.0 * (in + out), bwdBytes = 4.0 * (2 * in + 2 * out);
    printf("| %s | %s %lld %lld %lld, %lld %lld %lld | %.2f | %.1f | %.2f | "
           "%.1f |\n",
           l->net, l->name, (long long)l->c, (long long)l->h, (long long)l->w,
           (long long)l->k, (long long)l->s, (long long)l->p, ms[0],
           fwdBytes / ms[0] * 1e-6, ms[1], bwdBytes / ms[1] * 1e-6);
    free(x), free(dx), free(y), free(dy);
  }
  return 0;
}
