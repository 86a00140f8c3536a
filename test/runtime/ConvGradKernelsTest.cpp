// SPDX-License-Identifier: Apache-2.0
// The convolution gradient kernel (mxrt_kernel_sconv2d_backward, each
// gradient alone: the other's inputs are NULL) against float64 loops written
// from the definition, and against the forward kernel through the adjoint
// identity <conv(x, w), dy> = <x, dx> = <w, dw> (a convolution is linear in
// each of x and w, so its gradients are exactly its adjoints): strides,
// padding, dilation, groups, depthwise, 1x1, odd sizes, batch 1, accumulation,
// NCHW and NHWC; serially and on pools of two and three threads (CTest runs it
// once per instruction set: the direct and Winograd weight gradients' vectors
// differ).

#include "KernelReference.h"
#include "mxrt/kernels.h"
#include "threadpool.h"

#include <gtest/gtest.h>

#include <algorithm>
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

using mxrt_test::randomVector;

/// Within 1e-4 relative of the float64 reference.
void expectClose(const std::vector<float> &got, const std::vector<double> &want,
                 const char *what) {
  mxrt_test::expectNear(got, want, what);
}

/// Within 1e-4 relative of the float64 reference, plus what Winograd's
/// rounding may add for terms whose magnitudes sum to `scale` (the data
/// gradient of a 3x3 stride-1 convolution is one, forced Winograd takes it).
void expectClose(const std::vector<float> &got, const std::vector<double> &want,
                 const std::vector<double> &scale, const char *what) {
  mxrt_test::expectNear(got, want, what, 0, &scale,
                        mxrt_test::kWinogradPerTerm);
}

double dot(const std::vector<float> &a, const std::vector<float> &b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i)
    sum += double(a[i]) * b[i];
  return sum;
}

/// Both gradients of `s` (overwriting, then accumulating onto random
/// contents) against the loops, and the adjoint identity; with `layout`
/// MXRT_KERNEL_NHWC, x, dx and dy channels last (the loops' results
/// reordered).
void checkGradients(const Geometry &s, uint32_t seed, int32_t layout = 0) {
  SCOPED_TRACE(::testing::Message()
               << (layout ? "NHWC " : "") << "n " << s.n << " c " << s.c
               << " h " << s.h << " w " << s.w << " f " << s.f << " kernel "
               << s.kh << "x" << s.kw << " stride " << s.sh << "," << s.sw
               << " pad " << s.ph << "," << s.pw << " dilate " << s.dh << ","
               << s.dw << " groups " << s.g);
  std::mt19937 rng(seed);
  std::vector<float> x = randomVector(rng, s.xSize()),
                     w = randomVector(rng, s.wSize()),
                     dy = randomVector(rng, s.ySize());
  std::vector<double> dxWant(x.size()), dwWant(w.size()), dxScale(x.size()),
      dwScale(w.size());
  mxrt_test::ConvShape shape{s.n,  s.c,  s.h,  s.w,  s.f,  s.oh(), s.ow(), s.kh,
                             s.kw, s.sh, s.sw, s.ph, s.pw, s.dh,   s.dw,   s.g};
  mxrt_test::forEachConvTerm(shape, [&](int64_t xi, int64_t wi, int64_t yi) {
    dxWant[xi] += double(dy[yi]) * w[wi];
    dwWant[wi] += double(dy[yi]) * x[xi];
    dxScale[xi] += std::fabs(double(dy[yi]) * w[wi]);
    dwScale[wi] += std::fabs(double(dy[yi]) * x[xi]);
  });
  if (layout) {
    x = mxrt_test::toChannelsLast(x, s.n, s.c, s.h, s.w);
    dxWant = mxrt_test::toChannelsLast(dxWant, s.n, s.c, s.h, s.w);
    dxScale = mxrt_test::toChannelsLast(dxScale, s.n, s.c, s.h, s.w);
    dy = mxrt_test::toChannelsLast(dy, s.n, s.f, s.oh(), s.ow());
  }
  auto backward = [&](float *dx, float *dw, int32_t flags) {
    mxrt_kernel_sconv2d_backward(
        s.n, s.c, s.h, s.w, s.f, s.oh(), s.ow(), s.kh, s.kw, s.sh, s.sw, s.ph,
        s.pw, s.dh, s.dw, s.g, dx ? nullptr : x.data(), dx ? w.data() : nullptr,
        dy.data(), dx, dw, flags | layout);
  };
  auto gradData = [&](std::vector<float> &dx, int32_t flags) {
    backward(dx.data(), nullptr, flags);
  };
  auto gradWeight = [&](std::vector<float> &dw, int32_t flags) {
    backward(nullptr, dw.data(), flags);
  };
  // Overwriting: whatever dx and dw held is gone. Then both in one call.
  std::vector<float> dx = randomVector(rng, s.xSize()),
                     dw = randomVector(rng, s.wSize());
  gradData(dx, 0);
  gradWeight(dw, 0);
  expectClose(dx, dxWant, dxScale, "dx");
  expectClose(dw, dwWant, dwScale, "dweight");
  std::vector<float> dxBoth = randomVector(rng, s.xSize()),
                     dwBoth = randomVector(rng, s.wSize());
  mxrt_kernel_sconv2d_backward(s.n, s.c, s.h, s.w, s.f, s.oh(), s.ow(), s.kh,
                               s.kw, s.sh, s.sw, s.ph, s.pw, s.dh, s.dw, s.g,
                               x.data(), w.data(), dy.data(), dxBoth.data(),
                               dwBoth.data(), layout);
  expectClose(dxBoth, dxWant, dxScale, "dx beside dweight");
  expectClose(dwBoth, dwWant, dwScale, "dweight beside dx");

  // <conv(x, w), dy> through the forward kernel.
  std::vector<float> y(s.ySize());
  mxrt_kernel_sconv2d(s.n, s.c, s.h, s.w, s.f, s.oh(), s.ow(), s.kh, s.kw, s.sh,
                      s.sw, s.ph, s.pw, s.dh, s.dw, s.g, x.data(), w.data(),
                      nullptr, y.data(), layout);
  double forward = dot(y, dy), tolerance = 1e-4 * (1.0 + std::fabs(forward));
  EXPECT_NEAR(dot(x, dx), forward, tolerance) << "<x, dx>";
  EXPECT_NEAR(dot(w, dw), forward, tolerance) << "<w, dweight>";

  // Accumulating onto earlier contents.
  std::vector<float> dxOld = randomVector(rng, s.xSize()),
                     dwOld = randomVector(rng, s.wSize());
  for (size_t i = 0; i < dxWant.size(); ++i) {
    dxWant[i] += dxOld[i];
    dxScale[i] += std::fabs(dxOld[i]);
  }
  for (size_t i = 0; i < dwWant.size(); ++i) {
    dwWant[i] += dwOld[i];
    dwScale[i] += std::fabs(dwOld[i]);
  }
  gradData(dxOld, MXRT_KERNEL_ACCUMULATE);
  gradWeight(dwOld, MXRT_KERNEL_ACCUMULATE);
  expectClose(dxOld, dxWant, dxScale, "accumulated dx");
  expectClose(dwOld, dwWant, dwScale, "accumulated dweight");
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
    // 3x3, stride 1, pad 1, rows of whole vectors (read in place and
    // padded in registers): one, two and three vectors a row (AVX2: two,
    // four, six), 8-wide rows (one AVX2 vector), odd row counts, filter
    // counts that are not whole blocks, groups.
    {2, 5, 7, 16, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1},
    {2, 6, 6, 32, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1},
    {1, 4, 5, 48, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1},
    {3, 3, 9, 8, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1},
    {2, 6, 4, 16, 10, 3, 3, 1, 1, 1, 1, 1, 1, 2},
    // ... and stride 2 (the input twice the output: even and odd lanes):
    // output rows of one, two and three vectors, an odd row count, groups.
    {2, 3, 10, 32, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1},
    {1, 4, 8, 64, 6, 3, 3, 2, 2, 1, 1, 1, 1, 2},
    {1, 2, 6, 96, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1},
    // Stride 2 with rows of a vector or more (the direct weight gradient
    // on stride-phase planes): ResNet-20's 3x3/2 and 1x1/2 at 32x32 (rows
    // of exactly 16, dy read in place), odd sizes and a row tail, uneven
    // padding, 5x5, groups.
    {2, 6, 32, 32, 7, 3, 3, 2, 2, 1, 1, 1, 1, 1},
    {2, 8, 32, 32, 6, 1, 1, 2, 2, 0, 0, 1, 1, 1},
    {2, 5, 35, 37, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1},
    {1, 4, 9, 34, 5, 3, 3, 2, 2, 0, 2, 1, 1, 1},
    {2, 3, 40, 39, 4, 5, 5, 2, 2, 2, 2, 1, 1, 1},
    {2, 6, 17, 36, 9, 3, 3, 2, 2, 1, 1, 1, 1, 3},
    {1, 4, 13, 35, 6, 1, 1, 2, 2, 1, 0, 1, 1, 1},
    // 3x3 stride 1 with 64+ channels and filters (the Winograd F(2x2, 3x3)
    // weight gradient; CTest's *.winograd2 runs take it for every 3x3
    // stride-1 layer above): odd sizes (tiles past the output), images
    // smaller than a chunk (several to one) and larger (several chunks),
    // no, uneven and double padding, filters not a whole vector.
    {2, 64, 9, 11, 70, 3, 3, 1, 1, 1, 1, 1, 1, 1},
    {5, 64, 7, 7, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1},
    {1, 64, 20, 37, 65, 3, 3, 1, 1, 0, 2, 1, 1, 1},
    {2, 80, 5, 6, 64, 3, 3, 1, 1, 2, 2, 1, 1, 1},
    // Images at most half a vector of tiles wide, tile rows side by side
    // in the transforms' vectors: 8x8 (ResNet-20's last stage; every tile
    // column used), 12x10 (two rows a vector, one empty tile column).
    {3, 64, 8, 8, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1},
    {2, 64, 12, 10, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1},
    // Pointwise (one GEMM per image and group): grouped, batch 1.
    {2, 8, 5, 7, 12, 1, 1, 1, 1, 0, 0, 1, 1, 2},
    {1, 24, 9, 9, 40, 1, 1, 1, 1, 0, 0, 1, 1, 1},
};

void checkAll(uint32_t seed) {
  for (const Geometry &s : kLayers)
    checkGradients(s, seed++);
  for (const Geometry &s : kLayers)
    checkGradients(s, seed++, MXRT_KERNEL_NHWC);
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
  // n, c, h, w, f, kh, kw, sh, sw, ph, pw, dh, dw, groups: each drawn below
  // its bound (plus its least), the channel counts a multiple of groups.
  for (int trial = 0; trial < 60; ++trial) {
    auto draw = [&](int64_t bound, int64_t least) {
      return int64_t(rng() % bound) + least;
    };
    Geometry s;
    s.g = rng() % 3 == 0 ? 2 : 1;
    s.n = draw(3, 1), s.c = s.g * draw(4, 1), s.f = s.g * draw(9, 1);
    s.h = draw(10, 1), s.w = draw(14, 1), s.kh = draw(3, 1), s.kw = draw(3, 1);
    s.sh = draw(2, 1), s.sw = draw(3, 1), s.ph = draw(2, 0), s.pw = draw(3, 0);
    s.dh = draw(2, 1), s.dw = draw(2, 1);
    if (s.oh() > 0 && s.ow() > 0)
      checkGradients(s, 1000 + trial, trial % 2 ? MXRT_KERNEL_NHWC : 0);
  }
}

/// mxrt_kernel_spool2d_backward against loops written from its
/// definition: every output's gradient to its window's taps inside the
/// input (max: the taps equal to the output, ties all of them; avg: over
/// the forward's divisor; sum: whole), onto zeros and accumulating.
void checkPoolGrad(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k,
                   int64_t stride, int64_t pad, int32_t type, uint32_t seed) {
  SCOPED_TRACE(::testing::Message()
               << "pool " << n << "x" << c << "x" << h << "x" << w << " kernel "
               << k << " stride " << stride << " pad " << pad << " flags "
               << type);
  int64_t oh = (h + 2 * pad - k) / stride + 1,
          ow = (w + 2 * pad - k) / stride + 1;
  std::mt19937 rng(seed);
  std::vector<float> x = randomVector(rng, n * c * h * w),
                     dy = randomVector(rng, n * c * oh * ow),
                     y(n * c * oh * ow);
  if (type == 0) // a tie in every plane's first window
    for (int64_t p = 0; p < n * c && h > 1 && pad == 0; ++p)
      x[p * h * w + w] = x[p * h * w];
  mxrt_kernel_spool2d(n, c, h, w, oh, ow, k, k, stride, stride, pad, pad,
                      x.data(), c * h * w, h * w, w, 1, y.data(), c * oh * ow,
                      oh * ow, ow, 1, type);
  std::vector<double> want(x.size(), 0.0);
  bool countPad = type & MXRT_KERNEL_POOL_COUNT_PAD;
  for (int64_t p = 0; p < n * c; ++p)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox) {
        int64_t y0 = oy * stride - pad, x0 = ox * stride - pad;
        int64_t y1 = std::min(y0 + k, h + (countPad ? pad : 0)),
                x1 = std::min(x0 + k, w + (countPad ? pad : 0));
        int64_t rows =
            countPad ? y1 - y0 : std::min(y1, h) - std::max<int64_t>(y0, 0);
        int64_t cols =
            countPad ? x1 - x0 : std::min(x1, w) - std::max<int64_t>(x0, 0);
        double g = dy[(p * oh + oy) * ow + ox];
        if (type & MXRT_KERNEL_POOL_AVG)
          g /= double(std::max<int64_t>(rows, 1) * std::max<int64_t>(cols, 1));
        for (int64_t iy = std::max<int64_t>(y0, 0); iy < std::min(y0 + k, h);
             ++iy)
          for (int64_t ix = std::max<int64_t>(x0, 0); ix < std::min(x0 + k, w);
               ++ix) {
            int64_t at = (p * h + iy) * w + ix;
            if (type != 0 || x[at] == y[(p * oh + oy) * ow + ox])
              want[at] += g;
          }
      }
  std::vector<float> dx = randomVector(rng, x.size());
  mxrt_kernel_spool2d_backward(n, c, h, w, oh, ow, k, k, stride, stride, pad,
                               pad, x.data(), y.data(), dy.data(), dx.data(),
                               type);
  expectClose(dx, want, "pooling dx");
  std::vector<float> old = randomVector(rng, x.size()), acc = old;
  for (size_t i = 0; i < want.size(); ++i)
    want[i] += old[i];
  mxrt_kernel_spool2d_backward(n, c, h, w, oh, ow, k, k, stride, stride, pad,
                               pad, x.data(), y.data(), dy.data(), acc.data(),
                               type | MXRT_KERNEL_ACCUMULATE);
  expectClose(acc, want, "accumulated pooling dx");
}

TEST(PoolGradKernels, AsNetworksHaveThem) {
  mxrt::ThreadPool pool(2);
  mxrt::ThreadPool::Scope scope(&pool);
  uint32_t seed = 1;
  for (int32_t type :
       {int32_t(0), int32_t(MXRT_KERNEL_POOL_AVG),
        int32_t(MXRT_KERNEL_POOL_AVG | MXRT_KERNEL_POOL_COUNT_PAD),
        int32_t(MXRT_KERNEL_POOL_SUM)}) {
    checkPoolGrad(4, 20, 24, 24, 2, 2, 0, type, seed++); // LeNet
    checkPoolGrad(2, 3, 13, 11, 3, 2, 1, type, seed++);  // ResNet's stem pool
    checkPoolGrad(1, 2, 7, 9, 3, 1, 1, type, seed++);    // Inception's 3x3/1
    checkPoolGrad(2, 3, 6, 7, 5, 1, 2, type, seed++);    // stride 1, wide
    checkPoolGrad(1, 2, 5, 6, 2, 1, 0, type, seed++);    // stride 1, unpadded
    checkPoolGrad(3, 1, 5, 5, 2, 3, 0, type, seed++);    // gaps between windows
    checkPoolGrad(1, 2, 23, 40, 3, 2, 0, type, seed++);  // Inception's pool_1
    checkPoolGrad(2, 4, 14, 14, 3, 2, 1, type, seed++);  // Inception's 4e
    checkPoolGrad(1, 3, 7, 7, 3, 1, 1, type, seed++);    // Inception's 5b
    checkPoolGrad(1, 2, 9, 8, 4, 2, 1, type, seed++); // even window, stride 2
  }
}

} // namespace
