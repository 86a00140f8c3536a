// SPDX-License-Identifier: Apache-2.0
// The kernel-call ops (MxKernelOps.td): verifiers, memory effects on
// memrefs, and bufferization (the result is written into `init`).
#include "dialects/mx/InferUtil.h"
#include "dialects/mx/MxDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <string>

using namespace mlir;
using namespace mxc::mx;

namespace {

std::string shapeOf(Value v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << v.getType();
  return s;
}

/// All operands tensors (and one result) or all memrefs (and none).
LogicalResult verifyForm(Operation *op) {
  bool tensors = isa<RankedTensorType>(op->getOperand(0).getType());
  for (Value v : op->getOperands())
    if (isa<RankedTensorType>(v.getType()) != tensors)
      return op->emitOpError("mixes tensor and memref operands");
  if (op->getNumResults() != (tensors ? 1u : 0u))
    return op->emitOpError(tensors ? "on tensors has one result"
                                   : "on memrefs has no result");
  if (tensors &&
      op->getResult(0).getType() != op->getOperands().back().getType())
    return op->emitOpError("result type differs from init's");
  return success();
}

/// bias broadcasts to init's shape (right-aligned, extent-1 axes repeat).
LogicalResult verifyBias(Operation *op, Value bias, ArrayRef<int64_t> out) {
  if (!bias)
    return success();
  if (!infer::broadcastsTo(cast<ShapedType>(bias.getType()).getShape(), out))
    return op->emitOpError("bias ")
           << shapeOf(bias) << " does not broadcast to init "
           << shapeOf(op->getOperands().back());
  return success();
}

/// A 2-D window attribute of a kernel op: its values, the least each may
/// be, and the error otherwise.
struct WindowAttr {
  ArrayRef<int64_t> values;
  int64_t least;
  const char *error;
};

/// The form of a windowed kernel op (conv2d, pool2d): `operands` of rank 4
/// (else `rankError`), window attributes of 2 values each (else
/// `countError`) and each in range.
LogicalResult verifyWindowOp(Operation *op, ArrayRef<Value> operands,
                             const char *rankError, ArrayRef<WindowAttr> attrs,
                             const char *countError) {
  if (failed(verifyForm(op)))
    return failure();
  if (llvm::any_of(operands, [](Value v) {
        return cast<ShapedType>(v.getType()).getRank() != 4;
      }))
    return op->emitOpError(rankError);
  if (llvm::any_of(attrs,
                   [](const WindowAttr &a) { return a.values.size() != 2; }))
    return op->emitOpError(countError);
  for (const WindowAttr &a : attrs)
    if (llvm::any_of(a.values, [&](int64_t v) { return v < a.least; }))
      return op->emitOpError(a.error);
  return success();
}

/// verifyWindowOp for a convolution's strides, pads and dilations.
template <typename ConvOp>
LogicalResult verifyConvWindow(ConvOp op, ArrayRef<Value> operands,
                               const char *rankError) {
  return verifyWindowOp(op, operands, rankError,
                        {{op.getStrides(), 1, "strides must be positive"},
                         {op.getDilations(), 1, "dilations must be positive"},
                         {op.getPads(), 0, "pads must not be negative"}},
                        "strides, pads and dilations need 2 values each");
}

ArrayRef<int64_t> shapeOfValue(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}

Type elementTypeOf(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}

int64_t elementCount(Value v) {
  return cast<ShapedType>(v.getType()).getNumElements();
}

template <typename OpTy> int32_t flagsOf(OpTy op) {
  return (op.getAccumulate() ? kKernelAccumulate : 0) |
         (op.getRelu() ? kKernelRelu : 0);
}

/// Reads of the inputs (and of init when accumulating), a write of init.
template <typename OpTy>
void kernelEffects(
    OpTy op, SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                 &effects) {
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    bool isInit = &operand == &op.getInitMutable();
    if (!isInit || op.getAccumulate())
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
    if (isInit)
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}

/// Replaces the tensor form of `op` by its memref form on the operands'
/// buffers; the result is init's buffer.
LogicalResult
bufferizeKernel(Operation *op, RewriterBase &rewriter,
                const bufferization::BufferizationOptions &options,
                bufferization::BufferizationState &state) {
  SmallVector<Value> buffers;
  for (Value v : op->getOperands()) {
    FailureOr<Value> buffer =
        bufferization::getBuffer(rewriter, v, options, state);
    if (failed(buffer))
      return failure();
    buffers.push_back(*buffer);
  }
  rewriter.setInsertionPoint(op);
  OperationState memrefForm(op->getLoc(), op->getName());
  memrefForm.addOperands(buffers);
  memrefForm.addAttributes(op->getAttrs());
  rewriter.create(memrefForm);
  bufferization::replaceOpWithBufferizedValues(rewriter, op, buffers.back());
  return success();
}

/// How every kernel op bufferizes: init is the destination (read too when
/// accumulating), the result is init's buffer, the inputs are only read.
template <typename OpTy>
struct KernelBufferization
    : bufferization::BufferizableOpInterface::ExternalModel<
          KernelBufferization<OpTy>, OpTy> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const bufferization::AnalysisState &) const {
    auto kernel = cast<OpTy>(op);
    return &operand != &kernel.getInitMutable() || kernel.getAccumulate();
  }
  bool bufferizesToMemoryWrite(Operation *op, OpOperand &operand,
                               const bufferization::AnalysisState &) const {
    return &operand == &cast<OpTy>(op).getInitMutable();
  }
  bufferization::AliasingValueList
  getAliasingValues(Operation *op, OpOperand &operand,
                    const bufferization::AnalysisState &) const {
    auto kernel = cast<OpTy>(op);
    if (&operand != &kernel.getInitMutable())
      return {};
    return {{kernel.getResult(), bufferization::BufferRelation::Equivalent}};
  }
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    return bufferizeKernel(op, rewriter, options, state);
  }
};

} // namespace

void mxc::mx::registerKernelModels(MLIRContext *ctx) {
  MatmulKernelOp::attachInterface<KernelBufferization<MatmulKernelOp>>(*ctx);
  Conv2DKernelOp::attachInterface<KernelBufferization<Conv2DKernelOp>>(*ctx);
  Pool2DKernelOp::attachInterface<KernelBufferization<Pool2DKernelOp>>(*ctx);
  Conv2DGradKernelOp::attachInterface<KernelBufferization<Conv2DGradKernelOp>>(
      *ctx);
  Pool2DGradKernelOp::attachInterface<KernelBufferization<Pool2DGradKernelOp>>(
      *ctx);
  AttentionKernelOp::attachInterface<KernelBufferization<AttentionKernelOp>>(
      *ctx);
  TopKKernelOp::attachInterface<KernelBufferization<TopKKernelOp>>(*ctx);
  NmsKernelOp::attachInterface<KernelBufferization<NmsKernelOp>>(*ctx);
  QMatmulKernelOp::attachInterface<KernelBufferization<QMatmulKernelOp>>(*ctx);
  QConv2DKernelOp::attachInterface<KernelBufferization<QConv2DKernelOp>>(*ctx);
  QMaxPool2DKernelOp::attachInterface<KernelBufferization<QMaxPool2DKernelOp>>(
      *ctx);
  RandomSeedKernelOp::attachInterface<KernelBufferization<RandomSeedKernelOp>>(
      *ctx);
}

bool mxc::mx::isKernelOp(Operation *op) {
  return isa<MatmulKernelOp, Conv2DKernelOp, Pool2DKernelOp, Conv2DGradKernelOp,
             Pool2DGradKernelOp, AttentionKernelOp, TopKKernelOp, NmsKernelOp,
             RandomSeedKernelOp, QMatmulKernelOp, QConv2DKernelOp,
             QMaxPool2DKernelOp>(op);
}

bool mxc::mx::needsContiguousBuffers(Operation *op) {
  return isKernelOp(op) &&
         !isa<MatmulKernelOp, Pool2DKernelOp, AttentionKernelOp>(op);
}

bool mxc::mx::isContiguousBuffer(Value v) {
  auto type = cast<MemRefType>(v.getType());
  return type.getLayout().isIdentity() ||
         type.areTrailingDimsContiguous(type.getRank());
}

//===----------------------------------------------------------------------===//
// kernel.matmul
//===----------------------------------------------------------------------===//

LogicalResult MatmulKernelOp::verify() {
  if (failed(verifyForm(*this)))
    return failure();
  ArrayRef<int64_t> as = shapeOfValue(getA()), bs = shapeOfValue(getB()),
                    ys = shapeOfValue(getInit());
  for (auto [name, s] : {std::pair{"a", as}, {"b", bs}, {"init", ys}})
    if (s.size() != 2 && s.size() != 3)
      return emitOpError() << name << " has rank " << s.size()
                           << ", not 2 or 3";
  if (ys.size() == 2 && (as.size() == 3 || bs.size() == 3))
    return emitOpError("batched operands need a batched init");
  for (ArrayRef<int64_t> s : {as, bs})
    if (s.size() == 3 && s[0] != ys[0])
      return emitOpError("batch extents differ: ")
             << shapeOf(getA()) << ", " << shapeOf(getB()) << " into "
             << shapeOf(getInit());
  int64_t m = as[as.size() - (getTransposeA() ? 1 : 2)];
  int64_t ka = as[as.size() - (getTransposeA() ? 2 : 1)];
  int64_t kb = bs[bs.size() - (getTransposeB() ? 1 : 2)];
  int64_t n = bs[bs.size() - (getTransposeB() ? 2 : 1)];
  if (ka != kb || ys[ys.size() - 2] != m || ys.back() != n)
    return emitOpError("shapes do not match: ")
           << shapeOf(getA()) << (getTransposeA() ? "^T" : "") << " x "
           << shapeOf(getB()) << (getTransposeB() ? "^T" : "") << " into "
           << shapeOf(getInit());
  return verifyBias(*this, getBias(), ys);
}

int32_t MatmulKernelOp::getKernelFlags() { return flagsOf(*this); }

void MatmulKernelOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  kernelEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// kernel.conv2d
//===----------------------------------------------------------------------===//

LogicalResult Conv2DKernelOp::verify() {
  if (failed(verifyConvWindow(*this, {getX(), getWeight(), getInit()},
                              "x, weight and init must have rank 4")))
    return failure();
  ArrayRef<int64_t> xs = shapeOfValue(getX()), ws = shapeOfValue(getWeight()),
                    ys = shapeOfValue(getInit());
  int64_t g = getGroups();
  // The channel axis: 1, or 3 channels last.
  int64_t c = getNhwc() ? xs[3] : xs[1], f = getNhwc() ? ys[3] : ys[1];
  if (g < 1 || c % g != 0 || ws[0] % g != 0 || ws[1] * g != c ||
      ys[0] != xs[0] || f != ws[0])
    return emitOpError("shapes do not match: x ")
           << shapeOf(getX()) << ", weight " << shapeOf(getWeight())
           << ", groups " << g << " into " << shapeOf(getInit());
  if (getEpilogue().size() > 2)
    return emitOpError("takes at most a bias and a scale, not ")
           << getEpilogue().size() << " epilogue operands";
  for (auto [name, v] : {std::pair{"bias ", getBias()}, {"scale ", getScale()}})
    if (v) {
      ArrayRef<int64_t> bs = shapeOfValue(v);
      if (bs.size() != 1 || bs[0] != ws[0])
        return emitOpError(name) << shapeOf(v) << " is not one value per "
                                 << "filter (" << ws[0] << ")";
    }
  return success();
}

int32_t Conv2DKernelOp::getKernelFlags() {
  return flagsOf(*this) | (getNhwc() ? kKernelNhwc : 0);
}

void Conv2DKernelOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  kernelEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// kernel.pool2d
//===----------------------------------------------------------------------===//

/// The form of a pooling kernel op: `operands` of rank 4, the window's
/// attributes, the pool type, and the outputs' (N, C) = the input's.
template <typename PoolOp>
LogicalResult verifyPool(PoolOp op, ArrayRef<Value> operands,
                         const char *rankError, Value x,
                         ArrayRef<Value> outputs) {
  if (failed(verifyWindowOp(
          op, operands, rankError,
          {{op.getKernel(), 1, "kernel extents must be positive"},
           {op.getStrides(), 1, "strides must be positive"},
           {op.getPads(), 0, "pads must not be negative"}},
          "kernel, strides and pads need 2 values each")))
    return failure();
  StringRef type = op.getPoolType();
  if (type != "max" && type != "avg" && type != "sum")
    return op.emitOpError("pool_type must be max, avg or sum, not '")
           << type << "'";
  ArrayRef<int64_t> xs = shapeOfValue(x);
  for (Value out : outputs) {
    ArrayRef<int64_t> ys = shapeOfValue(out);
    if (ys[0] != xs[0] || ys[1] != xs[1])
      return op.emitOpError("shapes do not match: x ")
             << shapeOf(x) << " and " << shapeOf(out);
  }
  return success();
}

/// MXRT_KERNEL_POOL_* of a pooling kernel op, and accumulate.
template <typename PoolOp> int32_t poolFlags(PoolOp op) {
  StringRef type = op.getPoolType();
  return (op.getAccumulate() ? kKernelAccumulate : 0) |
         (type == "avg" ? kKernelPoolAvg : 0) |
         (type == "sum" ? kKernelPoolSum : 0) |
         (op.getCountIncludePad() ? kKernelPoolCountPad : 0);
}

LogicalResult Pool2DKernelOp::verify() {
  return verifyPool(*this, {getX(), getInit()}, "x and init must have rank 4",
                    getX(), {getInit()});
}

int32_t Pool2DKernelOp::getKernelFlags() {
  return poolFlags(*this) | (getRelu() ? kKernelRelu : 0);
}

void Pool2DKernelOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  kernelEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// kernel.qmatmul
//===----------------------------------------------------------------------===//

LogicalResult QMatmulKernelOp::verify() {
  if (failed(verifyForm(*this)))
    return failure();
  auto as = shapeOfValue(getA()), bs = shapeOfValue(getB()),
       ys = shapeOfValue(getInit());
  if (as.size() != 2 || bs.size() != 2 || ys.size() != 2 || as[1] != bs[0] ||
      ys[0] != as[0] || ys[1] != bs[1])
    return emitOpError("a, b and init must be (M, K), (K, N) and (M, N), got ")
           << shapeOf(getA()) << ", " << shapeOf(getB()) << " and "
           << shapeOf(getInit());
  Type at = elementTypeOf(getA());
  if (!at.isInteger(8) || !elementTypeOf(getB()).isInteger(8) ||
      !elementTypeOf(getInit()).isInteger(32))
    return emitOpError("a and b must be 8-bit integers and init int32");
  Value za = getAZero(), zb = getBZero();
  if (!shapeOfValue(za).empty() || !elementTypeOf(za).isInteger(32))
    return emitOpError("a_zero must be an int32 scalar");
  auto zs = shapeOfValue(zb);
  int64_t n = elementCount(zb);
  if (!elementTypeOf(zb).isInteger(32) || zs.size() > 2 ||
      (n != 1 && n != bs[1]) || (!zs.empty() && zs.back() != n))
    return emitOpError("b_zero must be int32, one value or one per column");
  return success();
}

int32_t QMatmulKernelOp::getKernelFlags() {
  return (getSignedA() ? kKernelSignedA : 0) |
         (getUnsignedB() ? kKernelUnsignedB : 0);
}

void QMatmulKernelOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  kernelEffects(*this, effects);
}

LogicalResult QConv2DKernelOp::verify() {
  if (failed(verifyForm(*this)))
    return failure();
  auto xs = shapeOfValue(getX()), ws = shapeOfValue(getWeight()),
       ys = shapeOfValue(getInit());
  // The channel axis: 1, or 3 channels last.
  int64_t axis = getNhwc() ? 3 : 1;
  if (xs.size() != 4 || ws.size() != 4 || ys.size() != 4 ||
      getStrides().size() != 2 || getPads().size() != 2 ||
      getDilations().size() != 2 || getGroups() < 1 ||
      xs[axis] != ws[1] * static_cast<int64_t>(getGroups()) ||
      ys[axis] != ws[0] || ys[0] != xs[0])
    return emitOpError(getNhwc() ? "x, weight and init must be (N, H, W, C), "
                                   "(F, C / groups, KH, KW) and (N, OH, OW, "
                                   "F), got "
                                 : "x, weight and init must be (N, C, H, W), "
                                   "(F, C / groups, KH, KW) and (N, F, OH, "
                                   "OW), got ")
           << shapeOf(getX()) << ", " << shapeOf(getWeight()) << " and "
           << shapeOf(getInit());
  bool requant = getRequant();
  if (!elementTypeOf(getX()).isInteger(8) ||
      !elementTypeOf(getWeight()).isInteger(8) ||
      !elementTypeOf(getInit()).isInteger(requant ? 8 : 32))
    return emitOpError("x and weight must be 8-bit integers and init ")
           << (requant ? "8-bit (requantized)" : "int32");
  if (requant) {
    int64_t multipliers = elementCount(getMultiplier());
    if (!elementTypeOf(getMultiplier()).isF32() ||
        (multipliers != 1 && multipliers != ws[0]))
      return emitOpError("multiplier must be f32, one value or one per filter");
    if (!elementTypeOf(getYZero()).isF32() || elementCount(getYZero()) != 1)
      return emitOpError("y_zero must be one f32 value");
    // (I64Attr's accessor is unsigned.)
    auto lo = static_cast<int64_t>(getYMin()),
         hi = static_cast<int64_t>(getYMax());
    if (lo > hi || lo < -128 || hi > 255)
      return emitOpError("y_min and y_max must bound an 8-bit range, got ")
             << lo << " and " << hi;
  }
  if (!shapeOfValue(getXZero()).empty() ||
      !elementTypeOf(getXZero()).isInteger(32))
    return emitOpError("x_zero must be an int32 scalar");
  int64_t zeros = elementCount(getWZero());
  if (!elementTypeOf(getWZero()).isInteger(32) ||
      (zeros != 1 && zeros != ws[0]))
    return emitOpError("w_zero must be int32, one value or one per filter");
  if (Value bias = getBias();
      bias && (!elementTypeOf(bias).isInteger(32) ||
               shapeOfValue(bias) != ArrayRef<int64_t>{ws[0]}))
    return emitOpError("bias must be int32, one per filter");
  return success();
}

LogicalResult QMaxPool2DKernelOp::verify() {
  if (failed(verifyForm(*this)))
    return failure();
  auto xs = shapeOfValue(getX()), ys = shapeOfValue(getInit());
  int64_t axis = getNhwc() ? 3 : 1;
  if (xs.size() != 4 || ys.size() != 4 || xs[0] != ys[0] ||
      xs[axis] != ys[axis])
    return emitOpError(getNhwc() ? "x and init must be (N, H, W, C) and (N, "
                                   "OH, OW, C), got "
                                 : "x and init must be (N, C, H, W) and (N, "
                                   "C, OH, OW), got ")
           << shapeOf(getX()) << " and " << shapeOf(getInit());
  if (getKernel().size() != 2 || getStrides().size() != 2 ||
      getPads().size() != 2)
    return emitOpError("kernel, strides and pads must have 2 values each");
  if (!elementTypeOf(getX()).isInteger(8) ||
      elementTypeOf(getInit()) != elementTypeOf(getX()))
    return emitOpError("x and init must be 8-bit integers of one type");
  return success();
}

int32_t QMaxPool2DKernelOp::getKernelFlags() {
  return (getSignedX() ? kKernelSignedA : 0) | (getNhwc() ? kKernelNhwc : 0);
}

void QMaxPool2DKernelOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  kernelEffects(*this, effects);
}

int32_t QConv2DKernelOp::getKernelFlags() {
  return (getSignedX() ? kKernelSignedA : 0) |
         (getUnsignedW() ? kKernelUnsignedB : 0) |
         (getRelu() ? kKernelRelu : 0) | (getNhwc() ? kKernelNhwc : 0);
}

void QConv2DKernelOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  kernelEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// kernel.topk, kernel.nms
//===----------------------------------------------------------------------===//

/// All operands tensors (and one result, init's type) or all memrefs.
LogicalResult verifySelectForm(Operation *op) {
  bool tensors = isa<RankedTensorType>(op->getOperand(0).getType());
  for (Value v : op->getOperands())
    if (isa<RankedTensorType>(v.getType()) != tensors)
      return op->emitOpError("mixes tensor and memref operands");
  if (op->getNumResults() != (tensors ? 1u : 0u) ||
      (tensors &&
       op->getResult(0).getType() != op->getOperands().back().getType()))
    return op->emitOpError("has one result of init's type on tensors, none "
                           "on memrefs");
  return success();
}

LogicalResult TopKKernelOp::verify() {
  if (failed(verifySelectForm(*this)))
    return failure();
  auto x = shapeOfValue(getX()), y = shapeOfValue(getInit());
  int64_t axis = getAxis();
  if (x.size() != y.size() || axis < 0 || axis >= (int64_t)x.size())
    return emitOpError("x and init differ in rank or axis is outside it");
  return success();
}

int32_t TopKKernelOp::getKernelFlags() {
  return getLargest() ? 0 : kKernelSelectSmallest;
}

void TopKKernelOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  kernelEffects(*this, effects);
}

LogicalResult NmsKernelOp::verify() { return verifySelectForm(*this); }

LogicalResult RandomSeedKernelOp::verify() {
  if (failed(verifySelectForm(*this)))
    return failure();
  if (!shapeOfValue(getInit()).empty())
    return emitOpError("init must be an int64 scalar");
  return success();
}

int32_t RandomSeedKernelOp::getKernelFlags() { return 0; }

void RandomSeedKernelOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  kernelEffects(*this, effects);
}

int32_t NmsKernelOp::getKernelFlags() {
  return getCenterPointBox() ? kKernelNmsCenter : 0;
}

void NmsKernelOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  kernelEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// kernel.conv2d_grad
//===----------------------------------------------------------------------===//

/// The forward's x (N, C, H, W), weight (F, C / groups, KH, KW) and dy
/// (N, F, OH, OW) (x and dy channels last with nhwc), one of x and weight
/// being init.
LogicalResult Conv2DGradKernelOp::verify() {
  if (getWrt() != "data" && getWrt() != "weight")
    return emitOpError("wrt must be data or weight, not '") << getWrt() << "'";
  Value x = getX(), weight = getWeight(), dy = getDy();
  if (failed(verifyConvWindow(*this, {x, weight, dy},
                              "x, weight and dy must have rank 4")))
    return failure();
  ArrayRef<int64_t> xs = shapeOfValue(x), ws = shapeOfValue(weight),
                    ys = shapeOfValue(dy);
  int64_t g = getGroups();
  int64_t c = getNhwc() ? xs[3] : xs[1], f = getNhwc() ? ys[3] : ys[1];
  if (g < 1 || c % g != 0 || ws[0] % g != 0 || ws[1] * g != c ||
      ys[0] != xs[0] || f != ws[0])
    return emitOpError("shapes do not match: x ")
           << shapeOf(x) << ", weight " << shapeOf(weight) << ", dy "
           << shapeOf(dy) << ", groups " << g;
  return success();
}

int32_t Conv2DGradKernelOp::getKernelFlags() {
  return (getAccumulate() ? kKernelAccumulate : 0) |
         (getNhwc() ? kKernelNhwc : 0);
}

void Conv2DGradKernelOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  kernelEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// kernel.pool2d_grad
//===----------------------------------------------------------------------===//

LogicalResult Pool2DGradKernelOp::verify() {
  if (failed(verifyPool(*this, {getX(), getY(), getDy(), getInit()},
                        "x, y, dy and init must have rank 4", getX(),
                        {getY(), getDy(), getInit()})))
    return failure();
  // Shapes and element types; on buffers the layouts may differ (y or x
  // may be a view of a Concat's buffer).
  auto sameShape = [](Value a, Value b) {
    auto ta = cast<ShapedType>(a.getType()), tb = cast<ShapedType>(b.getType());
    return ta.getShape() == tb.getShape() &&
           ta.getElementType() == tb.getElementType();
  };
  if (!sameShape(getY(), getDy()) || !sameShape(getX(), getInit()))
    return emitOpError("dy must have y's shape and init x's");
  return success();
}

int32_t Pool2DGradKernelOp::getKernelFlags() { return poolFlags(*this); }

void Pool2DGradKernelOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  kernelEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// kernel.attention
//===----------------------------------------------------------------------===//

LogicalResult AttentionKernelOp::verify() {
  if (failed(verifyForm(*this)))
    return failure();
  ArrayRef<int64_t> qs = shapeOfValue(getQ()), ks = shapeOfValue(getK()),
                    vs = shapeOfValue(getV()), ys = shapeOfValue(getInit());
  size_t rank = qs.size();
  if ((rank != 3 && rank != 4) || ks.size() != rank || vs.size() != rank ||
      ys.size() != rank)
    return emitOpError("q, k, v and init must all have rank 3 or 4, not ")
           << shapeOf(getQ()) << ", " << shapeOf(getK()) << ", "
           << shapeOf(getV()) << " into " << shapeOf(getInit());
  int64_t sq = qs[rank - 2], d = qs[rank - 1];
  int64_t kd = ks[rank - (getTransposeK() ? 2 : 1)];
  int64_t sk = ks[rank - (getTransposeK() ? 1 : 2)];
  // Extents known only at run time match any.
  auto same = infer::mayBeEqual;
  // K and V may have one head where q has several (a group of q's heads
  // sharing one: grouped-query attention).
  auto sameBatch = [&](ArrayRef<int64_t> other, bool broadcasts) {
    for (size_t i = 0; i + 2 < rank; ++i)
      if (!same(qs[i], other[i]) && !(broadcasts && other[i] == 1))
        return false;
    return true;
  };
  if (!sameBatch(ks, true) || !sameBatch(vs, true) || !sameBatch(ys, false) ||
      !same(kd, d) || !same(vs[rank - 2], sk) || !same(ys[rank - 2], sq) ||
      !same(ys[rank - 1], vs[rank - 1]))
    return emitOpError("shapes do not match: q ")
           << shapeOf(getQ()) << ", k " << shapeOf(getK())
           << (getTransposeK() ? "^T" : "") << ", v " << shapeOf(getV())
           << " into " << shapeOf(getInit());
  if (cast<ShapedType>(getScale().getType()).getNumElements() != 1)
    return emitOpError("scale ")
           << shapeOf(getScale()) << " does not hold one element";
  if (Value mask = getMask()) {
    SmallVector<int64_t> scores(qs.drop_back(1));
    scores.push_back(sk);
    if (!infer::broadcastsTo(shapeOfValue(mask), scores))
      return emitOpError("mask ") << shapeOf(mask) << " does not broadcast "
                                  << "to the scores' shape";
  }
  return success();
}

int32_t AttentionKernelOp::getKernelFlags() {
  return getDivide() ? kKernelAttentionDivide : 0;
}

void AttentionKernelOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  kernelEffects(*this, effects);
}
