// SPDX-License-Identifier: Apache-2.0
// mxrt_kernel_sgemm and mxrt_kernel_sconv2d with MXRT_KERNEL_BF16 against
// float64 sums of the operands rounded to bfloat16 (rounded here by
// frexp and nearbyint, not the kernels' bit arithmetic): random shapes
// past every micro-tile, slice and block edge, strides, batches, biases,
// accumulation, ReLU, constant operands kept, NCHW and NHWC convolutions,
// on one thread and on pools. The tolerance is relative to the sum of the
// terms' magnitudes (float32 accumulation over at most a thousand terms),
// far below what skipping the rounding would change. ctest runs the
// binary once per instruction set (MXRT_KERNEL_ISA), and with
// MXRT_KERNEL_ISA=avx512bf16 for vdpbf16ps, so that each path is tested
// where the CPU has it.
#include "kernels/bgemm/bgemm.h"
#include "KernelReference.h"
#include "kernels/isa/isa.h"
#include "mxrt/kernels.h"
#include "threadpool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace {

using mxrt_test::randomVector;

/// x rounded to bfloat16 (8 significant bits, nearest even), float32
/// denormals to zero as the kernels read them.
double bf16(float x) {
  if (std::fabs(x) < 0x1p-126f)
    return 0.0;
  int e;
  double m = std::frexp(double(x), &e); // 0.5 <= |m| < 1
  return std::ldexp(std::nearbyint(m * 256.0) / 256.0, e);
}

/// Tolerance for a sum whose terms have magnitudes summing to `scale`.
double tolerance(double scale) { return 1e-5 * scale + 1e-30; }

/// One random product: batch, m x n x k, A and B row-major or transposed,
/// a bias of kind 0 (none), 1 (per row), 2 (per column) or 3 (a matrix), B
/// shared by the batch, C's rows padded or C transposed, flags (ACCUMULATE,
/// RELU) — checked against the float64 sums of rounded values.
struct GemmCase {
  int64_t batch, m, n, k;
  bool ta, tb, sharedB, transposedC;
  int biasKind;
  int32_t flags;
};

void checkGemm(const GemmCase &g, std::mt19937 &rng) {
  int64_t batch = g.batch, m = g.m, n = g.n, k = g.k;
  std::vector<float> a = randomVector(rng, batch * m * k),
                     b = randomVector(rng, (g.sharedB ? 1 : batch) * k * n),
                     bias = randomVector(rng, batch * m * n);
  int64_t ldc = n + 3, cSize = g.transposedC ? n * m : m * ldc;
  std::vector<float> c = randomVector(rng, batch * cSize);
  std::vector<float> before = c;
  int64_t aRs = g.ta ? 1 : k, aCs = g.ta ? m : 1;
  int64_t bRs = g.tb ? 1 : n, bCs = g.tb ? k : 1;
  int64_t cRs = g.transposedC ? 1 : ldc, cCs = g.transposedC ? m : 1;
  int64_t biasRs = g.biasKind == 1 ? 1 : g.biasKind == 3 ? n : 0;
  int64_t biasCs = g.biasKind >= 2 ? 1 : 0;
  int64_t biasBs = g.biasKind == 3 ? m * n : 0;
  mxrt_kernel_sgemm(batch, m, n, k, a.data(), m * k, aRs, aCs, b.data(),
                    g.sharedB ? 0 : k * n, bRs, bCs, c.data(), cSize, cRs, cCs,
                    g.biasKind ? bias.data() : nullptr, biasBs, biasRs, biasCs,
                    g.flags | MXRT_KERNEL_BF16);
  bool accumulate = g.flags & MXRT_KERNEL_ACCUMULATE;
  bool relu = g.flags & MXRT_KERNEL_RELU;
  for (int64_t t = 0; t < batch; ++t)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const float *at = a.data() + t * m * k;
        const float *bt = b.data() + (g.sharedB ? 0 : t * k * n);
        double want = 0, scale = 0;
        for (int64_t p = 0; p < k; ++p) {
          double term =
              bf16(at[i * aRs + p * aCs]) * bf16(bt[p * bRs + j * bCs]);
          want += term;
          scale += std::fabs(term);
        }
        if (g.biasKind) {
          float v = bias[t * biasBs + i * biasRs + j * biasCs];
          want += v;
          scale += std::fabs(v);
        }
        int64_t at_c = t * cSize + i * cRs + j * cCs;
        if (accumulate) {
          want += before[at_c];
          scale += std::fabs(before[at_c]);
        }
        if (relu)
          want = std::max(want, 0.0);
        ASSERT_NEAR(c[at_c], want, tolerance(scale))
            << batch << " x " << m << "x" << n << "x" << k
            << (g.ta ? " A^T" : "") << (g.tb ? " B^T" : "")
            << (g.sharedB ? " shared B" : "") << (g.transposedC ? " C^T" : "")
            << " bias " << g.biasKind << " flags " << g.flags << " at " << t
            << "," << i << "," << j << " (path " << mxrt::bgemmPath() << ")";
      }
  if (!g.transposedC) // C's padding columns are left alone
    for (int64_t t = 0; t < batch; ++t)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = n; j < ldc; ++j)
          ASSERT_EQ(c[t * cSize + i * ldc + j],
                    before[t * cSize + i * ldc + j]);
}

TEST(BGemm, NamesItsPath) {
  std::string path = mxrt::bgemmPath();
  EXPECT_STREQ(mxrt_kernel_path("bgemm"), mxrt::bgemmPath());
  std::printf("bgemm path: %s\n", path.c_str());
  const char *forced = std::getenv("MXRT_KERNEL_ISA");
  std::string want = forced ? forced : "";
  if (want == "avx2" || want == "portable" ||
      std::string(mxrt::kernelIsa()) != "avx512")
    EXPECT_EQ(path, "portable");
  else if (want == "avx512")
    EXPECT_EQ(path, "avx512");
#if defined(__x86_64__)
  else if (__builtin_cpu_supports("avx512bf16") &&
           __builtin_cpu_supports("avx512bw"))
    EXPECT_EQ(path, "avx512bf16");
#endif
}

TEST(BGemm, MatchesRoundedReference) {
  std::mt19937 rng(21);
  // Edges of the micro-tile (12 x 32, half panels of 16), of k's slices
  // (256) and pairs (odd k), of A's row blocks (96) and B's column blocks
  // (1024), and no k at all (C = bias).
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                         {12, 32, 2},
                         {13, 33, 3},
                         {11, 16, 257},
                         {25, 70, 513},
                         {97, 17, 31},
                         {3, 1030, 40},
                         {40, 5, 0}})
    for (int variant = 0; variant < 8; ++variant)
      checkGemm({1, m, n, k, bool(variant & 1), bool(variant & 2), false, false,
                 variant % 4, (variant >> 1) & 3},
                rng);
  for (int trial = 0; trial < 40; ++trial) {
    GemmCase g;
    g.batch = rng() % 3 + 1;
    g.m = rng() % 70 + 1, g.n = rng() % 90 + 1, g.k = rng() % 600;
    g.ta = rng() % 2, g.tb = rng() % 2, g.sharedB = rng() % 2;
    g.transposedC = rng() % 5 == 0;
    g.biasKind = rng() % 4;
    g.flags = rng() % 4; // ACCUMULATE, RELU
    checkGemm(g, rng);
  }
}

TEST(BGemm, SplitsOverAPool) {
  std::mt19937 rng(22);
  for (int threads : {2, 3}) {
    mxrt::ThreadPool pool(threads);
    mxrt::ThreadPool::Scope scope(&pool);
    for (auto [batch, m, n, k] :
         {std::tuple<int64_t, int64_t, int64_t, int64_t>{1, 40, 300, 200},
          {1, 300, 20, 100},
          {1, 61, 65, 300},
          {4, 30, 40, 50},
          {2, 25, 70, 90}})
      checkGemm({batch, m, n, k, threads == 3, false, batch == 2, false,
                 int(m % 4), MXRT_KERNEL_ACCUMULATE | MXRT_KERNEL_RELU},
                rng);
  }
}

TEST(BGemm, RoundsOperandsToNearestEven) {
  // Values with mantissa bits below bfloat16's 8: each rounds to a known
  // neighbour (halfway cases to the even one), and the products differ
  // from float32's by far more than the tolerance. A k x 1 column of ones
  // sums each row: C(i) = k * bf16(a_i).
  const float values[] = {
      1.0f + 0x1p-8f,               // halfway between 1 and 1 + 2^-7: to 1
      1.0f + 3 * 0x1p-8f,           // halfway between 1 + 2^-7 and 1 + 2^-6: up
      1.0f + 3 * 0x1p-9f,           // nearer 1 + 2^-7 (truncation gives 1)
      -(1.0f + 0x1p-8f + 0x1p-20f), // just past halfway: to -(1 + 2^-7)
      3.0f - 0x1p-8f, // to 3 (spacing 2^-6; truncation gives less)
  };
  const double rounded[] = {1.0, 1.0 + 0x1p-6, 1.0 + 0x1p-7, -(1.0 + 0x1p-7),
                            3.0};
  int64_t m = 5, k = 300;
  std::vector<float> a(m * k), b(k, 1.0f), c(m);
  for (int64_t i = 0; i < m; ++i)
    std::fill(a.begin() + i * k, a.begin() + (i + 1) * k, values[i]);
  for (bool transposed : {false, true}) {
    // Row i of A is all values[i]: as stored or read transposed (A^T's
    // rows hold one value per row of A).
    std::vector<float> at(k * m);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p)
        at[p * m + i] = values[i];
    mxrt_kernel_sgemm(1, m, 1, k, transposed ? at.data() : a.data(), 0,
                      transposed ? 1 : k, transposed ? m : 1, b.data(), 0, 1, 0,
                      c.data(), 0, 1, 0, nullptr, 0, 0, 0, MXRT_KERNEL_BF16);
    for (int64_t i = 0; i < m; ++i) {
      double want = k * rounded[i], unrounded = k * double(values[i]);
      // (The terms' magnitudes sum to |want|.)
      ASSERT_GT(std::fabs(want - unrounded), 100 * tolerance(std::fabs(want)));
      EXPECT_NEAR(c[i], want, tolerance(std::fabs(want)))
          << "row " << i << (transposed ? " (A^T)" : "") << " (path "
          << mxrt::bgemmPath() << ")";
    }
  }
  // B rounded too: A ones, B's column j all values[j].
  std::vector<float> ones(k, 1.0f), bt(k * m), row(m);
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < m; ++j)
      bt[p * m + j] = values[j];
  mxrt_kernel_sgemm(1, 1, m, k, ones.data(), 0, k, 1, bt.data(), 0, m, 1,
                    row.data(), 0, m, 1, nullptr, 0, 0, 0, MXRT_KERNEL_BF16);
  for (int64_t j = 0; j < m; ++j)
    EXPECT_NEAR(row[j], k * rounded[j], tolerance(k * std::fabs(rounded[j])))
        << "column " << j;
}

TEST(BGemm, DenormalsAreZeroAndNaNStays) {
  // As vdpbf16ps reads them, on every path: a float32 denormal is zero (times
  // 2^100 it would be 1e-9 a term), and a NaN stays NaN.
  int64_t k = 5;
  std::vector<float> a(2 * k, 1e-39f), b(k, 0x1p100f), c(2, 1.0f);
  a[k + 3] = std::nanf("");
  mxrt_kernel_sgemm(1, 2, 1, k, a.data(), 0, k, 1, b.data(), 0, 1, 0, c.data(),
                    0, 1, 0, nullptr, 0, 0, 0, MXRT_KERNEL_BF16);
  EXPECT_EQ(c[0], 0.0f) << "(path " << mxrt::bgemmPath() << ")";
  EXPECT_TRUE(std::isnan(c[1])) << "(path " << mxrt::bgemmPath() << ")";
}

TEST(BGemm, ConstantOperandsArePackedOnceAndKept) {
  // MXRT_KERNEL_CONST_A / CONST_B: the rounded, packed copy is made on the
  // first product and kept. Changing the operand afterwards (which callers
  // must not do) shows it: later products still see the first contents.
  static std::vector<std::vector<float>> constants; // outlive the calls
  std::mt19937 rng(23);
  for (auto [m, n, k, constB] :
       {std::tuple<int64_t, int64_t, int64_t, bool>{7, 300, 129, true},
        {30, 33, 64, true},
        {13, 40, 513, false},
        {50, 20, 300, false}}) {
    std::vector<float> &weight =
        constants.emplace_back(randomVector(rng, k * (constB ? n : m)));
    std::vector<float> original = weight;
    for (int round = 0; round < 3; ++round) {
      std::vector<float> other = randomVector(rng, k * (constB ? m : n));
      const std::vector<float> &a = constB ? other : weight;
      const std::vector<float> &b = constB ? weight : other;
      const std::vector<float> &a0 = constB ? other : original;
      const std::vector<float> &b0 = constB ? original : other;
      int64_t ldc = n + round; // C's strides change between calls
      std::vector<float> c(m * ldc), bias = randomVector(rng, n);
      mxrt_kernel_sgemm(1, m, n, k, a.data(), 0, k, 1, b.data(), 0, n, 1,
                        c.data(), 0, ldc, 1, bias.data(), 0, 0, 1,
                        MXRT_KERNEL_BF16 | (constB ? MXRT_KERNEL_CONST_B
                                                   : MXRT_KERNEL_CONST_A));
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double want = bias[j], scale = std::fabs(bias[j]);
          for (int64_t p = 0; p < k; ++p) {
            double term = bf16(a0[i * k + p]) * bf16(b0[p * n + j]);
            want += term;
            scale += std::fabs(term);
          }
          ASSERT_NEAR(c[i * ldc + j], want, tolerance(scale))
              << m << "x" << n << "x" << k << (constB ? " CONST_B" : " CONST_A")
              << " round " << round << " at " << i << "," << j;
        }
      // Changed after the first product: the kept copy is what counts.
      for (float &v : weight)
        v = -v;
    }
  }
}

/// A convolution with MXRT_KERNEL_BF16 (NCHW, or NHWC with channels_last)
/// against the float64 sum of its rounded terms, with bias, accumulation
/// and ReLU, the weight constant (kept) or not.
void checkConv(mxrt_test::ConvShape s, bool channelsLast, int32_t flags,
               std::mt19937 &rng) {
  s.oh = (s.h + 2 * s.ph - s.dh * (s.kh - 1) - 1) / s.sh + 1;
  s.ow = (s.w + 2 * s.pw - s.dw * (s.kw - 1) - 1) / s.sw + 1;
  static std::vector<std::vector<float>> weights; // CONST_A: kept alive
  std::vector<float> x = randomVector(rng, s.n * s.c * s.h * s.w);
  std::vector<float> &wt =
      weights.emplace_back(randomVector(rng, s.f * s.c / s.g * s.kh * s.kw));
  std::vector<float> bias = randomVector(rng, s.f);
  std::vector<float> y = randomVector(rng, s.n * s.f * s.oh * s.ow);
  std::vector<double> want(y.size()), scale(y.size());
  int64_t plane = s.oh * s.ow;
  bool accumulate = flags & MXRT_KERNEL_ACCUMULATE;
  for (size_t i = 0; i < want.size(); ++i) {
    double b = bias[i / plane % s.f], old = accumulate ? y[i] : 0.0;
    want[i] = b + old;
    scale[i] = std::fabs(b) + std::fabs(old);
  }
  mxrt_test::forEachConvTerm(s, [&](int64_t xi, int64_t wi, int64_t yi) {
    double term = bf16(x[xi]) * bf16(wt[wi]);
    want[yi] += term;
    scale[yi] += std::fabs(term);
  });
  if (flags & MXRT_KERNEL_RELU)
    for (double &v : want)
      v = std::max(v, 0.0);
  std::vector<float> xIn = x, yIn = y;
  if (channelsLast) {
    xIn = mxrt_test::toChannelsLast(x, s.n, s.c, s.h, s.w);
    yIn = mxrt_test::toChannelsLast(y, s.n, s.f, s.oh, s.ow);
    want = mxrt_test::toChannelsLast(want, s.n, s.f, s.oh, s.ow);
    scale = mxrt_test::toChannelsLast(scale, s.n, s.f, s.oh, s.ow);
  }
  for (int call = 0; call < 2; ++call) { // a kept weight's second use too
    std::vector<float> out = yIn;
    mxrt_kernel_sconv2d(
        s.n, s.c, s.h, s.w, s.f, s.oh, s.ow, s.kh, s.kw, s.sh, s.sw, s.ph, s.pw,
        s.dh, s.dw, s.g, xIn.data(), wt.data(), bias.data(), out.data(),
        flags | MXRT_KERNEL_BF16 | (channelsLast ? MXRT_KERNEL_NHWC : 0));
    for (size_t i = 0; i < out.size(); ++i)
      ASSERT_NEAR(out[i], want[i], tolerance(scale[i]))
          << "n " << s.n << " c " << s.c << " " << s.h << "x" << s.w << " f "
          << s.f << " k " << s.kh << "x" << s.kw << " stride " << s.sh
          << " pad " << s.ph << " dilation " << s.dh << " groups " << s.g
          << (channelsLast ? " NHWC" : " NCHW") << " flags " << flags
          << " call " << call << " at " << i << " (path " << mxrt::bgemmPath()
          << ")";
  }
}

/// Shapes past the tiles' edges: padding, strides, dilations, groups, 1x1
/// (plain and strided), depthwise, 3x3 shapes Winograd would take, and
/// ResNet's first layer.
const mxrt_test::ConvShape kConvShapes[] = {
    // n, c, h, w, f, (oh, ow), kh, kw, sh, sw, ph, pw, dh, dw, groups
    {1, 3, 7, 6, 4, 0, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1},
    {2, 8, 9, 9, 6, 0, 0, 3, 3, 2, 2, 1, 1, 1, 1, 2},
    {1, 16, 10, 10, 32, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1},
    {2, 16, 9, 11, 13, 0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 1},
    {1, 4, 9, 8, 4, 0, 0, 3, 3, 1, 1, 2, 2, 2, 2, 4},
    {2, 64, 8, 8, 64, 0, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1},
    {1, 32, 14, 14, 40, 0, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1},
    {1, 3, 23, 23, 20, 0, 0, 7, 7, 2, 2, 3, 3, 1, 1, 1},
    {3, 5, 6, 7, 7, 0, 0, 2, 3, 1, 2, 0, 1, 1, 1, 1},
    // Strides 3 and 2 with dilation and padding wider than a stride (the
    // strided gather's first and last columns inside a row), a window
    // wider than the image (runs of taps inside and outside it).
    {1, 3, 11, 13, 5, 0, 0, 3, 3, 3, 3, 2, 2, 1, 1, 1},
    {2, 6, 12, 10, 8, 0, 0, 3, 3, 2, 2, 3, 3, 2, 2, 1},
    {1, 4, 5, 3, 6, 0, 0, 5, 5, 1, 1, 2, 2, 1, 1, 1},
};

TEST(BGemm, ConvolutionMatchesRoundedReference) {
  std::mt19937 rng(24);
  int variant = 0;
  for (const mxrt_test::ConvShape &s : kConvShapes)
    for (bool channelsLast : {false, true}) {
      int32_t flags = (variant & 1 ? MXRT_KERNEL_ACCUMULATE : 0) |
                      (variant & 2 ? MXRT_KERNEL_RELU : 0) |
                      (variant % 3 == 0 ? MXRT_KERNEL_CONST_A : 0);
      ++variant;
      checkConv(s, channelsLast, flags, rng);
    }
}

TEST(BGemm, ConvolutionSplitsOverAPool) {
  std::mt19937 rng(25);
  for (int threads : {2, 3}) {
    mxrt::ThreadPool pool(threads);
    mxrt::ThreadPool::Scope scope(&pool);
    for (const mxrt_test::ConvShape &s :
         {mxrt_test::ConvShape{1, 16, 12, 12, 40, 0, 0, 3, 3, 1, 1, 1, 1, 1, 1,
                               1},
          {4, 8, 8, 8, 16, 0, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1},
          {2, 8, 10, 10, 8, 0, 0, 3, 3, 1, 1, 1, 1, 1, 1, 2}})
      for (bool channelsLast : {false, true})
        checkConv(s, channelsLast,
                  MXRT_KERNEL_RELU | (threads == 2 ? MXRT_KERNEL_CONST_A : 0),
                  rng);
  }
}

} // namespace
