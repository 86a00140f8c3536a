// SPDX-License-Identifier: Apache-2.0
// The 8-bit integer convolution, mxrt_kernel_qconv2d_u8s8[_requant], on the
// 8-bit GEMM family's kernels. NCHW (a stem's few channels) runs each
// group's output planes as its filters (A, int8) times the windows (B,
// uint8: row (channel, tap) holds the input byte each output pixel's window
// has there), so that a window row is a run of input bytes and a 1x1
// convolution's windows are the input itself; channels last
// (MXRT_KERNEL_NHWC) runs in qgemm.cpp (qconv2dNhwc).
#include "kernels/qgemm/qgemm.h"

#include "kernels/isa/isa.h"
#include "kernels/isa/target.h"
#include "mxrt/kernels.h"
#include "threadpool.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace mxrt {
namespace {
#if defined(__x86_64__)
MXRT_TARGET_BEGIN("avx512f,avx512bw")
/// everyOther's loop, 32 bytes from 64 at a time (the low byte of each
/// 16-bit lane: vpmovwb).
int64_t everyOther512(const uint8_t *src, uint8_t *out, int64_t n,
                      const uint8_t *end) {
  int64_t i = 0;
  for (; i + 32 <= n && src + 2 * i + 64 <= end; i += 32)
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i),
                        _mm512_cvtepi16_epi8(_mm512_loadu_si512(src + 2 * i)));
  return i;
}
MXRT_TARGET_END
#endif

/// out[i] = src[2 i] for the first of n that it does fast without reading
/// at or past `end`; returns how many.
int64_t everyOther(const uint8_t *src, uint8_t *out, int64_t n,
                   const uint8_t *end) {
#if defined(__x86_64__)
  if (wideBytes())
    return everyOther512(src, out, n, end);
#endif
  return 0;
}
} // namespace

/// The windows of channels [c0, c1) of a convolution's input plane group (h
/// x w bytes each) as rows of B: row (ci, r, s) holds, for every output pixel,
/// the input byte its window has at tap (r, s) of channel ci, `fill` where the
/// tap falls on padding. At stride 1 a row is the plane shifted by the tap's
/// offset, copied whole, its rows and columns outside the image then
/// filled.
void windowsOf(const uint8_t *plane, int64_t c0, int64_t c1, int64_t h,
               int64_t w, int64_t oh, int64_t ow, int64_t kh, int64_t kw,
               int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh,
               int64_t dw, uint8_t fill, uint8_t *out) {
  int64_t pixels = oh * ow;
  out += c0 * kh * kw * pixels;
  for (int64_t ci = c0; ci < c1; ++ci)
    for (int64_t r = 0; r < kh; ++r)
      for (int64_t s = 0; s < kw; ++s, out += pixels) {
        const uint8_t *in = plane + ci * h * w;
        int64_t y0 = r * dh - ph, x0 = s * dw - pw;
        // Output rows [ylo, yhi) and columns [xlo, xhi) read inside.
        int64_t ylo = std::clamp<int64_t>((-y0 + sh - 1) / sh, 0, oh);
        int64_t yhi = std::clamp<int64_t>((h - y0 + sh - 1) / sh, ylo, oh);
        int64_t xlo = std::clamp<int64_t>((-x0 + sw - 1) / sw, 0, ow);
        int64_t xhi = std::clamp<int64_t>((w - x0 + sw - 1) / sw, xlo, ow);
        std::memset(out, fill, ylo * ow);
        std::memset(out + yhi * ow, fill, (oh - yhi) * ow);
        if (sh == 1 && sw == 1 && ow == w && yhi > ylo) {
          // Output pixel p reads input p + shift: one copy, then the
          // columns outside the image (which read the next or previous
          // row) filled.
          int64_t shift = y0 * w + x0, p0 = ylo * ow, p1 = yhi * ow;
          int64_t lo = std::clamp(-shift, p0, p1);
          int64_t hi = std::clamp(h * w - shift, lo, p1);
          std::memcpy(out + lo, in + lo + shift, hi - lo);
          std::memset(out + p0, fill, lo - p0);
          std::memset(out + hi, fill, p1 - hi);
          for (int64_t oy = ylo; oy < yhi; ++oy) {
            uint8_t *row = out + oy * ow;
            for (int64_t ox = 0; ox < xlo; ++ox)
              row[ox] = fill;
            for (int64_t ox = xhi; ox < ow; ++ox)
              row[ox] = fill;
          }
          continue;
        }
        for (int64_t oy = ylo; oy < yhi; ++oy) {
          uint8_t *row = out + oy * ow;
          const uint8_t *src = in + (oy * sh + y0) * w + x0;
          for (int64_t ox = 0; ox < xlo; ++ox)
            row[ox] = fill;
          int64_t ox = xlo;
          if (sw == 1) {
            std::memcpy(row + xlo, src + xlo, xhi - xlo);
            ox = xhi;
          } else if (sw == 2) { // (reads stay inside the channel's plane)
            ox += everyOther(src + 2 * xlo, row + xlo, xhi - xlo, in + h * w);
          }
          for (; ox < xhi; ++ox)
            row[ox] = src[ox * sw];
          for (int64_t ox = xhi; ox < ow; ++ox)
            row[ox] = fill;
        }
      }
}

} // namespace mxrt

namespace {
/// This thread's window buffer of at least `bytes`, 64-byte aligned.
uint8_t *windowBuffer(size_t bytes) {
  thread_local std::vector<uint8_t> buffer;
  if (buffer.size() < bytes + 64)
    buffer.resize(bytes + 64);
  auto at = reinterpret_cast<uintptr_t>(buffer.data());
  return buffer.data() + ((64 - at % 64) % 64);
}
} // namespace

namespace {
/// mxrt_kernel_qconv2d_u8s8, into y, or with `requant` (its multiplier and
/// y for the whole output), requantized into its bytes.
void qconv2d(int64_t n, int64_t c, int64_t h, int64_t w, int64_t f, int64_t oh,
             int64_t ow, int64_t kh, int64_t kw, int64_t stride_h,
             int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dilate_h,
             int64_t dilate_w, int64_t groups, const uint8_t *x,
             const int32_t *x_zero, const int8_t *weight, const int32_t *w_zero,
             int64_t w_zero_stride, const int32_t *bias, int32_t *y,
             int32_t flags, const mxrt::Requant *requant) {
  // Each group's output planes (fg x pixels, NCHW as they lie) are its
  // filters (fg x k, A) times the windows (k x pixels, B: row (ci, r, s)
  // holds the input pixel each output pixel's window has at that tap), so
  // that a window row is a run of input bytes and a 1x1 convolution's
  // windows are the input itself. Filters are int8 (A signed), the input
  // uint8 (B unsigned), unless the flags say otherwise.
  if (flags & MXRT_KERNEL_NHWC)
    return mxrt::qconv2dNhwc(n, c, h, w, f, oh, ow, kh, kw, stride_h, stride_w,
                             pad_h, pad_w, dilate_h, dilate_w, groups, x,
                             x_zero, weight, w_zero, w_zero_stride, bias, y,
                             flags, requant);
  int64_t cg = c / groups, fg = f / groups, k = cg * kh * kw, pixels = oh * ow;
  if (n <= 0 || fg <= 0 || pixels <= 0)
    return;
  int32_t pass =
      (flags & MXRT_KERNEL_UNSIGNED_B ? 0 : MXRT_KERNEL_SIGNED_A) |
      (flags & MXRT_KERNEL_SIGNED_A ? 0 : MXRT_KERNEL_UNSIGNED_B) |
      (flags & (MXRT_KERNEL_CONST_A | MXRT_KERNEL_CONST_B) ? MXRT_KERNEL_CONST_A
                                                           : 0);
  bool direct = kh == 1 && kw == 1 && stride_h == 1 && stride_w == 1 &&
                pad_h == 0 && pad_w == 0 && oh == h && ow == w;
  // Padding reads as x's zero point, so that it adds nothing.
  uint8_t fill = static_cast<uint8_t>(x_zero ? *x_zero : 0);
  // Image b's output planes, on the instance's threads as the pool current
  // here has them.
  auto image = [&](int64_t b) {
    uint8_t *windows =
        direct ? nullptr : windowBuffer(static_cast<size_t>(k * pixels));
    for (int64_t g = 0; g < groups; ++g) {
      const uint8_t *plane = x + (b * c + g * cg) * h * w;
      if (!direct) {
        // Channels split over the instance's threads (a plane's rows are
        // independent).
        struct Windows {
          const uint8_t *plane;
          int64_t cg, h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw;
          uint8_t fill;
          uint8_t *out;
          int64_t parts;
        } job{plane,    cg,       h,        w,        oh,    ow,
              kh,       kw,       stride_h, stride_w, pad_h, pad_w,
              dilate_h, dilate_w, fill,     windows,  1};
        auto run = [](void *arg, int64_t index) {
          const auto &j = *static_cast<const Windows *>(arg);
          mxrt::windowsOf(j.plane, index * j.cg / j.parts,
                          (index + 1) * j.cg / j.parts, j.h, j.w, j.oh, j.ow,
                          j.kh, j.kw, j.sh, j.sw, j.ph, j.pw, j.dh, j.dw,
                          j.fill, j.out);
        };
        mxrt::ThreadPool *pool = mxrt::ThreadPool::current();
        job.parts = pool ? std::min<int64_t>(pool->size(), cg) : 1;
        if (job.parts > 1)
          pool->parallelFor(job.parts, run, &job);
        else
          run(&job, 0);
      }
      // The group's planes of image b (and their multipliers).
      std::optional<mxrt::Requant> planes;
      if (requant) {
        planes = *requant;
        planes->multiplier += g * fg * requant->multiplierRs;
        planes->y += (b * f + g * fg) * pixels;
      }
      mxrt::qgemm(
          fg, pixels, k, reinterpret_cast<const uint8_t *>(weight) + g * fg * k,
          k, w_zero ? w_zero + g * fg * w_zero_stride : nullptr, w_zero_stride,
          reinterpret_cast<const int8_t *>(direct ? plane : windows), pixels, 1,
          x_zero, 0, requant ? nullptr : y + (b * f + g * fg) * pixels, pixels,
          pass, bias ? bias + g * fg : nullptr, planes ? &*planes : nullptr);
    }
  };
  // Several images: whole images a thread, each alone (fewer hand-offs than
  // splitting every image's pieces).
  mxrt::ThreadPool *pool = mxrt::ThreadPool::current();
  int64_t parts = pool ? std::min<int64_t>(pool->size(), n) : 1;
  if (parts <= 1 || (n % parts != 0 && n < 4 * parts)) { // (uneven shares)
    for (int64_t b = 0; b < n; ++b)
      image(b);
    return;
  }
  struct Images {
    const std::function<void(int64_t)> *image;
    int64_t n, parts;
  };
  std::function<void(int64_t)> each = image;
  Images job{&each, n, parts};
  pool->parallelFor(
      parts,
      [](void *arg, int64_t index) {
        const auto &j = *static_cast<const Images *>(arg);
        mxrt::ThreadPool::Scope alone(nullptr);
        for (int64_t b = index * j.n / j.parts; b < (index + 1) * j.n / j.parts;
             ++b)
          (*j.image)(b);
      },
      &job);
}
} // namespace

extern "C" void mxrt_kernel_qconv2d_u8s8(
    int64_t n, int64_t c, int64_t h, int64_t w, int64_t f, int64_t oh,
    int64_t ow, int64_t kh, int64_t kw, int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w, int64_t dilate_h, int64_t dilate_w,
    int64_t groups, const uint8_t *x, const int32_t *x_zero,
    const int8_t *weight, const int32_t *w_zero, int64_t w_zero_stride,
    const int32_t *bias, int32_t *y, int32_t flags) {
  qconv2d(n, c, h, w, f, oh, ow, kh, kw, stride_h, stride_w, pad_h, pad_w,
          dilate_h, dilate_w, groups, x, x_zero, weight, w_zero, w_zero_stride,
          bias, y, flags, nullptr);
}

extern "C" void mxrt_kernel_qconv2d_u8s8_requant(
    int64_t n, int64_t c, int64_t h, int64_t w, int64_t f, int64_t oh,
    int64_t ow, int64_t kh, int64_t kw, int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w, int64_t dilate_h, int64_t dilate_w,
    int64_t groups, const uint8_t *x, const int32_t *x_zero,
    const int8_t *weight, const int32_t *w_zero, int64_t w_zero_stride,
    const int32_t *bias, const float *multiplier, int64_t multiplier_stride,
    const float *y_zero, int32_t y_min, int32_t y_max, uint8_t *y,
    int32_t flags) {
  float zero = y_zero ? *y_zero : 0.0f;
  // MXRT_KERNEL_RELU: nothing below the zero point (a Relu's quantization).
  float lo = static_cast<float>(y_min);
  if (flags & MXRT_KERNEL_RELU)
    lo = std::max(lo, zero);
  mxrt::Requant requant{multiplier, multiplier_stride,         zero,
                        lo,         static_cast<float>(y_max), y};
  qconv2d(n, c, h, w, f, oh, ow, kh, kw, stride_h, stride_w, pad_h, pad_w,
          dilate_h, dilate_w, groups, x, x_zero, weight, w_zero, w_zero_stride,
          bias, nullptr, flags & ~MXRT_KERNEL_RELU, &requant);
}
