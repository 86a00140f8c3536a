// SPDX-License-Identifier: Apache-2.0
// Times mxrt_kernel_sconv2d, one thread, on the convolution layers of the
// networks bench/perf_bench.py runs (ResNet-18 224x224, CIFAR ResNet-20,
// LeNet batch 64), with constant weights as an inference library passes
// them: per layer the median time and GFLOP/s, and each network's total.
// It shows which layer shapes the kernels serve badly. Build and run from
// the project root after a build:
//   cc -O2 -Iruntime/include bench/conv_layers.c -Lbuild/lib -lmxrt \
//      -Wl,-rpath,$PWD/build/lib -o /tmp/conv_layers && /tmp/conv_layers
// An argument (resnet18, resnet20, lenet64, resnet50, lraspp, depthwise or
// fcn, or "all") times that
// network's layers only; a second, grad-data or grad-weight, times the
// training kernel's gradients (mxrt_kernel_sconv2d_backward) instead of the
// forward one, or forward-train the forward one with weights that change
// between calls (no MXRT_KERNEL_CONST_A, as a training step passes them),
// a third sets every layer's batch, and a fourth, nhwc, passes
// MXRT_KERNEL_NHWC (activations channels last, as --conv-layout=nhwc).
// MXRT_KERNEL_CONV=im2col|direct limits the forward's methods (see conv.cpp).
#include "bench_util.h"
#include "mxrt/kernels.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  const char *net;
  int64_t n, c, h, w, f, k, s, p, count;
  int64_t d, g; // dilation and groups (0: 1)
} Layer;

// count: how many times the network has this layer.
static const Layer kLayers[] = {
    {"resnet18", 1, 3, 224, 224, 64, 7, 2, 3, 1},
    {"resnet18", 1, 64, 56, 56, 64, 3, 1, 1, 4},
    {"resnet18", 1, 64, 56, 56, 128, 3, 2, 1, 1},
    {"resnet18", 1, 64, 56, 56, 128, 1, 2, 0, 1},
    {"resnet18", 1, 128, 28, 28, 128, 3, 1, 1, 3},
    {"resnet18", 1, 128, 28, 28, 256, 3, 2, 1, 1},
    {"resnet18", 1, 128, 28, 28, 256, 1, 2, 0, 1},
    {"resnet18", 1, 256, 14, 14, 256, 3, 1, 1, 3},
    {"resnet18", 1, 256, 14, 14, 512, 3, 2, 1, 1},
    {"resnet18", 1, 256, 14, 14, 512, 1, 2, 0, 1},
    {"resnet18", 1, 512, 7, 7, 512, 3, 1, 1, 3},
    {"resnet20", 1, 3, 32, 32, 16, 3, 1, 1, 1},
    {"resnet20", 1, 16, 32, 32, 16, 3, 1, 1, 6},
    {"resnet20", 1, 16, 32, 32, 32, 3, 2, 1, 1},
    {"resnet20", 1, 16, 32, 32, 32, 1, 2, 0, 1},
    {"resnet20", 1, 32, 16, 16, 32, 3, 1, 1, 5},
    {"resnet20", 1, 32, 16, 16, 64, 3, 2, 1, 1},
    {"resnet20", 1, 32, 16, 16, 64, 1, 2, 0, 1},
    {"resnet20", 1, 64, 8, 8, 64, 3, 1, 1, 5},
    {"lenet64", 64, 1, 28, 28, 20, 5, 1, 0, 1},
    {"lenet64", 64, 20, 12, 12, 50, 5, 1, 0, 1},
    // ResNet-50 at 224x224: its stride-1 1x1 convolutions (the bottlenecks'
    // first and last; the 3x3s are ResNet-18's shapes).
    {"resnet50", 1, 64, 56, 56, 64, 1, 1, 0, 1},
    {"resnet50", 1, 64, 56, 56, 256, 1, 1, 0, 4},
    {"resnet50", 1, 256, 56, 56, 64, 1, 1, 0, 2},
    {"resnet50", 1, 256, 56, 56, 128, 1, 1, 0, 1},
    {"resnet50", 1, 128, 28, 28, 512, 1, 1, 0, 4},
    {"resnet50", 1, 512, 28, 28, 128, 1, 1, 0, 3},
    {"resnet50", 1, 512, 28, 28, 256, 1, 1, 0, 1},
    {"resnet50", 1, 256, 14, 14, 1024, 1, 1, 0, 6},
    {"resnet50", 1, 1024, 14, 14, 256, 1, 1, 0, 5},
    {"resnet50", 1, 1024, 14, 14, 512, 1, 1, 0, 1},
    {"resnet50", 1, 512, 7, 7, 2048, 1, 1, 0, 3},
    {"resnet50", 1, 2048, 7, 7, 512, 1, 1, 0, 2},
    // lraspp_mobilenet_v3_large at 224x224: its pointwise convolutions of
    // 4 MFLOP or more (the squeeze-and-excite ones are 1x1 images).
    {"lraspp", 1, 16, 112, 112, 64, 1, 1, 0, 1},
    {"lraspp", 1, 16, 112, 112, 16, 1, 1, 0, 1},
    {"lraspp", 1, 24, 56, 56, 72, 1, 1, 0, 2},
    {"lraspp", 1, 72, 56, 56, 24, 1, 1, 0, 1},
    {"lraspp", 1, 64, 56, 56, 24, 1, 1, 0, 1},
    {"lraspp", 1, 40, 28, 28, 240, 1, 1, 0, 1},
    {"lraspp", 1, 40, 28, 28, 120, 1, 1, 0, 2},
    {"lraspp", 1, 120, 28, 28, 40, 1, 1, 0, 2},
    {"lraspp", 1, 72, 28, 28, 40, 1, 1, 0, 1},
    {"lraspp", 1, 160, 14, 14, 960, 1, 1, 0, 3},
    {"lraspp", 1, 960, 14, 14, 160, 1, 1, 0, 2},
    {"lraspp", 1, 960, 14, 14, 128, 1, 1, 0, 1},
    {"lraspp", 1, 672, 14, 14, 160, 1, 1, 0, 1},
    {"lraspp", 1, 112, 14, 14, 672, 1, 1, 0, 2},
    {"lraspp", 1, 672, 14, 14, 112, 1, 1, 0, 1},
    {"lraspp", 1, 480, 14, 14, 112, 1, 1, 0, 1},
    {"lraspp", 1, 80, 14, 14, 480, 1, 1, 0, 1},
    {"lraspp", 1, 240, 14, 14, 80, 1, 1, 0, 1},
    {"lraspp", 1, 80, 14, 14, 200, 1, 1, 0, 1},
    {"lraspp", 1, 200, 14, 14, 80, 1, 1, 0, 1},
    {"lraspp", 1, 80, 14, 14, 184, 1, 1, 0, 2},
    {"lraspp", 1, 184, 14, 14, 80, 1, 1, 0, 2},
    // lraspp's depthwise layers (one filter per channel: the last fields
    // are the dilation and the groups).
    {"depthwise", 1, 16, 112, 112, 16, 3, 1, 1, 1, 1, 16},
    {"depthwise", 1, 64, 112, 112, 64, 3, 2, 1, 1, 1, 64},
    {"depthwise", 1, 72, 56, 56, 72, 5, 2, 2, 1, 1, 72},
    {"depthwise", 1, 120, 28, 28, 120, 5, 1, 2, 2, 1, 120},
    {"depthwise", 1, 240, 28, 28, 240, 3, 2, 1, 1, 1, 240},
    {"depthwise", 1, 480, 14, 14, 480, 3, 1, 1, 1, 1, 480},
    {"depthwise", 1, 960, 14, 14, 960, 5, 1, 4, 2, 2, 960},
    // fcn_resnet50 at 224x224: the 1x1 convolutions of its dilated layer3
    // and layer4 (28x28, stride 1) and the head's 3x3 (the dilated 3x3s
    // are left out: this harness has no dilation).
    {"fcn", 1, 512, 28, 28, 256, 1, 1, 0, 1},
    {"fcn", 1, 512, 28, 28, 1024, 1, 1, 0, 1},
    {"fcn", 1, 256, 28, 28, 1024, 1, 1, 0, 6},
    {"fcn", 1, 1024, 28, 28, 256, 1, 1, 0, 5},
    {"fcn", 1, 1024, 28, 28, 512, 1, 1, 0, 1},
    {"fcn", 1, 1024, 28, 28, 2048, 1, 1, 0, 1},
    {"fcn", 1, 512, 28, 28, 2048, 1, 1, 0, 3},
    {"fcn", 1, 2048, 28, 28, 512, 1, 1, 0, 2},
    {"fcn", 1, 2048, 28, 28, 512, 3, 1, 1, 1},
};

int main(int argc, char **argv) {
  const char *only = argc > 1 && strcmp(argv[1], "all") ? argv[1] : NULL;
  const char *kernel = argc > 2 ? argv[2] : "forward";
  long batch = argc > 3 ? atol(argv[3]) : 0;
  int32_t layout = argc > 4 && !strcmp(argv[4], "nhwc") ? MXRT_KERNEL_NHWC : 0;
  if (strcmp(kernel, "forward") && strcmp(kernel, "forward-train") &&
      strcmp(kernel, "grad-data") && strcmp(kernel, "grad-weight")) {
    fprintf(stderr,
            "conv_layers: kernel '%s': expected forward, forward-train, "
            "grad-data or grad-weight\n",
            kernel);
    return 1;
  }
  printf("| net | layer (n c h w -> f, k s p) | x | ms | GFLOP/s |\n"
         "|---|---|---:|---:|---:|\n");
  const char *net = "";
  double netMs = 0, netFlops = 0;
  size_t layers = sizeof kLayers / sizeof kLayers[0];
  for (size_t i = 0; i <= layers; ++i) {
    if (i == layers || strcmp(net, kLayers[i].net) != 0) {
      if (*net && netMs > 0)
        printf("| %s | **total** | | %.3f | %.1f |\n", net, netMs,
               netFlops / netMs * 1e-6);
      if (i == layers)
        break;
      net = kLayers[i].net, netMs = 0, netFlops = 0;
    }
    Layer layer = kLayers[i];
    const Layer *l = &layer;
    if (only && strcmp(only, l->net) != 0)
      continue;
    if (batch > 0)
      layer.n = batch;
    int64_t d = l->d ? l->d : 1, g = l->g ? l->g : 1;
    int64_t oh = (l->h + 2 * l->p - d * (l->k - 1) - 1) / l->s + 1;
    int64_t ow = (l->w + 2 * l->p - d * (l->k - 1) - 1) / l->s + 1;
    float *x = randomFloats(l->n * l->c * l->h * l->w);
    float *wt = randomFloats(l->f * l->c / g * l->k * l->k);
    float *bias = randomFloats(l->f);
    float *y = randomFloats(l->n * l->f * oh * ow);
    double flops = 2.0 * l->n * l->f * oh * ow * l->c / g * l->k * l->k;
    enum { kRuns = 41 };
    double times[kRuns];
    int reps = (int)(2e7 / flops) + 1;
    for (int r = -3; r < kRuns; ++r) {
      double t0 = nowMs();
      for (int j = 0; j < reps; ++j)
        if (kernel[0] == 'f')
          mxrt_kernel_sconv2d(l->n, l->c, l->h, l->w, l->f, oh, ow, l->k, l->k,
                              l->s, l->s, l->p, l->p, d, d, g, x, wt, bias, y,
                              (kernel[7] ? 0 : MXRT_KERNEL_CONST_A) |
                                  MXRT_KERNEL_RELU | layout);
        else // dy in y; dx into x or dweight into wt
          mxrt_kernel_sconv2d_backward(
              l->n, l->c, l->h, l->w, l->f, oh, ow, l->k, l->k, l->s, l->s,
              l->p, l->p, d, d, g, kernel[5] == 'd' ? NULL : x,
              kernel[5] == 'd' ? wt : NULL, y, kernel[5] == 'd' ? x : NULL,
              kernel[5] == 'd' ? NULL : wt, layout);
      if (r >= 0)
        times[r] = (nowMs() - t0) / reps;
    }
    double ms = sortedMedian(times, kRuns);
    printf("| %s | %lld %lld %lld %lld -> %lld, %lld %lld %lld | %lld | %.3f | "
           "%.1f |\n",
           l->net, (long long)l->n, (long long)l->c, (long long)l->h,
           (long long)l->w, (long long)l->f, (long long)l->k, (long long)l->s,
           (long long)l->p, (long long)l->count, ms, flops / ms * 1e-6);
    netMs += ms * l->count;
    netFlops += flops * l->count;
    free(x), free(wt), free(bias), free(y);
  }
  return 0;
}
