// SPDX-License-Identifier: Apache-2.0
//
// planGemm (cuda_libraries.h): cuBLAS reads column-major matrices, each
// with one unit stride and a leading dimension, optionally transposed. A
// row-major view with unit column stride is the transpose of a
// column-major one, so C = A B with C rows contiguous is computed as
// C^T = B^T A^T, and the other way round directly.
#include "cuda_libraries.h"

#include <algorithm>

namespace mxrt::cuda {
namespace {

/// A view of `rows` x `cols` elements, (i, j) at p + i rs + j cs.
struct View {
  const char *name;
  const float *p;
  int64_t rows, cols, rs, cs;
  bool flipped = false; // the transpose of the operand named
  View transposed() const { return {name, p, cols, rows, cs, rs, !flipped}; }
};

/// How cuBLAS reads `v`: as column-major storage (op N: unit row stride,
/// ld = the column stride) or as the transpose of column-major storage
/// (op T: unit column stride, ld = the row stride). An extent of 1 leaves
/// its stride free; ld must cover the storage's rows.
bool operandOf(const View &v, cublasOperation_t &op, int64_t &ld) {
  if (v.rs == 1 || v.rows == 1) {
    ld = v.cols == 1 ? std::max<int64_t>(v.rows, 1) : v.cs;
    if (ld >= std::max<int64_t>(v.rows, 1)) {
      op = CUBLAS_OP_N;
      return true;
    }
  }
  if (v.cs == 1 || v.cols == 1) {
    ld = v.rows == 1 ? std::max<int64_t>(v.cols, 1) : v.rs;
    if (ld >= std::max<int64_t>(v.cols, 1)) {
      op = CUBLAS_OP_T;
      return true;
    }
  }
  return false;
}

std::string describe(View v) {
  if (v.flipped)
    v = v.transposed();
  return std::string(v.name) + " (" + std::to_string(v.rows) + " x " +
         std::to_string(v.cols) + ") has strides " + std::to_string(v.rs) +
         ", " + std::to_string(v.cs) +
         ": cuBLAS needs a unit stride and the other at least the extent "
         "beside it";
}

} // namespace

bool planGemm(int64_t batch, int64_t m, int64_t n, int64_t k, StridedMatrix a,
              StridedMatrix b, StridedMatrix c, GemmPlan &plan,
              std::string &why) {
  View va{"A", a.p, m, k, a.rs, a.cs}, vb{"B", b.p, k, n, b.rs, b.cs},
      vc{"C", c.p, m, n, c.rs, c.cs};
  plan = GemmPlan{};
  plan.batch = batch;
  plan.k = k;
  cublasOperation_t opC;
  int64_t ldc;
  // C itself column-major: C = A B. Else C^T column-major: C^T = B^T A^T.
  View first = va, second = vb;
  int64_t firstBs = a.bs, secondBs = b.bs;
  if (operandOf(vc, opC, ldc) && opC == CUBLAS_OP_N) {
    plan.m = m;
    plan.n = n;
  } else if (operandOf(vc.transposed(), opC, ldc) && opC == CUBLAS_OP_N) {
    plan.m = n;
    plan.n = m;
    first = vb.transposed();
    second = va.transposed();
    std::swap(firstBs, secondBs);
  } else {
    why = describe(vc);
    return false;
  }
  if (!operandOf(first, plan.transA, plan.lda)) {
    why = describe(first);
    return false;
  }
  if (!operandOf(second, plan.transB, plan.ldb)) {
    why = describe(second);
    return false;
  }
  plan.a = first.p;
  plan.b = second.p;
  plan.c = const_cast<float *>(c.p);
  plan.ldc = ldc;
  plan.strideA = firstBs;
  plan.strideB = secondBs;
  plan.strideC = c.bs;
  return true;
}

} // namespace mxrt::cuda
