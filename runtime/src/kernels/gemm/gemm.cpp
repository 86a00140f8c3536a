// SPDX-License-Identifier: Apache-2.0
//
// mxrt_kernel_sgemm and the kernels behind mxrt_kernel_sconv2d (whose
// dispatch is conv.cpp): a packed, register-blocked float32 GEMM
// (gemm_impl.inc) and the convolution kernels, built for AVX-512, AVX2 + FMA
// and plain C++, picked at run time by what the CPU supports; convolutions
// are GEMMs whose B operand is the im2col matrix of the input, packed straight
// from the image (no im2col buffer). Work is split over the calling
// instance's thread pool. Why a runtime kernel rather than generated code:
// docs/kernels.md (figures in docs/performance.md).

#include "epilogue.h"
#include "gemm_internal.h"
#include "kernels/bgemm/bgemm.h"
#include "kernels/isa/avx2.h"
#include "kernels/isa/avx512.h"
#include "kernels/isa/isa.h"
#include "kernels/isa/neon.h"
#include "kernels/isa/portable.h"
#include "kernels/isa/target.h"
#include "mxrt/kernels.h"
#include "threadpool.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif
#if defined(__aarch64__)
#include <sys/auxv.h>
#include <sys/prctl.h>
#endif

namespace mxrt {

/// Scratch buffer `which` of this thread, 64-byte aligned, at least
/// `floats` long: it grows (new memory zeroed, old contents dropped) and
/// stays with the thread.
float *threadBuffer(Scratch which, int64_t floats) {
  constexpr int kCount = static_cast<int>(Scratch::Count);
  struct Free {
    void operator()(float *p) const { std::free(p); }
  };
  thread_local std::unique_ptr<float, Free> buffers[kCount];
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

namespace {

#if defined(__x86_64__)

MXRT_TARGET_BEGIN("avx512f,avx512vl,avx2,fma")
namespace avx512 {
using Isa = isa::Avx512;
#include "family.inc"
} // namespace avx512
MXRT_TARGET_END

MXRT_TARGET_BEGIN("avx2,fma")
namespace avx2 {
using Isa = isa::Avx2;
#include "family.inc"
} // namespace avx2
MXRT_TARGET_END

#endif // __x86_64__

#if defined(__aarch64__)
namespace neon {
using Isa = isa::Neon;
#include "family.inc"
} // namespace neon
#endif // __aarch64__

namespace portable {
using Isa = isa::Portable;
#include "family.inc"
} // namespace portable

} // namespace

/// The best GEMM this CPU runs; MXRT_KERNEL_ISA=avx512|avx2|portable (x86)
/// or sve|neon|portable (aarch64) forces one (for tests and measurements).
/// avx512bf16, which picks the bfloat16 family's vdpbf16ps path
/// (kernels/bgemm/), is avx512 here.
const Target &target() {
  static const Target chosen = [] {
    const char *forced = std::getenv("MXRT_KERNEL_ISA");
    std::string want = forced ? forced : "";
    if (want == "avx512bf16")
      want = "avx512";
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
#if defined(__aarch64__)
    // SVE where the vector length is one of the compiled ones (else NEON,
    // as fast at 128 bits); every AArch64 core has NEON with fused
    // multiply-add.
    if ((getauxval(AT_HWCAP) & HWCAP_SVE) && (want.empty() || want == "sve")) {
      int bits = (prctl(PR_SVE_GET_VL) & PR_SVE_VL_LEN_MASK) * 8;
      if (bits == 512)
        return sveTarget<512>();
      if (bits == 256)
        return sveTarget<256>();
    }
    if (want != "portable")
      return MXRT_TARGET(neon);
#endif
    return MXRT_TARGET(portable);
  }();
  return chosen;
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

namespace {

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
    p.packedBCol0 += begin;
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

} // namespace

/// A product of few rows whose B is read row by row in place (a decoder's
/// weights, streamed from memory once per token) on `threads` threads:
/// each sums a contiguous run of B's rows, so that each streams its own
/// part of memory, and the partial sums meet here. Split by columns
/// instead, every thread reads a part of every row: GPT-2-small's weights
/// took 22-31 ms on two threads that way, 13-15 split by rows, 24-27 on one
/// (this 2-core VM).
void runFewRowsAlongK(const Problem &pr, int32_t threads, ThreadPool &pool) {
  int64_t parts = std::min<int64_t>(threads, pr.k);
  int64_t each = pr.m * pr.n;
  float *partial = threadBuffer(Scratch::PartialSums, parts * each);
  struct Job {
    const Problem *pr;
    float *partial;
    int64_t parts;
  } job{&pr, partial, parts};
  pool.parallelFor(
      parts,
      [](void *arg, int64_t index) {
        const Job &j = *static_cast<const Job *>(arg);
        Problem p = *j.pr;
        int64_t k0 = index * p.k / j.parts, k1 = (index + 1) * p.k / j.parts;
        p.k = k1 - k0;
        p.a += k0 * p.aCs;
        p.b += k0 * p.bRs;
        p.c = j.partial + index * p.m * p.n;
        p.cRs = p.n, p.cCs = 1;
        p.bias = nullptr;
        p.flags &= ~(MXRT_KERNEL_ACCUMULATE | MXRT_KERNEL_RELU);
        solve(p);
      },
      &job);
  for (int64_t part = 1; part < parts; ++part) {
    const float *from = partial + part * each;
    for (int64_t e = 0; e < each; ++e)
      partial[e] += from[e];
  }
  applyEpilogue(pr, partial, pr.n, 0, pr.m, 0, pr.n, true, true);
}

/// Runs one problem on `threads` threads of the current pool (1: here).
void runProblem(const Problem &pr, int32_t threads) {
  const Target &t = target();
  ThreadPool *pool = ThreadPool::current();
  if (threads <= 1 || !pool || pr.m * pr.n * pr.k < kParallelMinWork) {
    solve(pr);
    return;
  }
  if (readsInPlace(pr) && !pr.packedB && pr.bCs == 1 && pr.bRs != 1) {
    runFewRowsAlongK(pr, threads, *pool);
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
  // Other products of few rows split by columns (a decoder's output
  // projection with B = the embedding's transpose: each column contiguous,
  // each thread streams its own part).
  bool alongN = pixelsByRows || readsInPlace(pr) ||
                (!pixels && 10 * largestPiece(pr.n, t.nr, pr.m, t.mr) <=
                                11 * largestPiece(pr.m, t.mr, pr.n, t.nr));
  // A product of a few rows per thread (at most two micro-panels' worth)
  // with a packed constant B and an A of this call splits its rows evenly
  // (16: 8 + 8, not 12 + 4): each thread reads all of B from its own L2,
  // but its rows of A and C stay on its core. A recurrence's state passes
  // from one step's product to its gates to the next step's product, and
  // the gates' loop splits the same rows the same way; split by columns,
  // each thread read half its gates and packed half its A from the other
  // core every step (the LSTM and GRU language models at batch 16 on two
  // threads: 11.3-11.7 -> 11.0-11.2 and 9.2-10.6 -> 9.0-9.3 ms).
  bool evenRows = !pr.isConv && pr.packedB && !pr.packedA &&
                  !readsInPlace(pr) && pr.m <= 2 * t.mr * threads &&
                  pr.m >= 2 * threads;
  if (evenRows)
    alongN = false;
  int64_t extent = alongN ? pr.n : pr.m;
  int64_t unit = pixelsByRows ? pr.conv.gridWidth
                 : alongN     ? t.nr
                 : pixels     ? t.laneFilters
                 : evenRows   ? 1
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

PackedCache &packedCache() {
  static PackedCache *cache = new PackedCache; // outlives every model call
  return *cache;
}

namespace {
thread_local uint64_t threadParamGeneration = 0;
std::atomic<uint64_t> lastParamGeneration{0};
} // namespace

uint64_t currentParamGeneration() { return threadParamGeneration; }
uint64_t newParamGeneration() { return ++lastParamGeneration; }
ParamGenerationScope::ParamGenerationScope(uint64_t generation)
    : saved_(threadParamGeneration) {
  threadParamGeneration = generation;
}
ParamGenerationScope::~ParamGenerationScope() {
  threadParamGeneration = saved_;
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
  if (PackedCache::paramGeneration(pr.flags))
    if (const float *kept = packedCache().get(pr))
      return kept;
  if (!reused)
    return nullptr;
  // Once per call rather than once per problem; the pool's threads read
  // the caller's buffer until runBatch returns.
  if (pr.isConv && pr.conv.gridWidth && pr.conv.pixelRows) {
    float *packed =
        threadBuffer(Scratch::SharedA, t.filterLanesSize(pr.m, pr.k));
    t.packFilterLanes(pr, packed);
    return packed;
  }
  float *packed = threadBuffer(Scratch::SharedA, t.packedASize(pr.m, pr.k));
  t.packAll(pr, packed);
  return packed;
}

/// The most bytes of a constant B that a product of few rows packs (see
/// gemmFewRowsPacked): one that stays in a core's L2 between calls, as an
/// LSTM's recurrence weights between steps. Larger ones (a decoder's
/// weights, streamed from memory once per token) are read in place, without
/// a second copy.
constexpr int64_t kFewRowsPackedBytes = 2 << 20;

const float *packedBFor(const Problem &pr) {
  if (pr.isConv || pr.k == 0)
    return nullptr;
  if (readsInPlace(pr) &&
      pr.k * pr.n * int64_t(sizeof(float)) > kFewRowsPackedBytes)
    return nullptr;
  return packedCache().getB(pr);
}

const char *kernelIsa() { return target().isa; }

} // namespace mxrt

using mxrt::Problem;

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
  if (flags & MXRT_KERNEL_BF16) {
    mxrt::bgemm(batch, m, n, k, a, a_bs, a_rs, a_cs, b, b_bs, b_rs, b_cs, c,
                c_bs, c_rs, c_cs, bias, bias_bs, bias_rs, bias_cs, flags);
    return;
  }
  // Computed transposed, C^T = B^T A^T, for a narrow C with many rows, so
  // that the long side fills the micro-tiles' rows. (A constant B is kept
  // packed as it is: C's tiles then go to its rows in place, bias and
  // activation added in registers.)
  Problem shape = {};
  shape.m = m, shape.k = k;
  bool packs = !mxrt::readsInPlace(shape);
  bool transpose = packs && n < mxrt::target().nr && m > n;
  if (transpose) {
    bool ca = flags & MXRT_KERNEL_CONST_A, cb = flags & MXRT_KERNEL_CONST_B;
    // (A parameter A, which has no B twin, is then packed per call.)
    flags &= ~(MXRT_KERNEL_CONST_A | MXRT_KERNEL_CONST_B | MXRT_KERNEL_PARAM_A);
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
