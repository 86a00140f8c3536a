// SPDX-License-Identifier: Apache-2.0
// ONNX's reductions: the Reduce* family onto mx.reduce (axes an attribute or,
// from ReduceSum-13, an input), ArgMax / ArgMin and the running sum CumSum.
#include "compiler/frontends/onnx/ImporterImpl.h"

#include <cstring>

using namespace mlir;

namespace mxc::onnx {

LogicalResult importReduce(Importer &im, StringRef t) {
  // mx.reduce's names: "sum", "mean", ..., "logsumexp"; ReduceLogSum is
  // the log of a sum.
  bool logSum = t == "ReduceLogSum";
  std::string fn = logSum ? "sum" : t.drop_front(strlen("Reduce")).lower();
  bool keep = im.attrInt("keepdims", 1);
  bool axesInput = t == "ReduceSum" ? im.opset >= 13 : im.opset >= 18;
  std::vector<int64_t> axes;
  if (axesInput) {
    if (failed(im.optionalConstInts(1, "axes", axes)))
      return failure();
  } else if (auto a = im.attrInts("axes")) {
    axes = *a;
  }
  if (axes.empty() && im.attrInt("noop_with_empty_axes", 0))
    return im.forward(0, 0);
  auto in = im.shape(0);
  int64_t r = in.size();
  std::vector<bool> reduced(r, axes.empty());
  for (int64_t a : axes) {
    int64_t n = a < 0 ? a + r : a;
    if (n < 0 || n >= r)
      return im.fail("axis " + Twine(a) + " is out of range for rank " +
                     Twine(r));
    reduced[n] = true;
  }
  SmallVector<int64_t> all, onnxShape;
  for (int64_t i = 0; i < r; ++i) {
    if (reduced[i])
      all.push_back(i);
    if (!reduced[i])
      onnxShape.push_back(in[i]);
    else if (keep)
      onnxShape.push_back(1);
  }
  Value y = im.op("mx.reduce", im.val(0),
                  {im.na("op", im.str(fn)), im.na("axis", im.arr(all)),
                   im.na("keepdims", im.boolean(keep))});
  if (logSum)
    y = im.unary(y, "log");
  // mx.reduce gives (1,) where ONNX gives a scalar.
  return im.out(0, im.reshape(y, onnxShape));
}

/// ArgMax, ArgMin.
LogicalResult importArgReduce(Importer &im, StringRef t) {
  return im.out(0,
                im.op("mx.argreduce", im.val(0),
                      {im.na("op", im.str(t == "ArgMax" ? "max" : "min")),
                       im.na("axis", im.i64(im.attrInt("axis", 0))),
                       im.na("keepdims", im.boolean(im.attrInt("keepdims", 1))),
                       im.na("select_last_index",
                             im.boolean(im.attrInt("select_last_index", 0)))}));
}

LogicalResult importCumSum(Importer &im, StringRef) {
  auto axis = im.constInt(1, "axis");
  if (failed(axis))
    return failure();
  if (im.type(0) == TP::BOOL)
    return im.fail("boolean inputs are not supported");
  return im.out(
      0, im.op("mx.cumsum", im.val(0),
               {im.na("axis", im.i64(*axis)),
                im.na("exclusive", im.boolean(im.attrInt("exclusive", 0))),
                im.na("reverse", im.boolean(im.attrInt("reverse", 0)))}));
}

} // namespace mxc::onnx
