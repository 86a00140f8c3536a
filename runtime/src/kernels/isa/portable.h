// SPDX-License-Identifier: Apache-2.0
// The kernel families' operations on one float at a time: plain C++ for
// any CPU, and the reference the vector ones are tested against (see
// avx512.h).

#ifndef MXRT_SRC_KERNELS_ISA_PORTABLE_H
#define MXRT_SRC_KERNELS_ISA_PORTABLE_H

#include <cmath>

namespace mxrt::isa {

struct Portable {
  using V = float;
  static constexpr int VL = 1, NV = 8, MR = 4;
  static V load(const float *p) { return *p; }
  static void store(float *p, V v) { *p = v; }
  static V broadcast(float x) { return x; }
  static V fma(V a, V b, V c) { return a * b + c; }
  static V zero() { return 0.0f; }
  static float sum(V v) { return v; }
  static V add(V a, V b) { return a + b; }
  static V sub(V a, V b) { return a - b; }
  static V mul(V a, V b) { return a * b; }
  static V evens(V a, V) { return a; }
  static V odds(V, V b) { return b; }
  static void interleave(V a, V b, V &lo, V &hi) { lo = a, hi = b; }
  static V relu(V v) { return v < 0.0f ? 0.0f : v; }
  static V max(V a, V b) { return a < b ? b : a; }
  static float maxLane(V v) { return v; }
  static V exp(V x) { return std::exp(x); }
  /// Whether the one lane is in [lo, hi).
  using Mask = bool;
  static Mask lanes(int lo, int hi) { return lo < hi; }
  static V maskLoad(const float *p, Mask m) { return m ? *p : 0.0f; }
  static void maskStore(float *p, Mask m, V v) {
    if (m)
      *p = v;
  }
  static V next(V, V b) { return b; }
  static V prev(V a, V) { return a; }
};

} // namespace mxrt::isa

#endif // MXRT_SRC_KERNELS_ISA_PORTABLE_H
