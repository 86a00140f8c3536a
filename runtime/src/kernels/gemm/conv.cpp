// SPDX-License-Identifier: Apache-2.0
//
// mxrt_kernel_sconv2d: picks each convolution's method (im2col or direct
// GEMM, Winograd for NCHW, small-image Winograd, the NHWC kernels) and splits
// it over the thread pool. Apart from gemm.cpp, which holds the GEMM and all
// the per-ISA kernels these drive through target(); see docs/kernels.md.

#include "gemm_internal.h"
#include "kernels/bgemm/bgemm.h"
#include "mxrt/kernels.h"
#include "threadpool.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace mxrt {

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

namespace {

bool directAllowed() { return convMethod() != "im2col"; }

/// The grid width for computing a convolution directly (ConvSource::
/// offsets) rather than by packing its im2col matrix, or 0 for im2col. The
/// grid is a phase plane's width (the padded width over the stride) by oh;
/// its columns past ow are computed and dropped, so direct is taken when
/// those are few (at most half as many again as ow; as many again for a
/// dilated window). Direct copies the
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
  // A dilated window's padding widens the grid: up to twice ow still beats
  // packing (lraspp_mobilenet_v3_large's 5x5 depthwise layers of dilation
  // 2 on 14 x 14, 22 columns for 14: the network 29 -> 17.5 ms, one
  // thread).
  bool dilated = dh > 1 || dw > 1;
  if (!directAllowed() || (dilated ? wq > 2 * ow : 2 * wq > 3 * ow) ||
      (kh * kw == 1 && (sh > 1 || sw > 1)) ||
      (oh - 1) * sh + (kh - 1) * dh >= hp ||
      (ow - 1) * sw + (kw - 1) * dw >= wp)
    return 0;
  return wq;
}

/// Whether a convolution is a plain product of its filters and its input
/// (1x1, stride 1, no padding: the im2col matrix is the input itself, c x
/// h * w, of `channels` rows), computed by the GEMM as such. The grid and
/// pixel-rows kernels read B in place from all its planes at once, and the
/// packed GEMM streams B from its panels better (bench/conv_layers.c, one
/// thread, ms, direct -> packed: ResNet-50's 256 -> 64 at 56x56 1.70 ->
/// 1.06, 512 -> 256 at 28x28 2.67 -> 1.45; fcn_resnet50's 2048 -> 512 at
/// 28x28 14.5 -> 11.3; lraspp_mobilenet_v3_large's 240 -> 80 at 14x14 0.088
/// -> 0.058) except from few planes of a large image, where the grid's
/// saved copy of B counts more (lraspp's 64 -> 24 at 56x56 0.103 against
/// 0.143, 16 -> 64 at 112x112 0.383 against 0.422), and on images of less
/// than two panels of columns, whose one partial panel the pixel rows fill
/// better (ResNet-50's 2048 -> 512 at 7x7: 0.80 against 0.86). A method
/// MXRT_KERNEL_CONV names other than im2col keeps them (to test it).
bool pointwiseAsGemm(int64_t channels, int64_t h, int64_t w, int64_t oh,
                     int64_t ow, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                     int64_t ph, int64_t pw) {
  const std::string &forced = convMethod();
  bool plain = kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0 &&
               oh == h && ow == w;
  int64_t pixels = oh * ow;
  return (forced.empty() || forced == "im2col") && plain &&
         (pixels > 1024 ? channels > 64 : pixels >= 2 * target().nr);
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
/// element. So: at least 64 filters (a panel) and at most 1024 pixels, 6
/// pixels per tile. Seven would leave no rows over on 7x7 and 14x14
/// outputs, but its 28 accumulators, 4 filter vectors and broadcast need
/// 33 of the 32 vector registers: the compiler spilled one and rotated
/// others inside the inner loop, and with 6 ResNet-18's 28x28 -> 14x14
/// 3x3 / 2 (varying filters, batch 32, one thread) took 23.5-24.1 rather
/// than 26.7 ms, its 7x7 layers the same (54 rows for 49). Needs AVX-512
/// (R x 4 accumulators); the filters are packed transposed once (constant
/// ones) or once per call (see packedAFor). MXRT_KERNEL_CONV=pixels takes
/// it wherever it can, grid never.
int64_t pixelRowsFor(int64_t pixels, int64_t filters, int64_t groups) {
  const std::string &forced = convMethod();
  if (!target().laneFilters || forced == "grid" || forced == "im2col")
    return 0;
  constexpr int64_t rows = 6;
  if (forced == "pixels")
    return rows;
  return groups == 1 && filters >= target().laneFilters && pixels <= 1024 ? rows
                                                                          : 0;
}

/// Whether Winograd may compute a convolution (NCHW or NHWC): 3x3,
/// stride 1, undilated, ungrouped, and MXRT_KERNEL_CONV does not rule it
/// out. Constant filters are transformed once, others once per call (a
/// training step's: (m + 2)^2 / 9 of the weight's size, where the
/// convolution does 9 multiply-adds per weight and output position).
bool winogradApplies(int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t dh,
                     int64_t dw, int64_t groups) {
  const std::string &forced = convMethod();
  return kh == 3 && kw == 3 && sh == 1 && sw == 1 && dh == 1 && dw == 1 &&
         groups == 1 && forced != "im2col" && forced != "direct" &&
         forced != "grid" && forced != "pixels";
}

/// The tile size MXRT_KERNEL_CONV forces (winograd2 / winograd4), or 0.
int64_t forcedWinogradTile() {
  const std::string &forced = convMethod();
  return forced == "winograd2" ? 2 : forced == "winograd4" ? 4 : 0;
}

/// The tile size m of the Winograd F(m x m, 3 x 3) that computes a
/// convolution, or 0 for none. Winograd applies to 3x3, stride-1,
/// undilated, ungrouped convolutions (see winogradApplies). Its GEMMs have (m +
/// 2)^2 products per m x m tile over a grid one tile wider than the output; m
/// is 4 where that has fewer GEMM columns and a grid of more than one panel,
/// else 2 (4 for ResNet-18's 56x56 and 28x28, 2 for its 14x14: 0.83
/// against 1.02 ms and 0.66 against 0.81 on the first two), and Winograd is
/// taken where those are under 0.7 of a direct convolution's (9 per output,
/// over a grid of phase-plane width): the transforms cost the rest. A 7x7 image
/// (16 tiles in a 32-column panel) stays direct, and so do layers of fewer than
/// 64 channels or filters, whose GEMMs are too shallow to pay for the
/// transforms (ResNet-20's 16 and 32-channel layers: 0.046 against 0.034 ms;
/// bench/conv_layers.c), and images of one panel of tiles (8x8): no faster
/// on one thread, and on two split by filters, each thread transforming
/// the whole input (ResNet-20 0.59 against 0.56 ms). Varying filters (a
/// training step's, flags without MXRT_KERNEL_CONST_A) take F(2x2) only:
/// F(4x4)'s larger rounding, amplified by BatchNorm's backward pass (small
/// differences of large sums), put some of ResNet-18's one-step weight
/// updates 7% of their size from PyTorch's float64 step, ten times its
/// float32 step's error (bench/train_bench.py's check), where F(2x2)'s
/// errors stay within a third of that bound; F(2x2) costs 7% more time on
/// the training convolutions it takes (bench/conv_layers.c forward-train).
int64_t winogradTile(int64_t c, int64_t f, int64_t h, int64_t w, int64_t oh,
                     int64_t ow, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                     int64_t ph, int64_t pw, int64_t dh, int64_t dw,
                     int64_t groups, int32_t flags) {
  if (!winogradApplies(kh, kw, sh, sw, dh, dw, groups))
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
  // columns; varying filters F(2x2).
  // (A parameter in an inference function counts as constant here: its
  // rounding is an inference's.)
  bool constant = flags & (MXRT_KERNEL_CONST_A | MXRT_KERNEL_PARAM_A);
  int64_t m = constant && tiles(4) > nr && columns(4) < columns(2) ? 4 : 2;
  if (forced == "winograd")
    return m;
  int64_t gridWidth =
      directGridWidth(h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw);
  int64_t direct = 9 * round(oh * (gridWidth ? gridWidth : ow));
  // Narrow layers (16-63 channels, e.g. CIFAR ResNets) gain from F(4x4) on
  // one thread; on more, its few tile panels split unevenly. F(2x2) pays on
  // them too: ResNet-20's 16- and 32-channel layers with varying filters,
  // batch 64, one thread, 4.09 -> 3.55 and 3.77 -> 2.95 ms against direct
  // on Zen 4 (bench/conv_layers.c forward-train, docs/training.md); on an
  // Intel Xeon (family 6 model 167) ResNet-20's whole training step 190 ->
  // 183 ms on one thread, 97.0 -> 95.7 on two (alternating runs).
  ThreadPool *pool = ThreadPool::current();
  bool single = !pool || pool->size() == 1;
  bool wide = c >= 64 && f >= 64;
  bool narrow = (m == 2 || single) && c >= 16 && f >= 16;
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
  const float *filters = packedCache().getWinograd(weight, f, c, m, flags);
  if (!filters)
    return false;
  WinogradShape shape = {c, f, h, w, oh, ow, ph, pw, m, 0, 0, 0};
  shape.th = (oh + m - 1) / m, shape.tw = (ow + m - 1) / m;
  shape.wq = shape.tw + 1;
  auto image = [&](int64_t i) {
    return WinogradPiece{
        &shape, x + i * c * h * w,   filters, bias, y + i * f * oh * ow, flags,
        0,      shape.th * shape.wq, 0,       f};
  };
  ThreadPool *pool = ThreadPool::current();
  int32_t threads = pool ? pool->size() : 1;
  // A batch of at least two images a thread: whole images per thread, no
  // hand-off inside an image (ResNet-20's 32-channel 16x16 layers, batch
  // 64, two threads, split by tile rows: see docs/training.md).
  if (threads > 1 && n >= 2 * threads) {
    int64_t work = n * (m + 2) * (m + 2) * c * f * shape.th * shape.wq;
    splitRuns(n, work, [&image](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        winogradPiece(image(i));
    });
    return true;
  }
  for (int64_t i = 0; i < n; ++i)
    winogradImage(image(i), threads);
  return true;
}

/// The tile size m of the Winograd F(m x m, 3 x 3) that computes an NHWC
/// convolution, or 0 for direct. As winogradTile: 3x3, stride 1,
/// undilated, ungrouped; here also channels in whole
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
  if (!winogradApplies(cv.kh, cv.kw, cv.sh, cv.sw, cv.dh, cv.dw, cv.groups) ||
      cv.c % 16 != 0)
    return 0;
  if (int64_t m = forcedWinogradTile())
    return m;
  if (convMethod() != "winograd" && (cv.c < 16 || cv.f < 16))
    return 0;
  bool varying = !(cv.flags & (MXRT_KERNEL_CONST_A | MXRT_KERNEL_PARAM_A));
  // (see winogradTile)
  return varying || 36 * cv.c * cv.f * 4 > (int64_t{4} << 20) ? 2 : 4;
}

/// An NHWC convolution by Winograd: runs of consecutive tiles per thread.
/// False when the transformed filters could not be allocated.
bool nhwcWinogradConv(const NhwcConv &cv, const float *weight, int64_t m) {
  NhwcWinograd wg = {
      &cv, packedCache().getNhwcWinograd(weight, cv.f, cv.c, m, cv.flags), m,
      (cv.oh + m - 1) / m, (cv.ow + m - 1) / m};
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
  cv.filters =
      packedCache().getNhwc(weight, cv.f, cg, taps, cv.groups, cv.flags);
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
                        int64_t dh, int64_t dw, int64_t groups) {
  int64_t block = target().smallWinogradFilters;
  if (!block || !winogradApplies(kh, kw, sh, sw, dh, dw, groups) ||
      forcedWinogradTile() == 4 || oh > 8 || ow > 8 || c % 16 != 0 ||
      f % block != 0)
    return false;
  const std::string &forced = convMethod();
  if (forced == "winograd" || forced == "winograd2")
    return true;
  return (oh == 8 && ow == 8) ||
         (oh >= 7 && ow >= 7 && c * f >= int64_t{256} * 256);
}

/// An NCHW convolution by Winograd for small images: with a batch of at
/// least two images a thread, the images split among the threads, each
/// transforming its own; else blocks of filters, each thread transforming
/// every image itself. False when the packed filters could not be
/// allocated.
bool smallWinogradConv(const SmallWinograd &shape, const float *weight) {
  SmallWinograd s = shape;
  s.filters = packedCache().getSmallWinograd(weight, s.f, s.c, s.flags);
  if (!s.filters)
    return false;
  int64_t blocks = s.f / target().smallWinogradFilters;
  int64_t work = s.n * 256 * s.c * s.f;
  ThreadPool *pool = ThreadPool::current();
  if (pool && s.n >= 2 * pool->size()) {
    splitRuns(s.n, work, [&s, blocks](int64_t begin, int64_t end) {
      SmallWinograd run = s;
      run.n = end - begin;
      run.x = s.x + begin * s.c * s.h * s.w;
      run.y = s.y + begin * s.f * s.oh * s.ow;
      target().smallWinogradBlocks(run, 0, blocks);
    });
    return true;
  }
  splitRuns(blocks, work, [&s](int64_t begin, int64_t end) {
    target().smallWinogradBlocks(s, begin, end);
  });
  return true;
}
} // namespace

/// `images` images of a depthwise convolution, their planes split evenly
/// over the call's threads.
void depthwiseConv(const Depthwise &d, int64_t images) {
  int64_t planes = images * d.channels;
  DepthwiseFn run = target().depthwisePlanes;
  ThreadPool *pool = ThreadPool::current();
  int64_t parts = pool ? std::min<int64_t>(pool->size(), planes) : 1;
  if (parts <= 1) {
    run(d, 0, planes);
    return;
  }
  struct Job {
    const Depthwise *d;
    DepthwiseFn run;
    int64_t planes, parts;
  } job{&d, run, planes, parts};
  pool->parallelFor(
      parts,
      [](void *arg, int64_t k) {
        const Job &j = *static_cast<const Job *>(arg);
        j.run(*j.d, k * j.planes / j.parts, (k + 1) * j.planes / j.parts);
      },
      &job);
}
} // namespace mxrt

using mxrt::Problem;

extern "C" void
mxrt_kernel_sconv2d(int64_t n, int64_t c, int64_t h, int64_t w, int64_t f,
                    int64_t oh, int64_t ow, int64_t kh, int64_t kw,
                    int64_t stride_h, int64_t stride_w, int64_t pad_h,
                    int64_t pad_w, int64_t dilate_h, int64_t dilate_w,
                    int64_t groups, const float *x, const float *weight,
                    const float *bias, float *y, int32_t flags) {
  if (n <= 0 || f <= 0 || oh <= 0 || ow <= 0 || groups <= 0)
    return;
  if (flags & MXRT_KERNEL_BF16) {
    // A depthwise convolution (one filter per channel) is too narrow a
    // product for the bfloat16 GEMM: the float32 kernels run it on the
    // rounded input and filters (as products, not Winograd, for groups >
    // 1). The rounded filters are kept where the weight is constant.
    if (groups == c && f == c && c > 1 &&
        (kh * kw > 1 || (flags & MXRT_KERNEL_NHWC))) {
      bool kept = flags & MXRT_KERNEL_CONST_A;
      const float *rx = mxrt::bf16Copy(x, n * c * h * w, false, 0);
      const float *rw = mxrt::bf16Copy(weight, f * kh * kw, kept, 1);
      int32_t rest = flags & ~MXRT_KERNEL_BF16;
      if (!kept) // the copy is a thread buffer, not the weight's address
        rest &= ~(MXRT_KERNEL_CONST_A | MXRT_KERNEL_PARAM_A);
      mxrt_kernel_sconv2d(n, c, h, w, f, oh, ow, kh, kw, stride_h, stride_w,
                          pad_h, pad_w, dilate_h, dilate_w, groups, rx, rw,
                          bias, y, rest);
      return;
    }
    mxrt::bconv2d(n, c, h, w, f, oh, ow, kh, kw, stride_h, stride_w, pad_h,
                  pad_w, dilate_h, dilate_w, groups, x, weight, bias, y, flags);
    return;
  }
  // One filter per channel: planes of their own (MXRT_KERNEL_CONV naming
  // another method takes it, to compare with).
  if (groups == c && f == c && kh * kw > 1 && !(flags & MXRT_KERNEL_NHWC) &&
      (mxrt::convMethod().empty() || mxrt::convMethod() == "depthwise")) {
    mxrt::depthwiseConv({h, w, oh, ow, kh, kw, stride_h, stride_w, pad_h, pad_w,
                         dilate_h, dilate_w, x, weight, bias, y, c, flags},
                        n);
    return;
  }
  if (flags & MXRT_KERNEL_NHWC) {
    mxrt::convNhwc({n,     c,        h,        w,        f,        oh,
                    ow,    kh,       kw,       stride_h, stride_w, pad_h,
                    pad_w, dilate_h, dilate_w, groups,   x,        nullptr,
                    bias,  y,        flags},
                   weight);
    return;
  }
  if (mxrt::smallWinogradTakes(c, f, oh, ow, kh, kw, stride_h, stride_w,
                               dilate_h, dilate_w, groups) &&
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
  bool pointwise = mxrt::pointwiseAsGemm(cg, h, w, oh, ow, kh, kw, stride_h,
                                         stride_w, pad_h, pad_w);
  int64_t gridWidth =
      pointwise
          ? 0
          : mxrt::directGridWidth(h, w, oh, ow, kh, kw, stride_h, stride_w,
                                  pad_h, pad_w, dilate_h, dilate_w);
  int64_t pixelRows = gridWidth ? mxrt::pixelRowsFor(oh * ow, fg, groups) : 0;
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
    if (pointwise) { // the im2col matrix is the input itself
      pr.isConv = false;
      pr.b = x + i * cg * h * w, pr.bRs = h * w, pr.bCs = 1;
    } else if (gridWidth) {
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

extern "C" void mxrt_kernel_sconv2d_scaled(
    int64_t n, int64_t c, int64_t h, int64_t w, int64_t f, int64_t oh,
    int64_t ow, int64_t kh, int64_t kw, int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w, int64_t dilate_h, int64_t dilate_w,
    int64_t groups, const float *x, const float *weight, const float *scale,
    const float *bias, float *y, int32_t flags) {
  if (n <= 0 || f <= 0 || oh <= 0 || ow <= 0 || groups <= 0)
    return;
  // The scaled filters, kept (and so at a fixed address) as long as the
  // weight's packed copies would be: the kernels then key their packed
  // copies by it.
  const float *scaled = mxrt::packedCache().getScaled(
      weight, scale, f, c / groups * kh * kw, flags);
  mxrt_kernel_sconv2d(n, c, h, w, f, oh, ow, kh, kw, stride_h, stride_w, pad_h,
                      pad_w, dilate_h, dilate_w, groups, x, scaled, bias, y,
                      flags);
}
