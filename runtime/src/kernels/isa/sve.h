// SPDX-License-Identifier: Apache-2.0
// The float vector operations of ARM's Scalable Vector Extension at one
// vector length, fixed when the file is compiled (-msve-vector-bits=256 or
// 512: kernels/gemm/gemm_sve.cpp, built once per length), that the kernel
// families are written in (see avx512.h). Fixed lengths let the families
// keep vectors in arrays and tiles of compile-time size; the dispatch runs a
// copy only on a CPU whose vector length is exactly its own.

#ifndef MXRT_SRC_KERNELS_ISA_SVE_H
#define MXRT_SRC_KERNELS_ISA_SVE_H

#if defined(__aarch64__) && defined(__ARM_FEATURE_SVE_BITS) &&                 \
    __ARM_FEATURE_SVE_BITS > 0

#include <arm_sve.h>
#include <cstdint>

namespace mxrt::isa {

struct Sve {
  using V =
      svfloat32_t __attribute__((arm_sve_vector_bits(__ARM_FEATURE_SVE_BITS)));
  using Mask =
      svbool_t __attribute__((arm_sve_vector_bits(__ARM_FEATURE_SVE_BITS)));
  static constexpr int VL = __ARM_FEATURE_SVE_BITS / 32;
  // 32 vector registers as on AArch64's NEON: at 512 bits, AVX-512's
  // 12 x 2 micro-tiles; at 256, 8 x 2.
  static constexpr int NV = 2, MR = VL == 16 ? 12 : 8;
  static Mask all() { return svptrue_b32(); }
  static V load(const float *p) { return svld1_f32(all(), p); }
  static void store(float *p, V v) { svst1_f32(all(), p, v); }
  static V broadcast(float x) { return svdup_n_f32(x); }
  static V fma(V a, V b, V c) { return svmla_f32_x(all(), c, a, b); }
  static V zero() { return svdup_n_f32(0.0f); }
  static float sum(V v) { return svaddv_f32(all(), v); }
  static V add(V a, V b) { return svadd_f32_x(all(), a, b); }
  static V sub(V a, V b) { return svsub_f32_x(all(), a, b); }
  static V mul(V a, V b) { return svmul_f32_x(all(), a, b); }
  /// a0 a2 ... b0 b2 ...
  static V evens(V a, V b) { return svuzp1_f32(a, b); }
  /// a1 a3 ... b1 b3 ...
  static V odds(V a, V b) { return svuzp2_f32(a, b); }
  /// lo = a0 b0 a1 b1 ... (the lower halves), hi = the upper halves'.
  static void interleave(V a, V b, V &lo, V &hi) {
    lo = svzip1_f32(a, b);
    hi = svzip2_f32(a, b);
  }
  /// max(v, 0); fmax keeps a NaN a NaN.
  static V relu(V v) { return svmax_n_f32_x(all(), v, 0.0f); }
  static V max(V a, V b) { return svmax_f32_x(all(), a, b); }
  static float maxLane(V v) { return svmaxv_f32(all(), v); }
  // expSmall(r): e^r near 0, for exp below.
#include "exp_polynomial.inc"
  /// e^x as avx512's: 2^n e^r, 2^n applied by fscale (0 below -104, +inf
  /// above 89).
  static V exp(V x) {
    x = svmin_n_f32_x(all(), svmax_n_f32_x(all(), x, -104.0f), 89.0f);
    V n = svrintn_f32_x(all(), svmul_n_f32_x(all(), x, 1.44269504f));
    V r = svmls_n_f32_x(all(), x, n, 0.693359375f);
    r = svmls_n_f32_x(all(), r, n, -2.12194440e-4f);
    return svscale_f32_x(all(), expSmall(r), svcvt_s32_f32_x(all(), n));
  }
  /// Lanes [lo, hi) (the others are neither read nor written).
  static Mask lanes(int lo, int hi) {
    return svbic_b_z(all(), svwhilelt_b32(0, hi), svwhilelt_b32(0, lo));
  }
  static V maskLoad(const float *p, Mask m) { return svld1_f32(m, p); }
  static void maskStore(float *p, Mask m, V v) { svst1_f32(m, p, v); }
  /// p[index[0]] ... p[index[VL - 1]].
  static V gather(const float *p, const int32_t *index) {
    return svld1_gather_s32index_f32(all(), p, svld1_s32(all(), index));
  }
  /// a1 ... a(VL-1) b0: the row a b one column on.
  static V next(V a, V b) { return svext_f32(a, b, 1); }
  /// a(VL-1) b0 ... b(VL-2): the row a b one column back.
  static V prev(V a, V b) { return svext_f32(a, b, VL - 1); }
};

} // namespace mxrt::isa

#endif // __ARM_FEATURE_SVE_BITS

#endif // MXRT_SRC_KERNELS_ISA_SVE_H
