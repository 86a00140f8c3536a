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
};

/// Element (q, j) of B as int8 (a uint8 B shifted by -128).
inline int8_t bAt(const QProblem &p, int64_t q, int64_t j) {
  return static_cast<int8_t>(static_cast<uint8_t>(p.b[q * p.ldb + j * p.bCs]) ^
                             p.flipB);
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

/// A path's raw sums over a block of columns: B packed in Path::kNR-column
/// panels of Path::kGroup k steps, A in blocks of up to Path::kMR rows,
/// Path::kernels[rows - 1] over each panel.
template <class Path>
void rawBlock(const QProblem &p, int64_t j0, int64_t cols, int32_t *raw) {
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
  auto *a = reinterpret_cast<A *>(scratch<0>(kMR * kp * sizeof(A)));
  for (int64_t i0 = 0; i0 < p.m; i0 += kMR) {
    int rows = static_cast<int>(std::min<int64_t>(kMR, p.m - i0));
    for (int r = 0; r < rows; ++r)
      packRow(p, i0 + r, kp, a + r * kp);
    for (int64_t jp = 0; jp < cols; jp += kNR)
      Path::kernels[rows - 1](
          groups, a, kp, b + jp / kNR * panel, raw + i0 * cols + jp, cols,
          static_cast<int>(std::min<int64_t>(kNR, cols - jp)));
  }
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

#if defined(__x86_64__)

//===----------------------------------------------------------------------===//
// vnni512
//===----------------------------------------------------------------------===//

MXRT_TARGET_BEGIN("avx512f,avx512bw,avx512vl,avx512vnni")

namespace vnni512 {
/// 12 rows x 32 columns (two vectors of 16 int32), 4 k steps a lane.
template <int Rows> struct Kernel {
  static void run(int64_t groups, const uint8_t *a, int64_t kp, const int8_t *b,
                  int32_t *raw, int64_t ldr, int cols) {
    __m512i acc[Rows][2];
    for (int r = 0; r < Rows; ++r)
      acc[r][0] = acc[r][1] = _mm512_setzero_si512();
    for (int64_t g = 0; g < groups; ++g) {
      __m512i b0 = _mm512_load_si512(b + g * 128);
      __m512i b1 = _mm512_load_si512(b + g * 128 + 64);
      for (int r = 0; r < Rows; ++r) {
        int32_t four;
        std::memcpy(&four, a + r * kp + 4 * g, 4);
        __m512i av = _mm512_set1_epi32(four);
        acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], av, b0);
        acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], av, b1);
      }
    }
    __mmask16 m0 = cols >= 16 ? 0xffff : (1u << cols) - 1;
    __mmask16 m1 = cols >= 32   ? 0xffff
                   : cols <= 16 ? 0
                                : (1u << (cols - 16)) - 1;
    for (int r = 0; r < Rows; ++r) {
      _mm512_mask_storeu_epi32(raw + r * ldr, m0, acc[r][0]);
      _mm512_mask_storeu_epi32(raw + r * ldr + 16, m1, acc[r][1]);
    }
  }
};

/// packB<int8_t, 4, 32> for a B whose rows are contiguous (bCs 1): each
/// panel's group of 4 rows interleaved 16 columns at a time (bytes to
/// 16-bit pairs to 4-byte quads), a partial panel or group through a
/// zero-padded copy.
void pack(const QProblem &p, int64_t j0, int64_t cols, int64_t groups,
          int8_t *out) {
  if (p.bCs != 1)
    return packB<int8_t, 4, 32>(p, j0, cols, groups, out);
  const __m128i flip = _mm_set1_epi8(static_cast<char>(p.flipB));
  alignas(16) uint8_t tail[4][32];
  for (int64_t jp = 0; jp < cols; jp += 32) {
    int8_t *panel = out + jp / 32 * groups * 128;
    int64_t width = std::min<int64_t>(32, cols - jp);
    for (int64_t g = 0; g < groups; ++g) {
      const uint8_t *rows[4];
      for (int t = 0; t < 4; ++t) {
        int64_t q = 4 * g + t;
        const auto *src =
            reinterpret_cast<const uint8_t *>(p.b + q * p.ldb + j0 + jp);
        if (q < p.k && width == 32) {
          rows[t] = src;
          continue;
        }
        // Past k or the columns: zeros in the packed (flipped) terms.
        std::memset(tail[t], p.flipB, 32);
        if (q < p.k)
          std::memcpy(tail[t], src, width);
        rows[t] = tail[t];
      }
      for (int half = 0; half < 2; ++half) {
        __m128i r[4];
        for (int t = 0; t < 4; ++t)
          r[t] =
              _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i *>(
                                rows[t] + 16 * half)),
                            flip);
        __m128i lo01 = _mm_unpacklo_epi8(r[0], r[1]),
                hi01 = _mm_unpackhi_epi8(r[0], r[1]);
        __m128i lo23 = _mm_unpacklo_epi8(r[2], r[3]),
                hi23 = _mm_unpackhi_epi8(r[2], r[3]);
        auto *dst = reinterpret_cast<__m128i *>(panel + g * 128 + 64 * half);
        _mm_storeu_si128(dst, _mm_unpacklo_epi16(lo01, lo23));
        _mm_storeu_si128(dst + 1, _mm_unpackhi_epi16(lo01, lo23));
        _mm_storeu_si128(dst + 2, _mm_unpacklo_epi16(hi01, hi23));
        _mm_storeu_si128(dst + 3, _mm_unpackhi_epi16(hi01, hi23));
      }
    }
  }
}

struct Path {
  using AValue = uint8_t;
  using BValue = int8_t;
  static constexpr int kMR = 12, kNR = 32, kGroup = 4;
  static constexpr auto pack = vnni512::pack;
  static constexpr auto kernels =
      kernelTable<void (*)(int64_t, const uint8_t *, int64_t, const int8_t *,
                           int32_t *, int64_t, int),
                  Kernel>(std::make_integer_sequence<int, kMR>{});
};
} // namespace vnni512

MXRT_TARGET_END

//===----------------------------------------------------------------------===//
// avx2
//===----------------------------------------------------------------------===//

MXRT_TARGET_BEGIN("avx2,fma")

namespace avx2 {
/// 6 rows x 16 columns (two vectors of 8 int32), 2 k steps a lane.
template <int Rows> struct Kernel {
  static void run(int64_t groups, const uint16_t *a, int64_t kp,
                  const int16_t *b, int32_t *raw, int64_t ldr, int cols) {
    __m256i acc[Rows][2];
    for (int r = 0; r < Rows; ++r)
      acc[r][0] = acc[r][1] = _mm256_setzero_si256();
    for (int64_t g = 0; g < groups; ++g) {
      auto *bv = reinterpret_cast<const __m256i *>(b + g * 32);
      __m256i b0 = _mm256_load_si256(bv), b1 = _mm256_load_si256(bv + 1);
      for (int r = 0; r < Rows; ++r) {
        int32_t pair;
        std::memcpy(&pair, a + r * kp + 2 * g, 4);
        __m256i av = _mm256_set1_epi32(pair);
        acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(av, b0));
        acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(av, b1));
      }
    }
    alignas(32) int32_t row[16];
    for (int r = 0; r < Rows; ++r) {
      _mm256_store_si256(reinterpret_cast<__m256i *>(row), acc[r][0]);
      _mm256_store_si256(reinterpret_cast<__m256i *>(row + 8), acc[r][1]);
      std::memcpy(raw + r * ldr, row, cols * sizeof(int32_t));
    }
  }
};

struct Path {
  using AValue = uint16_t;
  using BValue = int16_t;
  static constexpr int kMR = 6, kNR = 16, kGroup = 2;
  static constexpr auto pack = packB<int16_t, 2, 16>;
  static constexpr auto kernels =
      kernelTable<void (*)(int64_t, const uint16_t *, int64_t, const int16_t *,
                           int32_t *, int64_t, int),
                  Kernel>(std::make_integer_sequence<int, kMR>{});
};
} // namespace avx2

MXRT_TARGET_END

#endif // __x86_64__

/// The family's dispatch table: a path's name, its raw sums and its column
/// panel (a block of columns is a whole number of them).
struct QTarget {
  const char *name;
  RawBlockFn rawBlock;
  int64_t panel;
  /// Packing all of B ahead (null: the path reads B in place).
  size_t (*packedBytes)(int64_t n, int64_t k);
  void (*packAll)(const QProblem &, void *);
};

const QTarget &qtarget() {
  static const QTarget chosen = [] {
    std::string isa = kernelIsa();
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (isa == "avx512" && __builtin_cpu_supports("avx512vnni") &&
        __builtin_cpu_supports("avx512bw"))
      return QTarget{"vnni512", rawBlock<vnni512::Path>, vnni512::Path::kNR,
                     packedBBytes<vnni512::Path>, packAllB<vnni512::Path>};
    if (isa == "avx512" || isa == "avx2")
      return QTarget{"avx2", rawBlock<avx2::Path>, avx2::Path::kNR,
                     packedBBytes<avx2::Path>, packAllB<avx2::Path>};
#endif
    return QTarget{"portable", rawBlockPortable, 16, nullptr, nullptr};
  }();
  return chosen;
}

/// A constant B's packed panels and column sums, made on its first product
/// and kept (like the float GEMM's packed constants) for the process.
struct KeptB {
  struct Free {
    void operator()(uint8_t *p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> packed;
  std::vector<int32_t> colSums;
};

/// B's column sums, as int8 (a uint8 B shifted), along B's memory.
void columnSums(const QProblem &p, int32_t *sums) {
  std::fill(sums, sums + p.n, 0);
  if (p.bCs == 1)
    for (int64_t q = 0; q < p.k; ++q)
      for (int64_t j = 0; j < p.n; ++j)
        sums[j] += bAt(p, q, j);
  else
    for (int64_t j = 0; j < p.n; ++j)
      for (int64_t q = 0; q < p.k; ++q)
        sums[j] += bAt(p, q, j);
}

const KeptB &keptB(const QProblem &p) {
  using Key =
      std::tuple<const int8_t *, int64_t, int64_t, int64_t, int64_t, uint8_t>;
  static std::mutex mutex;
  static auto *kept =
      new std::map<Key, std::unique_ptr<KeptB>>; // outlives calls
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<KeptB> &entry =
      (*kept)[Key{p.b, p.n, p.k, p.ldb, p.bCs, p.flipB}];
  if (!entry) {
    entry = std::make_unique<KeptB>();
    const QTarget &t = qtarget();
    if (t.packAll) {
      size_t bytes = (t.packedBytes(p.n, p.k) + 63) / 64 * 64;
      entry->packed.reset(
          static_cast<uint8_t *>(std::aligned_alloc(64, bytes)));
      if (!entry->packed)
        std::abort(); // no error path from generated code
      t.packAll(p, entry->packed.get());
    }
    entry->colSums.resize(p.n);
    columnSums(p, entry->colSums.data());
  }
  return *entry;
}

/// Columns a block computes at once (its raw sums stay in L1 / L2).
constexpr int64_t kBlockCols = 256;

struct Job {
  const QProblem *p;
  /// Row i's zero point (unsigned terms): aZero[i * aZeroRs].
  const int32_t *aZero;
  int64_t aZeroRs;
  const int32_t *bZero, *colSums, *rowSums;
  int64_t bZeroCs;
  int32_t *c;
  int64_t ldc;
  bool accumulate;
  int64_t parts;
};

/// Columns [j0, j1) of C: the raw sums block by block, then the zero
/// points' corrections.
void columns(const Job &job, int64_t j0, int64_t j1) {
  const QProblem &p = *job.p;
  const QTarget &t = qtarget();
  for (int64_t jb = j0; jb < j1; jb += kBlockCols) {
    int64_t cols = std::min(kBlockCols, j1 - jb);
    auto *raw =
        reinterpret_cast<int32_t *>(scratch<3>(p.m * cols * sizeof(int32_t)));
    t.rawBlock(p, jb, cols, raw);
    for (int64_t i = 0; i < p.m; ++i) {
      int32_t *c = job.c + i * job.ldc + jb;
      const int32_t *r = raw + i * cols;
      // In int64: the terms may pass int32's range where the result does
      // not.
      int64_t za = job.aZero[i * job.aZeroRs];
      if (!job.bZero) { // (the common case, in a form that vectorizes)
        for (int64_t j = 0; j < cols; ++j) {
          int64_t v = int64_t(r[j]) - za * job.colSums[jb + j];
          c[j] = static_cast<int32_t>(job.accumulate ? c[j] + v : v);
        }
        continue;
      }
      for (int64_t j = 0; j < cols; ++j) {
        int64_t zb = job.bZero[(jb + j) * job.bZeroCs];
        int64_t v = int64_t(r[j]) - za * job.colSums[jb + j] -
                    zb * job.rowSums[i] + p.k * za * zb;
        c[j] = static_cast<int32_t>(job.accumulate ? c[j] + v : v);
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
                        : nullptr;
}

namespace mxrt {
/// mxrt_kernel_qgemm_u8s8 with B(q, j) at b[q * ldb + j * bCs] (a
/// convolution's filters, (f, k), read as k x f) and row i's zero point of
/// A at a_zero[i * a_zero_rs] (a convolution's filters as A).
void qgemm(int64_t m, int64_t n, int64_t k, const uint8_t *a, int64_t lda,
           const int32_t *a_zero, int64_t a_zero_rs, const int8_t *b,
           int64_t ldb, int64_t bCs, const int32_t *b_zero, int64_t b_zero_cs,
           int32_t *c, int64_t ldc, int32_t flags) {
  if (m <= 0 || n <= 0)
    return;
  bool signedA = flags & MXRT_KERNEL_SIGNED_A;
  bool unsignedB = flags & MXRT_KERNEL_UNSIGNED_B;
  QProblem p{m,       n, k,   a,   lda,
             signedA, b, ldb, bCs, uint8_t(unsignedB ? 0x80 : 0)};
  // In the unsigned form's terms: a + 128 - (a_zero + 128).
  std::vector<int32_t> aZeros(a_zero && a_zero_rs ? m : 1);
  for (size_t i = 0; i < aZeros.size(); ++i)
    aZeros[i] = (a_zero ? a_zero[i * a_zero_rs] : 0) + (signedA ? 128 : 0);
  // A uint8 B in int8's: b - 128 - (b_zero - 128).
  std::vector<int32_t> shiftedZeros;
  if (unsignedB) {
    shiftedZeros.resize(n);
    for (int64_t j = 0; j < n; ++j)
      shiftedZeros[j] = (b_zero ? b_zero[j * b_zero_cs] : 0) - 128;
    b_zero = shiftedZeros.data();
    b_zero_cs = 1;
  }
  std::vector<int32_t> colSums, rowSums(m, 0);
  const int32_t *sums;
  if (flags & MXRT_KERNEL_CONST_B) {
    const KeptB &kept = keptB(p);
    p.packedB = kept.packed.get();
    sums = kept.colSums.data();
  } else {
    colSums.resize(n);
    columnSums(p, colSums.data());
    sums = colSums.data();
  }
  if (b_zero) {
    uint8_t flip = signedA ? 0x80 : 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t q = 0; q < k; ++q)
        rowSums[i] += a[i * lda + q] ^ flip;
  }
  Job job{&p,
          aZeros.data(),
          aZeros.size() > 1 ? 1 : 0,
          b_zero,
          sums,
          rowSums.data(),
          b_zero_cs,
          c,
          ldc,
          (flags & MXRT_KERNEL_ACCUMULATE) != 0,
          1};
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
              flags);
}

extern "C" void mxrt_kernel_qconv2d_u8s8(
    int64_t n, int64_t c, int64_t h, int64_t w, int64_t f, int64_t oh,
    int64_t ow, int64_t kh, int64_t kw, int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w, int64_t dilate_h, int64_t dilate_w,
    int64_t groups, const uint8_t *x, const int32_t *x_zero,
    const int8_t *weight, const int32_t *w_zero, int64_t w_zero_stride,
    const int32_t *bias, int32_t *y, int32_t flags) {
  // Each group's output planes (fg x pixels, NCHW as they lie) are its
  // filters (fg x k, A) times the windows (k x pixels, B: row (ci, r, s)
  // holds the input pixel each output pixel's window has at that tap), so
  // that a window row is a run of input bytes and a 1x1 convolution's
  // windows are the input itself. Filters are int8 (A signed), the input
  // uint8 (B unsigned), unless the flags say otherwise.
  int64_t cg = c / groups, fg = f / groups, k = cg * kh * kw, pixels = oh * ow;
  if (n <= 0 || fg <= 0 || pixels <= 0)
    return;
  int32_t pass = (flags & MXRT_KERNEL_UNSIGNED_B ? 0 : MXRT_KERNEL_SIGNED_A) |
                 (flags & MXRT_KERNEL_SIGNED_A ? 0 : MXRT_KERNEL_UNSIGNED_B);
  bool direct = kh == 1 && kw == 1 && stride_h == 1 && stride_w == 1 &&
                pad_h == 0 && pad_w == 0 && oh == h && ow == w;
  // Padding reads as x's zero point, so that it adds nothing.
  uint8_t fill = static_cast<uint8_t>(x_zero ? *x_zero : 0);
  uint8_t *windows =
      direct ? nullptr : mxrt::scratch<4>(static_cast<size_t>(k * pixels));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t g = 0; g < groups; ++g) {
      const uint8_t *plane = x + (b * c + g * cg) * h * w;
      if (!direct) {
        uint8_t *row = windows;
        for (int64_t ci = 0; ci < cg; ++ci)
          for (int64_t r = 0; r < kh; ++r)
            for (int64_t s = 0; s < kw; ++s)
              for (int64_t oy = 0; oy < oh; ++oy, row += ow) {
                int64_t iy = oy * stride_h - pad_h + r * dilate_h;
                if (iy < 0 || iy >= h) {
                  std::memset(row, fill, ow);
                  continue;
                }
                const uint8_t *in = plane + (ci * h + iy) * w;
                int64_t x0 = s * dilate_w - pad_w;
                if (stride_w != 1) {
                  for (int64_t ox = 0; ox < ow; ++ox) {
                    int64_t ix = x0 + ox * stride_w;
                    row[ox] = ix >= 0 && ix < w ? in[ix] : fill;
                  }
                  continue;
                }
                // Output columns [lo, hi) read inside the row.
                int64_t lo = std::clamp<int64_t>(-x0, 0, ow);
                int64_t hi = std::clamp<int64_t>(w - x0, lo, ow);
                std::memset(row, fill, lo);
                std::memcpy(row + lo, in + x0 + lo, hi - lo);
                std::memset(row + hi, fill, ow - hi);
              }
      }
      int32_t *out = y + (b * f + g * fg) * pixels;
      mxrt::qgemm(
          fg, pixels, k, reinterpret_cast<const uint8_t *>(weight) + g * fg * k,
          k, w_zero ? w_zero + g * fg * w_zero_stride : nullptr, w_zero_stride,
          reinterpret_cast<const int8_t *>(direct ? plane : windows), pixels, 1,
          x_zero, 0, out, pixels, pass);
      if (bias)
        for (int64_t j = 0; j < fg; ++j) {
          int32_t add = bias[g * fg + j];
          for (int64_t p = 0; p < pixels; ++p)
            out[j * pixels + p] += add;
        }
    }
}
