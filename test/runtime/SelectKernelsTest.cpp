// SPDX-License-Identifier: Apache-2.0
// mxrt_kernel_topk_f32 and mxrt_kernel_nms_f32 against plain reference
// loops on random problems: TopK as a full stable sort of each column's
// kept elements (ties and NaN included), non-maximum suppression as rounds
// that each take the best box left and drop those overlapping it (the
// unrolled form mxc generated before these kernels).
#include "mxrt/kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace {

/// The positions of a column's first `valid` elements, best first.
std::vector<int64_t> sortedColumn(const std::vector<float> &col, int64_t valid,
                                  bool smallest) {
  std::vector<int64_t> idx(valid);
  std::iota(idx.begin(), idx.end(), 0);
  auto key = [&](int64_t j) {
    float v = col[j];
    if (std::isnan(v))
      return smallest ? std::numeric_limits<double>::infinity()
                      : -std::numeric_limits<double>::infinity();
    return smallest ? double(v) : -double(v);
  };
  std::stable_sort(idx.begin(), idx.end(),
                   [&](int64_t a, int64_t b) { return key(a) < key(b); });
  return idx;
}

TEST(SelectKernels, TopKMatchesAStableSort) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    int64_t outer = 1 + rng() % 3, n = 1 + rng() % 40, inner = 1 + rng() % 3;
    int64_t count = rng() % (n + 1), kbound = rng() % (n + 1);
    int64_t k = rng() % (kbound + 2); // sometimes above the bound
    bool smallest = rng() % 2, withCount = rng() % 2;
    std::vector<float> x(outer * n * inner);
    for (float &v : x) // few distinct values: many ties
      v = rng() % 23 == 0 ? std::nanf("") : float(int(rng() % 9) - 4);
    std::vector<int64_t> out(outer * kbound * inner, -7);
    mxrt_kernel_topk_f32(x.data(), outer, n, inner,
                         withCount ? &count : nullptr, &k, kbound, out.data(),
                         smallest ? MXRT_KERNEL_SELECT_SMALLEST : 0);
    int64_t valid = withCount ? count : n;
    int64_t take = std::min({k, kbound, valid});
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        std::vector<float> col(n);
        for (int64_t j = 0; j < n; ++j)
          col[j] = x[(o * n + j) * inner + i];
        std::vector<int64_t> want = sortedColumn(col, valid, smallest);
        for (int64_t j = 0; j < kbound; ++j)
          ASSERT_EQ(out[(o * kbound + j) * inner + i], j < take ? want[j] : 0)
              << "trial " << trial << " column (" << o << ", " << i
              << ") place " << j;
      }
  }
}

struct Corners {
  float y1, x1, y2, x2;
};

Corners cornersOf(const float *b, bool center) {
  if (center)
    return {b[1] - b[3] * 0.5f, b[0] - b[2] * 0.5f, b[1] + b[3] * 0.5f,
            b[0] + b[2] * 0.5f};
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]),
          std::max(b[1], b[3])};
}

/// Whether box a overlaps box b by an IoU above `threshold` (ONNX
/// Runtime's test: a positive intersection, areas and union).
bool overlapping(const Corners &a, const Corners &b, float threshold) {
  float areaA = (a.y2 - a.y1) * (a.x2 - a.x1);
  float areaB = (b.y2 - b.y1) * (b.x2 - b.x1);
  float h = std::max(std::min(a.y2, b.y2) - std::max(a.y1, b.y1), 0.0f);
  float w = std::max(std::min(a.x2, b.x2) - std::max(a.x1, b.x1), 0.0f);
  float inter = h * w, uni = areaA + areaB - inter;
  return inter > 0 && areaA > 0 && areaB > 0 && uni > 0 &&
         inter / uni > threshold;
}

TEST(SelectKernels, NmsMatchesGreedyRounds) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  for (int trial = 0; trial < 100; ++trial) {
    int64_t batches = 1 + rng() % 2, classes = 1 + rng() % 3,
            n = 1 + rng() % 30;
    int64_t count = rng() % (n + 1), most = rng() % (n + 2);
    bool center = rng() % 2, withCount = rng() % 2, withScore = rng() % 2;
    float iou = 0.1f + 0.6f * unit(rng), scoreThreshold = 0.3f;
    std::vector<float> boxes(batches * n * 4), scores(batches * classes * n);
    for (int64_t b = 0; b < batches * n; ++b) { // clustered: overlaps
      float cy = float(rng() % 3) * 20 + 4 * unit(rng);
      float cx = float(rng() % 3) * 20 + 4 * unit(rng);
      float h = 5 + 10 * unit(rng), w = 5 + 10 * unit(rng);
      float *p = &boxes[b * 4];
      if (center) {
        p[0] = cx, p[1] = cy, p[2] = w, p[3] = h;
      } else if (rng() % 2) { // corners in either order
        p[0] = cy - h / 2, p[1] = cx - w / 2, p[2] = cy + h / 2,
        p[3] = cx + w / 2;
      } else {
        p[0] = cy + h / 2, p[1] = cx + w / 2, p[2] = cy - h / 2,
        p[3] = cx - w / 2;
      }
    }
    for (float &s : scores)
      s = float(rng() % 50) / 50; // ties
    std::vector<int64_t> out(batches * classes * n, -7);
    mxrt_kernel_nms_f32(boxes.data(), scores.data(), batches, classes, n,
                        withCount ? &count : nullptr, &most, &iou,
                        withScore ? &scoreThreshold : nullptr, out.data(),
                        center ? MXRT_KERNEL_NMS_CENTER : 0);
    int64_t valid = withCount ? count : n;
    for (int64_t b = 0; b < batches; ++b)
      for (int64_t c = 0; c < classes; ++c) {
        const float *s = &scores[(b * classes + c) * n];
        std::vector<bool> left(n, false);
        for (int64_t j = 0; j < valid; ++j)
          left[j] = !withScore || s[j] > scoreThreshold;
        std::vector<int64_t> want;
        while (int64_t(want.size()) < most) {
          int64_t best = -1;
          for (int64_t j = 0; j < n; ++j)
            if (left[j] && (best < 0 || s[j] > s[best]))
              best = j;
          if (best < 0)
            break;
          want.push_back(best);
          Corners t = cornersOf(&boxes[(b * n + best) * 4], center);
          for (int64_t j = 0; j < n; ++j)
            if (left[j] &&
                (j == best ||
                 overlapping(cornersOf(&boxes[(b * n + j) * 4], center), t,
                             iou)))
              left[j] = false;
        }
        want.resize(n, -1);
        for (int64_t j = 0; j < n; ++j)
          ASSERT_EQ(out[(b * classes + c) * n + j], want[j])
              << "trial " << trial << " batch " << b << " class " << c
              << " place " << j;
      }
  }
}

} // namespace
