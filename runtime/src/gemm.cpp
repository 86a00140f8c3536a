// SPDX-License-Identifier: Apache-2.0
//
// mxrt_kernel_sgemm and mxrt_kernel_sconv2d: a packed, register-blocked
// float32 GEMM (gemm_impl.inc) built for AVX-512, AVX2 + FMA and plain C++,
// picked at run time by what the CPU supports; convolutions are GEMMs whose
// B operand is the im2col matrix of the input, packed straight from the
// image (no im2col buffer). Work is split over the calling instance's
// thread pool. Why a runtime kernel rather than generated code:
// docs/kernels.md (figures in docs/performance.md).

#include "kernel_isa.h"
#include "mxrt/kernels.h"
#include "threadpool.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace mxrt {
namespace {

/// The input of a convolution seen as the k x n im2col matrix of one image
/// and one group: row (channel, kernel row, kernel column), column (output
/// row, output column).
struct ConvSource {
  const float *x;
  int64_t h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw;
  /// A direct convolution (see directGridWidth) has a gridWidth: B's
  /// columns are the positions of a grid gridWidth wide and oh high, of
  /// which the first ow of each grid row are outputs. solve() then lays the
  /// input out in stride phases (fillPhases) and points x there, and row p
  /// of B is read from offsets[p] on (channel, kernel row and column: phase
  /// and shift), so the micro-kernel loads it in place: nothing is packed.
  const int64_t *offsets;
  int64_t gridWidth;
  /// A direct convolution of a small image may instead put the filters in
  /// the vector lanes and R output pixels in the micro-tile's rows
  /// (gemmPixels; A packed by packFilterLanes): pixelRows = R, else 0.
  int64_t pixelRows;
};

/// One GEMM: C (m x n) = epilogue(A (m x k) B (k x n) + bias), strides in
/// elements.
struct Problem {
  int64_t m, n, k;
  const float *a;
  int64_t aRs, aCs;
  const float *b;
  int64_t bRs, bCs;
  /// Set for convolutions: B is conv's im2col matrix from column
  /// convColumn on.
  bool isConv;
  ConvSource conv;
  int64_t convColumn;
  float *c;
  int64_t cRs, cCs;
  const float *bias;
  int64_t biasRs, biasCs;
  int32_t flags;
  /// A packed whole by packAll (rows rounded up to packedARows), or NULL to
  /// pack block by block; this problem's row 0 is packed row packedARow0.
  const float *packedA;
  int64_t packedARows, packedARow0;
};

/// The geometry of one image's Winograd convolution (winograd_impl.inc).
struct WinogradShape {
  int64_t c, f, h, w, oh, ow, ph, pw;
  /// The tile size (outputs per tile side: F(m x m, 3 x 3), 2 or 4).
  int64_t m;
  /// Tiles per output row and column; grid width wq = tw + 1 (the phase
  /// planes' width: tile tx reads phase columns tx and tx + 1) and height
  /// th + 1 phase rows.
  int64_t th, tw, wq;
};

/// One thread's share of one image: grid columns [g0, g1) (tiles
/// g / wq, g % wq) for filters [f0, f1) (f0 a multiple of kMR).
struct WinogradPiece {
  const WinogradShape *shape;
  const float *x;       // the image, c x h x w
  const float *filters; // winogradFilters of the weight
  const float *bias;    // f, or NULL
  float *y;             // f x oh x ow
  int32_t flags;
  int64_t g0, g1, f0, f1;
};

/// A convolution with x (n, h, w, c) and y (n, oh, ow, f)
/// (MXRT_KERNEL_NHWC): conv_nhwc_impl.inc.
struct NhwcConv {
  int64_t n, c, h, w, f, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw, groups;
  const float *x;
  const float *filters; // packed by packNhwcFilters
  const float *bias;
  float *y;
  int32_t flags;
};

/// An NHWC convolution computed by Winograd F(m x m, 3 x 3)
/// (winograd_nhwc_impl.inc): th x tw tiles of m x m outputs per image.
struct NhwcWinograd {
  const NhwcConv *cv;
  const float *filters; // nhwcWinogradFilters of the weight
  int64_t m, th, tw;
};

/// A convolution by Winograd F(2x2, 3x3) for small images, NCHW
/// (winograd_small_impl.inc): th x tw tiles per image, at most 16.
struct SmallWinograd {
  int64_t n, c, h, w, f, oh, ow, ph, pw, th, tw;
  const float *x;
  const float *filters; // packed by packSmallWinograd
  const float *bias;
  float *y;
  int32_t flags;
};

/// Problems with at most this many rows skip packing.
constexpr int64_t kFewRows = 4;

/// The calling thread's scratch buffers: the GEMM's packed blocks of A and
/// B, A packed whole for a batch (packedAFor), a direct or Winograd
/// convolution's laid-out input (solve, winogradImage), a Winograd
/// convolution's transformed input and products (winogradSolve).
enum class Scratch {
  PackedA,
  PackedB,
  SharedA,
  DirectInput,
  WinogradInput,
  WinogradProducts,
  PixelTile,
  SmallFilters,
  Count
};

/// Scratch buffer `which` of this thread, 64-byte aligned, at least
/// `floats` long: it grows (new memory zeroed, old contents dropped) and
/// stays with the thread.
float *threadBuffer(Scratch which, int64_t floats) {
  constexpr int kCount = static_cast<int>(Scratch::Count);
  thread_local std::unique_ptr<float, void (*)(void *)> buffers[kCount] = {
      {nullptr, std::free}, {nullptr, std::free}, {nullptr, std::free},
      {nullptr, std::free}, {nullptr, std::free}, {nullptr, std::free},
      {nullptr, std::free}, {nullptr, std::free}};
  thread_local int64_t sizes[kCount] = {};
  int slot = static_cast<int>(which);
  if (sizes[slot] < floats) {
    size_t bytes = (floats * sizeof(float) + 63) / 64 * 64;
    void *memory = std::aligned_alloc(64, bytes);
    if (!memory)
      std::abort(); // no error path from generated code; cannot continue
    std::memset(memory, 0, bytes);
    buffers[slot].reset(static_cast<float *>(memory));
    sizes[slot] = floats;
  }
  return buffers[slot].get();
}

/// Whether pr reads A and B in place (gemmFewRows: a matrix-vector product,
/// as FullyConnected at batch 1) rather than packing them. The one place
/// that decides it: the GEMM, the packed-A cache and sgemm's orientation
/// all ask here.
inline bool readsInPlace(const Problem &pr) {
  return !pr.isConv && pr.m <= kFewRows && pr.k > 0;
}

/// c[j] = act(t[j] + (bias ? bias[j] : rowBias) + (keepC ? c[j] : 0)).
inline void applyRow(const float *__restrict t, const float *__restrict bias,
                     float rowBias, float *__restrict c, int64_t cols,
                     bool keepC, bool relu) {
  float lo = relu ? 0.0f : -__builtin_inff();
  if (bias && keepC)
    for (int64_t j = 0; j < cols; ++j)
      c[j] = std::max(t[j] + bias[j] + c[j], lo);
  else if (bias)
    for (int64_t j = 0; j < cols; ++j)
      c[j] = std::max(t[j] + bias[j], lo);
  else if (keepC)
    for (int64_t j = 0; j < cols; ++j)
      c[j] = std::max(t[j] + rowBias + c[j], lo);
  else
    for (int64_t j = 0; j < cols; ++j)
      c[j] = std::max(t[j] + rowBias, lo);
}

/// Writes rows [i0, i0 + rows) x columns [j0, j0 + cols) of C from `tile`
/// (row stride `ld`), the partial sum over one slice of k: the first slice
/// adds the bias (and C's old value when accumulating), later ones add C;
/// the last applies the activation.
inline void applyEpilogue(const Problem &pr, const float *tile, int64_t ld,
                          int64_t i0, int64_t rows, int64_t j0, int64_t cols,
                          bool first, bool last) {
  bool keepC = !first || (pr.flags & MXRT_KERNEL_ACCUMULATE);
  bool relu = last && (pr.flags & MXRT_KERNEL_RELU);
  for (int64_t r = 0; r < rows; ++r) {
    const float *t = tile + r * ld;
    float *c = pr.c + (i0 + r) * pr.cRs + j0 * pr.cCs;
    const float *bias = first && pr.bias
                            ? pr.bias + (i0 + r) * pr.biasRs + j0 * pr.biasCs
                            : nullptr;
    if (pr.cCs == 1 && (!bias || pr.biasCs <= 1)) {
      // The common layouts, in branch-free loops the compiler vectorizes.
      if (bias && pr.biasCs == 1)
        applyRow(t, bias, 0.0f, c, cols, keepC, relu);
      else
        applyRow(t, nullptr, bias ? *bias : 0.0f, c, cols, keepC, relu);
      continue;
    }
    for (int64_t j = 0; j < cols; ++j) {
      float v = t[j];
      if (bias)
        v += bias[j * pr.biasCs];
      if (keepC)
        v += c[j * pr.cCs];
      c[j * pr.cCs] = relu ? std::max(v, 0.0f) : v;
    }
  }
}

#if defined(__x86_64__)

#if defined(__clang__)
#pragma clang attribute push(                                                  \
    __attribute__((target("avx512f,avx512vl,avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx2,fma")
#endif
namespace avx512 {
struct Isa {
  using V = __m512;
  static constexpr int VL = 16, NV = 2, MR = 12;
  static V load(const float *p) { return _mm512_loadu_ps(p); }
  static void store(float *p, V v) { _mm512_storeu_ps(p, v); }
  static V broadcast(float x) { return _mm512_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V zero() { return _mm512_setzero_ps(); }
  static float sum(V v) { return _mm512_reduce_add_ps(v); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  /// Every other lane of a, then of b, from lane `first`: evens (first 0)
  /// a0 a2 ... a14 b0 b2 ... b14, odds (first 1) a1 a3 ... b15.
  static V everyOther(V a, V b, int first) {
    __m512i lanes = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22,
                                      24, 26, 28, 30);
    return _mm512_permutex2var_ps(
        a, _mm512_add_epi32(lanes, _mm512_set1_epi32(first)), b);
  }
  static V evens(V a, V b) { return everyOther(a, b, 0); }
  static V odds(V a, V b) { return everyOther(a, b, 1); }
  /// lo = a0 b0 a1 b1 ... a7 b7, hi = a8 b8 ... a15 b15.
  static void interleave(V a, V b, V &lo, V &hi) {
    lo = _mm512_permutex2var_ps(a,
                                _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4,
                                                  20, 5, 21, 6, 22, 7, 23),
                                b);
    hi = _mm512_permutex2var_ps(a,
                                _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27,
                                                  12, 28, 13, 29, 14, 30, 15,
                                                  31),
                                b);
  }
  /// max(v, 0), NaN staying NaN (maxps returns its second operand then).
  static V relu(V v) { return _mm512_max_ps(_mm512_setzero_ps(), v); }
  /// Lanes [lo, hi) of p[0..16) (the others are neither read nor written).
  static __mmask16 lanes(int lo, int hi) {
    return static_cast<__mmask16>(((1u << hi) - 1) & ~((1u << lo) - 1));
  }
  using Mask = __mmask16;
  static V maskLoad(const float *p, Mask m) {
    return _mm512_maskz_loadu_ps(m, p);
  }
  static void maskStore(float *p, Mask m, V v) {
    _mm512_mask_storeu_ps(p, m, v);
  }
};
// Each file uses the ones before it.
// clang-format off
#include "gemm_impl.inc"
#include "winograd_impl.inc"
#include "conv_nhwc_impl.inc"
#include "winograd_nhwc_impl.inc"
#include "winograd_small_impl.inc"
// clang-format on
} // namespace avx512
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))),              \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
namespace avx2 {
struct Isa {
  using V = __m256;
  static constexpr int VL = 8, NV = 2, MR = 6;
  static V load(const float *p) { return _mm256_loadu_ps(p); }
  static void store(float *p, V v) { _mm256_storeu_ps(p, v); }
  static V broadcast(float x) { return _mm256_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V zero() { return _mm256_setzero_ps(); }
  static float sum(V v) {
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, v);
    return ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) +
           ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
  }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  /// a0 a2 a4 a6 b0 b2 b4 b6.
  static V evens(V a, V b) {
    V pairs = _mm256_shuffle_ps(a, b, 0x88); // a0 a2 b0 b2 a4 a6 b4 b6
    return _mm256_castpd_ps(
        _mm256_permute4x64_pd(_mm256_castps_pd(pairs), 0xd8));
  }
  /// a1 a3 a5 a7 b1 b3 b5 b7.
  static V odds(V a, V b) {
    V pairs = _mm256_shuffle_ps(a, b, 0xdd); // a1 a3 b1 b3 a5 a7 b5 b7
    return _mm256_castpd_ps(
        _mm256_permute4x64_pd(_mm256_castps_pd(pairs), 0xd8));
  }
  /// lo = a0 b0 a1 b1 a2 b2 a3 b3, hi = a4 b4 ... a7 b7.
  static void interleave(V a, V b, V &lo, V &hi) {
    V low = _mm256_unpacklo_ps(a, b), high = _mm256_unpackhi_ps(a, b);
    lo = _mm256_permute2f128_ps(low, high, 0x20);
    hi = _mm256_permute2f128_ps(low, high, 0x31);
  }
  static V relu(V v) { return _mm256_max_ps(_mm256_setzero_ps(), v); }
  /// Lanes [lo, hi) of p[0..8) (the others are neither read nor written).
  static __m256i lanes(int lo, int hi) {
    __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_and_si256(
        _mm256_cmpgt_epi32(index, _mm256_set1_epi32(lo - 1)),
        _mm256_cmpgt_epi32(_mm256_set1_epi32(hi), index));
  }
  using Mask = __m256i;
  static V maskLoad(const float *p, Mask m) { return _mm256_maskload_ps(p, m); }
  static void maskStore(float *p, Mask m, V v) { _mm256_maskstore_ps(p, m, v); }
};
// Each file uses the ones before it.
// clang-format off
#include "gemm_impl.inc"
#include "winograd_impl.inc"
#include "conv_nhwc_impl.inc"
#include "winograd_nhwc_impl.inc"
#include "winograd_small_impl.inc"
// clang-format on
} // namespace avx2
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif // __x86_64__

namespace portable {
struct Isa {
  using V = float;
  static constexpr int VL = 1, NV = 8, MR = 4;
  static V load(const float *p) { return *p; }
  static void store(float *p, V v) { *p = v; }
  static V broadcast(float x) { return x; }
  static V fma(V a, V b, V c) { return a * b + c; }
  static V zero() { return 0.0f; }
  static float sum(V v) { return v; }
  static V add(V a, V b) { return a + b; }
  static V sub(V a, V b) { return a - b; }
  static V mul(V a, V b) { return a * b; }
  static V evens(V a, V) { return a; }
  static V odds(V, V b) { return b; }
  static void interleave(V a, V b, V &lo, V &hi) { lo = a, hi = b; }
  static V relu(V v) { return v < 0.0f ? 0.0f : v; }
  /// Whether the one lane is in [lo, hi).
  using Mask = bool;
  static Mask lanes(int lo, int hi) { return lo < hi; }
  static V maskLoad(const float *p, Mask m) { return m ? *p : 0.0f; }
  static void maskStore(float *p, Mask m, V v) {
    if (m)
      *p = v;
  }
};
// Each file uses the ones before it.
// clang-format off
#include "gemm_impl.inc"
#include "winograd_impl.inc"
#include "conv_nhwc_impl.inc"
#include "winograd_nhwc_impl.inc"
#include "winograd_small_impl.inc"
// clang-format on
} // namespace portable

using GemmFn = void (*)(const Problem &);
using PackAllFn = void (*)(const Problem &, float *);
using PackedSizeFn = int64_t (*)(int64_t, int64_t);

using FillPhasesFn = void (*)(const ConvSource &, int64_t, int64_t, int64_t,
                              int64_t, const std::vector<bool> &, float *);
using WinogradSolveFn = void (*)(const WinogradPiece &, float *, int64_t);
using WinogradFiltersFn = void (*)(const float *, int64_t, int64_t, int64_t,
                                   float *);
using WinogradFilterSizeFn = int64_t (*)(int64_t, int64_t, int64_t);
using NhwcRowsFn = void (*)(const NhwcConv &, int64_t, int64_t);
using NhwcFilterSizeFn = int64_t (*)(int64_t, int64_t, int64_t, int64_t);
using NhwcPackFn = void (*)(const float *, int64_t, int64_t, int64_t, int64_t,
                            float *);
using NhwcWinogradFn = void (*)(const NhwcWinograd &, int64_t, int64_t);
using SmallWinogradFn = void (*)(const SmallWinograd &, int64_t, int64_t);

struct Target {
  GemmFn gemm;
  PackAllFn packAll;
  PackedSizeFn packedASize;
  int64_t mr, nr;
  FillPhasesFn fillPhases;
  WinogradSolveFn winogradSolve;
  WinogradFiltersFn winogradFilters;
  WinogradFilterSizeFn winogradFilterSize;
  PackAllFn packFilterLanes;
  PackedSizeFn filterLanesSize;
  /// Filters per panel of a pixel-rows convolution; 0: not available.
  int64_t laneFilters;
  NhwcRowsFn nhwcConvRows;
  NhwcFilterSizeFn nhwcFilterSize;
  NhwcPackFn packNhwcFilters;
  NhwcWinogradFn nhwcWinogradTiles;
  WinogradFiltersFn nhwcWinogradFilters;
  WinogradFilterSizeFn nhwcWinogradFilterSize;
  /// Filters per block of smallWinogradBlocks; 0: not available.
  int64_t smallWinogradFilters;
  SmallWinogradFn smallWinogradBlocks;
  NhwcFilterSizeFn smallWinogradFilterSize;
  NhwcPackFn packSmallWinograd;
  /// The namespace's name: avx512, avx2 or portable.
  const char *isa;
};

#define MXRT_TARGET(ns)                                                        \
  Target {                                                                     \
    ns::gemm, ns::packAll, ns::packedASize, ns::kMR, ns::kNR, ns::fillPhases,  \
        ns::winogradSolve, ns::winogradFilters, ns::winogradFilterSize,        \
        ns::packFilterLanes, ns::filterLanesSize, ns::kLaneFilters,            \
        ns::nhwcConvRows, ns::nhwcFilterSize, ns::packNhwcFilters,             \
        ns::nhwcWinogradTiles, ns::nhwcWinogradFilters,                        \
        ns::nhwcWinogradFilterSize,                                            \
        ns::kSmallWinograd ? ns::kSmallFilters : 0, ns::smallWinogradBlocks<>, \
        ns::smallWinogradFilterSize, ns::packSmallWinograd, #ns                \
  }

/// The best GEMM this CPU runs; MXRT_KERNEL_ISA=avx512|avx2|portable forces
/// one (for tests and measurements).
const Target &target() {
  static const Target chosen = [] {
    const char *forced = std::getenv("MXRT_KERNEL_ISA");
    std::string want = forced ? forced : "";
#if defined(__x86_64__)
    __builtin_cpu_init();
    bool hasAvx512 =
        __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
    bool hasAvx2 =
        __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (hasAvx512 && (want.empty() || want == "avx512"))
      return MXRT_TARGET(avx512);
    if (hasAvx2 && (want.empty() || want == "avx2" || want == "avx512"))
      return MXRT_TARGET(avx2);
#endif
    return MXRT_TARGET(portable);
  }();
  return chosen;
}

/// MXRT_KERNEL_CONV picks convolution methods, for measurements and tests:
/// im2col (neither direct nor Winograd), grid (direct with the grid in the
/// lanes only), direct (direct, with pixel rows for small images: no
/// Winograd), pixels (direct with pixel rows wherever they apply, no
/// Winograd), winograd (Winograd wherever it applies, even where it is not
/// expected to be faster, with the tile size of fewer GEMM columns),
/// winograd2 / winograd4 (that tile size). Unset: each where it is
/// expected to be fastest.
const std::string &convMethod() {
  static const std::string method = [] {
    const char *v = std::getenv("MXRT_KERNEL_CONV");
    return std::string(v ? v : "");
  }();
  return method;
}

bool directAllowed() { return convMethod() != "im2col"; }

/// The grid width for computing a convolution directly (ConvSource::
/// offsets) rather than by packing its im2col matrix, or 0 for im2col. The
/// grid is a phase plane's width (the padded width over the stride) by oh;
/// its columns past ow are computed and dropped, so direct is taken when
/// those are few (at most half as many again as ow). Direct copies the
/// input once; packing reads it about kh * kw times, so a strided 1x1
/// (a strided gather either way) stays with im2col, whose panels the
/// micro-kernel streams better (ResNet-18's 1x1/2: 120 against 90 GFLOP/s,
/// bench/conv_layers.c).
int64_t directGridWidth(int64_t h, int64_t w, int64_t oh, int64_t ow,
                        int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                        int64_t ph, int64_t pw, int64_t dh, int64_t dw) {
  int64_t hp = h + 2 * ph, wp = w + 2 * pw, wq = (wp + sw - 1) / sw;
  // Every output's window must lie in the padded image (it does when oh
  // and ow follow from the other extents; im2col copes either way).
  if (!directAllowed() || 2 * wq > 3 * ow ||
      (kh * kw == 1 && (sh > 1 || sw > 1)) ||
      (oh - 1) * sh + (kh - 1) * dh >= hp ||
      (ow - 1) * sw + (kw - 1) * dw >= wp)
    return 0;
  return wq;
}

/// Rows (output pixels) per micro-tile when a direct convolution of
/// `pixels` outputs with `filters` filters (per group) puts the filters in
/// the lanes and pixels in the rows (gemmPixels), or 0 to keep the grid in
/// the lanes. Per step the micro-kernel then loads 4 aligned vectors of
/// prepacked filters and broadcasts 7 pixels for 28 multiply-adds, where
/// the grid's loads 2 unaligned image vectors and broadcasts 12 filters
/// for 24; and a small image fills its rows, where its grid fills the
/// lanes badly (ResNet-18's 7x7 stage: 49 outputs in a 63-column grid, 77%
/// of the lanes). Measured (bench/conv_layers.c, ms, grid -> pixel rows):
/// ResNet-18's 7x7 3x3 1.46-1.85 -> 1.20, its stride-2 3x3s 0.87 -> 0.70,
/// 0.76 -> 0.66, 0.84 -> 0.64; but the stem (12544 pixels, 64 filters)
/// 1.55 -> 1.79: the epilogue transposes the tile buffer into C element by
/// element. So: at least 64 filters (a panel) and at most 1024 pixels; 7
/// or 6 pixels per tile, whichever leaves fewer rows over (49 = 7 x 7, 64
/// = 6 x 11 - 2). Needs AVX-512 (R x 4 accumulators) and constant filters
/// (packed transposed once). MXRT_KERNEL_CONV=pixels takes it wherever it
/// can, grid never.
int64_t pixelRowsFor(int64_t pixels, int64_t filters, int64_t groups,
                     int32_t flags) {
  const std::string &forced = convMethod();
  if (!target().laneFilters || !(flags & MXRT_KERNEL_CONST_A) ||
      forced == "grid" || forced == "im2col")
    return 0;
  auto rowsOver = [pixels](int64_t r) {
    return (pixels + r - 1) / r * r - pixels;
  };
  int64_t rows = rowsOver(7) <= rowsOver(6) ? 7 : 6;
  if (forced == "pixels")
    return rows;
  return groups == 1 && filters >= target().laneFilters && pixels <= 1024 ? rows
                                                                          : 0;
}

/// Solves one problem (or piece of one) on this thread. A direct
/// convolution first lays out the input rows its grid columns read in
/// this thread's buffer: each thread copies what it reads, so that no
/// thread waits for another's copy or pulls it across from another core
/// (one shared copy made the kernels slower on two threads than on one).
void solve(const Problem &pr) {
  const ConvSource &cv = pr.conv;
  if (!pr.isConv || !cv.gridWidth) {
    target().gemm(pr);
    return;
  }
  int64_t sh = cv.sh, sw = cv.sw, wq = cv.gridWidth;
  int64_t hq = (cv.h + 2 * cv.ph + sh - 1) / sh, plane = hq * wq;
  int64_t taps = cv.kh * cv.kw, channels = pr.k / taps;
  int64_t channel = sh * sw * plane;
  thread_local std::vector<bool> used;
  thread_local std::vector<int64_t> offsets;
  used.assign(sh * sw, false);
  // The taps' offsets within a channel (the divisions once per tap, not
  // once per row of B: they were a tenth of a small layer's time), then
  // channel by channel.
  offsets.resize(pr.k);
  for (int64_t r = 0, p = 0; r < cv.kh; ++r)
    for (int64_t s = 0; s < cv.kw; ++s) {
      int64_t y = r * cv.dh, x = s * cv.dw;
      used[y % sh * sw + x % sw] = true;
      offsets[p++] = (y % sh * sw + x % sw) * plane + y / sh * wq + x / sw;
    }
  for (int64_t ci = 1; ci < channels; ++ci)
    for (int64_t t = 0; t < taps; ++t)
      offsets[ci * taps + t] = offsets[t] + ci * channel;
  // Slack past the last channel: the micro-kernel reads whole tiles of the
  // grid, up to a tile and a kernel shift beyond the last output.
  int64_t slack = target().nr + (cv.kw - 1) * cv.dw / sw + 1;
  float *base = threadBuffer(Scratch::DirectInput, channels * channel + slack);
  std::memset(base + channels * channel, 0, slack * sizeof(float));
  // The phase rows this piece's grid rows read.
  int64_t first = pr.convColumn / wq;
  int64_t last = std::min(cv.oh - 1, (pr.convColumn + pr.n - 1) / wq);
  target().fillPhases(cv, channels, hq, first,
                      std::min(hq - 1, last + (cv.kh - 1) * cv.dh / sh), used,
                      base);
  Problem p = pr;
  p.conv.x = base;
  p.conv.offsets = offsets.data();
  target().gemm(p);
}

/// Problems smaller than this many multiply-adds run on one thread.
constexpr int64_t kParallelMinWork = 1 << 16;

/// pr split into `parts` pieces along n or m (whichever is larger), each a
/// whole number of micro-tiles.
struct Split {
  const Problem *pr;
  bool alongN;
  int64_t step;
};

Problem piece(const Split &split, int64_t index) {
  Problem p = *split.pr;
  int64_t begin = index * split.step;
  if (split.alongN) {
    p.n = std::min(split.step, split.pr->n - begin);
    if (p.isConv)
      p.convColumn += begin;
    else
      p.b += begin * p.bCs;
    if (!p.isConv || !p.conv.gridWidth) // a grid's columns map to C itself
      p.c += begin * p.cCs;
    if (p.bias)
      p.bias += begin * p.biasCs;
  } else {
    p.m = std::min(split.step, split.pr->m - begin);
    p.a += begin * p.aRs;
    p.packedARow0 += begin;
    p.c += begin * p.cRs;
    if (p.bias)
      p.bias += begin * p.biasRs;
  }
  return p;
}

/// Runs one problem on `threads` threads of the current pool (1: here).
void runProblem(const Problem &pr, int32_t threads) {
  const Target &t = target();
  ThreadPool *pool = ThreadPool::current();
  if (threads <= 1 || !pool || pr.m * pr.n * pr.k < kParallelMinWork) {
    solve(pr);
    return;
  }
  // Split along whichever of n and m leaves the largest piece smallest
  // (in whole micro-tiles): a 64 x 80 problem in 12 x 32 tiles splits
  // better by rows (36 + 28) than by columns (64 + 16).
  auto largestPiece = [&](int64_t extent, int64_t unit, int64_t other,
                          int64_t otherUnit) {
    int64_t units = (extent + unit - 1) / unit;
    int64_t step = (units + threads - 1) / threads;
    return std::min(extent, step * unit) *
           ((other + otherUnit - 1) / otherUnit * otherUnit);
  };
  // Near ties go to n: pieces of a convolution's columns each copy only
  // the input rows they read. A pixel-rows convolution splits whole output
  // rows (grid rows) when it has four per thread, else its panels of
  // filters: splitting by filters makes every thread lay out and read the
  // whole input, half of it last written by the other core (ResNet-18 on
  // two threads spent 82% more time filling phase planes than on one).
  bool pixels = pr.isConv && pr.conv.gridWidth && pr.conv.pixelRows;
  bool pixelsByRows = pixels && pr.conv.oh >= 4 * threads;
  bool alongN = pixelsByRows ||
                (!pixels && 10 * largestPiece(pr.n, t.nr, pr.m, t.mr) <=
                                11 * largestPiece(pr.m, t.mr, pr.n, t.nr));
  int64_t extent = alongN ? pr.n : pr.m;
  int64_t unit = pixelsByRows ? pr.conv.gridWidth
                 : alongN     ? t.nr
                 : pixels     ? t.laneFilters
                              : t.mr;
  int64_t units = (extent + unit - 1) / unit;
  int64_t parts = std::min<int64_t>(threads, units);
  Split split{&pr, alongN, (units + parts - 1) / parts * unit};
  parts = (extent + split.step - 1) / split.step;
  pool->parallelFor(
      parts,
      [](void *arg, int64_t index) {
        const Split &s = *static_cast<const Split *>(arg);
        solve(piece(s, index));
      },
      &split);
}

/// Runs count problems made by make(i) (see runBatch).
template <typename Make> void runBatchPacked(int64_t count, const Make &make) {
  ThreadPool *pool = ThreadPool::current();
  int32_t threads = pool ? pool->size() : 1;
  if (threads > 1 && count >= threads) {
    pool->parallelFor(
        count,
        [](void *arg, int64_t index) {
          const Make &m = *static_cast<const Make *>(arg);
          solve(m(index));
        },
        const_cast<Make *>(&make));
    return;
  }
  for (int64_t i = 0; i < count; ++i)
    runProblem(make(i), threads);
}

/// Packed copies of constant A operands (MXRT_KERNEL_CONST_A: a model's
/// read-only weights), made on first use and kept for the process's life,
/// as ONNX Runtime prepacks weights when a session starts.
class PackedCache {
public:
  /// The layouts kept: GEMM panels in slices of kKC or of all of k (a
  /// direct convolution, see sliceDepth), or Winograd's transformed
  /// filters.
  enum class Layout {
    Sliced,
    WholeDepth,
    FilterLanes,
    Winograd2,
    Winograd4,
    Nhwc,
    NhwcWinograd2,
    NhwcWinograd4,
    SmallWinograd
  };

  const float *get(const Problem &pr) {
    bool direct = pr.isConv && pr.conv.gridWidth;
    const Target &t = target();
    if (direct && pr.conv.pixelRows)
      return get({pr.a, pr.m, pr.k, pr.aRs, pr.aCs, Layout::FilterLanes},
                 t.filterLanesSize(pr.m, pr.k),
                 [&](float *packed) { t.packFilterLanes(pr, packed); });
    return get({pr.a, pr.m, pr.k, pr.aRs, pr.aCs,
                direct ? Layout::WholeDepth : Layout::Sliced},
               t.packedASize(pr.m, pr.k),
               [&](float *packed) { t.packAll(pr, packed); });
  }

  /// The F(m x m, 3 x 3) transform of constant filters weight (f x c x
  /// 3 x 3).
  const float *getWinograd(const float *weight, int64_t f, int64_t c,
                           int64_t m) {
    const Target &t = target();
    return get(
        {weight, f, c, 9, 1, m == 4 ? Layout::Winograd4 : Layout::Winograd2},
        t.winogradFilterSize(f, c, m),
        [&](float *packed) { t.winogradFilters(weight, f, c, m, packed); });
  }

  /// Constant filters weight (f x cg x taps, `groups` groups) packed for
  /// an NHWC convolution.
  const float *getNhwc(const float *weight, int64_t f, int64_t cg, int64_t taps,
                       int64_t groups) {
    const Target &t = target();
    return get({weight, f, cg, taps, groups, Layout::Nhwc},
               t.nhwcFilterSize(f, cg, taps, groups), [&](float *packed) {
                 t.packNhwcFilters(weight, f, cg, taps, groups, packed);
               });
  }

  /// The F(m x m, 3 x 3) transform of constant filters weight (f x c x
  /// 3 x 3) for an NHWC convolution.
  const float *getNhwcWinograd(const float *weight, int64_t f, int64_t c,
                               int64_t m) {
    const Target &t = target();
    return get({weight, f, c, 9, 1,
                m == 4 ? Layout::NhwcWinograd4 : Layout::NhwcWinograd2},
               t.nhwcWinogradFilterSize(f, c, m), [&](float *packed) {
                 t.nhwcWinogradFilters(weight, f, c, m, packed);
               });
  }

  /// Constant filters weight (f x c x 3 x 3) packed for a small-image
  /// Winograd convolution.
  const float *getSmallWinograd(const float *weight, int64_t f, int64_t c) {
    const Target &t = target();
    return get({weight, f, c, 9, 1, Layout::SmallWinograd},
               t.smallWinogradFilterSize(f, c, 9, 1), [&](float *packed) {
                 t.packSmallWinograd(weight, f, c, 9, 1, packed);
               });
  }

private:
  using Key =
      std::tuple<const float *, int64_t, int64_t, int64_t, int64_t, Layout>;

  template <typename Fill>
  const float *get(const Key &key, int64_t floats, const Fill &fill) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = entries.find(key);
    if (it != entries.end())
      return it->second.get();
    auto *packed = static_cast<float *>(
        std::aligned_alloc(64, (floats * 4 + 63) / 64 * 64));
    if (!packed)
      return nullptr; // pack per call instead
    fill(packed);
    entries.emplace(
        key, std::unique_ptr<float, void (*)(void *)>(packed, std::free));
    return packed;
  }

  std::mutex mutex;
  std::map<Key, std::unique_ptr<float, void (*)(void *)>> entries;
};

PackedCache &packedCache() {
  static PackedCache *cache = new PackedCache; // outlives every model call
  return *cache;
}

/// A packed whole for `pr` if it is worth it, else NULL (pack block by
/// block): a constant A from the cache; a varying one packed into `slot`
/// when `reused` (several problems share it).
const float *packedAFor(const Problem &pr, bool reused) {
  const Target &t = target();
  if (readsInPlace(pr) || pr.k == 0)
    return nullptr;
  if (pr.flags & MXRT_KERNEL_CONST_A)
    return packedCache().get(pr);
  if (!reused)
    return nullptr;
  // Once per call rather than once per problem; the pool's threads read
  // the caller's buffer until runBatch returns.
  float *packed = threadBuffer(Scratch::SharedA, t.packedASize(pr.m, pr.k));
  t.packAll(pr, packed);
  return packed;
}

/// Runs `count` independent problems, made by make(i), on the current
/// pool: whole problems per thread when there are enough of them, else each
/// one split. `sharedA`: every problem has the same A (else each problem's
/// constant A is looked up on its own).
template <typename Make>
void runBatch(int64_t count, const Make &make, bool sharedA) {
  const float *shared = sharedA ? packedAFor(make(0), count > 1) : nullptr;
  int64_t mr = target().mr;
  auto withPacked = [&](int64_t i) {
    Problem pr = make(i);
    pr.packedA = sharedA ? shared : packedAFor(pr, false);
    pr.packedARows = (pr.m + mr - 1) / mr * mr;
    pr.packedARow0 = 0;
    return pr;
  };
  runBatchPacked(count, withPacked);
}

/// Whether Winograd may compute a convolution (NCHW or NHWC): 3x3,
/// stride 1, undilated, ungrouped, constant filters (transformed once),
/// and MXRT_KERNEL_CONV does not rule it out.
bool winogradApplies(int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t dh,
                     int64_t dw, int64_t groups, int32_t flags) {
  const std::string &forced = convMethod();
  return kh == 3 && kw == 3 && sh == 1 && sw == 1 && dh == 1 && dw == 1 &&
         groups == 1 && (flags & MXRT_KERNEL_CONST_A) && forced != "im2col" &&
         forced != "direct" && forced != "grid" && forced != "pixels";
}

/// The tile size MXRT_KERNEL_CONV forces (winograd2 / winograd4), or 0.
int64_t forcedWinogradTile() {
  const std::string &forced = convMethod();
  return forced == "winograd2" ? 2 : forced == "winograd4" ? 4 : 0;
}

/// The tile size m of the Winograd F(m x m, 3 x 3) that computes a
/// convolution, or 0 for none. Winograd applies to 3x3, stride-1,
/// undilated, ungrouped convolutions with constant filters (transformed
/// once, kept in the packed cache). Its GEMMs have (m + 2)^2 products per
/// m x m tile over a grid one tile wider than the output; m is 4 where
/// that has fewer GEMM columns and a grid of more than one panel, else 2
/// (4 for ResNet-18's 56x56 and 28x28, 2 for its 14x14: 0.83 against 1.02
/// ms and 0.66 against 0.81 on the first two), and Winograd is taken where
/// those are under 0.7 of a direct convolution's (9 per output, over a grid of
/// phase-plane width): the transforms cost the rest. A 7x7 image (16 tiles in a
/// 32-column panel) stays direct, and so do layers of fewer than 64 channels or
/// filters, whose GEMMs are too shallow to pay for the transforms
/// (ResNet-20's 16 and 32-channel layers: 0.046 against 0.034 ms;
/// bench/conv_layers.c), and images of one panel of tiles (8x8): no faster
/// on one thread, and on two split by filters, each thread transforming
/// the whole input (ResNet-20 0.59 against 0.56 ms).
int64_t winogradTile(int64_t c, int64_t f, int64_t h, int64_t w, int64_t oh,
                     int64_t ow, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                     int64_t ph, int64_t pw, int64_t dh, int64_t dw,
                     int64_t groups, int32_t flags) {
  if (!winogradApplies(kh, kw, sh, sw, dh, dw, groups, flags))
    return 0;
  const std::string &forced = convMethod();
  if (int64_t m = forcedWinogradTile())
    return m;
  int64_t nr = target().nr;
  auto round = [nr](int64_t cols) { return (cols + nr - 1) / nr * nr; };
  // Tiles of the grid and GEMM columns for tile size m.
  auto tiles = [&](int64_t m) {
    return (oh + m - 1) / m * ((ow + m - 1) / m + 1);
  };
  auto columns = [&](int64_t m) { return (m + 2) * (m + 2) * round(tiles(m)); };
  // Of the tile sizes whose grid fills two panels, the one of fewer
  // columns.
  int64_t m = tiles(4) > nr && columns(4) < columns(2) ? 4 : 2;
  if (forced == "winograd")
    return m;
  int64_t gridWidth =
      directGridWidth(h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw);
  int64_t direct = 9 * round(oh * (gridWidth ? gridWidth : ow));
  // Narrow layers (16-63 channels, e.g. CIFAR ResNets) gain from F(4x4) on
  // one thread; on more, its few tile panels split unevenly.
  ThreadPool *pool = ThreadPool::current();
  bool single = !pool || pool->size() == 1;
  bool wide = c >= 64 && f >= 64;
  bool narrow = single && m == 4 && c >= 16 && f >= 16;
  bool worth =
      (wide || narrow) && tiles(m) > nr && 10 * columns(m) < 7 * direct;
  return worth ? m : 0;
}

/// Shares one image's Winograd convolution among the pool's threads.
struct WinogradSplit {
  WinogradPiece whole;
  bool alongGrid;
  int64_t step;
};

/// Computes piece p on this thread, in a buffer for its input's phase
/// planes.
void winogradPiece(const WinogradPiece &p) {
  const WinogradShape &s = *p.shape;
  int64_t planeSize = (s.th + 1) * s.wq, planes = s.c * s.m * s.m;
  // The input transform reads whole panels: up to a panel past the last
  // plane.
  int64_t slack = target().nr + 16;
  float *phases =
      threadBuffer(Scratch::DirectInput, planes * planeSize + slack);
  std::memset(phases + planes * planeSize, 0, slack * sizeof(float));
  target().winogradSolve(p, phases, planeSize);
}

/// One image of a Winograd convolution, split along the tile grid when it
/// has a panel per thread, else along the filters. The grid is split into
/// equal runs of whole tile rows (their last panels partial), not whole
/// panels, so each thread's input and output rows stay contiguous and a
/// grid of an odd number of panels splits evenly: ResNet-18's 56x56
/// F(4x4) grid (14 rows of 15 tiles) 105 + 105 tiles rather than 128 + 82,
/// its longer piece 331 -> 293 us (one thread, three runs each).
void winogradImage(const WinogradPiece &whole, int32_t threads) {
  const Target &t = target();
  ThreadPool *pool = ThreadPool::current();
  const WinogradShape &s = *whole.shape;
  int64_t gridPanels = (whole.g1 + t.nr - 1) / t.nr;
  int64_t work = (s.m + 2) * (s.m + 2) * s.c * s.f * whole.g1;
  if (threads <= 1 || !pool || work < kParallelMinWork) {
    winogradPiece(whole);
    return;
  }
  WinogradSplit split{whole, gridPanels >= threads, 0};
  int64_t units = split.alongGrid ? s.th : (s.f + t.mr - 1) / t.mr;
  int64_t parts = std::min<int64_t>(threads, units);
  split.step = (units + parts - 1) / parts * (split.alongGrid ? s.wq : t.mr);
  parts = ((split.alongGrid ? whole.g1 : s.f) + split.step - 1) / split.step;
  pool->parallelFor(
      parts,
      [](void *arg, int64_t index) {
        const WinogradSplit &sp = *static_cast<const WinogradSplit *>(arg);
        WinogradPiece p = sp.whole;
        int64_t begin = index * sp.step;
        if (sp.alongGrid) {
          p.g0 = begin;
          p.g1 = std::min(sp.whole.g1, begin + sp.step);
        } else {
          p.f0 = begin;
          p.f1 = std::min(sp.whole.f1, begin + sp.step);
        }
        winogradPiece(p);
      },
      &split);
}

/// mxrt_kernel_sconv2d by Winograd F(m x m, 3x3) (see winogradTile); false
/// when the transformed filters could not be allocated.
bool winogradConv(int64_t m, int64_t n, int64_t c, int64_t h, int64_t w,
                  int64_t f, int64_t oh, int64_t ow, int64_t ph, int64_t pw,
                  const float *x, const float *weight, const float *bias,
                  float *y, int32_t flags) {
  const float *filters = packedCache().getWinograd(weight, f, c, m);
  if (!filters)
    return false;
  WinogradShape shape = {c, f, h, w, oh, ow, ph, pw, m, 0, 0, 0};
  shape.th = (oh + m - 1) / m, shape.tw = (ow + m - 1) / m;
  shape.wq = shape.tw + 1;
  ThreadPool *pool = ThreadPool::current();
  int32_t threads = pool ? pool->size() : 1;
  for (int64_t i = 0; i < n; ++i) {
    WinogradPiece whole = {
        &shape, x + i * c * h * w,   filters, bias, y + i * f * oh * ow, flags,
        0,      shape.th * shape.wq, 0,       f};
    winogradImage(whole, threads);
  }
  return true;
}

} // namespace

const char *kernelIsa() { return target().isa; }

} // namespace mxrt

using mxrt::Problem;

namespace mxrt {
namespace {
/// Runs run(begin, end) over [0, count) in equal runs, one per thread of
/// the current pool (`work` operations in all: serially below
/// kParallelMinWork).
template <typename Run>
void splitRuns(int64_t count, int64_t work, const Run &run) {
  ThreadPool *pool = ThreadPool::current();
  int64_t parts = std::min<int64_t>(pool ? pool->size() : 1, count);
  if (parts <= 1 || work < kParallelMinWork) {
    run(0, count);
    return;
  }
  struct Job {
    const Run *run;
    int64_t count, parts;
  } job{&run, count, parts};
  pool->parallelFor(
      parts,
      [](void *arg, int64_t j) {
        const Job &jb = *static_cast<const Job *>(arg);
        (*jb.run)(j * jb.count / jb.parts, (j + 1) * jb.count / jb.parts);
      },
      &job);
}

/// The tile size m of the Winograd F(m x m, 3 x 3) that computes an NHWC
/// convolution, or 0 for direct. As winogradTile: 3x3, stride 1,
/// undilated, ungrouped, constant filters; here also channels in whole
/// vectors of 16 and at least 16 channels and filters. Unlike NCHW's, the
/// tiles need no spare grid column and no whole panels, so Winograd pays
/// down to 8x8 images and 16 channels: against the NHWC direct kernel,
/// ResNet-20's 16/32/64-channel layers 52/25/21 against 69/55/53 us, and
/// ResNet-18's 56x56..7x7 0.6-2.2 against 2.1-7.9 ms (one thread,
/// docs/kernels.md, session 10). m is 4 unless its transformed filters
/// (36 c f floats) pass 4 MiB, where streaming them costs more than F(4x4)
/// saves: 14x14 x 256 and 7x7 x 512 take F(2x2) (7x7: 1.0 against 1.6 ms
/// on two threads).
int64_t nhwcWinogradTile(const NhwcConv &cv) {
  if (!winogradApplies(cv.kh, cv.kw, cv.sh, cv.sw, cv.dh, cv.dw, cv.groups,
                       cv.flags) ||
      cv.c % 16 != 0)
    return 0;
  if (int64_t m = forcedWinogradTile())
    return m;
  if (convMethod() != "winograd" && (cv.c < 16 || cv.f < 16))
    return 0;
  return 36 * cv.c * cv.f * 4 > (int64_t{4} << 20) ? 2 : 4;
}

/// An NHWC convolution by Winograd: runs of consecutive tiles per thread.
/// False when the transformed filters could not be allocated.
bool nhwcWinogradConv(const NhwcConv &cv, const float *weight, int64_t m) {
  NhwcWinograd wg = {&cv, packedCache().getNhwcWinograd(weight, cv.f, cv.c, m),
                     m, (cv.oh + m - 1) / m, (cv.ow + m - 1) / m};
  if (!wg.filters)
    return false;
  int64_t tiles = cv.n * wg.th * wg.tw;
  splitRuns(tiles, tiles * (m + 2) * (m + 2) * cv.c * cv.f,
            [&wg](int64_t begin, int64_t end) {
              target().nhwcWinogradTiles(wg, begin, end);
            });
  return true;
}

/// An NHWC convolution: Winograd where nhwcWinogradTile takes it, else
/// direct with whole output rows per thread, each thread's rows one
/// contiguous block of y (see conv_nhwc_impl.inc).
void convNhwc(NhwcConv cv, const float *weight) {
  const Target &t = target();
  if (int64_t m = nhwcWinogradTile(cv))
    if (nhwcWinogradConv(cv, weight, m))
      return;
  int64_t cg = cv.c / cv.groups, taps = cv.kh * cv.kw;
  if (cv.flags & MXRT_KERNEL_CONST_A)
    cv.filters = packedCache().getNhwc(weight, cv.f, cg, taps, cv.groups);
  if (!cv.filters) { // varying filters, or the cache had no memory
    float *packed = threadBuffer(Scratch::SharedA,
                                 t.nhwcFilterSize(cv.f, cg, taps, cv.groups));
    t.packNhwcFilters(weight, cv.f, cg, taps, cv.groups, packed);
    cv.filters = packed;
  }
  int64_t rows = cv.n * cv.oh;
  splitRuns(rows, rows * cv.ow * cv.f * cg * taps,
            [&cv](int64_t begin, int64_t end) {
              target().nhwcConvRows(cv, begin, end);
            });
}
/// Whether a convolution (NCHW) takes Winograd for small images
/// (winograd_small_impl.inc): where Winograd applies (see winogradApplies),
/// on AVX-512, with channels and filters in whole vectors, for 7x7 and 8x8
/// outputs (a 4 x 4 grid of tiles filling a vector's lanes) where it beats
/// direct convolution. Its time over direct's (one thread, in-process
/// alternation, best of 30+ rounds, distinct weights): 7x7 x 512 0.78-0.82
/// (the filters, 9.4 MB, stream from memory either way), 7x7 x 256 0.92,
/// 7x7 x 128 0.97, 7x7 x 64 1.13; 8x8 (64 outputs fill direct's tiles of 6
/// pixels badly) 0.76-0.80 from 16 to 128 channels; 6x6 (9 of 16 lanes)
/// 1.25. So: 8x8, or 7x7 with at least 256 x 256 channels x filters.
/// MXRT_KERNEL_CONV=winograd / winograd2 take it wherever it can run,
/// winograd4 never.
bool smallWinogradTakes(int64_t c, int64_t f, int64_t oh, int64_t ow,
                        int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                        int64_t dh, int64_t dw, int64_t groups, int32_t flags) {
  int64_t block = target().smallWinogradFilters;
  if (!block || !winogradApplies(kh, kw, sh, sw, dh, dw, groups, flags) ||
      forcedWinogradTile() == 4 || oh > 8 || ow > 8 || c % 16 != 0 ||
      f % block != 0)
    return false;
  const std::string &forced = convMethod();
  if (forced == "winograd" || forced == "winograd2")
    return true;
  return (oh == 8 && ow == 8) ||
         (oh >= 7 && ow >= 7 && c * f >= int64_t{256} * 256);
}

/// An NCHW convolution by Winograd for small images: blocks of filters
/// split among the threads, each transforming the input itself. False
/// when the packed filters could not be allocated.
bool smallWinogradConv(const SmallWinograd &shape, const float *weight) {
  SmallWinograd s = shape;
  s.filters = packedCache().getSmallWinograd(weight, s.f, s.c);
  if (!s.filters)
    return false;
  int64_t blocks = s.f / target().smallWinogradFilters;
  splitRuns(blocks, s.n * 256 * s.c * s.f, [&s](int64_t begin, int64_t end) {
    target().smallWinogradBlocks(s, begin, end);
  });
  return true;
}
} // namespace
} // namespace mxrt

extern "C" void mxrt_kernel_sgemm(int64_t batch, int64_t m, int64_t n,
                                  int64_t k, const float *a, int64_t a_bs,
                                  int64_t a_rs, int64_t a_cs, const float *b,
                                  int64_t b_bs, int64_t b_rs, int64_t b_cs,
                                  float *c, int64_t c_bs, int64_t c_rs,
                                  int64_t c_cs, const float *bias,
                                  int64_t bias_bs, int64_t bias_rs,
                                  int64_t bias_cs, int32_t flags) {
  if (batch <= 0 || m <= 0 || n <= 0)
    return;
  // Computed transposed, C^T = B^T A^T: a narrow C with many rows, so that
  // the long side fills the micro-tiles' rows; and a constant B (a weight)
  // beside a varying A, so that the packed weight can be kept.
  Problem shape = {};
  shape.m = m, shape.k = k;
  bool packs = !mxrt::readsInPlace(shape);
  bool constB = (flags & MXRT_KERNEL_CONST_B) && !(flags & MXRT_KERNEL_CONST_A);
  bool transpose = packs && ((n < mxrt::target().nr && m > n) || constB);
  if (transpose) {
    bool ca = flags & MXRT_KERNEL_CONST_A, cb = flags & MXRT_KERNEL_CONST_B;
    flags &= ~(MXRT_KERNEL_CONST_A | MXRT_KERNEL_CONST_B);
    flags |= (ca ? MXRT_KERNEL_CONST_B : 0) | (cb ? MXRT_KERNEL_CONST_A : 0);
  }
  auto make = [&](int64_t i) {
    Problem pr = {};
    pr.m = m, pr.n = n, pr.k = k;
    pr.a = a + i * a_bs, pr.aRs = a_rs, pr.aCs = a_cs;
    pr.b = b + i * b_bs, pr.bRs = b_rs, pr.bCs = b_cs;
    pr.c = c + i * c_bs, pr.cRs = c_rs, pr.cCs = c_cs;
    pr.bias = bias ? bias + i * bias_bs : nullptr;
    pr.biasRs = bias_rs, pr.biasCs = bias_cs;
    pr.flags = flags;
    if (transpose) {
      std::swap(pr.m, pr.n);
      std::swap(pr.a, pr.b);
      pr.aRs = b_cs, pr.aCs = b_rs, pr.bRs = a_cs, pr.bCs = a_rs;
      std::swap(pr.cRs, pr.cCs);
      std::swap(pr.biasRs, pr.biasCs);
    }
    return pr;
  };
  bool sharedA = (transpose ? b_bs : a_bs) == 0;
  mxrt::runBatch(batch, make, sharedA);
}

extern "C" void
mxrt_kernel_sconv2d(int64_t n, int64_t c, int64_t h, int64_t w, int64_t f,
                    int64_t oh, int64_t ow, int64_t kh, int64_t kw,
                    int64_t stride_h, int64_t stride_w, int64_t pad_h,
                    int64_t pad_w, int64_t dilate_h, int64_t dilate_w,
                    int64_t groups, const float *x, const float *weight,
                    const float *bias, float *y, int32_t flags) {
  if (n <= 0 || f <= 0 || oh <= 0 || ow <= 0 || groups <= 0)
    return;
  if (flags & MXRT_KERNEL_NHWC) {
    mxrt::convNhwc({n,     c,        h,        w,        f,        oh,
                    ow,    kh,       kw,       stride_h, stride_w, pad_h,
                    pad_w, dilate_h, dilate_w, groups,   x,        nullptr,
                    bias,  y,        flags},
                   weight);
    return;
  }
  if (mxrt::smallWinogradTakes(c, f, oh, ow, kh, kw, stride_h, stride_w,
                               dilate_h, dilate_w, groups, flags) &&
      mxrt::smallWinogradConv({n, c, h, w, f, oh, ow, pad_h, pad_w,
                               (oh + 1) / 2, (ow + 1) / 2, x, nullptr, bias, y,
                               flags},
                              weight))
    return;
  int64_t tile =
      mxrt::winogradTile(c, f, h, w, oh, ow, kh, kw, stride_h, stride_w, pad_h,
                         pad_w, dilate_h, dilate_w, groups, flags);
  if (tile && mxrt::winogradConv(tile, n, c, h, w, f, oh, ow, pad_h, pad_w, x,
                                 weight, bias, y, flags))
    return;
  int64_t cg = c / groups, fg = f / groups, k = cg * kh * kw;
  int64_t gridWidth =
      mxrt::directGridWidth(h, w, oh, ow, kh, kw, stride_h, stride_w, pad_h,
                            pad_w, dilate_h, dilate_w);
  int64_t pixelRows =
      gridWidth ? mxrt::pixelRowsFor(oh * ow, fg, groups, flags) : 0;
  // One problem per (image, group): the group's weight rows times the
  // im2col matrix of the group's channels.
  auto make = [&](int64_t i) {
    int64_t g = i % groups;
    Problem pr = {};
    pr.m = fg, pr.n = oh * ow, pr.k = k;
    pr.a = weight + g * fg * k, pr.aRs = k, pr.aCs = 1;
    pr.isConv = true;
    pr.conv = {x + i * cg * h * w,
               h,
               w,
               oh,
               ow,
               kh,
               kw,
               stride_h,
               stride_w,
               pad_h,
               pad_w,
               dilate_h,
               dilate_w,
               /*offsets=*/nullptr,
               /*gridWidth=*/0,
               /*pixelRows=*/0};
    if (gridWidth) {
      pr.n = oh * gridWidth;
      pr.conv.gridWidth = gridWidth;
      pr.conv.pixelRows = pixelRows;
    }
    pr.c = y + i * fg * oh * ow, pr.cRs = oh * ow, pr.cCs = 1;
    pr.bias = bias ? bias + g * fg : nullptr, pr.biasRs = 1, pr.biasCs = 0;
    pr.flags = flags;
    return pr;
  };
  mxrt::runBatch(n * groups, make, /*sharedA=*/groups == 1);
}
