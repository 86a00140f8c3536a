// SPDX-License-Identifier: Apache-2.0
//
// What the kernel tests (KernelsTest.cpp, ConvGradKernelsTest.cpp) share:
// random inputs, the float64 comparison, and the definition of a 2-D NCHW
// convolution (mxrt_kernel_sconv2d's) term by term for their references.

#ifndef MXRT_TEST_KERNELREFERENCE_H
#define MXRT_TEST_KERNELREFERENCE_H

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace mxrt_test {

/// n floats uniform in [-1, 1).
inline std::vector<float> randomVector(std::mt19937 &rng, size_t n) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = u(rng);
  return v;
}

/// Element (i, j) of the product A B in float64: A row-major with k
/// columns, B's element (p, j) at b[p * bRs + j * bCs].
inline double productAt(const std::vector<float> &a,
                        const std::vector<float> &b, int64_t k, int64_t i,
                        int64_t j, int64_t bRs, int64_t bCs) {
  double sum = 0;
  for (int64_t p = 0; p < k; ++p)
    sum += double(a[i * k + p]) * b[p * bRs + j * bCs];
  return sum;
}

/// What a Winograd convolution's rounding may add, per unit of an output's
/// sum of term magnitudes (the error grows with that, not with the result;
/// docs/kernels.md: at most 1e-5 of it measured for F(4x4)).
constexpr double kWinogradPerTerm = 3e-5;

/// got within 1e-4 relative (plus 1e-4 absolute) of the float64 want, plus
/// perTerm times (*scale)[i], the sum of the magnitudes of element i's
/// terms, when given; equal values pass (infinities: empty pooling windows).
inline void expectNear(const std::vector<float> &got,
                       const std::vector<double> &want, const char *what,
                       int trial = 0,
                       const std::vector<double> *scale = nullptr,
                       double perTerm = 0.0) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i])
      ASSERT_NEAR(got[i], want[i],
                  1e-4 * (1.0 + std::fabs(want[i])) +
                      (scale ? perTerm * (*scale)[i] : 0.0))
          << what << " trial " << trial << " element " << i;
}

/// A convolution's extents (mxrt_kernel_sconv2d's order).
struct ConvShape {
  int64_t n, c, h, w, f, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw, g;
};

/// Calls tap(x index, weight index, y index) for every term x * weight of
/// every output y, the taps on padding left out.
template <typename Tap>
void forEachConvTerm(const ConvShape &s, const Tap &tap) {
  int64_t cg = s.c / s.g, fg = s.f / s.g;
  for (int64_t i = 0; i < s.n; ++i)
    for (int64_t f = 0; f < s.f; ++f)
      for (int64_t oy = 0; oy < s.oh; ++oy)
        for (int64_t ox = 0; ox < s.ow; ++ox)
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t ky = 0; ky < s.kh; ++ky)
              for (int64_t kx = 0; kx < s.kw; ++kx) {
                int64_t iy = oy * s.sh - s.ph + ky * s.dh,
                        ix = ox * s.sw - s.pw + kx * s.dw;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
                  continue;
                int64_t c = f / fg * cg + ci;
                tap(((i * s.c + c) * s.h + iy) * s.w + ix,
                    ((f * cg + ci) * s.kh + ky) * s.kw + kx,
                    ((i * s.f + f) * s.oh + oy) * s.ow + ox);
              }
}

/// v (n, c, h, w) channels last: (n, h, w, c).
template <typename T>
std::vector<T> toChannelsLast(const std::vector<T> &v, int64_t n, int64_t c,
                              int64_t h, int64_t w) {
  std::vector<T> out(v.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < c; ++j)
      for (int64_t p = 0; p < h * w; ++p)
        out[(i * h * w + p) * c + j] = v[(i * c + j) * h * w + p];
  return out;
}

} // namespace mxrt_test

#endif // MXRT_TEST_KERNELREFERENCE_H
