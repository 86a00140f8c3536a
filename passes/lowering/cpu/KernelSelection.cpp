// SPDX-License-Identifier: Apache-2.0
// The CPU's choice of libmxrt kernels (mxc-select-cpu-kernels): float32
// contractions and some poolings become mx.kernel.* ops on tensors (calls
// into the runtime's packed GEMM and pooling, see mxrt/kernels.h) instead of
// the loop nests of the target-independent lowering, which remains for
// other element types, for Convolution beyond 2-D and with --no-kernels.
// Only the CPU pipeline runs this (CUDA's choice: gpu/KernelSelection.cpp).
#include "passes/lowering/KernelSelection.h"
#include "dialects/mx/InferUtil.h"
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"
#include "passes/lowering/LinalgBuilders.h"
#include "passes/lowering/ScalarBuilders.h"
#include "passes/lowering/WindowLoops.h"
#include "passes/lowering/linalg/Lowering.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mxc {
#define GEN_PASS_DEF_SELECTCPUKERNELSPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc::lowering;
using namespace mxc::mx;

namespace {

FailureOr<Value> selectFullyConnected(FullyConnectedOp op,
                                      FullyConnectedOp::Adaptor a,
                                      OpBuilder &b) {
  return fullyConnectedKernel(op, a, b, /*biasInInit=*/false);
}

/// A 3x3 convolution dilated by d with padding d (a segmentation backbone's
/// output-stride-8 layers) as d x d undilated convolutions of the input's
/// phases, one batch: x[:, :, a::d, b::d] convolved with padding 1 gives
/// the output's phase (a, b). The runtime takes the undilated layers to
/// Winograd, which dilated windows cannot use: fcn_resnet50's 256-channel
/// layers at 28x28, dilation 2 (4 phases of 14x14), 6.1 -> 4.2 ms each; its
/// 512-channel ones at dilation 4 (16 phases of 7x7, tiles mostly padding)
/// measured no faster, hence phases of at least 12x12.
Value phasedConvolution(ConvolutionOp op, ConvolutionOp::Adaptor a,
                        OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  auto xt = cast<RankedTensorType>(a.getData().getType());
  auto wt = cast<RankedTensorType>(a.getWeight().getType());
  SmallVector<int64_t> dil = op.getDilations(), pad = op.getPadding(),
                       stride = op.getStrides();
  bool unitStride = llvm::all_of(stride, [](int64_t s) { return s == 1; });
  if (dil.size() != 2 || dil[0] != dil[1] || dil[0] < 2 || !unitStride ||
      op.getNumGroup() != 1 || !xt.hasStaticShape() || wt.getRank() != 4 ||
      wt.getDimSize(2) != 3 || wt.getDimSize(3) != 3 || pad.size() != 2 ||
      pad[0] != dil[0] || pad[1] != dil[0])
    return Value();
  int64_t d = dil[0], n = xt.getDimSize(0), c = xt.getDimSize(1),
          h = xt.getDimSize(2), w = xt.getDimSize(3), f = type.getDimSize(1);
  constexpr int64_t kLeastPhase = 12;
  if (h % d || w % d || h / d < kLeastPhase || w / d < kLeastPhase)
    return Value();
  Location loc = op.getLoc();
  int64_t ph = h / d, pw = w / d;
  Type f32 = b.getF32Type();
  auto tensorOf = [&](ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, f32);
  };
  // (n, c, h, w) -> (n, c, ph, d, pw, d) -> (d, d, n, c, ph, pw) -> phases.
  Value x6 = tensor::ExpandShapeOp::create(
      b, loc, tensorOf({n, c, ph, d, pw, d}), a.getData(),
      ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}, {4, 5}});
  Value xT = linalg::TransposeOp::create(
                 b, loc, x6, emptyTensor(b, loc, {d, d, n, c, ph, pw}, f32),
                 ArrayRef<int64_t>{3, 5, 0, 1, 2, 4})
                 .getResult()[0];
  Value phases = tensor::CollapseShapeOp::create(
      b, loc, xT, ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}, {4}, {5}});
  SmallVector<int64_t> outShape = {d * d * n, f, ph, pw};
  Value y = Conv2DKernelOp::create(
                b, loc, tensorOf(outShape), phases, a.getWeight(),
                Conv2DKernelOp::epilogueOf(a.getBias(), Value()),
                emptyTensor(b, loc, outShape, f32), ArrayRef<int64_t>{1, 1},
                ArrayRef<int64_t>{1, 1}, ArrayRef<int64_t>{1, 1},
                /*groups=*/1, /*accumulate=*/false, /*relu=*/false)
                .getResult();
  // Back: (d, d, n, f, ph, pw) -> (n, f, ph, d, pw, d) -> (n, f, h, w).
  Value y6 = tensor::ExpandShapeOp::create(
      b, loc, tensorOf({d, d, n, f, ph, pw}), y,
      ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}, {4}, {5}});
  Value yT = linalg::TransposeOp::create(
                 b, loc, y6, emptyTensor(b, loc, {n, f, ph, d, pw, d}, f32),
                 ArrayRef<int64_t>{2, 3, 4, 0, 5, 1})
                 .getResult()[0];
  return tensor::CollapseShapeOp::create(
      b, loc, yT, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}, {4, 5}});
}

FailureOr<Value> selectConvolution(ConvolutionOp op, ConvolutionOp::Adaptor a,
                                   OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  if (!isF32(op.getResult()) || type.getRank() != 4)
    return failure();
  if (Value phased = phasedConvolution(op, a, b))
    return phased;
  return Conv2DKernelOp::create(
             b, op.getLoc(), type, a.getData(), a.getWeight(),
             Conv2DKernelOp::epilogueOf(a.getBias(), Value()),
             emptyTensor(b, op.getLoc(), type.getShape(), b.getF32Type()),
             op.getStrides(), op.getPadding(), op.getDilations(),
             op.getNumGroup(), /*accumulate=*/false, /*relu=*/false)
      .getResult();
}

/// 2-D float32 pooling (undilated) whose windows reach past the input (low
/// padding, or the "full" convention's last window): libmxrt's pooling
/// kernel reads the windows' valid taps in place where the loops pad a copy
/// of the input first (ResNet-18's 3x3/2 max pooling: the model 0.96 of its
/// time with the kernel, one and two threads). Windows inside the input
/// keep the loops, whose static trip counts LLVM vectorizes exactly
/// (LeNet's 2x2/2 pooling of 24- and 8-wide rows: the kernel's scalar row
/// remainders made the model 1.2x slower).
FailureOr<Value> selectPooling(PoolingOp op, PoolingOp::Adaptor a,
                               OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  StringRef poolType = op.getPoolType();
  SmallVector<int64_t> kernel = op.getEffectiveKernel();
  // 8-bit max pooling (a quantized model's, its DequantizeLinear and
  // QuantizeLinear folded away): libmxrt's, which the channels-last
  // region takes in (the generated loops, NCHW, made ResNet-18's int8
  // library 14.7 -> 17.0 ms slower than pooling in float).
  if (type.getElementType().isInteger(8) && type.getRank() == 4 &&
      type.hasStaticShape() && kernel.size() == 2 && poolType == "max" &&
      llvm::all_of(op.getDilations(), [](int64_t d) { return d == 1; }))
    return QMaxPool2DKernelOp::create(
               b, op.getLoc(), type, a.getData(),
               emptyTensor(b, op.getLoc(), type.getShape(),
                           type.getElementType()),
               kernel, op.getStrides(), op.getPadding(),
               /*signed_x=*/!type.getElementType().isUnsignedInteger(),
               /*nhwc=*/false)
        .getResult();
  if (!isF32(op.getResult()) || type.getRank() != 4 || kernel.size() != 2 ||
      llvm::any_of(op.getDilations(), [](int64_t d) { return d != 1; }) ||
      (poolType != "max" && poolType != "avg" && poolType != "sum"))
    return failure();
  WindowGeometry geo(kernel, op.getStrides(), op.getDilations(),
                     op.getPadding());
  SmallVector<int64_t> high =
      geo.highPadding(tensorType(a.getData()).getShape().drop_front(2),
                      type.getShape().drop_front(2));
  auto isZero = [](int64_t p) { return p == 0; };
  if (llvm::all_of(geo.pad, isZero) && llvm::all_of(high, isZero))
    return failure();
  return Pool2DKernelOp::create(
             b, op.getLoc(), type, a.getData(),
             emptyTensor(b, op.getLoc(), type.getShape(), b.getF32Type()),
             kernel, op.getStrides(), op.getPadding(), poolType,
             /*count_include_pad=*/poolType == "avg" && op.getCountIncludePad(),
             /*accumulate=*/false,
             /*relu=*/false)
      .getResult();
}

/// 2-D float32 max, avg or sum pooling's gradient (undilated, not global)
/// through mxrt_kernel_spool2d_backward: one pass over the windows where
/// the loops made one strided pass over the whole input per tap (LeNet's
/// 2x2 poolings: a third of its training step).
FailureOr<Value> selectPoolingGrad(PoolingGradOp op, PoolingGradOp::Adaptor a,
                                   OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  StringRef poolType = op.getPoolType();
  WindowGeometry geo = windowOf(op);
  if (!isF32(op.getResult()) || type.getRank() != 4 || op.getGlobalPool() ||
      geo.numSpatial() != 2 ||
      llvm::any_of(geo.dilate, [](int64_t d) { return d != 1; }) ||
      (poolType != "max" && poolType != "avg" && poolType != "sum"))
    return failure();
  return Pool2DGradKernelOp::create(
             b, op.getLoc(), type, a.getData(), a.getOutput(), a.getOutGrad(),
             emptyTensor(b, op.getLoc(), type.getShape(), b.getF32Type()),
             geo.kernel, geo.stride, geo.pad, poolType,
             /*count_include_pad=*/poolType == "avg" && op.getCountIncludePad(),
             /*accumulate=*/false)
      .getResult();
}

/// A running sum of static shape as sequential loops on the CPU: one pass
/// over the axis per line, where the target-independent lowering sums
/// every prefix anew (quadratic in the axis's extent: moving a detector's
/// 27,000 kept boxes to the front took 729 million additions). The sums
/// run in the same order, so the results are the same.
FailureOr<Value> selectCumSum(CumSumOp op, CumSumOp::Adaptor a, OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  Type et = type.getElementType();
  if (!type.hasStaticShape() || type.getNumElements() == 0 ||
      !(isa<FloatType>(et) || et.isSignlessInteger()) ||
      op->hasAttr(kUnsignedAttr))
    return failure();
  Location loc = op.getLoc();
  ArrayRef<int64_t> shape = type.getShape();
  int64_t axis = normalizeAxis(op.getAxis(), type.getRank());
  int64_t outer = 1, inner = 1, n = shape[axis];
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= shape[d];
  bool reverse = op.getReverse(), exclusive = op.getExclusive();
  Value x = reshapeTo(b, loc, a.getData(), {outer, n, inner});
  Value init = emptyTensor(b, loc, {outer, n, inner}, et);
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value zero = index(0), one = index(1);
  auto lines = scf::ForOp::create(
      b, loc, zero, index(outer), one, ValueRange{init},
      [&](OpBuilder &ob, Location l, Value o, ValueRange outerArgs) {
        auto columns = scf::ForOp::create(
            ob, l, zero, index(inner), one, outerArgs,
            [&](OpBuilder &cb, Location cl, Value i, ValueRange columnArgs) {
              Value start = constScalar(cb, cl, et, 0);
              auto steps = scf::ForOp::create(
                  cb, cl, zero, index(n), one, ValueRange{columnArgs[0], start},
                  [&](OpBuilder &sb, Location sl, Value s, ValueRange args) {
                    Value j = s;
                    if (reverse)
                      j = arith::SubIOp::create(
                          sb, sl, arith::ConstantIndexOp::create(sb, sl, n - 1),
                          s);
                    Value v = tensor::ExtractOp::create(sb, sl, x,
                                                        ValueRange{o, j, i});
                    Value sum = addValues(sb, sl, args[1], v);
                    Value y = tensor::InsertOp::create(
                        sb, sl, exclusive ? args[1] : sum, args[0],
                        ValueRange{o, j, i});
                    scf::YieldOp::create(sb, sl, ValueRange{y, sum});
                  });
              scf::YieldOp::create(cb, cl, steps.getResult(0));
            });
        scf::YieldOp::create(ob, l, columns.getResult(0));
      });
  return reshapeTo(b, loc, lines.getResult(0), shape);
}

/// Whether `v` is an argument of its function that the instance holds
/// (mx.param, mx.aux).
bool isHeld(Value v) {
  return mxc::isArgumentWith(v, "mx.param") || mxc::isArgumentWith(v, "mx.aux");
}

/// An inference BatchNorm over the channels of a kernel.conv2d that only it
/// reads, where the weight and the BatchNorm's parameters are the
/// instance's (a training library's `forward`, what mx::Executor runs):
/// folded into the convolution as a per-filter scale of its weights and a
/// shift as its bias, y = conv(x, W s) + (b - mean) s + beta with s = gamma
/// / sqrt(var + eps), as FoldBatchNorm folds known weights at compile time
/// (in double, each value rounded once). The kernel keeps the scaled
/// filters until the parameters change (mxrt_kernel_sconv2d_scaled), so
/// the BatchNorm's pass over the activations goes, and convolutions chain
/// as in an inference library (mxc-conv-layout). ResNet-18 batch 1 through
/// the training library's forward: see docs/cpp-api.md.
void foldBatchNormsIntoKernels(Operation *root) {
  SmallVector<BatchNormOp> bns;
  root->walk([&](BatchNormOp bn) { bns.push_back(bn); });
  for (BatchNormOp bn : bns) {
    auto conv = bn.getData().getDefiningOp<Conv2DKernelOp>();
    auto type = dyn_cast<RankedTensorType>(bn.getType());
    if (!conv || !conv->hasOneUse() || conv.getScale() || conv.getNhwc() ||
        conv.getRelu() || conv.getAccumulate() || !type ||
        type.getRank() != 4 || !type.getElementType().isF32() ||
        bn.getAxis() != 1 ||
        !mxc::isArgumentWith(conv.getWeight(), "mx.param") ||
        !llvm::all_of(ValueRange{bn.getGamma(), bn.getBeta(),
                                 bn.getMovingMean(), bn.getMovingVar()},
                      isHeld))
      continue;
    OpBuilder b(bn);
    Location loc = bn.getLoc();
    int64_t f = type.getDimSize(1);
    auto vec = RankedTensorType::get({f}, b.getF32Type());
    double eps = bn.getEps().convertToDouble();
    bool fixGamma = bn.getFixGamma();
    auto f64 = [&](OpBuilder &nb, Location l, Value v) -> Value {
      return arith::ExtFOp::create(nb, l, nb.getF64Type(), v);
    };
    // s = gamma / sqrt(var + eps) in double (1 / sqrt with fix_gamma).
    auto scaleOf = [&](OpBuilder &nb, Location l, Value gamma,
                       Value var) -> Value {
      Value v = arith::AddFOp::create(nb, l, f64(nb, l, var),
                                      constFloat(nb, l, nb.getF64Type(), eps));
      Value root = math::SqrtOp::create(nb, l, v);
      Value top = fixGamma ? constFloat(nb, l, nb.getF64Type(), 1.0)
                           : f64(nb, l, gamma);
      return arith::DivFOp::create(nb, l, top, root);
    };
    Value scale = elementwise(
        b, loc, vec, {bn.getGamma(), bn.getMovingVar()},
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          return arith::TruncFOp::create(nb, l, nb.getF32Type(),
                                         scaleOf(nb, l, args[0], args[1]));
        });
    SmallVector<Value> shiftInputs = {bn.getGamma(), bn.getMovingVar(),
                                      bn.getBeta(), bn.getMovingMean()};
    bool hasBias = static_cast<bool>(conv.getBias());
    if (hasBias)
      shiftInputs.push_back(conv.getBias());
    Value shift = elementwise(
        b, loc, vec, shiftInputs,
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value s = scaleOf(nb, l, args[0], args[1]);
          // (args ends with the output's element.)
          Value centered =
              hasBias ? arith::SubFOp::create(nb, l, f64(nb, l, args[4]),
                                              f64(nb, l, args[3]))
                            .getResult()
                      : arith::NegFOp::create(nb, l, f64(nb, l, args[3]))
                            .getResult();
          Value shifted = arith::AddFOp::create(
              nb, l, arith::MulFOp::create(nb, l, centered, s),
              f64(nb, l, args[2]));
          return arith::TruncFOp::create(nb, l, nb.getF32Type(), shifted);
        });
    auto folded = Conv2DKernelOp::create(
        b, conv.getLoc(), conv.getResult().getType(), conv.getX(),
        conv.getWeight(), Conv2DKernelOp::epilogueOf(shift, scale),
        conv.getInit(), conv.getStrides(), conv.getPads(), conv.getDilations(),
        conv.getGroups(), /*accumulate=*/false, /*relu=*/false,
        /*nhwc=*/false);
    bn.getResult().replaceAllUsesWith(folded.getResult());
    bn.erase();
    conv.erase();
  }
}

/// The scale of an attention's scores: a one-element tensor, multiplying
/// or (divide) dividing them.
struct AttentionScale {
  Value tensor;      // a constant argument's, or null for `scalar`
  double scalar = 1; // an mx.scalar's value
  bool divide = false;
  Operation *op = nullptr; // the op that scales, erased with the pattern
};

/// Whether `v` is a constant (an inference library's argument marked
/// mxc.constant) of one float32 element.
bool isConstantScalar(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape() && type.getNumElements() == 1 &&
         type.getElementType().isF32() &&
         mxc::isArgumentWith(v, mxc::kConstantArgAttr);
}

/// If `v` is another value times or divided by a constant scalar (and read
/// only here), that value, with the scale in `scale`; else null.
Value unscaled(Value v, AttentionScale &scale) {
  Operation *def = v.getDefiningOp();
  if (!def || !def->hasOneUse())
    return {};
  if (auto bin = dyn_cast<BinaryOp>(def)) {
    StringRef op = bin.getOp();
    if (bin.getType() != v.getType() || (op != "mul" && op != "div"))
      return {};
    if (isConstantScalar(bin.getRhs()) &&
        tensorType(bin.getLhs()) == bin.getType()) {
      scale = {bin.getRhs(), 1, op == "div", def};
      return bin.getLhs();
    }
    if (op == "mul" && isConstantScalar(bin.getLhs()) &&
        tensorType(bin.getRhs()) == bin.getType()) {
      scale = {bin.getLhs(), 1, false, def};
      return bin.getRhs();
    }
    return {};
  }
  if (auto sc = dyn_cast<ScalarOp>(def)) {
    if (sc.getReverse() || (sc.getOp() != "mul" && sc.getOp() != "div"))
      return {};
    scale = {Value(), sc.getScalar().convertToDouble(), sc.getOp() == "div",
             def};
    return sc.getData();
  }
  return {};
}

/// An attention's ops, matched back from its softmax.
struct AttentionMatch {
  Value q, kt, v;
  bool transposeK = true; // kt is (.., D, Sk); else k (.., Sk, D)
  AttentionScale scale;
  // The mask: an additive tensor, or where(cond, fill, scores) (fillIfTrue)
  // or where(cond, scores, fill).
  Value addMask, cond, fill;
  bool fillIfTrue = false;
  // Grouped-query attention: k and v are kvK and kvV (.., Hkv, Sk, D) with
  // each head repeated `group` times (0: not grouped).
  Value kvK, kvV;
  int64_t group = 0;
  SmallVector<Operation *> ops; // from the last to the first
};

/// The operands of `v`'s product when it is a plain one: mx.matmul, or
/// MXNet's batch_dot (mx.dot with batch), with a transposed right side
/// where `rhsTransposed` allows one; and that transposition.
std::optional<std::tuple<Value, Value, bool>> product(Value v,
                                                      bool rhsTransposed) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto mm = dyn_cast<MatMulOp>(def))
    return std::tuple{mm.getLhs(), mm.getRhs(), false};
  if (auto dot = dyn_cast<DotOp>(def); dot && dot.getBatch() &&
                                       !dot.getTransposeA() &&
                                       (rhsTransposed || !dot.getTransposeB()))
    return std::tuple{dot.getLhs(), dot.getRhs(), dot.getTransposeB()};
  return std::nullopt;
}

/// Matches `scores` = [scale *] (q [* scale]) @ kt, each op read only by
/// the next.
bool matchScores(Value scores, AttentionMatch &m) {
  if (Value inner = unscaled(scores, m.scale)) {
    m.ops.push_back(m.scale.op);
    scores = inner;
  }
  // The scores go away with the pattern: nothing else may read them.
  auto qk = scores.hasOneUse() ? product(scores, /*rhsTransposed=*/true)
                               : std::nullopt;
  if (!qk)
    return false;
  m.ops.push_back(scores.getDefiningOp());
  bool transposed;
  std::tie(m.q, m.kt, transposed) = *qk;
  m.transposeK = !transposed;
  if (!m.scale.op)
    if (Value inner = unscaled(m.q, m.scale)) {
      m.ops.push_back(m.scale.op);
      m.q = inner;
    }
  return true;
}

/// Whether extents `a` and `b` may be equal (infer::mayBeEqual: the graph's
/// own products require extents known only at run time to be equal there).
bool sameExtents(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  return a.size() == b.size() && llvm::all_of(llvm::zip(a, b), [](auto pair) {
           return infer::mayBeEqual(std::get<0>(pair), std::get<1>(pair));
         });
}

/// If `kt` is a transposition of only its last two axes read nowhere else,
/// the tensor transposed (the kernel then reads K's rows in place rather
/// than a copy of its columns); else null.
Value untransposed(Value kt) {
  auto t = kt.getDefiningOp<TransposeOp>();
  if (!t || !t->hasOneUse())
    return {};
  int64_t rank = tensorType(kt).getRank();
  ArrayRef<int64_t> axes = t.getAxes();
  if (rank < 2 || int64_t(axes.size()) != rank)
    return {};
  for (int64_t i = 0; i < rank; ++i)
    if (axes[i] != (i < rank - 2 ? i : 2 * rank - 3 - i))
      return {};
  return t.getData();
}

/// If `k` (N, H, S, D) is `kv` (N, Hkv, S, D) with each head repeated H /
/// Hkv times as exports write it (Reshape to (N, Hkv, 1, S, D),
/// broadcast_to (N, Hkv, H / Hkv, S, D), Reshape back; grouped-query
/// attention), read only there: kv, and the ops that repeat it from the
/// last; else null.
Value repeatedHeads(Value k, int64_t &group, SmallVector<Operation *> &repeat) {
  auto merge = k.getDefiningOp<ReshapeOp>();
  auto spread =
      merge ? merge.getData().getDefiningOp<BroadcastToOp>() : BroadcastToOp();
  auto split =
      spread ? spread.getData().getDefiningOp<ReshapeOp>() : ReshapeOp();
  if (!split || !merge->hasOneUse() || !spread->hasOneUse() ||
      !split->hasOneUse())
    return {};
  Value kv = split.getData();
  ArrayRef<int64_t> ks = tensorType(k).getShape(),
                    kvs = tensorType(kv).getShape(),
                    one = tensorType(split).getShape(),
                    wide = tensorType(spread).getShape();
  if (ks.size() != 4 || kvs.size() != 4 || ShapedType::isDynamic(ks[1]) ||
      ShapedType::isDynamic(kvs[1]) || kvs[1] <= 0 || ks[1] % kvs[1] != 0)
    return {};
  int64_t g = ks[1] / kvs[1];
  SmallVector<int64_t> wantOne = {kvs[0], kvs[1], 1, kvs[2], kvs[3]};
  SmallVector<int64_t> wantWide = {kvs[0], kvs[1], g, kvs[2], kvs[3]};
  if (one != ArrayRef(wantOne) || wide != ArrayRef(wantWide) ||
      ks[0] != kvs[0] || ks[2] != kvs[2] || ks[3] != kvs[3])
    return {};
  group = g;
  repeat = {merge, spread, split};
  return kv;
}

/// softmax(scale * q kt + mask) v, ending at `sm`, in the forms
/// torch.onnx.export writes (scale on the scores or on q; the mask added
/// or applied by Where; rank 3 with the heads in the batch, or rank 4) and
/// MXNet's (batch_dot(q, k, transpose_b) scaled by _mul_scalar, softmax,
/// batch_dot) with float32 shapes, static or not (a decoder's cache grows
/// at run time): the matched ops, or none.
std::optional<AttentionMatch> matchAttention(SoftmaxOp sm) {
  auto type = dyn_cast<RankedTensorType>(sm.getType());
  if (!type || !type.getElementType().isF32())
    return std::nullopt;
  int64_t rank = type.getRank();
  auto axis = static_cast<int64_t>(sm.getAxis());
  if ((rank != 3 && rank != 4) || (axis != -1 && axis != rank - 1) ||
      sm.getLog() || sm.getTemperature().convertToDouble() != 1.0 ||
      !sm->hasOneUse())
    return std::nullopt;
  Operation *pv = *sm->user_begin();
  auto pvOperands = pv->getNumResults() == 1
                        ? product(pv->getResult(0), /*rhsTransposed=*/false)
                        : std::nullopt;
  if (!pvOperands || std::get<0>(*pvOperands) != sm.getResult() ||
      std::get<1>(*pvOperands) == sm.getResult())
    return std::nullopt;
  AttentionMatch m;
  m.v = std::get<1>(*pvOperands);
  m.ops = {pv, sm};
  Value x = sm.getData();
  // The mask, when one applies. It must not widen the scores (a mask of
  // another batch or more heads broadcasts them).
  if (auto w = x.getDefiningOp<WhereOp>()) {
    if (!w->hasOneUse())
      return std::nullopt;
    auto oneElement = [](Value v) {
      return tensorType(v).hasStaticShape() &&
             tensorType(v).getNumElements() == 1;
    };
    m.cond = w.getCond();
    m.fillIfTrue = oneElement(w.getX()) && tensorType(w.getY()) == type;
    if (!m.fillIfTrue &&
        !(oneElement(w.getY()) && tensorType(w.getX()) == type))
      return std::nullopt;
    m.fill = m.fillIfTrue ? w.getX() : w.getY();
    x = m.fillIfTrue ? w.getY() : w.getX();
    m.ops.push_back(w);
    if (!infer::broadcastsTo(tensorType(m.cond).getShape(), type.getShape()))
      return std::nullopt;
  } else if (auto add = x.getDefiningOp<BinaryOp>();
             add && add.getOp() == "add") {
    if (!add->hasOneUse())
      return std::nullopt;
    m.ops.push_back(add);
    // The scores are the side that is a product (scaled, perhaps).
    AttentionMatch trial = m;
    for (auto [scores, mask] : {std::pair{add.getLhs(), add.getRhs()},
                                {add.getRhs(), add.getLhs()}}) {
      trial = m;
      if (tensorType(scores) != type ||
          !tensorType(mask).getElementType().isF32() ||
          !infer::broadcastsTo(tensorType(mask).getShape(), type.getShape()))
        continue;
      if (matchScores(scores, trial)) {
        trial.addMask = mask;
        break;
      }
      trial.q = Value();
    }
    if (!trial.q)
      return std::nullopt;
    m = trial;
    x = Value();
  }
  if (x && !matchScores(x, m))
    return std::nullopt;
  if (m.transposeK)
    if (Value k = untransposed(m.kt)) {
      m.ops.push_back(m.kt.getDefiningOp());
      m.kt = k;
      m.transposeK = false;
    }
  // Operands of the same rank and batch extents: q (.., Sq, D), kt
  // (.., D, Sk), v (.., Sk, Dv).
  ArrayRef<int64_t> qs = tensorType(m.q).getShape(),
                    ks = tensorType(m.kt).getShape(),
                    vs = tensorType(m.v).getShape();
  for (Value v : {m.q, m.kt, m.v})
    if (!isF32(v) || tensorType(v).getRank() != rank)
      return std::nullopt;
  int64_t kd = ks[rank - (m.transposeK ? 2 : 1)];
  int64_t sk = ks[rank - (m.transposeK ? 1 : 2)];
  if (!sameExtents(qs.drop_back(2), ks.drop_back(2)) ||
      !sameExtents(qs.drop_back(2), vs.drop_back(2)) ||
      !infer::mayBeEqual(qs.back(), kd) || !infer::mayBeEqual(sk, vs[rank - 2]))
    return std::nullopt;
  // Grouped-query attention: q's heads in groups that share one key and
  // value head read the unrepeated keys and values (the kernel sees
  // N * Hkv batches of `group` heads, K and V broadcast across the group),
  // when the batch and head extents are static and the mask does not vary
  // by batch or head.
  int64_t kGroup = 0, vGroup = 0;
  SmallVector<Operation *> kRepeat, vRepeat;
  Value mask = m.addMask ? m.addMask : m.cond;
  ArrayRef<int64_t> ms =
      mask ? tensorType(mask).getShape() : ArrayRef<int64_t>();
  bool maskShared =
      ms.size() <= 2 ||
      llvm::all_of(ms.drop_back(2), [](int64_t e) { return e == 1; });
  if (rank == 4 && !m.transposeK && maskShared &&
      !ShapedType::isDynamic(qs[0]) && !ShapedType::isDynamic(qs[1]))
    if (Value kvK = repeatedHeads(m.kt, kGroup, kRepeat))
      if (Value kvV = repeatedHeads(m.v, vGroup, vRepeat);
          kvV && kGroup == vGroup && kGroup > 1 &&
          tensorType(kvK).getDimSize(1) == tensorType(kvV).getDimSize(1)) {
        m.kvK = kvK, m.kvV = kvV, m.group = kGroup;
        m.ops.append(kRepeat);
        m.ops.append(vRepeat);
      }
  return m;
}

/// Replaces each scaled dot-product attention of `root` by one
/// mx.kernel.attention (mxrt_kernel_sattention): the scores never go to
/// memory, blocks of keys a causal mask hides are skipped, and the softmax's
/// exponentials run in vectors. A Where mask becomes an additive one (fill
/// where the condition picks it, else 0) of the condition's shape.
void fuseAttention(Operation *root) {
  SmallVector<SoftmaxOp> softmaxes;
  root->walk([&](SoftmaxOp sm) { softmaxes.push_back(sm); });
  for (SoftmaxOp sm : softmaxes) {
    std::optional<AttentionMatch> m = matchAttention(sm);
    if (!m)
      continue;
    Operation *pv = m->ops.front();
    OpBuilder b(pv);
    Location loc = pv->getLoc();
    Type f32 = b.getF32Type();
    Value scale = m->scale.tensor;
    if (!scale)
      scale = arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(RankedTensorType::get({}, f32),
                                 static_cast<float>(m->scale.scalar)));
    // The run-time extents of a tensor's dynamic axes, each read from
    // `from(axis)`.
    auto extentsOf = [&](ArrayRef<int64_t> shape, auto from) {
      SmallVector<Value> extents;
      for (auto [axis, d] : llvm::enumerate(shape))
        if (ShapedType::isDynamic(d)) {
          auto [tensor, dim] = from(int64_t(axis));
          extents.push_back(tensor::DimOp::create(b, loc, tensor, dim));
        }
      return extents;
    };
    Value mask = m->addMask;
    if (m->cond) {
      ArrayRef<int64_t> shape = tensorType(m->cond).getShape();
      unsigned dims = shape.size();
      Value maskInit =
          emptyTensor(b, loc, shape, f32, extentsOf(shape, [&](int64_t axis) {
                        return std::pair{m->cond, axis};
                      }));
      SmallVector<AffineExpr> first(tensorType(m->fill).getRank(),
                                    b.getAffineConstantExpr(0));
      bool fillIfTrue = m->fillIfTrue;
      mask = generic(
          b, loc, shape, f32, {m->cond, m->fill},
          {b.getMultiDimIdentityMap(dims),
           AffineMap::get(dims, 0, first, b.getContext())},
          iterators(dims, 0),
          [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
            Value zero = constFloat(nb, l, nb.getF32Type(), 0.0);
            return arith::SelectOp::create(nb, l, args[0],
                                           fillIfTrue ? args[1] : zero,
                                           fillIfTrue ? zero : args[1]);
          },
          maskInit);
    }
    Value q = m->q, k = m->kt, v = m->v;
    auto resultType = cast<RankedTensorType>(pv->getResult(0).getType());
    if (m->group) {
      // Grouped-query: q (N, H, Sq, D) as (N * Hkv, group, Sq, D), the
      // unrepeated k and v as (N * Hkv, 1, Sk, D): a view of each.
      ArrayRef<int64_t> qs = tensorType(q).getShape();
      int64_t batches = qs[0] * (qs[1] / m->group);
      auto regroup = [&](Value x, int64_t heads) {
        ArrayRef<int64_t> xs = tensorType(x).getShape();
        SmallVector<int64_t> shape = {batches, heads, xs[2], xs[3]};
        return reshapeTo(b, loc, x, shape, extentsOf(shape, [&](int64_t axis) {
                           return std::pair{x, axis};
                         }));
      };
      q = regroup(q, m->group);
      k = regroup(m->kvK, 1);
      v = regroup(m->kvV, 1);
    }
    // The output (.., Sq, Dv): q's extents but the last, v's last.
    ArrayRef<int64_t> qs = tensorType(q).getShape();
    SmallVector<int64_t> shape(qs.drop_back());
    shape.push_back(tensorType(v).getShape().back());
    int64_t rank = shape.size();
    auto type = RankedTensorType::get(shape, f32);
    Value init = emptyTensor(
        b, loc, shape, f32, extentsOf(shape, [&](int64_t axis) {
          return axis < rank - 1 ? std::pair{q, axis} : std::pair{v, axis};
        }));
    Value fused =
        AttentionKernelOp::create(b, loc, type, q, k, v, scale, mask, init,
                                  m->transposeK, m->scale.divide)
            .getResult();
    if (m->group)
      fused = reshapeTo(b, loc, fused, resultType.getShape(),
                        extentsOf(resultType.getShape(), [&](int64_t axis) {
                          return std::pair{fused, axis};
                        }));
    pv->getResult(0).replaceAllUsesWith(fused);
    for (Operation *op : m->ops)
      op->erase();
  }
}

/// An operand of an integer product made from 8-bit values: `bytes` (2-D,
/// static) cast to the product's type, minus `zero` (null: none).
struct QuantizedOperand {
  Value bytes, zero;
};

std::optional<QuantizedOperand> quantizedOperand(Value v, int64_t rank = 2) {
  Value zero;
  if (auto sub = v.getDefiningOp<BinaryOp>(); sub && sub.getOp() == "sub") {
    zero = sub.getRhs();
    v = sub.getLhs();
  }
  auto cast = v.getDefiningOp<CastOp>();
  if (!cast)
    return std::nullopt;
  auto t = dyn_cast<RankedTensorType>(cast.getData().getType());
  if (!t || !t.getElementType().isInteger(8) || t.getRank() != rank ||
      !t.hasStaticShape())
    return std::nullopt;
  return QuantizedOperand{cast.getData(), zero};
}

/// The ONNX importer's integer convolution (QLinearConv, ConvInteger, and
/// QDQ-fused Conv): the int32 cast of a float64 Convolution of 8-bit
/// operands cast and minus their zero points (int32 values cast), plus an
/// int32 bias cast, as the runtime's 8-bit convolution
/// (mxrt_kernel_qconv2d_u8s8). Rooted at the cast so that it is replaced
/// by ops the selection keeps (a new mx.cast would not be). Other forms
/// (padding made explicit before the cast) keep the generic lowering.
/// The requantization the ONNX importer writes after an int32 convolution
/// (Quantization.cpp's requantize): cast to f32, times a multiplier, round,
/// plus a zero point (an f32 scalar), clip, cast to 8 bits, and a Relu's
/// maximum with the zero point after it; each the only reader of the one
/// before.
struct Requantization {
  Value multiplier, zero;
  int64_t lo, hi;
  bool relu = false;
  /// The ops from the f32 cast on, in order; the last one's result is the
  /// requantized output.
  SmallVector<Operation *> chain;
};

std::optional<Requantization> requantizationOf(Value sums) {
  auto next = [](Value v) -> Operation * {
    return v.hasOneUse() ? *v.getUsers().begin() : nullptr;
  };
  auto f32 = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getElementType().isF32();
  };
  Requantization r;
  auto toFloat = dyn_cast_or_null<CastOp>(next(sums));
  if (!toFloat || !f32(toFloat.getResult()))
    return std::nullopt;
  r.chain.push_back(toFloat);
  auto mul = dyn_cast_or_null<BinaryOp>(next(toFloat.getResult()));
  if (!mul || mul.getOp() != "mul")
    return std::nullopt;
  r.multiplier =
      mul.getLhs() == toFloat.getResult() ? mul.getRhs() : mul.getLhs();
  // One multiplier, or one per filter ((1, F, 1, 1)).
  auto ms = cast<RankedTensorType>(r.multiplier.getType()).getShape();
  auto ys = cast<RankedTensorType>(sums.getType()).getShape();
  int64_t count = 1;
  for (int64_t d : ms)
    count *= d;
  if (!f32(r.multiplier) ||
      !(count == 1 || (ms.size() == 4 && ms[1] == ys[1] && count == ys[1])))
    return std::nullopt;
  r.chain.push_back(mul);
  auto round = dyn_cast_or_null<UnaryOp>(next(mul.getResult()));
  if (!round || round.getOp() != "round")
    return std::nullopt;
  r.chain.push_back(round);
  Operation *after = next(round.getResult());
  if (auto add = dyn_cast_or_null<BinaryOp>(after);
      add && add.getOp() == "add" && add.getLhs() == round.getResult() &&
      cast<RankedTensorType>(add.getRhs().getType()).getNumElements() == 1) {
    r.zero = add.getRhs();
    r.chain.push_back(add);
    after = next(add.getResult());
  }
  auto clip = dyn_cast_or_null<ClipOp>(after);
  if (!clip)
    return std::nullopt;
  r.chain.push_back(clip);
  double lo = clip.getAMin().convertToDouble(),
         hi = clip.getAMax().convertToDouble();
  auto bytes = dyn_cast_or_null<CastOp>(next(clip.getResult()));
  if (!bytes)
    return std::nullopt;
  Type t = cast<RankedTensorType>(bytes.getType()).getElementType();
  bool isSigned = t.isSignedInteger() || t.isSignlessInteger();
  if (!t.isInteger(8) || lo != std::floor(lo) || hi != std::floor(hi) ||
      lo < (isSigned ? -128 : 0) || hi > (isSigned ? 127 : 255) || lo > hi)
    return std::nullopt;
  r.lo = static_cast<int64_t>(lo);
  r.hi = static_cast<int64_t>(hi);
  r.chain.push_back(bytes);
  // A Relu: the maximum with the 8-bit zero point the f32 one was cast
  // from.
  if (auto max = dyn_cast_or_null<BinaryOp>(next(bytes.getResult()));
      max && max.getOp() == "maximum" && max.getLhs() == bytes.getResult() &&
      r.zero) {
    auto zeroCast = r.zero.getDefiningOp<CastOp>();
    if (zeroCast && zeroCast.getData() == max.getRhs()) {
      r.relu = true;
      r.chain.push_back(max);
    }
  }
  return r;
}

/// The runtime's 8-bit convolution of `op` (the int32 cast of a float64
/// Convolution of 8-bit operands cast and minus their zero points, plus an
/// int32 bias cast), its sums requantized in the kernel with
/// `requant`, or null where the form is another.
Value quantizedConvolution(CastOp op, OpBuilder &b,
                           const Requantization *requant) {
  auto type = cast<RankedTensorType>(op.getType());
  Type i32 = b.getI32Type();
  auto conv = op.getData().getDefiningOp<ConvolutionOp>();
  if (type.getElementType() != i32 || !conv || !conv->hasOneUse() ||
      !cast<RankedTensorType>(conv.getType()).getElementType().isF64() ||
      type.getRank() != 4 || !type.hasStaticShape() ||
      conv.getPadding().size() != 2)
    return Value();
  auto qx = quantizedOperand(conv.getData(), 4),
       qw = quantizedOperand(conv.getWeight(), 4);
  if (!qx || !qw)
    return Value();
  Location loc = op.getLoc();
  // The int32 value a float64 operand was cast from; a constant 0 for
  // none.
  auto int32Of = [&](Value v) -> Value {
    if (!v)
      return arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(RankedTensorType::get({}, i32), int32_t(0)));
    auto from = v.getDefiningOp<CastOp>();
    if (!from ||
        cast<RankedTensorType>(from.getData().getType()).getElementType() !=
            i32)
      return Value();
    return from.getData();
  };
  Value zx = int32Of(qx->zero), zw = int32Of(qw->zero);
  Value bias = conv.getBias() ? int32Of(conv.getBias()) : Value();
  if (!zx || !zw || (conv.getBias() && !bias) ||
      !cast<RankedTensorType>(zx.getType()).getShape().empty())
    return Value();
  auto isUnsigned = [](Value v) {
    return cast<RankedTensorType>(v.getType())
        .getElementType()
        .isUnsignedInteger();
  };
  // (Without requantization the multiplier and zero point are unread.)
  Value zeroF32 = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()), 0.0f));
  Value multiplier = zeroF32, zero = zeroF32;
  auto resultType = type;
  int64_t lo = 0, hi = 255;
  if (requant) {
    multiplier = requant->multiplier;
    if (requant->zero)
      zero = requant->zero;
    resultType =
        cast<RankedTensorType>(requant->chain.back()->getResult(0).getType());
    lo = requant->lo;
    hi = requant->hi;
  }
  return QConv2DKernelOp::create(
             b, loc, resultType, qx->bytes, zx, qw->bytes, zw, bias, multiplier,
             zero,
             emptyTensor(b, loc, resultType.getShape(),
                         resultType.getElementType()),
             conv.getStrides(), conv.getPadding(), conv.getDilations(),
             conv.getNumGroup(), !isUnsigned(qx->bytes), isUnsigned(qw->bytes),
             requant != nullptr, lo, hi, requant && requant->relu)
      .getResult();
}

FailureOr<Value> selectQuantizedConvolution(CastOp op, CastOp::Adaptor,
                                            OpBuilder &b) {
  Value y = quantizedConvolution(op, b, nullptr);
  if (!y)
    return failure();
  return y;
}

/// An integer convolution and the requantization after it (QLinearConv's,
/// QDQ-fused convolutions') as one kernel writing 8-bit values: rooted at
/// the int32 cast, the requantization's ops replaced by the kernel's
/// result and erased.
struct SelectRequantizedConvolution : OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto requant = requantizationOf(op.getResult());
    if (!requant)
      return failure();
    rewriter.setInsertionPoint(requant->chain.back());
    Value y = quantizedConvolution(op, rewriter, &*requant);
    if (!y)
      return failure();
    rewriter.replaceOp(requant->chain.back(), y);
    for (Operation *dead : llvm::reverse(ArrayRef(requant->chain).drop_back()))
      rewriter.eraseOp(dead);
    rewriter.eraseOp(op);
    return success();
  }
};

/// An int32 product of 8-bit operands minus their zero points (the ONNX
/// importer's MatMulInteger, QLinearMatMul) as the runtime's integer GEMM
/// (mxrt_kernel_qgemm_u8s8): A and B uint8 or int8, A with one zero point,
/// B with one or one per column. Other forms (a zero point per row of A,
/// batches) keep the generic lowering.
FailureOr<Value> selectQuantizedMatMul(MatMulOp op, MatMulOp::Adaptor,
                                       OpBuilder &b) {
  auto type = cast<RankedTensorType>(op.getType());
  Type i32 = b.getI32Type();
  if (type.getElementType() != i32 || type.getRank() != 2 ||
      !type.hasStaticShape())
    return failure();
  auto qa = quantizedOperand(op.getLhs()), qb = quantizedOperand(op.getRhs());
  if (!qa || !qb)
    return failure();
  int64_t n = type.getDimSize(1);
  auto fits = [&](Value zero, bool perColumn) {
    if (!zero)
      return true;
    auto zt = cast<RankedTensorType>(zero.getType());
    ArrayRef<int64_t> s = zt.getShape();
    return zt.getElementType() == i32 &&
           (s.empty() || (perColumn && s.size() == 2 && s[0] == 1 &&
                          (s[1] == n || s[1] == 1)));
  };
  if (!fits(qa->zero, false) || !fits(qb->zero, true))
    return failure();
  Location loc = op.getLoc();
  Value zeroScalar; // made once, for whichever operand has no zero point
  auto orZero = [&](Value zero) -> Value {
    if (zero)
      return zero;
    if (!zeroScalar)
      zeroScalar = arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(RankedTensorType::get({}, i32), int32_t(0)));
    return zeroScalar;
  };
  auto isUnsigned = [](Value v) {
    return cast<RankedTensorType>(v.getType())
        .getElementType()
        .isUnsignedInteger();
  };
  return QMatmulKernelOp::create(b, loc, type, qa->bytes, orZero(qa->zero),
                                 qb->bytes, orZero(qb->zero),
                                 emptyTensor(b, loc, type.getShape(), i32),
                                 !isUnsigned(qa->bytes), isUnsigned(qb->bytes))
      .getResult();
}

struct SelectCpuKernelsPass
    : mxc::impl::SelectCpuKernelsPassBase<SelectCpuKernelsPass> {
  void runOnOperation() override {
    fuseAttention(getOperation());
    RewritePatternSet patterns(&getContext());
    mxc::populateMxToKernelPatterns(patterns);
    if (failed(applyKernelSelection(getOperation(), std::move(patterns))))
      return signalPassFailure();
    foldBatchNormsIntoKernels(getOperation());
  }
};

} // namespace

void mxc::populateMxToKernelPatterns(RewritePatternSet &patterns) {
  // Before the target-independent lowerings of the same ops.
  constexpr unsigned kBenefit = 2;
  // The integer convolution, at its int32 cast (nothing else selects casts),
  // with the requantization after it where there is one.
  patterns.add<SelectRequantizedConvolution>(patterns.getContext(),
                                             kBenefit + 1);
  addLowerings<kBenefit>(patterns, selectQuantizedConvolution);
  addLowerings<kBenefit>(
      patterns, selectFullyConnected, selectConvolution, selectPooling,
      selectDot, selectQuantizedMatMul, selectMatMul, selectConvolutionGradData,
      selectConvolutionGradWeight, selectPoolingGrad, selectCumSum);
}
