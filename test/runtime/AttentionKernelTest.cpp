// SPDX-License-Identifier: Apache-2.0
// mxrt_kernel_sattention against float64 loops that write the scores out
// (softmax(scale Q K^T + mask) V per head): odd sequence lengths around the
// kernel's blocks of queries and keys, one and several heads, causal masks
// (with a cache: more keys than queries), masks shared by the heads,
// strided operands as a fused QKV projection lays them out, the divided
// scale, rows with every key masked (NaN), on one thread and on a pool;
// once per instruction set (MXRT_KERNEL_ISA, see CMakeLists.txt).
#include "KernelReference.h"
#include "mxrt/kernels.h"
#include "threadpool.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

using mxrt_test::randomVector;

struct Case {
  int64_t n, h, sq, sk, d, dv;
  bool causal, sharedMask, divide, interleaved;
  /// K and V stored by columns (K^T as a transpose writes it: the keys'
  /// elements sk apart).
  bool columns = false;
};

/// One operand of a case: its data and strides (head batch, head, row,
/// column).
struct Operand {
  std::vector<float> data;
  int64_t s[4];
  float at(int64_t i, int64_t j, int64_t r, int64_t c) const {
    return data[i * s[0] + j * s[1] + r * s[2] + c * s[3]];
  }
};

/// rows x cols per head, contiguous, or (interleaved) with the heads side
/// by side in each row, as (n, rows, h * cols) after a fused projection,
/// or (columns) stored transposed, cols x rows.
Operand operand(std::mt19937 &rng, const Case &cs, int64_t rows, int64_t cols,
                bool interleaved, bool columns = false) {
  Operand op{randomVector(rng, cs.n * cs.h * rows * cols), {}};
  if (columns)
    op.s[0] = cs.h * rows * cols, op.s[1] = rows * cols, op.s[2] = 1,
    op.s[3] = rows;
  else if (interleaved)
    op.s[0] = rows * cs.h * cols, op.s[1] = cols, op.s[2] = cs.h * cols,
    op.s[3] = 1;
  else
    op.s[0] = cs.h * rows * cols, op.s[1] = rows * cols, op.s[2] = cols,
    op.s[3] = 1;
  return op;
}

void check(const Case &cs, std::mt19937 &rng) {
  SCOPED_TRACE(::testing::Message()
               << "n " << cs.n << " h " << cs.h << " sq " << cs.sq << " sk "
               << cs.sk << " d " << cs.d << " dv " << cs.dv << " causal "
               << cs.causal << " shared mask " << cs.sharedMask << " divide "
               << cs.divide << " interleaved " << cs.interleaved << " columns "
               << cs.columns);
  const float inf = std::numeric_limits<float>::infinity();
  Operand q = operand(rng, cs, cs.sq, cs.d, cs.interleaved),
          k = operand(rng, cs, cs.sk, cs.d, cs.interleaved, cs.columns),
          v = operand(rng, cs, cs.sk, cs.dv, cs.interleaved, cs.columns);
  // A random additive mask, -inf above the diagonal when causal (query r
  // sees keys up to r + sk - sq) and on every key of the last query row of
  // the first head when not.
  Operand mask{
      randomVector(rng, (cs.sharedMask ? 1 : cs.n * cs.h) * cs.sq * cs.sk), {}};
  if (cs.sharedMask)
    mask.s[0] = mask.s[1] = 0;
  else
    mask.s[0] = cs.h * cs.sq * cs.sk, mask.s[1] = cs.sq * cs.sk;
  mask.s[2] = cs.sk, mask.s[3] = 1;
  for (int64_t r = 0; r < cs.sq; ++r)
    for (int64_t c = 0; c < cs.sk; ++c)
      if (cs.causal && c > r + cs.sk - cs.sq)
        for (int64_t b = 0; b < (cs.sharedMask ? 1 : cs.n * cs.h); ++b)
          mask.data[b * cs.sq * cs.sk + r * cs.sk + c] = -inf;
  bool maskedRow = !cs.causal && !cs.sharedMask;
  if (maskedRow)
    for (int64_t c = 0; c < cs.sk; ++c)
      mask.data[(cs.sq - 1) * cs.sk + c] = -inf;
  float scale = cs.divide ? 8.0f : 0.125f;
  std::vector<float> o(cs.n * cs.h * cs.sq * cs.dv, 7.0f);
  int64_t os[4] = {cs.h * cs.sq * cs.dv, cs.sq * cs.dv, cs.dv, 1};
  mxrt_kernel_sattention(
      cs.n, cs.h, cs.sq, cs.sk, cs.d, cs.dv, q.data.data(), q.s[0], q.s[1],
      q.s[2], q.s[3], k.data.data(), k.s[0], k.s[1], k.s[2], k.s[3],
      v.data.data(), v.s[0], v.s[1], v.s[2], v.s[3], mask.data.data(),
      mask.s[0], mask.s[1], mask.s[2], mask.s[3], &scale, o.data(), os[0],
      os[1], os[2], os[3], cs.divide ? MXRT_KERNEL_ATTENTION_DIVIDE : 0);
  for (int64_t i = 0; i < cs.n; ++i)
    for (int64_t j = 0; j < cs.h; ++j)
      for (int64_t r = 0; r < cs.sq; ++r) {
        std::vector<double> s(cs.sk);
        double top = -inf;
        for (int64_t c = 0; c < cs.sk; ++c) {
          double dot = 0;
          for (int64_t e = 0; e < cs.d; ++e)
            dot += double(q.at(i, j, r, e)) * k.at(i, j, c, e);
          s[c] = (cs.divide ? dot / scale : dot * scale) + mask.at(i, j, r, c);
          top = std::max(top, s[c]);
        }
        double sum = 0;
        for (double &x : s)
          sum += (x = std::exp(x - top));
        for (int64_t e = 0; e < cs.dv; ++e) {
          float got = o[i * os[0] + j * os[1] + r * os[2] + e];
          if (maskedRow && i == 0 && j == 0 && r == cs.sq - 1) {
            EXPECT_TRUE(std::isnan(got)) << "row of masked keys, column " << e;
            continue;
          }
          double want = 0;
          for (int64_t c = 0; c < cs.sk; ++c)
            want += s[c] / sum * v.at(i, j, c, e);
          ASSERT_NEAR(got, want, 1e-5 * (1 + std::fabs(want)))
              << "head (" << i << ", " << j << ") row " << r << " column " << e;
        }
      }
}

std::vector<Case> cases() {
  return {
      {1, 1, 1, 1, 1, 1, false, true, false, false},
      {1, 1, 7, 13, 5, 9, false, true, false, false},
      {1, 3, 33, 33, 64, 64, true, true, true, false},
      {2, 2, 17, 40, 16, 24, false, false, false, false},
      {1, 4, 50, 50, 64, 64, true, true, true, true},
      {1, 2, 1, 45, 32, 32, true, true, false, true}, // a decode step
      {2, 3, 9, 70, 8, 40, true, false, false, false},
      {1, 12, 128, 128, 64, 64, true, true, true, true},
      // Few query rows (a decode step's path, K and V read in place):
      // two and three rows, K and V by rows and by columns, odd depths.
      {1, 3, 2, 77, 64, 64, true, true, true, true},
      {2, 2, 3, 19, 33, 17, false, false, false, false},
      {1, 2, 1, 45, 32, 32, true, true, false, false, true},
      {1, 3, 2, 40, 7, 5, false, false, true, false, true},
      {1, 2, 9, 30, 16, 16, true, true, false, false, true},
      // Value rows of 8 vectors (AVX-512), the most weighed in registers,
      // and past them (through memory), causal: masked keys skipped.
      {1, 2, 1, 30, 16, 128, true, true, false, false},
      {1, 1, 2, 21, 16, 144, true, true, false, true},
  };
}

TEST(AttentionKernel, MatchesFloat64Loops) {
  std::mt19937 rng(7);
  for (const Case &cs : cases())
    check(cs, rng);
}

TEST(AttentionKernel, MatchesFloat64LoopsOnThreadPool) {
  mxrt::ThreadPool pool(3);
  mxrt::ThreadPool::Scope scope(&pool);
  std::mt19937 rng(8);
  for (const Case &cs : cases())
    check(cs, rng);
}

/// Without a mask: every key counts, the last block's padding none.
TEST(AttentionKernel, NoMask) {
  std::mt19937 rng(9);
  for (int64_t sk : {1, 15, 16, 17, 31, 32, 33, 100}) {
    SCOPED_TRACE(sk);
    int64_t sq = 5, d = 3, dv = 2;
    std::vector<float> q = randomVector(rng, sq * d),
                       k = randomVector(rng, sk * d),
                       v = randomVector(rng, sk * dv), o(sq * dv);
    float scale = 0.5f;
    mxrt_kernel_sattention(1, 1, sq, sk, d, dv, q.data(), 0, 0, d, 1, k.data(),
                           0, 0, d, 1, v.data(), 0, 0, dv, 1, nullptr, 0, 0, 0,
                           0, &scale, o.data(), 0, 0, dv, 1, 0);
    for (int64_t r = 0; r < sq; ++r) {
      std::vector<double> s(sk);
      double top = -1e300, sum = 0;
      for (int64_t c = 0; c < sk; ++c) {
        double dot = 0;
        for (int64_t e = 0; e < d; ++e)
          dot += double(q[r * d + e]) * k[c * d + e];
        top = std::max(top, s[c] = dot * scale);
      }
      for (double &x : s)
        sum += (x = std::exp(x - top));
      for (int64_t e = 0; e < dv; ++e) {
        double want = 0;
        for (int64_t c = 0; c < sk; ++c)
          want += s[c] / sum * v[c * dv + e];
        ASSERT_NEAR(o[r * dv + e], want, 1e-5 * (1 + std::fabs(want)));
      }
    }
  }
}

} // namespace
