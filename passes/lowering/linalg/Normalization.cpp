// SPDX-License-Identifier: Apache-2.0
// Normalizations -> linalg: inference BatchNorm folded to a per-channel
// scale and shift (decided at compile time, one multiply-add per element),
// LayerNorm as two reductions (mean, variance) and an elementwise epilogue,
// and LRN as a windowed sum over channels.
#include "dialects/mx/MxDialect.h"
#include "passes/lowering/LinalgBuilders.h"
#include "passes/lowering/ScalarBuilders.h"
#include "passes/lowering/linalg/Lowering.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mxc::mx;

namespace mxc::lowering {
namespace {

/// What BatchNorm and LayerNorm read of their op: the data's type, the axis
/// of the channels (BatchNorm) or of the reduction (LayerNorm), and epsilon.
struct AxisNormalization {
  RankedTensorType type;
  Type et;
  unsigned rank;
  int64_t axis;
  double eps;

  AxisNormalization(RankedTensorType type, int64_t axis, APFloat eps)
      : type(type), et(type.getElementType()), rank(type.getRank()),
        axis(normalizeAxis(axis, rank)), eps(eps.convertToDouble()) {}
  template <typename OpTy>
  explicit AxisNormalization(OpTy op)
      : AxisNormalization(cast<RankedTensorType>(op.getType()), op.getAxis(),
                          op.getEps()) {}

  /// The reduction over every axis but the channels'.
  ReductionSpace perChannel(MLIRContext *ctx) const {
    SmallVector<int64_t> others;
    for (unsigned i = 0; i < rank; ++i)
      if (int64_t(i) != axis)
        others.push_back(i);
    return ReductionSpace(ctx, type.getShape(), others);
  }

  /// 1 / sqrt(variance + eps).
  Value inverseStd(OpBuilder &b, Location l, Value variance) const {
    Value v = arith::AddFOp::create(b, l, variance, constFloat(b, l, et, eps));
    return math::RsqrtOp::create(b, l, v);
  }

  /// `fn` of the data `x` and `operands` read through `maps` (after the
  /// data's identity map), over the data's shape.
  Value map(OpBuilder &b, Location loc, Value x, ValueRange operands,
            ArrayRef<AffineMap> maps, BodyFn fn) const {
    SmallVector<Value> inputs = {x};
    llvm::append_range(inputs, operands);
    SmallVector<AffineMap> all = {b.getMultiDimIdentityMap(rank)};
    llvm::append_range(all, maps);
    return generic(b, loc, type.getShape(), et, inputs, all, parallel(rank),
                   fn);
  }
};

/// out = x * scale + shift with the per-channel scale = gamma / sqrt(var +
/// eps) (1 / sqrt(var + eps) with fix_gamma) and shift = beta - mean * scale.
FailureOr<Value> lowerBatchNorm(BatchNormOp op, BatchNormOp::Adaptor a,
                                OpBuilder &b) {
  Location loc = op.getLoc();
  AxisNormalization norm(op);
  int64_t c = norm.type.getDimSize(norm.axis);
  bool fixGamma = op.getFixGamma();
  auto id1 = b.getMultiDimIdentityMap(1);
  Value scale = generic(
      b, loc, {c}, norm.et, {a.getGamma(), a.getMovingVar()}, {id1, id1},
      parallel(1), [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value r = norm.inverseStd(nb, l, args[1]);
        return fixGamma ? r
                        : arith::MulFOp::create(nb, l, args[0], r).getResult();
      });
  Value shift =
      generic(b, loc, {c}, norm.et, {a.getBeta(), a.getMovingMean(), scale},
              {id1, id1, id1}, parallel(1),
              [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                Value ms = arith::MulFOp::create(nb, l, args[1], args[2]);
                return arith::SubFOp::create(nb, l, args[0], ms);
              });
  AffineMap cm = channelMap(b.getContext(), norm.rank, norm.axis);
  return norm.map(b, loc, a.getData(), {scale, shift}, {cm, cm},
                  [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                    Value m = arith::MulFOp::create(nb, l, args[0], args[1]);
                    return arith::AddFOp::create(nb, l, m, args[2]);
                  });
}

/// out = (x - mean) / sqrt(var + eps) * gamma + beta, with the mean and the
/// population variance over `axis`.
FailureOr<Value> lowerLayerNorm(LayerNormOp op, LayerNormOp::Adaptor a,
                                OpBuilder &b) {
  Location loc = op.getLoc();
  AxisNormalization norm(op);
  ReductionSpace space(b.getContext(), norm.type.getShape(), {norm.axis});
  auto redType = RankedTensorType::get(space.shape, norm.et);
  Value x = a.getData();
  Value zero = constFloat(b, loc, norm.et, 0.0);
  Value sum = reduction(
      b, loc, x, space, zero,
      [](OpBuilder &nb, Location l, Value e, Value acc, ValueRange) -> Value {
        return arith::AddFOp::create(nb, l, e, acc);
      });
  Value n = constFloat(b, loc, norm.et, (double)space.count);
  Value mean = elementwise(b, loc, redType, {sum},
                           [&](OpBuilder &nb, Location l, ValueRange args) {
                             return arith::DivFOp::create(nb, l, args[0], n);
                           });
  Value sq = reduction(b, loc, x, space, zero,
                       [](OpBuilder &nb, Location l, Value e, Value acc,
                          ValueRange extras) -> Value {
                         Value d = arith::SubFOp::create(nb, l, e, extras[0]);
                         return arith::AddFOp::create(
                             nb, l, acc, arith::MulFOp::create(nb, l, d, d));
                       },
                       {mean});
  Value rstd = elementwise(
      b, loc, redType, {sq}, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value var = arith::DivFOp::create(nb, l, args[0], n);
        return norm.inverseStd(nb, l, var);
      });
  AffineMap cm = channelMap(b.getContext(), norm.rank, norm.axis);
  return norm.map(b, loc, x, {mean, rstd, a.getGamma(), a.getBeta()},
                  {space.outMap, space.outMap, cm, cm},
                  [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                    Value d = arith::SubFOp::create(nb, l, args[0], args[1]);
                    Value s = arith::MulFOp::create(
                        nb, l, arith::MulFOp::create(nb, l, d, args[2]),
                        args[3]);
                    return arith::AddFOp::create(nb, l, s, args[4]);
                  });
}

/// out = x / (knorm + alpha / nsize * sum of x^2 over the nsize channels
/// around)^beta: the squares padded along the channels, then summed over a
/// window (loops n, c, h, w parallel, k the window's reduction).
FailureOr<Value> lowerLRN(LRNOp op, LRNOp::Adaptor a, OpBuilder &b) {
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(op.getType());
  Type et = type.getElementType();
  int64_t nsize = op.getNsize(), half = nsize / 2;
  Value sq = elementwise(b, loc, type, {a.getData()},
                         [](OpBuilder &nb, Location l, ValueRange args) {
                           return mulValues(nb, l, args[0], args[0]);
                         });
  Value padded = padAxes(b, loc, sq, 1, {half}, {half}, 0.0);
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  Value window = emptyTensor(b, loc, {nsize}, et);
  Value sum = generic(
      b, loc, type.getShape(), et, {padded, window},
      {loopMap(ctx, 5, {d(0), d(1) + d(4), d(2), d(3)}), loopMap(ctx, 5, d(4))},
      iterators(4, 1),
      [](OpBuilder &nb, Location l, ValueRange args) {
        return addValues(nb, l, args[0], args[2]);
      },
      filledTensor(b, loc, type.getShape(), et, 0.0), axesMap(ctx, 5, 0, 4));
  double salpha = op.getAlpha().convertToDouble() / nsize;
  double knorm = op.getKnorm().convertToDouble(),
         beta = op.getBeta().convertToDouble();
  return elementwise(
      b, loc, type, {a.getData(), sum},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value s = arith::MulFOp::create(nb, l, args[1],
                                        constFloat(nb, l, et, salpha));
        s = arith::AddFOp::create(nb, l, s, constFloat(nb, l, et, knorm));
        Value p = math::PowFOp::create(nb, l, s, constFloat(nb, l, et, beta));
        return arith::DivFOp::create(nb, l, args[0], p);
      });
}

} // namespace

/// Per-channel values (1-D, `c` long) from per-channel `inputs`.
Value perChannelMap(OpBuilder &b, Location loc, int64_t c, Type et,
                    ValueRange inputs, BodyFn fn) {
  SmallVector<AffineMap> maps(inputs.size(), b.getMultiDimIdentityMap(1));
  return generic(b, loc, {c}, et, inputs, maps, parallel(1), fn);
}

/// Per-channel sums over every axis but `norm.axis` of `inputs` (tensors of
/// the data's shape): `count` sums, `step` giving the new ones from the
/// inputs' elements, `extras` (per-channel tensors) read at the element's
/// channel, and the current sums. Where the axes after the channel's hold
/// a multiple of kLanes elements, each sum is kept in kLanes partial sums
/// (independent chains in the innermost loop instead of one serial chain
/// of dependent adds, which LLVM may not reorder), added up at the end;
/// else one accumulator as `reduction` does. ResNet-20's training step:
/// 176 -> 164 ms with 16 lanes; 64 lanes ran no faster (162 ms) and made
/// LLVM's code 6x slower to compile (166 s against 28 s: small loops
/// unrolled whole).
constexpr int64_t kLanes = 16;
using SumStep = llvm::function_ref<SmallVector<Value>(
    OpBuilder &, Location, ValueRange elements, ValueRange extras,
    ValueRange sums)>;
SmallVector<Value> channelSums(OpBuilder &b, Location loc,
                               const AxisNormalization &norm, ValueRange inputs,
                               ValueRange extras, unsigned count,
                               SumStep step) {
  MLIRContext *ctx = b.getContext();
  ArrayRef<int64_t> shape = norm.type.getShape();
  int64_t axis = norm.axis, c = shape[axis], inner = 1;
  for (int64_t d = axis + 1; d < int64_t(norm.rank); ++d)
    inner *= shape[d];
  // Without lanes, one sum per channel and position of the axes before it
  // (per image of NCHW), then those added up: a float32 running sum loses
  // the low bits of every term once it is large, and Inception-BN's 7x7
  // BatchNorms summed 3,136 elements a channel in one chain (a beta 2.0e-6
  // from PyTorch's float64 step after one SGD step; PyTorch's float32
  // step: 1.8e-7). Sums in f64 fixed that too, but took its step 4,168 ->
  // 4,264 ms (one thread); these are as fast as one chain.
  bool lanes = inner % kLanes == 0;
  Type et = norm.et;
  Value zero = constFloat(b, loc, et, 0.0);
  auto body = [&](OpBuilder &nb, Location l, ValueRange args) {
    unsigned ni = inputs.size(), ne = extras.size();
    SmallVector<Value> next = step(nb, l, args.take_front(ni),
                                   args.slice(ni, ne), args.take_back(count));
    linalg::YieldOp::create(nb, l, next);
  };
  SmallVector<Value> ins(inputs), allInputs;
  SmallVector<AffineMap> maps;
  SmallVector<utils::IteratorType> iters;
  SmallVector<int64_t> accShape;
  AffineMap accMap;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  int64_t before = 1;
  for (int64_t i = 0; i < axis; ++i)
    before *= shape[i];
  if (lanes) {
    // Loops: c (parallel), the axes before it, blocks of lanes (reductions),
    // lanes (parallel); the data as (before..., c, inner / kLanes, kLanes).
    SmallVector<int64_t> split(shape.take_front(axis));
    split.append({c, inner / kLanes, kLanes});
    for (Value &v : ins)
      v = reshapeTo(b, loc, v, split);
    unsigned nl = axis + 3;
    SmallVector<AffineExpr> in;
    for (int64_t i = 0; i < axis; ++i)
      in.push_back(d(1 + i));
    in.append({d(0), d(nl - 2), d(nl - 1)});
    maps.append(ins.size(), AffineMap::get(nl, 0, in, ctx));
    maps.append(extras.size(), AffineMap::get(nl, 0, {d(0)}, ctx));
    accMap = AffineMap::get(nl, 0, {d(0), d(nl - 1)}, ctx);
    iters = {utils::IteratorType::parallel};
    iters.append(axis + 1, utils::IteratorType::reduction);
    iters.push_back(utils::IteratorType::parallel);
    accShape = {c, kLanes};
  } else {
    // Loops: the axes before c as one (parallel), c (parallel), the axes
    // after it as one (reduction); the data as (before, c, inner).
    for (Value &v : ins)
      v = reshapeTo(b, loc, v, {before, c, inner});
    maps.append(ins.size(), AffineMap::get(3, 0, {d(0), d(1), d(2)}, ctx));
    maps.append(extras.size(), AffineMap::get(3, 0, {d(1)}, ctx));
    accMap = AffineMap::get(3, 0, {d(0), d(1)}, ctx);
    iters = {utils::IteratorType::parallel, utils::IteratorType::parallel,
             utils::IteratorType::reduction};
    accShape = {before, c};
  }
  allInputs = ins;
  llvm::append_range(allInputs, extras);
  Value init = filledTensor(b, loc, accShape, zero);
  SmallVector<Value> inits(count, init);
  maps.append(count, accMap);
  auto sums = linalg::GenericOp::create(
      b, loc, SmallVector<Type>(count, init.getType()), allInputs, inits, maps,
      iters, body);
  SmallVector<Value> results(sums.getResults());
  // The partial sums added up per channel: (c, lanes) or (before, c).
  AffineMap partials = lanes ? b.getMultiDimIdentityMap(2)
                             : AffineMap::get(2, 0, {d(1), d(0)}, ctx);
  for (Value &r : results)
    r = generic(
        b, loc, {c}, et, {r}, {partials}, iterators(1, 1),
        [](OpBuilder &nb, Location l, ValueRange args) -> Value {
          return arith::AddFOp::create(nb, l, args[0], args[1]);
        },
        filledTensor(b, loc, {c}, zero), AffineMap::get(2, 0, {d(0)}, ctx));
  return results;
}

/// BatchNormTrain: the mean and the population variance in one pass over
/// the data (the reductions run the channels outermost), then the data
/// times a per-channel scale plus shift. The pass sums d = x - k and d^2
/// about each channel's first element k, a sample of the channel, so that
/// var = E[d^2] - E[d]^2 subtracts numbers of the variance's size (not
/// E[x^2] and mean^2, which cancel when the mean is large against the
/// spread); mean = k + E[d]. One read of the activations fewer than a mean
/// pass and a variance pass about it: ResNet-20's training step 182.6 ->
/// 180.3 ms on one thread (Intel Xeon, medians of 3 alternating runs), two
/// threads within noise; its one-step agreement with PyTorch's float64
/// step (bench/train_bench.py) 0.88 -> 0.64 of the allowed error.
FailureOr<SmallVector<Value>> lowerBatchNormTrain(BatchNormTrainOp op,
                                                  BatchNormTrainOp::Adaptor a,
                                                  OpBuilder &b) {
  Location loc = op.getLoc();
  Value x = a.getData();
  AxisNormalization norm(tensorType(x), op.getAxis(), op.getEps());
  ReductionSpace space = norm.perChannel(b.getContext());
  int64_t c = space.shape[0];
  Type et = norm.et;
  Value count = constFloat(b, loc, et, double(space.count));
  // k: x at index 0 of every axis but the channels'.
  ArrayRef<int64_t> shape = norm.type.getShape();
  SmallVector<OpFoldResult> offsets(norm.rank, b.getIndexAttr(0)),
      sizes(norm.rank, b.getIndexAttr(1)),
      strides(norm.rank, b.getIndexAttr(1));
  sizes[norm.axis] = b.getIndexAttr(shape[norm.axis]);
  Value first = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({c}, et), x, offsets, sizes, strides);
  SmallVector<Value> sums = channelSums(
      b, loc, norm, {x}, {first}, 2,
      [](OpBuilder &nb, Location l, ValueRange e, ValueRange k,
         ValueRange acc) -> SmallVector<Value> {
        Value d = arith::SubFOp::create(nb, l, e[0], k[0]);
        return {arith::AddFOp::create(nb, l, acc[0], d),
                arith::AddFOp::create(nb, l, acc[1],
                                      arith::MulFOp::create(nb, l, d, d))};
      });
  // mean = k + s1 / n; var = max(s2 / n - (s1 / n)^2, 0).
  Value mean = perChannelMap(
      b, loc, c, et, {first, sums[0]},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        return arith::AddFOp::create(
            nb, l, args[0], arith::DivFOp::create(nb, l, args[1], count));
      });
  Value var = perChannelMap(
      b, loc, c, et, {sums[0], sums[1]},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value m = arith::DivFOp::create(nb, l, args[0], count);
        Value v = arith::SubFOp::create(
            nb, l, arith::DivFOp::create(nb, l, args[1], count),
            arith::MulFOp::create(nb, l, m, m));
        return arith::MaximumFOp::create(nb, l, v, constFloat(nb, l, et, 0.0));
      });
  bool fixGamma = op.getFixGamma();
  Value scale = perChannelMap(
      b, loc, c, et, {var, a.getGamma()},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value r = norm.inverseStd(nb, l, args[0]);
        return fixGamma ? r
                        : arith::MulFOp::create(nb, l, r, args[1]).getResult();
      });
  Value shift = perChannelMap(
      b, loc, c, et, {a.getBeta(), mean, scale},
      [](OpBuilder &nb, Location l, ValueRange args) -> Value {
        return arith::SubFOp::create(
            nb, l, args[0], arith::MulFOp::create(nb, l, args[1], args[2]));
      });
  AffineMap cm = channelMap(b.getContext(), norm.rank, norm.axis);
  Value y = norm.map(b, loc, x, {scale, shift}, {cm, cm},
                     [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                       Value m = arith::MulFOp::create(nb, l, args[0], args[1]);
                       return arith::AddFOp::create(nb, l, m, args[2]);
                     });
  return SmallVector<Value>{y, mean, var};
}

/// BatchNormTrainGrad: sum(dy) and sum(dy * (x - mean)) in one pass (one
/// generic, two results), then dx = a * dy - b - (x - mean) * c with
/// per-channel a = gamma / std, b = a * sum(dy) / M and c = a / var' *
/// sum(dy * (x - mean)) / M (var' = var + eps). With relu_out, dy in both
/// is out_grad where x * a + (beta - mean * a) > 0 (BatchNormTrain's
/// output, computed as its lowering computes it), else 0.
FailureOr<SmallVector<Value>>
lowerBatchNormTrainGrad(BatchNormTrainGradOp op,
                        BatchNormTrainGradOp::Adaptor a, OpBuilder &b) {
  Location loc = op.getLoc();
  Value x = a.getData(), dy = a.getOutGrad();
  AxisNormalization norm(tensorType(x), op.getAxis(), op.getEps());
  ReductionSpace space = norm.perChannel(b.getContext());
  int64_t c = space.shape[0];
  Type et = norm.et;
  bool fixGamma = op.getFixGamma(), relu = op.getReluOut();
  double inverseCount = 1.0 / double(space.count);
  auto mul = [](OpBuilder &nb, Location l, Value u, Value v) -> Value {
    return arith::MulFOp::create(nb, l, u, v);
  };
  Value invStd =
      perChannelMap(b, loc, c, et, {a.getVar()},
                    [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                      return norm.inverseStd(nb, l, args[0]);
                    });
  Value ka =
      perChannelMap(b, loc, c, et, {invStd, a.getGamma()},
                    [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                      return fixGamma ? args[0] : mul(nb, l, args[0], args[1]);
                    });
  // The forward's shift and the gradient its ReLU lets through: dy at an
  // element whose x * scale + shift is positive. `k` holds mean, scale and
  // shift (relu) or the mean alone, per channel.
  SmallVector<Value> perChannel = {a.getMean()};
  if (relu)
    perChannel.append(
        {ka, perChannelMap(
                 b, loc, c, et, {a.getBeta(), a.getMean(), ka},
                 [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                   return arith::SubFOp::create(nb, l, args[0],
                                                mul(nb, l, args[1], args[2]));
                 })});
  auto gradient = [relu, mul](OpBuilder &nb, Location l, Value dy, Value x,
                              ValueRange k) -> Value {
    if (!relu)
      return dy;
    Value y = arith::AddFOp::create(nb, l, mul(nb, l, x, k[1]), k[2]);
    Value zero = constFloat(nb, l, dy.getType(), 0.0);
    Value on = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, y, zero);
    return arith::SelectOp::create(nb, l, on, dy, zero);
  };
  SmallVector<Value> sums = channelSums(
      b, loc, norm, {dy, x}, perChannel, 2,
      [&](OpBuilder &nb, Location l, ValueRange e, ValueRange k,
          ValueRange acc) -> SmallVector<Value> {
        Value g = gradient(nb, l, e[0], e[1], k);
        Value d = arith::SubFOp::create(nb, l, e[1], k[0]);
        return {arith::AddFOp::create(nb, l, acc[0], g),
                arith::AddFOp::create(nb, l, acc[1], mul(nb, l, g, d))};
      });
  Value sdy = sums[0], sdyx = sums[1];
  Value kb =
      perChannelMap(b, loc, c, et, {ka, sdy},
                    [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                      return mul(nb, l, mul(nb, l, args[0], args[1]),
                                 constFloat(nb, l, et, inverseCount));
                    });
  Value kc =
      perChannelMap(b, loc, c, et, {ka, invStd, sdyx},
                    [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                      Value v =
                          mul(nb, l, mul(nb, l, args[0], args[1]), args[1]);
                      return mul(nb, l, mul(nb, l, v, args[2]),
                                 constFloat(nb, l, et, inverseCount));
                    });
  AffineMap cm = channelMap(b.getContext(), norm.rank, norm.axis);
  // dy, x, kb, kc, then mean, ka and (relu) shift: args[4..] is `k`.
  SmallVector<Value> operands = {x, kb, kc, a.getMean(), ka};
  if (relu)
    operands.push_back(perChannel[2]);
  SmallVector<AffineMap> maps(operands.size(), cm);
  maps[0] = b.getMultiDimIdentityMap(norm.rank);
  Value dx =
      norm.map(b, loc, dy, operands, maps,
               [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                 ValueRange k = args.slice(4, operands.size() - 3);
                 Value g = gradient(nb, l, args[0], args[1], k);
                 Value d = arith::SubFOp::create(nb, l, args[1], k[0]);
                 Value t =
                     arith::SubFOp::create(nb, l, mul(nb, l, k[1], g), args[2]);
                 return arith::SubFOp::create(nb, l, t, mul(nb, l, d, args[3]));
               });
  Value dgamma =
      perChannelMap(b, loc, c, et, {sdyx, invStd},
                    [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                      return fixGamma ? constFloat(nb, l, et, 0.0)
                                      : mul(nb, l, args[0], args[1]);
                    });
  return SmallVector<Value>{dx, dgamma, sdy};
}

void populateNormalizationPatterns(RewritePatternSet &patterns) {
  addLowerings(patterns, lowerBatchNorm, lowerLayerNorm, lowerLRN,
               lowerBatchNormTrain, lowerBatchNormTrainGrad);
}

} // namespace mxc::lowering
