// SPDX-License-Identifier: Apache-2.0
// The float vector operations of AVX2 with FMA (8 lanes) that the kernel
// families are written in (see avx512.h).

#ifndef MXRT_SRC_KERNELS_ISA_AVX2_H
#define MXRT_SRC_KERNELS_ISA_AVX2_H

#if defined(__x86_64__)

#include "kernels/isa/target.h"

#include <immintrin.h>

MXRT_TARGET_BEGIN("avx2,fma")

namespace mxrt::isa {

struct Avx2 {
  using V = __m256;
  static constexpr int VL = 8, NV = 2, MR = 6;
  static V load(const float *p) { return _mm256_loadu_ps(p); }
  static void store(float *p, V v) { _mm256_storeu_ps(p, v); }
  static V broadcast(float x) { return _mm256_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V zero() { return _mm256_setzero_ps(); }
  static float sum(V v) {
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, v);
    return ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) +
           ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
  }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  /// a0 a2 a4 a6 b0 b2 b4 b6.
  static V evens(V a, V b) {
    V pairs = _mm256_shuffle_ps(a, b, 0x88); // a0 a2 b0 b2 a4 a6 b4 b6
    return _mm256_castpd_ps(
        _mm256_permute4x64_pd(_mm256_castps_pd(pairs), 0xd8));
  }
  /// a1 a3 a5 a7 b1 b3 b5 b7.
  static V odds(V a, V b) {
    V pairs = _mm256_shuffle_ps(a, b, 0xdd); // a1 a3 b1 b3 a5 a7 b5 b7
    return _mm256_castpd_ps(
        _mm256_permute4x64_pd(_mm256_castps_pd(pairs), 0xd8));
  }
  /// lo = a0 b0 a1 b1 a2 b2 a3 b3, hi = a4 b4 ... a7 b7.
  static void interleave(V a, V b, V &lo, V &hi) {
    V low = _mm256_unpacklo_ps(a, b), high = _mm256_unpackhi_ps(a, b);
    lo = _mm256_permute2f128_ps(low, high, 0x20);
    hi = _mm256_permute2f128_ps(low, high, 0x31);
  }
  static V relu(V v) { return _mm256_max_ps(_mm256_setzero_ps(), v); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  static float maxLane(V v) {
    __m128 m =
        _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_max_ss(m, _mm_movehdup_ps(m)));
  }
  // expSmall(r): e^r near 0, for exp below.
#include "exp_polynomial.inc"
  /// e^x as avx512's, 2^n made in the exponent bits (0 below -87.3, where
  /// 2^n would leave the normal floats; +inf above 88.7).
  static V exp(V x) {
    V low = _mm256_cmp_ps(x, _mm256_set1_ps(-87.3f), _CMP_LT_OQ);
    V big = _mm256_cmp_ps(x, _mm256_set1_ps(88.7f), _CMP_GT_OQ);
    V c = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.3f)),
                        _mm256_set1_ps(88.7f));
    V n = _mm256_round_ps(_mm256_mul_ps(c, _mm256_set1_ps(1.44269504f)),
                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    V r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), c);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256i bits = _mm256_slli_epi32(
        _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    V y = _mm256_mul_ps(expSmall(r), _mm256_castsi256_ps(bits));
    y = _mm256_blendv_ps(y, _mm256_set1_ps(__builtin_inff()), big);
    return _mm256_andnot_ps(low, y);
  }
  /// Lanes [lo, hi) of p[0..8) (the others are neither read nor written).
  static __m256i lanes(int lo, int hi) {
    __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_and_si256(
        _mm256_cmpgt_epi32(index, _mm256_set1_epi32(lo - 1)),
        _mm256_cmpgt_epi32(_mm256_set1_epi32(hi), index));
  }
  using Mask = __m256i;
  static V maskLoad(const float *p, Mask m) { return _mm256_maskload_ps(p, m); }
  static void maskStore(float *p, Mask m, V v) { _mm256_maskstore_ps(p, m, v); }
  /// a1 ... a7 b0.
  static V next(V a, V b) {
    __m256i mid = _mm256_castps_si256(_mm256_permute2f128_ps(a, b, 0x21));
    return _mm256_castsi256_ps(
        _mm256_alignr_epi8(mid, _mm256_castps_si256(a), 4));
  }
  /// a7 b0 ... b6.
  static V prev(V a, V b) {
    __m256i mid = _mm256_castps_si256(_mm256_permute2f128_ps(a, b, 0x21));
    return _mm256_castsi256_ps(
        _mm256_alignr_epi8(_mm256_castps_si256(b), mid, 12));
  }
};

} // namespace mxrt::isa

MXRT_TARGET_END

#endif // __x86_64__

#endif // MXRT_SRC_KERNELS_ISA_AVX2_H
