/* SPDX-License-Identifier: Apache-2.0
 *
 * CPU kernels that compiled models call (the generated code's side of the
 * runtime, like model_abi.h): dense float32 contractions with fused
 * epilogues. They run on the thread pool of the instance call they are made
 * from (mxrt_instance_options.num_threads) and serially elsewhere. Apps do
 * not normally call them; they are C functions so that the compiler can emit
 * plain calls, and they are part of the ABI versioned by
 * MXRT_MODEL_ABI_VERSION. */
#ifndef MXRT_KERNELS_H
#define MXRT_KERNELS_H

#include "mxrt/mxrt.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Epilogue flags of the kernels below. */
enum {
  /** Add the output's previous contents (a residual) instead of overwriting
   *  them. */
  MXRT_KERNEL_ACCUMULATE = 1,
  /** max(x, 0) after every addition. */
  MXRT_KERNEL_RELU = 2,
  /** A (B) never changes while the process runs (a model's read-only
   *  weights): the kernel may keep a packed copy, made on first use, keyed
   *  by its address and shape, for the rest of the process. For convolution
   *  A is the weight. */
  MXRT_KERNEL_CONST_A = 4,
  MXRT_KERNEL_CONST_B = 8,
  /** Convolution only: x is (n, h, w, c) and y (n, oh, ow, f), channels
   *  last (the weight stays (f, c / groups, kh, kw)). */
  MXRT_KERNEL_NHWC = 16,
  /** Pooling only: the window's mean instead of its maximum; the divisor
   *  is the window clipped to the input, or with MXRT_KERNEL_POOL_COUNT_PAD
   *  to the input and its padding (MXNet's count_include_pad). */
  MXRT_KERNEL_POOL_AVG = 32,
  /** Pooling only: the window's sum. */
  MXRT_KERNEL_POOL_SUM = 64,
  MXRT_KERNEL_POOL_COUNT_PAD = 128,
  /** A is a parameter of the model instance whose inference function is
   *  running (a training library's weight in "forward"): the kernel may
   *  keep a packed copy, keyed by its address and shape, until the
   *  instance's parameters change (a call that updates them,
   *  mxrt_instance_set_param / load_params / params_changed), and picks
   *  its method as for constant weights. Outside an instance's call the
   *  copy is made per call. */
  MXRT_KERNEL_PARAM_A = 256,
  /** Attention only: the scores are divided by *scale instead of
   *  multiplied by it. */
  MXRT_KERNEL_ATTENTION_DIVIDE = 512,
  /** TopK only: the smallest elements instead of the largest. */
  MXRT_KERNEL_SELECT_SMALLEST = 1024,
  /** Non-maximum suppression only: boxes are (x center, y center, width,
   *  height). */
  MXRT_KERNEL_NMS_CENTER = 2048,
  /** mxrt_kernel_qgemm_u8s8 and the 8-bit convolution and pooling: A's
   *  (x's) bytes are int8, not uint8. */
  MXRT_KERNEL_SIGNED_A = 4096,
  /** mxrt_kernel_qgemm_u8s8 only: B's bytes are uint8, not int8. */
  MXRT_KERNEL_UNSIGNED_B = 8192,
  /** mxrt_kernel_sgemm and mxrt_kernel_sconv2d (NCHW and NHWC): A and B
   *  (the weight and the input) rounded to bfloat16 (nearest even, NaN
   *  kept, denormals to zero) and multiplied with float32 accumulation:
   *  vdpbf16ps on AVX-512 BF16, float FMAs on the rounded values elsewhere.
   *  The other flags keep their meaning; with MXRT_KERNEL_CONST_A / CONST_B
   *  the rounded, packed copy of the constant is made once and kept.
   *  Convolutions never take Winograd then. */
  MXRT_KERNEL_BF16 = 16384,
};

/** For each of `batch` problems b: C = epilogue(A B + bias), where A is
 *  m x k, B is k x n and C and bias are m x n, each given by a base pointer,
 *  a batch stride and a row and a column stride in elements (any stride may
 *  be 0 to broadcast, so a per-row or per-column bias is a bias with one
 *  stride 0; `bias` may be NULL). Element (i, j) of C is
 *  c[b * c_bs + i * c_rs + j * c_cs]. C must not overlap A, B or bias. */
MXRT_API void mxrt_kernel_sgemm(int64_t batch, int64_t m, int64_t n, int64_t k,
                                const float *a, int64_t a_bs, int64_t a_rs,
                                int64_t a_cs, const float *b, int64_t b_bs,
                                int64_t b_rs, int64_t b_cs, float *c,
                                int64_t c_bs, int64_t c_rs, int64_t c_cs,
                                const float *bias, int64_t bias_bs,
                                int64_t bias_rs, int64_t bias_cs,
                                int32_t flags);

/** The 8-bit integer product C = (A - a_zero)(B - b_zero), exactly, in
 *  int32 (with MXRT_KERNEL_CONST_B, B's packed form and column sums are
 *  kept for later calls with the same B, which must not change; with
 *  MXRT_KERNEL_CONST_A, A's packed rows and row sums): A m x k
 *  bytes, uint8 (int8 with MXRT_KERNEL_SIGNED_A), rows lda
 *  apart; a_zero NULL (0) or A's one zero point; B k x n int8 (uint8 with
 *  MXRT_KERNEL_UNSIGNED_B), rows ldb
 *  apart; b_zero NULL (0) or column j's zero point at b_zero[j *
 *  b_zero_cs] (b_zero_cs 0: one for all); C m x n, rows ldc apart,
 *  overwritten or, with MXRT_KERNEL_ACCUMULATE, added to. Sums must fit
 *  int32 (k up to 33,000 for any values). On AVX-512 VNNI, AVX2 or
 *  portable code by the CPU. */
MXRT_API void mxrt_kernel_qgemm_u8s8(int64_t m, int64_t n, int64_t k,
                                     const uint8_t *a, int64_t lda,
                                     const int32_t *a_zero, const int8_t *b,
                                     int64_t ldb, const int32_t *b_zero,
                                     int64_t b_zero_cs, int32_t *c, int64_t ldc,
                                     int32_t flags);

/** The 8-bit integer convolution y = conv(x - x_zero, weight - w_zero) +
 *  bias, exactly, in int32, NCHW, contiguous, with mxrt_kernel_sconv2d's
 *  geometry: x (n, c, h, w) uint8 (int8 with MXRT_KERNEL_SIGNED_A),
 *  weight (f, c / groups, kh, kw) int8 (uint8 with MXRT_KERNEL_UNSIGNED_B),
 *  x_zero NULL (0) or one value, w_zero NULL (0) or filter i's at
 *  w_zero[i * w_zero_stride] (stride 0: one for all), bias NULL or f int32
 *  values, y (n, f, oh, ow); MXRT_KERNEL_CONST_A (or CONST_B) for a weight
 *  that never changes; with MXRT_KERNEL_NHWC x (n, h, w, c) and y (n, oh,
 *  ow, f), channels last (the weight keeps its layout). NCHW runs as the
 *  filters times the windows (im2col), NHWC as each output pixel's window,
 *  gathered from runs of channels, times the filters, on
 *  mxrt_kernel_qgemm_u8s8's kernels. */
MXRT_API void mxrt_kernel_qconv2d_u8s8(
    int64_t n, int64_t c, int64_t h, int64_t w, int64_t f, int64_t oh,
    int64_t ow, int64_t kh, int64_t kw, int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w, int64_t dilate_h, int64_t dilate_w,
    int64_t groups, const uint8_t *x, const int32_t *x_zero,
    const int8_t *weight, const int32_t *w_zero, int64_t w_zero_stride,
    const int32_t *bias, int32_t *y, int32_t flags);

/** mxrt_kernel_qconv2d_u8s8 requantized as its sums are made: each output
 *  of filter i, bias included, times multiplier[i * multiplier_stride] in
 *  float32, rounded half to even, plus *y_zero (NULL: 0), clamped to [y_min,
 *  y_max] (at least *y_zero with MXRT_KERNEL_RELU) and stored as a byte:
 *  y (n, f, oh, ow) uint8, or int8 for a range below 0. The int32 sums are
 *  not stored. */
MXRT_API void mxrt_kernel_qconv2d_u8s8_requant(
    int64_t n, int64_t c, int64_t h, int64_t w, int64_t f, int64_t oh,
    int64_t ow, int64_t kh, int64_t kw, int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w, int64_t dilate_h, int64_t dilate_w,
    int64_t groups, const uint8_t *x, const int32_t *x_zero,
    const int8_t *weight, const int32_t *w_zero, int64_t w_zero_stride,
    const int32_t *bias, const float *multiplier, int64_t multiplier_stride,
    const float *y_zero, int32_t y_min, int32_t y_max, uint8_t *y,
    int32_t flags);

/** The instruction set path kernel family `family` runs on this CPU (after
 *  MXRT_KERNEL_ISA): for "gemm" (float32 products and convolutions)
 *  "avx512", "avx2" or "portable"; for "qgemm" (mxrt_kernel_qgemm_u8s8)
 *  "vnni512", "avx2" or "portable"; for "bgemm" (MXRT_KERNEL_BF16)
 *  "avx512bf16", "avx512" or "portable"; NULL for another name. */
MXRT_API const char *mxrt_kernel_path(const char *family);

/** 2-D convolution, NCHW, contiguous: x (n, c, h, w), weight (f, c / groups,
 *  kh, kw), y (n, f, oh, ow), per-filter bias (f) or NULL; with
 *  MXRT_KERNEL_NHWC x (n, h, w, c) and y (n, oh, ow, f). Zero padding
 *  pad_h / pad_w before and the rest implied by oh / ow after. */
MXRT_API void mxrt_kernel_sconv2d(int64_t n, int64_t c, int64_t h, int64_t w,
                                  int64_t f, int64_t oh, int64_t ow, int64_t kh,
                                  int64_t kw, int64_t stride_h,
                                  int64_t stride_w, int64_t pad_h,
                                  int64_t pad_w, int64_t dilate_h,
                                  int64_t dilate_w, int64_t groups,
                                  const float *x, const float *weight,
                                  const float *bias, float *y, int32_t flags);

/** mxrt_kernel_sconv2d with filter i's weights times scale[i] (f floats):
 *  an inference BatchNorm folded into the convolution whose weights and
 *  BatchNorm parameters the instance holds (its scale in `scale`, its
 *  shift in `bias`). With MXRT_KERNEL_PARAM_A the scaled filters are kept,
 *  like the weight, until the instance's parameters change, so `scale`
 *  must be made from parameters only. */
MXRT_API void mxrt_kernel_sconv2d_scaled(
    int64_t n, int64_t c, int64_t h, int64_t w, int64_t f, int64_t oh,
    int64_t ow, int64_t kh, int64_t kw, int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w, int64_t dilate_h, int64_t dilate_w,
    int64_t groups, const float *x, const float *weight, const float *scale,
    const float *bias, float *y, int32_t flags);

/** The gradients of mxrt_kernel_sconv2d (NCHW, the same geometry
 *  arguments), for training, from dy (n, f, oh, ow): with dx non-NULL, the
 *  data gradient dx (n, c, h, w) = the transposed convolution of dy with the
 *  weight; with dweight non-NULL, the weight gradient dweight (f, c /
 *  groups, kh, kw) = the sum over the batch of dy times x's windows (x and
 *  weight may be NULL where nothing reads them). Each result overwrites its
 *  buffer, or adds to it with MXRT_KERNEL_ACCUMULATE; with MXRT_KERNEL_NHWC
 *  x, dx (n, h, w, c) and dy (n, oh, ow, f) are channels last (the weight
 *  keeps its layout). No other flags; the results must not overlap the
 *  inputs. */
MXRT_API void mxrt_kernel_sconv2d_backward(
    int64_t n, int64_t c, int64_t h, int64_t w, int64_t f, int64_t oh,
    int64_t ow, int64_t kh, int64_t kw, int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w, int64_t dilate_h, int64_t dilate_w,
    int64_t groups, const float *x, const float *weight, const float *dy,
    float *dx, float *dweight, int32_t flags);

/** 2-D pooling of n x c planes: y[i, j, oy, ox] = the maximum (or with
 *  MXRT_KERNEL_POOL_AVG the mean, MXRT_KERNEL_POOL_SUM the sum) of x[i, j,
 *  oy * stride_h - pad_h + ky, ox * stride_w - pad_w + kx] over ky < kh, kx <
 *  kw, the positions inside the h x w input only (padding never wins a
 *  maximum; a window with none inside gives -inf, or 0). The maximum
 *  propagates NaN. x and y are given by strides in elements along (n, c,
 *  h, w) and (n, c, oh, ow); y must not overlap x. Epilogue flags as above
 *  (ACCUMULATE adds y's previous contents, RELU clamps at 0 after). */
MXRT_API void mxrt_kernel_spool2d(int64_t n, int64_t c, int64_t h, int64_t w,
                                  int64_t oh, int64_t ow, int64_t kh,
                                  int64_t kw, int64_t stride_h,
                                  int64_t stride_w, int64_t pad_h,
                                  int64_t pad_w, const float *x, int64_t x_sn,
                                  int64_t x_sc, int64_t x_sh, int64_t x_sw,
                                  float *y, int64_t y_sn, int64_t y_sc,
                                  int64_t y_sh, int64_t y_sw, int32_t flags);

/** 8-bit max pooling, contiguous: y (n, c, oh, ow) = the maximum of x (n,
 *  c, h, w) over each window's taps inside the input (mxrt_kernel_spool2d's
 *  geometry; a window with none gives the type's minimum), uint8 (int8 with
 *  MXRT_KERNEL_SIGNED_A); with MXRT_KERNEL_NHWC x (n, h, w, c) and y (n,
 *  oh, ow, c). A quantized model's max pooling, which commutes with its
 *  quantization. */
MXRT_API void mxrt_kernel_qmaxpool2d(int64_t n, int64_t c, int64_t h, int64_t w,
                                     int64_t oh, int64_t ow, int64_t kh,
                                     int64_t kw, int64_t stride_h,
                                     int64_t stride_w, int64_t pad_h,
                                     int64_t pad_w, const uint8_t *x,
                                     uint8_t *y, int32_t flags);

/** TopK's selection: for each column (o, i) of x viewed as (outer, n,
 *  inner), contiguous, the indices of its k largest (smallest with
 *  MXRT_KERNEL_SELECT_SMALLEST) elements among the first `*count` of the
 *  column (all n when count is null), best first, ties to the lower index,
 *  NaN above every number. k is min(*k (kbound when k is null), kbound,
 *  the column's count); out is (outer, kbound, inner) and holds 0 after the
 *  first k of each column. */
MXRT_API void mxrt_kernel_topk_f32(const float *x, int64_t outer, int64_t n,
                                   int64_t inner, const int64_t *count,
                                   const int64_t *k, int64_t kbound,
                                   int64_t *out, int32_t flags);

/** Greedy non-maximum suppression, as ONNX's NonMaxSuppression: boxes
 *  (batches, n, 4), contiguous, two opposite corners (y, x) each in either
 *  order, or (x center, y center, width, height) with
 *  MXRT_KERNEL_NMS_CENTER; scores (batches, classes, n). Only the first
 *  `*count` boxes take part (all n when count is null), and only boxes
 *  scoring above `*score_threshold` (when not null). For each (batch,
 *  class), boxes are taken best first (ties to the lower index), each
 *  dropping the rest that overlap it by an intersection over union above
 *  `*iou_threshold` (with a positive intersection, areas and union), until
 *  `*max_per_class` are taken. out (batches, classes, n) gets each class's
 *  taken box indices in that order, then -1. */
MXRT_API void
mxrt_kernel_nms_f32(const float *boxes, const float *scores, int64_t batches,
                    int64_t classes, int64_t n, const int64_t *count,
                    const int64_t *max_per_class, const float *iou_threshold,
                    const float *score_threshold, int64_t *out, int32_t flags);

/** A fresh 64-bit seed for the random operators of a call that have none
 *  of their own (ONNX RandomUniform, RandomNormal, Bernoulli, ... without
 *  `seed`): a process-wide counter, started from the clock and the process
 *  id, mixed, so that calls and processes draw different numbers. Written
 *  to *out. */
MXRT_API void mxrt_kernel_random_seed(int64_t *out, int32_t flags);

/** Strings (MXRT_STRING elements) for compiled models' casts, one element
 *  per call. The strings made live in the arena of the instance call they
 *  are made in (until its next call); the parsers record the first string
 *  that is not a number, which fails the call, and return NaN or 0 for it.
 *  Compiled code declares the pointers as 64-bit integers. */
/** The gradient of mxrt_kernel_spool2d (the same geometry; contiguous
 *  NCHW x (n, c, h, w), y and dy (n, c, oh, ow), dx like x): each output's
 *  gradient dy goes to its window's taps inside the input, for max pooling
 *  to those equal to y (every one of them), for MXRT_KERNEL_POOL_AVG
 *  divided by the forward's divisor (MXRT_KERNEL_POOL_COUNT_PAD as there),
 *  for MXRT_KERNEL_POOL_SUM whole. dx is overwritten, or added to with
 *  MXRT_KERNEL_ACCUMULATE; it must not overlap the inputs. */
MXRT_API void
mxrt_kernel_spool2d_backward(int64_t n, int64_t c, int64_t h, int64_t w,
                             int64_t oh, int64_t ow, int64_t kh, int64_t kw,
                             int64_t stride_h, int64_t stride_w, int64_t pad_h,
                             int64_t pad_w, const float *x, const float *y,
                             const float *dy, float *dx, int32_t flags);

/** Shortest decimal text that reads back as `value` of a float of `bits`
 *  (64: double, else float), NumPy's style: positional ("0.5", "100.0")
 *  for 1e-4 <= |x| < 1e16, else scientific ("1e-05"); "NaN", "INF",
 *  "-INF". */
MXRT_API const char *mxrt_string_from_float(double value, int32_t bits);
/** Decimal text of `value` (read as uint64 when is_unsigned). */
MXRT_API const char *mxrt_string_from_int(int64_t value, int32_t is_unsigned);
/** Scaled dot-product attention of n x h heads: for each (i, j) < (n, h),
 *  O = softmax(S) V with S = scale * Q K^T + mask (or Q K^T / scale with
 *  MXRT_KERNEL_ATTENTION_DIVIDE), the softmax over each row of S, where Q is
 *  sq x d, K is sk x d, V is sk x dv, mask is sq x sk (NULL: none; -inf
 *  entries mask keys out) and O is sq x dv. Each operand is a base pointer
 *  and four strides in elements: head i, j's element (r, c) is
 *  p[i * p_ns + j * p_hs + r * p_rs + c * p_cs] (a stride may be 0 to
 *  broadcast: a mask shared by every head). S is never written to memory:
 *  blocks of keys stream past each block of queries with a running softmax
 *  (FlashAttention's), and blocks whose mask is -inf throughout (a causal
 *  mask's upper triangle) are skipped. A row whose keys are all masked is
 *  NaN, as softmax gives it. O must not overlap the inputs. */
MXRT_API void mxrt_kernel_sattention(
    int64_t n, int64_t h, int64_t sq, int64_t sk, int64_t d, int64_t dv,
    const float *q, int64_t q_ns, int64_t q_hs, int64_t q_rs, int64_t q_cs,
    const float *k, int64_t k_ns, int64_t k_hs, int64_t k_rs, int64_t k_cs,
    const float *v, int64_t v_ns, int64_t v_hs, int64_t v_rs, int64_t v_cs,
    const float *mask, int64_t mask_ns, int64_t mask_hs, int64_t mask_rs,
    int64_t mask_cs, const float *scale, float *o, int64_t o_ns, int64_t o_hs,
    int64_t o_rs, int64_t o_cs, int32_t flags);

/** Decimal or scientific text (blanks around it ignored, a leading '+'
 *  allowed, "NaN" / "INF" / "+INF" / "-INF" in any case) as the nearest
 *  float of `bits` (32: float, else double), widened to double. */
MXRT_API double mxrt_string_to_float(const char *text, int32_t bits);
/** Integer text (uint64 when is_unsigned, bits returned as int64), "true"
 *  / "false" in any case, or a float truncated toward zero (saturating). */
MXRT_API int64_t mxrt_string_to_int(const char *text, int32_t is_unsigned);

/** Compiled code's report that output `output` of the function running on
 *  this thread holds its final value (mxc's `grad` functions report each
 *  gradient as the backward pass finishes it): calls the instance's output
 *  callback (mxrt_instance_set_output_callback), if it has one. */
MXRT_API void mxrt_output_ready(int32_t output);

/** A loop body that runs iterations [begin, end) of a parallel loop with
 *  the captured values at `ctx`. */
typedef void (*mxrt_loop_body)(void *ctx, int64_t begin, int64_t end);

/** Runs `body` over iterations [0, n), split into contiguous chunks over
 *  the thread pool of the instance call it is made from (one chunk per
 *  thread, the caller's included), or as body(ctx, 0, n) on the calling
 *  thread where there is no pool. Compiled models call it for their
 *  elementwise, pooling and other loops big enough to be worth sharing. */
MXRT_API void mxrt_parallel_for(mxrt_loop_body body, void *ctx, int64_t n);

#ifdef __cplusplus
}
#endif

#endif /* MXRT_KERNELS_H */
