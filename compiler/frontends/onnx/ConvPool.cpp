// SPDX-License-Identifier: Apache-2.0
// ONNX's convolutions, poolings and matrix products: Conv, ConvTranspose,
// MaxPool / AveragePool and their global forms, Gemm and MatMul. ONNX pads
// each side on its own; mx pads symmetrically, so asymmetric padding becomes
// an explicit mx.pad (or, for ConvTranspose, a crop of the result).
#include "compiler/frontends/onnx/ImporterImpl.h"

#include <limits>

using namespace mlir;

namespace mxc::onnx {

/// The padding of an ONNX convolution or pooling over input extents `in`:
/// `pads` when auto_pad is NOTSET, else SAME_UPPER / SAME_LOWER / VALID for
/// windows of `kernel` (dilated) extents and `strides`.
static LogicalResult readPads(Importer &im, ArrayRef<int64_t> in,
                              ArrayRef<int64_t> kernel,
                              ArrayRef<int64_t> strides,
                              SmallVectorImpl<int64_t> &begin,
                              SmallVectorImpl<int64_t> &end) {
  std::string autoPad = im.attrStr("auto_pad", "NOTSET");
  size_t n = in.size();
  begin.assign(n, 0);
  end.assign(n, 0);
  if (autoPad == "NOTSET" || autoPad.empty()) {
    if (auto pads = im.attrInts("pads")) {
      if (pads->size() != 2 * n)
        return im.fail("pads has " + Twine(pads->size()) +
                       " values, expected " + Twine(2 * n));
      for (size_t i = 0; i < n; ++i) {
        begin[i] = (*pads)[i];
        end[i] = (*pads)[n + i];
        if (begin[i] < 0 || end[i] < 0)
          return im.fail("negative pads are not supported");
      }
    }
    return success();
  }
  im.attr("pads");
  if (autoPad == "VALID")
    return success();
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return im.fail("auto_pad '" + autoPad + "' is not supported");
  for (size_t i = 0; i < n; ++i) {
    int64_t o = (in[i] + strides[i] - 1) / strides[i];
    int64_t total =
        std::max<int64_t>(0, (o - 1) * strides[i] + kernel[i] - in[i]);
    int64_t small = total / 2;
    begin[i] = autoPad == "SAME_UPPER" ? small : total - small;
    end[i] = total - begin[i];
  }
  return success();
}

/// Pads for mx.pad over all axes of a NC... tensor: (before, after) per
/// spatial axis, zero on N and C.
static SmallVector<int64_t> fullPads(ArrayRef<int64_t> begin,
                                     ArrayRef<int64_t> end) {
  SmallVector<int64_t> p = {0, 0};
  p.append(begin.begin(), begin.end());
  p.append({0, 0});
  p.append(end.begin(), end.end());
  return p;
}

/// The window of an `n`-D convolution with weight shape `ws`: its kernel
/// (which kernel_shape must agree with), strides and dilations.
static LogicalResult readWindow(Importer &im, ArrayRef<int64_t> ws, int64_t n,
                                std::vector<int64_t> &kernel,
                                std::vector<int64_t> &strides,
                                std::vector<int64_t> &dil) {
  kernel.assign(ws.begin() + 2, ws.end());
  if (auto k = im.attrInts("kernel_shape"); k && *k != kernel)
    return im.fail("kernel_shape " + shapeText(*k) +
                   " does not match the weight shape " + shapeText(ws));
  strides = im.attrInts("strides", std::vector<int64_t>(n, 1));
  dil = im.attrInts("dilations", std::vector<int64_t>(n, 1));
  return success();
}

/// Conv's and ConvTranspose's operands: input `x`, the weight and the bias
/// when given.
static SmallVector<Value> convOperands(Importer &im, Value x) {
  SmallVector<Value> operands = {x, im.val(1)};
  if (im.has(2))
    operands.push_back(im.val(2));
  return operands;
}

/// Conv's or ConvTranspose's (`kind`) float input and weight shapes, and
/// its number of spatial axes `n` (3-D is not supported).
static LogicalResult convShapes(Importer &im, StringRef kind,
                                std::vector<int64_t> &xs,
                                std::vector<int64_t> &ws, int64_t &n) {
  if (failed(im.requireFloat(0)) || failed(im.requireFloat(1)))
    return failure();
  xs = im.shape(0);
  ws = im.shape(1);
  n = xs.size() - 2;
  if (n == 3)
    return im.fail("3-D " + kind + " is not supported (1-D and 2-D only)");
  return success();
}

Value convolve(Importer &im, Value x, Value w, Value bias, ArrayRef<int64_t> xs,
               ArrayRef<int64_t> ws) {
  int64_t n = xs.size() - 2;
  if (n != 1 && n != 2) {
    (void)im.fail("input shape " + shapeText(xs) +
                  " is not NCW or NCHW (1-D or 2-D convolution)");
    return Value();
  }
  if (ws.size() != xs.size()) {
    (void)im.fail("weight shape " + shapeText(ws) + " does not match input " +
                  shapeText(xs));
    return Value();
  }
  std::vector<int64_t> kernel, strides, dil;
  if (failed(readWindow(im, ws, n, kernel, strides, dil)))
    return Value();
  if ((int64_t)strides.size() != n || (int64_t)dil.size() != n) {
    (void)im.fail("strides and dilations need " + Twine(n) + " values");
    return Value();
  }
  SmallVector<int64_t> span;
  for (int64_t i = 0; i < n; ++i)
    span.push_back((kernel[i] - 1) * dil[i] + 1);
  SmallVector<int64_t> begin, end;
  if (failed(readPads(im, xs.drop_front(2), span, strides, begin, end)))
    return Value();
  SmallVector<int64_t> pad(begin);
  if (begin != end) {
    x = im.op("mx.pad", x, {im.na("pads", im.arr(fullPads(begin, end)))});
    pad.assign(n, 0);
  }
  SmallVector<Value, 3> operands = {x, w};
  if (bias)
    operands.push_back(bias);
  return im.op("mx.Convolution", operands,
               {im.na("kernel", im.arr(kernel)),
                im.na("stride", im.arr(strides)), im.na("dilate", im.arr(dil)),
                im.na("pad", im.arr(pad)), im.na("num_filter", im.i64(ws[0])),
                im.na("num_group", im.i64(im.attrInt("group", 1))),
                im.na("no_bias", im.boolean(!bias))});
}

LogicalResult importConv(Importer &im, StringRef) {
  std::vector<int64_t> xs, ws;
  int64_t n;
  if (failed(convShapes(im, "convolution", xs, ws, n)))
    return failure();
  return im.out(0, convolve(im, im.val(0), im.val(1),
                            im.has(2) ? im.val(2) : Value(), xs, ws));
}

LogicalResult importConvTranspose(Importer &im, StringRef) {
  std::vector<int64_t> xs, ws;
  int64_t n;
  if (failed(convShapes(im, "transposed convolution", xs, ws, n)))
    return failure();
  if ((n != 1 && n != 2) || ws.size() != xs.size())
    return im.fail("input shape " + shapeText(xs) + " and weight shape " +
                   shapeText(ws) +
                   " are not a 1-D or 2-D transposed convolution");
  int64_t group = im.attrInt("group", 1);
  std::vector<int64_t> kernel, strides, dil;
  if (failed(readWindow(im, ws, n, kernel, strides, dil)))
    return failure();
  auto adj = im.attrInts("output_padding", std::vector<int64_t>(n, 0));
  if ((int64_t)strides.size() != n || (int64_t)dil.size() != n ||
      (int64_t)adj.size() != n)
    return im.fail("strides, dilations and output_padding need " + Twine(n) +
                   " values");
  std::string autoPad = im.attrStr("auto_pad", "NOTSET");
  auto outShape = im.attrInts("output_shape");
  SmallVector<int64_t> begin(n, 0), end(n, 0);
  if (outShape && outShape->size() == xs.size())
    outShape = std::vector<int64_t>(outShape->begin() + 2, outShape->end());
  if (outShape && (int64_t)outShape->size() != n)
    return im.fail("output_shape " + shapeText(*outShape) + " needs " +
                   Twine(n) + " spatial extents");
  if (outShape || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    im.attr("pads");
    for (int64_t i = 0; i < n; ++i) {
      int64_t target = outShape ? (*outShape)[i] : xs[2 + i] * strides[i];
      int64_t full =
          strides[i] * (xs[2 + i] - 1) + adj[i] + (kernel[i] - 1) * dil[i] + 1;
      int64_t total = full - target;
      if (total < 0 && adj[i] - total < strides[i]) {
        // A larger output only adds positions no input reaches (adj).
        adj[i] -= total;
        total = 0;
      }
      if (total < 0)
        return im.fail("output_shape " + shapeText(*outShape) +
                       " is larger than the full transposed convolution");
      if (autoPad == "SAME_UPPER") {
        begin[i] = total / 2;
        end[i] = total - begin[i];
      } else {
        end[i] = total / 2;
        begin[i] = total - end[i];
      }
    }
  } else if (autoPad == "NOTSET" || autoPad == "VALID") {
    if (auto pads = im.attrInts("pads"); pads && autoPad == "NOTSET") {
      if ((int64_t)pads->size() != 2 * n)
        return im.fail("pads needs " + Twine(2 * n) + " values");
      begin.assign(pads->begin(), pads->begin() + n);
      end.assign(pads->begin() + n, pads->end());
    }
  } else {
    return im.fail("auto_pad '" + autoPad + "' is not supported");
  }
  // Deconvolution pads symmetrically; crop what remains on one side.
  SmallVector<int64_t> pad;
  for (int64_t i = 0; i < n; ++i)
    pad.push_back(std::min(begin[i], end[i]));
  Value y = im.op(
      "mx.Deconvolution", convOperands(im, im.val(0)),
      {im.na("kernel", im.arr(kernel)), im.na("stride", im.arr(strides)),
       im.na("dilate", im.arr(dil)), im.na("pad", im.arr(pad)),
       im.na("adj", im.arr(adj)), im.na("num_filter", im.i64(ws[1] * group)),
       im.na("num_group", im.i64(group)),
       im.na("no_bias", im.boolean(!im.has(2)))});
  if (y && begin != end) {
    auto ys = cast<RankedTensorType>(y.getType()).getShape();
    SmallVector<int64_t> sb = {0, 0}, se = {ys[0], ys[1]};
    for (int64_t i = 0; i < n; ++i) {
      sb.push_back(begin[i] - pad[i]);
      se.push_back(ys[2 + i] - (end[i] - pad[i]));
    }
    y = im.op("mx.slice", y,
              {im.na("begin", im.arr(sb)), im.na("end", im.arr(se))});
  }
  return im.out(0, y);
}

/// MaxPool (with its Indices output), AveragePool.
LogicalResult importPool(Importer &im, StringRef t) {
  bool isMax = t == "MaxPool";
  // Max pooling also takes integers (MaxPool: int8 and uint8).
  if (!(isMax && !isFloatType(im.type(0)) && im.type(0) != TP::BOOL) &&
      failed(im.requireFloat(0)))
    return failure();
  auto xs = im.shape(0);
  int64_t n = xs.size() - 2;
  if (n < 1 || n > 3)
    return im.fail("input shape " + shapeText(xs) +
                   " is not NCW, NCHW or NCDHW");
  auto kernel = im.attrInts("kernel_shape");
  if (!kernel || (int64_t)kernel->size() != n)
    return im.fail("kernel_shape needs " + Twine(n) + " values");
  auto strides = im.attrInts("strides", std::vector<int64_t>(n, 1));
  if ((int64_t)strides.size() != n)
    return im.fail("strides needs " + Twine(n) + " values");
  auto dilations = im.attrInts("dilations", std::vector<int64_t>(n, 1));
  if ((int64_t)dilations.size() != n)
    return im.fail("dilations needs " + Twine(n) + " values");
  bool dilated = llvm::any_of(dilations, [](int64_t d) { return d != 1; });
  if (dilated && !isMax)
    return im.fail("dilations " + shapeText(dilations) +
                   " are not supported for average pooling");
  int64_t storageOrder = im.attrInt("storage_order", 0); // only for Indices
  bool ceil = im.attrInt("ceil_mode", 0);
  bool includePad = !isMax && im.attrInt("count_include_pad", 0);
  std::vector<int64_t> extent(n);
  for (int64_t i = 0; i < n; ++i)
    extent[i] = ((*kernel)[i] - 1) * dilations[i] + 1;
  SmallVector<int64_t> begin, end;
  if (failed(readPads(im, ArrayRef(xs).drop_front(2), extent, strides, begin,
                      end)))
    return failure();
  if (im.wants(1) && !isMax)
    return im.fail("AveragePool has a single output");
  if (im.wants(1)) {
    // Indices address the unpadded input, so the op pads itself.
    SmallVector<int64_t> pads(begin);
    pads.append(end);
    SmallVector<Value> ys = im.create(
        "mx.max_pool_with_indices", im.val(0),
        {im.na("kernel", im.arr(*kernel)), im.na("stride", im.arr(strides)),
         im.na("dilate", im.arr(dilations)), im.na("pad", im.arr(pads)),
         im.na("ceil_mode", im.boolean(ceil)),
         im.na("storage_order", im.i64(storageOrder))});
    if (ys.empty())
      return failure();
    (void)im.out(0, ys[0]);
    return im.out(1, ys[1]);
  }
  Value x = im.val(0);
  SmallVector<int64_t> pad(begin);
  bool asymmetric = begin != end;
  if (asymmetric) {
    // Explicit padding that never wins a max or that an including average
    // counts; an excluding average divides a sum by the valid counts.
    double v = !isMax ? 0.0
               : isFloatType(im.type(0))
                   ? -std::numeric_limits<double>::infinity()
                   : lowestInt(im.type(0));
    x = im.op("mx.pad", x,
              {im.na("pads", im.arr(fullPads(begin, end))),
               im.na("value", im.f64(v))});
    pad.assign(n, 0);
  }
  StringRef poolType = isMax                       ? "max"
                       : asymmetric && !includePad ? "sum"
                                                   : "avg";
  Value y =
      im.op("mx.Pooling", x,
            {im.na("kernel", im.arr(*kernel)), im.na("stride", im.arr(strides)),
             im.na("dilate", im.arr(dilations)), im.na("pad", im.arr(pad)),
             im.na("pool_type", im.str(poolType)),
             im.na("pooling_convention", im.str(ceil ? "full" : "valid")),
             im.na("count_include_pad", im.boolean(includePad))});
  if (y && poolType == "sum") {
    auto ys = cast<RankedTensorType>(y.getType()).getShape();
    std::vector<int64_t> cshape = {1, 1};
    cshape.insert(cshape.end(), ys.begin() + 2, ys.end());
    Const counts(im.type(0), cshape);
    for (int64_t k = 0; k < counts.size(); ++k) {
      int64_t rem = k, count = 1;
      for (int64_t i = n; i-- > 0;) {
        int64_t o = rem % ys[2 + i];
        rem /= ys[2 + i];
        int64_t lo = o * strides[i], hi = lo + (*kernel)[i];
        lo = std::max(lo, begin[i]);
        hi = std::min(hi, begin[i] + xs[2 + i]);
        count *= std::max<int64_t>(hi - lo, 1);
      }
      counts.set(k, (double)count);
    }
    y = im.binary(y, im.param(counts, im.nodeName + "_counts"), "div");
  }
  return im.out(0, y);
}

/// GlobalMaxPool, GlobalAveragePool.
LogicalResult importGlobalPool(Importer &im, StringRef t) {
  bool isMax = t == "GlobalMaxPool";
  if (failed(im.requireFloat(0)))
    return failure();
  int64_t r = im.rank(0);
  if (r == 3 || r == 4)
    return im.out(0,
                  im.op("mx.Pooling", im.val(0),
                        {im.na("global_pool", im.boolean(true)),
                         im.na("pool_type", im.str(isMax ? "max" : "avg"))}));
  if (r < 3)
    return im.fail("input must have rank >= 3");
  return im.out(
      0, im.reduceKeep(im.val(0), isMax ? "max" : "mean", iota(2, r - 2)));
}

LogicalResult importGemm(Importer &im, StringRef) {
  im.ignoreAttrs({"broadcast"});
  bool ta = im.attrInt("transA", 0), tb = im.attrInt("transB", 0);
  double alpha = im.attrFloat("alpha", 1.0), beta = im.attrFloat("beta", 1.0);
  if (im.rank(0) != 2 || im.rank(1) != 2)
    return im.fail("A and B must be 2-D, got " + shapeText(im.shape(0)) +
                   " and " + shapeText(im.shape(1)));
  Value y;
  if (isFloatType(im.type(0))) {
    y = im.op("mx.dot", {im.val(0), im.val(1)},
              {im.na("transpose_a", im.boolean(ta)),
               im.na("transpose_b", im.boolean(tb))});
  } else {
    Value a = im.val(0), bm = im.val(1);
    if (ta)
      a = im.op("mx.transpose", a);
    if (tb)
      bm = im.op("mx.transpose", bm);
    y = im.op("mx.matmul", {a, bm});
  }
  if (alpha != 1.0)
    y = im.scalar(y, "mul", alpha);
  if (im.has(2) && beta != 0.0) {
    Value c;
    if (const Const *cc = im.cst(2); cc && beta != 1.0) {
      Const scaled = *cc;
      for (int64_t k = 0; k < scaled.size(); ++k)
        scaled.set(k, cc->f(k) * beta);
      c = im.param(scaled, im.node->input(2) + "_scaled");
    } else {
      c = im.val(2);
      if (beta != 1.0)
        c = im.scalar(c, "mul", beta);
    }
    y = im.binary(y, c, "add");
  }
  return im.out(0, y);
}

LogicalResult importMatMul(Importer &im, StringRef) {
  return im.out(0, im.op("mx.matmul", {im.val(0), im.val(1)}));
}

/// MaxUnpool: zeros of the output's shape with X's values scattered to the
/// flat positions I gives (MaxPool's Indices: over the whole tensor).
LogicalResult importMaxUnpool(Importer &im, StringRef) {
  auto xs = im.shape(0);
  int64_t spatial = (int64_t)xs.size() - 2;
  if (spatial < 1 || im.shape(1) != xs)
    return im.fail("X must be (N, C, D1, ...) and I of its shape, got " +
                   shapeText(xs) + " and " + shapeText(im.shape(1)));
  if (failed(im.requireStatic(0, "X")))
    return failure();
  auto kernel = im.attrInts("kernel_shape");
  if (!kernel || (int64_t)kernel->size() != spatial)
    return im.fail("kernel_shape must give " + Twine(spatial) + " extents");
  auto strides = im.attrInts("strides", std::vector<int64_t>(spatial, 1));
  auto pads = im.attrInts("pads", std::vector<int64_t>(2 * spatial, 0));
  if ((int64_t)strides.size() != spatial || (int64_t)pads.size() != 2 * spatial)
    return im.fail("strides and pads must give " + Twine(spatial) + " and " +
                   Twine(2 * spatial) + " values");
  // I indexes the unpooled shape the attributes give; a larger output_shape
  // holds it at its origin.
  std::vector<int64_t> unpooled = {xs[0], xs[1]}, out;
  for (int64_t i = 0; i < spatial; ++i)
    unpooled.push_back((xs[2 + i] - 1) * strides[i] + (*kernel)[i] - pads[i] -
                       pads[spatial + i]);
  if (im.has(2)) {
    if (im.cst(2)) {
      auto given = im.constInts(2, "output_shape");
      if (failed(given))
        return failure();
      out = *given;
    } else {
      auto declared = im.declaredShape(0, 2, "output_shape");
      if (failed(declared))
        return failure();
      out = *declared;
    }
    if (out.size() != xs.size() || out[0] != xs[0] || out[1] != xs[1])
      return im.fail("output_shape " + shapeText(out) +
                     " does not keep X's rank, batch and channels");
    for (int64_t i = 2; i < (int64_t)out.size(); ++i)
      if (out[i] < unpooled[i])
        return im.fail("output_shape " + shapeText(out) +
                       " is smaller than the unpooled shape " +
                       shapeText(unpooled));
  } else {
    out = unpooled;
  }
  for (int64_t e : out)
    if (e < 0 || e > (int64_t(1) << 31))
      return im.fail("output shape " + shapeText(out) + " is out of range");
  for (int64_t e : unpooled)
    if (e < 0)
      return im.fail("unpooled shape " + shapeText(unpooled) + " is negative");
  int64_t total = numElements(unpooled), count = numElements(xs);
  Value zeros =
      im.op("mx.broadcast_to", im.scalarParam(im.type(0), 0.0, "zero"),
            {im.na("shape", im.arr({total}))});
  Value idx = im.reshape(im.castTo(im.val(1), TP::INT64), {count});
  Value y =
      im.op("mx.scatter_elements", {zeros, idx, im.reshape(im.val(0), {count})},
            {im.na("axis", im.i64(0))});
  y = im.reshape(y, unpooled);
  if (out != unpooled) {
    std::vector<int64_t> padding(2 * out.size(), 0);
    for (size_t i = 0; i < out.size(); ++i)
      padding[out.size() + i] = out[i] - unpooled[i];
    y = im.op(
        "mx.pad", y,
        {im.na("pads", im.arr(padding)), im.na("mode", im.str("constant"))});
  }
  return im.out(0, y);
}

} // namespace mxc::onnx
