// SPDX-License-Identifier: Apache-2.0
// The convolution gradient kernels (mxrt_kernel_sconv2d_grad_data and
// _grad_weight) against float64 loops written from the definition, and
// against the forward kernel through the adjoint identity
// <conv(x, w), dy> = <x, dx> = <w, dw> (a convolution is linear in each of
// x and w, so its gradients are exactly its adjoints): strides, padding,
// dilation, groups, depthwise, 1x1, odd sizes, batch 1, accumulation;
// serially and on pools of two and three threads (CTest runs it once per
// instruction set: the direct weight gradient's vectors differ).

#include "mxrt/kernels.h"
#include "threadpool.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace {

struct Geometry {
  int64_t n, c, h, w, f, kh, kw, sh, sw, ph, pw, dh, dw, g;
  int64_t oh() const { return (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1; }
  int64_t ow() const { return (w + 2 * pw - dw * (kw - 1) - 1) / sw + 1; }
  int64_t xSize() const { return n * c * h * w; }
  int64_t wSize() const { return f * (c / g) * kh * kw; }
  int64_t ySize() const { return n * f * oh() * ow(); }
};

std::vector<float> randomVector(std::mt19937 &rng, int64_t n) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = u(rng);
  return v;
}

/// Calls `tap(x index, w index, y index)` for every term of the forward
/// convolution.
template <typename Tap> void forEachTerm(const Geometry &s, const Tap &tap) {
  int64_t cg = s.c / s.g, fg = s.f / s.g, oh = s.oh(), ow = s.ow();
  for (int64_t i = 0; i < s.n; ++i)
    for (int64_t f = 0; f < s.f; ++f)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox)
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
                    ((i * s.f + f) * oh + oy) * ow + ox);
              }
}

void expectClose(const std::vector<float> &got, const std::vector<double> &want,
                 const char *what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4 * (1.0 + std::fabs(want[i])))
        << what << " element " << i;
}

double dot(const std::vector<float> &a, const std::vector<float> &b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i)
    sum += double(a[i]) * b[i];
  return sum;
}

/// Both gradients of `s` (overwriting, then accumulating onto random
/// contents) against the loops, and the adjoint identity.
void checkGradients(const Geometry &s, uint32_t seed) {
  SCOPED_TRACE(::testing::Message()
               << "n " << s.n << " c " << s.c << " h " << s.h << " w " << s.w
               << " f " << s.f << " kernel " << s.kh << "x" << s.kw
               << " stride " << s.sh << "," << s.sw << " pad " << s.ph << ","
               << s.pw << " dilate " << s.dh << "," << s.dw << " groups "
               << s.g);
  std::mt19937 rng(seed);
  std::vector<float> x = randomVector(rng, s.xSize()),
                     w = randomVector(rng, s.wSize()),
                     dy = randomVector(rng, s.ySize());
  std::vector<double> dxWant(x.size()), dwWant(w.size());
  forEachTerm(s, [&](int64_t xi, int64_t wi, int64_t yi) {
    dxWant[xi] += double(dy[yi]) * w[wi];
    dwWant[wi] += double(dy[yi]) * x[xi];
  });
  auto gradData = [&](std::vector<float> &dx, int32_t flags) {
    mxrt_kernel_sconv2d_grad_data(s.n, s.c, s.h, s.w, s.f, s.oh(), s.ow(),
                                  s.kh, s.kw, s.sh, s.sw, s.ph, s.pw, s.dh,
                                  s.dw, s.g, dy.data(), w.data(), dx.data(),
                                  flags);
  };
  auto gradWeight = [&](std::vector<float> &dw, int32_t flags) {
    mxrt_kernel_sconv2d_grad_weight(s.n, s.c, s.h, s.w, s.f, s.oh(), s.ow(),
                                    s.kh, s.kw, s.sh, s.sw, s.ph, s.pw, s.dh,
                                    s.dw, s.g, x.data(), dy.data(), dw.data(),
                                    flags);
  };
  // Overwriting: whatever dx and dw held is gone.
  std::vector<float> dx = randomVector(rng, s.xSize()),
                     dw = randomVector(rng, s.wSize());
  gradData(dx, 0);
  gradWeight(dw, 0);
  expectClose(dx, dxWant, "dx");
  expectClose(dw, dwWant, "dweight");

  // <conv(x, w), dy> through the forward kernel.
  std::vector<float> y(s.ySize());
  mxrt_kernel_sconv2d(s.n, s.c, s.h, s.w, s.f, s.oh(), s.ow(), s.kh, s.kw,
                      s.sh, s.sw, s.ph, s.pw, s.dh, s.dw, s.g, x.data(),
                      w.data(), nullptr, y.data(), 0);
  double forward = dot(y, dy), tolerance = 1e-4 * (1.0 + std::fabs(forward));
  EXPECT_NEAR(dot(x, dx), forward, tolerance) << "<x, dx>";
  EXPECT_NEAR(dot(w, dw), forward, tolerance) << "<w, dweight>";

  // Accumulating onto earlier contents.
  std::vector<float> dxOld = randomVector(rng, s.xSize()),
                     dwOld = randomVector(rng, s.wSize());
  for (size_t i = 0; i < dxWant.size(); ++i)
    dxWant[i] += dxOld[i];
  for (size_t i = 0; i < dwWant.size(); ++i)
    dwWant[i] += dwOld[i];
  gradData(dxOld, MXRT_KERNEL_ACCUMULATE);
  gradWeight(dwOld, MXRT_KERNEL_ACCUMULATE);
  expectClose(dxOld, dxWant, "accumulated dx");
  expectClose(dwOld, dwWant, "accumulated dweight");
}

// n, c, h, w, f, kh, kw, sh, sw, ph, pw, dh, dw, groups.
const std::vector<Geometry> kLayers = {
    {4, 1, 28, 28, 20, 5, 5, 1, 1, 0, 0, 1, 1, 1},  // LeNet conv1
    {4, 20, 12, 12, 50, 5, 5, 1, 1, 0, 0, 1, 1, 1}, // LeNet conv2
    {2, 16, 9, 11, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1},  // 3x3 same, odd sizes
    {3, 8, 13, 10, 12, 3, 3, 2, 2, 1, 1, 1, 1, 1},  // strided
    {1, 3, 15, 17, 8, 7, 7, 2, 2, 3, 3, 1, 1, 1},   // a stem, batch 1
    {2, 16, 8, 8, 32, 1, 1, 1, 1, 0, 0, 1, 1, 1},   // pointwise
    {2, 16, 8, 9, 32, 1, 1, 2, 2, 0, 0, 1, 1, 1},   // strided 1x1
    {2, 12, 10, 10, 18, 3, 3, 1, 1, 1, 1, 1, 1, 3}, // grouped
    {2, 16, 9, 9, 16, 3, 3, 1, 1, 1, 1, 1, 1, 16},  // depthwise
    {2, 8, 12, 12, 8, 3, 3, 2, 1, 1, 0, 1, 1, 8},   // depthwise, strided
    {1, 6, 11, 11, 10, 3, 3, 1, 1, 2, 2, 2, 2, 1},  // dilated
    {2, 5, 7, 6, 4, 3, 2, 3, 2, 2, 1, 1, 2, 1},     // uneven everything
    {1, 4, 3, 3, 5, 3, 3, 1, 1, 0, 0, 1, 1, 1},     // one output
    {3, 4, 2, 9, 6, 1, 3, 1, 3, 0, 2, 1, 1, 2},     // wide, padded past
    // Unit stride with rows of a vector or more (the direct weight
    // gradient): 3x3 with a row tail, 1x1, uneven padding, groups, filter
    // counts that are not whole blocks.
    {2, 5, 18, 17, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1},
    {2, 8, 6, 20, 11, 1, 1, 1, 1, 0, 0, 1, 1, 1},
    {1, 4, 6, 33, 7, 3, 3, 1, 1, 0, 2, 1, 1, 1},
    {2, 6, 5, 20, 9, 3, 3, 1, 1, 1, 1, 1, 1, 3},
    {3, 3, 20, 21, 5, 5, 5, 1, 1, 2, 2, 1, 1, 1},
};

void checkAll(uint32_t seed) {
  for (const Geometry &s : kLayers)
    checkGradients(s, seed++);
}

TEST(ConvGradKernels, Serial) { checkAll(1); }

TEST(ConvGradKernels, OnTwoThreads) {
  mxrt::ThreadPool pool(2);
  mxrt::ThreadPool::Scope scope(&pool);
  checkAll(100);
}

TEST(ConvGradKernels, OnThreeThreads) {
  // More threads than some batches have images: those split each GEMM.
  mxrt::ThreadPool pool(3);
  mxrt::ThreadPool::Scope scope(&pool);
  checkAll(200);
}

TEST(ConvGradKernels, RandomShapes) {
  std::mt19937 rng(7);
  mxrt::ThreadPool pool(2);
  mxrt::ThreadPool::Scope scope(&pool);
  for (int trial = 0; trial < 60; ++trial) {
    Geometry s;
    s.n = rng() % 3 + 1, s.g = rng() % 3 == 0 ? 2 : 1;
    s.c = s.g * (rng() % 4 + 1), s.f = s.g * (rng() % 9 + 1);
    s.h = rng() % 10 + 1, s.w = rng() % 14 + 1, s.kh = rng() % 3 + 1;
    s.kw = rng() % 3 + 1, s.sh = rng() % 2 + 1, s.sw = rng() % 3 + 1;
    s.ph = rng() % 2, s.pw = rng() % 3, s.dh = rng() % 2 + 1;
    s.dw = rng() % 2 + 1;
    if (s.oh() <= 0 || s.ow() <= 0)
      continue;
    checkGradients(s, 1000 + trial);
  }
}

} // namespace
