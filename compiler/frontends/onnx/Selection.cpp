// SPDX-License-Identifier: Apache-2.0
// ONNX's selection operators: TopK as k rounds of arg-max (or arg-min) over
// the axis, each taking its element out of the running (O(k n): the k of
// classification and detection heads is small beside n).
#include "compiler/frontends/onnx/ImporterImpl.h"

#include <limits>

using namespace mlir;

namespace mxc::onnx {

LogicalResult importTopK(Importer &im, StringRef) {
  auto xs = im.shape(0);
  int64_t rank = xs.size(), axis;
  if (rank == 0)
    return im.fail("input must have rank 1 or more");
  if (failed(im.axisAttr(-1, rank, axis)))
    return failure();
  if (ShapedType::isDynamic(xs[axis]))
    return im.fail("the axis's extent must be static");
  int64_t k;
  if (im.opset < 10) {
    k = im.attrInt("k", -1);
  } else if (im.cst(1)) {
    auto v = im.constInt(1, "K");
    if (failed(v))
      return failure();
    k = *v;
  } else {
    auto declared = im.declaredShape(0, 1, "K");
    if (failed(declared))
      return failure();
    if ((int64_t)declared->size() != rank)
      return im.fail("the declared shape " + shapeText(*declared) +
                     " does not have the input's rank");
    k = (*declared)[axis];
  }
  if (k < 0 || k > xs[axis])
    return im.fail("K = " + Twine(k) + " is outside [0, " + Twine(xs[axis]) +
                   "], the axis's extent");
  bool largest = im.attrInt("largest", 1) != 0;
  im.ignoreAttrs({"sorted"}); // the result is always sorted
  int32_t type = im.type(0);
  if (type == TP::BOOL)
    return im.fail("boolean inputs are not supported");
  std::vector<int64_t> outShape = xs;
  outShape[axis] = k;
  if (k == 0) {
    auto empty = [&](int32_t t) {
      return im.emptyConstant(
          RankedTensorType::get(outShape, elementType(t, &im.ctx)));
    };
    if (failed(im.out(0, empty(type))))
      return failure();
    return im.out(1, empty(TP::INT64));
  }
  // What a taken element becomes: below (above) every value.
  Const fill(type, {});
  if (isFloatType(type)) {
    fill.set(0, largest ? -std::numeric_limits<double>::infinity()
                        : std::numeric_limits<double>::infinity());
  } else {
    int bits = 8 * (int)elementSize(type);
    int64_t top = bits == 64 ? std::numeric_limits<int64_t>::max()
                             : (int64_t(1) << (bits - 1)) - 1;
    fill.setInt(0, largest ? -top - 1 : top);
  }
  Value x = im.val(0), running = x;
  Value iota = im.iotaOfExtent(0, axis, rank, axis);
  Value taken = im.param(fill, im.nodeName + "_taken");
  SmallVector<Value> values, indices;
  for (int64_t j = 0; j < k; ++j) {
    Value idx = im.op("mx.argreduce", running,
                      {im.na("op", im.str(largest ? "max" : "min")),
                       im.na("axis", im.i64(axis)),
                       im.na("keepdims", im.boolean(true))});
    indices.push_back(idx);
    values.push_back(im.op("mx.gather_elements", {x, idx},
                           {im.na("axis", im.i64(axis))}));
    if (j + 1 < k)
      running = im.where(im.compare(iota, idx, "equal"), taken, running);
  }
  auto join = [&](SmallVector<Value> &parts) {
    return parts.size() == 1
               ? parts[0]
               : im.op("mx.Concat", parts, {im.na("dim", im.i64(axis))});
  };
  if (failed(im.out(0, join(values))))
    return failure();
  return im.out(1, join(indices));
}

} // namespace mxc::onnx
