// SPDX-License-Identifier: Apache-2.0
// Result-type inference for every mx op. Inference doubles as the verifier:
// InferTypeOpAdaptor checks that an op's declared results equal the inferred
// ones, so every constraint (the Cn tags of MxOps.td) is checked here once,
// and frontends call the same code to learn shapes before building an op.
#include "dialects/mx/InferUtil.h"
#include "dialects/mx/MxDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mxc::mx;
using namespace mxc::mx::infer;

#define GET_OP_CLASSES
#include "dialects/mx/MxOps.cpp.inc"

namespace {

/// conv_c3-c5, deconv_c3-c5: num_group divides the data channels and
/// num_filter, the weight is (num_filter, C/num_group, kernel...) -- (C,
/// num_filter/num_group, kernel...) when `transposed` (Deconvolution) --
/// and the bias, if any, has one value per filter.
template <typename Adaptor>
LogicalResult checkFilters(std::optional<Location> loc, Adaptor adaptor,
                           bool transposed) {
  int64_t filters = adaptor.getNumFilter(), groups = adaptor.getNumGroup();
  int64_t channels = tensorOf(adaptor.getData()).getDimSize(1);
  if (failed(checkGroups(loc, filters, groups, channels)))
    return failure();
  SmallVector<int64_t> wShape = {channels, filters / groups};
  if (!transposed)
    wShape = {filters, channels / groups};
  llvm::append_range(wShape, adaptor.getKernel());
  if (failed(checkShape(
          loc, "weight", tensorOf(adaptor.getWeight()).getShape(), wShape,
          Twine(transposed ? "(C, num_filter/num_group, kernel...) = "
                           : "(num_filter, C/num_group, kernel...) = ") +
              shapeStr(wShape))))
    return failure();
  std::string biasShape = transposed ? std::string("(num_filter,)")
                                     : "(num_filter,) = " + shapeStr({filters});
  return checkBias(loc, adaptor.getNoBias(), adaptor.getBias(), filters,
                   biasShape);
}

} // namespace

//===----------------------------------------------------------------------===//
// FullyConnected
//===----------------------------------------------------------------------===//

LogicalResult
FullyConnectedOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                   Adaptor adaptor,
                                   SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  auto weight = tensorOf(adaptor.getWeight());
  int64_t hidden = adaptor.getNumHidden();
  if (data.getRank() < 1)
    return fail(loc, "data must have rank >= 1");
  SmallVector<int64_t> outShape;
  int64_t k;
  if (adaptor.getFlatten()) {
    k = 1;
    for (int64_t d : data.getShape().drop_front())
      k *= d;
    outShape = {data.getDimSize(0), hidden};
  } else {
    k = data.getShape().back();
    outShape = SmallVector<int64_t>(data.getShape().drop_back());
    outShape.push_back(hidden);
  }
  // fc_c1, fc_c2
  if (failed(checkShape(loc, "weight", weight.getShape(), {hidden, k},
                        "(num_hidden, K) = " + shapeStr({hidden, k}) +
                            " for data " + shapeStr(data.getShape()))))
    return failure();
  // fc_c3
  if (failed(checkBias(loc, adaptor.getNoBias(), adaptor.getBias(), hidden,
                       "(num_hidden,) = " + shapeStr({hidden}))))
    return failure();
  results.push_back(RankedTensorType::get(outShape, data.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

SmallVector<int64_t> ConvolutionOp::getStrides() { return stridesOf(*this); }
SmallVector<int64_t> ConvolutionOp::getDilations() {
  return dilationsOf(*this);
}
SmallVector<int64_t> ConvolutionOp::getPadding() { return paddingOf(*this, 1); }

LogicalResult ConvolutionOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  ArrayRef<int64_t> kernel = adaptor.getKernel();
  size_t n = kernel.size();
  // conv_c1
  if (data.getRank() != 3 && data.getRank() != 4)
    return fail(loc, "data must be NCW or NCHW (rank 3 or 4), got shape " +
                         shapeStr(data.getShape()));
  if ((int64_t)n != data.getRank() - 2)
    return fail(loc, "kernel " + shapeStr(kernel) + " needs " + Twine(n) +
                         " spatial axes but data has shape " +
                         shapeStr(data.getShape()));
  for (int64_t k : kernel)
    if (k < 1)
      return fail(loc,
                  "kernel extents must be positive, got " + shapeStr(kernel));
  // conv_c2
  auto window = checkWindow(loc, adaptor.getStride(), adaptor.getDilate(),
                            adaptor.getPad(), n);
  if (failed(window))
    return failure();
  // conv_c3, conv_c4, conv_c5
  if (failed(checkFilters(loc, adaptor, /*transposed=*/false)))
    return failure();
  // conv_c6
  SmallVector<int64_t> out = {data.getDimSize(0),
                              (int64_t)adaptor.getNumFilter()};
  for (size_t i = 0; i < n; ++i) {
    auto count = windowCount(
        loc, i, paddedExtent(data.getDimSize(2 + i), 2 * window->pad[i]),
        kernel[i], window->dilate[i], window->stride[i],
        /*ceil=*/false, "dilated kernel");
    if (failed(count))
      return failure();
    out.push_back(*count);
  }
  results.push_back(RankedTensorType::get(out, data.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

SmallVector<int64_t> PoolingOp::getEffectiveKernel() {
  auto shape = cast<RankedTensorType>(getData().getType()).getShape();
  if (getGlobalPool())
    return SmallVector<int64_t>(shape.drop_front(2));
  return SmallVector<int64_t>(getKernel());
}
SmallVector<int64_t> PoolingOp::getStrides() {
  size_t n = cast<RankedTensorType>(getData().getType()).getRank() - 2;
  if (getGlobalPool())
    return SmallVector<int64_t>(n, 1);
  return withDefault(getStride(), n, 1);
}
SmallVector<int64_t> PoolingOp::getDilations() {
  size_t n = cast<RankedTensorType>(getData().getType()).getRank() - 2;
  if (getGlobalPool())
    return SmallVector<int64_t>(n, 1);
  return withDefault(getDilate(), n, 1);
}
SmallVector<int64_t> PoolingOp::getPadding() {
  size_t n = cast<RankedTensorType>(getData().getType()).getRank() - 2;
  if (getGlobalPool())
    return SmallVector<int64_t>(n, 0);
  return withDefault(getPad(), n, 0);
}

LogicalResult PoolingOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  // pool_c1
  if (data.getRank() < 3 || data.getRank() > 5)
    return fail(loc,
                "data must be NCW, NCHW or NCDHW (rank 3, 4 or 5), got shape " +
                    shapeStr(data.getShape()));
  size_t n = data.getRank() - 2;
  // pool_c2
  if (failed(checkOneOf(loc, "pool_type", adaptor.getPoolType(),
                        {"max", "avg", "sum"})))
    return failure();
  bool isMax = adaptor.getPoolType() == "max";
  // pool_c5
  Type et = data.getElementType();
  if (!isa<FloatType>(et) && (!isMax || et.isInteger(1)))
    return fail(loc, "pool_type '" + adaptor.getPoolType() +
                         "' needs float data" + (isMax ? " or integers" : "") +
                         ", got " + typeStr(et));
  if (failed(checkOneOf(loc, "pooling_convention",
                        adaptor.getPoolingConvention(), {"valid", "full"})))
    return failure();
  SmallVector<int64_t> out(data.getShape().take_front(2));
  if (adaptor.getGlobalPool()) {
    out.append(n, 1);
    results.push_back(RankedTensorType::get(out, data.getElementType()));
    return success();
  }
  ArrayRef<int64_t> kernel = adaptor.getKernel();
  if (kernel.size() != n)
    return fail(loc, "kernel " + shapeStr(kernel) + " needs " + Twine(n) +
                         " values for data of shape " +
                         shapeStr(data.getShape()));
  // pool_c3
  auto window = checkWindow(loc, adaptor.getStride(), adaptor.getDilate(),
                            adaptor.getPad(), n);
  if (failed(window) || failed(checkSpatialAttr(loc, "kernel", kernel, n, 1)))
    return failure();
  ArrayRef<int64_t> dilate = window->dilate;
  if (!isMax && llvm::any_of(dilate, [](int64_t d) { return d != 1; }))
    return fail(loc, "dilate " + shapeStr(dilate) +
                         " is only supported for max pooling");
  // pool_c4
  bool full = adaptor.getPoolingConvention() == "full";
  for (size_t i = 0; i < n; ++i) {
    bool dilated = dilate[i] != 1 && kernel[i] != 1;
    auto count = windowCount(
        loc, i, paddedExtent(data.getDimSize(2 + i), 2 * window->pad[i]),
        kernel[i], dilate[i], window->stride[i], full,
        dilated ? "dilated kernel" : "kernel");
    if (failed(count))
      return failure();
    out.push_back(*count);
  }
  results.push_back(RankedTensorType::get(out, data.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

LogicalResult ActivationOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  // act_c1
  // Ops whose assembly format shows one type infer before the parser has
  // checked or defaulted attributes: read them null-safely.
  if (!adaptor.getActTypeAttr())
    return fail(loc, "requires attribute 'act_type'");
  if (failed(checkOneOf(loc, "act_type", adaptor.getActType(),
                        {"relu", "sigmoid", "tanh", "softrelu", "softsign"})))
    return failure();
  results.push_back(adaptor.getData().getType());
  return success();
}

LogicalResult LeakyReLUOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  StringRef act = adaptor.getActType();
  // leaky_c1
  if (failed(checkOneOf(loc, "act_type", act,
                        {"leaky", "elu", "prelu", "selu", "gelu"})))
    return failure();
  auto data = tensorOf(adaptor.getData());
  // leaky_c2
  Value gamma = adaptor.getGamma();
  if ((act == "prelu") != bool(gamma))
    return fail(loc, act == "prelu" ? "prelu needs a gamma operand"
                                    : "only prelu takes a gamma operand");
  if (gamma) {
    int64_t c = data.getRank() > 1 ? data.getDimSize(1) : 1;
    auto g = tensorOf(gamma);
    if (g.getRank() != 1 || (g.getDimSize(0) != c && g.getDimSize(0) != 1))
      return fail(loc, "gamma shape " + shapeStr(g.getShape()) + " must be (" +
                           Twine(c) + ",) or (1,)");
  }
  results.push_back(data);
  return success();
}

//===----------------------------------------------------------------------===//
// BatchNorm, Dropout, LRN, Embedding
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  // bn_c1, bn_c2
  if (failed(checkChannelOperands(loc, data, adaptor.getAxis(),
                                  {{"gamma", adaptor.getGamma()},
                                   {"beta", adaptor.getBeta()},
                                   {"moving_mean", adaptor.getMovingMean()},
                                   {"moving_var", adaptor.getMovingVar()}},
                                  "the data's axis extent")))
    return failure();
  results.push_back(data);
  return success();
}

LogicalResult DropoutOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  double p = adaptor.getPAttr() ? adaptor.getP().convertToDouble() : 0.5;
  // dropout_c1
  if (!(p >= 0.0 && p < 1.0))
    return fail(loc, "p = " + std::to_string(p) + " is not in [0, 1)");
  results.push_back(adaptor.getData().getType());
  return success();
}

LogicalResult LRNOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  // lrn_c1
  if (data.getRank() != 4)
    return fail(loc, "data must be NCHW (rank 4), got shape " +
                         shapeStr(data.getShape()));
  // lrn_c2
  if (!adaptor.getNsizeAttr())
    return fail(loc, "requires attribute 'nsize'");
  int64_t nsize = adaptor.getNsize();
  if (nsize < 1 || nsize % 2 == 0)
    return fail(loc, "nsize " + Twine(nsize) + " must be positive and odd");
  results.push_back(data);
  return success();
}

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  auto weight = tensorOf(adaptor.getWeight());
  int64_t in = adaptor.getInputDim(), out = adaptor.getOutputDim();
  // embedding_c1
  if (failed(checkShape(loc, "weight", weight.getShape(), {in, out},
                        "(input_dim, output_dim) = " + shapeStr({in, out}))))
    return failure();
  SmallVector<int64_t> shape(data.getShape());
  shape.push_back(out);
  results.push_back(RankedTensorType::get(shape, weight.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// softmax, SoftmaxOutput
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  // softmax_c1
  int64_t axis = adaptor.getAxisAttr() ? (int64_t)adaptor.getAxis() : -1;
  if (failed(normalizeAxis(loc, axis, data.getRank())))
    return failure();
  // softmax_c2
  if (adaptor.getTemperatureAttr() &&
      !(adaptor.getTemperature().convertToDouble() > 0.0))
    return fail(loc, "temperature must be positive");
  results.push_back(data);
  return success();
}

LogicalResult
SoftmaxOutputOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &results) {
  // softmaxoutput_c1
  if (failed(checkOneOf(loc, "normalization", adaptor.getNormalization(),
                        {"null", "batch", "valid"})))
    return failure();
  auto data = tensorOf(adaptor.getData());
  if (data.getRank() < 2 && !adaptor.getPreserveShape())
    return fail(loc, "data must have rank >= 2, got shape " +
                         shapeStr(data.getShape()));
  results.push_back(data);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise arithmetic
//===----------------------------------------------------------------------===//

LogicalResult UnaryOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  Type et = tensorOf(adaptor.getData()).getElementType();
  if (!adaptor.getOpAttr())
    return fail(loc, "requires attribute 'op'");
  StringRef fn = adaptor.getOp();
  // unary_c1
  bool ok;
  if (et.isInteger(1))
    ok = fn == "not";
  else if (et.isUnsignedInteger())
    ok = isOneOf(fn, {"abs", "sign", "square"});
  else if (isa<IntegerType>(et))
    ok = isOneOf(fn, {"abs", "negative", "sign", "square"});
  else
    ok = isOneOf(fn, {"exp",  "log",      "sqrt",       "rsqrt", "square",
                      "abs",  "negative", "reciprocal", "relu",  "sigmoid",
                      "tanh", "softrelu", "softsign",   "erf",   "sign",
                      "ceil", "floor",    "round",      "sin",   "cos",
                      "tan",  "asin",     "acos",       "atan",  "sinh",
                      "cosh", "asinh",    "acosh",      "atanh", "log1p",
                      "expm1"});
  if (!ok)
    return fail(loc, "unary function '" + fn + "' is not defined for " +
                         (et.isInteger(1)          ? "booleans"
                          : et.isUnsignedInteger() ? "unsigned integers"
                          : isa<IntegerType>(et)   ? "integers"
                                                   : "floats"));
  results.push_back(adaptor.getData().getType());
  return success();
}

LogicalResult ClipOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  // clip_c1
  if (!adaptor.getAMinAttr() || !adaptor.getAMaxAttr())
    return fail(loc, "requires attributes 'a_min' and 'a_max'");
  if (adaptor.getAMin().convertToDouble() > adaptor.getAMax().convertToDouble())
    return fail(loc, "a_min must not exceed a_max");
  results.push_back(adaptor.getData().getType());
  return success();
}

static bool isArithFunction(StringRef op) {
  return isOneOf(
      op, {"add", "sub", "mul", "div", "maximum", "minimum", "power", "mod"});
}

LogicalResult BinaryOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  auto lhs = tensorOf(adaptor.getLhs()), rhs = tensorOf(adaptor.getRhs());
  // binary_c3
  if (lhs.getElementType() != rhs.getElementType())
    return fail(loc, "operand element types differ");
  // binary_c1
  bool logical = isOneOf(adaptor.getOp(), {"and", "or", "xor"});
  bool shift = isOneOf(adaptor.getOp(), {"shift_left", "shift_right"});
  Type et = lhs.getElementType();
  if (logical ? !et.isInteger(1)
      : shift ? !isa<IntegerType>(et) || et.isInteger(1)
              : !isArithFunction(adaptor.getOp()) || et.isInteger(1))
    return fail(loc, "binary function '" + adaptor.getOp() +
                         "' is not defined for these operands");
  // binary_c2
  auto out = broadcastShapes(loc, {lhs.getShape(), rhs.getShape()});
  if (failed(out))
    return failure();
  results.push_back(RankedTensorType::get(*out, lhs.getElementType()));
  return success();
}

LogicalResult CompareOp::inferReturnTypes(MLIRContext *ctx,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  // compare_c1
  if (!isOneOf(adaptor.getOp(), {"equal", "not_equal", "greater",
                                 "greater_equal", "less", "less_equal"}))
    return fail(loc, "unknown comparison '" + adaptor.getOp() + "'");
  auto lhs = tensorOf(adaptor.getLhs()), rhs = tensorOf(adaptor.getRhs());
  // compare_c3
  if (lhs.getElementType() != rhs.getElementType())
    return fail(loc, "operand element types differ");
  // compare_c2
  auto out = broadcastShapes(loc, {lhs.getShape(), rhs.getShape()});
  if (failed(out))
    return failure();
  results.push_back(RankedTensorType::get(*out, IntegerType::get(ctx, 1)));
  return success();
}

LogicalResult CastOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  // cast_c1
  if (!adaptor.getToAttr() ||
      !isa<FloatType, IntegerType, StringType>(adaptor.getTo()) ||
      adaptor.getTo().isSignedInteger())
    return fail(loc, "'to' must be a float, signless or unsigned integer, or "
                     "string element type");
  results.push_back(tensorOf(adaptor.getData()).clone(adaptor.getTo()));
  return success();
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  auto c = tensorOf(adaptor.getCond()), x = tensorOf(adaptor.getX()),
       y = tensorOf(adaptor.getY());
  // where_c2
  if (x.getElementType() != y.getElementType())
    return fail(loc, "x and y element types differ");
  // where_c1
  auto out = broadcastShapes(loc, {c.getShape(), x.getShape(), y.getShape()});
  if (failed(out))
    return failure();
  results.push_back(RankedTensorType::get(*out, x.getElementType()));
  return success();
}

LogicalResult FmaOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  auto x = tensorOf(adaptor.getX()), y = tensorOf(adaptor.getY()),
       z = tensorOf(adaptor.getZ());
  // fma_c2
  Type et = x.getElementType();
  if (!isa<FloatType>(et) || y.getElementType() != et ||
      z.getElementType() != et)
    return fail(loc, "x, y and z must have one float element type");
  // fma_c1
  auto out = broadcastShapes(loc, {x.getShape(), y.getShape(), z.getShape()});
  if (failed(out))
    return failure();
  results.push_back(RankedTensorType::get(*out, et));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData()), idx = tensorOf(adaptor.getIndices());
  // gather_c1
  auto axis = normalizeAxis(loc, (int64_t)adaptor.getAxis(), data.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> out(data.getShape().take_front(*axis));
  llvm::append_range(out, idx.getShape());
  llvm::append_range(out, data.getShape().drop_front(*axis + 1));
  results.push_back(RankedTensorType::get(out, data.getElementType()));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  ArrayRef<int64_t> pads = adaptor.getPads();
  int64_t rank = data.getRank();
  // pad_c1
  if ((int64_t)pads.size() != 2 * rank)
    return fail(loc, "pads has " + Twine(pads.size()) + " values, expected " +
                         Twine(2 * rank));
  // pad_c2
  StringRef mode = adaptor.getMode();
  if (failed(checkOneOf(loc, "mode", mode, {"constant", "reflect", "edge"})))
    return failure();
  // pad_c3
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = data.getDimSize(i), e = d + pads[i] + pads[rank + i];
    if (e < 0 || (mode != "constant" && d == 0 && e > 0) ||
        (mode == "reflect" && (pads[i] >= d || pads[rank + i] >= d) && e != d))
      return fail(loc, "pads " + shapeStr(pads) + " do not fit data " +
                           shapeStr(data.getShape()) + " in mode " + mode);
    out.push_back(e);
  }
  results.push_back(RankedTensorType::get(out, data.getElementType()));
  return success();
}

LogicalResult BroadcastToOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  ArrayRef<int64_t> shape = adaptor.getShape();
  // broadcast_to_c1
  if (!broadcastsTo(data.getShape(), shape))
    return fail(loc, "data shape " + shapeStr(data.getShape()) +
                         " does not broadcast to " + shapeStr(shape));
  results.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  auto a = tensorOf(adaptor.getLhs()), b = tensorOf(adaptor.getRhs());
  // matmul_c1
  if (a.getRank() < 1 || b.getRank() < 1 ||
      a.getElementType() != b.getElementType())
    return fail(loc, "operands must have rank >= 1 and equal element types");
  SmallVector<int64_t> as(a.getShape()), bs(b.getShape());
  if (as.size() == 1)
    as.insert(as.begin(), 1);
  if (bs.size() == 1)
    bs.push_back(1);
  // matmul_c2
  if (as.back() != bs[bs.size() - 2])
    return fail(loc, "contracted extents differ: " + shapeStr(a.getShape()) +
                         " and " + shapeStr(b.getShape()));
  // matmul_c3
  auto batch = broadcastShapes(
      loc, {ArrayRef(as).drop_back(2), ArrayRef(bs).drop_back(2)});
  if (failed(batch))
    return failure();
  SmallVector<int64_t> out(*batch);
  if (a.getRank() > 1)
    out.push_back(as[as.size() - 2]);
  if (b.getRank() > 1)
    out.push_back(bs.back());
  results.push_back(RankedTensorType::get(out, a.getElementType()));
  return success();
}

LogicalResult ArgReduceOp::inferReturnTypes(MLIRContext *ctx,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  // argreduce_c1
  if (failed(checkOneOf(loc, "op", adaptor.getOp(), {"max", "min"})))
    return failure();
  auto data = tensorOf(adaptor.getData());
  // argreduce_c2
  auto reduced = reducedAxes(loc, {(int64_t)adaptor.getAxis()}, data.getRank(),
                             /*exclude=*/false);
  if (failed(reduced))
    return failure();
  results.push_back(RankedTensorType::get(
      reducedShape(data.getShape(), *reduced, adaptor.getKeepdims()),
      IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  // layernorm_c1, layernorm_c2
  if (failed(checkChannelOperands(loc, data, adaptor.getAxis(),
                                  {{"gamma/beta", adaptor.getGamma()},
                                   {"gamma/beta", adaptor.getBeta()}},
                                  "the axis extent")))
    return failure();
  results.push_back(data);
  return success();
}

LogicalResult
DeconvolutionOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  ArrayRef<int64_t> kernel = adaptor.getKernel();
  size_t n = kernel.size();
  // deconv_c1
  if ((data.getRank() != 3 && data.getRank() != 4) ||
      (int64_t)n != data.getRank() - 2)
    return fail(loc, "data shape " + shapeStr(data.getShape()) +
                         " must be NCW or NCHW matching kernel " +
                         shapeStr(kernel));
  // deconv_c2
  auto window = checkWindow(loc, adaptor.getStride(), adaptor.getDilate(),
                            adaptor.getPad(), n);
  if (failed(window) ||
      failed(checkSpatialAttr(loc, "adj", adaptor.getAdj(), n, 0)) ||
      failed(checkSpatialAttr(loc, "kernel", kernel, n, 1)))
    return failure();
  auto adj = withDefault(adaptor.getAdj(), n, 0);
  // deconv_c3, deconv_c4, deconv_c5
  if (failed(checkFilters(loc, adaptor, /*transposed=*/true)))
    return failure();
  // deconv_c6
  SmallVector<int64_t> out = {data.getDimSize(0),
                              (int64_t)adaptor.getNumFilter()};
  for (size_t i = 0; i < n; ++i) {
    int64_t stride = window->stride[i];
    // deconv_c2 (adj < stride)
    if (adj[i] >= stride)
      return fail(loc, "adj must be smaller than stride");
    int64_t e = (data.getDimSize(2 + i) - 1) * stride - 2 * window->pad[i] +
                window->dilate[i] * (kernel[i] - 1) + adj[i] + 1;
    if (e < 1)
      return fail(loc, "output extent on spatial axis " + Twine(i) +
                           " would be " + Twine(e));
    out.push_back(e);
  }
  results.push_back(RankedTensorType::get(out, data.getElementType()));
  return success();
}

LogicalResult ScalarOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  // scalar_c1
  if (!adaptor.getOpAttr())
    return fail(loc, "requires attribute 'op'");
  if (!isArithFunction(adaptor.getOp()))
    return fail(loc, "unknown scalar function '" + adaptor.getOp() + "'");
  results.push_back(adaptor.getData().getType());
  return success();
}

LogicalResult BlockGradOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  results.push_back(adaptor.getData().getType());
  return success();
}

//===----------------------------------------------------------------------===//
// dot, reduce
//===----------------------------------------------------------------------===//

LogicalResult DotOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  auto a = tensorOf(adaptor.getLhs()), b = tensorOf(adaptor.getRhs());
  int64_t rank = adaptor.getBatch() ? 3 : 2;
  // dot_c1
  if (a.getRank() != rank || b.getRank() != rank)
    return fail(loc, Twine(adaptor.getBatch() ? "batch_dot" : "dot") +
                         " needs rank-" + Twine(rank) + " operands, got " +
                         shapeStr(a.getShape()) + " and " +
                         shapeStr(b.getShape()));
  int64_t o = rank - 2;
  int64_t m = a.getDimSize(o + (adaptor.getTransposeA() ? 1 : 0));
  int64_t ka = a.getDimSize(o + (adaptor.getTransposeA() ? 0 : 1));
  int64_t kb = b.getDimSize(o + (adaptor.getTransposeB() ? 1 : 0));
  int64_t n = b.getDimSize(o + (adaptor.getTransposeB() ? 0 : 1));
  // dot_c2
  if (ka != kb)
    return fail(loc, "contracted extents differ: " + shapeStr(a.getShape()) +
                         " and " + shapeStr(b.getShape()) +
                         " (after transpose_a/transpose_b)");
  SmallVector<int64_t> out;
  if (adaptor.getBatch()) {
    // dot_c3
    if (a.getDimSize(0) != b.getDimSize(0))
      return fail(loc, "batch extents differ: " + shapeStr(a.getShape()) +
                           " and " + shapeStr(b.getShape()));
    out.push_back(a.getDimSize(0));
  }
  out.append({m, n});
  results.push_back(RankedTensorType::get(out, a.getElementType()));
  return success();
}

SmallVector<int64_t> ReduceOp::getReducedAxes() {
  int64_t rank = cast<RankedTensorType>(getData().getType()).getRank();
  // Verified: the axes are valid.
  SmallVector<bool> reduced =
      *reducedAxes(std::nullopt, getAxis(), rank, getExclude());
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < rank; ++i)
    if (reduced[i])
      axes.push_back(i);
  return axes;
}

LogicalResult ReduceOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  // reduce_c1
  if (!isOneOf(adaptor.getOp(), {"sum", "mean", "max", "min", "prod", "l1",
                                 "l2", "sumsquare", "logsumexp"}))
    return fail(loc, "unknown reduction '" + adaptor.getOp() + "'");
  auto data = tensorOf(adaptor.getData());
  // reduce_c2
  auto reduced =
      reducedAxes(loc, adaptor.getAxis(), data.getRank(), adaptor.getExclude());
  if (failed(reduced))
    return failure();
  SmallVector<int64_t> out =
      reducedShape(data.getShape(), *reduced, adaptor.getKeepdims());
  // MXNet 1.x: reducing every axis without keepdims gives shape (1,).
  if (out.empty())
    out.push_back(1);
  results.push_back(RankedTensorType::get(out, data.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  if (data.getRank() < 1)
    return fail(loc, "data must have rank >= 1");
  int64_t rest = 1;
  for (int64_t d : data.getShape().drop_front())
    rest *= d;
  results.push_back(
      RankedTensorType::get({data.getDimSize(0), rest}, data.getElementType()));
  return success();
}

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  SmallVector<int64_t> in(data.getShape()), codes(adaptor.getShape());
  bool reverse = adaptor.getReverse();
  if (reverse) {
    std::reverse(in.begin(), in.end());
    std::reverse(codes.begin(), codes.end());
  }
  auto bad = [&](const Twine &why) {
    return fail(loc, "shape " + shapeStr(adaptor.getShape()) + " for data " +
                         shapeStr(data.getShape()) + ": " + why);
  };
  // reshape_c1: MXNet's codes, applied left to right.
  SmallVector<int64_t> out;
  int64_t inferred = -1;
  size_t src = 0;
  for (size_t i = 0; i < codes.size(); ++i) {
    int64_t c = codes[i];
    if (c > 0) {
      out.push_back(c);
      ++src;
    } else if (c == 0) {
      if (src >= in.size())
        return bad("code 0 has no input axis to copy");
      out.push_back(in[src++]);
    } else if (c == -1) {
      if (inferred >= 0)
        return bad("more than one -1");
      inferred = out.size();
      out.push_back(1);
      ++src;
    } else if (c == -2) {
      while (src < in.size())
        out.push_back(in[src++]);
    } else if (c == -3) {
      if (src + 1 >= in.size())
        return bad("code -3 needs two input axes");
      bool dynamic =
          ShapedType::isDynamic(in[src]) || ShapedType::isDynamic(in[src + 1]);
      out.push_back(dynamic ? ShapedType::kDynamic : in[src] * in[src + 1]);
      src += 2;
    } else if (c == -4) {
      if (i + 2 >= codes.size() || src >= in.size())
        return bad("code -4 must be followed by two values");
      int64_t d = in[src++], a = codes[i + 1], b = codes[i + 2];
      if (ShapedType::isDynamic(d) && (a == -1) != (b == -1) &&
          std::max(a, b) > 0) {
        out.append({a == -1 ? ShapedType::kDynamic : a,
                    b == -1 ? ShapedType::kDynamic : b});
        i += 2;
        continue;
      }
      if (a == -1 && b > 0 && d % b == 0)
        a = d / b;
      else if (b == -1 && a > 0 && d % a == 0)
        b = d / a;
      if (a < 1 || b < 1 || a * b != d)
        return bad("code -4 cannot split " + Twine(d) + " into " +
                   Twine(codes[i + 1]) + " x " + Twine(codes[i + 2]));
      out.append({a, b});
      i += 2;
    } else {
      return bad("unknown code " + Twine(c));
    }
  }
  if (!data.hasStaticShape()) {
    // Run-time extents: the -1 is too; the count is checked at run time.
    if (inferred >= 0)
      out[inferred] = ShapedType::kDynamic;
    if (reverse)
      std::reverse(out.begin(), out.end());
    results.push_back(RankedTensorType::get(out, data.getElementType()));
    return success();
  }
  int64_t total = data.getNumElements(), known = 1;
  for (auto [i, d] : llvm::enumerate(out))
    if ((int64_t)i != inferred)
      known *= d;
  if (inferred >= 0) {
    if (known == 0 || total % known)
      return bad("cannot infer the -1 extent");
    out[inferred] = total / known;
    known *= out[inferred];
  }
  // reshape_c2
  if (known != total)
    return bad("the element count changes (" + Twine(total) + " to " +
               Twine(known) + ")");
  if (reverse)
    std::reverse(out.begin(), out.end());
  results.push_back(RankedTensorType::get(out, data.getElementType()));
  return success();
}

SmallVector<int64_t> TransposeOp::getPermutation() {
  int64_t rank = cast<RankedTensorType>(getData().getType()).getRank();
  if (!getAxes().empty())
    return SmallVector<int64_t>(getAxes());
  SmallVector<int64_t> perm;
  for (int64_t i = rank - 1; i >= 0; --i)
    perm.push_back(i);
  return perm;
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  int64_t rank = data.getRank();
  ArrayRef<int64_t> axes = adaptor.getAxes();
  SmallVector<int64_t> out;
  if (axes.empty()) {
    out.assign(data.getShape().rbegin(), data.getShape().rend());
  } else {
    // transpose_c1
    SmallVector<bool> seen(rank, false);
    if ((int64_t)axes.size() != rank)
      return fail(loc, "axes " + shapeStr(axes) + " is not a permutation of " +
                           Twine(rank) + " axes");
    for (int64_t a : axes) {
      if (a < 0 || a >= rank || seen[a])
        return fail(loc, "axes " + shapeStr(axes) +
                             " is not a permutation of " + Twine(rank) +
                             " axes");
      seen[a] = true;
      out.push_back(data.getDimSize(a));
    }
  }
  results.push_back(RankedTensorType::get(out, data.getElementType()));
  return success();
}

LogicalResult ExpandDimsOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  int64_t rank = data.getRank(), axis = adaptor.getAxis();
  // expand_dims_c1
  if (axis < -rank - 1 || axis > rank)
    return fail(loc, "axis " + Twine(axis) + " is out of range for rank " +
                         Twine(rank));
  if (axis < 0)
    axis += rank + 1;
  SmallVector<int64_t> out(data.getShape());
  out.insert(out.begin() + axis, 1);
  results.push_back(RankedTensorType::get(out, data.getElementType()));
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  int64_t rank = data.getRank();
  SmallVector<bool> drop(rank, adaptor.getAxis().empty());
  if (adaptor.getAxis().empty()) {
    for (int64_t i = 0; i < rank; ++i)
      drop[i] = data.getDimSize(i) == 1;
  }
  // squeeze_c1
  for (int64_t a : adaptor.getAxis()) {
    auto axis = normalizeAxis(loc, a, rank);
    if (failed(axis))
      return failure();
    if (data.getDimSize(*axis) != 1)
      return fail(loc, "axis " + Twine(a) + " has extent " +
                           Twine(data.getDimSize(*axis)) + ", not 1");
    drop[*axis] = true;
  }
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop[i])
      out.push_back(data.getDimSize(i));
  results.push_back(RankedTensorType::get(out, data.getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  // concat_c1
  if (adaptor.getInputs().empty())
    return fail(loc, "needs at least one input");
  auto first = tensorOf(adaptor.getInputs()[0]);
  // concat_c2
  auto dim =
      normalizeAxis(loc, (int64_t)adaptor.getDim(), first.getRank(), "dim");
  if (failed(dim))
    return failure();
  SmallVector<int64_t> out(first.getShape());
  out[*dim] = 0;
  for (Value v : adaptor.getInputs()) {
    auto t = tensorOf(v);
    if (t.getRank() != first.getRank() ||
        t.getElementType() != first.getElementType())
      return fail(loc, "inputs must share rank and element type");
    // concat_c3
    for (int64_t i = 0; i < t.getRank(); ++i)
      if (i != *dim && t.getDimSize(i) != first.getDimSize(i))
        return fail(loc, "input shapes " + shapeStr(first.getShape()) +
                             " and " + shapeStr(t.getShape()) +
                             " differ off dim " + Twine(*dim));
    // A run-time extent on the axis makes the sum one too.
    out[*dim] = ShapedType::isDynamic(out[*dim]) || t.isDynamicDim(*dim)
                    ? ShapedType::kDynamic
                    : out[*dim] + t.getDimSize(*dim);
  }
  results.push_back(RankedTensorType::get(out, first.getElementType()));
  return success();
}

/// Python's slice.indices(): start, step and count for one axis.
static void normalizeSlice(int64_t dim, int64_t begin, int64_t end,
                           int64_t step, int64_t &start, int64_t &count) {
  auto clampIndex = [&](int64_t i) {
    if (i < 0)
      i += dim;
    if (step > 0)
      return std::clamp<int64_t>(i, 0, dim);
    return std::clamp<int64_t>(i, -1, dim - 1);
  };
  start = clampIndex(begin);
  int64_t stop = clampIndex(end);
  if (step > 0)
    count = stop > start ? (stop - start + step - 1) / step : 0;
  else
    count = start > stop ? (start - stop - step - 1) / -step : 0;
}

void SliceOp::getNormalized(SmallVectorImpl<int64_t> &starts,
                            SmallVectorImpl<int64_t> &steps,
                            SmallVectorImpl<int64_t> &counts) {
  auto shape = cast<RankedTensorType>(getData().getType()).getShape();
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t start = 0, count = shape[i], step = 1;
    // A dynamic axis is taken whole (lowersWithDynamicExtents).
    if (i < getBegin().size() && !ShapedType::isDynamic(shape[i])) {
      step = getStep().empty() ? 1 : getStep()[i];
      normalizeSlice(shape[i], getBegin()[i], getEnd()[i], step, start, count);
    }
    starts.push_back(start);
    steps.push_back(step);
    counts.push_back(count);
  }
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  ArrayRef<int64_t> begin = adaptor.getBegin(), end = adaptor.getEnd(),
                    step = adaptor.getStep();
  // slice_c1
  if (begin.size() != end.size() || (int64_t)begin.size() > data.getRank() ||
      (!step.empty() && step.size() != begin.size()))
    return fail(loc, "begin " + shapeStr(begin) + ", end " + shapeStr(end) +
                         " and step " + shapeStr(step) +
                         " must have equal lengths of at most the rank " +
                         Twine(data.getRank()));
  SmallVector<int64_t> out(data.getShape());
  for (size_t i = 0; i < begin.size(); ++i) {
    int64_t s = step.empty() ? 1 : step[i];
    // slice_c2
    if (s == 0)
      return fail(loc, "step must not be 0");
    if (data.isDynamicDim(i))
      continue; // the extent is known at run time only
    int64_t start, count;
    normalizeSlice(data.getDimSize(i), begin[i], end[i], s, start, count);
    out[i] = count;
  }
  results.push_back(RankedTensorType::get(out, data.getElementType()));
  return success();
}

LogicalResult SliceChannelOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &results) {
  auto data = tensorOf(adaptor.getData());
  int64_t n = adaptor.getNumOutputs();
  // slicechannel_c1
  auto axis = normalizeAxis(loc, (int64_t)adaptor.getAxis(), data.getRank());
  if (failed(axis))
    return failure();
  int64_t extent = data.getDimSize(*axis);
  if (n < 1 || extent % n)
    return fail(loc, "num_outputs " + Twine(n) +
                         " does not divide the extent " + Twine(extent) +
                         " of axis " + Twine(*axis));
  SmallVector<int64_t> part(data.getShape());
  part[*axis] = extent / n;
  // slicechannel_c2
  if (adaptor.getSqueezeAxis()) {
    if (part[*axis] != 1)
      return fail(loc, "squeeze_axis needs parts of extent 1, got " +
                           Twine(part[*axis]));
    part.erase(part.begin() + *axis);
  }
  // slicechannel_c3 (the result count follows from the inferred list)
  results.append(n, RankedTensorType::get(part, data.getElementType()));
  return success();
}
