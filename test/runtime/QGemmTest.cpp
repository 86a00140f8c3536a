// SPDX-License-Identifier: Apache-2.0
// mxrt_kernel_qgemm_u8s8 against integer reference loops on random shapes:
// uint8 and int8 A with zero points, per-column zero points of B,
// accumulation, k and n not multiples of the paths' groups and panels, on
// one thread and on a pool. ctest runs the binary once per instruction set
// (MXRT_KERNEL_ISA), so that each path is tested where the CPU has it.
#include "kernels/qgemm/qgemm.h"
#include "KernelReference.h"
#include "mxrt/kernels.h"
#include "threadpool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <tuple>
#include <vector>

namespace {

void checkQGemm(int64_t m, int64_t n, int64_t k, bool signedA, bool zeros,
                bool accumulate, std::mt19937 &rng, bool unsignedB = false) {
  std::uniform_int_distribution<int> byte(0, 255), sbyte(-128, 127);
  std::vector<uint8_t> a(m * (k + 3));
  std::vector<int8_t> b(k * (n + 5));
  int64_t lda = k + 3, ldb = n + 5, ldc = n + 2;
  for (auto &v : a)
    v = static_cast<uint8_t>(byte(rng));
  for (auto &v : b)
    v = static_cast<int8_t>(sbyte(rng));
  int32_t aZero = zeros ? (signedA ? sbyte(rng) : byte(rng)) : 0;
  std::vector<int32_t> bZero(n);
  for (auto &v : bZero)
    v = unsignedB ? byte(rng) : sbyte(rng);
  std::vector<int32_t> c(m * ldc);
  for (auto &v : c)
    v = sbyte(rng) * 1000;
  std::vector<int32_t> before = c;
  int32_t flags = (signedA ? MXRT_KERNEL_SIGNED_A : 0) |
                  (unsignedB ? MXRT_KERNEL_UNSIGNED_B : 0) |
                  (accumulate ? MXRT_KERNEL_ACCUMULATE : 0);
  // One zero point for all of B's columns where the test draws a
  // per-column one for an odd n.
  bool oneForAll = zeros && n % 2;
  if (oneForAll)
    std::fill(bZero.begin(), bZero.end(), bZero[0]);
  mxrt_kernel_qgemm_u8s8(m, n, k, a.data(), lda, zeros ? &aZero : nullptr,
                         b.data(), ldb, zeros ? bZero.data() : nullptr,
                         oneForAll ? 0 : 1, c.data(), ldc, flags);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t want = accumulate ? before[i * ldc + j] : 0;
      for (int64_t q = 0; q < k; ++q) {
        int64_t av =
            signedA ? static_cast<int8_t>(a[i * lda + q]) : a[i * lda + q];
        int64_t bv =
            unsignedB ? static_cast<uint8_t>(b[q * ldb + j]) : b[q * ldb + j];
        want += (av - aZero) * (bv - (zeros ? bZero[j] : 0));
      }
      ASSERT_EQ(c[i * ldc + j], want)
          << m << "x" << n << "x" << k << (signedA ? " int8 A" : " uint8 A")
          << (unsignedB ? ", uint8 B" : "")
          << (zeros ? " with zero points" : "")
          << (accumulate ? " accumulating" : "") << " at " << i << "," << j
          << " (path " << mxrt::qgemmPath() << ")";
    }
  // C's padding columns are left alone.
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = n; j < ldc; ++j)
      ASSERT_EQ(c[i * ldc + j], before[i * ldc + j]) << "padding at " << i;
}

TEST(QGemm, MatchesIntegerLoops) {
  std::printf("qgemm path: %s\n", mxrt::qgemmPath());
  std::mt19937 rng(11);
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                         {13, 33, 7},
                         {12, 32, 4},
                         {25, 70, 129},
                         {3, 300, 64},
                         {40, 17, 3},
                         {7, 600, 513}})
    for (int variant = 0; variant < 16; ++variant)
      checkQGemm(m, n, k, variant & 1, variant & 2, variant & 4, rng,
                 variant & 8);
}

TEST(QGemm, SplitsColumnsOverAPool) {
  std::mt19937 rng(12);
  for (int threads : {2, 3}) {
    mxrt::ThreadPool pool(threads);
    mxrt::ThreadPool::Scope scope(&pool);
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{16, 1000, 256},
                           {5, 40, 30},
                           {30, 16, 9}})
      checkQGemm(m, n, k, threads == 3, true, threads == 2, rng);
  }
}

TEST(QGemm, ExtremeValuesStayExact) {
  // 255 x 127 products summed deep: vpmaddubsw's int16 pair sums would
  // saturate here; every path must keep them exact.
  int64_t m = 13, n = 40, k = 1027;
  std::vector<uint8_t> a(m * k, 255);
  std::vector<int8_t> b(k * n, 127);
  for (int64_t j = 0; j < n; j += 3)
    for (int64_t q = 0; q < k; ++q)
      b[q * n + j] = -128;
  std::vector<int32_t> c(m * n);
  mxrt_kernel_qgemm_u8s8(m, n, k, a.data(), k, nullptr, b.data(), n, nullptr, 0,
                         c.data(), n, 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      ASSERT_EQ(c[i * n + j], (j % 3 == 0 ? -128 : 127) * 255 * k)
          << i << "," << j << " (path " << mxrt::qgemmPath() << ")";
}

TEST(QGemm, NamesItsPath) {
  EXPECT_STREQ(mxrt_kernel_path("qgemm"), mxrt::qgemmPath());
  EXPECT_NE(mxrt_kernel_path("gemm"), nullptr);
  EXPECT_EQ(mxrt_kernel_path("fft"), nullptr);
}

/// The 8-bit convolution's reference: the bias plus every term inside the
/// image, filter i's zero point wZero[i * wZeroStride].
std::vector<int64_t>
convReference(const mxrt_test::ConvShape &s, const std::vector<uint8_t> &x,
              const std::vector<int8_t> &wt, int32_t xZero,
              const std::vector<int32_t> &wZero, int64_t wZeroStride,
              const std::vector<int32_t> &bias, bool signedX, bool unsignedW) {
  int64_t plane = s.oh * s.ow;
  std::vector<int64_t> want(s.n * s.f * plane);
  for (size_t i = 0; i < want.size(); ++i)
    want[i] = bias[i / plane % s.f];
  mxrt_test::forEachConvTerm(s, [&](int64_t xi, int64_t wi, int64_t yi) {
    int64_t xv = signedX ? static_cast<int8_t>(x[xi]) : x[xi];
    int64_t wv = unsignedW ? static_cast<uint8_t>(wt[wi]) : wt[wi];
    want[yi] += (xv - xZero) * (wv - wZero[yi / plane % s.f * wZeroStride]);
  });
  return want;
}

TEST(QGemm, ConvolutionMatchesIntegerLoops) {
  // mxrt_kernel_qconv2d_u8s8: padding, strides, dilation, groups, zero
  // points (per filter and one for all), bias, both signednesses, against
  // the direct sum; padding must add nothing (it reads as x's zero point).
  std::mt19937 rng(13);
  std::uniform_int_distribution<int> byte(0, 255);
  // (oh and ow from the other extents below.)
  // (1x1 stride 1 reads the input as the windows; 13 x 11 and 17 x 9
  // pixels end in partial column panels; padding wider than a window's
  // reach leaves whole rows and columns outside; a 7x7 stride-2 stem's rows
  // are gathered 32 at a time, up to the plane's end.)
  // (Once alone and once on a pool of 3, which splits the windows by
  // channel and the product by columns.)
  for (int threads : {1, 3})
    for (mxrt_test::ConvShape s :
         {mxrt_test::ConvShape{1, 3, 7, 6, 4, 0, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1},
          {2, 8, 9, 9, 6, 0, 0, 3, 3, 2, 2, 1, 1, 1, 1, 2},
          {1, 16, 10, 10, 32, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1},
          {1, 4, 9, 8, 4, 0, 0, 3, 3, 1, 1, 2, 2, 2, 2, 4},
          {2, 37, 13, 11, 29, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1},
          {1, 21, 17, 9, 14, 0, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1},
          {1, 5, 6, 7, 3, 0, 0, 2, 3, 1, 2, 3, 4, 1, 1, 1},
          {1, 3, 90, 83, 5, 0, 0, 7, 7, 2, 2, 3, 3, 1, 1, 1}}) {
      s.oh = (s.h + 2 * s.ph - s.dh * (s.kh - 1) - 1) / s.sh + 1;
      s.ow = (s.w + 2 * s.pw - s.dw * (s.kw - 1) - 1) / s.sw + 1;
      std::optional<mxrt::ThreadPool> pool;
      std::optional<mxrt::ThreadPool::Scope> scope;
      if (threads > 1) {
        pool.emplace(threads);
        scope.emplace(&*pool);
      }
      for (int variant = 0; variant < 8; ++variant) {
        // variant & 4: one filter zero point for all (stride 0).
        bool signedX = variant & 1, unsignedW = variant & 2, one = variant & 4;
        std::vector<uint8_t> x(s.n * s.c * s.h * s.w);
        std::vector<int8_t> wt(s.f * s.c / s.g * s.kh * s.kw);
        for (auto &v : x)
          v = static_cast<uint8_t>(byte(rng));
        for (auto &v : wt)
          v = static_cast<int8_t>(byte(rng));
        int32_t xZero = signedX ? byte(rng) - 128 : byte(rng);
        std::vector<int32_t> wZero(s.f), bias(s.f);
        for (int64_t i = 0; i < s.f; ++i) {
          wZero[i] = unsignedW ? byte(rng) : byte(rng) - 128;
          bias[i] = byte(rng) * 1000 - 128000;
        }
        std::vector<int32_t> y(s.n * s.f * s.oh * s.ow);
        int32_t flags = (signedX ? MXRT_KERNEL_SIGNED_A : 0) |
                        (unsignedW ? MXRT_KERNEL_UNSIGNED_B : 0);
        mxrt_kernel_qconv2d_u8s8(s.n, s.c, s.h, s.w, s.f, s.oh, s.ow, s.kh,
                                 s.kw, s.sh, s.sw, s.ph, s.pw, s.dh, s.dw, s.g,
                                 x.data(), &xZero, wt.data(), wZero.data(),
                                 one ? 0 : 1, bias.data(), y.data(), flags);
        std::vector<int64_t> want = convReference(
            s, x, wt, xZero, wZero, one ? 0 : 1, bias, signedX, unsignedW);
        for (size_t i = 0; i < want.size(); ++i)
          ASSERT_EQ(y[i], want[i])
              << "c " << s.c << " f " << s.f << " groups " << s.g << " variant "
              << variant << " at " << i << " (path " << mxrt::qgemmPath()
              << ")";
      }
    }
}

TEST(QGemm, ConstantBIsPackedOnceAndKept) {
  // MXRT_KERNEL_CONST_B: B's panels and column sums are made on the first
  // product and kept; later products with other A's, zero points and
  // strides of C read them (B must outlive the process's calls: static).
  static std::vector<std::vector<int8_t>> constants;
  std::mt19937 rng(14);
  std::uniform_int_distribution<int> byte(0, 255);
  for (auto [m, n, k, unsignedB] :
       {std::tuple<int64_t, int64_t, int64_t, bool>{7, 300, 129, false},
        {30, 33, 64, true},
        {13, 600, 513, false}}) {
    std::vector<int8_t> &b = constants.emplace_back(k * n);
    for (auto &v : b)
      v = static_cast<int8_t>(byte(rng));
    std::vector<int32_t> bZero(n);
    for (auto &v : bZero)
      v = unsignedB ? byte(rng) : byte(rng) - 128;
    for (int round = 0; round < 3; ++round) {
      std::vector<uint8_t> a(m * k);
      for (auto &v : a)
        v = static_cast<uint8_t>(byte(rng));
      int32_t aZero = byte(rng);
      std::vector<int32_t> c(m * n);
      mxrt_kernel_qgemm_u8s8(
          m, n, k, a.data(), k, &aZero, b.data(), n, bZero.data(), 1, c.data(),
          n, MXRT_KERNEL_CONST_B | (unsignedB ? MXRT_KERNEL_UNSIGNED_B : 0));
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          int64_t want = 0;
          for (int64_t q = 0; q < k; ++q) {
            int64_t bv =
                unsignedB ? static_cast<uint8_t>(b[q * n + j]) : b[q * n + j];
            want += (int64_t(a[i * k + q]) - aZero) * (bv - bZero[j]);
          }
          ASSERT_EQ(c[i * n + j], want)
              << m << "x" << n << "x" << k << " round " << round << " at " << i
              << "," << j << " (path " << mxrt::qgemmPath() << ")";
        }
    }
  }
}

TEST(QGemm, ConvolutionKeepsConstantFilters) {
  // MXRT_KERNEL_CONST_A: the filters' packed rows and row sums are made on
  // the first call and kept; later calls with other inputs and input zero
  // points read them (the filters must outlive the process's calls:
  // static).
  static std::vector<std::vector<int8_t>> constants;
  std::mt19937 rng(15);
  std::uniform_int_distribution<int> byte(0, 255);
  for (mxrt_test::ConvShape s :
       {mxrt_test::ConvShape{1, 19, 11, 10, 21, 11, 10, 3, 3, 1, 1, 1, 1, 1, 1,
                             1},
        {2, 40, 6, 6, 30, 6, 6, 1, 1, 1, 1, 0, 0, 1, 1, 1}}) {
    std::vector<int8_t> &wt = constants.emplace_back(s.f * s.c * s.kh * s.kw);
    for (auto &v : wt)
      v = static_cast<int8_t>(byte(rng));
    std::vector<int32_t> wZero(s.f), bias(s.f);
    for (int64_t i = 0; i < s.f; ++i) {
      wZero[i] = byte(rng) - 128;
      bias[i] = byte(rng) - 128;
    }
    for (int round = 0; round < 3; ++round) {
      std::vector<uint8_t> x(s.n * s.c * s.h * s.w);
      for (auto &v : x)
        v = static_cast<uint8_t>(byte(rng));
      int32_t xZero = byte(rng);
      std::vector<int32_t> y(s.n * s.f * s.oh * s.ow);
      mxrt_kernel_qconv2d_u8s8(s.n, s.c, s.h, s.w, s.f, s.oh, s.ow, s.kh, s.kw,
                               s.sh, s.sw, s.ph, s.pw, s.dh, s.dw, s.g,
                               x.data(), &xZero, wt.data(), wZero.data(), 1,
                               bias.data(), y.data(), MXRT_KERNEL_CONST_A);
      std::vector<int64_t> want =
          convReference(s, x, wt, xZero, wZero, 1, bias, false, false);
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(y[i], want[i]) << "c " << s.c << " round " << round << " at "
                                 << i << " (path " << mxrt::qgemmPath() << ")";
    }
  }
}

TEST(QGemm, ConvolutionRequantizesItsSums) {
  // mxrt_kernel_qconv2d_u8s8_requant: each sum (bias included) times its
  // filter's multiplier in float32, rounded half to even, plus the zero
  // point, clamped, as bytes: equal to requantizing the int32 kernel's
  // output, for uint8 and int8 ranges, per-filter and one multiplier, and a
  // Relu's floor at the zero point.
  std::mt19937 rng(16);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> scale(1e-4f, 2e-3f);
  mxrt_test::ConvShape s{2, 24, 9, 10, 20, 9, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  std::vector<uint8_t> x(s.n * s.c * s.h * s.w);
  std::vector<int8_t> wt(s.f * s.c * s.kh * s.kw);
  for (auto &v : x)
    v = static_cast<uint8_t>(byte(rng));
  for (auto &v : wt)
    v = static_cast<int8_t>(byte(rng));
  std::vector<int32_t> bias(s.f);
  for (auto &v : bias)
    v = byte(rng) * 40 - 5000;
  int32_t xZero = 131;
  std::vector<int32_t> sums(s.n * s.f * s.oh * s.ow);
  mxrt_kernel_qconv2d_u8s8(s.n, s.c, s.h, s.w, s.f, s.oh, s.ow, s.kh, s.kw,
                           s.sh, s.sw, s.ph, s.pw, s.dh, s.dw, s.g, x.data(),
                           &xZero, wt.data(), nullptr, 0, bias.data(),
                           sums.data(), 0);
  int64_t plane = s.oh * s.ow;
  for (int variant = 0; variant < 16; ++variant) {
    // variant & 8: a zero point between integers (which no model has; the
    // kernel's other form).
    bool perFilter = variant & 1, relu = variant & 2, signedY = variant & 4;
    std::vector<float> multiplier(perFilter ? s.f : 1);
    for (float &m : multiplier)
      m = scale(rng);
    float zero = (signedY ? -9.0f : 97.0f) + (variant & 8 ? 0.25f : 0.0f);
    int32_t lo = signedY ? -128 : 0, hi = signedY ? 127 : 255;
    std::vector<uint8_t> y(sums.size());
    mxrt_kernel_qconv2d_u8s8_requant(
        s.n, s.c, s.h, s.w, s.f, s.oh, s.ow, s.kh, s.kw, s.sh, s.sw, s.ph, s.pw,
        s.dh, s.dw, s.g, x.data(), &xZero, wt.data(), nullptr, 0, bias.data(),
        multiplier.data(), perFilter ? 1 : 0, &zero, lo, hi, y.data(),
        relu ? MXRT_KERNEL_RELU : 0);
    for (size_t i = 0; i < y.size(); ++i) {
      float m = multiplier[perFilter ? i / plane % s.f : 0];
      float q = std::nearbyint(static_cast<float>(sums[i]) * m) + zero;
      q = std::min(std::max(q, relu ? std::max(float(lo), zero) : float(lo)),
                   float(hi));
      auto want = static_cast<uint8_t>(static_cast<int32_t>(q));
      ASSERT_EQ(y[i], want) << "variant " << variant << " at " << i << " (sum "
                            << sums[i] << ", path " << mxrt::qgemmPath() << ")";
    }
  }
}

} // namespace

namespace {

/// NCHW (n, c, h, w) bytes or values channels last (n, h, w, c).
template <typename T>
std::vector<T> toChannelsLast(const std::vector<T> &v, int64_t n, int64_t c,
                              int64_t h, int64_t w) {
  std::vector<T> out(v.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t p = 0; p < h * w; ++p)
        out[(b * h * w + p) * c + ci] = v[(b * c + ci) * h * w + p];
  return out;
}

TEST(QGemm, ChannelsLastConvolutionMatchesIntegerLoops) {
  // MXRT_KERNEL_NHWC: x (n, h, w, c), y (n, oh, ow, f), the pixels' windows
  // tap by tap times the filters in that order; the same shapes and
  // variants as the NCHW test, constant (kept) filters in some, once alone
  // and on a pool (rows split).
  static std::vector<std::vector<int8_t>> constants;
  std::mt19937 rng(17);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int threads : {1, 3})
    for (mxrt_test::ConvShape s :
         {mxrt_test::ConvShape{1, 3, 7, 6, 4, 0, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1},
          {2, 8, 9, 9, 6, 0, 0, 3, 3, 2, 2, 1, 1, 1, 1, 2},
          {1, 16, 10, 10, 32, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1},
          {1, 4, 9, 8, 4, 0, 0, 3, 3, 1, 1, 2, 2, 2, 2, 4},
          {2, 37, 13, 11, 29, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1},
          {1, 21, 17, 9, 14, 0, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1},
          {1, 5, 6, 7, 3, 0, 0, 2, 3, 1, 2, 3, 4, 1, 1, 1},
          {2, 64, 7, 7, 80, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1},
          {1, 96, 6, 5, 300, 0, 0, 3, 3, 1, 1, 1, 1, 1, 1, 1},
          {1, 3, 40, 37, 5, 0, 0, 7, 7, 2, 2, 3, 3, 1, 1, 1}}) {
      s.oh = (s.h + 2 * s.ph - s.dh * (s.kh - 1) - 1) / s.sh + 1;
      s.ow = (s.w + 2 * s.pw - s.dw * (s.kw - 1) - 1) / s.sw + 1;
      std::optional<mxrt::ThreadPool> pool;
      std::optional<mxrt::ThreadPool::Scope> scope;
      if (threads > 1) {
        pool.emplace(threads);
        scope.emplace(&*pool);
      }
      for (int variant = 0; variant < 16; ++variant) {
        // variant & 8: constant filters (kept; so never freed).
        bool signedX = variant & 1, unsignedW = variant & 2, one = variant & 4,
             constant = variant & 8;
        std::vector<uint8_t> x(s.n * s.c * s.h * s.w);
        std::vector<int8_t> local(s.f * s.c / s.g * s.kh * s.kw);
        std::vector<int8_t> &wt =
            constant ? constants.emplace_back(local.size()) : local;
        for (auto &v : x)
          v = static_cast<uint8_t>(byte(rng));
        for (auto &v : wt)
          v = static_cast<int8_t>(byte(rng));
        int32_t xZero = signedX ? byte(rng) - 128 : byte(rng);
        std::vector<int32_t> wZero(s.f), bias(s.f);
        for (int64_t i = 0; i < s.f; ++i) {
          // (Every other constant case with filters of zero point 0, as
          // symmetric quantization makes them.)
          wZero[i] = variant == 8 || variant == 12 ? 0
                     : unsignedW                   ? byte(rng)
                                                   : byte(rng) - 128;
          bias[i] = byte(rng) * 1000 - 128000;
        }
        std::vector<uint8_t> xLast = toChannelsLast(x, s.n, s.c, s.h, s.w);
        std::vector<int32_t> y(s.n * s.f * s.oh * s.ow);
        int32_t flags = MXRT_KERNEL_NHWC |
                        (signedX ? MXRT_KERNEL_SIGNED_A : 0) |
                        (unsignedW ? MXRT_KERNEL_UNSIGNED_B : 0) |
                        (constant ? MXRT_KERNEL_CONST_A : 0);
        for (int call = 0; call < (constant ? 2 : 1); ++call) {
          mxrt_kernel_qconv2d_u8s8(
              s.n, s.c, s.h, s.w, s.f, s.oh, s.ow, s.kh, s.kw, s.sh, s.sw, s.ph,
              s.pw, s.dh, s.dw, s.g, xLast.data(), &xZero, wt.data(),
              wZero.data(), one ? 0 : 1, bias.data(), y.data(), flags);
          std::vector<int64_t> want =
              toChannelsLast(convReference(s, x, wt, xZero, wZero, one ? 0 : 1,
                                           bias, signedX, unsignedW),
                             s.n, s.f, s.oh, s.ow);
          for (size_t i = 0; i < want.size(); ++i)
            ASSERT_EQ(y[i], want[i])
                << "c " << s.c << " f " << s.f << " groups " << s.g
                << " variant " << variant << " call " << call << " at " << i
                << " (path " << mxrt::qgemmPath() << ")";
        }
      }
    }
}

TEST(QGemm, ChannelsLastConvolutionRequantizesItsSums) {
  // The requantizing kernel channels last: each output pixel's row of
  // filters, filter j's multiplier on column j, equal to requantizing the
  // int32 kernel's channels-last output.
  std::mt19937 rng(18);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> scale(1e-4f, 2e-3f);
  for (mxrt_test::ConvShape s :
       {mxrt_test::ConvShape{2, 24, 9, 10, 20, 9, 10, 3, 3, 1, 1, 1, 1, 1, 1,
                             1},
        {1, 64, 7, 7, 67, 7, 7, 1, 1, 1, 1, 0, 0, 1, 1, 1}}) {
    std::vector<uint8_t> x(s.n * s.h * s.w * s.c);
    std::vector<int8_t> wt(s.f * s.c * s.kh * s.kw);
    for (auto &v : x)
      v = static_cast<uint8_t>(byte(rng));
    for (auto &v : wt)
      v = static_cast<int8_t>(byte(rng));
    std::vector<int32_t> bias(s.f);
    for (auto &v : bias)
      v = byte(rng) * 40 - 5000;
    int32_t xZero = 131;
    std::vector<int32_t> sums(s.n * s.f * s.oh * s.ow);
    mxrt_kernel_qconv2d_u8s8(s.n, s.c, s.h, s.w, s.f, s.oh, s.ow, s.kh, s.kw,
                             s.sh, s.sw, s.ph, s.pw, s.dh, s.dw, s.g, x.data(),
                             &xZero, wt.data(), nullptr, 0, bias.data(),
                             sums.data(), MXRT_KERNEL_NHWC);
    for (int variant = 0; variant < 16; ++variant) {
      // variant & 8: a zero point between integers (which no model has;
      // the kernel's other form).
      bool perFilter = variant & 1, relu = variant & 2, signedY = variant & 4;
      std::vector<float> multiplier(perFilter ? s.f : 1);
      for (float &m : multiplier)
        m = scale(rng);
      float zero = (signedY ? -9.0f : 97.0f) + (variant & 8 ? 0.25f : 0.0f);
      int32_t lo = signedY ? -128 : 0, hi = signedY ? 127 : 255;
      std::vector<uint8_t> y(sums.size());
      mxrt_kernel_qconv2d_u8s8_requant(
          s.n, s.c, s.h, s.w, s.f, s.oh, s.ow, s.kh, s.kw, s.sh, s.sw, s.ph,
          s.pw, s.dh, s.dw, s.g, x.data(), &xZero, wt.data(), nullptr, 0,
          bias.data(), multiplier.data(), perFilter ? 1 : 0, &zero, lo, hi,
          y.data(), MXRT_KERNEL_NHWC | (relu ? MXRT_KERNEL_RELU : 0));
      for (size_t i = 0; i < y.size(); ++i) {
        float m = multiplier[perFilter ? i % s.f : 0];
        float q = std::nearbyint(static_cast<float>(sums[i]) * m) + zero;
        q = std::min(std::max(q, relu ? std::max(float(lo), zero) : float(lo)),
                     float(hi));
        auto want = static_cast<uint8_t>(static_cast<int32_t>(q));
        ASSERT_EQ(y[i], want)
            << "f " << s.f << " variant " << variant << " at " << i << " (sum "
            << sums[i] << ", path " << mxrt::qgemmPath() << ")";
      }
    }
  }
}

} // namespace
