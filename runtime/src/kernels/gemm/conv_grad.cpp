// SPDX-License-Identifier: Apache-2.0
//
// The gradients of mxrt_kernel_sconv2d (NCHW) through the packed GEMM:
// the data gradient as W^T dy into an image's column matrix, scattered back
// (col2im) onto the input, or where the stride is 1 as the forward kernel's
// convolution of dy with the flipped filters; the weight gradient as dy
// times the image's im2col matrix transposed, summed over each thread's run
// of the batch, the runs added at the end, or where the stride is 1 by
// Winograd (64+ channels) or directly (conv_grad_impl.inc: dy's rows times x's
// shifted rows, vector accumulators per tap). Channels last (MXRT_KERNEL_NHWC)
// the same GEMMs run on a column matrix with each tap's channels contiguous,
// and the stride-1 data gradient through the NHWC forward kernels.
#include "mxrt/kernels.h"

#include "gemm_internal.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace mxrt {
namespace {

/// One convolution's geometry (mxrt_kernel_sconv2d's arguments).
struct ConvGrad {
  int64_t n, c, h, w, f, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw, groups;

  int64_t cg() const { return c / groups; }
  int64_t fg() const { return f / groups; }
  /// Rows of the column matrix: (channel, kernel row, kernel column).
  int64_t k() const { return cg() * kh * kw; }
  /// Output positions of one image.
  int64_t p() const { return oh * ow; }
  /// Output positions a weight-gradient GEMM takes at once (its k): at
  /// least 256, where each product's k x fg result is read and written
  /// once per 256 multiply-adds per element (LeNet's 8x8 images are four
  /// to a product), and no more than a column matrix of about 256 KiB,
  /// which stays in cache from im2col to the GEMM's packing.
  int64_t chunkPositions() const {
    return std::max<int64_t>({256, (64 << 10) / k(), ow});
  }
  /// Stride 1 and no dilation.
  bool unitStride() const { return sh == 1 && sw == 1 && dh == 1 && dw == 1; }
  /// The column matrix is the image itself.
  bool pointwise() const {
    return kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0 &&
           oh == h && ow == w;
  }
  /// The outputs [ox0, ox1) of kernel column kx that read inside the input.
  void columns(int64_t kx, int64_t &ox0, int64_t &ox1) const {
    int64_t off = kx * dw - pw; // ix = ox * sw + off
    ox0 = off >= 0 ? 0 : (-off + sw - 1) / sw;
    ox1 = off >= w ? 0 : std::min(ow, (w - 1 - off) / sw + 1);
    ox1 = std::max(ox1, ox0);
  }
};

/// dst[0, n) = src[0, n) for the short rows the layouts below copy (8 to
/// 64 floats): inline 16- and 4-float blocks, where a libc memmove call and
/// its size dispatch cost more than the copy itself (2% of the CIFAR
/// ResNet-20 training step went to memmove from gradWeightDirectRun).
__attribute__((no_builtin("memcpy", "memmove"))) inline void
copyShort(const float *__restrict src, int64_t n, float *__restrict dst) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    __builtin_memcpy(dst + i, src + i, 16 * sizeof(float));
  for (; i + 4 <= n; i += 4)
    __builtin_memcpy(dst + i, src + i, 4 * sizeof(float));
  for (; i < n; ++i)
    dst[i] = src[i];
}

/// dx (cg, h, w) += col2im(cols), cols (k, p).
void col2imAdd(const ConvGrad &g, const float *cols, float *dx) {
  int64_t p = g.p();
  for (int64_t c = 0; c < g.cg(); ++c)
    for (int64_t ky = 0; ky < g.kh; ++ky)
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        const float *row = cols + ((c * g.kh + ky) * g.kw + kx) * p;
        int64_t ox0, ox1, off = kx * g.dw - g.pw;
        g.columns(kx, ox0, ox1);
        for (int64_t oy = 0; oy < g.oh; ++oy) {
          int64_t iy = oy * g.sh - g.ph + ky * g.dh;
          if (iy < 0 || iy >= g.h)
            continue;
          float *out = dx + (c * g.h + iy) * g.w + off;
          const float *in = row + oy * g.ow;
          if (g.sw == 1)
            for (int64_t ox = ox0; ox < ox1; ++ox)
              out[ox] += in[ox];
          else
            for (int64_t ox = ox0; ox < ox1; ++ox)
              out[ox * g.sw] += in[ox];
        }
      }
}

/// cols (k rows `ld` apart) = the im2col matrix of x (cg, h, w) for the
/// output rows [oy0, oy1): row (c, ky, kx) the inputs that tap reads for
/// each of their positions, zeros where it reads padding. Each row is
/// copied a run of outputs at a time.
void im2col(const ConvGrad &g, const float *x, int64_t oy0, int64_t oy1,
            float *cols, int64_t ld) {
  for (int64_t c = 0; c < g.cg(); ++c)
    for (int64_t ky = 0; ky < g.kh; ++ky)
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        float *row = cols + ((c * g.kh + ky) * g.kw + kx) * ld;
        int64_t ox0, ox1, off = kx * g.dw - g.pw;
        g.columns(kx, ox0, ox1);
        for (int64_t oy = oy0; oy < oy1; ++oy) {
          float *out = row + (oy - oy0) * g.ow;
          int64_t iy = oy * g.sh - g.ph + ky * g.dh;
          if (iy < 0 || iy >= g.h) {
            std::fill(out, out + g.ow, 0.0f);
            continue;
          }
          const float *in = x + (c * g.h + iy) * g.w + off;
          std::fill(out, out + ox0, 0.0f);
          if (g.sw == 1)
            std::copy(in + ox0, in + ox1, out + ox0);
          else if (g.sw == 2) // a constant stride: vectorized by shuffles
            for (int64_t ox = ox0; ox < ox1; ++ox)
              out[ox] = in[ox * 2];
          else
            for (int64_t ox = ox0; ox < ox1; ++ox)
              out[ox] = in[ox * g.sw];
          std::fill(out + ox1, out + g.ow, 0.0f);
        }
      }
}

/// A plain GEMM problem C = A B with the given strides.
Problem gemm(int64_t m, int64_t n, int64_t k, const float *a, int64_t aRs,
             int64_t aCs, const float *b, int64_t bRs, int64_t bCs, float *c,
             int64_t cRs, int32_t flags) {
  Problem pr = {};
  pr.m = m, pr.n = n, pr.k = k;
  pr.a = a, pr.aRs = aRs, pr.aCs = aCs;
  pr.b = b, pr.bRs = bRs, pr.bCs = bCs;
  pr.c = c, pr.cRs = cRs, pr.cCs = 1;
  pr.flags = flags;
  return pr;
}

int32_t poolThreads() {
  ThreadPool *pool = ThreadPool::current();
  return pool ? pool->size() : 1;
}

/// dx of image-and-group `i` (of n * groups), its GEMM on `threads`.
void gradDataOne(const ConvGrad &g, const float *dy, const float *weight,
                 float *dx, bool accumulate, int64_t i, int32_t threads) {
  int64_t grp = i % g.groups, k = g.k(), p = g.p();
  float *out = dx + i * g.cg() * g.h * g.w;
  const float *w = weight + grp * g.fg() * k;
  const float *d = dy + i * g.fg() * p;
  // cols (k x p) = W_g^T (k x fg) dy_g (fg x p).
  if (g.pointwise()) {
    runProblem(gemm(k, p, g.fg(), w, 1, k, d, p, 1, out, p,
                    accumulate ? MXRT_KERNEL_ACCUMULATE : 0),
               threads);
    return;
  }
  float *cols = threadBuffer(Scratch::GradColumns, k * p);
  runProblem(gemm(k, p, g.fg(), w, 1, k, d, p, 1, cols, p, 0), threads);
  if (!accumulate)
    std::memset(out, 0, g.cg() * g.h * g.w * sizeof(float));
  col2imAdd(g, cols, out);
}

/// The weight gradient of images [begin, end): dw (groups, fg, k) (+)=
/// the sum over them of, per group, dy (fg x p) times the image's column
/// matrix (k x p) transposed. Whole output rows of one image or more go in
/// a chunk: im2col writes their columns, dy's rows are copied beside each
/// other (row copies; transposing dy instead cost as much as im2col), and
/// the GEMM's packing transposes the column matrix in vector blocks.
void gradWeightRun(const ConvGrad &g, const float *x, const float *dy,
                   float *dw, bool accumulate, int64_t begin, int64_t end,
                   int32_t threads) {
  int64_t k = g.k(), p = g.p(), fg = g.fg();
  int64_t capacity = g.chunkPositions();
  float *dyc = threadBuffer(Scratch::GradOutput, fg * capacity);
  float *cols = threadBuffer(Scratch::GradColumns, k * capacity);
  for (int64_t grp = 0; grp < g.groups; ++grp) {
    // `filled` positions so far.
    int64_t filled = 0;
    bool add = accumulate;
    auto multiply = [&] {
      runProblem(gemm(fg, k, filled, dyc, capacity, 1, cols, 1, capacity,
                      dw + grp * fg * k, k, add ? MXRT_KERNEL_ACCUMULATE : 0),
                 threads);
      add = true, filled = 0;
    };
    for (int64_t img = begin; img < end; ++img) {
      const float *xi = x + (img * g.c + grp * g.cg()) * g.h * g.w;
      const float *d = dy + (img * g.f + grp * fg) * p;
      for (int64_t oy0 = 0; oy0 < g.oh;) {
        int64_t rows = std::min(g.oh - oy0, (capacity - filled) / g.ow);
        int64_t count = rows * g.ow;
        im2col(g, xi, oy0, oy0 + rows, cols + filled, capacity);
        for (int64_t f = 0; f < fg; ++f)
          std::memcpy(dyc + f * capacity + filled, d + f * p + oy0 * g.ow,
                      count * sizeof(float));
        filled += count, oy0 += rows;
        if (capacity - filled < g.ow)
          multiply();
      }
    }
    if (filled)
      multiply();
  }
}

/// The weight gradient of a pointwise convolution from images [begin,
/// end): dw (groups, fg, cg) (+)= the sum over them of, per group, dy
/// (fg x p) times x transposed (p x cg), one GEMM each (its packing
/// transposes x; nothing is laid out first). Against the direct kernel
/// (best of 10 alternating calls, batch 32, one thread): Inception-BN's
/// 256 -> 64 at 28x28 9.9 / 9.7 ms, 320 -> 128 17.6 / 22.8, 576 -> 224 at
/// 14x14 10.0 / 11.0, 1024 -> 352 at 7x7 7.4 / 8.6.
void gradWeightPointwiseRun(const ConvGrad &g, const float *x, const float *dy,
                            float *dw, bool accumulate, int64_t begin,
                            int64_t end, int32_t threads) {
  int64_t p = g.p(), cg = g.cg(), fg = g.fg();
  for (int64_t grp = 0; grp < g.groups; ++grp)
    for (int64_t img = begin; img < end; ++img) {
      bool add = accumulate || img > begin;
      runProblem(gemm(fg, cg, p, dy + (img * g.f + grp * fg) * p, p, 1,
                      x + (img * g.c + grp * cg) * p, 1, p, dw + grp * fg * cg,
                      cg, add ? MXRT_KERNEL_ACCUMULATE : 0),
                 threads);
    }
}

/// Whether the direct weight gradient reads `g`'s input in place, padded
/// in registers (GradDirect::inPlace): 3x3, stride 1 or 2 both ways, pad
/// 1, the input exactly the stride times the output, output rows of whole
/// vectors.
bool shiftedWeightGradient(const ConvGrad &g) {
  int64_t vl = target().vectorLanes;
  bool stride = g.sh == g.sw && (g.sh == 1 || g.sh == 2);
  return g.kh == 3 && g.kw == 3 && stride && g.dh == 1 && g.dw == 1 &&
         g.ph == 1 && g.pw == 1 && g.h == g.sh * g.oh && g.w == g.sw * g.ow &&
         g.ow % vl == 0;
}

/// Whether target().gradWeightDirect computes `g`'s weight gradient: it
/// has the kernel size, no dilation, and the output rows fill a vector at
/// least (8x8 images in 16 lanes took 4.7 ms where the GEMM takes 3.5:
/// ResNet-20's last stage, batch 64; its 16- and 32-wide stages went from
/// 7.5 and 4.2 ms to 2.0 and 2.1). Stride 2 (both ways) where the GEMM
/// is starved by at most 64 filters a group: ResNet-20's 3x3/2 16 -> 32
/// 3.8-4.0 -> 2.1-2.5 ms, its 1x1/2 0.81-0.92 -> 0.52-0.57 (one thread,
/// batch 64); ResNet-18's 128-512 filters ran about as fast either way.
bool directWeightGradient(const ConvGrad &g) {
  bool stride = g.sh == g.sw && (g.sh == 1 || (g.sh == 2 && g.fg() <= 64));
  return shiftedWeightGradient(g) ||
         (stride && g.dh == 1 && g.dw == 1 && g.kh == g.kw &&
          (g.kh == 1 || g.kh == 3 || g.kh == 5) &&
          g.ow >= target().vectorLanes);
}

/// even[j] = src[2 j], odd[j] = src[2 j + 1] for j < n (one vector loop:
/// the three do not overlap).
void deinterleave(const float *__restrict src, float *__restrict even,
                  float *__restrict odd, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    even[j] = src[2 * j];
    odd[j] = src[2 * j + 1];
  }
}

/// The direct weight gradient of images [begin, end), filters [f0, f1) of
/// every group, added to acc (GradDirect's lanes, groups one after the
/// other). The images go in chunks whose padded copies (split into stride
/// phases) fit in cache.
void gradWeightDirectRun(const ConvGrad &g, const float *x, const float *dy,
                         float *acc, int64_t begin, int64_t end, int64_t f0,
                         int64_t f1) {
  const Target &t = target();
  int64_t vl = t.vectorLanes, cg = g.cg(), fg = g.fg(), s = g.sh;
  if (shiftedWeightGradient(g)) {
    // Read in place, padded in registers (gradWeightShifted).
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      GradDirect d{x + (begin * g.c + grp * cg) * g.h * g.w,
                   dy + (begin * g.f + grp * fg) * g.oh * g.ow,
                   acc + grp * fg * cg * 9 * vl,
                   end - begin,
                   cg,
                   fg,
                   g.oh,
                   g.ow,
                   3,
                   3,
                   g.h,
                   g.w,
                   s,
                   g.c * g.h * g.w,
                   g.f * g.oh * g.ow,
                   true};
      t.gradWeightDirect(d, f0, f1);
    }
    return;
  }
  int64_t owr = (g.ow + vl - 1) / vl * vl;
  int64_t hp = g.oh + (g.kh - 1) / s, wp = owr + (g.kw - 1) / s;
  int64_t phH = std::min(s, g.kh), phW = std::min(s, g.kw);
  int64_t phase = hp * wp, xPlane = phH * phW * phase;
  int64_t xImage = cg * xPlane, dyImage = fg * g.oh * owr;
  int64_t chunk =
      std::clamp<int64_t>((256 << 10) / (xImage + dyImage), 1, end - begin);
  float *xp = threadBuffer(Scratch::GradColumns, chunk * xImage);
  // dy is read in place where its rows fill whole vectors and one group
  // holds every filter; else copied into rows of owr.
  bool inPlace = owr == g.ow && g.groups == 1;
  float *dyp =
      inPlace ? nullptr : threadBuffer(Scratch::GradOutput, chunk * dyImage);
  // The padding is zeroed once: every chunk writes the same interior.
  int64_t first = std::min(chunk, end - begin);
  std::fill(xp, xp + first * xImage, 0.0f);
  if (dyp)
    std::fill(dyp, dyp + first * dyImage, 0.0f);
  // Input row iy is padded row r = iy + ph: phase row r % s, row r / s of
  // it; input column ix is padded column q = ix + pw, phase column q % s,
  // column q / s. Rows and columns past the planes are never read. With
  // stride 2, even input columns go to phase column pw % 2 from column
  // pw / 2 on, odd ones to the other from (pw + 1) / 2 (phase column 1
  // exists only for kernels wider than one).
  int64_t evenPhase = g.pw % 2, evenAt = g.pw / 2, oddAt = (g.pw + 1) / 2;
  bool evens = evenPhase < phW, odds = 1 - evenPhase < phW;
  int64_t evenCount = std::min((g.w + 1) / 2, wp - evenAt),
          oddCount = std::min(g.w / 2, wp - oddAt);
  int64_t pairs = evens && odds ? std::min(evenCount, oddCount) : 0;
  auto copyRow = [&](const float *src, float *plane, int64_t row) {
    if (s == 1) {
      copyShort(src, std::min(g.w, wp - g.pw), plane + row * wp + g.pw);
      return;
    }
    float *even = plane + evenPhase * phase + row * wp + evenAt;
    float *odd = plane + (1 - evenPhase) * phase + row * wp + oddAt;
    deinterleave(src, even, odd, pairs);
    if (evens)
      for (int64_t j = pairs; j < evenCount; ++j)
        even[j] = src[2 * j];
    if (odds)
      for (int64_t j = pairs; j < oddCount; ++j)
        odd[j] = src[2 * j + 1];
  };
  int shift = s == 2 ? 1 : 0;
  for (int64_t grp = 0; grp < g.groups; ++grp)
    for (int64_t i0 = begin; i0 < end; i0 += chunk) {
      int64_t images = std::min(chunk, end - i0);
      for (int64_t i = 0; i < images; ++i) {
        for (int64_t c = 0; c < cg; ++c) {
          const float *src = x + ((i0 + i) * g.c + grp * cg + c) * g.h * g.w;
          float *dst = xp + (i * cg + c) * xPlane;
          for (int64_t iy = 0; iy < g.h; ++iy) {
            int64_t r = iy + g.ph, a = r & (s - 1), row = r >> shift;
            if (a < phH && row < hp)
              copyRow(src + iy * g.w, dst + a * phW * phase, row);
          }
        }
        if (inPlace)
          continue;
        float *d = dyp + i * dyImage;
        for (int64_t f = 0; f < fg; ++f)
          for (int64_t oy = 0; oy < g.oh; ++oy, d += owr) {
            const float *src =
                dy + (((i0 + i) * g.f + grp * fg + f) * g.oh + oy) * g.ow;
            copyShort(src, g.ow, d);
          }
      }
      const float *dyRows = inPlace ? dy + i0 * dyImage : dyp;
      GradDirect d{xp,     dyRows, acc + grp * fg * cg * g.kh * g.kw * vl,
                   images, cg,     fg,
                   g.oh,   owr,    g.kh,
                   g.kw,   hp,     wp,
                   s,      xImage, dyImage,
                   false};
      t.gradWeightDirect(d, f0, f1);
    }
}

/// Whether the weight gradient takes Winograd F(2x2, 3x3)
/// (gradWeightWinogradRun): 3x3, stride 1, undilated, ungrouped, with at
/// least 64 channels and filters (MXRT_KERNEL_CONV=winograd / winograd2:
/// wherever it applies; direct, grid, pixels, im2col, winograd4: never).
/// Narrower layers' 16 GEMMs are too small: ResNet-20's 32-channel 16x16
/// layers, batch 64, one thread, took 4.97 ms against 2.93 direct; its
/// 64-channel 8x8 ones 5.5 either way (bench/conv_layers.c).
bool winogradWeightGradient(const ConvGrad &g) {
  if (!(g.kh == 3 && g.kw == 3 && g.unitStride() && g.groups == 1))
    return false;
  const std::string &forced = convMethod();
  if (forced == "winograd" || forced == "winograd2")
    return true;
  return forced.empty() && g.c >= 64 && g.f >= 64;
}

/// The tiles of a Winograd weight gradient: th x tw 2x2 output tiles of an
/// image, laid out for the transforms in rows of `width` floats, vtw tiles
/// a row (whole vectors, two columns a tile), vth rows of them. Normally a
/// layout row is a padded image row (plus the last tile's two columns;
/// the shifted columns a tile reads are `shift` = 2 floats on). An image
/// at most half a vector of tiles wide puts `group` tile rows side by side
/// in a row instead, each in a segment of `seg` floats (tw rounded up to a
/// power of two, two columns a tile), so that the transforms' vectors are
/// full: 8x8 images filled a quarter of them. The shifted columns then
/// come from a second copy of the rows, `shift` floats on, whose segments
/// start two columns later.
struct WinogradGradTiles {
  int64_t th, tw, group, seg, vth, vtw, width, xRows, yRows, shift;
  explicit WinogradGradTiles(const ConvGrad &g) {
    int64_t vl = target().vectorLanes;
    th = (g.oh + 1) / 2, tw = (g.ow + 1) / 2;
    int64_t twr = 1;
    while (twr < tw)
      twr *= 2;
    // Only where tw is that power of two: other widths would leave empty
    // tiles in every segment, which the GEMMs would multiply (ResNet-18's
    // 14x14 x 256, 7 tiles in 8: 29-36 -> 35-45 ms).
    group = twr == tw && 2 * twr <= vl ? vl / twr : 1;
    if (group == 1) {
      seg = 0, vth = th, vtw = tw;
      width = 2 * ((tw + vl - 1) / vl * vl) + 2;
      xRows = 2 * th + 2, yRows = 2 * th, shift = 2;
      return;
    }
    // Per virtual tile row: the 4 rows of its patches (and the 4 shifted
    // ones after all of them), and the 2 rows of its output gradients.
    seg = 2 * twr, vth = (th + group - 1) / group, vtw = vl, width = 2 * vl;
    xRows = 8 * vth, yRows = 2 * vth, shift = 4 * vth * width;
  }
  /// The tile row argument of the input transform for virtual row vty: it
  /// starts at layout row 2 ty (4 rows a virtual tile row when grouped).
  int64_t inputRow(int64_t vty) const { return group == 1 ? vty : 2 * vty; }
};

/// Lays out x (c, h, w) in padded rows (padded row r is input row r - ph,
/// padded column q input column q - pw; zero outside the input), channel
/// ci's at rows + ci * xRows * width; grouped as WinogradGradTiles says.
void winogradGradInputRows(const ConvGrad &g, const WinogradGradTiles &t,
                           const float *x, float *rows) {
  // Padded row r, columns [q0, q0 + n), into out (zeros outside x).
  auto copyRow = [&](int64_t ci, int64_t r, int64_t q0, int64_t n, float *out) {
    int64_t iy = r - g.ph;
    int64_t a = std::clamp<int64_t>(g.pw - q0, 0, n);
    int64_t b = std::clamp<int64_t>(g.pw + g.w - q0, a, n);
    if (iy < 0 || iy >= g.h)
      a = b = 0, iy = 0;
    const float *in = x + (ci * g.h + iy) * g.w + q0 - g.pw;
    std::fill(out, out + a, 0.0f);
    std::copy(in + a, in + b, out + a);
    std::fill(out + b, out + n, 0.0f);
  };

  for (int64_t ci = 0; ci < g.c; ++ci) {
    float *plane = rows + ci * t.xRows * t.width;
    if (t.group == 1) {
      for (int64_t r = 0; r < t.xRows; ++r)
        copyRow(ci, r, 0, t.width, plane + r * t.width);
      continue;
    }
    for (int64_t vty = 0; vty < t.vth; ++vty)
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t sg = 0; sg < t.group; ++sg) {
          // Tile rows past the image read a row above it: zeros.
          float *out = plane + (4 * vty + i) * t.width + sg * t.seg;
          int64_t ty = vty * t.group + sg, r = ty < t.th ? 2 * ty + i : -1;
          for (int64_t copy = 0; copy < 2; ++copy) // plain, shifted by 2
            copyRow(ci, r, 2 * copy, t.seg, out + copy * t.shift);
        }
  }
}

/// Lays out dy (f, oh, ow) in rows of `width`, zero past the output,
/// filter fi's at rows + fi * yRows * width; grouped as WinogradGradTiles
/// says.
void winogradGradOutputRows(const ConvGrad &g, const WinogradGradTiles &t,
                            const float *dy, float *rows) {
  // Row r of dy into out, n floats (zeros past it).
  auto copyRow = [&](int64_t fi, int64_t r, int64_t n, float *out) {
    int64_t b = r < g.oh ? std::min(g.ow, n) : 0;
    const float *in = dy + (fi * g.oh + std::min(r, g.oh - 1)) * g.ow;
    std::copy(in, in + b, out);
    std::fill(out + b, out + n, 0.0f);
  };

  for (int64_t fi = 0; fi < g.f; ++fi) {
    float *plane = rows + fi * t.yRows * t.width;
    if (t.group == 1) {
      for (int64_t r = 0; r < t.yRows; ++r)
        copyRow(fi, r, t.width, plane + r * t.width);
      continue;
    }
    for (int64_t vty = 0; vty < t.vth; ++vty)
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t sg = 0; sg < t.group; ++sg) {
          int64_t ty = vty * t.group + sg; // past the image: zeros
          copyRow(fi, ty < t.th ? 2 * ty + i : g.oh, t.seg,
                  plane + (2 * vty + i) * t.width + sg * t.seg);
        }
  }
}

/// The Winograd F(2x2, 3x3) weight gradient of images [begin, end) into
/// dU (16, f, c): for each of the 16 positions of the 4x4 transform, the
/// sum over tiles of (A dY A^T)[pos] times (B^T d B)[pos], one GEMM per
/// position and chunk of tiles (f x c, the tiles its depth), on `threads`.
/// The filter gradient is G^T dU G (winogradGradFilters).
void gradWeightWinogradRun(const ConvGrad &g, const float *x, const float *dy,
                           float *dU, int64_t begin, int64_t end,
                           int32_t threads) {
  const Target &tg = target();
  WinogradGradTiles t(g);
  int64_t vl = tg.vectorLanes;
  // Tiles a chunk holds (the GEMMs' depth): 64, or a tile row if longer.
  // Chunks sized to 256 KiB or 1 MiB of transformed values were no faster
  // on ResNet-18's layers, within this VM's noise (bench/conv_layers.c).
  int64_t capacity = std::max<int64_t>(t.vtw, 64);
  int64_t ld = capacity + vl; // a row's last vector may run past it
  float *xRows = threadBuffer(Scratch::GradColumns, g.c * t.xRows * t.width);
  float *yRows = threadBuffer(Scratch::GradOutput, g.f * t.yRows * t.width);
  float *v = threadBuffer(Scratch::GradTransformedInput, 16 * g.c * ld);
  float *u = threadBuffer(Scratch::GradTransformedOutput, 16 * g.f * ld);
  int64_t filled = 0;
  bool first = true;
  auto multiply = [&] {
    for (int pos = 0; pos < 16; ++pos)
      runProblem(gemm(g.f, g.c, filled, u + pos * g.f * ld, ld, 1,
                      v + pos * g.c * ld, 1, ld, dU + pos * g.f * g.c, g.c,
                      first ? 0 : MXRT_KERNEL_ACCUMULATE),
                 threads);
    first = false, filled = 0;
  };
  for (int64_t img = begin; img < end; ++img) {
    winogradGradInputRows(g, t, x + img * g.c * g.h * g.w, xRows);
    winogradGradOutputRows(g, t, dy + img * g.f * g.p(), yRows);
    for (int64_t vty = 0; vty < t.vth; ++vty) {
      if (filled + t.vtw > capacity)
        multiply();
      tg.gradWinogradInput({xRows, g.c, t.xRows, t.width, t.inputRow(vty),
                            t.vtw, v + filled, ld, g.c * ld, t.shift});
      tg.gradWinogradOutput({yRows, g.f, t.yRows, t.width, vty, t.vtw,
                             u + filled, ld, g.f * ld, 0});
      filled += t.vtw;
    }
  }
  if (filled)
    multiply();
  if (first) // no images
    std::fill(dU, dU + 16 * g.f * g.c, 0.0f);
}

/// dw (f, c, 3, 3) (+)= G^T (the sum of `parts` dU (16, f, c), one after
/// the other) G for the filters [f0, f1).
void winogradGradFilters(const ConvGrad &g, const float *dU, int32_t parts,
                         float *dw, bool accumulate, int64_t f0, int64_t f1) {
  static const double kG[4][3] = {
      {1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  int64_t fc = g.f * g.c;
  std::vector<float> sums(16 * g.c); // a filter's row of each position
  for (int64_t fi = f0; fi < f1; ++fi) {
    for (int pos = 0; pos < 16; ++pos) {
      float *row = sums.data() + pos * g.c;
      std::copy_n(dU + pos * fc + fi * g.c, g.c, row);
      for (int32_t r = 1; r < parts; ++r) {
        const float *part = dU + (r * 16 + pos) * fc + fi * g.c;
        for (int64_t ci = 0; ci < g.c; ++ci)
          row[ci] += part[ci];
      }
    }
    for (int64_t ci = 0; ci < g.c; ++ci) {
      double s[4][4];
      for (int pos = 0; pos < 16; ++pos)
        s[pos / 4][pos % 4] = sums[pos * g.c + ci];
      float *out = dw + (fi * g.c + ci) * 9;
      for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l) {
          double sum = 0;
          for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b)
              sum += kG[a][k] * s[a][b] * kG[b][l];
          out[k * 3 + l] = float((accumulate ? out[k * 3 + l] : 0.0) + sum);
        }
    }
  }
}

// Channels last (MXRT_KERNEL_NHWC): x and dx (n, h, w, c), dy (n, oh, ow,
// f). The column matrix of an image and group is (p, taps * cg), a row per
// output position holding, tap by tap, the cg channels that tap reads:
// each tap's channels are one contiguous run of x, copied (im2col) or
// added back (col2im) whole.

/// Floats in a row of the NHWC column matrix.
int64_t nhwcColumns(const ConvGrad &g) { return g.kh * g.kw * g.cg(); }

/// cols (rows of nhwcColumns(g) floats) = the NHWC column matrix of group
/// `grp` of image x (h, w, c) for the output rows [oy0, oy1), zeros where a
/// tap reads padding.
void nhwcIm2col(const ConvGrad &g, const float *x, int64_t grp, int64_t oy0,
                int64_t oy1, float *cols) {
  int64_t cg = g.cg(), ld = nhwcColumns(g);
  for (int64_t oy = oy0; oy < oy1; ++oy)
    for (int64_t ky = 0; ky < g.kh; ++ky) {
      int64_t iy = oy * g.sh - g.ph + ky * g.dh;
      bool inside = iy >= 0 && iy < g.h;
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        int64_t ox0 = 0, ox1 = 0, off = kx * g.dw - g.pw;
        if (inside)
          g.columns(kx, ox0, ox1);
        float *out = cols + (oy - oy0) * g.ow * ld + (ky * g.kw + kx) * cg;
        const float *in = inside ? x + (iy * g.w + off) * g.c + grp * cg : x;
        for (int64_t ox = 0; ox < g.ow; ++ox, out += ld)
          if (ox >= ox0 && ox < ox1)
            std::memcpy(out, in + ox * g.sw * g.c, cg * sizeof(float));
          else
            std::memset(out, 0, cg * sizeof(float));
      }
    }
}

/// dx (h, w, c), group `grp`'s channels, += col2im of cols (p rows of
/// nhwcColumns(g) floats).
void nhwcCol2imAdd(const ConvGrad &g, const float *cols, int64_t grp,
                   float *dx) {
  int64_t cg = g.cg(), ld = nhwcColumns(g);
  for (int64_t oy = 0; oy < g.oh; ++oy)
    for (int64_t ky = 0; ky < g.kh; ++ky) {
      int64_t iy = oy * g.sh - g.ph + ky * g.dh;
      if (iy < 0 || iy >= g.h)
        continue;
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        int64_t ox0, ox1, off = kx * g.dw - g.pw;
        g.columns(kx, ox0, ox1);
        const float *in = cols + oy * g.ow * ld + (ky * g.kw + kx) * cg;
        float *out = dx + (iy * g.w + off) * g.c + grp * cg;
        for (int64_t ox = ox0; ox < ox1; ++ox) {
          const float *src = in + ox * ld;
          float *dst = out + ox * g.sw * g.c;
          for (int64_t ci = 0; ci < cg; ++ci)
            dst[ci] += src[ci];
        }
      }
    }
}

/// wt (f, taps, cg) = the weight (f, cg, taps) with each tap's channels
/// together: the B of the NHWC data gradient's GEMM.
void nhwcTapMajorWeight(const ConvGrad &g, const float *weight, float *wt) {
  int64_t taps = g.kh * g.kw, cg = g.cg();
  for (int64_t fi = 0; fi < g.f; ++fi)
    for (int64_t ci = 0; ci < cg; ++ci)
      for (int64_t t = 0; t < taps; ++t)
        wt[(fi * taps + t) * cg + ci] = weight[(fi * cg + ci) * taps + t];
}

/// The NHWC dx of image-and-group `i` (of n * groups) from wt
/// (nhwcTapMajorWeight), its GEMM on `threads`: cols (p x taps cg) = dy_g
/// (p x fg, rows f apart) wt_g (fg x taps cg), added back by col2im; a
/// pointwise convolution's product is dx itself.
void nhwcGradDataOne(const ConvGrad &g, const float *dy, const float *wt,
                     float *dx, bool accumulate, int64_t i, int32_t threads) {
  int64_t img = i / g.groups, grp = i % g.groups, ld = nhwcColumns(g);
  int64_t p = g.p(), fg = g.fg(), cg = g.cg();
  float *out = dx + img * g.h * g.w * g.c + grp * cg;
  const float *d = dy + img * p * g.f + grp * fg;
  const float *b = wt + grp * fg * ld;
  if (g.pointwise()) {
    runProblem(gemm(p, cg, fg, d, g.f, 1, b, ld, 1, out, g.c,
                    accumulate ? MXRT_KERNEL_ACCUMULATE : 0),
               threads);
    return;
  }
  float *cols = threadBuffer(Scratch::GradColumns, p * ld);
  runProblem(gemm(p, ld, fg, d, g.f, 1, b, ld, 1, cols, ld, 0), threads);
  if (!accumulate)
    for (int64_t q = 0; q < g.h * g.w; ++q)
      std::memset(out + q * g.c, 0, cg * sizeof(float));
  nhwcCol2imAdd(g, cols, grp, out - grp * cg);
}

/// The NHWC weight gradient of images [begin, end) into dwt (groups, fg,
/// taps, cg): per group, dy_g transposed (fg x positions: the positions of
/// consecutive images are consecutive rows of dy) times the column matrix
/// of those positions, in chunks of whole output rows.
void nhwcGradWeightRun(const ConvGrad &g, const float *x, const float *dy,
                       float *dwt, int64_t begin, int64_t end,
                       int32_t threads) {
  int64_t ld = nhwcColumns(g), fg = g.fg(), p = g.p();
  int64_t capacity = g.chunkPositions();
  float *cols = threadBuffer(Scratch::GradColumns, capacity * ld);
  for (int64_t grp = 0; grp < g.groups; ++grp) {
    // Positions [start, start + filled) of the batch are in cols.
    int64_t start = begin * p, filled = 0;
    bool first = true;
    auto multiply = [&] {
      runProblem(gemm(fg, ld, filled, dy + start * g.f + grp * fg, 1, g.f, cols,
                      ld, 1, dwt + grp * fg * ld, ld,
                      first ? 0 : MXRT_KERNEL_ACCUMULATE),
                 threads);
      first = false, start += filled, filled = 0;
    };
    for (int64_t img = begin; img < end; ++img) {
      const float *xi = x + img * g.h * g.w * g.c;
      for (int64_t oy0 = 0; oy0 < g.oh;) {
        int64_t rows = std::min(g.oh - oy0, (capacity - filled) / g.ow);
        nhwcIm2col(g, xi, grp, oy0, oy0 + rows, cols + filled * ld);
        filled += rows * g.ow, oy0 += rows;
        if (capacity - filled < g.ow)
          multiply();
      }
    }
    if (filled)
      multiply();
  }
}

/// dw (f, cg, taps) (+)= the sum of `parts` NHWC weight gradients (f,
/// taps, cg) at `dwt`, each `size` floats apart, for the flat elements
/// [begin, end) of dw.
void addTapMajor(const ConvGrad &g, const float *dwt, int64_t parts, float *dw,
                 bool accumulate, int64_t begin, int64_t end) {
  int64_t taps = g.kh * g.kw, cg = g.cg(), size = g.f * taps * cg;
  for (int64_t i = begin; i < end; ++i) {
    int64_t fi = i / (cg * taps), ci = i / taps % cg, t = i % taps;
    int64_t at = (fi * taps + t) * cg + ci;
    float sum = accumulate ? dw[i] : 0.0f;
    for (int64_t r = 0; r < parts; ++r)
      sum += dwt[r * size + at];
    dw[i] = sum;
  }
}
} // namespace
} // namespace mxrt

using mxrt::ConvGrad;

/// The rows (or columns) of one stride phase of a strided data gradient:
/// padded input rows r = iy + pad with r % s == a are u = r / s, from u0
/// for `count` rows; they take the kernel rows a, a + s, ... (`taps` of
/// them), which read dy rows u - taps + 1 .. u. That is a unit-stride
/// convolution of dy padded by `pad` on both sides (the forward kernels
/// take one padding) whose output row o is u = o - skip + u0: the first
/// `skip` rows are computed and dropped where the top needs less padding
/// than the bottom.
struct StridePhase {
  int64_t u0, count, taps, pad, skip;
};

static StridePhase stridePhase(int64_t a, int64_t s, int64_t k, int64_t pad,
                               int64_t in, int64_t out) {
  StridePhase p;
  p.u0 = pad > a ? (pad - a + s - 1) / s : 0;
  int64_t last = (in - 1 + pad - a) / s; // in > a: in >= s
  p.count = std::max<int64_t>(0, last - p.u0 + 1);
  p.taps = (k - a + s - 1) / s;
  // out[o] reads dy rows o - pad .. o - pad + taps - 1 of 0 .. out - 1.
  int64_t top = p.taps - 1 - p.u0;
  p.pad = std::max<int64_t>({top, p.count + p.taps - 1 - top - out, 0});
  p.skip = p.pad - top;
  return p;
}

/// The NCHW data gradient of a convolution of stride s > 1 (both ways) as
/// s x s unit-stride convolutions of dy, one per stride phase (a, b) of dx
/// with the taps (a + j s, b + l s) flipped, each by the forward kernels
/// (direct, not im2col's packing and col2im's scatter), its output
/// scattered into dx's phase. Taken where dy has at most 256 positions an
/// image, whose GEMM (dx's im2col rows x dy's positions) is narrow:
/// ResNet-18's 3x3/2 layers, batch 32, one thread, Intel Xeon
/// (bench/conv_layers.c grad-data, ms, GEMM -> phases): 256 -> 512 at 14x14
/// 85.3 -> 44.7, 128 -> 256 at 28x28 46.3 -> 36.7, but 64 -> 128 at 56x56
/// (784 positions) 38.4 -> 46.4; ResNet-20's (batch 64) 16 -> 32 at 32x32
/// 2.92 -> 2.60, 32 -> 64 at 16x16 2.42 either way. False elsewhere and
/// where a phase has no taps (a kernel narrower than the stride): the
/// caller takes the GEMM.
static bool phaseGradData(const ConvGrad &g, const float *dy,
                          const float *weight, float *dx, bool accumulate) {
  int64_t s = g.sh;
  if (g.sw != s || s < 2 || s > 8 || g.dh != 1 || g.dw != 1 || g.kh < s ||
      g.kw < s || g.h < s || g.w < s || g.pointwise() || g.p() > 256)
    return false;
  std::vector<StridePhase> rows, cols;
  for (int64_t a = 0; a < s; ++a) {
    rows.push_back(stridePhase(a, s, g.kh, g.ph, g.h, g.oh));
    cols.push_back(stridePhase(a, s, g.kw, g.pw, g.w, g.ow));
  }
  int64_t cg = g.cg(), fg = g.fg(), n = g.n;
  float *flipped =
      mxrt::threadBuffer(mxrt::Scratch::GradWeights, g.c * fg * g.kh * g.kw);
  // Phase (a, b)'s output (n, c, skip + count rows, skip + count
  // columns) at out + at[a * s + b].
  std::vector<int64_t> at(s * s + 1, 0);
  for (int64_t a = 0; a < s; ++a)
    for (int64_t b = 0; b < s; ++b)
      at[a * s + b + 1] = at[a * s + b] + n * g.c *
                                              (rows[a].skip + rows[a].count) *
                                              (cols[b].skip + cols[b].count);
  float *out = mxrt::threadBuffer(mxrt::Scratch::GradPhases, at[s * s]);
  for (int64_t a = 0; a < s; ++a)
    for (int64_t b = 0; b < s; ++b) {
      const StridePhase &r = rows[a], &q = cols[b];
      int64_t taps = r.taps * q.taps;
      // flipped (c, fg, r.taps, q.taps): tap (j, l) of the sub-kernel is
      // the filter's (a + (r.taps - 1 - j) s, b + (q.taps - 1 - l) s).
      for (int64_t grp = 0; grp < g.groups; ++grp)
        for (int64_t fi = 0; fi < fg; ++fi)
          for (int64_t ci = 0; ci < cg; ++ci) {
            const float *src =
                weight + ((grp * fg + fi) * cg + ci) * g.kh * g.kw;
            float *dst = flipped + ((grp * cg + ci) * fg + fi) * taps;
            for (int64_t j = 0; j < r.taps; ++j)
              for (int64_t l = 0; l < q.taps; ++l)
                dst[j * q.taps + l] = src[(a + (r.taps - 1 - j) * s) * g.kw +
                                          b + (q.taps - 1 - l) * s];
          }
      mxrt_kernel_sconv2d(n, g.f, g.oh, g.ow, g.c, r.skip + r.count,
                          q.skip + q.count, r.taps, q.taps, 1, 1, r.pad, q.pad,
                          1, 1, g.groups, dy, flipped, nullptr,
                          out + at[a * s + b], 0);
    }
  // dx row iy, column ix: phase ((iy + ph) % s, (ix + pw) % s), its row
  // (iy + ph) / s - u0 + skip, column (ix + pw) / s - u0 + skip. Row by
  // row, from a pointer per column phase (consecutive columns alternate
  // between them; with stride 2, pairs of columns a step).
  int64_t planes = n * g.c;
  mxrt::splitRuns(planes, planes * g.h * g.w, [&](int64_t p0, int64_t p1) {
    const float *src[8];
    for (int64_t pl = p0; pl < p1; ++pl)
      for (int64_t iy = 0; iy < g.h; ++iy) {
        int64_t a = (iy + g.ph) % s;
        const StridePhase &r = rows[a];
        for (int64_t b = 0; b < s; ++b) {
          const StridePhase &q = cols[b];
          int64_t ow = q.skip + q.count;
          src[b] =
              out + at[a * s + b] +
              (pl * (r.skip + r.count) + (iy + g.ph) / s - r.u0 + r.skip) * ow +
              q.skip - q.u0;
        }
        float *to = dx + (pl * g.h + iy) * g.w;
        int64_t ix = 0, col = g.pw; // col = ix + pw
        if (s == 2) {
          const float *even = src[0], *odd = src[1];
          if (col % 2 == 1) {
            to[0] = (accumulate ? to[0] : 0.0f) + odd[col / 2];
            ++ix, ++col;
          }
          if (accumulate)
            for (; ix + 1 < g.w; ix += 2, col += 2) {
              to[ix] += even[col / 2];
              to[ix + 1] += odd[col / 2];
            }
          else
            for (; ix + 1 < g.w; ix += 2, col += 2) {
              to[ix] = even[col / 2];
              to[ix + 1] = odd[col / 2];
            }
        }
        for (; ix < g.w; ++ix, ++col)
          to[ix] = (accumulate ? to[ix] : 0.0f) + src[col % s][col / s];
      }
  });
  return true;
}

/// The data gradient (mxrt_kernel_sconv2d_backward's dx).
static void gradData(const ConvGrad &g, const float *dy, const float *weight,
                     float *dx, bool accumulate, bool nhwc) {
  int64_t n = g.n, c = g.c, h = g.h, w = g.w, f = g.f, oh = g.oh, ow = g.ow;
  int64_t kh = g.kh, kw = g.kw, pad_h = g.ph, pad_w = g.pw, groups = g.groups;
  if (oh <= 0 || ow <= 0) { // nothing flows back
    if (!accumulate)
      std::memset(dx, 0, n * c * h * w * sizeof(float));
    return;
  }
  if (g.unitStride() && kh - 1 >= pad_h && kw - 1 >= pad_w &&
      kh - 1 - pad_h <= pad_h && kw - 1 - pad_w <= pad_w) {
    // A convolution of dy with the flipped, transposed filters and the
    // complementary padding: the forward kernel's direct and small-image
    // paths, not im2col's packing and col2im's scatter (ResNet-20's data
    // gradients, batch 64, one thread: 58 -> 35 ms). Only where that
    // padding is no wider than the forward's: LeNet's unpadded 5x5 would
    // become padded by 4, 1.3x wider grid rows (2.0 -> 3.9 ms).
    int64_t cg = g.cg(), fg = g.fg(), taps = kh * kw;
    float *flipped =
        mxrt::threadBuffer(mxrt::Scratch::GradWeights, c * fg * taps);
    for (int64_t grp = 0; grp < groups; ++grp)
      for (int64_t fi = 0; fi < fg; ++fi)
        for (int64_t ci = 0; ci < cg; ++ci) {
          const float *src = weight + ((grp * fg + fi) * cg + ci) * taps;
          float *dst = flipped + ((grp * cg + ci) * fg + fi) * taps;
          for (int64_t t = 0; t < taps; ++t)
            dst[t] = src[taps - 1 - t];
        }
    mxrt_kernel_sconv2d(n, f, oh, ow, c, h, w, kh, kw, 1, 1, kh - 1 - pad_h,
                        kw - 1 - pad_w, 1, 1, groups, dy, flipped, nullptr, dx,
                        (accumulate ? MXRT_KERNEL_ACCUMULATE : 0) |
                            (nhwc ? MXRT_KERNEL_NHWC : 0));
    return;
  }
  if (!nhwc && phaseGradData(g, dy, weight, dx, accumulate))
    return;
  // Else GEMM and col2im per image and group; NHWC's GEMM reads the weight
  // tap-major (nhwcTapMajorWeight).
  const float *b = weight;
  if (nhwc) {
    float *wt = mxrt::threadBuffer(mxrt::Scratch::GradWeights, f * g.k());
    mxrt::nhwcTapMajorWeight(g, weight, wt);
    b = wt;
  }
  auto one = [&](int64_t i, int32_t threads) {
    if (nhwc)
      mxrt::nhwcGradDataOne(g, dy, b, dx, accumulate, i, threads);
    else
      gradDataOne(g, dy, b, dx, accumulate, i, threads);
  };
  int64_t count = n * groups;
  int32_t threads = mxrt::poolThreads();
  if (count < threads) { // few images: each GEMM split over the pool
    for (int64_t i = 0; i < count; ++i)
      one(i, threads);
    return;
  }
  mxrt::splitRuns(count, count * g.k() * g.p() * g.fg(),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t i = begin; i < end; ++i)
                      one(i, 1);
                  });
}

/// How many runs of images a weight gradient splits its batch into: one a
/// thread when there are enough images and work, else 1. Each run sums
/// into its own slice of one buffer of the caller's (a run the caller takes
/// over from a late worker keeps its slice); the slices are added at the
/// end.
static int32_t imageRuns(const ConvGrad &g) {
  int32_t threads = mxrt::poolThreads();
  return g.n >= threads && g.n * g.p() * g.f * g.k() >= mxrt::kParallelMinWork
             ? threads
             : 1;
}

/// Runs run(r, first image, end image) for each of `runs` runs of images,
/// one a thread.
template <typename Run>
static void forEachImageRun(const ConvGrad &g, int32_t runs, const Run &run) {
  mxrt::splitRuns(runs, g.n * g.p() * g.f * g.k(), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      run(r, r * g.n / runs, (r + 1) * g.n / runs);
  });
}

/// Runs run(slice, first image, end image, threads) over the batch in
/// `runs` runs (imageRuns): one on the whole pool into `parts`, or one a
/// thread, run r into parts + r * size.
template <typename Run>
static void intoImageRuns(const ConvGrad &g, int32_t runs, float *parts,
                          int64_t size, const Run &run) {
  if (runs == 1)
    return run(parts, 0, g.n, mxrt::poolThreads());
  forEachImageRun(g, runs, [&](int64_t r, int64_t begin, int64_t end) {
    run(parts + r * size, begin, end, 1);
  });
}

/// The weight gradient by gradWeightDirectRun: images split over the pool
/// (each run into its own lane sums) when there are enough, else filters.
static void directGradWeight(const ConvGrad &g, const float *x, const float *dy,
                             float *dweight, bool accumulate) {
  int64_t vl = mxrt::target().vectorLanes;
  int64_t size = g.f * g.k(), lanes = size * vl, fg = g.fg();
  int32_t runs = imageRuns(g);
  float *acc = mxrt::threadBuffer(mxrt::Scratch::GradPartial, runs * lanes);
  std::fill(acc, acc + runs * lanes, 0.0f);
  if (runs > 1) {
    forEachImageRun(g, runs, [&](int64_t r, int64_t begin, int64_t end) {
      mxrt::gradWeightDirectRun(g, x, dy, acc + r * lanes, begin, end, 0, fg);
    });
  } else {
    // Filters in blocks of 8 (a multiple of every version's block).
    int64_t blocks = (fg + 7) / 8;
    mxrt::splitRuns(blocks, g.n * g.p() * size, [&](int64_t b0, int64_t b1) {
      mxrt::gradWeightDirectRun(g, x, dy, acc, 0, g.n, b0 * 8,
                                std::min(fg, b1 * 8));
    });
  }
  mxrt::splitRuns(size, lanes * runs, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      float sum = accumulate ? dweight[i] : 0.0f;
      for (int32_t r = 0; r < runs; ++r)
        for (int64_t l = 0; l < vl; ++l)
          sum += acc[(r * size + i) * vl + l];
      dweight[i] = sum;
    }
  });
}

/// The weight gradient by Winograd F(2x2, 3x3): each run of images
/// (imageRuns) into its own transformed sums, transformed back and added
/// at the end.
static void winogradGradWeight(const ConvGrad &g, const float *x,
                               const float *dy, float *dweight,
                               bool accumulate) {
  int64_t size = 16 * g.f * g.c;
  int32_t runs = imageRuns(g);
  float *dU = mxrt::threadBuffer(mxrt::Scratch::GradPartial, runs * size);
  intoImageRuns(g, runs, dU, size,
                [&](float *out, int64_t begin, int64_t end, int32_t threads) {
                  mxrt::gradWeightWinogradRun(g, x, dy, out, begin, end,
                                              threads);
                });
  mxrt::splitRuns(g.f, size * runs, [&](int64_t f0, int64_t f1) {
    mxrt::winogradGradFilters(g, dU, runs, dweight, accumulate, f0, f1);
  });
}

/// A weight gradient that run(out, accumulate, first image, end image,
/// threads) computes into dw's layout (the GEMM and pointwise paths): each
/// run of images (imageRuns) into its own slice, the slices added at the
/// end; one run straight into dweight.
template <typename Run>
static void inSlices(const ConvGrad &g, float *dweight, bool accumulate,
                     const Run &run) {
  int64_t size = g.f * g.k();
  int32_t runs = imageRuns(g);
  float *parts =
      runs == 1 ? dweight
                : mxrt::threadBuffer(mxrt::Scratch::GradPartial, runs * size);
  intoImageRuns(g, runs, parts, size,
                [&](float *out, int64_t begin, int64_t end, int32_t threads) {
                  run(out, runs == 1 && accumulate, begin, end, threads);
                });
  if (runs == 1)
    return;
  mxrt::splitRuns(size, size * runs, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      float sum = accumulate ? dweight[i] : 0.0f;
      for (int32_t r = 0; r < runs; ++r)
        sum += parts[r * size + i];
      dweight[i] = sum;
    }
  });
}

/// The NHWC weight gradient: each run of images (imageRuns) into its own
/// tap-major slice, the slices added and reordered at the end.
static void nhwcGradWeight(const ConvGrad &g, const float *x, const float *dy,
                           float *dweight, bool accumulate) {
  int64_t size = g.f * g.k();
  int32_t runs = imageRuns(g);
  float *dwt = mxrt::threadBuffer(mxrt::Scratch::GradPartial, runs * size);
  intoImageRuns(g, runs, dwt, size,
                [&](float *out, int64_t begin, int64_t end, int32_t threads) {
                  mxrt::nhwcGradWeightRun(g, x, dy, out, begin, end, threads);
                });
  mxrt::splitRuns(size, size * runs, [&](int64_t begin, int64_t end) {
    mxrt::addTapMajor(g, dwt, runs, dweight, accumulate, begin, end);
  });
}

/// The weight gradient (mxrt_kernel_sconv2d_backward's dweight).
static void gradWeight(const ConvGrad &g, const float *x, const float *dy,
                       float *dweight, bool accumulate, bool nhwc) {
  int64_t n = g.n, f = g.f, oh = g.oh, ow = g.ow;
  int64_t size = f * g.k();
  if (n <= 0 || oh <= 0 || ow <= 0) {
    if (!accumulate)
      std::memset(dweight, 0, size * sizeof(float));
    return;
  }
  if (nhwc)
    return nhwcGradWeight(g, x, dy, dweight, accumulate);
  if (mxrt::winogradWeightGradient(g))
    return winogradGradWeight(g, x, dy, dweight, accumulate);
  bool pointwise = g.pointwise();
  if (!pointwise && mxrt::directWeightGradient(g))
    return directGradWeight(g, x, dy, dweight, accumulate);
  inSlices(
      g, dweight, accumulate,
      [&](float *out, bool add, int64_t begin, int64_t end, int32_t threads) {
        if (pointwise)
          mxrt::gradWeightPointwiseRun(g, x, dy, out, add, begin, end, threads);
        else
          mxrt::gradWeightRun(g, x, dy, out, add, begin, end, threads);
      });
}

extern "C" void mxrt_kernel_sconv2d_backward(
    int64_t n, int64_t c, int64_t h, int64_t w, int64_t f, int64_t oh,
    int64_t ow, int64_t kh, int64_t kw, int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w, int64_t dilate_h, int64_t dilate_w,
    int64_t groups, const float *x, const float *weight, const float *dy,
    float *dx, float *dweight, int32_t flags) {
  if (n < 0 || c <= 0 || f <= 0 || groups <= 0 || kh <= 0 || kw <= 0)
    return;
  ConvGrad g{n,  c,        h,        w,     f,     oh,       ow,       kh,
             kw, stride_h, stride_w, pad_h, pad_w, dilate_h, dilate_w, groups};
  bool accumulate = flags & MXRT_KERNEL_ACCUMULATE;
  bool nhwc = flags & MXRT_KERNEL_NHWC;
  if (dx && h > 0 && w > 0)
    gradData(g, dy, weight, dx, accumulate, nhwc);
  if (dweight)
    gradWeight(g, x, dy, dweight, accumulate, nhwc);
}
