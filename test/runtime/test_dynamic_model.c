/* SPDX-License-Identifier: Apache-2.0
 *
 * A hand-written stand-in for a library compiled by mxc with a dynamic batch
 * dimension (mxc --input x=Nx2 --dim N=1..8), so that mxrun's handling of
 * dynamic dimensions is tested without the compiler. Variants of 1, 2 and 4
 * rows compute y[i][j] = 2 x[i][j] + 100 * (their batch), so the output
 * shows which variant computed each row; `last` is the last one's batch.
 */
#include "mxrt/model_abi.h"

#include <stddef.h>

enum { kCols = 2 };

#define DEFINE_VARIANT(batch)                                                  \
  static void forward##batch(void *const *buffers, mxrt_exec_context *ctx) {   \
    const float *x = (const float *)buffers[0];                                \
    float *y = (float *)buffers[1];                                            \
    (void)ctx;                                                                 \
    for (int i = 0; i < (batch) * kCols; ++i)                                  \
      y[i] = 2.0f * x[i] + 100.0f * (batch);                                   \
    *(float *)buffers[2] = (batch);                                            \
  }
DEFINE_VARIANT(1)
DEFINE_VARIANT(2)
DEFINE_VARIANT(4)

static const int64_t shapeNx2[] = {MXRT_DIM_EXTENT(0), kCols};

static const mxrt_tensor_desc inputs[] = {
    {"x", 0 /* MXRT_F32 */, 2, shapeNx2, 0, kCols * sizeof(float), 0},
};
static const mxrt_tensor_desc outputs[] = {
    {"y", 0 /* MXRT_F32 */, 2, shapeNx2, 0, kCols * sizeof(float), 0},
    {"last", 0 /* MXRT_F32 */, 0, NULL, 0, sizeof(float), 0},
};
static const mxrt_variant_desc variants[] = {
    {1, forward1, 0}, {2, forward2, 0}, {4, forward4, 0}};
static const mxrt_function_desc functions[] = {
    {.name = "forward",
     .num_inputs = 1,
     .inputs = inputs,
     .num_outputs = 2,
     .outputs = outputs,
     .num_variants = 3,
     .variants = variants,
     .batch_dim = 0},
};
static const mxrt_dim_desc dims[] = {{"N", 1, 8}};

__attribute__((weak, visibility("default")))
const mxrt_model_desc mxc_model_descriptor = {
    .abi_version = MXRT_MODEL_ABI_VERSION,
    .name = "batched",
    .num_functions = 1,
    .functions = functions,
    .num_dims = 1,
    .dims = dims,
};
