// SPDX-License-Identifier: Apache-2.0
// ONNX's signal operators: the Hann, Hamming and Blackman windows, built on
// the host (their values depend only on their length, which is the size
// input's value or, when that is a graph input, the declared output length).
#include "compiler/frontends/onnx/ImporterImpl.h"

#include <cmath>

using namespace mlir;

namespace mxc::onnx {

/// a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), n in [0, size), N = size
/// (periodic) or size - 1 (symmetric).
LogicalResult importWindow(Importer &im, StringRef opType) {
  double a0 = 0.42, a1 = 0.5, a2 = 0.08; // Blackman
  if (opType == "HannWindow")
    a0 = 0.5, a1 = 0.5, a2 = 0.0;
  else if (opType == "HammingWindow")
    a0 = 25.0 / 46.0, a1 = 1.0 - a0, a2 = 0.0;
  int32_t type = (int32_t)im.attrInt("output_datatype", TP::FLOAT);
  if (!isFloatType(type) || !elementType(type, &im.ctx))
    return im.fail("output_datatype " + typeName(type) +
                   " is not a floating-point type mxc supports");
  bool periodic = im.attrInt("periodic", 1) != 0;
  if (numElements(im.shape(0)) != 1)
    return im.fail("size must be a scalar, got shape " + shapeText(im.shape(0)));
  int64_t size;
  if (const Const *c = im.cst(0)) {
    size = c->i(0);
  } else {
    auto declared = im.declaredShape(0, 0, "size");
    if (failed(declared))
      return failure();
    if (declared->size() != 1)
      return im.fail("the declared shape " + shapeText(*declared) +
                     " is not a vector");
    size = (*declared)[0];
  }
  if (size < 0 || size > (int64_t(1) << 25))
    return im.fail("size " + Twine(size) + " is out of range [0, 2^25]");
  Const w(type, {size});
  double n = double(periodic ? size : size - 1);
  for (int64_t k = 0; k < size; ++k) {
    double t = 2.0 * M_PI * double(k) / n;
    w.set(k, a0 - a1 * std::cos(t) + a2 * std::cos(2.0 * t));
  }
  return im.outConst(0, std::move(w));
}

} // namespace mxc::onnx
