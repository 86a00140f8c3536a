// SPDX-License-Identifier: Apache-2.0
// The runtime's GEMM and convolution kernels against direct float64 loops:
// random shapes (edges of every micro-tile size), transposes, strided and
// broadcast biases, accumulation, ReLU, convolution padding, strides,
// dilations and groups; serially and on a thread pool. CTest runs this
// program once per instruction set (MXRT_KERNEL_ISA).

#include "mxrt/kernels.h"
#include "threadpool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <random>
#include <tuple>
#include <vector>

namespace {

std::vector<float> randomVector(std::mt19937 &rng, size_t n) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = u(rng);
  return v;
}

void expectNear(const std::vector<float> &got, const std::vector<double> &want,
                const char *what, int trial) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4 * (1.0 + std::fabs(want[i])))
        << what << " trial " << trial << " element " << i;
}

/// Random GEMM problems, checked against a float64 reference.
void checkGemm(int trials, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int trial = 0; trial < trials; ++trial) {
    int64_t batch = rng() % 3 + 1, m = rng() % 70 + 1, n = rng() % 90 + 1,
            k = rng() % 300;
    if (trial % 5 == 0)
      m = rng() % 4 + 1; // the few-rows path
    if (trial % 7 == 0)
      n = rng() % 6 + 1; // computed transposed
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

/// Random convolutions, checked against a float64 reference.
void checkConv(int trials, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int trial = 0; trial < trials; ++trial) {
    int64_t n = rng() % 3 + 1, g = rng() % 3 == 0 ? 2 : 1,
            c = g * (rng() % 4 + 1), f = g * (rng() % 20 + 1),
            h = rng() % 12 + 1, w = rng() % 40 + 1, kh = rng() % 3 + 1,
            kw = rng() % 3 + 1, sh = rng() % 2 + 1, sw = rng() % 3 + 1,
            ph = rng() % 2, pw = rng() % 3, dh = rng() % 2 + 1,
            dw = rng() % 2 + 1;
    int64_t oh = (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1,
            ow = (w + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
    if (oh <= 0 || ow <= 0)
      continue;
    bool withBias = rng() % 2;
    int32_t flags = rng() % 4;
    int64_t cg = c / g, fg = f / g;
    std::vector<float> x = randomVector(rng, n * c * h * w),
                       weight = randomVector(rng, f * cg * kh * kw),
                       bias = randomVector(rng, f),
                       y = randomVector(rng, n * f * oh * ow);
    std::vector<double> want(y.begin(), y.end());
    for (int64_t img = 0; img < n; ++img)
      for (int64_t fi = 0; fi < f; ++fi)
        for (int64_t oy = 0; oy < oh; ++oy)
          for (int64_t ox = 0; ox < ow; ++ox) {
            double sum = withBias ? bias[fi] : 0.0;
            int64_t group = fi / fg;
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t r = 0; r < kh; ++r)
                for (int64_t s = 0; s < kw; ++s) {
                  int64_t iy = oy * sh - ph + r * dh,
                          ix = ox * sw - pw + s * dw;
                  if (iy < 0 || iy >= h || ix < 0 || ix >= w)
                    continue;
                  sum +=
                      double(
                          x[((img * c + group * cg + ci) * h + iy) * w + ix]) *
                      weight[((fi * cg + ci) * kh + r) * kw + s];
                }
            double &out = want[((img * f + fi) * oh + oy) * ow + ox];
            if (flags & MXRT_KERNEL_ACCUMULATE)
              sum += out;
            out = flags & MXRT_KERNEL_RELU ? std::max(sum, 0.0) : sum;
          }
    mxrt_kernel_sconv2d(n, c, h, w, f, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw,
                        g, x.data(), weight.data(),
                        withBias ? bias.data() : nullptr, y.data(), flags);
    expectNear(y, want, "sconv2d", trial);
  }
}

TEST(Kernels, GemmSerial) { checkGemm(300, 1); }

TEST(Kernels, ConvSerial) { checkConv(150, 2); }

TEST(Kernels, GemmOnThreadPool) {
  mxrt::ThreadPool pool(3);
  mxrt::ThreadPool::Scope scope(&pool);
  checkGemm(300, 3);
}

TEST(Kernels, ConvOnThreadPool) {
  mxrt::ThreadPool pool(2);
  mxrt::ThreadPool::Scope scope(&pool);
  checkConv(150, 4);
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
      double want = 0;
      for (int64_t p = 0; p < k; ++p)
        want += double(a[i * k + p]) * b[p * n + j];
      ASSERT_NEAR(c[i * n + j], want, 1e-3 * (1.0 + std::fabs(want)))
          << m << "x" << n << "x" << k << " at " << i << "," << j;
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
    // A convolution over two images with constant filters.
    std::vector<float> img = randomVector(rng, 2 * 3 * 6 * 6), out(2 * 16 * 36);
    mxrt_kernel_sconv2d(2, 3, 6, 6, 16, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1,
                        img.data(), filters.data(), nullptr, out.data(),
                        MXRT_KERNEL_CONST_A);
    // The same filters as 2 groups of 8 filters over 3 of 6 channels: each
    // group's rows are a constant A of their own.
    std::vector<float> img2 = randomVector(rng, 6 * 36), out2(16 * 36);
    mxrt_kernel_sconv2d(1, 6, 6, 6, 16, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 2,
                        img2.data(), filters.data(), nullptr, out2.data(),
                        MXRT_KERNEL_CONST_A);
    for (int64_t f = 0; f < 16; ++f)
      for (int64_t yx = 0; yx < 36; ++yx) {
        double want = 0;
        for (int64_t c = 0; c < 3; ++c)
          for (int64_t r = 0; r < 3; ++r)
            for (int64_t s = 0; s < 3; ++s) {
              int64_t iy = yx / 6 - 1 + r, ix = yx % 6 - 1 + s;
              if (iy >= 0 && iy < 6 && ix >= 0 && ix < 6)
                want += double(img2[((f / 8 * 3 + c) * 6 + iy) * 6 + ix]) *
                        filters[((f * 3 + c) * 3 + r) * 3 + s];
            }
        ASSERT_NEAR(out2[f * 36 + yx], want, 1e-4 * (1.0 + std::fabs(want)))
            << "grouped, call " << call;
      }
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t f = 0; f < 16; ++f)
        for (int64_t yx = 0; yx < 36; ++yx) {
          double want = 0;
          for (int64_t c = 0; c < 3; ++c)
            for (int64_t r = 0; r < 3; ++r)
              for (int64_t s = 0; s < 3; ++s) {
                int64_t iy = yx / 6 - 1 + r, ix = yx % 6 - 1 + s;
                if (iy >= 0 && iy < 6 && ix >= 0 && ix < 6)
                  want += double(img[((b * 3 + c) * 6 + iy) * 6 + ix]) *
                          filters[((f * 3 + c) * 3 + r) * 3 + s];
              }
          ASSERT_NEAR(out[(b * 16 + f) * 36 + yx], want,
                      1e-4 * (1.0 + std::fabs(want)))
              << "call " << call;
        }
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

} // namespace
