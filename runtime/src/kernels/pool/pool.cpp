// SPDX-License-Identifier: Apache-2.0
//
// mxrt_kernel_spool2d: 2-D max / mean / sum pooling over strided planes,
// and its gradient. Generated loops over a padded copy of the input (the
// lowering before these kernels) filled 3.3 MB of -inf and copied ResNet-18's
// stem output into it before a scalar pass: 5% of its time on one thread.
// Both kernels lay a plane (or a run of its rows) out once in a small padded
// buffer split into stride phases (FlatLayout), where every window tap is
// one contiguous, branch-free pass over all of the plane's outputs, however
// narrow the plane; the gradient adds each tap's share into a padded dx laid
// out the same way and gathers dx's rows from it. Row by row and tap by tap
// (each tap's range of outputs per row), Inception-BN's 7x7 and 14x14 pools
// spent most of their time on per-row work (bench/pool_layers.c,
// docs/training.md). mxc calls the forward kernel for windows that reach
// past the input; inside it, its generated loops, whose static trip counts
// vectorize without scalar remainders, were faster (LeNet).

#include "kernels/isa/isa.h"
#include "mxrt/kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

struct PoolJob {
  int64_t c, h, w, oh, ow, kh, kw, sh, sw, ph, pw;
  const float *x;
  int64_t xn, xc, xh, xw;
  float *y;
  int64_t yn, yc, yh, yw;
  int32_t flags;
  /// The output rows this piece computes (of every plane it is given).
  int64_t oy0, oy1;
};

enum class Combine { Max, Sum };

// The loops below are inlined into each per-ISA copy of poolPlanesAny, so
// that each is compiled for that copy's instruction set.
#if defined(__clang__) || defined(__GNUC__)
#define MXRT_POOL_INLINE inline __attribute__((always_inline))
#else
#define MXRT_POOL_INLINE inline
#endif

/// ceil(a / b) for b > 0.
int64_t ceilDiv(int64_t a, int64_t b) {
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

/// floor(a / b) for b > 0.
int64_t floorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/// The divisor's extent along one axis for output o (MXNet's): the window
/// clipped to the padded input, or with countPad to the input alone.
int64_t windowCount(int64_t o, int64_t stride, int64_t pad, int64_t k,
                    int64_t extent, bool countPad) {
  int64_t start = o * stride - pad;
  int64_t stop = std::min(start + k, extent + pad);
  if (!countPad) {
    start = std::max<int64_t>(start, 0);
    stop = std::min(stop, extent);
  }
  return std::max<int64_t>(stop - start, 1);
}

/// A pooling's geometry (of PoolJob and PoolGradJob).
struct Window {
  int64_t h, w, oh, ow, kh, kw, sh, sw, ph, pw;
};

template <typename Job> Window windowOf(const Job &p) {
  return {p.h, p.w, p.oh, p.ow, p.kh, p.kw, p.sh, p.sw, p.ph, p.pw};
}

/// Output rows [oy0, oy0 + rows) of a plane laid out for flat pooling: the
/// padded input rows they read, split into sh x sw stride phases of hq x wq
/// floats each (phase (a, b) holds padded rows a, a + sh, ... and columns
/// b, b + sw, ...). Output (oy0 + r, ox) is flat position o = r wq + ox,
/// and its tap (ky, kx) reads phase (ky % sh, kx % sw) at o + (ky / sh) wq
/// + kx / sw: every tap is one contiguous pass over the piece, however
/// narrow the plane, and what columns ox >= ow compute is dropped.
struct FlatLayout {
  int64_t oy0, rows, hq, wq, size; // size: a phase's floats, with slack
  std::vector<int64_t> taps;       // tap ky * kw + kx: where it reads
  FlatLayout(const Window &g, int64_t oy0, int64_t rows)
      : oy0(oy0), rows(rows), hq(rows + (g.kh - 1) / g.sh),
        wq(g.ow + (g.kw - 1) / g.sw) {
    // Dropped columns of the last row read up to (kw - 1) / sw past it.
    size = (hq * wq + (g.kw - 1) / g.sw + 15) / 16 * 16;
    for (int64_t ky = 0; ky < g.kh; ++ky)
      for (int64_t kx = 0; kx < g.kw; ++kx)
        taps.push_back(((ky % g.sh) * g.sw + kx % g.sw) * size +
                       (ky / g.sh) * wq + kx / g.sw);
  }
  int64_t phases(const Window &g) const { return g.sh * g.sw * size; }
};

/// Lays out plane x (rows xh, columns xw apart) in `phases` per L, `pad`
/// wherever a window reads outside the input. Step: the column stride sw
/// when the plane's columns are contiguous and it is 1 or 2 (a constant
/// stride, so the copy vectorizes), else 0.
template <int Step>
MXRT_POOL_INLINE void layOut(const Window &g, const FlatLayout &L,
                             const float *x, int64_t xh, int64_t xw, float pad,
                             float *phases) {
  int64_t step = Step ? Step : g.sw * xw;
  for (int64_t a = 0; a < g.sh; ++a)
    for (int64_t r = 0; r < L.hq; ++r) {
      int64_t iy = (L.oy0 + r) * g.sh + a - g.ph;
      float *row = phases + a * g.sw * L.size + r * L.wq;
      if (iy < 0 || iy >= g.h) {
        for (int64_t b = 0; b < g.sw; ++b)
          std::fill(row + b * L.size, row + b * L.size + L.wq, pad);
        continue;
      }
      const float *in = x + iy * xh;
      int64_t lo = 0, hi = 0; // phase columns [lo, hi): both phases inside
      if constexpr (Step == 2) {
        // Padded columns 2 m and 2 m + 1 at once (one interleaved load);
        // both inside the input for m in [lo, hi).
        lo = std::min(L.wq, ceilDiv(g.pw, 2));
        hi = std::clamp<int64_t>(floorDiv(g.w - 2 + g.pw, 2) + 1, lo, L.wq);
        const float *src = in + 2 * lo - g.pw;
        float *__restrict e = row + lo, *__restrict o = row + L.size + lo;
        for (int64_t m = 0; m < hi - lo; ++m) {
          e[m] = src[2 * m];
          o[m] = src[2 * m + 1];
        }
      }
      for (int64_t b = 0; b < g.sw; ++b) {
        float *dst = row + b * L.size;
        // Phase columns j whose input column j sw + b - pw is inside.
        int64_t j0 = std::clamp<int64_t>(ceilDiv(g.pw - b, g.sw), 0, L.wq);
        int64_t j1 = std::clamp<int64_t>(floorDiv(g.w - 1 + g.pw - b, g.sw) + 1,
                                         j0, L.wq);
        std::fill(dst, dst + j0, pad);
        if (lo >= hi) {
          const float *src = in + (j0 * g.sw + b - g.pw) * xw;
          float *__restrict out = dst + j0;
          for (int64_t j = 0; j < j1 - j0; ++j)
            out[j] = src[j * step];
        } else { // the columns left at either end
          for (int64_t j = j0; j < std::min(j1, lo); ++j)
            dst[j] = in[(j * g.sw + b - g.pw) * xw];
          for (int64_t j = std::max(j0, hi); j < j1; ++j)
            dst[j] = in[(j * g.sw + b - g.pw) * xw];
        }
        std::fill(dst + j1, dst + L.wq, pad);
      }
    }
  for (int64_t ph = 0; ph < g.sh * g.sw; ++ph)
    std::fill(phases + ph * L.size + L.hq * L.wq, phases + (ph + 1) * L.size,
              pad);
}

/// acc[o] combined with src[o] for o < count. NaN wins a maximum.
template <Combine C>
MXRT_POOL_INLINE void combineFlat(float *__restrict acc,
                                  const float *__restrict src, int64_t count) {
  for (int64_t o = 0; o < count; ++o) {
    float v = src[o];
    if constexpr (C == Combine::Max)
      acc[o] = (v > acc[o] || v != v) ? v : acc[o];
    else
      acc[o] += v;
  }
}

/// Thread-local scratch of at least `count` floats, one per `slot`.
float *poolScratch(int slot, int64_t count) {
  thread_local std::vector<float> buffers[4];
  std::vector<float> &b = buffers[slot];
  if (static_cast<int64_t>(b.size()) < count)
    b.resize(count);
  return b.data();
}

/// Planes [begin, end) of p (output rows [p.oy0, p.oy1)) by flat passes
/// (FlatLayout): the plane's rows laid out once, then one pass a tap;
/// columns: the divisor's extent of each output column (averages only).
/// Step as layOut's.
template <Combine C, int Step>
MXRT_POOL_INLINE void poolPlanesFlat(const PoolJob &p, int64_t begin,
                                     int64_t end, const float *columns) {
  bool avg = p.flags & MXRT_KERNEL_POOL_AVG;
  bool countPad = p.flags & MXRT_KERNEL_POOL_COUNT_PAD;
  bool accumulate = p.flags & MXRT_KERNEL_ACCUMULATE;
  bool relu = p.flags & MXRT_KERNEL_RELU;
  Window g = windowOf(p);
  FlatLayout L(g, p.oy0, p.oy1 - p.oy0);
  float pad =
      C == Combine::Max ? -std::numeric_limits<float>::infinity() : 0.0f;
  float *phases = poolScratch(0, L.phases(g));
  int64_t count = L.rows * L.wq;
  float *acc = poolScratch(1, count);
  for (int64_t plane = begin; plane < end; ++plane) {
    int64_t i = plane / p.c, j = plane % p.c;
    layOut<Step>(g, L, p.x + i * p.xn + j * p.xc, p.xh, p.xw, pad, phases);
    std::copy(phases + L.taps[0], phases + L.taps[0] + count, acc);
    for (size_t t = 1; t < L.taps.size(); ++t)
      combineFlat<C>(acc, phases + L.taps[t], count);
    float *y = p.y + i * p.yn + j * p.yc;
    for (int64_t r = 0; r < L.rows; ++r) {
      int64_t oy = p.oy0 + r;
      float rows = avg ? static_cast<float>(
                             windowCount(oy, p.sh, p.ph, p.kh, p.h, countPad))
                       : 1.0f;
      const float *in = acc + r * L.wq;
      float *out = y + oy * p.yh;
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        float v = avg ? in[ox] / (rows * columns[ox]) : in[ox];
        if (accumulate)
          v += out[ox * p.yw];
        out[ox * p.yw] = relu ? std::max(v, 0.0f) : v;
      }
    }
  }
}

/// Planes [begin, end) of `p` (plane i * c + j is image i's channel j);
/// columns as poolPlanesFlat's.
MXRT_POOL_INLINE void poolPlanesAny(const PoolJob &p, int64_t begin,
                                    int64_t end, const float *columns) {
  bool max = !(p.flags & (MXRT_KERNEL_POOL_AVG | MXRT_KERNEL_POOL_SUM));
  bool unit = p.xw == 1;
  if (max && unit && p.sw == 1)
    poolPlanesFlat<Combine::Max, 1>(p, begin, end, columns);
  else if (max && unit && p.sw == 2)
    poolPlanesFlat<Combine::Max, 2>(p, begin, end, columns);
  else if (max)
    poolPlanesFlat<Combine::Max, 0>(p, begin, end, columns);
  else if (unit && p.sw == 1)
    poolPlanesFlat<Combine::Sum, 1>(p, begin, end, columns);
  else if (unit && p.sw == 2)
    poolPlanesFlat<Combine::Sum, 2>(p, begin, end, columns);
  else
    poolPlanesFlat<Combine::Sum, 0>(p, begin, end, columns);
}

// poolPlanesAny compiled for each instruction set the GEMM has (the loops
// are inlined, so each copy is vectorized for its own).
using PoolPlanesFn = void (*)(const PoolJob &, int64_t, int64_t, const float *);

void poolPlanesPortable(const PoolJob &p, int64_t begin, int64_t end,
                        const float *columns) {
  poolPlanesAny(p, begin, end, columns);
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx512f,avx512vl,avx2,fma"))) void
poolPlanesAvx512(const PoolJob &p, int64_t begin, int64_t end,
                 const float *columns) {
  poolPlanesAny(p, begin, end, columns);
}

__attribute__((target("avx2,fma"))) void poolPlanesAvx2(const PoolJob &p,
                                                        int64_t begin,
                                                        int64_t end,
                                                        const float *columns) {
  poolPlanesAny(p, begin, end, columns);
}
#endif

// On 64-bit ARM the portable copy is vectorized for NEON (every core has
// it), and one more for SVE at whatever vector length the core has.
#if defined(__aarch64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("sve"))) void poolPlanesSve(const PoolJob &p,
                                                  int64_t begin, int64_t end,
                                                  const float *columns) {
  poolPlanesAny(p, begin, end, columns);
}
#endif

/// Of a function's portable, AVX2, AVX-512 and SVE copies (nullptr: not
/// compiled), the one for the kernels' instruction set (mxrt::kernelIsa).
template <typename Fn>
Fn forKernelIsa(Fn portable, Fn avx2, Fn avx512, Fn sve = nullptr) {
  std::string isa = mxrt::kernelIsa();
  if (isa == "avx512" && avx512)
    return avx512;
  if (isa == "avx2" && avx2)
    return avx2;
  if (isa.compare(0, 3, "sve") == 0 && sve)
    return sve;
  return portable;
}

// NAME##Portable, NAME##Avx2, NAME##Avx512 and NAME##Sve for forKernelIsa.
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define MXRT_ISA_COPIES(name) name##Portable, name##Avx2, name##Avx512, nullptr
#elif defined(__aarch64__) && (defined(__clang__) || defined(__GNUC__))
#define MXRT_ISA_COPIES(name) name##Portable, nullptr, nullptr, name##Sve
#else
#define MXRT_ISA_COPIES(name) name##Portable, nullptr, nullptr, nullptr
#endif

/// The copy for the kernels' instruction set.
PoolPlanesFn poolPlanes() {
  static const PoolPlanesFn chosen =
      forKernelIsa<PoolPlanesFn>(MXRT_ISA_COPIES(poolPlanes));
  return chosen;
}

/// A piece: planes [begin, end) of p.
void poolChunk(const PoolJob &p, const std::vector<float> &columns,
               int64_t begin, int64_t end) {
  poolPlanes()(p, begin, end, columns.data());
}

struct PoolCall {
  const PoolJob &job;
  const std::vector<float> &columns;
  int64_t planes;
};

/// Taps combined below which a pooling runs on the calling thread alone.
constexpr int64_t kParallelPoolWork = 1 << 16;

} // namespace

extern "C" void mxrt_kernel_spool2d(int64_t n, int64_t c, int64_t h, int64_t w,
                                    int64_t oh, int64_t ow, int64_t kh,
                                    int64_t kw, int64_t stride_h,
                                    int64_t stride_w, int64_t pad_h,
                                    int64_t pad_w, const float *x, int64_t x_sn,
                                    int64_t x_sc, int64_t x_sh, int64_t x_sw,
                                    float *y, int64_t y_sn, int64_t y_sc,
                                    int64_t y_sh, int64_t y_sw, int32_t flags) {
  if (n <= 0 || c <= 0 || oh <= 0 || ow <= 0)
    return;
  PoolJob job{c,        h,     w,     oh,   ow,   kh,    kw,   stride_h,
              stride_w, pad_h, pad_w, x,    x_sn, x_sc,  x_sh, x_sw,
              y,        y_sn,  y_sc,  y_sh, y_sw, flags, 0,    oh};
  std::vector<float> columns(ow);
  for (int64_t ox = 0; ox < ow; ++ox)
    columns[ox] = static_cast<float>(windowCount(
        ox, stride_w, pad_w, kw, w, flags & MXRT_KERNEL_POOL_COUNT_PAD));
  int64_t planes = n * c;
  if (planes * oh * ow * kh * kw < kParallelPoolWork) {
    poolChunk(job, columns, 0, planes);
    return;
  }
  // Threads take runs of output rows of every plane: a convolution before
  // it split its output the same way (runs of pixels), so each thread reads
  // rows its own core wrote. Split by planes instead, ResNet-18's max
  // pooling took 0.6 ms on two threads, half its input coming from the
  // other core (0.4 by rows). Images of a few rows split by planes.
  PoolCall call{job, columns, planes};
  if (oh < 4) {
    mxrt_parallel_for(
        [](void *ctx, int64_t begin, int64_t end) {
          const PoolCall &call = *static_cast<const PoolCall *>(ctx);
          poolChunk(call.job, call.columns, begin, end);
        },
        &call, planes);
    return;
  }
  mxrt_parallel_for(
      [](void *ctx, int64_t begin, int64_t end) {
        const PoolCall &call = *static_cast<const PoolCall *>(ctx);
        PoolJob rows = call.job;
        rows.oy0 = begin, rows.oy1 = end;
        poolChunk(rows, call.columns, 0, call.planes);
      },
      &call, oh);
}

namespace {

/// mxrt_kernel_spool2d_backward's arguments, for its planes' loop.
struct PoolGradJob {
  int64_t c, h, w, oh, ow, kh, kw, sh, sw, ph, pw;
  const float *x, *y, *dy;
  float *dx;
  int32_t flags;
};

/// dx[i] += g[i] for i < count (a tap's flat pass of avg or sum windows).
MXRT_POOL_INLINE void addTap(float *__restrict dx, const float *__restrict g,
                             int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    dx[i] += g[i];
}

/// dx[o] += g[o] where x[o] == y[o], for o < count (a tap's flat pass).
MXRT_POOL_INLINE void addFlatMax(float *__restrict dx,
                                 const float *__restrict x,
                                 const float *__restrict y,
                                 const float *__restrict g, int64_t count) {
  for (int64_t o = 0; o < count; ++o)
    dx[o] += x[o] == y[o] ? g[o] : 0.0f;
}

/// Input row iy of a plane's gradient from its phases D (FlatLayout of
/// every output row): dx[ix] (+)= D's element for padded (iy + ph, ix +
/// pw). Step as layOut's (dx's columns are contiguous).
template <int Step>
MXRT_POOL_INLINE void gatherRow(const Window &g, const FlatLayout &L,
                                const float *d, int64_t iy, bool accumulate,
                                float *__restrict dx) {
  int64_t sw = Step ? Step : g.sw;
  int64_t py = iy + g.ph;
  const float *rows = d + (py % g.sh) * sw * L.size + (py / g.sh) * L.wq;
  int64_t lo = 0, hi = 0; // as layOut's
  if constexpr (Step == 2) {
    lo = std::min(L.wq, ceilDiv(g.pw, 2));
    hi = std::clamp<int64_t>(floorDiv(g.w - 2 + g.pw, 2) + 1, lo, L.wq);
    const float *__restrict e = rows + lo, *__restrict o = rows + L.size + lo;
    float *out = dx + 2 * lo - g.pw;
    if (accumulate)
      for (int64_t m = 0; m < hi - lo; ++m) {
        out[2 * m] += e[m];
        out[2 * m + 1] += o[m];
      }
    else
      for (int64_t m = 0; m < hi - lo; ++m) {
        out[2 * m] = e[m];
        out[2 * m + 1] = o[m];
      }
  }
  for (int64_t b = 0; b < sw; ++b) {
    // Columns ix = j sw + b - pw inside the input.
    int64_t j0 = std::max<int64_t>(0, ceilDiv(g.pw - b, sw));
    int64_t j1 = floorDiv(g.w - 1 + g.pw - b, sw) + 1;
    const float *src = rows + b * L.size;
    float *out = dx + b - g.pw;
    auto put = [&](int64_t from, int64_t to) {
      for (int64_t j = from; j < to; ++j)
        out[j * sw] = accumulate ? out[j * sw] + src[j] : src[j];
    };
    if (lo >= hi) {
      put(j0, j1);
    } else { // the columns left at either end
      put(j0, std::min(j1, lo));
      put(std::max(j0, hi), j1);
    }
  }
}

/// Planes [begin, end) of the gradient of max pooling, or of average and
/// sum pooling with strides, by flat passes (FlatLayout over every output
/// row): each tap's share of the outputs' gradients added to the phases of
/// a zeroed padded dx in one contiguous pass (max: where the laid-out x
/// equals y; the padding, NaN, never does), then dx's rows gathered from
/// them. Step as layOut's.
template <int Step>
MXRT_POOL_INLINE void poolGradPlanesFlat(const PoolGradJob &p, int64_t begin,
                                         int64_t end, bool max, bool avg,
                                         bool countPad) {
  Window g = windowOf(p);
  FlatLayout L(g, 0, p.oh);
  int64_t count = p.oh * L.wq, size = L.phases(g);
  float *xs = max ? poolScratch(0, size) : nullptr;
  float *ds = poolScratch(1, size);
  float *grad = poolScratch(2, count);
  float *ys = max ? poolScratch(3, count) : nullptr;
  // Each output's gradient scale (avg: 1 / its divisor), 0 in the dropped
  // columns, which then add nothing.
  std::vector<float> scale(count, 0.0f);
  for (int64_t oy = 0; oy < p.oh; ++oy)
    for (int64_t ox = 0; ox < p.ow; ++ox)
      scale[oy * L.wq + ox] =
          avg ? 1.0f / float(windowCount(oy, p.sh, p.ph, p.kh, p.h, countPad) *
                             windowCount(ox, p.sw, p.pw, p.kw, p.w, countPad))
              : 1.0f;
  std::fill(grad, grad + count, 0.0f);
  if (max)
    std::fill(ys, ys + count, 0.0f);
  bool accumulate = p.flags & MXRT_KERNEL_ACCUMULATE;
  for (int64_t plane = begin; plane < end; ++plane) {
    const float *y = p.y + plane * p.oh * p.ow,
                *dy = p.dy + plane * p.oh * p.ow;
    for (int64_t oy = 0; oy < p.oh; ++oy) {
      const float *gr = dy + oy * p.ow, *sr = scale.data() + oy * L.wq;
      float *out = grad + oy * L.wq;
      for (int64_t ox = 0; ox < p.ow; ++ox)
        out[ox] = gr[ox] * sr[ox];
      if (max)
        std::copy(y + oy * p.ow, y + (oy + 1) * p.ow, ys + oy * L.wq);
    }
    if (max)
      layOut<Step>(g, L, p.x + plane * p.h * p.w, p.w, 1,
                   std::numeric_limits<float>::quiet_NaN(), xs);
    std::fill(ds, ds + size, 0.0f);
    for (int64_t tap : L.taps)
      if (max)
        addFlatMax(ds + tap, xs + tap, ys, grad, count);
      else
        addTap(ds + tap, grad, count);
    float *dx = p.dx + plane * p.h * p.w;
    for (int64_t iy = 0; iy < p.h; ++iy)
      gatherRow<Step>(g, L, ds, iy, accumulate, dx + iy * p.w);
  }
}

/// Planes [begin, end) of the pooling gradient: every output's gradient
/// to its window's taps inside the input (max: those equal to the output;
/// avg: divided by the forward's divisor).
MXRT_POOL_INLINE void poolGradPlanesAny(const PoolGradJob &p, int64_t begin,
                                        int64_t end) {
  bool max = !(p.flags & (MXRT_KERNEL_POOL_AVG | MXRT_KERNEL_POOL_SUM));
  bool avg = p.flags & MXRT_KERNEL_POOL_AVG;
  bool countPad = p.flags & MXRT_KERNEL_POOL_COUNT_PAD;
  // Windows that tile the input without overlap or padding (LeNet's 2x2
  // / 2): each input element gets one window's gradient or none, so it is
  // written, not added.
  bool tiles = p.sh == p.kh && p.sw == p.kw && p.ph == 0 && p.pw == 0 &&
               !(p.flags & MXRT_KERNEL_ACCUMULATE) && !avg;
  if (!tiles) {
    if (p.sw == 1)
      poolGradPlanesFlat<1>(p, begin, end, max, avg, countPad);
    else if (p.sw == 2)
      poolGradPlanesFlat<2>(p, begin, end, max, avg, countPad);
    else
      poolGradPlanesFlat<0>(p, begin, end, max, avg, countPad);
    return;
  }
  for (int64_t plane = begin; plane < end; ++plane) {
    const float *x = p.x + plane * p.h * p.w, *y = p.y + plane * p.oh * p.ow,
                *dy = p.dy + plane * p.oh * p.ow;
    float *dx = p.dx + plane * p.h * p.w;
    if (p.oh * p.kh != p.h || p.ow * p.kw != p.w)
      std::fill(dx, dx + p.h * p.w, 0.0f); // rows or columns no window reads
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ky = 0; ky < p.kh; ++ky) {
        const float *xr = x + (oy * p.kh + ky) * p.w;
        float *dxr = dx + (oy * p.kh + ky) * p.w;
        const float *yr = y + oy * p.ow, *gr = dy + oy * p.ow;
        for (int64_t ox = 0; ox < p.ow; ++ox)
          for (int64_t kx = 0; kx < p.kw; ++kx) {
            int64_t ix = ox * p.kw + kx;
            dxr[ix] = !max || xr[ix] == yr[ox] ? gr[ox] : 0.0f;
          }
      }
  }
}

// poolGradPlanesAny for each instruction set, as poolPlanes.
void poolGradPlanesPortable(const PoolGradJob &p, int64_t begin, int64_t end) {
  poolGradPlanesAny(p, begin, end);
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx512f,avx512vl,avx2,fma"))) void
poolGradPlanesAvx512(const PoolGradJob &p, int64_t begin, int64_t end) {
  poolGradPlanesAny(p, begin, end);
}

__attribute__((target("avx2,fma"))) void
poolGradPlanesAvx2(const PoolGradJob &p, int64_t begin, int64_t end) {
  poolGradPlanesAny(p, begin, end);
}
#endif
#if defined(__aarch64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("sve"))) void
poolGradPlanesSve(const PoolGradJob &p, int64_t begin, int64_t end) {
  poolGradPlanesAny(p, begin, end);
}
#endif

/// Planes [begin, end) of the pooling gradient (a mxrt_parallel_for body)
/// in the copy for the kernels' instruction set.
void poolGradPlanes(void *arg, int64_t begin, int64_t end) {
  using Fn = void (*)(const PoolGradJob &, int64_t, int64_t);
  static const Fn chosen = forKernelIsa<Fn>(MXRT_ISA_COPIES(poolGradPlanes));
  chosen(*static_cast<const PoolGradJob *>(arg), begin, end);
}

} // namespace

extern "C" void
mxrt_kernel_spool2d_backward(int64_t n, int64_t c, int64_t h, int64_t w,
                             int64_t oh, int64_t ow, int64_t kh, int64_t kw,
                             int64_t stride_h, int64_t stride_w, int64_t pad_h,
                             int64_t pad_w, const float *x, const float *y,
                             const float *dy, float *dx, int32_t flags) {
  if (n <= 0 || c <= 0 || h <= 0 || w <= 0)
    return;
  PoolGradJob job{c,        h,     w,     oh, ow, kh, kw, stride_h,
                  stride_w, pad_h, pad_w, x,  y,  dy, dx, flags};
  if (oh <= 0 || ow <= 0) {
    if (!(flags & MXRT_KERNEL_ACCUMULATE))
      std::fill(dx, dx + n * c * h * w, 0.0f);
    return;
  }
  mxrt_parallel_for(poolGradPlanes, &job, n * c);
}

namespace {

/// mxrt_kernel_qmaxpool2d's geometry and buffers.
struct QMaxPoolJob {
  int64_t c, h, w, oh, ow, kh, kw, sh, sw, ph, pw;
  const void *x;
  void *y;
  bool nhwc;
};

/// out[i] = max(out[i], in[i]) for i < count (vectorized in each copy).
template <typename T>
MXRT_POOL_INLINE void maxInto(T *__restrict out, const T *__restrict in,
                              int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    out[i] = std::max(out[i], in[i]);
}

/// The NCHW horizontal pass of any window: out[ox] = the maximum of
/// padded[ox * sw + kx], kx < kw.
template <typename T>
MXRT_POOL_INLINE void qmaxAcross(const T *padded, int64_t ow, int64_t sw,
                                 int64_t kw, T *out) {
  for (int64_t ox = 0; ox < ow; ++ox) {
    const T *at = padded + ox * sw;
    T best = at[0];
    for (int64_t kx = 1; kx < kw; ++kx)
      best = std::max(best, at[kx]);
    out[ox] = best;
  }
}

/// The 3-wide, stride-2 horizontal pass (ResNet's stem pooling) from
/// `first` on, one output at a time: out[ox] = max(padded[2 ox .. 2 ox +
/// 2]).
template <typename T>
void qmaxAcross32From(const T *padded, int64_t first, int64_t ow, T *out) {
  for (int64_t ox = first; ox < ow; ++ox)
    out[ox] = std::max(std::max(padded[2 * ox], padded[2 * ox + 1]),
                       padded[2 * ox + 2]);
}

/// The same a vector at a time: m = max(padded[i], padded[i + 1], padded[i +
/// 2]) over 2 v consecutive bytes, whose even bytes are v outputs (their
/// low bytes, as 16-bit words). Returns the outputs done.
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
template <typename T>
__attribute__((target("avx512f,avx512bw")))
int64_t qmaxAcross32Avx512(const T *padded, int64_t ow, T *out) {
  int64_t ox = 0;
  for (; ox + 32 <= ow; ox += 32) {
    const T *at = padded + 2 * ox;
    __m512i a = _mm512_loadu_si512(at), b = _mm512_loadu_si512(at + 1),
            c = _mm512_loadu_si512(at + 2);
    __m512i m = std::is_signed_v<T> ? _mm512_max_epi8(_mm512_max_epi8(a, b), c)
                                    : _mm512_max_epu8(_mm512_max_epu8(a, b), c);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + ox),
                        _mm512_cvtepi16_epi8(m)); // the words' low bytes
  }
  return ox;
}

template <typename T>
__attribute__((target("avx2"))) int64_t qmaxAcross32Avx2(const T *padded,
                                                         int64_t ow, T *out) {
  int64_t ox = 0;
  const __m256i low = _mm256_set1_epi16(0xff);
  for (; ox + 32 <= ow; ox += 32) {
    __m256i half[2];
    for (int h = 0; h < 2; ++h) {
      const auto *at =
          reinterpret_cast<const __m256i *>(padded + 2 * ox + 32 * h);
      const auto *at1 =
          reinterpret_cast<const __m256i *>(padded + 2 * ox + 32 * h + 1);
      const auto *at2 =
          reinterpret_cast<const __m256i *>(padded + 2 * ox + 32 * h + 2);
      __m256i a = _mm256_loadu_si256(at), b = _mm256_loadu_si256(at1),
              c = _mm256_loadu_si256(at2);
      __m256i m = std::is_signed_v<T>
                      ? _mm256_max_epi8(_mm256_max_epi8(a, b), c)
                      : _mm256_max_epu8(_mm256_max_epu8(a, b), c);
      half[h] = _mm256_and_si256(m, low);
    }
    // packus interleaves the halves' 128-bit lanes; the permute orders them.
    __m256i packed =
        _mm256_permute4x64_epi64(_mm256_packus_epi16(half[0], half[1]), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + ox), packed);
  }
  return ox;
}
#endif

/// Output rows [begin, end) of 8-bit max pooling, T the bytes' type, the
/// 3-wide stride-2 horizontal pass `across32` (returning the outputs it
/// did): rows (image, oy) channels last, each output pixel the channels'
/// maximum over its window's taps inside the input; rows (plane, oy)
/// NCHW, the window's rows reduced first into a row of column maxima
/// padded with the type's minimum, then across. The loops vectorize in
/// each instruction set's copy (qmaxRowsAvx512 ...): compiled for none,
/// the stem pooling of ResNet-18 took 0.69 ms NCHW and 0.88 channels
/// last, a tenth of the int8 network.
template <typename T, int64_t (*Across32)(const T *, int64_t, T *)>
MXRT_POOL_INLINE void qmaxRowsAny(const QMaxPoolJob &p, int64_t begin,
                                  int64_t end) {
  const auto *x = static_cast<const T *>(p.x);
  auto *y = static_cast<T *>(p.y);
  constexpr T lowest = std::numeric_limits<T>::lowest();
  // NCHW: the row of column maxima with room for a vector's overrun.
  int64_t span =
      p.nhwc ? 0 : std::max(p.pw + p.w, (p.ow - 1) * p.sw + p.kw) + 64;
  std::vector<T> padded(span, lowest);
  T *columns = p.nhwc ? nullptr : padded.data() + p.pw;
  for (int64_t row = begin; row < end; ++row) {
    int64_t outer = row / p.oh, oy = row % p.oh;
    int64_t y0 = std::max<int64_t>(oy * p.sh - p.ph, 0),
            y1 = std::min(oy * p.sh - p.ph + p.kh, p.h);
    if (!p.nhwc) {
      if (y0 < y1)
        std::copy_n(x + (outer * p.h + y0) * p.w, p.w, columns);
      else
        std::fill(columns, columns + p.w, lowest);
      for (int64_t iy = y0 + 1; iy < y1; ++iy)
        maxInto(columns, x + (outer * p.h + iy) * p.w, p.w);
      T *out = y + row * p.ow;
      if (p.sw == 2 && p.kw == 3)
        qmaxAcross32From(padded.data(), Across32(padded.data(), p.ow, out),
                         p.ow, out);
      else
        qmaxAcross(padded.data(), p.ow, p.sw, p.kw, out);
      continue;
    }
    for (int64_t ox = 0; ox < p.ow; ++ox) {
      int64_t x0 = std::max<int64_t>(ox * p.sw - p.pw, 0),
              x1 = std::min(ox * p.sw - p.pw + p.kw, p.w);
      T *out = y + (row * p.ow + ox) * p.c;
      std::fill(out, out + p.c, lowest);
      for (int64_t iy = y0; iy < y1; ++iy)
        for (int64_t ix = x0; ix < x1; ++ix)
          maxInto(out, x + ((outer * p.h + iy) * p.w + ix) * p.c, p.c);
    }
  }
}

template <typename T> int64_t qmaxAcross32None(const T *, int64_t, T *) {
  return 0;
}

using QMaxRowsFn = void (*)(const QMaxPoolJob &, int64_t, int64_t);

template <typename T>
void qmaxRowsPortable(const QMaxPoolJob &p, int64_t begin, int64_t end) {
  qmaxRowsAny<T, qmaxAcross32None<T>>(p, begin, end);
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
template <typename T>
__attribute__((target("avx512f,avx512bw,avx512vl,avx2"))) void
qmaxRowsAvx512(const QMaxPoolJob &p, int64_t begin, int64_t end) {
  qmaxRowsAny<T, qmaxAcross32Avx512<T>>(p, begin, end);
}

template <typename T>
__attribute__((target("avx2"))) void qmaxRowsAvx2(const QMaxPoolJob &p,
                                                  int64_t begin, int64_t end) {
  qmaxRowsAny<T, qmaxAcross32Avx2<T>>(p, begin, end);
}
#endif

/// Rows [begin, end) (a mxrt_parallel_for body) in the copy for the
/// kernels' instruction set.
template <typename T> void qmaxRows(void *arg, int64_t begin, int64_t end) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
  static const QMaxRowsFn chosen = forKernelIsa<QMaxRowsFn>(
      qmaxRowsPortable<T>, qmaxRowsAvx2<T>, qmaxRowsAvx512<T>);
#else
  static const QMaxRowsFn chosen = qmaxRowsPortable<T>;
#endif
  chosen(*static_cast<const QMaxPoolJob *>(arg), begin, end);
}

} // namespace

extern "C" void mxrt_kernel_qmaxpool2d(int64_t n, int64_t c, int64_t h,
                                       int64_t w, int64_t oh, int64_t ow,
                                       int64_t kh, int64_t kw, int64_t stride_h,
                                       int64_t stride_w, int64_t pad_h,
                                       int64_t pad_w, const uint8_t *x,
                                       uint8_t *y, int32_t flags) {
  if (n <= 0 || c <= 0 || oh <= 0 || ow <= 0)
    return;
  bool nhwc = flags & MXRT_KERNEL_NHWC;
  QMaxPoolJob job{c,        h,        w,     oh,    ow, kh, kw,
                  stride_h, stride_w, pad_h, pad_w, x,  y,  nhwc};
  // Rows: (image, oy) channels last, (plane, oy) NCHW.
  mxrt_parallel_for(flags & MXRT_KERNEL_SIGNED_A ? qmaxRows<int8_t>
                                                 : qmaxRows<uint8_t>,
                    &job, (nhwc ? n : n * c) * oh);
}
