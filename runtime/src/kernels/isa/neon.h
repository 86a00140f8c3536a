// SPDX-License-Identifier: Apache-2.0
// The float vector operations of 64-bit ARM's Advanced SIMD (NEON, 4 lanes,
// with fused multiply-add: every AArch64 core has both) that the kernel
// families are written in (see avx512.h).

#ifndef MXRT_SRC_KERNELS_ISA_NEON_H
#define MXRT_SRC_KERNELS_ISA_NEON_H

#if defined(__aarch64__)

#include <arm_neon.h>
#include <cstdint>

namespace mxrt::isa {

struct Neon {
  using V = float32x4_t;
  // 8 x 8 micro-tiles: 16 accumulators of AArch64's 32 vector registers,
  // B's two vectors and A's eight broadcasts beside them.
  static constexpr int VL = 4, NV = 2, MR = 8;
  static V load(const float *p) { return vld1q_f32(p); }
  static void store(float *p, V v) { vst1q_f32(p, v); }
  static V broadcast(float x) { return vdupq_n_f32(x); }
  static V fma(V a, V b, V c) { return vfmaq_f32(c, a, b); }
  static V zero() { return vdupq_n_f32(0.0f); }
  static float sum(V v) { return vaddvq_f32(v); }
  static V add(V a, V b) { return vaddq_f32(a, b); }
  static V sub(V a, V b) { return vsubq_f32(a, b); }
  static V mul(V a, V b) { return vmulq_f32(a, b); }
  /// a0 a2 b0 b2.
  static V evens(V a, V b) { return vuzp1q_f32(a, b); }
  /// a1 a3 b1 b3.
  static V odds(V a, V b) { return vuzp2q_f32(a, b); }
  /// lo = a0 b0 a1 b1, hi = a2 b2 a3 b3.
  static void interleave(V a, V b, V &lo, V &hi) {
    lo = vzip1q_f32(a, b);
    hi = vzip2q_f32(a, b);
  }
  /// max(v, 0); fmax keeps a NaN a NaN.
  static V relu(V v) { return vmaxq_f32(v, vdupq_n_f32(0.0f)); }
  static V max(V a, V b) { return vmaxq_f32(a, b); }
  static float maxLane(V v) { return vmaxvq_f32(v); }
  // expSmall(r): e^r near 0, for exp below.
#include "exp_polynomial.inc"
  /// e^x as avx2's: 2^n made in the exponent bits (0 below -87.3, where 2^n
  /// would leave the normal floats; +inf above 88.7).
  static V exp(V x) {
    uint32x4_t low = vcltq_f32(x, vdupq_n_f32(-87.3f));
    uint32x4_t big = vcgtq_f32(x, vdupq_n_f32(88.7f));
    V c = vminq_f32(vmaxq_f32(x, vdupq_n_f32(-87.3f)), vdupq_n_f32(88.7f));
    V n = vrndnq_f32(vmulq_f32(c, vdupq_n_f32(1.44269504f)));
    V r = vfmsq_f32(c, n, vdupq_n_f32(0.693359375f));
    r = vfmsq_f32(r, n, vdupq_n_f32(-2.12194440e-4f));
    int32x4_t bits =
        vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23);
    V y = vmulq_f32(expSmall(r), vreinterpretq_f32_s32(bits));
    y = vbslq_f32(big, vdupq_n_f32(__builtin_inff()), y);
    return vreinterpretq_f32_u32(vbicq_u32(vreinterpretq_u32_f32(y), low));
  }
  /// Lanes [lo, hi) of p[0..4) (the others are neither read nor written:
  /// NEON has no masked loads, so lane by lane).
  struct Mask {
    int lo, hi;
  };
  static Mask lanes(int lo, int hi) { return {lo, hi}; }
  static V maskLoad(const float *p, Mask m) {
    alignas(16) float v[4] = {};
    for (int i = m.lo; i < m.hi; ++i)
      v[i] = p[i];
    return vld1q_f32(v);
  }
  static void maskStore(float *p, Mask m, V v) {
    alignas(16) float lanes[4];
    vst1q_f32(lanes, v);
    for (int i = m.lo; i < m.hi; ++i)
      p[i] = lanes[i];
  }
  /// a1 a2 a3 b0.
  static V next(V a, V b) { return vextq_f32(a, b, 1); }
  /// a3 b0 b1 b2.
  static V prev(V a, V b) { return vextq_f32(a, b, 3); }
};

} // namespace mxrt::isa

#endif // __aarch64__

#endif // MXRT_SRC_KERNELS_ISA_NEON_H
