// SPDX-License-Identifier: Apache-2.0
// The runtime's GEMM and convolution kernels against direct float64 loops:
// random shapes (edges of every micro-tile size), transposes, strided and
// broadcast biases, accumulation, ReLU, convolution padding, strides,
// dilations and groups; serially and on a thread pool. CTest runs this
// program once per instruction set (MXRT_KERNEL_ISA).

#include "mxrt/kernels.h"
#include "KernelReference.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/isa/isa.h"
#include "threadpool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace {

// Where the CPU is known to have an instruction set (qemu's emulated ARM
// cores), CTest says which copy must run: a dispatch that falls back to
// another would pass every other test here.
TEST(Kernels, RunTheExpectedInstructionSet) {
  const char *expected = std::getenv("MXRT_TEST_EXPECT_ISA");
  if (!expected)
    GTEST_SKIP() << "MXRT_TEST_EXPECT_ISA not set";
  EXPECT_STREQ(mxrt::kernelIsa(), expected);
}

using mxrt_test::expectNear;
using mxrt_test::productAt;
using mxrt_test::randomVector;

/// Random GEMM problems, checked against a float64 reference. `fewRows`:
/// only products of 1-4 rows, long enough in k and n to be split across a
/// pool's threads (a decoder's weights streamed one token at a time).
void checkGemm(int trials, uint32_t seed, bool fewRows = false) {
  std::mt19937 rng(seed);
  for (int trial = 0; trial < trials; ++trial) {
    int64_t batch = rng() % 3 + 1, m = rng() % 70 + 1, n = rng() % 90 + 1,
            k = rng() % 300;
    if (trial % 5 == 0)
      m = rng() % 4 + 1; // the few-rows path
    if (trial % 7 == 0)
      n = rng() % 6 + 1; // computed transposed
    if (fewRows)
      m = rng() % 4 + 1, n = rng() % 300 + 1, k = rng() % 1500 + 200;
    bool ta = rng() % 2, tb = rng() % 2, sharedB = rng() % 2;
    int biasKind = rng() % 4; // none, per row, per column, full
    int32_t flags = rng() % 4;
    std::vector<float> a = randomVector(rng, batch * m * k),
                       b = randomVector(rng, (sharedB ? 1 : batch) * k * n),
                       c = randomVector(rng, batch * m * n),
                       bias = randomVector(rng, batch * m * n);
    int64_t aRs = ta ? 1 : k, aCs = ta ? m : 1, bRs = tb ? 1 : n,
            bCs = tb ? k : 1, bBs = sharedB ? 0 : k * n;
    int64_t biasRs = biasKind == 1   ? 1
                     : biasKind == 3 ? n
                                     : 0,
            biasCs = biasKind == 2 || biasKind == 3 ? 1 : 0,
            biasBs = biasKind == 3 ? m * n : 0;
    if (biasKind == 1)
      biasRs = 1;
    std::vector<double> want(c.begin(), c.end());
    for (int64_t bi = 0; bi < batch; ++bi)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double sum = 0;
          for (int64_t p = 0; p < k; ++p)
            sum += double(a[bi * m * k + i * aRs + p * aCs]) *
                   b[bi * bBs + p * bRs + j * bCs];
          if (biasKind)
            sum += bias[bi * biasBs + i * biasRs + j * biasCs];
          double &out = want[(bi * m + i) * n + j];
          if (flags & MXRT_KERNEL_ACCUMULATE)
            sum += out;
          out = flags & MXRT_KERNEL_RELU ? std::max(sum, 0.0) : sum;
        }
    mxrt_kernel_sgemm(batch, m, n, k, a.data(), m * k, aRs, aCs, b.data(), bBs,
                      bRs, bCs, c.data(), m * n, n, 1,
                      biasKind ? bias.data() : nullptr, biasBs, biasRs, biasCs,
                      flags);
    expectNear(c, want, "sgemm", trial);
  }
}

using mxrt_test::ConvShape;

/// The float64 sums of a convolution's terms (no epilogue) and each
/// output's sum of the terms' magnitudes (what rounding errors grow with).
/// The terms are added in forEachConvTerm's order, into locals: the
/// reference is most of the kernel tests' time.
struct ConvTerms {
  std::vector<double> sum, magnitude;
};

ConvTerms referenceConvTerms(const ConvShape &cs, const std::vector<float> &x,
                             const std::vector<float> &weight) {
  ConvTerms terms;
  terms.sum.resize(cs.n * cs.f * cs.oh * cs.ow);
  terms.magnitude.resize(terms.sum.size());
  int64_t cg = cs.c / cs.g, fg = cs.f / cs.g;
  size_t at = 0;
  for (int64_t i = 0; i < cs.n; ++i)
    for (int64_t f = 0; f < cs.f; ++f)
      for (int64_t oy = 0; oy < cs.oh; ++oy)
        for (int64_t ox = 0; ox < cs.ow; ++ox, ++at) {
          double sum = 0, magnitude = 0;
          for (int64_t ci = 0; ci < cg; ++ci) {
            const float *plane =
                &x[(i * cs.c + f / fg * cg + ci) * cs.h * cs.w];
            const float *filter = &weight[(f * cg + ci) * cs.kh * cs.kw];
            for (int64_t ky = 0; ky < cs.kh; ++ky) {
              int64_t iy = oy * cs.sh - cs.ph + ky * cs.dh;
              if (iy < 0 || iy >= cs.h)
                continue;
              for (int64_t kx = 0; kx < cs.kw; ++kx) {
                int64_t ix = ox * cs.sw - cs.pw + kx * cs.dw;
                if (ix < 0 || ix >= cs.w)
                  continue;
                double term =
                    double(plane[iy * cs.w + ix]) * filter[ky * cs.kw + kx];
                sum += term;
                magnitude += std::fabs(term);
              }
            }
          }
          terms.sum[at] = sum;
          terms.magnitude[at] = magnitude;
        }
  return terms;
}

/// The float64 result of mxrt_kernel_sconv2d(shape, x, weight, bias, y,
/// flags) from its terms, y holding the old output; and in `scale` each
/// output's sum of the magnitudes of its terms.
std::vector<double> referenceConv(const ConvShape &cs, const ConvTerms &terms,
                                  const float *bias,
                                  const std::vector<float> &y, int32_t flags,
                                  std::vector<double> &scale) {
  std::vector<double> want = terms.sum;
  scale = terms.magnitude;
  for (size_t at = 0; at < want.size(); ++at) {
    double extra = bias ? bias[at / (cs.oh * cs.ow) % cs.f] : 0.0;
    if (flags & MXRT_KERNEL_ACCUMULATE)
      extra += y[at];
    want[at] += extra;
    scale[at] += std::fabs(extra);
    if (flags & MXRT_KERNEL_RELU)
      want[at] = std::max(want[at], 0.0);
  }
  return want;
}

/// Runs the kernel on `cs` and checks y against referenceConv (with
/// MXRT_KERNEL_NHWC in channels-last, converted here): within
/// 1e-4 relative, plus `perTerm` times the output's sum of term magnitudes
/// (for algorithms whose rounding error grows with that, not with the
/// result: Winograd's).
void checkOneConv(const ConvShape &cs, const std::vector<float> &x,
                  const std::vector<float> &weight, const float *bias,
                  std::vector<float> &y, int32_t flags, const char *what,
                  int trial, double perTerm = 0.0,
                  const ConvTerms *knownTerms = nullptr) {
  SCOPED_TRACE(::testing::Message()
               << "n " << cs.n << " c " << cs.c << " h " << cs.h << " w "
               << cs.w << " f " << cs.f << " kernel " << cs.kh << "x" << cs.kw
               << " stride " << cs.sh << "," << cs.sw << " pad " << cs.ph << ","
               << cs.pw << " dilate " << cs.dh << "," << cs.dw << " groups "
               << cs.g << " flags " << flags);
  std::vector<double> scale;
  std::vector<double> want = referenceConv(
      cs, knownTerms ? *knownTerms : referenceConvTerms(cs, x, weight), bias, y,
      flags, scale);
  if (flags & MXRT_KERNEL_NHWC) {
    // The reference is NCHW: x and y go to channels-last for the kernel,
    // and y comes back.
    std::vector<float> xt =
                           mxrt_test::toChannelsLast(x, cs.n, cs.c, cs.h, cs.w),
                       yt = mxrt_test::toChannelsLast(y, cs.n, cs.f, cs.oh,
                                                      cs.ow);
    mxrt_kernel_sconv2d(cs.n, cs.c, cs.h, cs.w, cs.f, cs.oh, cs.ow, cs.kh,
                        cs.kw, cs.sh, cs.sw, cs.ph, cs.pw, cs.dh, cs.dw, cs.g,
                        xt.data(), weight.data(), bias, yt.data(), flags);
    for (int64_t i = 0; i < cs.n; ++i)
      for (int64_t f = 0; f < cs.f; ++f)
        for (int64_t p = 0; p < cs.oh * cs.ow; ++p)
          y[(i * cs.f + f) * cs.oh * cs.ow + p] =
              yt[(i * cs.oh * cs.ow + p) * cs.f + f];
  } else {
    mxrt_kernel_sconv2d(cs.n, cs.c, cs.h, cs.w, cs.f, cs.oh, cs.ow, cs.kh,
                        cs.kw, cs.sh, cs.sw, cs.ph, cs.pw, cs.dh, cs.dw, cs.g,
                        x.data(), weight.data(), bias, y.data(), flags);
  }
  ASSERT_EQ(y.size(), want.size());
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_NEAR(y[i], want[i],
                1e-4 * (1.0 + std::fabs(want[i])) + perTerm * scale[i])
        << what << " trial " << trial << " element " << i;
}

/// Random convolutions, checked against a float64 reference (with
/// `extraFlags` on every one).
void checkConv(int trials, uint32_t seed, int32_t extraFlags = 0) {
  std::mt19937 rng(seed);
  for (int trial = 0; trial < trials; ++trial) {
    ConvShape cs;
    cs.n = rng() % 3 + 1, cs.g = rng() % 3 == 0 ? 2 : 1;
    cs.c = cs.g * (rng() % 4 + 1), cs.f = cs.g * (rng() % 20 + 1);
    cs.h = rng() % 12 + 1, cs.w = rng() % 40 + 1, cs.kh = rng() % 3 + 1;
    cs.kw = rng() % 3 + 1, cs.sh = rng() % 2 + 1, cs.sw = rng() % 3 + 1;
    cs.ph = rng() % 2, cs.pw = rng() % 3, cs.dh = rng() % 2 + 1;
    cs.dw = rng() % 2 + 1;
    cs.oh = (cs.h + 2 * cs.ph - cs.dh * (cs.kh - 1) - 1) / cs.sh + 1;
    cs.ow = (cs.w + 2 * cs.pw - cs.dw * (cs.kw - 1) - 1) / cs.sw + 1;
    if (cs.oh <= 0 || cs.ow <= 0)
      continue;
    bool withBias = rng() % 2;
    int32_t flags = rng() % 4;
    std::vector<float> x = randomVector(rng, cs.n * cs.c * cs.h * cs.w),
                       weight = randomVector(rng, cs.f * (cs.c / cs.g) * cs.kh *
                                                      cs.kw),
                       bias = randomVector(rng, cs.f),
                       y = randomVector(rng, cs.n * cs.f * cs.oh * cs.ow);
    checkOneConv(cs, x, weight, withBias ? bias.data() : nullptr, y,
                 flags | extraFlags, "sconv2d", trial);
  }
}

TEST(Kernels, GemmSerial) { checkGemm(300, 1); }

TEST(Kernels, ConvSerial) { checkConv(150, 2); }

TEST(Kernels, GemmOnThreadPool) {
  mxrt::ThreadPool pool(3);
  mxrt::ThreadPool::Scope scope(&pool);
  checkGemm(300, 3);
}

TEST(Kernels, FewRowsOnThreadPool) {
  for (int threads : {2, 3}) {
    mxrt::ThreadPool pool(threads);
    mxrt::ThreadPool::Scope scope(&pool);
    checkGemm(40, 10 + threads, /*fewRows=*/true);
  }
}

TEST(Kernels, ConvOnThreadPool) {
  mxrt::ThreadPool pool(2);
  mxrt::ThreadPool::Scope scope(&pool);
  checkConv(150, 4);
}

/// Each shape with every epilogue (plus `extraFlags`), serially and on a
/// pool of two, against the float64 reference. The weights live as long
/// as the process: constant ones are cached by their address.
void checkConvShapes(const std::vector<ConvShape> &shapes, uint32_t seed,
                     int32_t extraFlags, const char *what,
                     double perTerm = 0.0) {
  static std::vector<std::vector<float>> weights;
  std::mt19937 rng(seed);
  for (int threads : {1, 2}) {
    mxrt::ThreadPool pool(threads);
    mxrt::ThreadPool::Scope scope(&pool);
    int trial = 0;
    for (const ConvShape &cs : shapes) {
      // One input and filter bank per shape and pool, under each epilogue
      // (constant filters: transformed by the first call, cached after).
      std::vector<float> x = randomVector(rng, cs.n * cs.c * cs.h * cs.w);
      weights.push_back(
          randomVector(rng, cs.f * (cs.c / cs.g) * cs.kh * cs.kw));
      ConvTerms terms = referenceConvTerms(cs, x, weights.back());
      for (int32_t flags = 0; flags < 4; ++flags, ++trial) {
        std::vector<float> bias = randomVector(rng, cs.f),
                           y = randomVector(rng, cs.n * cs.f * cs.oh * cs.ow);
        checkOneConv(cs, x, weights.back(), flags & 1 ? bias.data() : nullptr,
                     y, flags | extraFlags, what, trial, perTerm, &terms);
      }
    }
  }
}

TEST(Kernels, ConvolutionsAsNetworksHaveThem) {
  // Shapes that take the direct path (no im2col packing): the layers of
  // the CIFAR ResNets and ResNet-18 (k deeper than one packed slice, grids
  // wider than a tile, an 8x8 image's grid ending in a half tile; stride
  // 2 through the phase planes), LeNet's unpadded 5x5, 1x1s (most of them
  // plain products), dilated (with
  // wide padding too), stride-3 and grouped ones. Again with constant weights,
  // which small images compute with the filters in the lanes (ResNet-18's 7x7
  // stage, an 8x8 image in tiles of 6 pixels, partial panels of filters,
  // several slices of k, stride 2; every direct shape in the CTest *.pixels
  // run).
  const std::vector<ConvShape> shapes = {
      {1, 16, 32, 32, 16, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1},
      {1, 64, 8, 8, 64, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1},
      {1, 64, 14, 14, 70, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1},
      {2, 32, 7, 7, 40, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1},
      {3, 1, 28, 28, 20, 24, 24, 5, 5, 1, 1, 0, 0, 1, 1, 1},
      {2, 20, 12, 12, 50, 8, 8, 5, 5, 1, 1, 0, 0, 1, 1, 1},
      {1, 24, 9, 9, 17, 9, 9, 1, 1, 1, 1, 0, 0, 1, 1, 1},
      // 1x1 stride 1 as plain products (pointwiseAsGemm): a large image of
      // many channels (a last panel of 3 columns), a 14x14 one (a last
      // panel of 4: half a panel computed), grouped, and few channels on a
      // large image (the grid).
      {1, 80, 33, 35, 40, 33, 35, 1, 1, 1, 1, 0, 0, 1, 1, 1},
      {2, 70, 14, 14, 30, 14, 14, 1, 1, 1, 1, 0, 0, 1, 1, 1},
      {1, 32, 10, 10, 48, 10, 10, 1, 1, 1, 1, 0, 0, 1, 1, 2},
      {1, 16, 40, 40, 24, 40, 40, 1, 1, 1, 1, 0, 0, 1, 1, 1},
      {1, 3, 9, 11, 13, 9, 9, 5, 3, 1, 1, 4, 0, 2, 1, 1},
      {2, 8, 10, 10, 10, 10, 10, 3, 3, 1, 1, 1, 1, 1, 1, 2},
      {1, 16, 32, 32, 32, 16, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1},
      {1, 32, 16, 16, 64, 8, 8, 1, 1, 2, 2, 0, 0, 1, 1, 1},
      {1, 3, 30, 30, 8, 15, 15, 7, 7, 2, 2, 3, 3, 1, 1, 1},
      {2, 4, 13, 17, 6, 5, 5, 3, 3, 3, 3, 2, 1, 2, 2, 2},
      {1, 256, 7, 7, 128, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1},
      {1, 64, 8, 8, 100, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1},
      {1, 64, 14, 14, 64, 7, 7, 3, 3, 2, 2, 1, 1, 1, 1, 1},
      // Dilated windows with their wide padding (grids of up to twice the
      // output's width): a 5x5 depthwise of dilation 2 (LR-ASPP's
      // MobileNetV3), a 3x3 of dilation 4.
      {1, 32, 14, 14, 32, 14, 14, 5, 5, 1, 1, 4, 4, 2, 2, 32},
      {1, 16, 14, 14, 16, 14, 14, 3, 3, 1, 1, 4, 4, 4, 4, 1},
      // Depthwise (one filter per channel): stride 2 with
      // odd extents, 5x5, a 1-pixel-wide image, stride 3 on a 5x3 image.
      {2, 24, 15, 13, 24, 8, 7, 3, 3, 2, 2, 1, 1, 1, 1, 24},
      {1, 16, 9, 9, 16, 9, 9, 5, 5, 1, 1, 2, 2, 1, 1, 16},
      {1, 8, 6, 1, 8, 6, 1, 3, 3, 1, 1, 1, 1, 1, 1, 8},
      {2, 4, 5, 3, 4, 2, 1, 3, 3, 3, 3, 1, 1, 1, 1, 4}};
  // 3x3 stride-1 layers of 64+ channels take Winograd with varying
  // filters too (transformed per call, as a training step's), and in
  // CTest's forced-Winograd runs every 3x3 stride-1 one: its error bound,
  // see WinogradConvolutions.
  checkConvShapes(shapes, 11, 0, "network conv", mxrt_test::kWinogradPerTerm);
  checkConvShapes(shapes, 13, MXRT_KERNEL_CONST_A, "constant network conv",
                  mxrt_test::kWinogradPerTerm);
}

TEST(Kernels, NhwcConvolutions) {
  // Channels last (MXRT_KERNEL_NHWC): random shapes (padding, strides,
  // dilations, groups, filters not a whole vector), serially and split by
  // output rows over two and three threads (pieces across images of a
  // batch); then network layers, whose 16- and 32-channel steps and filter
  // counts of one and two vectors take each micro-tile, with constant
  // (cached) weights and without.
  checkConv(150, 21, MXRT_KERNEL_NHWC);
  for (int threads : {2, 3}) {
    mxrt::ThreadPool pool(threads);
    mxrt::ThreadPool::Scope scope(&pool);
    checkConv(100, 22 + threads, MXRT_KERNEL_NHWC);
  }
  const std::vector<ConvShape> shapes = {
      {1, 3, 32, 32, 16, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1},
      {1, 16, 32, 32, 16, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1},
      {1, 16, 32, 32, 32, 16, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1},
      {1, 16, 32, 32, 32, 16, 16, 1, 1, 2, 2, 0, 0, 1, 1, 1},
      {1, 32, 16, 16, 32, 16, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1},
      {1, 64, 8, 8, 64, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1},
      {2, 64, 14, 14, 70, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1},
      {1, 32, 7, 7, 8, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1},
      {3, 1, 28, 28, 20, 24, 24, 5, 5, 1, 1, 0, 0, 1, 1, 1},
      {2, 8, 10, 10, 10, 10, 10, 3, 3, 1, 1, 1, 1, 1, 1, 2},
      {1, 256, 7, 7, 128, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1}};
  // 3x3 stride-1 layers of 16+ channels take NHWC Winograd, with varying
  // filters (transformed per call) or constant ones (cached): its
  // rounding bound (see WinogradConvolutions).
  checkConvShapes(shapes, 23, MXRT_KERNEL_NHWC, "nhwc conv",
                  mxrt_test::kWinogradPerTerm);
  checkConvShapes(shapes, 24, MXRT_KERNEL_NHWC | MXRT_KERNEL_CONST_A,
                  "constant nhwc conv", mxrt_test::kWinogradPerTerm);
}

TEST(Kernels, NhwcWinogradConvolutions) {
  // Channels-last Winograd (3x3, stride 1, constant filters, channels in
  // whole vectors of 16): F(4x4, 3x3) by default, F(2x2, 3x3) where its
  // transformed filters would pass 4 MiB (256 x 256); CTest's *.winograd2
  // and *.winograd4 runs force each. ResNet layers; odd sizes (tiles
  // partly outside the image, on the right and at the bottom); no and
  // double padding; an output shorter than the padding implies; filter
  // counts that are not whole vectors or panels; more tiles than a chunk
  // (44x44 with F(4x4): 121 tiles in chunks of 41, ending inside tile
  // rows), and a chunk that spans the images of a batch; one and two
  // threads (runs of tiles that end inside a tile row).
  checkConvShapes({{1, 64, 28, 28, 64, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {1, 16, 32, 32, 16, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {2, 64, 14, 13, 70, 14, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {1, 256, 14, 14, 256, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {1, 32, 11, 12, 20, 9, 10, 3, 3, 1, 1, 0, 0, 1, 1, 1},
                   {1, 16, 10, 10, 24, 12, 12, 3, 3, 1, 1, 2, 2, 1, 1, 1},
                   {1, 16, 10, 10, 16, 9, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {1, 320, 9, 9, 40, 9, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {1, 64, 44, 44, 64, 44, 44, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {3, 48, 7, 7, 33, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1}},
                  25, MXRT_KERNEL_NHWC | MXRT_KERNEL_CONST_A,
                  "nhwc winograd conv", mxrt_test::kWinogradPerTerm);
}

TEST(Kernels, WinogradConvolutions) {
  // 3x3 stride-1 convolutions with constant filters. The first three take
  // Winograd by default (64+ channels and filters, two panels of tiles;
  // F(4x4, 3x3) and F(2x2, 3x3); 16 channels take F(4x4, 3x3) on one
  // thread, as here); CTest's *.winograd2 and *.winograd4 runs
  // (MXRT_KERNEL_CONV) force each tile size on all: ResNet layers, odd
  // output sizes (a tile partly outside), no and double padding, an output
  // shorter than the padding implies, filters not a whole number of
  // micro-tile rows, more channels than one chunk, a batch; split along
  // the tile grid, and along the filters for an 8x8 image. Winograd's
  // rounding error grows with the sum of the terms' magnitudes: F(4x4,
  // 3x3)'s reached 1e-5 of it here (direct's and F(2x2, 3x3)'s 3e-7), so
  // 3e-5 of it is allowed on top of the usual 1e-4 relative.
  checkConvShapes({{1, 64, 28, 28, 64, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {1, 64, 14, 13, 70, 14, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {1, 16, 32, 32, 16, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {1, 64, 28, 28, 40, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {1, 64, 8, 8, 64, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {2, 9, 15, 13, 13, 15, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {1, 8, 11, 12, 20, 9, 10, 3, 3, 1, 1, 0, 0, 1, 1, 1},
                   {1, 12, 10, 10, 24, 12, 12, 3, 3, 1, 1, 2, 2, 1, 1, 1},
                   {1, 8, 10, 10, 16, 9, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {1, 300, 9, 9, 30, 9, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {1, 3, 5, 40, 70, 5, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1}},
                  12, MXRT_KERNEL_CONST_A, "winograd conv",
                  mxrt_test::kWinogradPerTerm);
}

TEST(Kernels, SmallImageWinogradConvolutions) {
  // NCHW 3x3 stride-1 layers with constant filters on images of 8x8
  // outputs, or 7x7 with at least 256 x 256 channels x filters, take
  // Winograd F(2x2, 3x3) with the raw filters transformed as they stream
  // (AVX-512; other ISAs compute them directly): ResNet-18's 7x7 stage
  // (half its filters), a batch of 8x7 (tiles past the image's right edge)
  // with filters in 17 blocks and channels in 8.5 chunks, no padding,
  // double padding, an output shorter than the padding implies, a small
  // 8x8 layer; then, in CTest's *.winograd2 runs (which take it wherever
  // it can run), a 4x4 image (three quarters of the lanes past it), a 6x5
  // one and a batch of three with one filter block.
  checkConvShapes({{1, 512, 7, 7, 256, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {2, 272, 8, 7, 256, 8, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {1, 256, 9, 9, 256, 7, 7, 3, 3, 1, 1, 0, 0, 1, 1, 1},
                   {1, 256, 5, 5, 256, 7, 7, 3, 3, 1, 1, 2, 2, 1, 1, 1},
                   {1, 256, 8, 8, 256, 7, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {1, 32, 8, 8, 48, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {1, 32, 4, 4, 48, 4, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {1, 16, 6, 5, 32, 6, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                   {3, 48, 7, 7, 16, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1}},
                  15, MXRT_KERNEL_CONST_A, "small-image winograd conv",
                  mxrt_test::kWinogradPerTerm);
}

TEST(Kernels, NaNInputsReachTheOutputsOverThem) {
  // A NaN in the input makes NaN every output whose window holds it, by
  // every method (ReLU included: max keeps NaN). The grid, pixel rows and
  // Winograd F(2x2, 3x3) touch no other output; F(4x4, 3x3)'s transforms
  // mix a tile's 6x6 patch, so a NaN may spread within the tiles over it
  // (docs/kernels.md). Constant weights or not, whatever this run's method
  // is (F(4x4) or F(2x2) by default, by the ISA's panel width).
  static std::mt19937 rng(14);
  static std::vector<float> weight = randomVector(rng, 64 * 64 * 9);
  const char *forced = std::getenv("MXRT_KERNEL_CONV");
  std::string method = forced ? forced : "";
  bool mayMix = method.empty() || method == "winograd" || method == "winograd4";
  int64_t h = 20;
  // Odd and even positions: a tile's patch rows and columns 0..3 all get
  // a NaN in some tile.
  for (int32_t flags = 0; flags < 8; ++flags) {
    int32_t kernelFlags = (flags & 1 ? MXRT_KERNEL_RELU : 0) |
                          (flags & 2 ? MXRT_KERNEL_CONST_A : 0);
    bool strict = !mayMix;
    std::vector<float> x = randomVector(rng, 64 * h * h), y(64 * h * h);
    int64_t ny = flags & 4 ? 4 : 5, nx = flags & 4 ? 8 : 9;
    x[(3 * h + ny) * h + nx] = std::nanf("");
    mxrt_kernel_sconv2d(1, 64, h, h, 64, h, h, 3, 3, 1, 1, 1, 1, 1, 1, 1,
                        x.data(), weight.data(), nullptr, y.data(),
                        kernelFlags);
    for (int64_t f = 0; f < 64; ++f)
      for (int64_t oy = 0; oy < h; ++oy)
        for (int64_t ox = 0; ox < h; ++ox) {
          bool over = std::abs(oy - ny) <= 1 && std::abs(ox - nx) <= 1;
          float v = y[(f * h + oy) * h + ox];
          if (over)
            ASSERT_TRUE(std::isnan(v))
                << flags << ": " << f << " " << oy << " " << ox;
          else if (strict)
            ASSERT_FALSE(std::isnan(v))
                << flags << ": " << f << " " << oy << " " << ox;
        }
  }
}

TEST(Kernels, LargeGemmSplitsAcrossThreads) {
  // Big enough for every block loop to run more than once (k > KC,
  // n > NC) and for the split along both m and n.
  mxrt::ThreadPool pool(2);
  mxrt::ThreadPool::Scope scope(&pool);
  std::mt19937 rng(5);
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{300, 2500, 600},
                         {2500, 40, 300}}) {
    std::vector<float> a = randomVector(rng, m * k),
                       b = randomVector(rng, k * n), c(m * n);
    mxrt_kernel_sgemm(1, m, n, k, a.data(), 0, k, 1, b.data(), 0, n, 1,
                      c.data(), 0, n, 1, nullptr, 0, 0, 0, 0);
    for (int64_t probe = 0; probe < 200; ++probe) {
      int64_t i = rng() % m, j = rng() % n;
      double want = productAt(a, b, k, i, j, n, 1);
      ASSERT_NEAR(c[i * n + j], want, 1e-3 * (1.0 + std::fabs(want)))
          << m << "x" << n << "x" << k << " at " << i << "," << j;
    }
  }
}

TEST(Kernels, GemmRowBlocksWhereBIsFar) {
  // One thread. A's rows in one block (at most 132), in balanced blocks
  // where B's panel outgrows L2 (n > 1024 at k slices of 256), else in
  // blocks of 48; B kept packed (a constant, so kept alive: the packed
  // cache knows it by address) or packed per call; rows that fill no whole
  // micro-panel.
  static std::vector<std::vector<float>> constants;
  std::mt19937 rng(7);
  for (auto [m, n, k, constB] :
       {std::tuple<int64_t, int64_t, int64_t, bool>{300, 2100, 300, false},
        {300, 2100, 300, true},
        {131, 1500, 257, true},
        {140, 50, 520, false},
        {132, 33, 600, true},
        {7, 2049, 260, true}}) {
    std::vector<float> a = randomVector(rng, m * k), c(m * n);
    std::vector<float> &b = constants.emplace_back(randomVector(rng, k * n));
    mxrt_kernel_sgemm(1, m, n, k, a.data(), 0, k, 1, b.data(), 0, n, 1,
                      c.data(), 0, n, 1, nullptr, 0, 0, 0,
                      constB ? MXRT_KERNEL_CONST_B : 0);
    for (int64_t probe = 0; probe < 300; ++probe) {
      int64_t i = probe < 4 ? (probe % 2) * (m - 1) : rng() % m,
              j = probe < 4 ? (probe / 2) * (n - 1) : rng() % n;
      double want = productAt(a, b, k, i, j, n, 1);
      ASSERT_NEAR(c[i * n + j], want, 1e-3 * (1.0 + std::fabs(want)))
          << m << "x" << n << "x" << k << (constB ? " const B" : "") << " at "
          << i << "," << j;
    }
  }
}

TEST(Kernels, FewRowsTimesAConstantBPackedOnce) {
  // Products of at most 4 rows with a constant B of up to 2 MB take B
  // packed (gemmFewRowsPacked): B row-major and transposed (an LSTM's
  // recurrence weights), k over one slice (257, 600: a shallower last
  // one), groups of panels cut short (n 1, 33, 300), a bias per column,
  // accumulation and ReLU; on one thread and split along n over two.
  static std::vector<std::vector<float>> constants;
  std::mt19937 rng(8);
  mxrt::ThreadPool pool(2);
  for (int threads : {1, 2}) {
    mxrt::ThreadPool::Scope scope(threads == 2 ? &pool : nullptr);
    for (auto [m, n, k, transposed] :
         {std::tuple<int64_t, int64_t, int64_t, bool>{1, 1024, 256, true},
          {1, 33, 5, false},
          {2, 300, 257, true},
          {4, 1, 600, false},
          {3, 520, 600, true},
          {1, 4096, 100, false}}) {
      std::vector<float> a = randomVector(rng, m * k),
                         bias = randomVector(rng, n);
      std::vector<float> &b = constants.emplace_back(randomVector(rng, k * n));
      std::vector<float> c = randomVector(rng, m * n), before = c;
      int32_t flags =
          MXRT_KERNEL_CONST_B | MXRT_KERNEL_ACCUMULATE | MXRT_KERNEL_RELU;
      int64_t bRs = transposed ? 1 : n, bCs = transposed ? k : 1;
      mxrt_kernel_sgemm(1, m, n, k, a.data(), 0, k, 1, b.data(), 0, bRs, bCs,
                        c.data(), 0, n, 1, bias.data(), 0, 0, 1, flags);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double want =
              bias[j] + before[i * n + j] + productAt(a, b, k, i, j, bRs, bCs);
          want = std::max(want, 0.0);
          ASSERT_NEAR(c[i * n + j], want, 1e-4 * (1.0 + std::fabs(want)))
              << m << "x" << n << "x" << k << (transposed ? " B^T" : "")
              << " on " << threads << " thread(s) at " << i << "," << j;
        }
    }
  }
}

TEST(Kernels, SomeRowsWithAConstantBSplitByRows) {
  // 5 to 2 * 12 * threads rows with a constant B split their rows evenly
  // over the pool (an LSTM's recurrence at batch 16: 8 + 8): uneven
  // counts, pieces of fewer rows than a micro-panel, three threads; C
  // accumulated into with a bias per column.
  static std::vector<std::vector<float>> constants;
  std::mt19937 rng(9);
  for (int threads : {2, 3}) {
    mxrt::ThreadPool pool(threads);
    mxrt::ThreadPool::Scope scope(&pool);
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{16, 1024, 256},
                           {5, 100, 70},
                           {23, 33, 300},
                           {48, 64, 40}}) {
      std::vector<float> a = randomVector(rng, m * k),
                         bias = randomVector(rng, n);
      std::vector<float> &b = constants.emplace_back(randomVector(rng, k * n));
      std::vector<float> c = randomVector(rng, m * n), before = c;
      mxrt_kernel_sgemm(1, m, n, k, a.data(), 0, k, 1, b.data(), 0, 1, k,
                        c.data(), 0, n, 1, bias.data(), 0, 0, 1,
                        MXRT_KERNEL_CONST_B | MXRT_KERNEL_ACCUMULATE);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double want =
              bias[j] + before[i * n + j] + productAt(a, b, k, i, j, 1, k);
          ASSERT_NEAR(c[i * n + j], want, 1e-4 * (1.0 + std::fabs(want)))
              << m << "x" << n << "x" << k << " on " << threads
              << " threads at " << i << "," << j;
        }
    }
  }
}

TEST(Kernels, ABiasMatrixWithRowsApartIsReadInPlace) {
  // A bias of one value per element, its rows further apart than C's (a
  // GRU step's gates read from its input projection: 2 of 3 gates' columns
  // of each row), in the micro-kernel's registers: constant and plain B,
  // with and without accumulation, on one and two threads.
  static std::vector<std::vector<float>> constants;
  std::mt19937 rng(10);
  mxrt::ThreadPool pool(2);
  for (int threads : {1, 2}) {
    mxrt::ThreadPool::Scope scope(threads == 2 ? &pool : nullptr);
    for (auto [m, n, k, flags] :
         {std::tuple<int64_t, int64_t, int64_t, int32_t>{16, 1024, 256,
                                                         MXRT_KERNEL_CONST_B},
          {16, 512, 256, MXRT_KERNEL_CONST_B | MXRT_KERNEL_ACCUMULATE},
          {30, 96, 40, 0},
          {5, 64, 70, MXRT_KERNEL_ACCUMULATE | MXRT_KERNEL_RELU}}) {
      int64_t biasRs = n + n / 2;
      std::vector<float> a = randomVector(rng, m * k),
                         bias = randomVector(rng, m * biasRs);
      std::vector<float> &b = constants.emplace_back(randomVector(rng, k * n));
      std::vector<float> c = randomVector(rng, m * n), before = c;
      mxrt_kernel_sgemm(1, m, n, k, a.data(), 0, k, 1, b.data(), 0, 1, k,
                        c.data(), 0, n, 1, bias.data(), 0, biasRs, 1, flags);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double want =
              bias[i * biasRs + j] + productAt(a, b, k, i, j, 1, k) +
              (flags & MXRT_KERNEL_ACCUMULATE ? before[i * n + j] : 0.0);
          if (flags & MXRT_KERNEL_RELU)
            want = std::max(want, 0.0);
          ASSERT_NEAR(c[i * n + j], want, 1e-4 * (1.0 + std::fabs(want)))
              << m << "x" << n << "x" << k << " flags " << flags << " on "
              << threads << " thread(s) at " << i << "," << j;
        }
    }
  }
}

TEST(Kernels, ConstantOperandsArePackedOnceAndReused) {
  // Constant operands must outlive the process's kernel calls: static.
  static std::mt19937 rng(6);
  static std::vector<float> weight = randomVector(rng, 37 * 300),
                            filters = randomVector(rng, 16 * 3 * 3 * 3);
  mxrt::ThreadPool pool(2);
  mxrt::ThreadPool::Scope scope(&pool);
  for (int call = 0; call < 3; ++call) { // the first packs, the rest reuse
    // FullyConnected's shape: x (m x k) times the constant weight^T.
    int64_t m = 9 + call, n = 37, k = 300;
    std::vector<float> x = randomVector(rng, m * k), y(m * n);
    mxrt_kernel_sgemm(1, m, n, k, x.data(), 0, k, 1, weight.data(), 0, 1, k,
                      y.data(), 0, n, 1, nullptr, 0, 0, 0, MXRT_KERNEL_CONST_B);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double want = 0;
        for (int64_t p = 0; p < k; ++p)
          want += double(x[i * k + p]) * weight[j * k + p];
        ASSERT_NEAR(y[i * n + j], want, 1e-4 * (1.0 + std::fabs(want)))
            << "call " << call << " at " << i << "," << j;
      }
    // A convolution over two images with constant filters, then the same
    // filters as 2 groups of 8 over 3 of 6 channels: each group's rows are
    // a constant A of their own.
    std::vector<float> img = randomVector(rng, 2 * 3 * 6 * 6), out(2 * 16 * 36);
    checkOneConv({2, 3, 6, 6, 16, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1}, img,
                 filters, nullptr, out, MXRT_KERNEL_CONST_A, "constant conv",
                 call);
    std::vector<float> img2 = randomVector(rng, 6 * 36), out2(16 * 36);
    checkOneConv({1, 6, 6, 6, 16, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 2}, img2,
                 filters, nullptr, out2, MXRT_KERNEL_CONST_A,
                 "constant grouped conv", call);
  }
}

TEST(Kernels, WinogradGridSplitsAcrossThreads) {
  // 64 channels and filters on a 30x30 image take Winograd F(4x4) on more
  // than one thread too; its grid, 8 rows of 9 tiles (three panels), splits
  // into runs of whole tile rows whose last panels are partial: 4 + 4 rows
  // on two threads, 3 + 3 + 2 on three. Every tile must be computed once.
  // Rounding as allowed for Winograd in ConvolutionsAsNetworksHaveThem.
  static std::mt19937 rng(9);
  static std::vector<float> weight = randomVector(rng, 64 * 64 * 9);
  for (int threads : {2, 3}) {
    mxrt::ThreadPool pool(threads);
    mxrt::ThreadPool::Scope scope(&pool);
    std::vector<float> x = randomVector(rng, 64 * 30 * 30),
                       bias = randomVector(rng, 64),
                       y = randomVector(rng, 64 * 30 * 30);
    checkOneConv({1, 64, 30, 30, 64, 30, 30, 3, 3, 1, 1, 1, 1, 1, 1, 1}, x,
                 weight, bias.data(), y, MXRT_KERNEL_CONST_A | MXRT_KERNEL_RELU,
                 "Winograd split", threads, mxrt_test::kWinogradPerTerm);
  }
}

TEST(ThreadPool, RunsEveryTaskOnce) {
  mxrt::ThreadPool pool(4);
  for (int64_t count : {0, 1, 3, 1000}) {
    std::vector<std::atomic<int>> hits(count);
    pool.parallelFor(
        count,
        [](void *arg, int64_t i) {
          (*static_cast<std::vector<std::atomic<int>> *>(arg))[i]++;
        },
        &hits);
    for (int64_t i = 0; i < count; ++i)
      ASSERT_EQ(hits[i].load(), 1) << "task " << i << " of " << count;
  }
}

/// Random 2-D poolings (max, mean with and without the padding counted,
/// sum; padding, strides, "full" output extents, channels-last strides,
/// accumulation, ReLU) against float64 loops over the window's positions
/// inside the input.
void checkPool(int trials, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int trial = 0; trial < trials; ++trial) {
    int64_t n = rng() % 3 + 1, c = rng() % 5 + 1, h = rng() % 20 + 1,
            w = rng() % 40 + 1, kh = rng() % 4 + 1, kw = rng() % 4 + 1,
            sh = rng() % 3 + 1, sw = rng() % 3 + 1, ph = rng() % kh,
            pw = rng() % kw;
    if (trial % 3 == 0)
      sw = 2; // the stride-2 path
    if (trial % 11 == 0)
      kh = h, kw = w, ph = pw = 0; // global
    kh = std::min(kh, h + 2 * ph), kw = std::min(kw, w + 2 * pw);
    // "valid" extents, or one more where a last window starts in range.
    bool full = rng() % 2;
    int64_t oh = (h + 2 * ph - kh) / sh + 1, ow = (w + 2 * pw - kw) / sw + 1;
    if (full && (oh * sh - ph) < h + ph)
      ++oh;
    if (full && (ow * sw - pw) < w + pw)
      ++ow;
    int kind = rng() % 4; // max, mean, mean counting padding, sum
    int32_t flags = rng() % 4 |
                    (kind == 1 || kind == 2 ? MXRT_KERNEL_POOL_AVG : 0) |
                    (kind == 2 ? MXRT_KERNEL_POOL_COUNT_PAD : 0) |
                    (kind == 3 ? MXRT_KERNEL_POOL_SUM : 0);
    bool last = rng() % 3 == 0; // x channels last, through its strides
    int64_t xn = c * h * w, xc = last ? 1 : h * w, xh = last ? w * c : w,
            xw = last ? c : 1;
    std::vector<float> x = randomVector(rng, n * c * h * w),
                       y = randomVector(rng, n * c * oh * ow);
    std::vector<double> want(y.begin(), y.end());
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < c; ++j)
        for (int64_t oy = 0; oy < oh; ++oy)
          for (int64_t ox = 0; ox < ow; ++ox) {
            double acc = kind == 0 ? -INFINITY : 0.0;
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                int64_t iy = oy * sh - ph + ky, ix = ox * sw - pw + kx;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w)
                  continue;
                double v = x[i * xn + j * xc + iy * xh + ix * xw];
                acc = kind == 0 ? std::max(acc, v) : acc + v;
              }
            if (kind == 1 || kind == 2) {
              // Window positions inside the input (and, counting padding,
              // inside the padded input: [-p, extent + p)).
              auto extent = [&](int64_t o, int64_t s, int64_t p, int64_t k,
                                int64_t e) {
                int64_t lo = o * s - p, hi = std::min(lo + k, e + p);
                if (kind == 1)
                  lo = std::max<int64_t>(lo, 0), hi = std::min(hi, e);
                return std::max<int64_t>(hi - lo, 1);
              };
              acc /=
                  double(extent(oy, sh, ph, kh, h) * extent(ox, sw, pw, kw, w));
            }
            double &out = want[((i * c + j) * oh + oy) * ow + ox];
            if (flags & MXRT_KERNEL_ACCUMULATE)
              acc += out;
            out = flags & MXRT_KERNEL_RELU ? std::max(acc, 0.0) : acc;
          }
    mxrt_kernel_spool2d(n, c, h, w, oh, ow, kh, kw, sh, sw, ph, pw, x.data(),
                        xn, xc, xh, xw, y.data(), c * oh * ow, oh * ow, ow, 1,
                        flags);
    expectNear(y, want, "pool", trial);
  }
}

TEST(Kernels, Pooling) { checkPool(300, 31); }

TEST(Kernels, PoolingOnThreadPool) {
  mxrt::ThreadPool pool(2);
  mxrt::ThreadPool::Scope scope(&pool);
  checkPool(100, 32);
  // Big enough to split among the threads: ResNet-18's 3x3/2 max pooling.
  std::mt19937 rng(33);
  std::vector<float> x = randomVector(rng, 64 * 112 * 112), y(64 * 56 * 56);
  mxrt_kernel_spool2d(1, 64, 112, 112, 56, 56, 3, 3, 2, 2, 1, 1, x.data(),
                      64 * 112 * 112, 112 * 112, 112, 1, y.data(), 64 * 56 * 56,
                      56 * 56, 56, 1, 0);
  for (int64_t j = 0; j < 64; j += 9)
    for (int64_t oy = 0; oy < 56; oy += 5)
      for (int64_t ox = 0; ox < 56; ox += 3) {
        float m = -INFINITY;
        for (int64_t iy = std::max<int64_t>(2 * oy - 1, 0);
             iy <= std::min<int64_t>(2 * oy + 1, 111); ++iy)
          for (int64_t ix = std::max<int64_t>(2 * ox - 1, 0);
               ix <= std::min<int64_t>(2 * ox + 1, 111); ++ix)
            m = std::max(m, x[(j * 112 + iy) * 112 + ix]);
        ASSERT_EQ(y[(j * 56 + oy) * 56 + ox], m) << j << " " << oy << " " << ox;
      }
}

/// y of mxrt_kernel_sconv2d with the filters given (ResNet-18's 3x3 at
/// 14x14, batch 2, ReLU): what mxrt_kernel_sconv2d_scaled must equal.
/// (Flags as the call's: a kept parameter may take another method.)
std::vector<float> convOf(const std::vector<float> &x,
                          const std::vector<float> &weight,
                          const std::vector<float> &bias, int32_t flags) {
  std::vector<float> y(2 * 64 * 14 * 14);
  mxrt_kernel_sconv2d(2, 32, 14, 14, 64, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1,
                      x.data(), weight.data(), bias.data(), y.data(),
                      flags | MXRT_KERNEL_RELU);
  return y;
}

/// weight's filter i times scale[i], each product rounded once from double.
std::vector<float> scaledBy(const std::vector<float> &weight,
                            const std::vector<float> &scale) {
  std::vector<float> out(weight.size());
  size_t each = weight.size() / scale.size();
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = float(double(weight[i]) * double(scale[i / each]));
  return out;
}

TEST(Kernels, ScaledConvolutionKeepsItsFiltersPerGeneration) {
  std::mt19937 rng(41);
  std::vector<float> x = randomVector(rng, 2 * 32 * 14 * 14),
                     weight = randomVector(rng, 64 * 32 * 9),
                     bias = randomVector(rng, 64),
                     first = randomVector(rng, 64),
                     second = randomVector(rng, 64), y(2 * 64 * 14 * 14);
  auto run = [&](const std::vector<float> &scale, int32_t flags) {
    mxrt_kernel_sconv2d_scaled(2, 32, 14, 14, 64, 14, 14, 3, 3, 1, 1, 1, 1, 1,
                               1, 1, x.data(), weight.data(), scale.data(),
                               bias.data(), y.data(), flags | MXRT_KERNEL_RELU);
    return y;
  };
  std::vector<float> firstWeight = scaledBy(weight, first),
                     secondWeight = scaledBy(weight, second);
  auto want = [&](const std::vector<float> &scaled, int32_t flags) {
    return convOf(x, scaled, bias, flags);
  };
  ASSERT_NE(want(firstWeight, 0), want(secondWeight, 0));
  // Made per call: each scale counts.
  EXPECT_EQ(run(first, 0), want(firstWeight, 0));
  EXPECT_EQ(run(second, 0), want(secondWeight, 0));
  // A parameter: kept while the generation lasts (the caller's contract:
  // the scale changes only with the parameters), made again in the next.
  const int32_t param = MXRT_KERNEL_PARAM_A;
  {
    mxrt::ParamGenerationScope scope(mxrt::newParamGeneration());
    EXPECT_EQ(run(first, param), want(firstWeight, param));
    EXPECT_EQ(run(second, param), want(firstWeight, param));
  }
  {
    mxrt::ParamGenerationScope scope(mxrt::newParamGeneration());
    EXPECT_EQ(run(second, param), want(secondWeight, param));
  }
  // Released with the weight: nothing stale is served afterwards.
  mxrt::packedCache().forget(weight.data(), weight.data() + weight.size());
  {
    mxrt::ParamGenerationScope scope(mxrt::newParamGeneration());
    EXPECT_EQ(run(first, param), want(firstWeight, param));
  }
}

TEST(Kernels, GlobalPoolingOnThreadPool) {
  // One output row: the threads split the planes instead of the rows.
  mxrt::ThreadPool pool(2);
  mxrt::ThreadPool::Scope scope(&pool);
  std::mt19937 rng(34);
  std::vector<float> x = randomVector(rng, 512 * 14 * 14), y(512);
  mxrt_kernel_spool2d(1, 512, 14, 14, 1, 1, 14, 14, 1, 1, 0, 0, x.data(),
                      512 * 196, 196, 14, 1, y.data(), 512, 1, 1, 1,
                      MXRT_KERNEL_POOL_AVG);
  for (int64_t j = 0; j < 512; ++j) {
    double sum = 0;
    for (int64_t i = 0; i < 196; ++i)
      sum += x[j * 196 + i];
    ASSERT_NEAR(y[j], sum / 196, 1e-5) << "channel " << j;
  }
}

TEST(Kernels, MaxPoolingPropagatesNaN) {
  // A NaN anywhere in a window makes its maximum NaN, wherever it falls in
  // the window and whatever the vector lane; the other windows are finite.
  for (int64_t at : {0, 1, 5, 17, 30, 31}) {
    std::vector<float> x(32, 1.0f), y(16);
    x[at] = NAN;
    mxrt_kernel_spool2d(1, 1, 1, 32, 1, 16, 1, 2, 1, 2, 0, 0, x.data(), 32, 32,
                        32, 1, y.data(), 16, 16, 16, 1, 0);
    for (int64_t o = 0; o < 16; ++o)
      ASSERT_EQ(std::isnan(y[o]), o == at / 2) << "NaN at " << at;
  }
}

TEST(Kernels, EightBitMaxPooling) {
  // mxrt_kernel_qmaxpool2d against the maximum over each window's taps
  // inside the input: uint8 and int8 (compared as signed: 200 is -56),
  // NCHW and NHWC, padded windows (ResNet's 3x3/2), windows that run past
  // the input's end (a "full" convention's last ones), non-square; alone
  // and on a pool of 3 (rows split).
  std::mt19937 rng(34);
  std::uniform_int_distribution<int> byte(0, 255);
  struct Shape {
    int64_t n, c, h, w, kh, kw, sh, sw, ph, pw, oh, ow;
  };
  for (int threads : {1, 3}) {
    std::optional<mxrt::ThreadPool> pool;
    std::optional<mxrt::ThreadPool::Scope> scope;
    if (threads > 1) {
      pool.emplace(threads);
      scope.emplace(&*pool);
    }
    for (Shape s : {Shape{1, 64, 112, 112, 3, 3, 2, 2, 1, 1, 56, 56},
                    Shape{2, 5, 9, 7, 2, 2, 2, 2, 0, 0, 5, 4},
                    Shape{1, 3, 6, 11, 3, 2, 1, 3, 1, 0, 6, 4},
                    Shape{2, 17, 8, 8, 3, 3, 1, 1, 1, 1, 8, 8},
                    // 3-wide stride-2 rows of two vectors and a remainder,
                    // unpadded, and with the last window past the row.
                    Shape{1, 2, 9, 131, 3, 3, 2, 2, 0, 0, 4, 65},
                    Shape{1, 3, 5, 130, 3, 3, 2, 2, 1, 1, 3, 66}})
      for (int variant = 0; variant < 4; ++variant) {
        bool isSigned = variant & 1, nhwc = variant & 2;
        std::vector<uint8_t> x(s.n * s.c * s.h * s.w),
            y(s.n * s.c * s.oh * s.ow);
        for (auto &v : x)
          v = static_cast<uint8_t>(byte(rng));
        mxrt_kernel_qmaxpool2d(s.n, s.c, s.h, s.w, s.oh, s.ow, s.kh, s.kw, s.sh,
                               s.sw, s.ph, s.pw, x.data(), y.data(),
                               (isSigned ? MXRT_KERNEL_SIGNED_A : 0) |
                                   (nhwc ? MXRT_KERNEL_NHWC : 0));
        auto value = [&](uint8_t v) {
          return isSigned ? int(static_cast<int8_t>(v)) : int(v);
        };
        for (int64_t b = 0; b < s.n; ++b)
          for (int64_t ci = 0; ci < s.c; ++ci)
            for (int64_t oy = 0; oy < s.oh; ++oy)
              for (int64_t ox = 0; ox < s.ow; ++ox) {
                int best = isSigned ? -128 : 0;
                for (int64_t ky = 0; ky < s.kh; ++ky)
                  for (int64_t kx = 0; kx < s.kw; ++kx) {
                    int64_t iy = oy * s.sh - s.ph + ky,
                            ix = ox * s.sw - s.pw + kx;
                    if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
                      continue;
                    int64_t at = nhwc ? ((b * s.h + iy) * s.w + ix) * s.c + ci
                                      : ((b * s.c + ci) * s.h + iy) * s.w + ix;
                    best = std::max(best, value(x[at]));
                  }
                int64_t at = nhwc ? ((b * s.oh + oy) * s.ow + ox) * s.c + ci
                                  : ((b * s.c + ci) * s.oh + oy) * s.ow + ox;
                ASSERT_EQ(value(y[at]), best)
                    << "c " << s.c << " variant " << variant << " threads "
                    << threads << " at " << b << "," << ci << "," << oy << ","
                    << ox;
              }
      }
  }
}

TEST(ThreadPool, RunsContiguousBlocksCallerFirst) {
  // Thread j's block is tasks [j * count / 3, (j + 1) * count / 3): each
  // block runs whole on one thread (the caller may take a late worker's),
  // and the caller always runs block 0, so piece j of a kernel finds the
  // data it wrote in the last call in the same thread's cache.
  mxrt::ThreadPool pool(3);
  for (int64_t count : {2, 3, 7, 100}) {
    for (int call = 0; call < 20; ++call) {
      std::vector<std::thread::id> who(count);
      pool.parallelFor(
          count,
          [](void *arg, int64_t i) {
            (*static_cast<std::vector<std::thread::id> *>(arg))[i] =
                std::this_thread::get_id();
          },
          &who);
      for (int64_t j = 0; j < 3; ++j)
        for (int64_t i = j * count / 3 + 1; i < (j + 1) * count / 3; ++i)
          ASSERT_EQ(who[i], who[j * count / 3])
              << "task " << i << " of " << count << " left block " << j;
      if (count / 3 > 0)
        ASSERT_EQ(who[0], std::this_thread::get_id()) << count << " tasks";
    }
  }
}

} // namespace
