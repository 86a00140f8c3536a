/* SPDX-License-Identifier: Apache-2.0
 *
 * The library kernels that `mxc --target=cuda` models call from their host
 * code (the CUDA side of mxrt/kernels.h, part of the same ABI): the same
 * arguments as the CPU's mxrt_kernel_* functions, every pointer device
 * memory (device 0), the work queued after the model's kernels on the
 * stream they run on. cuBLAS and cuDNN do the work (libcublas.so.13,
 * libcudnn.so.9, loaded on first use). They return nothing: a failure (a
 * library missing, an argument they cannot take) is kept and reported by
 * the instance call that made it.
 *
 * What they take, beyond mxrt_kernel_*'s contract: no bias and no epilogue
 * flag but MXRT_KERNEL_ACCUMULATE (the compiler broadcasts a bias into the
 * output first and accumulates onto it; activations are generated
 * kernels); the CONST / PARAM flags are accepted and ignored; NCHW only;
 * GEMM operands with a unit row or column stride; convolutions whose output
 * extent is cuDNN's for symmetric padding. */
#ifndef MXRT_CUDA_KERNELS_H
#define MXRT_CUDA_KERNELS_H

#include "mxrt/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/** mxrt_kernel_sgemm on device memory, through cublasSgemmStridedBatched. */
MXRT_API void mxrt_cuda_sgemm(int64_t batch, int64_t m, int64_t n, int64_t k,
                              const float *a, int64_t a_bs, int64_t a_rs,
                              int64_t a_cs, const float *b, int64_t b_bs,
                              int64_t b_rs, int64_t b_cs, float *c,
                              int64_t c_bs, int64_t c_rs, int64_t c_cs,
                              const float *bias, int64_t bias_bs,
                              int64_t bias_rs, int64_t bias_cs, int32_t flags);

/** mxrt_kernel_sconv2d on device memory, through cudnnConvolutionForward. */
MXRT_API void mxrt_cuda_sconv2d(int64_t n, int64_t c, int64_t h, int64_t w,
                                int64_t f, int64_t oh, int64_t ow, int64_t kh,
                                int64_t kw, int64_t stride_h, int64_t stride_w,
                                int64_t pad_h, int64_t pad_w, int64_t dilate_h,
                                int64_t dilate_w, int64_t groups,
                                const float *x, const float *weight,
                                const float *bias, float *y, int32_t flags);

/** mxrt_kernel_sconv2d_backward on device memory, through
 *  cudnnConvolutionBackwardData and cudnnConvolutionBackwardFilter. */
MXRT_API void mxrt_cuda_sconv2d_backward(
    int64_t n, int64_t c, int64_t h, int64_t w, int64_t f, int64_t oh,
    int64_t ow, int64_t kh, int64_t kw, int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w, int64_t dilate_h, int64_t dilate_w,
    int64_t groups, const float *x, const float *weight, const float *dy,
    float *dx, float *dweight, int32_t flags);

#ifdef __cplusplus
}
#endif

#endif /* MXRT_CUDA_KERNELS_H */
