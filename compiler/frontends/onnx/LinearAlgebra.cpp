// SPDX-License-Identifier: Apache-2.0
// ONNX's Det: Gaussian elimination with partial pivoting, unrolled over the
// static matrix order, on the whole batch of matrices at once (each step's
// pivot row picked and swapped in by gathers, its sign kept).
#include "compiler/frontends/onnx/ImporterImpl.h"

using namespace mlir;

namespace mxc::onnx {

LogicalResult importDet(Importer &im, StringRef) {
  auto xs = im.shape(0);
  int64_t rank = xs.size();
  if (failed(im.requireFloat(0)))
    return failure();
  if (rank < 2 || xs[rank - 1] != xs[rank - 2])
    return im.fail("input must be a batch of square matrices, got shape " +
                   shapeText(xs));
  if (failed(im.requireStatic(0, "the input")))
    return failure();
  int64_t n = xs[rank - 1];
  if (n > 64)
    return im.fail("matrices of order " + Twine(n) +
                   " are above the 64 Det supports");
  int32_t type = im.type(0);
  std::vector<int64_t> batch(xs.begin(), xs.end() - 2), one = batch;
  one.push_back(1);
  one.push_back(1);
  auto slice = [&](Value v, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    std::vector<int64_t> b(rank, 0), e = xs;
    b[rank - 2] = r0, e[rank - 2] = r1, b[rank - 1] = c0, e[rank - 1] = c1;
    return im.op("mx.slice", v,
                 {im.na("begin", im.arr(b)), im.na("end", im.arr(e))});
  };
  Value a = im.val(0), zero = im.scalarParam(type, 0.0, "zero");
  Value rows = im.iotaAlong(rank, rank - 2, n); // (1.., n, 1)
  Value det, sign;
  for (int64_t k = 0; k < n; ++k) {
    if (k + 1 < n) {
      // The row of the largest |a[i, k]|, i >= k, swapped with row k.
      Value col = im.unary(slice(a, k, n, k, k + 1), "abs");
      Value p = im.scalar(
          im.op("mx.argreduce", col,
                {im.na("op", im.str("max")), im.na("axis", im.i64(rank - 2)),
                 im.na("keepdims", im.boolean(true))}),
          "add", double(k)); // (batch, 1, 1)
      Value kk = im.int64Scalar(k);
      Value source = im.where(im.compare(rows, kk, "equal"), p,
                              im.where(im.compare(rows, p, "equal"), kk, rows));
      source = im.op("mx.broadcast_to", source, {im.na("shape", im.arr(xs))});
      a = im.op("mx.gather_elements", {a, source},
                {im.na("axis", im.i64(rank - 2))});
      Value flip =
          im.where(im.compare(p, kk, "equal"), im.scalarParam(type, 1.0, "one"),
                   im.scalarParam(type, -1.0, "minus_one"));
      sign = sign ? im.binary(sign, flip, "mul") : flip;
    }
    Value pivot = slice(a, k, k + 1, k, k + 1); // (batch, 1, 1)
    det = det ? im.binary(det, pivot, "mul") : pivot;
    if (k + 1 == n)
      break;
    // Rows below k lose their multiple of row k (none where the pivot is 0:
    // the determinant is 0 then).
    Value factor = im.binary(slice(a, 0, n, k, k + 1), pivot, "div");
    Value below = im.compare(rows, im.int64Scalar(k), "greater");
    Value usable = im.compare(pivot, zero, "not_equal");
    factor = im.where(im.binary(below, usable, "and"), factor, zero);
    a = im.binary(a, im.binary(factor, slice(a, k, k + 1, 0, n), "mul"), "sub");
  }
  if (sign)
    det = im.binary(det, sign, "mul");
  return im.out(0, im.reshape(det, batch));
}

} // namespace mxc::onnx
