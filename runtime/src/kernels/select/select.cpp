// SPDX-License-Identifier: Apache-2.0
//
// mxrt_kernel_topk_f32 and mxrt_kernel_nms_f32: the selections of detection
// post-processing, whose outputs have as many elements as the data decides
// (ONNX TopK with a run-time k, NonMaxSuppression). The generated code did
// them as k rounds of arg-max over the whole axis, unrolled: fine for a
// classifier's top 5, but torchvision's SSD takes the top 300 of 3,234
// anchors for each of 90 classes and suppresses among 27,000 boxes, where
// the unrolled rounds grow the program past what compiles. Here TopK is a
// partial sort of (value, index) pairs, O(n log k), and the suppression the
// usual greedy pass over the candidates sorted by score, each compared with
// the boxes already taken. mxrt_kernel_random_seed seeds the random
// operators that have no seed of their own.

#include "mxrt/kernels.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace {

/// Whether a ranks before b (a better candidate): the larger (smaller with
/// `smallest`) value, NaN above every number, ties to the lower index.
struct Better {
  bool smallest;
  bool operator()(const std::pair<float, int64_t> &a,
                  const std::pair<float, int64_t> &b) const {
    bool an = std::isnan(a.first), bn = std::isnan(b.first);
    if (an || bn) {
      if (an != bn)
        return smallest ? bn : an;
      return a.second < b.second;
    }
    if (a.first != b.first)
      return smallest ? a.first < b.first : a.first > b.first;
    return a.second < b.second;
  }
};

/// One box's corners and area, as ONNX Runtime computes them.
struct Box {
  float y1, x1, y2, x2, area;
};

Box boxAt(const float *b, bool center) {
  Box r;
  if (center) {
    float hw = b[2] * 0.5f, hh = b[3] * 0.5f;
    r.x1 = b[0] - hw, r.x2 = b[0] + hw;
    r.y1 = b[1] - hh, r.y2 = b[1] + hh;
  } else {
    r.y1 = std::min(b[0], b[2]), r.y2 = std::max(b[0], b[2]);
    r.x1 = std::min(b[1], b[3]), r.x2 = std::max(b[1], b[3]);
  }
  r.area = (r.y2 - r.y1) * (r.x2 - r.x1);
  return r;
}

/// Whether `a` overlaps the taken box `t` by more than `threshold`.
bool overlaps(const Box &a, const Box &t, float threshold) {
  float h = std::max(std::min(a.y2, t.y2) - std::max(a.y1, t.y1), 0.0f);
  float w = std::max(std::min(a.x2, t.x2) - std::max(a.x1, t.x1), 0.0f);
  float inter = h * w;
  float uni = a.area + t.area - inter;
  if (!(inter > 0 && a.area > 0 && t.area > 0 && uni > 0))
    return false;
  return inter / uni > threshold;
}

} // namespace

extern "C" void mxrt_kernel_topk_f32(const float *x, int64_t outer, int64_t n,
                                     int64_t inner, const int64_t *count,
                                     const int64_t *k, int64_t kbound,
                                     int64_t *out, int32_t flags) {
  if (kbound <= 0)
    return; // nothing to write; `out` may be null
  int64_t valid = count ? std::clamp<int64_t>(*count, 0, n) : n;
  int64_t take = std::clamp<int64_t>(k ? *k : kbound, 0, kbound);
  take = std::min(take, valid);
  Better better{(flags & MXRT_KERNEL_SELECT_SMALLEST) != 0};
  // Kept between calls: a fresh buffer this size is fresh pages to clear.
  thread_local std::vector<std::pair<float, int64_t>> column;
  column.resize(valid);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const float *xs = x + o * n * inner + i;
      for (int64_t j = 0; j < valid; ++j)
        column[j] = {xs[j * inner], j};
      // The best `take` to the front (a total order: no ties), then sorted.
      std::nth_element(column.begin(), column.begin() + take, column.end(),
                       better);
      std::sort(column.begin(), column.begin() + take, better);
      int64_t *ys = out + o * kbound * inner + i;
      for (int64_t j = 0; j < kbound; ++j)
        ys[j * inner] = j < take ? column[j].second : 0;
    }
}

extern "C" void
mxrt_kernel_nms_f32(const float *boxes, const float *scores, int64_t batches,
                    int64_t classes, int64_t n, const int64_t *count,
                    const int64_t *max_per_class, const float *iou_threshold,
                    const float *score_threshold, int64_t *out, int32_t flags) {
  int64_t valid = count ? std::clamp<int64_t>(*count, 0, n) : n;
  int64_t most = max_per_class ? std::max<int64_t>(*max_per_class, 0) : 0;
  float threshold = iou_threshold ? *iou_threshold : 0.0f;
  bool center = (flags & MXRT_KERNEL_NMS_CENTER) != 0;
  // Kept between calls: fresh buffers this size are fresh pages to clear.
  thread_local std::vector<Box> all;
  thread_local std::vector<std::pair<float, int64_t>> order;
  all.resize(valid);
  // The taken boxes by band of their top edge, bands as tall as the
  // tallest box: a box meets only those of its band and the two beside it.
  // torchvision's batched NMS offsets each class's boxes past the others',
  // so among its 27,000 candidates most pairs are never compared.
  thread_local std::unordered_map<int64_t, std::vector<Box>> bands;
  for (int64_t b = 0; b < batches; ++b) {
    float tallest = 0.0f, lowest = 0.0f, highest = 0.0f;
    bool finite = true;
    for (int64_t j = 0; j < valid; ++j) {
      const Box &box = all[j] = boxAt(boxes + (b * n + j) * 4, center);
      finite = finite && std::isfinite(box.y1) && std::isfinite(box.y2);
      tallest = std::max(tallest, box.y2 - box.y1);
      lowest = std::min(lowest, box.y1);
      highest = std::max(highest, box.y1);
    }
    // One band where bands would not separate anything (or not fit).
    bool banded = finite && tallest > 0.0f &&
                  (highest - lowest) / tallest < float(int64_t(1) << 40);
    auto bandOf = [&](const Box &box) -> int64_t {
      return banded ? int64_t(std::floor(box.y1 / tallest)) : 0;
    };
    for (int64_t c = 0; c < classes; ++c) {
      const float *s = scores + (b * classes + c) * n;
      int64_t *ys = out + (b * classes + c) * n;
      order.clear();
      for (int64_t j = 0; j < valid; ++j)
        if (!std::isnan(s[j]) && (!score_threshold || s[j] > *score_threshold))
          order.push_back({s[j], j});
      std::sort(order.begin(), order.end(), Better{false}); // a total order
      for (auto &band : bands)
        band.second.clear();
      int64_t kept = 0;
      for (const auto &[score, j] : order) {
        if (kept >= most)
          break;
        const Box &box = all[j];
        int64_t band = bandOf(box);
        bool drop = false;
        for (int64_t near = band - 1; near <= band + 1 && !drop; ++near) {
          auto it = bands.find(near);
          if (it == bands.end())
            continue;
          for (const Box &t : it->second)
            if (overlaps(box, t, threshold)) {
              drop = true;
              break;
            }
        }
        if (drop)
          continue;
        bands[band].push_back(box);
        ys[kept++] = j;
      }
      std::fill(ys + kept, ys + n, int64_t(-1));
    }
  }
}

extern "C" void mxrt_kernel_random_seed(int64_t *out, int32_t) {
  static std::atomic<uint64_t> counter{
      uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) ^
      (uint64_t(getpid()) << 32)};
  // splitmix64's finalizer over consecutive counter values.
  uint64_t z = counter.fetch_add(0x9E3779B97F4A7C15ull) + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  *out = int64_t(z ^ (z >> 31));
}
