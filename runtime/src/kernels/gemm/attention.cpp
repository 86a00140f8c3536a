// SPDX-License-Identifier: Apache-2.0
// mxrt_kernel_sattention (mxrt/kernels.h): the heads, and blocks of their
// queries, spread over the instance's thread pool; each piece runs the
// instruction set's attention (attention_impl.inc).
#include "gemm_internal.h"
#include "mxrt/kernels.h"
#include "threadpool.h"

#include <algorithm>

namespace {

/// One call's pieces: head (i, j)'s query rows in `chunks` equal runs of
/// whole blocks.
struct AttentionPieces {
  const mxrt::AttentionProblem *ap;
  int64_t chunks, rowsPerChunk;
};

void runPiece(void *arg, int64_t index) {
  const AttentionPieces &p = *static_cast<const AttentionPieces *>(arg);
  const mxrt::AttentionProblem &ap = *p.ap;
  int64_t head = index / p.chunks, chunk = index % p.chunks;
  int64_t r0 = chunk * p.rowsPerChunk;
  int64_t r1 = std::min(ap.sq, r0 + p.rowsPerChunk);
  if (r0 < r1)
    mxrt::target().attention(ap, head / ap.h, head % ap.h, r0, r1);
}

} // namespace

extern "C" void mxrt_kernel_sattention(
    int64_t n, int64_t h, int64_t sq, int64_t sk, int64_t d, int64_t dv,
    const float *q, int64_t q_ns, int64_t q_hs, int64_t q_rs, int64_t q_cs,
    const float *k, int64_t k_ns, int64_t k_hs, int64_t k_rs, int64_t k_cs,
    const float *v, int64_t v_ns, int64_t v_hs, int64_t v_rs, int64_t v_cs,
    const float *mask, int64_t mask_ns, int64_t mask_hs, int64_t mask_rs,
    int64_t mask_cs, const float *scale, float *o, int64_t o_ns, int64_t o_hs,
    int64_t o_rs, int64_t o_cs, int32_t flags) {
  if (n <= 0 || h <= 0 || sq <= 0 || dv <= 0)
    return;
  mxrt::AttentionProblem ap = {
      n,  h,  sq, sk,   d,      dv,
      q,  k,  v,  mask, o,      {},
      {}, {}, {}, {},   *scale, (flags & MXRT_KERNEL_ATTENTION_DIVIDE) != 0};
  auto strides = [](int64_t *s, int64_t a, int64_t b, int64_t c, int64_t e) {
    s[0] = a, s[1] = b, s[2] = c, s[3] = e;
  };
  strides(ap.qs, q_ns, q_hs, q_rs, q_cs);
  strides(ap.ks, k_ns, k_hs, k_rs, k_cs);
  strides(ap.vs, v_ns, v_hs, v_rs, v_cs);
  strides(ap.maskS, mask_ns, mask_hs, mask_rs, mask_cs);
  strides(ap.os, o_ns, o_hs, o_rs, o_cs);
  if (sk <= 0) { // softmax over no keys: NaN rows
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < h; ++j)
        for (int64_t r = 0; r < sq; ++r)
          for (int64_t c = 0; c < dv; ++c)
            o[i * o_ns + j * o_hs + r * o_rs + c * o_cs] = __builtin_nanf("");
    return;
  }
  // Enough pieces for every thread twice over where the heads are fewer
  // (a decoder's prompt of few heads), each at least one block of queries:
  // a piece packs its head's keys and values again.
  mxrt::ThreadPool *pool = mxrt::ThreadPool::current();
  int64_t threads = pool ? pool->size() : 1;
  int64_t heads = n * h, block = mxrt::target().attentionRows;
  int64_t blocks = (sq + block - 1) / block;
  int64_t chunks =
      std::clamp<int64_t>((2 * threads + heads - 1) / heads, 1, blocks);
  AttentionPieces pieces{&ap, chunks, (blocks + chunks - 1) / chunks * block};
  int64_t count = heads * chunks;
  if (threads <= 1 || count == 1 ||
      heads * sq * sk * (d + dv) < mxrt::kParallelMinWork) {
    for (int64_t i = 0; i < count; ++i)
      runPiece(&pieces, i);
    return;
  }
  pool->parallelFor(count, runPiece, &pieces);
}
