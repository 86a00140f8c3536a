// SPDX-License-Identifier: Apache-2.0
//
// mxrt_kernel_spool2d: 2-D max / mean / sum pooling over strided planes.
// Generated loops over a padded copy of the input (the lowering before this
// kernel) filled 3.3 MB of -inf and copied ResNet-18's stem output into it
// before a scalar pass (NaN-propagating maxima of stride-2 loads): 5% of
// its time on one thread. Here each output row is combined in a row buffer
// one window tap at a time: the tap's valid output columns are a range
// computed once, so no padding is read or written, and the inner loop is a
// unit- or stride-2 walk that vectorizes. mxc calls it for windows that
// reach past the input; inside it, its generated loops, whose static trip
// counts vectorize without scalar remainders, were faster (LeNet).

#include "kernel_isa.h"
#include "mxrt/kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

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

/// Outputs o in [lo, hi) whose tap t reads inside [0, extent): o * stride -
/// pad + t in [0, extent).
void tapRange(int64_t extent, int64_t out, int64_t stride, int64_t pad,
              int64_t t, int64_t &lo, int64_t &hi) {
  lo = std::max<int64_t>(0, ceilDiv(pad - t, stride));
  hi = std::min<int64_t>(out, floorDiv(extent - 1 + pad - t, stride) + 1);
  hi = std::max(hi, lo);
}

/// acc[o] combined with src[o * Step * xw] for o < count; Step 0 means the
/// stride `step` known only at run time. NaN wins a maximum.
template <Combine C, int Step>
MXRT_POOL_INLINE void combineRow(float *acc, const float *src, int64_t count,
                                 int64_t step, int64_t xw) {
  int64_t s = (Step ? Step : step) * xw;
  for (int64_t o = 0; o < count; ++o) {
    float v = src[o * s];
    if constexpr (C == Combine::Max)
      acc[o] = (v > acc[o] || v != v) ? v : acc[o];
    else
      acc[o] += v;
  }
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

/// Planes [begin, end) of p combined by C, taps Step apart (0: p.sw);
/// acc: p.ow floats of scratch; columns: the divisor's extent of each
/// output column (averages only).
template <Combine C, int Step>
MXRT_POOL_INLINE void poolPlanesWith(const PoolJob &p, int64_t begin,
                                     int64_t end, float *acc,
                                     const float *columns) {
  bool avg = p.flags & MXRT_KERNEL_POOL_AVG;
  bool countPad = p.flags & MXRT_KERNEL_POOL_COUNT_PAD;
  bool accumulate = p.flags & MXRT_KERNEL_ACCUMULATE;
  bool relu = p.flags & MXRT_KERNEL_RELU;
  float neutral =
      C == Combine::Max ? -std::numeric_limits<float>::infinity() : 0.0f;
  for (int64_t plane = begin; plane < end; ++plane) {
    int64_t i = plane / p.c, j = plane % p.c;
    const float *x = p.x + i * p.xn + j * p.xc;
    float *y = p.y + i * p.yn + j * p.yc;
    for (int64_t oy = p.oy0; oy < p.oy1; ++oy) {
      std::fill(acc, acc + p.ow, neutral);
      int64_t kyLo, kyHi; // taps of this row inside the input
      kyLo = std::max<int64_t>(0, p.ph - oy * p.sh);
      kyHi = std::min<int64_t>(p.kh, p.h + p.ph - oy * p.sh);
      for (int64_t ky = kyLo; ky < kyHi; ++ky) {
        const float *row = x + (oy * p.sh - p.ph + ky) * p.xh;
        for (int64_t kx = 0; kx < p.kw; ++kx) {
          int64_t lo, hi;
          tapRange(p.w, p.ow, p.sw, p.pw, kx, lo, hi);
          combineRow<C, Step>(acc + lo, row + (lo * p.sw - p.pw + kx) * p.xw,
                              hi - lo, p.sw, p.xw);
        }
      }
      float rows = avg ? static_cast<float>(
                             windowCount(oy, p.sh, p.ph, p.kh, p.h, countPad))
                       : 1.0f;
      float *out = y + oy * p.yh;
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        float v = avg ? acc[ox] / (rows * columns[ox]) : acc[ox];
        if (accumulate)
          v += out[ox * p.yw];
        out[ox * p.yw] = relu ? std::max(v, 0.0f) : v;
      }
    }
  }
}

/// Planes [begin, end) of `p` (plane i * c + j is image i's channel j),
/// acc and columns as poolPlanesWith's.
MXRT_POOL_INLINE void poolPlanesAny(const PoolJob &p, int64_t begin,
                                    int64_t end, float *acc,
                                    const float *columns) {
  bool max = !(p.flags & (MXRT_KERNEL_POOL_AVG | MXRT_KERNEL_POOL_SUM));
  bool unit = p.xw == 1;
  if (max && unit && p.sw == 1)
    poolPlanesWith<Combine::Max, 1>(p, begin, end, acc, columns);
  else if (max && unit && p.sw == 2)
    poolPlanesWith<Combine::Max, 2>(p, begin, end, acc, columns);
  else if (max)
    poolPlanesWith<Combine::Max, 0>(p, begin, end, acc, columns);
  else if (unit && p.sw == 1)
    poolPlanesWith<Combine::Sum, 1>(p, begin, end, acc, columns);
  else if (unit && p.sw == 2)
    poolPlanesWith<Combine::Sum, 2>(p, begin, end, acc, columns);
  else
    poolPlanesWith<Combine::Sum, 0>(p, begin, end, acc, columns);
}

// poolPlanesAny compiled for each instruction set the GEMM has (the loops
// are inlined, so each copy is vectorized for its own).
using PoolPlanesFn = void (*)(const PoolJob &, int64_t, int64_t, float *,
                              const float *);

void poolPlanesPortable(const PoolJob &p, int64_t begin, int64_t end,
                        float *acc, const float *columns) {
  poolPlanesAny(p, begin, end, acc, columns);
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx512f,avx512vl,avx2,fma"))) void
poolPlanesAvx512(const PoolJob &p, int64_t begin, int64_t end, float *acc,
                 const float *columns) {
  poolPlanesAny(p, begin, end, acc, columns);
}

__attribute__((target("avx2,fma"))) void poolPlanesAvx2(const PoolJob &p,
                                                        int64_t begin,
                                                        int64_t end, float *acc,
                                                        const float *columns) {
  poolPlanesAny(p, begin, end, acc, columns);
}
#endif

/// Of a function's portable, AVX2 and AVX-512 copies (nullptr: not
/// compiled), the one for the kernels' instruction set (mxrt::kernelIsa).
template <typename Fn> Fn forKernelIsa(Fn portable, Fn avx2, Fn avx512) {
  std::string isa = mxrt::kernelIsa();
  if (isa == "avx512" && avx512)
    return avx512;
  if (isa == "avx2" && avx2)
    return avx2;
  return portable;
}

// NAME##Portable, NAME##Avx2 and NAME##Avx512 for forKernelIsa.
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define MXRT_ISA_COPIES(name) name##Portable, name##Avx2, name##Avx512
#else
#define MXRT_ISA_COPIES(name) name##Portable, nullptr, nullptr
#endif

/// The copy for the kernels' instruction set.
PoolPlanesFn poolPlanes() {
  static const PoolPlanesFn chosen =
      forKernelIsa<PoolPlanesFn>(MXRT_ISA_COPIES(poolPlanes));
  return chosen;
}

/// A piece of planes [begin, end) with its own row buffer.
void poolChunk(const PoolJob &p, const std::vector<float> &columns,
               int64_t begin, int64_t end) {
  std::vector<float> acc(p.ow);
  poolPlanes()(p, begin, end, acc.data(), columns.data());
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

/// dx[i] += g[i] where x[i] == y[i], for i < count (one tap of a row of
/// max windows; nothing aliases, so it vectorizes).
inline __attribute__((always_inline)) void
addTapMax(float *__restrict dx, const float *__restrict x,
          const float *__restrict y, const float *__restrict g, int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    dx[i] += x[i] == y[i] ? g[i] : 0.0f;
}

/// dx[i] += g[i] for i < count (a tap of a row of avg or sum windows).
inline __attribute__((always_inline)) void
addTap(float *__restrict dx, const float *__restrict g, int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    dx[i] += g[i];
}

/// The gradient of stride-1 average or sum pooling, a box filter over dy
/// (each output's gradient scaled by 1 / its divisor, which factors into a
/// row's and a column's extent): per input row, the dy rows whose windows
/// reach it summed (kh loads an element), then kw shifted reads of that
/// sum, zero-padded so that every loop is branch-free. Inception-BN's 3x3
/// / 1 average pools (batch 32, 256 channels at 28x28, one thread): the
/// tap-by-tap loops below took 39.7 ms, with a division per output.
inline __attribute__((always_inline)) void boxGradPlanes(const PoolGradJob &p,
                                                         int64_t begin,
                                                         int64_t end, bool avg,
                                                         bool countPad) {
  std::vector<float> rowScale(p.oh, 1.0f), colScale(p.ow, 1.0f);
  if (avg) {
    for (int64_t oy = 0; oy < p.oh; ++oy)
      rowScale[oy] =
          1.0f / float(windowCount(oy, 1, p.ph, p.kh, p.h, countPad));
    for (int64_t ox = 0; ox < p.ow; ++ox)
      colScale[ox] =
          1.0f / float(windowCount(ox, 1, p.pw, p.kw, p.w, countPad));
  }
  // sums[kw - 1 + ox]: column ox's sum; zeros around it, wide enough for
  // every input column's taps (ox = ix + pw - kx).
  int64_t lead = p.kw - 1;
  std::vector<float> sums(lead + std::max(p.ow, p.w + p.pw) + 1, 0.0f);
  float *sum = sums.data() + lead;
  bool accumulate = p.flags & MXRT_KERNEL_ACCUMULATE;
  for (int64_t plane = begin; plane < end; ++plane) {
    const float *dy = p.dy + plane * p.oh * p.ow;
    float *dx = p.dx + plane * p.h * p.w;
    for (int64_t iy = 0; iy < p.h; ++iy) {
      // Output rows oy whose window rows reach iy: oy + ky - ph = iy.
      int64_t lo = std::max<int64_t>(0, iy + p.ph - p.kh + 1),
              hi = std::min(p.oh - 1, iy + p.ph);
      std::fill(sum, sum + p.ow, 0.0f);
      for (int64_t oy = lo; oy <= hi; ++oy) {
        const float *g = dy + oy * p.ow;
        float r = rowScale[oy];
        for (int64_t ox = 0; ox < p.ow; ++ox)
          sum[ox] += g[ox] * r;
      }
      for (int64_t ox = 0; ox < p.ow; ++ox)
        sum[ox] *= colScale[ox];
      // dx[ix] (+)= sum over kx of sum[ix + pw - kx], one shifted pass a
      // tap (each a plain vector loop).
      float *out = dx + iy * p.w;
      const float *at = sum + p.pw;
      if (!accumulate)
        std::copy(at, at + p.w, out);
      for (int64_t kx = accumulate ? 0 : 1; kx < p.kw; ++kx)
        addTap(out, at - kx, p.w);
    }
  }
}

/// Planes [begin, end) of the pooling gradient: every output's gradient
/// to its window's taps inside the input (max: those equal to the output;
/// avg: divided by the forward's divisor).
inline __attribute__((always_inline)) void
poolGradPlanesAny(const PoolGradJob &p, int64_t begin, int64_t end) {
  bool max = !(p.flags & (MXRT_KERNEL_POOL_AVG | MXRT_KERNEL_POOL_SUM));
  bool avg = p.flags & MXRT_KERNEL_POOL_AVG;
  bool countPad = p.flags & MXRT_KERNEL_POOL_COUNT_PAD;
  // Windows that tile the input without overlap or padding (LeNet's 2x2
  // / 2): each input element gets one window's gradient or none, so it is
  // written, not added.
  bool tiles = p.sh == p.kh && p.sw == p.kw && p.ph == 0 && p.pw == 0 &&
               !(p.flags & MXRT_KERNEL_ACCUMULATE) && !avg;
  if (!max && p.sh == 1 && p.sw == 1)
    return boxGradPlanes(p, begin, end, avg, countPad);
  // Phases of an input row: sw of q columns (one spare for the padding).
  int64_t q = (p.w + p.sw - 1) / p.sw + 1;
  std::vector<float> scaled(avg ? p.oh * p.ow : 0), dPhases(p.sw * q),
      xPhases(max ? p.sw * q : 0);
  for (int64_t plane = begin; plane < end; ++plane) {
    const float *x = p.x + plane * p.h * p.w, *y = p.y + plane * p.oh * p.ow,
                *dy = p.dy + plane * p.oh * p.ow;
    float *dx = p.dx + plane * p.h * p.w;
    if (tiles) {
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
      continue;
    }
    // Input row by input row, tap by tap: the windows whose row ky lies on
    // input row iy (oy = (iy + ph - ky) / sh) reach its columns ox sw - pw
    // + kx for tap kx, one phase of the row (columns = r mod sw) and
    // consecutive in it; so each tap is a branch-free loop over outputs
    // that vectorizes, into the row's phases, interleaved back at the end
    // (Inception-BN's 3x3 pools, strides 1 and 2: the window-by-window loop
    // took 14% of its one-thread step).
    const float *g0 = dy;
    if (avg) { // each output's gradient over its window's divisor
      for (int64_t oy = 0; oy < p.oh; ++oy) {
        float rows = static_cast<float>(
            windowCount(oy, p.sh, p.ph, p.kh, p.h, countPad));
        for (int64_t ox = 0; ox < p.ow; ++ox)
          scaled[oy * p.ow + ox] =
              dy[oy * p.ow + ox] /
              (rows * static_cast<float>(
                          windowCount(ox, p.sw, p.pw, p.kw, p.w, countPad)));
      }
      g0 = scaled.data();
    }
    bool accumulate = p.flags & MXRT_KERNEL_ACCUMULATE;
    for (int64_t iy = 0; iy < p.h; ++iy) {
      const float *xr = x + iy * p.w;
      float *dxr = dx + iy * p.w;
      // At stride 1 the row is its one phase.
      bool unit = p.sw == 1;
      float *dRow = unit ? dxr : dPhases.data();
      const float *xRow = unit ? xr : xPhases.data();
      if (!unit || !accumulate)
        std::fill(dRow, dRow + (unit ? p.w : p.sw * q), 0.0f);
      if (max && !unit)
        for (int64_t r = 0; r < p.sw; ++r)
          for (int64_t j = 0; j * p.sw + r < p.w; ++j)
            xPhases[r * q + j] = xr[j * p.sw + r];
      for (int64_t ky = 0; ky < p.kh; ++ky) {
        int64_t t = iy + p.ph - ky;
        if (t < 0 || t % p.sh != 0 || t / p.sh >= p.oh)
          continue;
        int64_t oy = t / p.sh;
        const float *yr = y + oy * p.ow, *g = g0 + oy * p.ow;
        for (int64_t kx = 0; kx < p.kw; ++kx) {
          // ix = ox sw + off inside [0, w): phase r, index ox + base.
          int64_t off = kx - p.pw;
          int64_t ox0 = off >= 0 ? 0 : (-off + p.sw - 1) / p.sw;
          int64_t ox1 =
              off >= p.w ? 0 : std::min(p.ow, (p.w - 1 - off) / p.sw + 1);
          if (ox0 >= ox1)
            continue;
          int64_t r = (off % p.sw + p.sw) % p.sw, base = (off - r) / p.sw;
          int64_t at = r * q + base + ox0;
          if (max)
            addTapMax(dRow + at, xRow + at, yr + ox0, g + ox0, ox1 - ox0);
          else
            addTap(dRow + at, g + ox0, ox1 - ox0);
        }
      }
      if (unit)
        continue;
      for (int64_t r = 0; r < p.sw; ++r)
        for (int64_t j = 0; j * p.sw + r < p.w; ++j) {
          float v = dPhases[r * q + j];
          float &out = dxr[j * p.sw + r];
          out = accumulate ? out + v : v;
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
