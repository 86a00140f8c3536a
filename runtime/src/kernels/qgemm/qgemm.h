// SPDX-License-Identifier: Apache-2.0
// The 8-bit integer GEMM family's internals, shared by its products
// (qgemm.cpp) and its convolutions (qconv.cpp), and for tests and benches
// (its API is mxrt_kernel_qgemm_u8s8 and mxrt_kernel_qconv2d_u8s8 in
// mxrt/kernels.h). Not installed.

#ifndef MXRT_SRC_KERNELS_QGEMM_QGEMM_H
#define MXRT_SRC_KERNELS_QGEMM_QGEMM_H

#include <cstdint>

namespace mxrt {

/// The path mxrt_kernel_qgemm_u8s8 runs on this CPU: "vnni512", "avx2" or
/// "portable" (MXRT_KERNEL_ISA=avx2 or portable forces the lower ones).
const char *qgemmPath();

/// Whether the family's byte-wise helpers (requantizing spans, taking every
/// other byte) may use AVX-512 BW: the kernels run AVX-512 and the CPU has
/// BW. Decided once.
bool wideBytes();

/// mxrt_kernel_qconv2d_u8s8_requant's epilogue: row i's sums times
/// multiplier[i * multiplierRs] in float32, rounded half to even, plus
/// `zero`, clamped to [lo, hi], stored as bytes (uint8, or int8's bits).
struct Requant {
  const float *multiplier;
  int64_t multiplierRs;
  float zero, lo, hi;
  uint8_t *y;
};

/// mxrt_kernel_qgemm_u8s8 with B(q, j) at b[q * ldb + j * bCs] (a
/// convolution's filters, (f, k), read as k x f), row i's zero point of A
/// at a_zero[i * a_zero_rs] and row_add[i] (null: none) added to row i (a
/// convolution's filters as A, their bias); with `requant`, C's rows
/// requantized into requant->y's bytes instead.
void qgemm(int64_t m, int64_t n, int64_t k, const uint8_t *a, int64_t lda,
           const int32_t *a_zero, int64_t a_zero_rs, const int8_t *b,
           int64_t ldb, int64_t bCs, const int32_t *b_zero, int64_t b_zero_cs,
           int32_t *c, int64_t ldc, int32_t flags, const int32_t *row_add,
           const Requant *requant = nullptr);

/// mxrt_kernel_qconv2d_u8s8[_requant] with MXRT_KERNEL_NHWC: each output
/// pixel's window, gathered as runs of channels, times the filters, on the
/// path's kernels (qgemm.cpp).
void qconv2dNhwc(int64_t n, int64_t c, int64_t h, int64_t w, int64_t f,
                 int64_t oh, int64_t ow, int64_t kh, int64_t kw, int64_t sh,
                 int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,
                 int64_t groups, const uint8_t *x, const int32_t *x_zero,
                 const int8_t *weight, const int32_t *w_zero,
                 int64_t w_zero_stride, const int32_t *bias, int32_t *y,
                 int32_t flags, const Requant *requant);

} // namespace mxrt

#endif // MXRT_SRC_KERNELS_QGEMM_QGEMM_H
