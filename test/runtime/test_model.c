/* SPDX-License-Identifier: Apache-2.0
 *
 * A hand-written stand-in for a library compiled by mxc, so that the runtime's
 * dlopen path is tested without the compiler:
 *   y[i][j] = x[i][j] * w[i][j] * scale + b[j]      total = sum(y)
 * Built with -DMXRT_TEST_ABI_VERSION=999 it plays a model from a future mxc.
 */
#include "mxrt/model_abi.h"

#include <math.h>
#include <stddef.h>

#ifndef MXRT_TEST_ABI_VERSION
#define MXRT_TEST_ABI_VERSION MXRT_MODEL_ABI_VERSION
#endif

enum { kRows = 2, kCols = 3, kCount = kRows * kCols };

/* The parameter blob: each parameter starts on a 64-byte boundary. */
struct Weights {
  _Alignas(64) float w[kCount];
  _Alignas(64) float b[kCols];
};
static const struct Weights weights = {{0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f},
                                       {1.0f, 2.0f, 3.0f}};

/* Uses scratch the way generated code would; if the runtime hands over no or
 * misaligned scratch, `total` becomes NaN so that tests notice. */
static void affine_forward(void *const *buffers, mxrt_exec_context *ctx) {
  const float *x = (const float *)buffers[0];
  const float *scale = (const float *)buffers[1];
  float *y = (float *)buffers[2];
  double *total = (double *)buffers[3];
  const float *w = (const float *)buffers[4];
  const float *b = (const float *)buffers[5];
  if (!ctx || !ctx->scratch || ((size_t)ctx->scratch % 64) != 0) {
    *total = NAN;
    return;
  }
  double *rowSums = (double *)ctx->scratch;
  for (int i = 0; i < kRows; ++i) {
    rowSums[i] = 0;
    for (int j = 0; j < kCols; ++j) {
      y[i * kCols + j] = x[i * kCols + j] * w[i * kCols + j] * *scale + b[j];
      rowSums[i] += y[i * kCols + j];
    }
  }
  *total = rowSums[0] + rowSums[1];
}

static const int64_t shape2x3[] = {kRows, kCols};
static const int64_t shape3[] = {kCols};

static const mxrt_tensor_desc inputs[] = {
    {"x", 0 /* MXRT_F32 */, 2, shape2x3, 0, kCount * sizeof(float), 0},
    {"scale", 0 /* MXRT_F32 */, 0, NULL, 0, sizeof(float), 0},
};
static const mxrt_tensor_desc outputs[] = {
    {"y", 0 /* MXRT_F32 */, 2, shape2x3, 0, kCount * sizeof(float), 0},
    {"total", 1 /* MXRT_F64 */, 0, NULL, 0, sizeof(double), 0},
};
/* An inference model: parameters are read in place, so they carry no
 * MXRT_TENSOR_TRAINABLE flag and no function updates state. */
static const mxrt_tensor_desc params[] = {
    {"w", 0 /* MXRT_F32 */, 2, shape2x3, offsetof(struct Weights, w),
     kCount * sizeof(float), 0},
    {"b", 0 /* MXRT_F32 */, 1, shape3, offsetof(struct Weights, b),
     kCols * sizeof(float), 0},
};
static const mxrt_function_desc functions[] = {
    {"forward", 2, inputs, 2, outputs, affine_forward, 64, 0},
};

/* What mxc exports: the descriptor object itself (dlsym returns its address),
 * weak so that several models can be linked into one program. */
__attribute__((weak, visibility("default")))
const mxrt_model_desc mxc_model_descriptor = {
    .abi_version = MXRT_TEST_ABI_VERSION,
    .name = "affine",
    .num_functions = 1,
    .functions = functions,
    .num_params = 2,
    .params = params,
    .weights = (const uint8_t *)&weights,
    .weights_size = sizeof(weights),
    .num_states = 0,
    .states = NULL,
    .flags = 0,
};
