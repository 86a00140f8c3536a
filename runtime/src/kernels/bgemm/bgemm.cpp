// SPDX-License-Identifier: Apache-2.0
// The bfloat16 product family: mxrt_kernel_sgemm and mxrt_kernel_sconv2d
// with MXRT_KERNEL_BF16. A and B are rounded to bfloat16 (nearest even, as
// vcvtneps2bf16: NaN kept quiet, float denormals to zero) while they are
// packed, and multiplied with float32 accumulation; bias, accumulation and
// ReLU as the float32 kernels apply them. Goto's structure, as gemm/: k in
// slices of kKC, B packed into panels of kNR columns, A into panels of kMR
// rows, a micro-kernel keeping a kMR x kNR tile of C in registers. B's
// panels hold pairs: one 32-bit word per column and pair of k steps (k, k +
// 1), the first in its low half, so that a word of A's pair broadcast meets
// a vector of B's in one vdpbf16ps.
//
// Paths, picked once by the CPU's features (and MXRT_KERNEL_ISA):
//   avx512bf16  AVX-512 BF16: vdpbf16ps adds two products of bfloat16 pairs
//               to each float lane; A packed as pairs.
//   avx512      B's pairs widened to floats by a 16-bit shift and a mask,
//               two float FMAs per pair; A packed as rounded floats.
//   portable    the same on one float at a time.
// Convolutions run as products (bconv2d): NCHW as the filters times each
// image's im2col matrix, NHWC as the windows of all pixels times the
// filters, both packed straight from the image; never Winograd, whose
// transforms would lose more than bfloat16's rounding (docs/kernels.md).
#include "kernels/bgemm/bgemm.h"

#include "kernels/isa/isa.h"
#include "kernels/isa/target.h"
#include "mxrt/kernels.h"
#include "threadpool.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace mxrt {
namespace {

/// The micro-tile: kMR rows of A by kNR columns of B (two vectors of 16).
constexpr int64_t kMR = 12, kNR = 32;
/// k per slice (even, so that only a last slice has an odd pair), rows of
/// A per packed block, columns of B per packed block: a B micro-panel
/// (kKC x kNR bfloat16, 16 KB) and an A micro-panel stay in L1, A's block
/// (48 KB as pairs) and B's (512 KB) in L2.
constexpr int64_t kKC = 256, kMC = 96, kNC = 1024;
/// Problems under this many multiply-adds stay on one thread.
constexpr int64_t kParallelMinWork = 1 << 16;

/// x rounded to bfloat16, its 16 bits: nearest even, NaN kept (quiet),
/// zero and float denormals to a zero of their sign (as vcvtneps2bf16 and
/// vdpbf16ps, which read denormals as zero).
inline uint32_t bf16Bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  if ((u & 0x7f800000u) == 0)
    return (u >> 16) & 0x8000u;
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return (u >> 16) | 0x40u;
  return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

inline float bitsToFloat(uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

/// A convolution's geometry, for the views below.
struct ConvGeometry {
  int64_t c, h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw, cg, taps;
};

/// An operand of a product as a matrix of floats, element (i, j), read a
/// row at a time by viewRow.
struct View {
  enum class Kind {
    /// p[i * rs + j * cs].
    Matrix,
    /// NCHW B: the im2col matrix of one image's group of channels from p
    /// on, row (channel, kernel row, kernel column), column output pixel.
    Im2col,
    /// NHWC A: row i the window of output pixel i (all images' in turn),
    /// column (kernel row, kernel column, channel); p is the group's
    /// first channel of the first pixel.
    Windows,
    /// NHWC B: row (kernel row, kernel column, channel), column filter,
    /// from the group's filters (fg, cg, kh, kw) at p.
    Filters
  };
  Kind kind;
  const float *p;
  int64_t rs, cs;
  const ConvGeometry *conv;
};

View matrixView(const float *p, int64_t rs, int64_t cs) {
  return {View::Kind::Matrix, p, rs, cs, nullptr};
}

/// Elements (i, j0) ... (i, j0 + count - 1) of v, contiguous: in place
/// where they are, else gathered into tmp.
const float *viewRow(const View &v, int64_t i, int64_t j0, int64_t count,
                     float *tmp) {
  switch (v.kind) {
  case View::Kind::Matrix:
    if (v.cs == 1)
      return v.p + i * v.rs + j0;
    for (int64_t t = 0; t < count; ++t)
      tmp[t] = v.p[i * v.rs + (j0 + t) * v.cs];
    return tmp;
  case View::Kind::Im2col: {
    const ConvGeometry &g = *v.conv;
    int64_t ci = i / g.taps, r = i % g.taps / g.kw, s = i % g.kw;
    const float *plane = v.p + ci * g.h * g.w;
    int64_t y = j0 / g.ow, x = j0 % g.ow;
    for (int64_t col = 0; col < count; ++y, x = 0) {
      int64_t run = std::min(g.ow - x, count - col);
      int64_t ih = y * g.sh - g.ph + r * g.dh;
      int64_t iw0 = x * g.sw - g.pw + s * g.dw;
      float *d = tmp + col;
      if (ih < 0 || ih >= g.h) {
        std::fill(d, d + run, 0.0f);
      } else if (g.sw == 1) {
        int64_t lo = std::min(run, std::max<int64_t>(0, -iw0));
        int64_t hi = std::max(lo, std::min(run, g.w - iw0));
        std::fill(d, d + lo, 0.0f);
        std::memcpy(d + lo, plane + ih * g.w + iw0 + lo,
                    (hi - lo) * sizeof(float));
        std::fill(d + hi, d + run, 0.0f);
      } else {
        // Strided: [lo, hi) the columns inside the row, copied without a
        // test per element (with one, the stem's gather took longer than
        // its products: 7x7/2 over 224 x 224, 1.95 against float32's 1.38
        // ms).
        int64_t lo =
            std::min(run, std::max<int64_t>(0, -iw0 + g.sw - 1) / g.sw);
        int64_t hi = std::max(lo, std::min(run, (g.w - iw0 + g.sw - 1) / g.sw));
        std::fill(d, d + lo, 0.0f);
        // From the first column inside (iw0 may lie before the row).
        const float *row = plane + ih * g.w + (hi > lo ? iw0 + lo * g.sw : 0);
        if (g.sw == 2)
          for (int64_t t = lo; t < hi; ++t)
            d[t] = row[2 * (t - lo)];
        else
          for (int64_t t = lo; t < hi; ++t)
            d[t] = row[(t - lo) * g.sw];
        std::fill(d + hi, d + run, 0.0f);
      }
      col += run;
    }
    return tmp;
  }
  case View::Kind::Windows: {
    const ConvGeometry &g = *v.conv;
    int64_t pixels = g.oh * g.ow, image = i / pixels;
    int64_t y = i % pixels / g.ow, x = i % g.ow;
    for (int64_t j = j0; j < j0 + count;) {
      int64_t t = j / g.cg, ci = j % g.cg, s = t % g.kw;
      int64_t ih = y * g.sh - g.ph + t / g.kw * g.dh;
      int64_t iw = x * g.sw - g.pw + s * g.dw;
      bool rowInside = ih >= 0 && ih < g.h;
      auto inside = [&](int64_t column) {
        return rowInside && column >= 0 && column < g.w;
      };
      // Undilated and ungrouped, the taps of a window row lie side by
      // side: one run while they stay inside (or outside) the image (a
      // 3-channel stem's taps copied one by one took 4.8 against NCHW's
      // 1.9 ms).
      int64_t taps = 1;
      bool in = inside(iw);
      if (g.dw == 1 && g.cg == g.c)
        while (s + taps < g.kw && inside(iw + taps) == in)
          ++taps;
      int64_t run = std::min(taps * g.cg - ci, j0 + count - j);
      float *d = tmp + (j - j0);
      if (in)
        std::memcpy(d, v.p + ((image * g.h + ih) * g.w + iw) * g.c + ci,
                    run * sizeof(float));
      else
        std::fill(d, d + run, 0.0f);
      j += run;
    }
    return tmp;
  }
  case View::Kind::Filters: {
    const ConvGeometry &g = *v.conv;
    int64_t t = i / g.cg, ci = i % g.cg, k = g.cg * g.taps;
    const float *at = v.p + ci * g.taps + t;
    for (int64_t u = 0; u < count; ++u)
      tmp[u] = at[(j0 + u) * k];
    return tmp;
  }
  }
  return tmp;
}

/// A path's micro-kernel: C's tile (rows of the instantiation x `cols` <=
/// kNR columns, rows ldc apart, columns contiguous) = the product of a
/// packed A panel and B panel over kp pairs of k, plus C's old values when
/// `keep`, plus `bias` (NULL: none; rows biasRs apart, columns biasCs (0
/// or 1) apart), then ReLU when `relu`.
using TileFn = void (*)(int64_t kp, const uint32_t *a, const uint32_t *b,
                        float *c, int64_t ldc, int cols, bool keep,
                        const float *bias, int64_t biasRs, int64_t biasCs,
                        bool relu);

/// The family's dispatch table: how a path packs and multiplies.
struct BTarget {
  const char *name;
  /// A's panels hold pairs of k (one word per row and pair), else rounded
  /// floats (one word per row and k step, k rounded up to even).
  bool aPairs;
  /// out[j] (j < width) = bf16(r0[j]) | bf16(r1[j]) << 16 for j < count,
  /// else 0 (r1 NULL: zeros).
  void (*pairRows)(const float *r0, const float *r1, int64_t count,
                   int64_t width, uint32_t *out);
  /// out[j] (j < width) = r[j] rounded, as float bits, for j < count,
  /// else 0.
  void (*roundRow)(const float *r, int64_t count, int64_t width, uint32_t *out);
  /// For each pair q < (kc + 1) / 2: out[q * stride + l] (l < width) =
  /// bf16(lines[l][2 q]) | bf16(lines[l][2 q + 1]) << 16 for l < count
  /// (k past kc reads as 0), else 0.
  void (*pairLines)(const float *const *lines, int count, int64_t kc, int width,
                    int64_t stride, uint32_t *out);
  /// For each step p < kc rounded up to even: out[p * stride + l] (l <
  /// width) = lines[l][p] rounded, as float bits (0 past kc or count).
  void (*roundLines)(const float *const *lines, int count, int64_t kc,
                     int width, int64_t stride, uint32_t *out);
  /// tiles[vectors - 1][rows - 1]: the micro-kernel for `rows` rows and
  /// `vectors` vectors of 16 columns.
  std::array<std::array<TileFn, kMR>, 2> tiles;
};

/// tiles[v][r] = Tile<r + 1, v + 1>::run.
template <template <int, int> class Tile, int... Rows>
constexpr std::array<std::array<TileFn, kMR>, 2>
tileTable(std::integer_sequence<int, Rows...>) {
  return {{{&Tile<Rows + 1, 1>::run...}, {&Tile<Rows + 1, 2>::run...}}};
}

//===----------------------------------------------------------------------===//
// portable
//===----------------------------------------------------------------------===//

namespace portable {

void pairRows(const float *r0, const float *r1, int64_t count, int64_t width,
              uint32_t *out) {
  for (int64_t j = 0; j < width; ++j)
    out[j] =
        j < count ? bf16Bits(r0[j]) | (r1 ? bf16Bits(r1[j]) << 16 : 0u) : 0u;
}

void roundRow(const float *r, int64_t count, int64_t width, uint32_t *out) {
  for (int64_t j = 0; j < width; ++j)
    out[j] = j < count ? bf16Bits(r[j]) << 16 : 0u;
}

void pairLines(const float *const *lines, int count, int64_t kc, int width,
               int64_t stride, uint32_t *out) {
  for (int64_t q = 0; q < (kc + 1) / 2; ++q)
    for (int l = 0; l < width; ++l) {
      uint32_t word = 0;
      if (l < count) {
        word = bf16Bits(lines[l][2 * q]);
        if (2 * q + 1 < kc)
          word |= bf16Bits(lines[l][2 * q + 1]) << 16;
      }
      out[q * stride + l] = word;
    }
}

void roundLines(const float *const *lines, int count, int64_t kc, int width,
                int64_t stride, uint32_t *out) {
  for (int64_t p = 0; p < (kc + 1) / 2 * 2; ++p)
    for (int l = 0; l < width; ++l)
      out[p * stride + l] =
          l < count && p < kc ? bf16Bits(lines[l][p]) << 16 : 0u;
}

/// A packed as rounded floats, B's pairs split into their two floats.
template <int Rows, int Vectors> struct Tile {
  static void run(int64_t kp, const uint32_t *a, const uint32_t *b, float *c,
                  int64_t ldc, int cols, bool keep, const float *bias,
                  int64_t biasRs, int64_t biasCs, bool relu) {
    constexpr int kCols = 16 * Vectors;
    float acc[Rows][kCols] = {};
    for (int64_t q = 0; q < kp; ++q) {
      float even[kCols], odd[kCols];
      for (int j = 0; j < kCols; ++j) {
        even[j] = bitsToFloat(b[q * kNR + j] << 16);
        odd[j] = bitsToFloat(b[q * kNR + j] & 0xffff0000u);
      }
      for (int r = 0; r < Rows; ++r) {
        float ae = bitsToFloat(a[q * 2 * kMR + r]);
        float ao = bitsToFloat(a[q * 2 * kMR + kMR + r]);
        for (int j = 0; j < kCols; ++j)
          acc[r][j] += ae * even[j] + ao * odd[j];
      }
    }
    for (int r = 0; r < Rows; ++r)
      for (int j = 0; j < cols; ++j) {
        float v = acc[r][j];
        if (bias)
          v += bias[r * biasRs + j * biasCs];
        if (keep)
          v += c[r * ldc + j];
        c[r * ldc + j] = relu ? std::max(v, 0.0f) : v;
      }
  }
};

const BTarget target{"portable",
                     false,
                     pairRows,
                     roundRow,
                     pairLines,
                     roundLines,
                     tileTable<Tile>(std::make_integer_sequence<int, kMR>{})};

} // namespace portable

#if defined(__x86_64__)

//===----------------------------------------------------------------------===//
// avx512: packing (both AVX-512 paths) and the widening micro-kernel
//===----------------------------------------------------------------------===//

MXRT_TARGET_BEGIN("avx512f,avx512bw,avx512vl,avx512dq")

namespace avx512 {

/// The first n lanes (none for n <= 0, all for n >= 16).
inline __mmask16 firstLanes(int64_t n) {
  return n >= 16  ? __mmask16(0xffff)
         : n <= 0 ? __mmask16(0)
                  : __mmask16((1u << n) - 1);
}

/// x rounded as bf16Bits, in the high half of each lane (the low half
/// is not cleared).
inline __m512i roundHigh(__m512 x) {
  __m512i u = _mm512_castps_si512(x);
  __m512i lsb =
      _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  __m512i r =
      _mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff)));
  __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  r = _mm512_mask_or_epi32(r, nan, u, _mm512_set1_epi32(0x00400000));
  __mmask16 tiny = _mm512_testn_epi32_mask(u, _mm512_set1_epi32(0x7f800000));
  return _mm512_mask_and_epi32(r, tiny, u,
                               _mm512_set1_epi32(int32_t(0x80000000u)));
}

/// Lane j: bf16(lo[j]) | bf16(hi[j]) << 16.
inline __m512i pairWords(__m512 lo, __m512 hi) {
  return _mm512_mask_blend_epi16(
      0xaaaaaaaau, _mm512_srli_epi32(roundHigh(lo), 16), roundHigh(hi));
}

/// The 32 floats v0 (0-15), v1 (16-31) as 16 pairs: lane q = bf16(f[2 q])
/// | bf16(f[2 q + 1]) << 16 (the high halves of the rounded lanes, words
/// 4 q + 1 and 4 q + 3 of the two vectors' 64).
inline __m512i consecutivePairs(__m512 v0, __m512 v1) {
  const __m512i words = _mm512_setr_epi32(
      0x00030001, 0x00070005, 0x000b0009, 0x000f000d, 0x00130011, 0x00170015,
      0x001b0019, 0x001f001d, 0x00230021, 0x00270025, 0x002b0029, 0x002f002d,
      0x00330031, 0x00370035, 0x003b0039, 0x003f003d);
  return _mm512_permutex2var_epi16(roundHigh(v0), words, roundHigh(v1));
}

/// Transposes the 16 x 16 words r (row i: r[i]) in place: four rounds of
/// interleaving rows i and i + 8 into rows 2 i and 2 i + 1.
inline void transpose16(__m512i (&r)[16]) {
  const __m512i lo =
      _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13,
                                       29, 14, 30, 15, 31);
  for (int round = 0; round < 4; ++round) {
    __m512i s[16];
    for (int i = 0; i < 8; ++i) {
      s[2 * i] = _mm512_permutex2var_epi32(r[i], lo, r[i + 8]);
      s[2 * i + 1] = _mm512_permutex2var_epi32(r[i], hi, r[i + 8]);
    }
    for (int i = 0; i < 16; ++i)
      r[i] = s[i];
  }
}

void pairRows(const float *r0, const float *r1, int64_t count, int64_t width,
              uint32_t *out) {
  for (int64_t j = 0; j < width; j += 16) {
    __mmask16 in = firstLanes(count - j);
    __m512 v0 = _mm512_maskz_loadu_ps(in, r0 + j);
    __m512 v1 = r1 ? _mm512_maskz_loadu_ps(in, r1 + j) : _mm512_setzero_ps();
    _mm512_mask_storeu_epi32(out + j, firstLanes(width - j), pairWords(v0, v1));
  }
}

void roundRow(const float *r, int64_t count, int64_t width, uint32_t *out) {
  const __m512i high = _mm512_set1_epi32(int32_t(0xffff0000u));
  for (int64_t j = 0; j < width; j += 16) {
    __m512 v = _mm512_maskz_loadu_ps(firstLanes(count - j), r + j);
    _mm512_mask_storeu_epi32(out + j, firstLanes(width - j),
                             _mm512_and_si512(roundHigh(v), high));
  }
}

void pairLines(const float *const *lines, int count, int64_t kc, int width,
               int64_t stride, uint32_t *out) {
  int64_t kp = (kc + 1) / 2;
  __mmask16 store = firstLanes(width);
  for (int64_t q = 0; q < kp; q += 16) {
    int64_t k0 = 2 * q;
    __mmask16 in0 = firstLanes(kc - k0), in1 = firstLanes(kc - k0 - 16);
    __m512i r[16];
    for (int l = 0; l < 16; ++l)
      r[l] =
          l < count
              ? consecutivePairs(_mm512_maskz_loadu_ps(in0, lines[l] + k0),
                                 _mm512_maskz_loadu_ps(in1, lines[l] + k0 + 16))
              : _mm512_setzero_si512();
    transpose16(r);
    for (int64_t i = 0; i < std::min<int64_t>(16, kp - q); ++i)
      _mm512_mask_storeu_epi32(out + (q + i) * stride, store, r[i]);
  }
}

void roundLines(const float *const *lines, int count, int64_t kc, int width,
                int64_t stride, uint32_t *out) {
  const __m512i high = _mm512_set1_epi32(int32_t(0xffff0000u));
  int64_t steps = (kc + 1) / 2 * 2;
  __mmask16 store = firstLanes(width);
  for (int64_t p = 0; p < steps; p += 16) {
    __mmask16 in = firstLanes(kc - p);
    __m512i r[16];
    for (int l = 0; l < 16; ++l)
      r[l] = l < count
                 ? _mm512_and_si512(
                       roundHigh(_mm512_maskz_loadu_ps(in, lines[l] + p)), high)
                 : _mm512_setzero_si512();
    transpose16(r);
    for (int64_t i = 0; i < std::min<int64_t>(16, steps - p); ++i)
      _mm512_mask_storeu_epi32(out + (p + i) * stride, store, r[i]);
  }
}

/// Stores the accumulators as TileFn's epilogue describes. (Inlined, so
/// that the accumulators stay in registers: called, they went through the
/// stack, zeroed there by a memset per tile.)
template <int Rows, int Vectors>
__attribute__((always_inline)) inline void
storeTile(__m512 (&acc)[Rows][Vectors], float *c, int64_t ldc, int cols,
          bool keep, const float *bias, int64_t biasRs, int64_t biasCs,
          bool relu) {
#if defined(__clang__)
#pragma clang loop unroll(full)
#endif
  for (int r = 0; r < Rows; ++r)
    for (int v = 0; v < Vectors; ++v) {
      __mmask16 lanes = firstLanes(cols - 16 * v);
      float *at = c + r * ldc + 16 * v;
      __m512 x = acc[r][v];
      if (bias)
        x = _mm512_add_ps(
            x, biasCs ? _mm512_maskz_loadu_ps(lanes, bias + r * biasRs + 16 * v)
                      : _mm512_set1_ps(bias[r * biasRs]));
      if (keep)
        x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(lanes, at));
      if (relu)
        x = _mm512_max_ps(_mm512_setzero_ps(), x);
      _mm512_mask_storeu_ps(at, lanes, x);
    }
}

/// A packed as rounded floats (the pair's first k step's kMR values, then
/// its second's); B's words widened: the low half shifted up is the first
/// k step's float, the high half masked the second's.
template <int Rows, int Vectors> struct Tile {
  static void run(int64_t kp, const uint32_t *a, const uint32_t *b, float *c,
                  int64_t ldc, int cols, bool keep, const float *bias,
                  int64_t biasRs, int64_t biasCs, bool relu) {
    const __m512i high = _mm512_set1_epi32(int32_t(0xffff0000u));
    __m512 acc[Rows][Vectors];
    for (int r = 0; r < Rows; ++r)
      for (int v = 0; v < Vectors; ++v)
        acc[r][v] = _mm512_setzero_ps();
    for (int64_t q = 0; q < kp; ++q) {
      const uint32_t *bq = b + q * kNR, *aq = a + q * 2 * kMR;
      __m512 even[Vectors], odd[Vectors];
      for (int v = 0; v < Vectors; ++v) {
        __m512i words = _mm512_load_si512(bq + 16 * v);
        even[v] = _mm512_castsi512_ps(_mm512_slli_epi32(words, 16));
        odd[v] = _mm512_castsi512_ps(_mm512_and_si512(words, high));
      }
      for (int r = 0; r < Rows; ++r) {
        __m512 ae = _mm512_castsi512_ps(_mm512_set1_epi32(int32_t(aq[r])));
        __m512 ao =
            _mm512_castsi512_ps(_mm512_set1_epi32(int32_t(aq[kMR + r])));
        for (int v = 0; v < Vectors; ++v) {
          acc[r][v] = _mm512_fmadd_ps(ae, even[v], acc[r][v]);
          acc[r][v] = _mm512_fmadd_ps(ao, odd[v], acc[r][v]);
        }
      }
    }
    storeTile(acc, c, ldc, cols, keep, bias, biasRs, biasCs, relu);
  }
};

const BTarget target{"avx512",
                     false,
                     pairRows,
                     roundRow,
                     pairLines,
                     roundLines,
                     tileTable<Tile>(std::make_integer_sequence<int, kMR>{})};

} // namespace avx512

MXRT_TARGET_END

//===----------------------------------------------------------------------===//
// avx512bf16
//===----------------------------------------------------------------------===//

MXRT_TARGET_BEGIN("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")

namespace avx512bf16 {

// The packing of avx512:: with vcvtne2ps2bf16, which rounds as bf16Bits
// (nearest even, NaN quiet, denormals to zero) 32 floats at a time, in
// order: a third of the instructions (3136 x 64 x 576, whose A is packed
// once for 64 columns: a third of the time in packing before).

void pairRows(const float *r0, const float *r1, int64_t count, int64_t width,
              uint32_t *out) {
  // Words j and 16 + j (r0's and r1's) side by side.
  const __m512i interleave = _mm512_setr_epi32(
      0x00100000, 0x00110001, 0x00120002, 0x00130003, 0x00140004, 0x00150005,
      0x00160006, 0x00170007, 0x00180008, 0x00190009, 0x001a000a, 0x001b000b,
      0x001c000c, 0x001d000d, 0x001e000e, 0x001f000f);
  for (int64_t j = 0; j < width; j += 16) {
    __mmask16 in = avx512::firstLanes(count - j);
    __m512 v0 = _mm512_maskz_loadu_ps(in, r0 + j);
    __m512 v1 = r1 ? _mm512_maskz_loadu_ps(in, r1 + j) : _mm512_setzero_ps();
    __m512i both = (__m512i)_mm512_cvtne2ps_pbh(v1, v0);
    _mm512_mask_storeu_epi32(out + j, avx512::firstLanes(width - j),
                             _mm512_permutexvar_epi16(interleave, both));
  }
}

void pairLines(const float *const *lines, int count, int64_t kc, int width,
               int64_t stride, uint32_t *out) {
  int64_t kp = (kc + 1) / 2;
  __mmask16 store = avx512::firstLanes(width);
  for (int64_t q = 0; q < kp; q += 16) {
    int64_t k0 = 2 * q;
    __mmask16 in0 = avx512::firstLanes(kc - k0),
              in1 = avx512::firstLanes(kc - k0 - 16);
    __m512i r[16];
    for (int l = 0; l < 16; ++l)
      r[l] = l < count ? (__m512i)_mm512_cvtne2ps_pbh(
                             _mm512_maskz_loadu_ps(in1, lines[l] + k0 + 16),
                             _mm512_maskz_loadu_ps(in0, lines[l] + k0))
                       : _mm512_setzero_si512();
    avx512::transpose16(r);
    for (int64_t i = 0; i < std::min<int64_t>(16, kp - q); ++i)
      _mm512_mask_storeu_epi32(out + (q + i) * stride, store, r[i]);
  }
}

/// A packed as pairs (kMR words per pair of k); each row's word broadcast
/// and multiplied with B's vectors of words by vdpbf16ps.
template <int Rows, int Vectors> struct Tile {
  static void run(int64_t kp, const uint32_t *a, const uint32_t *b, float *c,
                  int64_t ldc, int cols, bool keep, const float *bias,
                  int64_t biasRs, int64_t biasCs, bool relu) {
    __m512 acc[Rows][Vectors];
    for (int r = 0; r < Rows; ++r)
      for (int v = 0; v < Vectors; ++v)
        acc[r][v] = _mm512_setzero_ps();
    for (int64_t q = 0; q < kp; ++q) {
      const uint32_t *bq = b + q * kNR, *aq = a + q * kMR;
      __m512bh bv[Vectors];
      for (int v = 0; v < Vectors; ++v)
        bv[v] = (__m512bh)_mm512_load_si512(bq + 16 * v);
      for (int r = 0; r < Rows; ++r) {
        __m512bh av = (__m512bh)_mm512_set1_epi32(int32_t(aq[r]));
        for (int v = 0; v < Vectors; ++v)
          acc[r][v] = _mm512_dpbf16_ps(acc[r][v], bv[v], av);
      }
    }
    avx512::storeTile(acc, c, ldc, cols, keep, bias, biasRs, biasCs, relu);
  }
};

const BTarget target{"avx512bf16",
                     true,
                     pairRows,
                     avx512::roundRow,
                     pairLines,
                     avx512::roundLines,
                     tileTable<Tile>(std::make_integer_sequence<int, kMR>{})};

} // namespace avx512bf16

MXRT_TARGET_END

#endif // __x86_64__

/// The path for this CPU: MXRT_KERNEL_ISA=avx512bf16 (or unset) the best
/// it has, avx512 the widening one, avx2 or portable the portable one.
/// The float32 family's choice (kernelIsa) comes first: where it runs no
/// AVX-512, neither does this family.
const BTarget &btarget() {
  static const BTarget &chosen = []() -> const BTarget & {
#if defined(__x86_64__)
    const char *forced = std::getenv("MXRT_KERNEL_ISA");
    std::string want = forced ? forced : "";
    __builtin_cpu_init();
    bool avx512 = std::string(kernelIsa()) == "avx512" &&
                  __builtin_cpu_supports("avx512bw") &&
                  __builtin_cpu_supports("avx512dq");
    if (avx512 && (want.empty() || want == "avx512bf16") &&
        __builtin_cpu_supports("avx512bf16"))
      return avx512bf16::target;
    if (avx512)
      return avx512::target;
#endif
    return portable::target;
  }();
  return chosen;
}

/// Words per row of an A panel for a slice of kc steps (also of all of k:
/// only a last slice is odd).
int64_t aWords(const BTarget &t, int64_t kc) {
  return t.aPairs ? (kc + 1) / 2 : (kc + 1) / 2 * 2;
}

/// This thread's scratch buffer `slot`, 64-byte aligned, at least `words`
/// 32-bit words (grown as needed, contents dropped).
enum Slot { kBlockA, kBlockB, kRows, kSharedA, kSharedB, kRound0, kRound1 };
uint32_t *scratch(Slot slot, int64_t words) {
  struct Free {
    void operator()(uint32_t *p) const { std::free(p); }
  };
  thread_local std::unique_ptr<uint32_t, Free> buffers[7];
  thread_local int64_t sizes[7] = {};
  if (sizes[slot] < words) {
    size_t bytes = (words * 4 + 63) / 64 * 64;
    auto *memory = static_cast<uint32_t *>(std::aligned_alloc(64, bytes));
    if (!memory)
      std::abort(); // no error path from generated code
    buffers[slot].reset(memory);
    sizes[slot] = words;
  }
  return buffers[slot].get();
}

/// Packs rows [i0, i0 + rows) x steps [p0, p0 + kc) of A into kMR-row
/// panels of aWords(kc) words per row (zero rows past `rows`).
void packA(const BTarget &t, const View &a, int64_t i0, int64_t rows,
           int64_t p0, int64_t kc, uint32_t *dst) {
  int64_t words = aWords(t, kc);
  float *tmp = reinterpret_cast<float *>(scratch(kRows, kMR * kc));
  for (int64_t ir = 0; ir < rows; ir += kMR, dst += kMR * words) {
    int count = static_cast<int>(std::min(kMR, rows - ir));
    if (a.kind == View::Kind::Matrix && a.cs != 1 && a.rs == 1) {
      // A transposed: a k step's rows are contiguous.
      const float *col = a.p + (i0 + ir) + p0 * a.cs;
      if (t.aPairs)
        for (int64_t q = 0; 2 * q < kc; ++q)
          t.pairRows(col + 2 * q * a.cs,
                     2 * q + 1 < kc ? col + (2 * q + 1) * a.cs : nullptr, count,
                     kMR, dst + q * kMR);
      else
        for (int64_t p = 0; p < words; ++p)
          t.roundRow(col + p * a.cs, p < kc ? count : 0, kMR, dst + p * kMR);
      continue;
    }
    const float *lines[kMR];
    for (int r = 0; r < count; ++r)
      lines[r] = viewRow(a, i0 + ir + r, p0, kc, tmp + r * kc);
    (t.aPairs ? t.pairLines : t.roundLines)(lines, count, kc, kMR, kMR, dst);
  }
}

/// Packs steps [p0, p0 + kc) x columns [j0, j0 + nc) of B into kNR-column
/// panels of (kc + 1) / 2 pairs (zero columns past nc).
void packB(const BTarget &t, const View &b, int64_t p0, int64_t kc, int64_t j0,
           int64_t nc, uint32_t *dst) {
  int64_t kp = (kc + 1) / 2, panels = (nc + kNR - 1) / kNR;
  if (b.kind == View::Kind::Matrix && b.rs == 1 && b.cs != 1) {
    // B transposed (a weight stored filters by k): a column's steps are
    // contiguous, 16 columns transposed at a time.
    for (int64_t jp = 0; jp < panels; ++jp)
      for (int64_t half = 0; half < kNR; half += 16) {
        int64_t first = jp * kNR + half;
        int count = static_cast<int>(std::clamp<int64_t>(nc - first, 0, 16));
        const float *lines[16];
        for (int l = 0; l < count; ++l)
          lines[l] = b.p + (j0 + first + l) * b.cs + p0;
        t.pairLines(lines, count, kc, 16, kNR, dst + jp * kp * kNR + half);
      }
    return;
  }
  float *tmp = reinterpret_cast<float *>(scratch(kRows, 2 * nc));
  for (int64_t q = 0; q < kp; ++q) {
    const float *r0 = viewRow(b, p0 + 2 * q, j0, nc, tmp);
    const float *r1 =
        2 * q + 1 < kc ? viewRow(b, p0 + 2 * q + 1, j0, nc, tmp + nc) : nullptr;
    for (int64_t jp = 0; jp < panels; ++jp)
      t.pairRows(r0 + jp * kNR, r1 ? r1 + jp * kNR : nullptr,
                 std::min(kNR, nc - jp * kNR), kNR,
                 dst + jp * kp * kNR + q * kNR);
  }
}

int64_t roundUp(int64_t x, int64_t unit) {
  return (x + unit - 1) / unit * unit;
}

/// Words of all of A (m x k) packed by packAllA.
int64_t packedAWords(const BTarget &t, int64_t m, int64_t k) {
  return roundUp(m, kMR) * aWords(t, k);
}
/// All of A, slice by slice: slice pc at aWords(pc) * mRound, its panels
/// as packA lays out a block's.
void packAllA(const BTarget &t, const View &a, int64_t m, int64_t k,
              uint32_t *dst) {
  for (int64_t pc = 0; pc < k; pc += kKC)
    packA(t, a, 0, m, pc, std::min(kKC, k - pc),
          dst + aWords(t, pc) * roundUp(m, kMR));
}

/// Words of all of B (k x n) packed by packAllB.
int64_t packedBWords(int64_t n, int64_t k) {
  return roundUp(n, kNR) * ((k + 1) / 2);
}
/// All of B, slice by slice: slice pc at pc / 2 * nRound, its panels as
/// packB lays out a block's.
void packAllB(const BTarget &t, const View &b, int64_t n, int64_t k,
              uint32_t *dst) {
  for (int64_t pc = 0; pc < k; pc += kKC)
    packB(t, b, pc, std::min(kKC, k - pc), 0, n,
          dst + pc / 2 * roundUp(n, kNR));
}

/// Packed copies of constant operands (MXRT_KERNEL_CONST_A / CONST_B, a
/// model's weights), made on first use and kept for the process, keyed by
/// address, shape and layout, as the float32 kernels keep theirs.
class KeptPacks {
public:
  enum class Layout { A, B, Filters, Rounded };
  using Key =
      std::tuple<const float *, int64_t, int64_t, int64_t, int64_t, Layout>;

  template <typename Fill>
  const uint32_t *get(const Key &key, int64_t words, const Fill &fill) {
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<uint32_t, Free> &entry = entries[key];
    if (!entry) {
      auto *memory = static_cast<uint32_t *>(std::aligned_alloc(
          64, (std::max<int64_t>(words, 1) * 4 + 63) / 64 * 64));
      if (!memory)
        std::abort(); // no error path from generated code
      fill(memory);
      entry.reset(memory);
    }
    return entry.get();
  }

private:
  struct Free {
    void operator()(uint32_t *p) const { std::free(p); }
  };
  std::mutex mutex;
  std::map<Key, std::unique_ptr<uint32_t, Free>> entries;
};

KeptPacks &keptPacks() {
  static auto *kept = new KeptPacks; // outlives every call
  return *kept;
}

/// A's packed whole, kept (a constant A: a Matrix view).
const uint32_t *keptA(const View &a, int64_t m, int64_t k) {
  const BTarget &t = btarget();
  return keptPacks().get({a.p, m, k, a.rs, a.cs, KeptPacks::Layout::A},
                         packedAWords(t, m, k),
                         [&](uint32_t *dst) { packAllA(t, a, m, k, dst); });
}

/// B's packed whole, kept (a constant B: a Matrix or Filters view).
const uint32_t *keptB(const View &b, int64_t n, int64_t k) {
  const BTarget &t = btarget();
  bool filters = b.kind == View::Kind::Filters;
  return keptPacks().get(
      {b.p, n, k, filters ? b.conv->cg : b.rs, filters ? b.conv->taps : b.cs,
       filters ? KeptPacks::Layout::Filters : KeptPacks::Layout::B},
      packedBWords(n, k), [&](uint32_t *dst) { packAllB(t, b, n, k, dst); });
}

/// One product C (m x n) = epilogue(A (m x k) B (k x n) + bias).
struct Product {
  int64_t m, n, k;
  View a, b;
  float *c;
  int64_t cRs, cCs;
  const float *bias;
  int64_t biasRs, biasCs;
  int32_t flags;
  /// A (B) packed whole by packAllA (packAllB), or NULL: packed block by
  /// block.
  const uint32_t *packedA, *packedB;
};

/// Writes a tile (rows x cols, rows kNR apart) to C at (i, j) with any
/// strides: the epilogue of products the micro-kernels cannot store into.
void storeTile(const Product &pr, const float *tile, int64_t i, int64_t j,
               int64_t rows, int64_t cols, bool keep, bool withBias,
               bool relu) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t s = 0; s < cols; ++s) {
      float v = tile[r * kNR + s];
      if (withBias)
        v += pr.bias[(i + r) * pr.biasRs + (j + s) * pr.biasCs];
      float &out = pr.c[(i + r) * pr.cRs + (j + s) * pr.cCs];
      if (keep)
        v += out;
      out = relu ? std::max(v, 0.0f) : v;
    }
}

/// Rows [i0, i0 + m) x columns [j0, j0 + n) of pr on this thread (i0 a
/// multiple of kMR, j0 of kNR).
void solve(const Product &pr, int64_t i0, int64_t m, int64_t j0, int64_t n) {
  const BTarget &t = btarget();
  bool accumulate = pr.flags & MXRT_KERNEL_ACCUMULATE;
  bool relu = pr.flags & MXRT_KERNEL_RELU;
  if (pr.k == 0) { // C = epilogue(bias)
    alignas(64) float zero[kNR] = {};
    for (int64_t i = i0; i < i0 + m; ++i)
      for (int64_t j = j0; j < j0 + n; j += kNR)
        storeTile(pr, zero, i, j, 1, std::min(kNR, j0 + n - j), accumulate,
                  pr.bias != nullptr, relu);
    return;
  }
  uint32_t *bufferA =
      pr.packedA ? nullptr : scratch(kBlockA, kMC * aWords(t, kKC));
  uint32_t *bufferB = pr.packedB ? nullptr : scratch(kBlockB, kNC * kKC / 2);
  bool direct = pr.cCs == 1 && (!pr.bias || pr.biasCs == 0 || pr.biasCs == 1);
  alignas(64) float tile[kMR * kNR];
  int64_t mRound = roundUp(pr.m, kMR), nRound = roundUp(pr.n, kNR);
  for (int64_t jc = j0; jc < j0 + n; jc += kNC) {
    int64_t nc = std::min(kNC, j0 + n - jc);
    for (int64_t pc = 0; pc < pr.k; pc += kKC) {
      int64_t kc = std::min(kKC, pr.k - pc), kp = (kc + 1) / 2;
      int64_t words = aWords(t, kc);
      bool first = pc == 0, last = pc + kc == pr.k;
      const uint32_t *blockB = bufferB;
      if (pr.packedB)
        blockB = pr.packedB + pc / 2 * nRound + jc / kNR * kp * kNR;
      else
        packB(t, pr.b, pc, kc, jc, nc, bufferB);
      for (int64_t ic = i0; ic < i0 + m; ic += kMC) {
        int64_t mc = std::min(kMC, i0 + m - ic);
        const uint32_t *blockA = bufferA;
        if (pr.packedA)
          blockA = pr.packedA + aWords(t, pc) * mRound + ic * words;
        else
          packA(t, pr.a, ic, mc, pc, kc, bufferA);
        for (int64_t jr = 0; jr < nc; jr += kNR) {
          int cols = static_cast<int>(std::min(kNR, nc - jr));
          TileFn const *tiles = t.tiles[cols > 16 ? 1 : 0].data();
          const uint32_t *panelB = blockB + jr / kNR * kp * kNR;
          for (int64_t ir = 0; ir < mc; ir += kMR) {
            int64_t rows = std::min(kMR, mc - ir);
            int64_t i = ic + ir, j = jc + jr;
            const uint32_t *panelA = blockA + ir * words;
            bool keep = !first || accumulate;
            // C's tile, fetched while the micro-kernel runs: a large C is
            // in L3 or memory by the next slice of k (without this, the
            // stores took a seventh of a 1024^3 product's time).
            for (int64_t r = 0; r < rows; ++r) {
              const float *at = pr.c + (i + r) * pr.cRs + j * pr.cCs;
              __builtin_prefetch(at, 1);
              __builtin_prefetch(at + (cols - 1) * pr.cCs, 1);
            }
            if (direct) {
              const float *bias = first && pr.bias
                                      ? pr.bias + i * pr.biasRs + j * pr.biasCs
                                      : nullptr;
              tiles[rows - 1](kp, panelA, panelB, pr.c + i * pr.cRs + j, pr.cRs,
                              cols, keep, bias, pr.biasRs, pr.biasCs,
                              last && relu);
            } else {
              tiles[rows - 1](kp, panelA, panelB, tile, kNR, cols, false,
                              nullptr, 0, 0, false);
              storeTile(pr, tile, i, j, rows, cols, keep, first && pr.bias,
                        last && relu);
            }
          }
        }
      }
    }
  }
}

/// Multiply-adds that packing one element of A or B costs, about: a
/// vdpbf16ps does 32 (two per cycle), rounding and pairing one element
/// takes about a cycle, gathering a window's element from an image more.
constexpr int64_t kPackCost = 16;

/// Runs pr on the current pool (serially without one, or when small):
/// split into one piece per thread along whichever of m and n makes the
/// largest piece cheapest, in whole micro-tiles (near ties to n). A piece
/// costs its products and its packing: every piece along n packs all of
/// A, every piece along m all of B, unless that operand comes packed (a
/// constant, or shared by a batch). A channels-last convolution's windows
/// (A) against kept filters (B) split along m: split along n, both threads
/// gathered and paired all of the windows (ResNet-50 at two threads, 1x1
/// layers of 56 x 56 pixels and 64 filters).
void runProduct(const Product &pr) {
  ThreadPool *pool = ThreadPool::current();
  int64_t threads = pool ? pool->size() : 1;
  if (threads <= 1 || pr.m * pr.n * pr.k < kParallelMinWork) {
    solve(pr, 0, pr.m, 0, pr.n);
    return;
  }
  auto step = [threads](int64_t extent, int64_t unit) {
    int64_t units = (extent + unit - 1) / unit;
    return (units + threads - 1) / threads * unit;
  };
  int64_t stepN = step(pr.n, kNR), stepM = step(pr.m, kMR);
  int64_t packA = pr.packedA ? 0 : kPackCost * pr.k,
          packB = pr.packedB ? 0 : kPackCost * pr.k;
  int64_t rowsM = std::min(pr.m, stepM), colsN = std::min(pr.n, stepN);
  int64_t costN = roundUp(pr.m, kMR) * (colsN * pr.k + packA) + colsN * packB;
  int64_t costM = roundUp(pr.n, kNR) * (rowsM * pr.k + packB) + rowsM * packA;
  bool alongN = 10 * costN <= 11 * costM;
  struct Job {
    const Product *pr;
    bool alongN;
    int64_t step;
  } job{&pr, alongN, alongN ? stepN : stepM};
  int64_t parts = ((alongN ? pr.n : pr.m) + job.step - 1) / job.step;
  pool->parallelFor(
      parts,
      [](void *arg, int64_t index) {
        const Job &j = *static_cast<const Job *>(arg);
        const Product &p = *j.pr;
        int64_t begin = index * j.step;
        if (j.alongN)
          solve(p, 0, p.m, begin, std::min(j.step, p.n - begin));
        else
          solve(p, begin, std::min(j.step, p.m - begin), 0, p.n);
      },
      &job);
}

/// Runs count products made by make(i): whole products per thread when
/// there are at least as many as threads, else each split.
template <typename Make> void runProducts(int64_t count, const Make &make) {
  ThreadPool *pool = ThreadPool::current();
  int64_t threads = pool ? pool->size() : 1;
  if (threads > 1 && count >= threads) {
    pool->parallelFor(
        count,
        [](void *arg, int64_t index) {
          Product pr = (*static_cast<const Make *>(arg))(index);
          solve(pr, 0, pr.m, 0, pr.n);
        },
        const_cast<Make *>(&make));
    return;
  }
  for (int64_t i = 0; i < count; ++i)
    runProduct(make(i));
}

} // namespace

const char *bgemmPath() { return btarget().name; }

void bgemm(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a,
           int64_t aBs, int64_t aRs, int64_t aCs, const float *b, int64_t bBs,
           int64_t bRs, int64_t bCs, float *c, int64_t cBs, int64_t cRs,
           int64_t cCs, const float *bias, int64_t biasBs, int64_t biasRs,
           int64_t biasCs, int32_t flags) {
  if (batch <= 0 || m <= 0 || n <= 0)
    return;
  const BTarget &t = btarget();
  bool constA = flags & MXRT_KERNEL_CONST_A,
       constB = flags & MXRT_KERNEL_CONST_B;
  // An operand that every problem of the batch shares is packed once, here
  // (the pool's threads read it until the call returns).
  const uint32_t *sharedA = nullptr, *sharedB = nullptr;
  if (k > 0 && batch > 1 && aBs == 0 && !constA) {
    uint32_t *packed = scratch(kSharedA, packedAWords(t, m, k));
    packAllA(t, matrixView(a, aRs, aCs), m, k, packed);
    sharedA = packed;
  }
  if (k > 0 && batch > 1 && bBs == 0 && !constB) {
    uint32_t *packed = scratch(kSharedB, packedBWords(n, k));
    packAllB(t, matrixView(b, bRs, bCs), n, k, packed);
    sharedB = packed;
  }
  auto make = [&](int64_t i) {
    Product pr = {};
    pr.m = m, pr.n = n, pr.k = k;
    pr.a = matrixView(a + i * aBs, aRs, aCs);
    pr.b = matrixView(b + i * bBs, bRs, bCs);
    pr.c = c + i * cBs, pr.cRs = cRs, pr.cCs = cCs;
    pr.bias = bias ? bias + i * biasBs : nullptr;
    pr.biasRs = biasRs, pr.biasCs = biasCs;
    pr.flags = flags;
    pr.packedA = constA && k > 0 ? keptA(pr.a, m, k) : sharedA;
    pr.packedB = constB && k > 0 ? keptB(pr.b, n, k) : sharedB;
    return pr;
  };
  runProducts(batch, make);
}

void bconv2d(int64_t n, int64_t c, int64_t h, int64_t w, int64_t f, int64_t oh,
             int64_t ow, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
             int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups,
             const float *x, const float *weight, const float *bias, float *y,
             int32_t flags) {
  if (n <= 0 || f <= 0 || oh <= 0 || ow <= 0 || groups <= 0)
    return;
  const BTarget &t = btarget();
  int64_t cg = c / groups, fg = f / groups, taps = kh * kw, k = cg * taps;
  int64_t pixels = oh * ow;
  ConvGeometry geometry{c,  h,  w,  oh, ow, kh, kw,  sh,
                        sw, ph, pw, dh, dw, cg, taps};
  bool constant = flags & MXRT_KERNEL_CONST_A;
  // (A parameter weight, MXRT_KERNEL_PARAM_A, is packed per call.)
  int32_t epilogue = flags & (MXRT_KERNEL_ACCUMULATE | MXRT_KERNEL_RELU);
  // A 1x1 window of stride 1 without padding reads the input as it is.
  bool plain = taps == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0 &&
               oh == h && ow == w;
  if (flags & MXRT_KERNEL_NHWC) {
    // One product per group over all images' pixels: the windows (rows)
    // times the group's filters (columns), y's rows of f.
    for (int64_t g = 0; g < groups; ++g) {
      Product pr = {};
      pr.m = n * pixels, pr.n = fg, pr.k = k;
      pr.a = plain ? matrixView(x + g * cg, c, 1)
                   : View{View::Kind::Windows, x + g * cg, 0, 0, &geometry};
      const float *filters = weight + g * fg * k;
      pr.b = taps == 1 ? matrixView(filters, 1, cg)
                       : View{View::Kind::Filters, filters, 0, 0, &geometry};
      pr.c = y + g * fg, pr.cRs = f, pr.cCs = 1;
      pr.bias = bias ? bias + g * fg : nullptr, pr.biasRs = 0, pr.biasCs = 1;
      pr.flags = epilogue;
      pr.packedB = constant && k > 0 ? keptB(pr.b, fg, k) : nullptr;
      runProduct(pr);
    }
    return;
  }
  // NCHW: per image and group, the group's filters (rows) times the
  // image's im2col matrix, y's planes. Filters that every image shares
  // are packed once per call (or kept, when constant).
  const uint32_t *shared = nullptr;
  int64_t groupWords = packedAWords(t, fg, k);
  if (!constant && n > 1 && k > 0) {
    uint32_t *packed = scratch(kSharedA, groups * groupWords);
    for (int64_t g = 0; g < groups; ++g)
      packAllA(t, matrixView(weight + g * fg * k, k, 1), fg, k,
               packed + g * groupWords);
    shared = packed;
  }
  auto make = [&](int64_t i) {
    int64_t image = i / groups, g = i % groups;
    const float *channels = x + (image * c + g * cg) * h * w;
    Product pr = {};
    pr.m = fg, pr.n = pixels, pr.k = k;
    pr.a = matrixView(weight + g * fg * k, k, 1);
    pr.b = plain ? matrixView(channels, h * w, 1)
                 : View{View::Kind::Im2col, channels, 0, 0, &geometry};
    pr.c = y + (image * f + g * fg) * pixels, pr.cRs = pixels, pr.cCs = 1;
    pr.bias = bias ? bias + g * fg : nullptr, pr.biasRs = 1, pr.biasCs = 0;
    pr.flags = epilogue;
    pr.packedA = constant && k > 0 ? keptA(pr.a, fg, k)
                 : shared          ? shared + g * groupWords
                                   : nullptr;
    return pr;
  };
  runProducts(n * groups, make);
}

const float *bf16Copy(const float *x, int64_t count, bool kept, int slot) {
  const BTarget &t = btarget();
  auto fill = [&](uint32_t *out) {
    for (int64_t i = 0; i < count; i += 4096)
      t.roundRow(x + i, std::min<int64_t>(4096, count - i),
                 std::min<int64_t>(4096, count - i), out + i);
  };
  const uint32_t *rounded;
  if (kept) {
    rounded = keptPacks().get({x, count, 0, 0, 0, KeptPacks::Layout::Rounded},
                              count, fill);
  } else {
    uint32_t *out = scratch(slot ? kRound1 : kRound0, count);
    fill(out);
    rounded = out;
  }
  return reinterpret_cast<const float *>(rounded);
}

} // namespace mxrt
