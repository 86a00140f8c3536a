// SPDX-License-Identifier: Apache-2.0
//
// What gemm.cpp (the GEMM, its per-ISA kernels and the packed-weight cache)
// and conv.cpp (the convolution dispatch) share: the problem and kernel
// shapes, the chosen Target's kernel table, the threads' scratch buffers
// and the batch runner. Not installed.

#ifndef MXRT_SRC_GEMM_INTERNAL_H
#define MXRT_SRC_GEMM_INTERNAL_H

#include "mxrt/kernels.h"
#include "threadpool.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace mxrt {

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
  /// B packed whole by packBAll (columns rounded up to packedBCols), or
  /// NULL to pack block by block; this problem's column 0 is packed column
  /// packedBCol0.
  const float *packedB;
  int64_t packedBCols, packedBCol0;
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
  /// A convolution gradient's im2col (or col2im) matrix of one image
  /// (conv_grad.cpp).
  GradColumns,
  /// The threads' shares of a weight gradient, summed at the end.
  GradPartial,
  /// A convolution gradient's output gradient of one image, transposed.
  GradOutput,
  /// A data gradient's flipped, transposed filters.
  GradWeights,
  /// A strided data gradient's stride phase (conv_grad.cpp).
  GradPhases,
  /// A Winograd weight gradient's transformed inputs and output gradients
  /// of a chunk of tiles.
  GradTransformedInput,
  GradTransformedOutput,
  /// Filters that change between calls (no MXRT_KERNEL_CONST_A: a
  /// training step's), transformed or packed once per call.
  VaryingFilters,
  /// Filters times a per-filter scale (mxrt_kernel_sconv2d_scaled) that
  /// change between calls, made once per call.
  ScaledFilters,
  /// The attention kernel's keys (transposed) and values of one head, and
  /// its output rows of one block of queries.
  AttentionKeys,
  AttentionValues,
  AttentionOut,
  /// The threads' partial sums of a product of few rows split along k.
  PartialSums,
  Count
};

/// Scratch buffer `which` of this thread, 64-byte aligned, at least
/// `floats` long: it grows (new memory zeroed, old contents dropped) and
/// stays with the thread.
float *threadBuffer(Scratch which, int64_t floats);

/// Problems smaller than this many multiply-adds run on one thread.
constexpr int64_t kParallelMinWork = 1 << 16;

/// One call of mxrt_kernel_sattention (see mxrt/kernels.h): the operands'
/// base pointers and strides (head batch, head, row, column), the scale
/// and the flags.
struct AttentionProblem {
  int64_t n, h, sq, sk, d, dv;
  const float *q, *k, *v, *mask;
  float *o;
  int64_t qs[4], ks[4], vs[4], maskS[4], os[4];
  float scale;
  bool divide;
};

using GemmFn = void (*)(const Problem &);
/// Rows [r0, r1) of head (i, j) of an attention problem.
using AttentionFn = void (*)(const AttentionProblem &, int64_t i, int64_t j,
                             int64_t r0, int64_t r1);
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

/// An undilated convolution's weight gradient over a run of images, stride
/// s (1 or 2) both ways, computed directly (conv_grad_impl.inc). Per image,
/// xp holds the group's cg channels zero-padded and split into stride
/// phases: min(s, kh) x min(s, kw) planes of hp x wp each, phase (a, b)'s
/// row i column j the padded input's row s i + a, column s j + b (hp = oh
/// + (kh - 1) / s, wp >= owr + (kw - 1) / s; one plane for stride 1). dyp
/// holds the group's fg filters' oh x owr rows, zero past ow (owr: ow
/// rounded up to whole vectors). acc holds, per (filter, channel, tap),
/// Isa::VL partial sums (added to; their lanes are summed by the caller).
/// Images are xImage and dyImage floats apart.
///
/// inPlace: a 3x3, stride 1, pad 1 convolution whose rows are whole
/// vectors (w = ow = owr), read where it is: xp the group's first channel
/// of the first image (h = oh = hp rows of w = wp floats), dyp its first
/// filter; the padding is made in registers (gradWeightShifted).
struct GradDirect {
  const float *xp, *dyp;
  float *acc;
  int64_t images, cg, fg, oh, owr, kh, kw, hp, wp, s;
  int64_t xImage, dyImage;
  bool inPlace;
};
using GradWeightDirectFn = bool (*)(const GradDirect &, int64_t, int64_t);

/// One tile row of a Winograd F(2x2, 3x3) weight gradient (conv_grad.cpp):
/// `count` channels (or filters), each `planeRows` padded rows of `width`
/// floats (whole vectors of tiles, two columns each, plus two), the tile
/// row's from row 2 ty; the 16 transformed values of tile tx go to
/// out[pos * posStride + i * ld + tx] for channel i. The input transform
/// reads a tile's third and fourth columns `shift` floats after its first
/// two (2 in a plain padded row; WinogradGradTiles).
struct GradWinogradRow {
  const float *rows;
  int64_t count, planeRows, width, ty, tw;
  float *out;
  int64_t ld, posStride, shift;
};
using GradWinogradFn = void (*)(const GradWinogradRow &);

/// A depthwise convolution (NCHW, one filter per channel): `channels`
/// planes per image, each h x w into oh x ow, the flags' epilogue.
struct Depthwise {
  int64_t h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw;
  const float *x, *weight, *bias;
  float *y;
  int64_t channels;
  int32_t flags;
};
/// Planes [p0, p1) of a depthwise convolution.
using DepthwiseFn = void (*)(const Depthwise &, int64_t, int64_t);

struct Target {
  GemmFn gemm;
  PackAllFn packAll;
  PackedSizeFn packedASize;
  PackAllFn packBAll;
  /// Floats of B (n, k) packed by packBAll.
  PackedSizeFn packedBSize;
  AttentionFn attention;
  /// Query rows per block of `attention`.
  int64_t attentionRows;
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
  /// Filters [f0, f1) of a direct weight gradient; false for kernel sizes
  /// it has no version for.
  GradWeightDirectFn gradWeightDirect;
  /// A tile row's input transform B^T d B and output-gradient transform
  /// A dY A^T for the Winograd weight gradient.
  GradWinogradFn gradWinogradInput, gradWinogradOutput;
  DepthwiseFn depthwisePlanes;
  /// Floats per vector (GradDirect's lanes).
  int64_t vectorLanes;
  /// The namespace's name: avx512, avx2 or portable.
  const char *isa;
};

/// The Target of the family's kernels compiled in namespace `ns` (family.inc
/// with its Isa).
#define MXRT_TARGET(ns)                                                        \
  Target {                                                                     \
    ns::gemm, ns::packAll, ns::packedASize, ns::packBAll, ns::packedBSize,     \
        ns::attention, ns::kAttentionRows, ns::kMR, ns::kNR, ns::fillPhases,   \
        ns::winogradSolve, ns::winogradFilters, ns::winogradFilterSize,        \
        ns::packFilterLanes, ns::filterLanesSize, ns::kLaneFilters,            \
        ns::nhwcConvRows, ns::nhwcFilterSize, ns::packNhwcFilters,             \
        ns::nhwcWinogradTiles, ns::nhwcWinogradFilters,                        \
        ns::nhwcWinogradFilterSize,                                            \
        ns::kSmallWinograd ? ns::kSmallFilters : 0, ns::smallWinogradBlocks<>, \
        ns::smallWinogradFilterSize, ns::packSmallWinograd,                    \
        ns::gradWeightDirect, ns::gradWinogradInput, ns::gradWinogradOutput,   \
        ns::depthwisePlanes, ns::Isa::VL, #ns                                  \
  }

/// The best GEMM this CPU runs; MXRT_KERNEL_ISA=avx512|avx2|sve|neon|portable
/// forces one (for tests and measurements).
const Target &target();

/// The kernels compiled for SVE at exactly `Bits` (256 or 512) bits
/// (gemm_sve.cpp, one build per length; aarch64 only).
template <int Bits> const Target &sveTarget();

/// MXRT_KERNEL_CONV's value, or "" (see conv.cpp).
const std::string &convMethod();

/// Solves one problem (or piece of one) on this thread. A direct
/// convolution first lays out the input rows its grid columns read in
/// this thread's buffer: each thread copies what it reads, so that no
/// thread waits for another's copy or pulls it across from another core
/// (one shared copy made the kernels slower on two threads than on one).
void solve(const Problem &pr);

/// Runs one problem on `threads` threads of the current pool (1: here).
void runProblem(const Problem &pr, int32_t threads);

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

/// The parameter generation of the instance whose function runs on this
/// thread (0: none): MXRT_KERNEL_PARAM_A operands packed at this
/// generation are still good.
uint64_t currentParamGeneration();
/// A generation no instance has had: an instance takes a new one whenever
/// its parameters may have changed.
uint64_t newParamGeneration();
/// Sets this thread's generation while it lives.
class ParamGenerationScope {
public:
  explicit ParamGenerationScope(uint64_t generation);
  ~ParamGenerationScope();
  ParamGenerationScope(const ParamGenerationScope &) = delete;
  ParamGenerationScope &operator=(const ParamGenerationScope &) = delete;

private:
  uint64_t saved_;
};

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
    SlicedB,
    Winograd2,
    Winograd4,
    Nhwc,
    NhwcWinograd2,
    NhwcWinograd4,
    SmallWinograd,
    Scaled
  };

  /// A's packed whole, for a constant A or (within an instance's call) a
  /// parameter; NULL when it cannot be kept.
  const float *get(const Problem &pr) {
    bool direct = pr.isConv && pr.conv.gridWidth;
    const Target &t = target();
    uint64_t generation = keptGeneration(pr.flags).value_or(0);
    if (direct && pr.conv.pixelRows)
      return get(
          {pr.a, pr.m, pr.k, pr.aRs, pr.aCs, Layout::FilterLanes},
          t.filterLanesSize(pr.m, pr.k),
          [&](float *packed) { t.packFilterLanes(pr, packed); }, generation);
    return get(
        {pr.a, pr.m, pr.k, pr.aRs, pr.aCs,
         direct ? Layout::WholeDepth : Layout::Sliced},
        t.packedASize(pr.m, pr.k),
        [&](float *packed) { t.packAll(pr, packed); }, generation);
  }

  /// B's packed whole for a constant B (MXRT_KERNEL_CONST_B: a weight on
  /// the right of a matrix product), else NULL.
  const float *getB(const Problem &pr) {
    if (!(pr.flags & MXRT_KERNEL_CONST_B))
      return nullptr;
    const Target &t = target();
    return get(
        {pr.b, pr.n, pr.k, pr.bRs, pr.bCs, Layout::SlicedB},
        t.packedBSize(pr.n, pr.k),
        [&](float *packed) { t.packBAll(pr, packed); }, 0);
  }

  /// The F(m x m, 3 x 3) transform of filters weight (f x c x 3 x 3);
  /// kept when they are constant (`flags`), else made for this call (see
  /// filters()).
  const float *getWinograd(const float *weight, int64_t f, int64_t c, int64_t m,
                           int32_t flags) {
    const Target &t = target();
    return filters(
        {weight, f, c, 9, 1, m == 4 ? Layout::Winograd4 : Layout::Winograd2},
        t.winogradFilterSize(f, c, m),
        [&](float *packed) { t.winogradFilters(weight, f, c, m, packed); },
        flags);
  }

  /// Filters weight (f x cg x taps, `groups` groups) packed for an NHWC
  /// convolution, when constant or a parameter (`flags`); else NULL.
  const float *getNhwc(const float *weight, int64_t f, int64_t cg, int64_t taps,
                       int64_t groups, int32_t flags) {
    const Target &t = target();
    std::optional<uint64_t> generation = keptGeneration(flags);
    if (!generation)
      return nullptr;
    return get(
        {weight, f, cg, taps, groups, Layout::Nhwc},
        t.nhwcFilterSize(f, cg, taps, groups),
        [&](float *packed) {
          t.packNhwcFilters(weight, f, cg, taps, groups, packed);
        },
        *generation);
  }

  /// The F(m x m, 3 x 3) transform of filters weight (f x c x 3 x 3) for
  /// an NHWC convolution, kept or per call as getWinograd.
  const float *getNhwcWinograd(const float *weight, int64_t f, int64_t c,
                               int64_t m, int32_t flags) {
    const Target &t = target();
    return filters(
        {weight, f, c, 9, 1,
         m == 4 ? Layout::NhwcWinograd4 : Layout::NhwcWinograd2},
        t.nhwcWinogradFilterSize(f, c, m),
        [&](float *packed) { t.nhwcWinogradFilters(weight, f, c, m, packed); },
        flags);
  }

  /// Filters weight (f x c x 3 x 3) packed for a small-image Winograd
  /// convolution, kept or per call as getWinograd.
  const float *getSmallWinograd(const float *weight, int64_t f, int64_t c,
                                int32_t flags) {
    const Target &t = target();
    return filters(
        {weight, f, c, 9, 1, Layout::SmallWinograd},
        t.smallWinogradFilterSize(f, c, 9, 1),
        [&](float *packed) { t.packSmallWinograd(weight, f, c, 9, 1, packed); },
        flags);
  }

  /// weight (f filters of `each` floats) with filter i's row times
  /// scale[i]: kept as getWinograd keeps filters (a parameter's until its
  /// instance's parameters change: the scale, made from parameters too,
  /// changes only with them), else made for this call. Each product is
  /// rounded once from double.
  const float *getScaled(const float *weight, const float *scale, int64_t f,
                         int64_t each, int32_t flags) {
    auto fill = [&](float *out) {
      for (int64_t i = 0; i < f; ++i)
        for (int64_t j = 0; j < each; ++j)
          out[i * each + j] =
              float(double(weight[i * each + j]) * double(scale[i]));
    };
    Key key{weight, f, each, 0, 0, Layout::Scaled};
    if (flags & MXRT_KERNEL_CONST_A)
      return get(key, f * each, fill, 0);
    if (uint64_t generation = paramGeneration(flags))
      if (const float *kept = get(key, f * each, fill, generation))
        return kept;
    float *out = threadBuffer(Scratch::ScaledFilters, f * each);
    fill(out);
    return out;
  }

private:
  using Key =
      std::tuple<const float *, int64_t, int64_t, int64_t, int64_t, Layout>;

  /// Filters laid out by fill: from the cache when MXRT_KERNEL_CONST_A is
  /// in `flags` (or MXRT_KERNEL_PARAM_A within an instance's call), else
  /// into this thread's VaryingFilters buffer, which the pool's threads
  /// read until the call returns (a training step's weights change every
  /// step, at the same address).
  template <typename Fill>
  const float *filters(const Key &key, int64_t floats, const Fill &fill,
                       int32_t flags) {
    if (flags & MXRT_KERNEL_CONST_A)
      return get(key, floats, fill, 0);
    if (uint64_t generation = paramGeneration(flags))
      if (const float *kept = get(key, floats, fill, generation))
        return kept;
    float *packed = threadBuffer(Scratch::VaryingFilters, floats);
    fill(packed);
    return packed;
  }

public:
  /// The generation an MXRT_KERNEL_PARAM_A operand is kept for (0: not).
  static uint64_t paramGeneration(int32_t flags) {
    return flags & MXRT_KERNEL_PARAM_A ? currentParamGeneration() : 0;
  }
  /// Whether an operand with `flags` is kept, and at which generation: 0
  /// for a constant, the running instance's for a parameter.
  static std::optional<uint64_t> keptGeneration(int32_t flags) {
    if (flags & MXRT_KERNEL_CONST_A)
      return 0;
    if (uint64_t generation = paramGeneration(flags))
      return generation;
    return std::nullopt;
  }
  /// Drops the copies of operands in [begin, end) (an instance's
  /// parameters, when it is released).
  void forget(const void *begin, const void *end) {
    std::lock_guard<std::mutex> lock(mutex);
    // Scaled copies of those operands go, and so do the copies packed
    // from them (keyed by the scaled copy).
    std::vector<std::pair<const void *, const void *>> ranges{{begin, end}};
    for (auto &[key, entry] : entries) {
      const void *a = std::get<0>(key);
      if (std::get<5>(key) == Layout::Scaled && a >= begin && a < end)
        ranges.push_back(
            {entry.data.get(),
             entry.data.get() + std::get<1>(key) * std::get<2>(key)});
    }
    for (auto it = entries.begin(); it != entries.end();) {
      const void *a = std::get<0>(it->first);
      bool dropped = std::any_of(ranges.begin(), ranges.end(), [&](auto &r) {
        return a >= r.first && a < r.second;
      });
      it = dropped ? entries.erase(it) : std::next(it);
    }
  }

private:
  /// The packed copy for `key`: made at `generation` (0: constant), or
  /// packed again when the one kept is of another generation.
  template <typename Fill>
  const float *get(const Key &key, int64_t floats, const Fill &fill,
                   uint64_t generation) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = entries.find(key);
    if (it != entries.end()) {
      if (it->second.generation != generation) {
        fill(it->second.data.get());
        it->second.generation = generation;
      }
      return it->second.data.get();
    }
    auto *packed = static_cast<float *>(
        std::aligned_alloc(64, (floats * 4 + 63) / 64 * 64));
    if (!packed)
      return nullptr; // pack per call instead
    fill(packed);
    entries.emplace(
        key, Entry{std::unique_ptr<float, void (*)(void *)>(packed, std::free),
                   generation});
    return packed;
  }

  struct Entry {
    std::unique_ptr<float, void (*)(void *)> data;
    uint64_t generation;
  };
  std::mutex mutex;
  std::map<Key, Entry> entries;
};

/// The process's PackedCache.
PackedCache &packedCache();

/// A packed whole for `pr` if it is worth it, else NULL (pack block by
/// block): a constant A from the cache; a varying one packed into `slot`
/// when `reused` (several problems share it).
const float *packedAFor(const Problem &pr, bool reused);

/// B packed whole for `pr` when it is constant (from the cache), else NULL
/// (packed block by block).
const float *packedBFor(const Problem &pr);

/// Runs `count` independent problems, made by make(i), on the current
/// pool: whole problems per thread when there are enough of them, else each
/// one split. `sharedA`: every problem has the same A (else each problem's
/// constant A is looked up on its own).
template <typename Make>
void runBatch(int64_t count, const Make &make, bool sharedA) {
  const float *shared = sharedA ? packedAFor(make(0), count > 1) : nullptr;
  int64_t mr = target().mr, nr = target().nr;
  auto withPacked = [&](int64_t i) {
    Problem pr = make(i);
    pr.packedA = sharedA ? shared : packedAFor(pr, false);
    pr.packedARows = (pr.m + mr - 1) / mr * mr;
    pr.packedARow0 = 0;
    pr.packedB = packedBFor(pr);
    pr.packedBCols = (pr.n + nr - 1) / nr * nr;
    pr.packedBCol0 = 0;
    return pr;
  };
  runBatchPacked(count, withPacked);
}

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
        (*jb.run)(j *jb.count / jb.parts, (j + 1) * jb.count / jb.parts);
      },
      &job);
}

} // namespace mxrt

#endif // MXRT_SRC_GEMM_INTERNAL_H
