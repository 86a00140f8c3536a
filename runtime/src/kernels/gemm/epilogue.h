// SPDX-License-Identifier: Apache-2.0
// What the float32 GEMM family's kernels (family.inc) use from around
// them: whether a problem is read in place, and the epilogue that writes
// C. Internal to each file that includes it (gemm.cpp, and the SVE copies
// in gemm_sve.cpp, compiled for other features). Not installed.

#ifndef MXRT_SRC_KERNELS_GEMM_EPILOGUE_H
#define MXRT_SRC_KERNELS_GEMM_EPILOGUE_H

#include "gemm_internal.h"

#include <algorithm>
#include <cstdint>

namespace mxrt {
namespace {

/// Problems with at most this many rows skip packing.
constexpr int64_t kFewRows = 4;

/// Whether pr reads A and B in place (gemmFewRows: a matrix-vector product,
/// as FullyConnected at batch 1) rather than packing them. The one place
/// that decides it: the GEMM, the packed-A cache and sgemm's orientation
/// all ask here.
inline bool readsInPlace(const Problem &pr) {
  return !pr.isConv && pr.m <= kFewRows && pr.k > 0;
}

/// c[j] = act(t[j] + (bias ? bias[j] : rowBias) + (keepC ? c[j] : 0)).
inline void applyRow(const float *__restrict t, const float *__restrict bias,
                     float rowBias, float *__restrict c, int64_t cols,
                     bool keepC, bool relu) {
  float lo = relu ? 0.0f : -__builtin_inff();
  if (bias && keepC)
    for (int64_t j = 0; j < cols; ++j)
      c[j] = std::max(t[j] + bias[j] + c[j], lo);
  else if (bias)
    for (int64_t j = 0; j < cols; ++j)
      c[j] = std::max(t[j] + bias[j], lo);
  else if (keepC)
    for (int64_t j = 0; j < cols; ++j)
      c[j] = std::max(t[j] + rowBias + c[j], lo);
  else
    for (int64_t j = 0; j < cols; ++j)
      c[j] = std::max(t[j] + rowBias, lo);
}

/// Writes rows [i0, i0 + rows) x columns [j0, j0 + cols) of C from `tile`
/// (row stride `ld`), the partial sum over one slice of k: the first slice
/// adds the bias (and C's old value when accumulating), later ones add C;
/// the last applies the activation.
inline void applyEpilogue(const Problem &pr, const float *tile, int64_t ld,
                          int64_t i0, int64_t rows, int64_t j0, int64_t cols,
                          bool first, bool last) {
  bool keepC = !first || (pr.flags & MXRT_KERNEL_ACCUMULATE);
  bool relu = last && (pr.flags & MXRT_KERNEL_RELU);
  if (pr.cRs == 1 && pr.cCs != 1) {
    // C computed transposed (C^T = B^T A^T, sgemm's orientation for a
    // constant B): its columns are contiguous. Down the columns in bands of
    // 16 rows, so that each store run fills a cache line, not one float per
    // line a row apart (this loop took 38% of a BERT-base encoder's time).
    constexpr int64_t kBand = 16;
    for (int64_t r0 = 0; r0 < rows; r0 += kBand) {
      int64_t band = std::min(kBand, rows - r0);
      for (int64_t j = 0; j < cols; ++j) {
        float *c = pr.c + (i0 + r0) + (j0 + j) * pr.cCs;
        const float *bias = first && pr.bias ? pr.bias + (i0 + r0) * pr.biasRs +
                                                   (j0 + j) * pr.biasCs
                                             : nullptr;
        const float *t = tile + r0 * ld + j;
        for (int64_t r = 0; r < band; ++r) {
          float v = t[r * ld];
          if (bias)
            v += bias[r * pr.biasRs];
          if (keepC)
            v += c[r];
          c[r] = relu ? std::max(v, 0.0f) : v;
        }
      }
    }
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float *t = tile + r * ld;
    float *c = pr.c + (i0 + r) * pr.cRs + j0 * pr.cCs;
    const float *bias = first && pr.bias
                            ? pr.bias + (i0 + r) * pr.biasRs + j0 * pr.biasCs
                            : nullptr;
    if (pr.cCs == 1 && (!bias || pr.biasCs <= 1)) {
      // The common layouts, in branch-free loops the compiler vectorizes.
      if (bias && pr.biasCs == 1)
        applyRow(t, bias, 0.0f, c, cols, keepC, relu);
      else
        applyRow(t, nullptr, bias ? *bias : 0.0f, c, cols, keepC, relu);
      continue;
    }
    for (int64_t j = 0; j < cols; ++j) {
      float v = t[j];
      if (bias)
        v += bias[j * pr.biasCs];
      if (keepC)
        v += c[j * pr.cCs];
      c[j * pr.cCs] = relu ? std::max(v, 0.0f) : v;
    }
  }
}

} // namespace
} // namespace mxrt

#endif // MXRT_SRC_KERNELS_GEMM_EPILOGUE_H
