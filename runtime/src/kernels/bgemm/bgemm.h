// SPDX-License-Identifier: Apache-2.0
// The bfloat16 product family (bgemm.cpp): what the float32 kernels'
// entry points call for MXRT_KERNEL_BF16 (mxrt_kernel_sgemm in gemm.cpp,
// mxrt_kernel_sconv2d in conv.cpp), and its path for tests and benches.
// Not installed.

#ifndef MXRT_SRC_KERNELS_BGEMM_BGEMM_H
#define MXRT_SRC_KERNELS_BGEMM_BGEMM_H

#include <cstdint>

namespace mxrt {

/// The path bfloat16 products run on this CPU: "avx512bf16" (vdpbf16ps),
/// "avx512" (bfloat16 widened to float, float FMAs) or "portable".
/// MXRT_KERNEL_ISA=avx512bf16 (or unset) takes the first the CPU has,
/// avx512 the second, avx2 and portable the last.
const char *bgemmPath();

/// mxrt_kernel_sgemm with MXRT_KERNEL_BF16 (the same arguments).
void bgemm(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a,
           int64_t aBs, int64_t aRs, int64_t aCs, const float *b, int64_t bBs,
           int64_t bRs, int64_t bCs, float *c, int64_t cBs, int64_t cRs,
           int64_t cCs, const float *bias, int64_t biasBs, int64_t biasRs,
           int64_t biasCs, int32_t flags);

/// mxrt_kernel_sconv2d with MXRT_KERNEL_BF16 (the same arguments) but for
/// depthwise convolutions (see bf16Copy): NCHW as the filters times each
/// image's im2col matrix, NHWC as the windows of all images' pixels times
/// the filters, on the bfloat16 GEMM. Never Winograd.
void bconv2d(int64_t n, int64_t c, int64_t h, int64_t w, int64_t f, int64_t oh,
             int64_t ow, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
             int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups,
             const float *x, const float *weight, const float *bias, float *y,
             int32_t flags);

/// x (count floats) rounded to bfloat16 as the products round their
/// operands, as floats (for the kernels that compute on rounded values
/// with float FMAs: depthwise convolutions). `kept`: x never changes (a
/// constant weight), and the copy is made once and kept for the process;
/// else it is this thread's buffer `slot` (0 or 1), until its next use.
const float *bf16Copy(const float *x, int64_t count, bool kept, int slot);

} // namespace mxrt

#endif // MXRT_SRC_KERNELS_BGEMM_BGEMM_H
