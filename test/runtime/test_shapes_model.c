/* SPDX-License-Identifier: Apache-2.0
 *
 * A hand-written stand-in for a library compiled by mxc with its dynamic
 * extents in the code (model ABI 6: mxc --input x=HxW --dim H=2..8), so that
 * mxrun's handling of derived dimensions is tested without the compiler.
 * y[i][j] = x[i][j] + x[i+1][j], of OH = H - 1 rows: OH is derived, and the
 * function reads H, W and OH from its context.
 */
#include "mxrt/model_abi.h"

#include <stddef.h>

enum { kH, kW, kOH };

/* The derived extent; no scratch. */
static int64_t forward_shapes(int64_t *dims) {
  dims[kOH] = dims[kH] - 1;
  return 0;
}

static void forward(void *const *buffers, mxrt_exec_context *ctx) {
  const float *x = (const float *)buffers[0];
  float *y = (float *)buffers[1];
  int64_t w = ctx->dims[kW];
  for (int64_t i = 0; i < ctx->dims[kOH]; ++i)
    for (int64_t j = 0; j < w; ++j)
      y[i * w + j] = x[i * w + j] + x[(i + 1) * w + j];
}

static const int64_t shapeHxW[] = {MXRT_DIM_EXTENT(kH), MXRT_DIM_EXTENT(kW)};
static const int64_t shapeOHxW[] = {MXRT_DIM_EXTENT(kOH), MXRT_DIM_EXTENT(kW)};

static const mxrt_tensor_desc inputs[] = {
    {"x", 0 /* MXRT_F32 */, 2, shapeHxW, 0, sizeof(float), 0},
};
static const mxrt_tensor_desc outputs[] = {
    {"y", 0 /* MXRT_F32 */, 2, shapeOHxW, 0, sizeof(float), 0},
};
static const mxrt_function_desc functions[] = {
    {.name = "forward",
     .num_inputs = 1,
     .inputs = inputs,
     .num_outputs = 1,
     .outputs = outputs,
     .entry = forward,
     .batch_dim = -1,
     .shapes = forward_shapes},
};
static const mxrt_dim_desc dims[] = {
    {"H", 2, 8, 0}, {"W", 1, -1, 0}, {"OH", 0, -1, MXRT_DIM_DERIVED}};

__attribute__((weak, visibility("default")))
const mxrt_model_desc mxc_model_descriptor = {
    .abi_version = MXRT_MODEL_ABI_VERSION,
    .name = "window",
    .num_functions = 1,
    .functions = functions,
    .num_dims = 3,
    .dims = dims,
};
