// SPDX-License-Identifier: Apache-2.0
// The 8-bit integer GEMM family: mxrt_kernel_qgemm_u8s8, C (int32) = (A -
// a_zero)(B - b_zero) with A uint8 (or int8) and B int8, exactly. Each
// instruction set computes the raw sums of A's unsigned bytes times B
// (int8 A is shifted to uint8 by +128, its zero point with it); the
// zero points come off afterwards through B's column sums and A's row sums:
//
//   sum_p (a - za)(b - zb_j) = sum a b - za colsum_j - zb_j rowsum_i
//                              + k za zb_j.
//
// Paths, picked once by the CPU's features (and MXRT_KERNEL_ISA):
//   vnni512   AVX-512 VNNI: vpdpbusd multiplies 4 unsigned bytes of A by 4
//             signed bytes of B and adds the 4 products to an int32 lane,
//             without saturation; 12 rows x 32 columns a micro-kernel.
//   avx2      AVX2: both widened to int16 and multiplied by vpmaddwd (2
//             products a lane). vpmaddubsw, the byte form, saturates its
//             int16 pair sums (255 * 127 * 2 > 32767) and would not be exact.
//   portable  one product at a time.
#include "kernels/qgemm/qgemm.h"

#include "kernels/bgemm/bgemm.h"
#include "kernels/isa/isa.h"
#include "kernels/isa/target.h"
#include "mxrt/kernels.h"
#include "threadpool.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace mxrt {
namespace {

/// One product, A already in its unsigned form's terms (aZero includes the
/// +128 of a signed A).
struct QProblem {
  int64_t m, n, k;
  const uint8_t *a;
  int64_t lda;
  bool signedA;
  const int8_t *b;
  /// B(q, j) is b[q * ldb + j * bCs].
  int64_t ldb, bCs;
  /// 0x80 for a uint8 B (read as int8 shifted by -128), else 0.
  uint8_t flipB;
  /// B packed whole by the path's packAll (a constant B's, kept), or null.
  const void *packedB = nullptr;
  /// A's rows packed by the path's packAllA (a constant A's, kept), or
  /// null.
  const void *packedA = nullptr;
  /// A int8 and B uint8 taken as they are (no shifts; signedA false and
  /// flipB 0): the path's kernel multiplies B's unsigned bytes by A's
  /// signed ones (a convolution's filters times its windows).
  bool swapped = false;
  /// A convolution's filters as B for channels-last windows (0: B as the
  /// strides say): B(q, j) with q = tap * tapChannels + ci is filter j's
  /// weight of channel ci at that tap, b[j * bCs + ci * taps + tap].
  int64_t tapChannels = 0, taps = 0;
};

// Rounding to an integer by adding and taking away 1.5 * 2^23 (half to even,
// in the default rounding mode), exact for |x| <= 2^22; beyond, the clamp to
// [lo, hi] decides anyway.
constexpr float kRound = 12582912.0f, kLimit = 4194304.0f;

/// What a micro-kernel that finishes its own sums does with them (a
/// channels-last convolution's: row r an output pixel, column j a filter,
/// the pointers at the panel's first column): plus colAdd[j], minus zb[j] *
/// rowSums[r] (zb null: none); then stored as int32 at y32 + r * ldy + j,
/// or times m[j * ms] (ms 0 or 1), rounded half to even, plus zero, clamped
/// to [lo, hi] and stored as a byte at y8 + r * ldy + j.
struct RowEpilogue {
  const uint32_t *colAdd;
  const int32_t *zb;
  const uint32_t *rowSums;
  const float *m;
  int64_t ms;
  float zero, lo, hi;
  uint8_t *y8;
  int32_t *y32;
  int64_t ldy;
};

/// What a swapped micro-kernel (a convolution's filters as rows times its
/// windows, NCHW) that finishes its sums does with them (the pointers at
/// the block's first row and column): plus rowAdd[r], times m[r * ms],
/// rounded half to even, plus zero, clamped to [lo, hi] and stored as a
/// byte at y8 + r * ldy + j.
struct ColumnEpilogue {
  const uint32_t *rowAdd;
  const float *m;
  int64_t ms;
  float zero, lo, hi;
  uint8_t *y8;
  int64_t ldy;
};

/// Element (q, j) of B as int8 (a uint8 B shifted by -128).
inline int8_t bAt(const QProblem &p, int64_t q, int64_t j) {
  return static_cast<int8_t>(static_cast<uint8_t>(p.b[q * p.ldb + j * p.bCs]) ^
                             p.flipB);
}

/// Element (q, j) of B as the kernels multiply it.
inline int32_t bValue(const QProblem &p, int64_t q, int64_t j) {
  return p.swapped ? static_cast<uint8_t>(p.b[q * p.ldb + j * p.bCs])
                   : bAt(p, q, j);
}

/// A path: raw(i, j) = sum_p unsigned(a[i][p]) b[p][j] for columns [j0, j0
/// + cols) of every row, into raw (m x cols, rows `cols` apart).
using RawBlockFn = void (*)(const QProblem &, int64_t j0, int64_t cols,
                            int32_t *raw);

/// A's row i as unsigned values of type T (int8 shifted by +128), k
/// padded with zeros to kp.
template <typename T>
void packRow(const QProblem &p, int64_t i, int64_t kp, T *out) {
  const uint8_t *a = p.a + i * p.lda;
  uint8_t flip = p.signedA ? 0x80 : 0;
  for (int64_t q = 0; q < p.k; ++q)
    out[q] = static_cast<uint8_t>(a[q] ^ flip);
  std::fill(out + p.k, out + kp, T(0));
}

/// B's columns [j0, j0 + cols) as panels of NR columns of type T: for each
/// group of Group k steps, NR x Group values, column by column (what one
/// lane of the path's multiply-add takes), zeros past k and past the
/// block's columns.
template <typename T, int Group, int NR>
void packB(const QProblem &p, int64_t j0, int64_t cols, int64_t groups,
           T *out) {
  for (int64_t jp = 0; jp < cols; jp += NR) {
    T *panel = out + jp / NR * groups * Group * NR;
    for (int64_t g = 0; g < groups; ++g)
      for (int c = 0; c < NR; ++c)
        for (int t = 0; t < Group; ++t) {
          int64_t q = Group * g + t, j = jp + c;
          panel[(g * NR + c) * Group + t] =
              q < p.k && j < cols ? bAt(p, q, j0 + j) : 0;
        }
  }
}

/// Thread-local scratch of at least `bytes`, 64-byte aligned.
template <int Slot> uint8_t *scratch(size_t bytes) {
  thread_local std::vector<uint8_t> buffer;
  if (buffer.size() < bytes + 64)
    buffer.resize(bytes + 64);
  auto at = reinterpret_cast<uintptr_t>(buffer.data());
  return buffer.data() + ((64 - at % 64) % 64);
}

/// Columns [j0, j0 + cols) of a product on Path: B packed in Path::kNR-column
/// panels of Path::kGroup k steps (or its kept panels), A in blocks of up to
/// Path::kMR rows (or its kept rows); each block's call(i0, rows, a, kp,
/// groups, b, panel) multiplies it by the panels (b the first, panel
/// values apart).
template <class Path, typename Call>
void forEachRowBlock(const QProblem &p, int64_t j0, int64_t cols,
                     const Call &call) {
  using A = typename Path::AValue;
  using B = typename Path::BValue;
  constexpr int kMR = Path::kMR, kNR = Path::kNR, kGroup = Path::kGroup;
  int64_t groups = (p.k + kGroup - 1) / kGroup, kp = kGroup * groups;
  int64_t panel = groups * kGroup * kNR;
  const B *b;
  if (p.packedB) { // blocks start on whole panels
    b = static_cast<const B *>(p.packedB) + j0 / kNR * panel;
  } else {
    auto *packed = reinterpret_cast<B *>(
        scratch<1>((cols + kNR - 1) / kNR * panel * sizeof(B)));
    Path::pack(p, j0, cols, groups, packed);
    b = packed;
  }
  auto *rowsA = reinterpret_cast<A *>(scratch<0>(kMR * kp * sizeof(A)));
  for (int64_t i0 = 0; i0 < p.m; i0 += kMR) {
    int rows = static_cast<int>(std::min<int64_t>(kMR, p.m - i0));
    const A *a = rowsA;
    if (p.packedA)
      a = static_cast<const A *>(p.packedA) + i0 * kp;
    else
      for (int r = 0; r < rows; ++r)
        packRow(p, i0 + r, kp, rowsA + r * kp);
    call(i0, rows, a, kp, groups, b, panel);
  }
}

/// A path's raw sums over a block of columns (forEachRowBlock's blocks),
/// Path::kernels[rows - 1] over each panel.
template <class Path>
void rawBlock(const QProblem &p, int64_t j0, int64_t cols, int32_t *raw) {
  constexpr int kNR = Path::kNR;
  forEachRowBlock<Path>(
      p, j0, cols,
      [&](int64_t i0, int rows, const auto *a, int64_t kp, int64_t groups,
          const auto *b, int64_t panel) {
        const auto &kernels = p.swapped ? Path::swappedKernels : Path::kernels;
        for (int64_t jp = 0; jp < cols; jp += kNR)
          kernels[rows - 1](
              groups, a, kp, b + jp / kNR * panel, raw + i0 * cols + jp, cols,
              static_cast<int>(std::min<int64_t>(kNR, cols - jp)));
      });
}

/// rawBlock<Path> for a swapped product whose sums Path's swapped finishing
/// kernels finish (ColumnEpilogue at row 0, column j0).
template <class Path>
void finishingBlock(const QProblem &p, int64_t j0, int64_t cols,
                    const ColumnEpilogue &e) {
  constexpr int kNR = Path::kNR;
  forEachRowBlock<Path>(
      p, j0, cols,
      [&](int64_t i0, int rows, const auto *a, int64_t kp, int64_t groups,
          const auto *b, int64_t panel) {
        for (int64_t jp = 0; jp < cols; jp += kNR) {
          ColumnEpilogue at = e;
          at.rowAdd += i0;
          at.m += i0 * e.ms;
          at.y8 += i0 * e.ldy + j0 + jp;
          Path::swappedFinishingKernels[rows - 1](
              groups, a, kp, b + jp / kNR * panel, at,
              static_cast<int>(std::min<int64_t>(kNR, cols - jp)));
        }
      });
}

/// The bytes of all of B packed by packAllB<Path>.
template <class Path> size_t packedBBytes(int64_t n, int64_t k) {
  int64_t groups = (k + Path::kGroup - 1) / Path::kGroup;
  return (n + Path::kNR - 1) / Path::kNR * groups * Path::kGroup * Path::kNR *
         sizeof(typename Path::BValue);
}

/// All of B's columns packed as rawBlock<Path> packs a block's.
template <class Path> void packAllB(const QProblem &p, void *out) {
  Path::pack(p, 0, p.n, (p.k + Path::kGroup - 1) / Path::kGroup,
             static_cast<typename Path::BValue *>(out));
}

/// The bytes of all of A's rows packed by packAllA<Path>.
template <class Path> size_t packedABytes(int64_t m, int64_t k) {
  int64_t groups = (k + Path::kGroup - 1) / Path::kGroup;
  return m * groups * Path::kGroup * sizeof(typename Path::AValue);
}

/// All of A's rows packed as rawBlock<Path> packs a block's, one after
/// another.
template <class Path> void packAllA(const QProblem &p, void *out) {
  int64_t kp = (p.k + Path::kGroup - 1) / Path::kGroup * Path::kGroup;
  auto *rows = static_cast<typename Path::AValue *>(out);
  for (int64_t i = 0; i < p.m; ++i)
    packRow(p, i, kp, rows + i * kp);
}

/// Unrolls the loop after it fully (clang; other compilers decide).
#if defined(__clang__)
#define MXRT_UNROLL _Pragma("clang loop unroll(full)")
#else
#define MXRT_UNROLL
#endif

/// kernels[r - 1] = Kernel<r> for r in 1..sizeof(Rows).
template <typename Fn, template <int> class Kernel, int... Rows>
constexpr std::array<Fn, sizeof...(Rows)>
kernelTable(std::integer_sequence<int, Rows...>) {
  return {&Kernel<Rows + 1>::run...};
}

//===----------------------------------------------------------------------===//
// portable
//===----------------------------------------------------------------------===//

void rawBlockPortable(const QProblem &p, int64_t j0, int64_t cols,
                      int32_t *raw) {
  auto *row = scratch<0>(p.k + 1);
  for (int64_t i = 0; i < p.m; ++i) {
    packRow(p, i, p.k, row);
    int32_t *out = raw + i * cols;
    std::fill(out, out + cols, 0);
    for (int64_t q = 0; q < p.k; ++q) {
      int32_t a = row[q];
      for (int64_t j = 0; j < cols; ++j)
        out[j] += a * bAt(p, q, j0 + j);
    }
  }
}

namespace portable {
/// 4 rows x 16 columns, one k step at a time (the channels-last
/// convolution's rows on this path).
template <int Rows> struct Kernel {
  static void run(int64_t groups, const uint8_t *a, int64_t kp, const int8_t *b,
                  int32_t *raw, int64_t ldr, int cols) {
    int32_t acc[Rows][16] = {};
    for (int64_t g = 0; g < groups; ++g)
      for (int r = 0; r < Rows; ++r) {
        int32_t av = a[r * kp + g];
        for (int c = 0; c < 16; ++c)
          acc[r][c] += av * b[g * 16 + c];
      }
    for (int r = 0; r < Rows; ++r)
      std::memcpy(raw + r * ldr, acc[r], cols * sizeof(int32_t));
  }
};

struct Path {
  using AValue = uint8_t;
  using BValue = int8_t;
  static constexpr int kMR = 4, kNR = 16, kGroup = 1;
  static constexpr bool kFinishes = false;
  static constexpr auto pack = packB<int8_t, 1, 16>;
  static constexpr auto kernels =
      kernelTable<void (*)(int64_t, const uint8_t *, int64_t, const int8_t *,
                           int32_t *, int64_t, int),
                  Kernel>(std::make_integer_sequence<int, kMR>{});
};
} // namespace portable

#if defined(__x86_64__)

#include "kernels/qgemm/x86_paths.inc"

#endif // __x86_64__

struct NhwcConv;
template <class Path>
void nhwcRows(const NhwcConv &cv, int64_t g, int64_t r0, int64_t r1);
template <class Path> void packFiltersNhwc(const QProblem &p, void *out);

/// The family's dispatch table: a path's name, its raw sums and its column
/// panel (a block of columns is a whole number of them).
struct QTarget {
  const char *name;
  RawBlockFn rawBlock;
  int64_t panel;
  /// Packing all of B ahead (null: the path reads B in place).
  size_t (*packedBytes)(int64_t n, int64_t k);
  void (*packAll)(const QProblem &, void *);
  /// Packing all of A's rows ahead (null: the path reads A in place).
  size_t (*packedABytes)(int64_t m, int64_t k);
  void (*packAllA)(const QProblem &, void *);
  /// Whether the path multiplies an int8 A by a uint8 B as they are
  /// (QProblem::swapped).
  bool swaps;
  /// A channels-last convolution: output rows [r0, r1) of group g, and
  /// the filters (QProblem::tapChannels) packed as B for it.
  void (*convRows)(const NhwcConv &, int64_t g, int64_t r0, int64_t r1);
  /// A swapped product's columns [j0, j0 + cols) finished in its kernels
  /// (null: the path has none).
  void (*finishBlock)(const QProblem &, int64_t j0, int64_t cols,
                      const ColumnEpilogue &);
  size_t (*filterBytes)(int64_t n, int64_t k);
  void (*packFilters)(const QProblem &, void *);
};

const QTarget &qtarget() {
  static const QTarget chosen = [] {
    std::string isa = kernelIsa();
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (isa == "avx512" && __builtin_cpu_supports("avx512vnni") &&
        __builtin_cpu_supports("avx512bw"))
      return QTarget{"vnni512",
                     rawBlock<vnni512::Path>,
                     vnni512::Path::kNR,
                     packedBBytes<vnni512::Path>,
                     packAllB<vnni512::Path>,
                     packedABytes<vnni512::Path>,
                     packAllA<vnni512::Path>,
                     true,
                     nhwcRows<vnni512::Path>,
                     finishingBlock<vnni512::Path>,
                     packedBBytes<vnni512::Path>,
                     packFiltersNhwc<vnni512::Path>};
    if (isa == "avx512" || isa == "avx2")
      return QTarget{"avx2",
                     rawBlock<avx2::Path>,
                     avx2::Path::kNR,
                     packedBBytes<avx2::Path>,
                     packAllB<avx2::Path>,
                     packedABytes<avx2::Path>,
                     packAllA<avx2::Path>,
                     false,
                     nhwcRows<avx2::Path>,
                     nullptr,
                     packedBBytes<avx2::Path>,
                     packFiltersNhwc<avx2::Path>};
#endif
    return QTarget{"portable",
                   rawBlockPortable,
                   16,
                   nullptr,
                   nullptr,
                   nullptr,
                   nullptr,
                   false,
                   nhwcRows<portable::Path>,
                   nullptr,
                   packedBBytes<portable::Path>,
                   packFiltersNhwc<portable::Path>};
  }();
  return chosen;
}

/// A constant operand's packed form and sums (B's panels and column sums, A's
/// rows and row sums), made on its first product and kept (like the float
/// GEMM's packed constants) for the process.
struct Kept {
  struct Free {
    void operator()(uint8_t *p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> packed;
  std::vector<int32_t> sums;
};

/// The Kept of `key` (one cache per Key type, each entry made once): `bytes`
/// packed by `pack` (none for 0 bytes) and `count` sums by `sum`.
template <typename Key>
const Kept &kept(const Key &key, const QProblem &p, size_t bytes,
                 void (*pack)(const QProblem &, void *), int64_t count,
                 void (*sum)(const QProblem &, int32_t *)) {
  static std::mutex mutex;
  static auto *cache =
      new std::map<Key, std::unique_ptr<Kept>>; // outlives calls
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<Kept> &entry = (*cache)[key];
  if (!entry) {
    entry = std::make_unique<Kept>();
    if (bytes) {
      entry->packed.reset(static_cast<uint8_t *>(
          std::aligned_alloc(64, (bytes + 63) / 64 * 64)));
      if (!entry->packed)
        std::abort(); // no error path from generated code
      pack(p, entry->packed.get());
    }
    entry->sums.resize(count);
    sum(p, entry->sums.data());
  }
  return *entry;
}

/// B's column sums, as int8 (a uint8 B shifted), along B's memory.
void columnSums(const QProblem &p, int32_t *sums) {
  std::fill(sums, sums + p.n, 0);
  if (p.bCs == 1)
    for (int64_t q = 0; q < p.k; ++q)
      for (int64_t j = 0; j < p.n; ++j)
        sums[j] += bValue(p, q, j);
  else
    for (int64_t j = 0; j < p.n; ++j)
      for (int64_t q = 0; q < p.k; ++q)
        sums[j] += bValue(p, q, j);
}

/// A constant B's panels and column sums.
const Kept &keptB(const QProblem &p) {
  const QTarget &t = qtarget();
  return kept(std::tuple{p.b, p.n, p.k, p.ldb, p.bCs,
                         uint8_t(p.flipB | (p.swapped ? 1 : 0))},
              p, t.packAll ? t.packedBytes(p.n, p.k) : 0, t.packAll, p.n,
              columnSums);
}

/// A's row sums in its unsigned terms.
void rowSumsOf(const QProblem &p, int32_t *sums) {
  uint8_t flip = p.signedA ? 0x80 : 0;
  for (int64_t i = 0; i < p.m; ++i) {
    const uint8_t *a = p.a + i * p.lda;
    int32_t sum = 0;
    if (p.swapped)
      for (int64_t q = 0; q < p.k; ++q)
        sum += static_cast<int8_t>(a[q]);
    else
      for (int64_t q = 0; q < p.k; ++q)
        sum += a[q] ^ flip;
    sums[i] = sum;
  }
}

/// A constant A's packed rows and row sums (a convolution's filters).
const Kept &keptA(const QProblem &p) {
  const QTarget &t = qtarget();
  return kept(std::tuple{p.a, p.m, p.k, p.lda, p.signedA, p.swapped}, p,
              t.packAllA ? t.packedABytes(p.m, p.k) : 0, t.packAllA, p.m,
              rowSumsOf);
}

/// Columns a block computes at once (its raw sums stay in L1 / L2).
constexpr int64_t kBlockCols = 256;

} // namespace

namespace {

/// Values [from, n) of a span requantized (Requant) into `out`, value j's
/// multiplier m[j * ms] (ms 0: one for the span).
void requantizeTail(const Requant &q, const float *m, int64_t ms,
                    const int32_t *v, int64_t from, int64_t n, uint8_t *out) {
  for (int64_t j = from; j < n; ++j) {
    float x = std::min(std::max(static_cast<float>(v[j]) * m[j * ms], -kLimit),
                       kLimit);
    x = (x + kRound) - kRound + q.zero;
    x = std::min(std::max(x, q.lo), q.hi);
    out[j] = static_cast<uint8_t>(static_cast<int32_t>(x));
  }
}

#if defined(__x86_64__)
MXRT_TARGET_BEGIN("avx512f,avx512bw,avx512vl")
/// requantizeTail's arithmetic 16 values at a time.
void requantizeSpan512(const Requant &q, const float *m, int64_t ms,
                       const int32_t *v, int64_t n, uint8_t *out) {
  const __m512 one = _mm512_set1_ps(*m);
  const __m512 limit = _mm512_set1_ps(kLimit), round = _mm512_set1_ps(kRound);
  const __m512 zero = _mm512_set1_ps(q.zero), lo = _mm512_set1_ps(q.lo),
               hi = _mm512_set1_ps(q.hi);
  int64_t j = 0;
  for (; ms <= 1 && j + 16 <= n; j += 16) {
    __m512 mv = ms == 0 ? one : _mm512_loadu_ps(m + j);
    __m512 x = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_loadu_si512(v + j)), mv);
    x = _mm512_min_ps(
        _mm512_max_ps(x, _mm512_sub_ps(_mm512_setzero_ps(), limit)), limit);
    x = _mm512_add_ps(_mm512_sub_ps(_mm512_add_ps(x, round), round), zero);
    x = _mm512_min_ps(_mm512_max_ps(x, lo), hi);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out + j),
                     _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(x)));
  }
  requantizeTail(q, m, ms, v, j, n, out);
}
MXRT_TARGET_END
#endif

} // namespace

bool wideBytes() {
#if defined(__x86_64__)
  static const bool wide = [] {
    __builtin_cpu_init();
    return kernelIsa() == std::string("avx512") &&
           __builtin_cpu_supports("avx512bw");
  }();
  return wide;
#else
  return false;
#endif
}

namespace {

/// A span's int32 values requantized (Requant) into `out`, value j's
/// multiplier m[j * ms] (ms 0: one for the span).
void requantizeSpan(const Requant &q, const float *m, int64_t ms,
                    const int32_t *v, int64_t n, uint8_t *out) {
#if defined(__x86_64__)
  if (wideBytes())
    return requantizeSpan512(q, m, ms, v, n, out);
#endif
  requantizeTail(q, m, ms, v, 0, n, out);
}

struct Job {
  const QProblem *p;
  /// Row i's zero point (the kernels' terms): aZero[i * aZeroRs].
  const int32_t *aZero;
  int64_t aZeroRs;
  /// Column j's zero point bZero[j * bZeroCs] (null: none); B's column
  /// sums (null where every aZero is 0); A's row sums (null without
  /// bZero); an int32 added to row i (null: none).
  const int32_t *bZero, *colSums, *rowSums, *rowAdd;
  int64_t bZeroCs;
  int32_t *c;
  int64_t ldc;
  bool accumulate;
  int64_t parts;
  /// With it, C (rows ldc apart) is Requant::y's bytes; c is unused.
  const Requant *requant = nullptr;
  /// Row i's whole correction where the sums are finished in the path's
  /// swapped kernels (null: corrected and requantized after).
  const uint32_t *finishRows = nullptr;
};

/// Columns [j0, j1) of C: the raw sums block by block, then the zero
/// points' corrections,
///
///   raw - za_i colsum_j - zb_j rowsum_i + k za_i zb_j (+ rowAdd_i),
///
/// in uint32: the terms may pass int32's range where the result does not,
/// and arithmetic modulo 2^32 lands on it exactly.
void columns(const Job &job, int64_t j0, int64_t j1) {
  const QProblem &p = *job.p;
  const QTarget &t = qtarget();
  auto k = static_cast<uint32_t>(p.k);
  for (int64_t jb = j0; jb < j1; jb += kBlockCols) {
    int64_t cols = std::min(kBlockCols, j1 - jb);
    if (job.finishRows) {
      const Requant &q = *job.requant;
      t.finishBlock(p, jb, cols,
                    ColumnEpilogue{job.finishRows, q.multiplier, q.multiplierRs,
                                   q.zero, q.lo, q.hi, q.y, job.ldc});
      continue;
    }
    auto *raw =
        reinterpret_cast<int32_t *>(scratch<3>(p.m * cols * sizeof(int32_t)));
    t.rawBlock(p, jb, cols, raw);
    const int32_t *colSums = job.colSums ? job.colSums + jb : nullptr;
    for (int64_t i = 0; i < p.m; ++i) {
      // (Requantized: corrected in the raw row, then stored as bytes.)
      auto *r = reinterpret_cast<uint32_t *>(raw + i * cols);
      auto *c = job.requant
                    ? r
                    : reinterpret_cast<uint32_t *>(job.c + i * job.ldc + jb);
      auto za = static_cast<uint32_t>(job.aZero[i * job.aZeroRs]);
      uint32_t row = job.rowAdd ? static_cast<uint32_t>(job.rowAdd[i]) : 0;
      bool oneZb = !job.bZero || job.bZeroCs == 0;
      if (oneZb && job.bZero) // the zero point's terms are the row's
        row += static_cast<uint32_t>(job.bZero[0]) *
               (k * za - static_cast<uint32_t>(job.rowSums[i]));
      if (!oneZb) {
        for (int64_t j = 0; j < cols; ++j) {
          auto zb = static_cast<uint32_t>(job.bZero[(jb + j) * job.bZeroCs]);
          uint32_t v = r[j] - za * static_cast<uint32_t>(colSums[j]) +
                       zb * (k * za - static_cast<uint32_t>(job.rowSums[i])) +
                       row;
          c[j] = job.accumulate ? c[j] + v : v;
        }
      } else if (za == 0) {
        for (int64_t j = 0; j < cols; ++j)
          c[j] = (job.accumulate ? c[j] : 0) + r[j] + row;
      } else {
        for (int64_t j = 0; j < cols; ++j)
          c[j] = (job.accumulate ? c[j] : 0) + r[j] -
                 za * static_cast<uint32_t>(colSums[j]) + row;
      }
      if (job.requant)
        requantizeSpan(*job.requant,
                       job.requant->multiplier + i * job.requant->multiplierRs,
                       0, reinterpret_cast<const int32_t *>(c), cols,
                       job.requant->y + i * job.ldc + jb);
    }
  }
}

/// A convolution channels last (MXRT_KERNEL_NHWC), as the paths' kernels
/// see it: each group's output rows (an output pixel's fg filters, its row
/// of y) are A (the pixels' windows: row i holds, tap after tap, the cg
/// bytes the window of output pixel i reads at that tap, a run of x's row,
/// the zero point's byte where the tap falls on padding) times B (the
/// group's filters, k x fg in the windows' (tap, channel) order, packed
/// once per filters). Every shape takes A unsigned and B signed, so the
/// corrections are per column but for B's zero points.
struct NhwcConv {
  int64_t n, c, h, w, f, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw, groups;
  const uint8_t *x = nullptr;
  /// 0x80 for an int8 x (read as uint8 shifted by +128), else 0.
  uint8_t flipA = 0;
  /// x's zero point in A's terms (its byte where a tap falls on padding).
  int32_t za = 0;
  /// Per group: the packed filters; per output column (f of them): the
  /// terms added to every row (bias - za colsum_j + k za zb_j) and B's
  /// zero point in its terms (null when every one is 0: no row sums).
  std::vector<const void *> packed = {};
  std::vector<uint32_t> colAdd = {};
  std::vector<int32_t> zb = {};
  int32_t *y = nullptr;
  const Requant *requant = nullptr;
  int64_t parts = 1, rows = 0;
};

/// Bytes of packed filters a column block streams per row block at most
/// (they stay in L2 while its rows pass).
constexpr int64_t kFilterBlockBytes = 384 << 10;

/// The group's filters (QProblem::tapChannels) as Path packs B: first in
/// (tap, channel) rows of fg filters, then packed as any B.
template <class Path> void packFiltersNhwc(const QProblem &p, void *out) {
  // Each filter's weights in (tap, channel) order, then the filters
  // transposed into rows of B in tiles (both passes along memory; a byte
  // by byte transpose took ResNet-50's first run 70 ms).
  std::vector<int8_t> filters(p.k * p.n), rows(p.k * p.n);
  for (int64_t j = 0; j < p.n; ++j)
    for (int64_t ci = 0; ci < p.tapChannels; ++ci)
      for (int64_t t = 0; t < p.taps; ++t)
        filters[j * p.k + t * p.tapChannels + ci] =
            p.b[j * p.bCs + ci * p.taps + t];
  constexpr int64_t kTile = 64;
  for (int64_t j0 = 0; j0 < p.n; j0 += kTile)
    for (int64_t q0 = 0; q0 < p.k; q0 += kTile)
      for (int64_t q = q0; q < std::min(q0 + kTile, p.k); ++q)
        for (int64_t j = j0; j < std::min(j0 + kTile, p.n); ++j)
          rows[q * p.n + j] = filters[j * p.k + q];
  QProblem q = p;
  q.b = rows.data();
  q.ldb = p.n;
  q.bCs = 1;
  q.tapChannels = q.taps = 0;
  Path::pack(q, 0, p.n, (p.k + Path::kGroup - 1) / Path::kGroup,
             static_cast<typename Path::BValue *>(out));
}

/// Output rows [r0, r1) (pixels of all images, in order) of group g.
template <class Path>
void nhwcRows(const NhwcConv &cv, int64_t g, int64_t r0, int64_t r1) {
  using A = typename Path::AValue;
  using B = typename Path::BValue;
  constexpr int kMR = Path::kMR, kNR = Path::kNR, kGroup = Path::kGroup;
  int64_t cg = cv.c / cv.groups, fg = cv.f / cv.groups, taps = cv.kh * cv.kw;
  int64_t k = cg * taps, groups = (k + kGroup - 1) / kGroup,
          kp = groups * kGroup, panel = kp * kNR;
  int64_t blockCols = std::max<int64_t>(
      kNR, kFilterBlockBytes / (kp * int64_t(sizeof(B))) / kNR * kNR);
  blockCols = std::min(blockCols, (fg + kNR - 1) / kNR * kNR);
  // A 1x1 stride-1 convolution's windows are x's rows themselves.
  bool inPlace = sizeof(A) == 1 && cv.flipA == 0 && cv.groups == 1 &&
                 taps == 1 && cv.sh == 1 && cv.sw == 1 && cv.ph == 0 &&
                 cv.pw == 0 && cv.oh == cv.h && cv.ow == cv.w && k == kp;
  auto *rowsA = reinterpret_cast<A *>(scratch<0>(kMR * kp * sizeof(A) + 32));
  auto *raw = reinterpret_cast<int32_t *>(
      scratch<3>(kMR * blockCols * sizeof(int32_t)));
  const uint8_t *xEnd = cv.x + cv.n * cv.h * cv.w * cv.c;
  int64_t run = cv.kw * cg;
  const auto *filters = static_cast<const B *>(cv.packed[g]);
  const uint32_t *colAdd = cv.colAdd.data() + g * fg;
  const int32_t *zb = cv.zb.empty() ? nullptr : cv.zb.data() + g * fg;
  auto fillA = static_cast<A>(cv.za);
  int64_t pixels = cv.oh * cv.ow;
  uint32_t rowSums[kMR] = {};
  // Taps [t0, t1) of output pixel (b, oy, ox)'s window into row.
  auto gatherTaps = [&](int64_t b, int64_t oy, int64_t ox, int64_t t0,
                        int64_t t1, A *row) {
    for (int64_t t = t0; t < t1; ++t) {
      int64_t iy = oy * cv.sh - cv.ph + t / cv.kw * cv.dh;
      int64_t ix = ox * cv.sw - cv.pw + t % cv.kw * cv.dw;
      A *dst = row + t * cg;
      if (iy < 0 || iy >= cv.h || ix < 0 || ix >= cv.w) {
        std::fill(dst, dst + cg, fillA);
        continue;
      }
      const uint8_t *src = cv.x + ((b * cv.h + iy) * cv.w + ix) * cv.c + g * cg;
      if (sizeof(A) == 1 && cv.flipA == 0)
        std::memcpy(dst, src, cg);
      else
        for (int64_t ci = 0; ci < cg; ++ci)
          dst[ci] = static_cast<A>(src[ci] ^ cv.flipA);
    }
  };
  // With one group, undilated rows and bytes as they are, the kw taps of
  // a window row are kw neighbouring pixels: one run of x's row.
  bool runs = sizeof(A) == 1 && cv.flipA == 0 && cv.groups == 1 && cv.dw == 1 &&
              cv.kw > 1;
  // (The finishing kernels take one multiplier or one per filter.)
  bool finish = !cv.requant || cv.requant->multiplierRs <= 1;
  for (int64_t jb = 0; jb < fg; jb += blockCols) {
    int64_t cols = std::min(blockCols, fg - jb);
    // Blocks of rows as even as they go (a 7x7 layer's 49 rows as 10, 10,
    // 10, 10, 9, not four of 12 and one alone).
    int64_t blocks = (r1 - r0 + kMR - 1) / kMR;
    for (int64_t block = 0; block < blocks; ++block) {
      int64_t i0 = r0 + block * (r1 - r0) / blocks;
      int rows = static_cast<int>(r0 + (block + 1) * (r1 - r0) / blocks - i0);
      const A *a = rowsA;
      int64_t lda = kp;
      if (inPlace) {
        a = reinterpret_cast<const A *>(cv.x + i0 * cv.c);
        lda = cv.c;
      } else {
        for (int r = 0; r < rows; ++r) {
          int64_t i = i0 + r, b = i / pixels, oy = i % pixels / cv.ow,
                  ox = i % cv.ow;
          A *row = rowsA + r * kp;
          if (runs) { // a window row's taps are one run of x's row
            for (int64_t t = 0; t < taps; t += cv.kw) {
              int64_t iy = oy * cv.sh - cv.ph + t / cv.kw * cv.dh;
              int64_t ix = ox * cv.sw - cv.pw;
              if (iy < 0 || iy >= cv.h || ix < 0 || ix + cv.kw > cv.w) {
                gatherTaps(b, oy, ox, t, t + cv.kw, row);
                continue;
              }
              const uint8_t *src = cv.x + ((b * cv.h + iy) * cv.w + ix) * cv.c;
              if (run <= 32 && src + 32 <= xEnd)
                // A short run (a stem's few channels) as one fixed copy of
                // 32 bytes: what it writes past the run, the next run, the
                // row's zero tail or the next row overwrites (the buffer
                // has room past its last row).
                std::memcpy(row + t * cg, src, 32);
              else
                std::memcpy(row + t * cg, src, run);
            }
          } else {
            gatherTaps(b, oy, ox, 0, taps, row);
          }
          std::fill(row + k, row + kp, A(0));
        }
      }
      if (zb)
        for (int r = 0; r < rows; ++r) {
          uint32_t sum = 0;
          for (int64_t q = 0; q < k; ++q)
            sum += a[r * lda + q];
          rowSums[r] = sum;
        }
      if constexpr (Path::kFinishes) {
        if (finish) { // the sums finished in the micro-kernel
          int64_t col = g * fg + jb;
          const Requant *q = cv.requant;
          for (int64_t jp = 0; jp < cols; jp += kNR) {
            RowEpilogue e{colAdd + jb + jp,
                          zb ? zb + jb + jp : nullptr,
                          rowSums,
                          q ? q->multiplier + (col + jp) * q->multiplierRs
                            : nullptr,
                          q ? q->multiplierRs : 0,
                          q ? q->zero : 0.0f,
                          q ? q->lo : 0.0f,
                          q ? q->hi : 0.0f,
                          q ? q->y + i0 * cv.f + col + jp : nullptr,
                          q ? nullptr : cv.y + i0 * cv.f + col + jp,
                          cv.f};
            Path::finishingKernels[rows - 1](
                groups, a, lda, filters + (jb + jp) / kNR * panel, e,
                static_cast<int>(std::min<int64_t>(kNR, cols - jp)));
          }
          continue;
        }
      }
      for (int64_t jp = 0; jp < cols; jp += kNR)
        Path::kernels[rows - 1](
            groups, a, lda, filters + (jb + jp) / kNR * panel, raw + jp,
            blockCols, static_cast<int>(std::min<int64_t>(kNR, cols - jp)));
      for (int r = 0; r < rows; ++r) {
        auto *v = reinterpret_cast<uint32_t *>(raw + r * blockCols);
        for (int64_t j = 0; j < cols; ++j)
          v[j] += colAdd[jb + j];
        if (zb)
          for (int64_t j = 0; j < cols; ++j)
            v[j] -= static_cast<uint32_t>(zb[jb + j]) * rowSums[r];
        int64_t at = (i0 + r) * cv.f + g * fg + jb;
        if (cv.requant)
          requantizeSpan(
              *cv.requant,
              cv.requant->multiplier + (g * fg + jb) * cv.requant->multiplierRs,
              cv.requant->multiplierRs, reinterpret_cast<const int32_t *>(v),
              cols, cv.requant->y + at);
        else
          std::memcpy(cv.y + at, v, cols * sizeof(int32_t));
      }
    }
  }
}

} // namespace

const char *qgemmPath() { return qtarget().name; }

} // namespace mxrt

extern "C" const char *mxrt_kernel_path(const char *family) {
  std::string f = family ? family : "";
  return f == "gemm"    ? mxrt::kernelIsa()
         : f == "qgemm" ? mxrt::qgemmPath()
         : f == "bgemm" ? mxrt::bgemmPath()
                        : nullptr;
}

namespace mxrt {
void qgemm(int64_t m, int64_t n, int64_t k, const uint8_t *a, int64_t lda,
           const int32_t *a_zero, int64_t a_zero_rs, const int8_t *b,
           int64_t ldb, int64_t bCs, const int32_t *b_zero, int64_t b_zero_cs,
           int32_t *c, int64_t ldc, int32_t flags, const int32_t *row_add,
           const Requant *requant) {
  if (m <= 0 || n <= 0)
    return;
  bool signedA = flags & MXRT_KERNEL_SIGNED_A;
  bool unsignedB = flags & MXRT_KERNEL_UNSIGNED_B;
  // An int8 A times a uint8 B goes as it is where the path can (no
  // shifts, so no corrections for them); otherwise A in uint8's terms (+
  // 128, its zero point with it) and B in int8's (- 128).
  bool swapped = signedA && unsignedB && qtarget().swaps;
  bool shiftA = signedA && !swapped, shiftB = unsignedB && !swapped;
  QProblem p{m, n, k, a, lda, shiftA, b, ldb, bCs, uint8_t(shiftB ? 0x80 : 0)};
  p.swapped = swapped;
  std::vector<int32_t> aZeros(a_zero && a_zero_rs ? m : 1);
  bool anyAZero = false;
  for (size_t i = 0; i < aZeros.size(); ++i) {
    aZeros[i] = (a_zero ? a_zero[i * a_zero_rs] : 0) + (shiftA ? 128 : 0);
    anyAZero |= aZeros[i] != 0;
  }
  std::vector<int32_t> shiftedZeros;
  if (shiftB) {
    shiftedZeros.resize(b_zero && b_zero_cs ? n : 1);
    for (size_t j = 0; j < shiftedZeros.size(); ++j)
      shiftedZeros[j] = (b_zero ? b_zero[j * b_zero_cs] : 0) - 128;
    b_zero = shiftedZeros.data();
    b_zero_cs = shiftedZeros.size() > 1 ? 1 : 0;
  }
  if (b_zero && !b_zero_cs && *b_zero == 0)
    b_zero = nullptr;
  std::vector<int32_t> colSums, rowSums;
  const int32_t *bSums = nullptr, *aSums = nullptr;
  if (flags & MXRT_KERNEL_CONST_B) {
    const Kept &kept = keptB(p);
    p.packedB = kept.packed.get();
    bSums = kept.sums.data();
  } else if (anyAZero) {
    colSums.resize(n);
    columnSums(p, colSums.data());
    bSums = colSums.data();
  }
  if (flags & MXRT_KERNEL_CONST_A) {
    const Kept &kept = keptA(p);
    p.packedA = kept.packed.get();
    aSums = kept.sums.data();
  } else if (b_zero) {
    rowSums.resize(m);
    rowSumsOf(p, rowSums.data());
    aSums = rowSums.data();
  }
  Job job{&p,
          aZeros.data(),
          aZeros.size() > 1 ? 1 : 0,
          b_zero,
          bSums,
          aSums,
          row_add,
          b_zero_cs,
          c,
          ldc,
          (flags & MXRT_KERNEL_ACCUMULATE) != 0 && !requant,
          1,
          requant};
  // A swapped product requantized (a convolution's filters, symmetric,
  // times its windows, one zero point) finishes its sums in the kernels:
  // each row's correction is one term, row_add - zb rowsum.
  std::vector<uint32_t> finishRows;
  if (requant && swapped && !anyAZero && qtarget().finishBlock &&
      (!b_zero || b_zero_cs == 0) && requant->multiplierRs <= 1 &&
      std::nearbyint(requant->zero) == requant->zero &&
      std::abs(requant->zero) <= 65536.0f) {
    finishRows.resize(m);
    for (int64_t i = 0; i < m; ++i)
      finishRows[i] = (row_add ? static_cast<uint32_t>(row_add[i]) : 0) -
                      (b_zero ? static_cast<uint32_t>(*b_zero) *
                                    static_cast<uint32_t>(aSums[i])
                              : 0);
    job.finishRows = finishRows.data();
  }
  ThreadPool *pool = ThreadPool::current();
  int64_t panel = qtarget().panel, panels = (n + panel - 1) / panel;
  job.parts = pool ? std::min<int64_t>(pool->size(), panels) : 1;
  if (job.parts <= 1) {
    columns(job, 0, n);
    return;
  }
  // Whole panels per thread, as evenly as they go.
  pool->parallelFor(
      job.parts,
      [](void *arg, int64_t index) {
        const Job &j = *static_cast<const Job *>(arg);
        int64_t panel = qtarget().panel;
        int64_t panels = (j.p->n + panel - 1) / panel;
        int64_t p0 = index * panels / j.parts,
                p1 = (index + 1) * panels / j.parts;
        columns(j, p0 * panel, std::min(j.p->n, p1 * panel));
      },
      &job);
}

} // namespace mxrt

extern "C" void mxrt_kernel_qgemm_u8s8(int64_t m, int64_t n, int64_t k,
                                       const uint8_t *a, int64_t lda,
                                       const int32_t *a_zero, const int8_t *b,
                                       int64_t ldb, const int32_t *b_zero,
                                       int64_t b_zero_cs, int32_t *c,
                                       int64_t ldc, int32_t flags) {
  mxrt::qgemm(m, n, k, a, lda, a_zero, 0, b, ldb, 1, b_zero, b_zero_cs, c, ldc,
              flags, nullptr);
}

namespace mxrt {
namespace {
/// A channels-last convolution's kept filters: the group's weights, their
/// shape and the packing's terms.
struct NhwcFiltersKey {
  const int8_t *weight;
  int64_t fg, k, cg;
  uint8_t flipB;
  bool operator<(const NhwcFiltersKey &o) const {
    return std::tie(weight, fg, k, cg, flipB) <
           std::tie(o.weight, o.fg, o.k, o.cg, o.flipB);
  }
};

} // namespace

/// mxrt_kernel_qconv2d_u8s8[_requant] with MXRT_KERNEL_NHWC (NhwcConv):
/// rows split over the pool, each part every group of its rows.
void qconv2dNhwc(int64_t n, int64_t c, int64_t h, int64_t w, int64_t f,
                 int64_t oh, int64_t ow, int64_t kh, int64_t kw, int64_t sh,
                 int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,
                 int64_t groups, const uint8_t *x, const int32_t *x_zero,
                 const int8_t *weight, const int32_t *w_zero,
                 int64_t w_zero_stride, const int32_t *bias, int32_t *y,
                 int32_t flags, const Requant *requant) {
  int64_t cg = c / groups, fg = f / groups, taps = kh * kw, k = cg * taps;
  int64_t rows = n * oh * ow;
  if (rows <= 0 || fg <= 0)
    return;
  const QTarget &t = qtarget();
  bool signedX = flags & MXRT_KERNEL_SIGNED_A,
       unsignedW = flags & MXRT_KERNEL_UNSIGNED_B;
  NhwcConv cv{n, c, h, w, f, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw, groups};
  cv.x = x;
  cv.flipA = signedX ? 0x80 : 0;
  cv.za = (x_zero ? *x_zero : 0) + (signedX ? 128 : 0);
  cv.y = y;
  cv.requant = requant;
  uint8_t flipB = unsignedW ? 0x80 : 0;
  std::vector<int32_t> zb(f);
  bool anyZb = false;
  for (int64_t j = 0; j < f; ++j) {
    zb[j] = (w_zero ? w_zero[j * w_zero_stride] : 0) - (unsignedW ? 128 : 0);
    anyZb |= zb[j] != 0;
  }
  // Filters of a weight that may change: packed for this call only.
  std::vector<Kept> owned(groups);
  cv.colAdd.resize(f);
  auto za = static_cast<uint32_t>(cv.za);
  for (int64_t g = 0; g < groups; ++g) {
    QProblem p{fg, fg, k, nullptr, 0, false, weight + g * fg * k, 1, k, flipB};
    p.tapChannels = cg;
    p.taps = taps;
    const Kept *filters = &owned[g];
    if (flags & (MXRT_KERNEL_CONST_A | MXRT_KERNEL_CONST_B)) {
      filters = &kept(NhwcFiltersKey{p.b, fg, k, cg, flipB}, p,
                      t.filterBytes(fg, k), t.packFilters, fg, columnSums);
    } else {
      size_t bytes = t.filterBytes(fg, k);
      owned[g].packed.reset(static_cast<uint8_t *>(
          std::aligned_alloc(64, (bytes + 63) / 64 * 64)));
      if (!owned[g].packed)
        std::abort(); // no error path from generated code
      t.packFilters(p, owned[g].packed.get());
      owned[g].sums.resize(fg);
      columnSums(p, owned[g].sums.data());
    }
    cv.packed.push_back(filters->packed.get());
    for (int64_t j = 0; j < fg; ++j) {
      int64_t col = g * fg + j;
      cv.colAdd[col] =
          (bias ? static_cast<uint32_t>(bias[col]) : 0) -
          za * static_cast<uint32_t>(filters->sums[j]) +
          static_cast<uint32_t>(k) * za * static_cast<uint32_t>(zb[col]);
    }
  }
  if (anyZb)
    cv.zb = std::move(zb);
  ThreadPool *pool = ThreadPool::current();
  cv.rows = rows;
  cv.parts = pool ? std::min<int64_t>(pool->size(), (rows + 15) / 16) : 1;
  auto run = [](void *arg, int64_t index) {
    const auto &cv = *static_cast<const NhwcConv *>(arg);
    int64_t r0 = index * cv.rows / cv.parts,
            r1 = (index + 1) * cv.rows / cv.parts;
    for (int64_t g = 0; g < cv.groups; ++g)
      qtarget().convRows(cv, g, r0, r1);
  };
  if (cv.parts > 1)
    pool->parallelFor(cv.parts, run, &cv);
  else
    run(&cv, 0);
}
} // namespace mxrt
