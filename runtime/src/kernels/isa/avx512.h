// SPDX-License-Identifier: Apache-2.0
// The float vector operations of AVX-512 (16 lanes) that the kernel families
// are written in: each family compiles its kernels once per such struct,
// as Isa, and dispatches to the best one the CPU has.

#ifndef MXRT_SRC_KERNELS_ISA_AVX512_H
#define MXRT_SRC_KERNELS_ISA_AVX512_H

#if defined(__x86_64__)

#include "kernels/isa/target.h"

#include <immintrin.h>

MXRT_TARGET_BEGIN("avx512f,avx512vl,avx2,fma")

namespace mxrt::isa {

struct Avx512 {
  using V = __m512;
  static constexpr int VL = 16, NV = 2, MR = 12;
  static V load(const float *p) { return _mm512_loadu_ps(p); }
  static void store(float *p, V v) { _mm512_storeu_ps(p, v); }
  static V broadcast(float x) { return _mm512_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V zero() { return _mm512_setzero_ps(); }
  static float sum(V v) { return _mm512_reduce_add_ps(v); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  /// Every other lane of a, then of b, from lane `first`: evens (first 0)
  /// a0 a2 ... a14 b0 b2 ... b14, odds (first 1) a1 a3 ... b15.
  static V everyOther(V a, V b, int first) {
    __m512i lanes = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22,
                                      24, 26, 28, 30);
    return _mm512_permutex2var_ps(
        a, _mm512_add_epi32(lanes, _mm512_set1_epi32(first)), b);
  }
  static V evens(V a, V b) { return everyOther(a, b, 0); }
  static V odds(V a, V b) { return everyOther(a, b, 1); }
  /// lo = a0 b0 a1 b1 ... a7 b7, hi = a8 b8 ... a15 b15.
  static void interleave(V a, V b, V &lo, V &hi) {
    lo = _mm512_permutex2var_ps(a,
                                _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4,
                                                  20, 5, 21, 6, 22, 7, 23),
                                b);
    hi = _mm512_permutex2var_ps(a,
                                _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27,
                                                  12, 28, 13, 29, 14, 30, 15,
                                                  31),
                                b);
  }
  /// max(v, 0), NaN staying NaN (maxps returns its second operand then).
  static V relu(V v) { return _mm512_max_ps(_mm512_setzero_ps(), v); }
  static V max(V a, V b) { return _mm512_max_ps(a, b); }
  static float maxLane(V v) { return _mm512_reduce_max_ps(v); }
  // expSmall(r): e^r near 0, for exp below.
#include "exp_polynomial.inc"
  /// e^x (relative error below 1e-7; 0 below -104, +inf above 89): 2^n
  /// e^r with n = round(x log2(e)), r = x - n ln(2) in two parts, e^r by
  /// its polynomial and 2^n applied by scalef.
  static V exp(V x) {
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-104.0f)),
                      _mm512_set1_ps(89.0f));
    V n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    V r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    return _mm512_scalef_ps(expSmall(r), n);
  }
  /// Lanes [lo, hi) of p[0..16) (the others are neither read nor written).
  static __mmask16 lanes(int lo, int hi) {
    return static_cast<__mmask16>(((1u << hi) - 1) & ~((1u << lo) - 1));
  }
  using Mask = __mmask16;
  static V maskLoad(const float *p, Mask m) {
    return _mm512_maskz_loadu_ps(m, p);
  }
  static void maskStore(float *p, Mask m, V v) {
    _mm512_mask_storeu_ps(p, m, v);
  }
  /// p[index[0]] ... p[index[15]].
  static V gather(const float *p, const int32_t *index) {
    return _mm512_i32gather_ps(_mm512_loadu_si512(index), p, 4);
  }
  /// a1 ... a15 b0: the row a b one column on.
  static V next(V a, V b) {
    return _mm512_castsi512_ps(
        _mm512_alignr_epi32(_mm512_castps_si512(b), _mm512_castps_si512(a), 1));
  }
  /// a15 b0 ... b14: the row a b one column back.
  static V prev(V a, V b) {
    return _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(b),
                                                   _mm512_castps_si512(a), 15));
  }
};

} // namespace mxrt::isa

MXRT_TARGET_END

#endif // __x86_64__

#endif // MXRT_SRC_KERNELS_ISA_AVX512_H
