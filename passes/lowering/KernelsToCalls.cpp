// SPDX-License-Identifier: Apache-2.0
// mx.kernel.* on memrefs -> calls of the runtime's kernels (see
// KernelsToCallsPass in Passes.td and runtime/include/mxrt/kernels.h, whose
// signatures the declarations below must match).
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mxc {
#define GEN_PASS_DEF_KERNELSTOCALLSPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc::mx;

namespace {

/// Builds the call arguments of one kernel op.
struct ArgBuilder {
  OpBuilder &b;
  Location loc;
  SmallVector<Value> args;

  Value i64(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  }
  Value i64(Value index) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  }
  /// Extent `axis` of the memref `m`: a constant, or read from `m` where
  /// it is dynamic.
  Value extent(Value m, int64_t axis) {
    int64_t d = cast<MemRefType>(m.getType()).getDimSize(axis);
    if (!ShapedType::isDynamic(d))
      return i64(d);
    return i64(memref::DimOp::create(b, loc, m, axis).getResult());
  }
  void add(int64_t v) { args.push_back(i64(v)); }
  void add(Value v) { args.push_back(v); }
  /// The trailing MXRT_KERNEL_* flags argument, an i32.
  void addFlags(int32_t flags) {
    args.push_back(
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(flags)));
  }

  /// The address of `m`'s first element and its strides in elements.
  std::pair<Value, SmallVector<Value>> view(Value m) {
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, m);
    Value aligned = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, m);
    int64_t width = cast<MemRefType>(m.getType()).getElementTypeBitWidth() / 8;
    Value bytes =
        arith::MulIOp::create(b, loc, meta.getOffset(),
                              arith::ConstantIndexOp::create(b, loc, width));
    Value address = i64(arith::AddIOp::create(b, loc, aligned, bytes));
    Value ptr = LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), address);
    SmallVector<Value> strides;
    for (Value s : meta.getStrides())
      strides.push_back(i64(s));
    return {ptr, strides};
  }
  /// `stride`, or 0 where `m`'s extent along `axis` is 1 at run time (an
  /// axis that broadcasts).
  Value broadcastStride(Value m, int64_t axis, Value stride) {
    Value one = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      extent(m, axis), i64(1));
    return arith::SelectOp::create(b, loc, one, i64(0), stride);
  }
  Value null() {
    return LLVM::ZeroOp::create(b, loc,
                                LLVM::LLVMPointerType::get(b.getContext()));
  }
};

/// Whether `v` is (a view of) a function argument marked constant.
bool isConstant(Value v) {
  return mxc::isArgumentWith(v, mxc::kConstantArgAttr);
}

/// MXRT_KERNEL_* flags (mxrt/kernels.h): the op's epilogue, which of A
/// and B never change, and (`bf16`) bfloat16 operands.
int32_t callFlags(Operation *op, Value a, Value b, bool bf16) {
  int32_t flags = bf16 ? kKernelBf16 : 0;
  if (auto mm = dyn_cast<MatmulKernelOp>(op))
    flags |= mm.getKernelFlags();
  else
    flags |= cast<Conv2DKernelOp>(op).getKernelFlags();
  return flags | (isConstant(a) ? kKernelConstA : 0) |
         (isConstant(b) ? kKernelConstB : 0);
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<MemRefType>(v.getType()).getShape();
}

/// mxrt_kernel_sgemm's arguments for `op`.
SmallVector<Value> sgemmArgs(OpBuilder &b, MatmulKernelOp op, bool bf16) {
  ArgBuilder ab{b, op.getLoc(), {}};
  ArrayRef<int64_t> ys = shapeOf(op.getInit()), as = shapeOf(op.getA());
  int64_t yRank = ys.size(), aRank = as.size();
  Value y = op.getInit();
  ab.add(yRank == 3 ? ab.extent(y, 0) : ab.i64(1));
  ab.add(ab.extent(y, yRank - 2));                                    // m
  ab.add(ab.extent(y, yRank - 1));                                    // n
  ab.add(ab.extent(op.getA(), aRank - (op.getTransposeA() ? 2 : 1))); // k
  Value zero = ab.i64(0);
  // An operand: pointer, batch stride, then the strides of its (row,
  // column) in the product, swapped when transposed.
  auto operand = [&](Value v, bool transposed) {
    auto [ptr, strides] = ab.view(v);
    size_t r = strides.size();
    ab.add(ptr);
    ab.add(r == 3 ? strides[0] : zero);
    ab.add(strides[transposed ? r - 1 : r - 2]);
    ab.add(strides[transposed ? r - 2 : r - 1]);
  };
  operand(op.getA(), op.getTransposeA());
  operand(op.getB(), op.getTransposeB());
  operand(op.getInit(), false);
  if (Value bias = op.getBias()) {
    // Right-aligned against init's axes; extent-1 and missing axes repeat.
    auto [ptr, strides] = ab.view(bias);
    ArrayRef<int64_t> bs = shapeOf(bias);
    ab.add(ptr);
    int64_t bRank = bs.size();
    for (int64_t d = 0; d < 3; ++d) { // batch, row, column
      int64_t yAxis = d - (3 - yRank), bAxis = yAxis - (yRank - bRank);
      ab.add(yAxis < 0 || bAxis < 0 || bs[bAxis] == 1 ? zero : strides[bAxis]);
    }
  } else {
    ab.add(ab.null());
    for (int i = 0; i < 3; ++i)
      ab.add(zero);
  }
  ab.addFlags(callFlags(op, op.getA(), op.getB(), bf16));
  return ab.args;
}

/// The geometry arguments every convolution kernel starts with: n, c, h,
/// w (of the forward's input `x`), f, oh, ow (its output `y`: the forward's
/// result or the gradient's dy), kh, kw (of the weight), strides, pads,
/// dilations and groups; x and y channels last where the op is nhwc.
template <typename ConvOp>
void addConvGeometry(ArgBuilder &ab, ConvOp op, Value x, Value y) {
  ArrayRef<int64_t> ws = shapeOf(op.getWeight());
  bool last = op.getNhwc();
  for (auto [v, axis] : {std::pair{x, 0},
                         {x, last ? 3 : 1},
                         {x, last ? 1 : 2},
                         {x, last ? 2 : 3}})
    ab.add(ab.extent(v, axis)); // n, c, h, w
  ab.add(ws[0]);
  ab.add(ab.extent(y, last ? 1 : 2)); // oh
  ab.add(ab.extent(y, last ? 2 : 3)); // ow
  for (int64_t v : {ws[2], ws[3], op.getStrides()[0], op.getStrides()[1],
                    op.getPads()[0], op.getPads()[1], op.getDilations()[0],
                    op.getDilations()[1], int64_t(op.getGroups())})
    ab.add(v);
}

/// mxrt_kernel_sconv2d's arguments for `op` (with a scale,
/// mxrt_kernel_sconv2d_scaled's; contiguous NCHW buffers, or
/// NHWC).
SmallVector<Value> sconv2dArgs(OpBuilder &b, Conv2DKernelOp op, bool bf16) {
  ArgBuilder ab{b, op.getLoc(), {}};
  addConvGeometry(ab, op, op.getX(), op.getInit());
  ab.add(ab.view(op.getX()).first);
  ab.add(ab.view(op.getWeight()).first);
  if (op.getScale()) // mxrt_kernel_sconv2d_scaled's
    ab.add(ab.view(op.getScale()).first);
  ab.add(op.getBias() ? ab.view(op.getBias()).first : ab.null());
  ab.add(ab.view(op.getInit()).first);
  // In a training library's inference function, a weight (a learned
  // parameter the instance holds) may stay packed between calls until the
  // instance's parameters change: Forward after Forward re-packs nothing.
  // (Not in grad / train_step, which follow an update as a rule: they pack
  // per call into a scratch buffer, not a kept copy per weight.)
  int32_t flags = callFlags(op, op.getWeight(), op.getX(),
                            bf16 && mxc::bf16Convolution(op));
  if (!(flags & kKernelConstA) && mxc::isKeptParameter(op, op.getWeight()))
    flags |= kKernelParamA;
  ab.addFlags(flags);
  return ab.args;
}

/// mxrt_kernel_sconv2d_backward's arguments for `op`: the forward's
/// geometry, then x, weight, dy, dx and dweight, the two that `op` does not
/// read or write NULL.
SmallVector<Value> sconv2dBackwardArgs(OpBuilder &b, Conv2DGradKernelOp op) {
  ArgBuilder ab{b, op.getLoc(), {}};
  addConvGeometry(ab, op, op.getX(), op.getDy());
  bool data = op.getWrt() == "data";
  auto pointer = [&](Value v) { return ab.view(v).first; };
  ab.add(data ? ab.null() : pointer(op.getX()));
  ab.add(data ? pointer(op.getWeight()) : ab.null());
  ab.add(pointer(op.getDy()));
  ab.add(data ? pointer(op.getInit()) : ab.null());
  ab.add(data ? ab.null() : pointer(op.getInit()));
  ab.addFlags(op.getKernelFlags());
  return ab.args;
}

/// The geometry arguments both pooling kernels start with: n, c, h, w (of
/// x), oh, ow (of the output `y`), the kernel, strides and pads.
template <typename PoolOp>
void addPoolGeometry(ArgBuilder &ab, PoolOp op, Value y) {
  for (int64_t axis = 0; axis < 4; ++axis) // n, c, h, w
    ab.add(ab.extent(op.getX(), axis));
  ab.add(ab.extent(y, 2)); // oh
  ab.add(ab.extent(y, 3)); // ow
  for (int64_t v : {op.getKernel()[0], op.getKernel()[1], op.getStrides()[0],
                    op.getStrides()[1], op.getPads()[0], op.getPads()[1]})
    ab.add(v);
}

/// mxrt_kernel_spool2d's arguments for `op` (any strides).
SmallVector<Value> spool2dArgs(OpBuilder &b, Pool2DKernelOp op) {
  ArgBuilder ab{b, op.getLoc(), {}};
  addPoolGeometry(ab, op, op.getInit());
  for (Value v : {op.getX(), op.getInit()}) {
    auto [ptr, strides] = ab.view(v);
    ab.add(ptr);
    for (Value s : strides)
      ab.add(s);
  }
  ab.addFlags(op.getKernelFlags());
  return ab.args;
}

/// mxrt_kernel_spool2d_backward's arguments for `op` (contiguous buffers).
SmallVector<Value> spool2dBackwardArgs(OpBuilder &b, Pool2DGradKernelOp op) {
  ArgBuilder ab{b, op.getLoc(), {}};
  addPoolGeometry(ab, op, op.getY());
  for (Value v : op->getOperands())
    ab.add(ab.view(v).first);
  ab.addFlags(op.getKernelFlags());
  return ab.args;
}

/// The product of extents [from, to) of the static memref `m`.
int64_t extentProduct(Value m, int64_t from, int64_t to) {
  auto shape = cast<MemRefType>(m.getType()).getShape();
  int64_t p = 1;
  for (int64_t d = from; d < to; ++d)
    p *= shape[d];
  return p;
}

/// mxrt_kernel_qgemm_u8s8's arguments for `op` (contiguous buffers): A's,
/// B's and C's row strides, A's zero point by address, B's by address and
/// column stride (0 for one value).
SmallVector<Value> qgemmArgs(OpBuilder &b, QMatmulKernelOp op) {
  ArgBuilder ab{b, op.getLoc(), {}};
  Value y = op.getInit(), zb = op.getBZero();
  ab.add(ab.extent(y, 0));
  ab.add(ab.extent(y, 1));
  ab.add(ab.extent(op.getA(), 1));
  auto [a, aStrides] = ab.view(op.getA());
  ab.add(a);
  ab.add(aStrides[0]);
  ab.add(ab.view(op.getAZero()).first);
  auto [bp, bStrides] = ab.view(op.getB());
  ab.add(bp);
  ab.add(bStrides[0]);
  auto [zp, zStrides] = ab.view(zb);
  ab.add(zp);
  ab.add(cast<MemRefType>(zb.getType()).getNumElements() == 1
             ? ab.i64(0)
             : zStrides.back());
  auto [c, cStrides] = ab.view(y);
  ab.add(c);
  ab.add(cStrides[0]);
  ab.addFlags(op.getKernelFlags() |
              (isConstant(op.getB()) ? kKernelConstB : 0));
  return ab.args;
}

/// mxrt_kernel_qconv2d_u8s8's (or, requantizing, _requant's) arguments for
/// `op` (contiguous buffers).
SmallVector<Value> qconv2dArgs(OpBuilder &b, QConv2DKernelOp op) {
  ArgBuilder ab{b, op.getLoc(), {}};
  auto xs = shapeOf(op.getX()), ws = shapeOf(op.getWeight()),
       ys = shapeOf(op.getInit());
  // (N, C, H, W) and (N, F, OH, OW) extents, from their channels-last axes
  // with nhwc.
  int64_t c = 1, h = 2, w = 3;
  if (op.getNhwc())
    c = 3, h = 1, w = 2;
  for (int64_t e : {xs[0], xs[c], xs[h], xs[w], ys[c], ys[h], ys[w], ws[2],
                    ws[3], op.getStrides()[0], op.getStrides()[1],
                    op.getPads()[0], op.getPads()[1], op.getDilations()[0],
                    op.getDilations()[1], int64_t(op.getGroups())})
    ab.add(e);
  ab.add(ab.view(op.getX()).first);
  ab.add(ab.view(op.getXZero()).first);
  ab.add(ab.view(op.getWeight()).first);
  Value zw = op.getWZero();
  ab.add(ab.view(zw).first);
  ab.add(cast<MemRefType>(zw.getType()).getNumElements() == 1 ? int64_t(0)
                                                              : int64_t(1));
  ab.add(op.getBias() ? ab.view(op.getBias()).first : ab.null());
  if (op.getRequant()) { // mxrt_kernel_qconv2d_u8s8_requant's
    Value m = op.getMultiplier();
    ab.add(ab.view(m).first);
    ab.add(cast<MemRefType>(m.getType()).getNumElements() == 1 ? int64_t(0)
                                                               : int64_t(1));
    ab.add(ab.view(op.getYZero()).first);
    ab.addFlags(static_cast<int32_t>(static_cast<int64_t>(op.getYMin())));
    ab.addFlags(static_cast<int32_t>(static_cast<int64_t>(op.getYMax())));
  }
  ab.add(ab.view(op.getInit()).first);
  ab.addFlags(op.getKernelFlags() |
              (isConstant(op.getWeight()) ? kKernelConstA : 0));
  return ab.args;
}

/// mxrt_kernel_qmaxpool2d's arguments for `op` (contiguous buffers).
SmallVector<Value> qmaxpool2dArgs(OpBuilder &b, QMaxPool2DKernelOp op) {
  ArgBuilder ab{b, op.getLoc(), {}};
  auto xs = shapeOf(op.getX()), ys = shapeOf(op.getInit());
  // (N, C, H, W) extents, from their channels-last axes with nhwc.
  int64_t c = 1, h = 2, w = 3;
  if (op.getNhwc())
    c = 3, h = 1, w = 2;
  for (int64_t e : {xs[0], xs[c], xs[h], xs[w], ys[h], ys[w], op.getKernel()[0],
                    op.getKernel()[1], op.getStrides()[0], op.getStrides()[1],
                    op.getPads()[0], op.getPads()[1]})
    ab.add(e);
  ab.add(ab.view(op.getX()).first);
  ab.add(ab.view(op.getInit()).first);
  ab.addFlags(op.getKernelFlags());
  return ab.args;
}

/// mxrt_kernel_topk_f32's arguments for `op` (contiguous buffers).
SmallVector<Value> topkArgs(OpBuilder &b, TopKKernelOp op) {
  ArgBuilder ab{b, op.getLoc(), {}};
  Value x = op.getX(), y = op.getInit();
  int64_t axis = op.getAxis(), rank = shapeOf(x).size();
  ab.add(ab.view(x).first);
  ab.add(extentProduct(x, 0, axis));
  ab.add(shapeOf(x)[axis]);
  ab.add(extentProduct(x, axis + 1, rank));
  ab.add(ab.view(op.getCount()).first);
  ab.add(ab.view(op.getK()).first);
  ab.add(shapeOf(y)[axis]);
  ab.add(ab.view(y).first);
  ab.addFlags(op.getKernelFlags());
  return ab.args;
}

/// mxrt_kernel_nms_f32's arguments for `op` (contiguous buffers).
SmallVector<Value> nmsArgs(OpBuilder &b, NmsKernelOp op) {
  ArgBuilder ab{b, op.getLoc(), {}};
  auto scores = shapeOf(op.getScores());
  ab.add(ab.view(op.getBoxes()).first);
  ab.add(ab.view(op.getScores()).first);
  for (int64_t e : scores)
    ab.add(e);
  for (Value v : {op.getCount(), op.getMaxPerClass(), op.getIouThreshold()})
    ab.add(ab.view(v).first);
  ab.add(op.getScoreThreshold() ? ab.view(op.getScoreThreshold()).first
                                : ab.null());
  ab.add(ab.view(op.getInit()).first);
  ab.addFlags(op.getKernelFlags());
  return ab.args;
}

/// mxrt_kernel_sattention's arguments for `op` (any strides): n and h (a
/// rank-3 op's batch is n, with one head), the extents, then each operand's
/// pointer and (n, h, row, column) strides; the mask right-aligned against
/// the scores, its missing and extent-1 axes stride 0.
SmallVector<Value> sattentionArgs(OpBuilder &b, AttentionKernelOp op) {
  ArgBuilder ab{b, op.getLoc(), {}};
  Value q = op.getQ(), k = op.getK(), v = op.getV(), y = op.getInit();
  int64_t rank = shapeOf(q).size();
  Value zero = ab.i64(0);
  ab.add(ab.extent(y, 0));
  ab.add(rank == 4 ? ab.extent(y, 1) : ab.i64(1));
  ab.add(ab.extent(q, rank - 2)); // sq
  ab.add(ab.extent(v, rank - 2)); // sk
  ab.add(ab.extent(q, rank - 1)); // d
  ab.add(ab.extent(v, rank - 1)); // dv
  // Pointer and strides; `swap` exchanges the row and column strides. A
  // batch axis of extent 1 where q's is not (K and V shared by a group of
  // heads) is read with stride 0.
  ArrayRef<int64_t> qs = shapeOf(q);
  auto operand = [&](Value m, bool swap) {
    auto [ptr, strides] = ab.view(m);
    ArrayRef<int64_t> ms = shapeOf(m);
    auto batchStride = [&, &strides = strides](int64_t axis) {
      return ms[axis] == 1 && qs[axis] != 1 ? zero : strides[axis];
    };
    ab.add(ptr);
    ab.add(batchStride(0));
    ab.add(rank == 4 ? batchStride(1) : zero);
    ab.add(strides[rank - (swap ? 1 : 2)]);
    ab.add(strides[rank - (swap ? 2 : 1)]);
  };
  operand(q, false);
  operand(k, op.getTransposeK());
  operand(v, false);
  if (Value mask = op.getMask()) {
    auto [ptr, strides] = ab.view(mask);
    ArrayRef<int64_t> ms = shapeOf(mask);
    int64_t mRank = ms.size();
    ab.add(ptr);
    for (int64_t axis = 0; axis < 4; ++axis) { // n, h, row, column
      int64_t scoresAxis = axis - (4 - rank),
              maskAxis = scoresAxis - (rank - mRank);
      if (scoresAxis < 0 || maskAxis < 0 || ms[maskAxis] == 1)
        ab.add(zero);
      else if (ShapedType::isDynamic(ms[maskAxis]))
        ab.add(ab.broadcastStride(mask, maskAxis, strides[maskAxis]));
      else
        ab.add(strides[maskAxis]);
    }
  } else {
    ab.add(ab.null());
    for (int i = 0; i < 4; ++i)
      ab.add(zero);
  }
  ab.add(ab.view(op.getScale()).first);
  operand(y, false);
  ab.addFlags(op.getKernelFlags());
  return ab.args;
}

/// Declares `name` (void, taking `args`' types) in `module` once.
func::FuncOp declare(ModuleOp module, StringRef name, ValueRange args) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToStart(module.getBody());
  auto fn =
      func::FuncOp::create(b, module.getLoc(), name,
                           b.getFunctionType(TypeRange(args), TypeRange{}));
  fn.setPrivate();
  return fn;
}

struct KernelsToCallsPass
    : mxc::impl::KernelsToCallsPassBase<KernelsToCallsPass> {
  using KernelsToCallsPassBase::KernelsToCallsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (precision != "fp32" && precision != "bf16") {
      emitError(module.getLoc())
          << "mxc-kernels-to-calls: precision must be fp32 or bf16, not '"
          << precision << "'";
      return signalPassFailure();
    }
    bool bf16 = precision == "bf16";
    SmallVector<Operation *> kernels;
    module.walk([&](Operation *op) {
      if (isKernelOp(op))
        kernels.push_back(op);
    });
    for (Operation *op : kernels) {
      if (op->getNumResults() != 0) {
        op->emitOpError("is still on tensors; bufferize first");
        return signalPassFailure();
      }
      OpBuilder b(op);
      // mxc-contiguous-kernel-operands gave the kernels that read only
      // contiguous buffers copies of strided views.
      if (needsContiguousBuffers(op))
        for (Value v : op->getOperands())
          if (!isContiguousBuffer(v)) {
            op->emitOpError("needs contiguous buffers, got ") << v.getType();
            return signalPassFailure();
          }
      using Call = std::pair<StringRef, SmallVector<Value>>;
      Call call = llvm::TypeSwitch<Operation *, Call>(op)
                      .Case([&](MatmulKernelOp k) -> Call {
                        return {"sgemm", sgemmArgs(b, k, bf16)};
                      })
                      .Case([&](Pool2DKernelOp k) -> Call {
                        return {"spool2d", spool2dArgs(b, k)};
                      })
                      .Case([&](Conv2DKernelOp k) -> Call {
                        return {k.getScale() ? "sconv2d_scaled" : "sconv2d",
                                sconv2dArgs(b, k, bf16)};
                      })
                      .Case([&](Conv2DGradKernelOp k) -> Call {
                        return {"sconv2d_backward", sconv2dBackwardArgs(b, k)};
                      })
                      .Case([&](Pool2DGradKernelOp k) -> Call {
                        return {"spool2d_backward", spool2dBackwardArgs(b, k)};
                      })
                      .Case([&](AttentionKernelOp k) -> Call {
                        return {"sattention", sattentionArgs(b, k)};
                      })
                      .Case([&](QConv2DKernelOp k) -> Call {
                        return {k.getRequant() ? "qconv2d_u8s8_requant"
                                               : "qconv2d_u8s8",
                                qconv2dArgs(b, k)};
                      })
                      .Case([&](QMatmulKernelOp k) -> Call {
                        return {"qgemm_u8s8", qgemmArgs(b, k)};
                      })
                      .Case([&](QMaxPool2DKernelOp k) -> Call {
                        return {"qmaxpool2d", qmaxpool2dArgs(b, k)};
                      })
                      .Case([&](TopKKernelOp k) -> Call {
                        return {"topk_f32", topkArgs(b, k)};
                      })
                      .Case([&](NmsKernelOp k) -> Call {
                        return {"nms_f32", nmsArgs(b, k)};
                      })
                      .Case([&](RandomSeedKernelOp k) -> Call {
                        ArgBuilder ab{b, k.getLoc(), {}};
                        ab.add(ab.view(k.getInit()).first);
                        ab.addFlags(k.getKernelFlags());
                        return {"random_seed", ab.args};
                      });
      auto &[kernel, args] = call;
      func::CallOp::create(b, op->getLoc(),
                           declare(module, prefix + kernel.str(), args), args);
      op->erase();
    }
  }
};

} // namespace

/// 3x3 stride-1 convolutions stay float32, whose Winograd F(4x4) / F(2x2)
/// does 4 or 2.25 times fewer products than bfloat16's direct kernels (at
/// about twice float32's rate), but for small images: one thread, AMD
/// EPYC Zen 5, channels last (where --precision=bf16 puts them),
/// float32 Winograd against bfloat16: 64 channels at 56 x 56 0.40 against
/// 0.92 ms, 128 at 28 x 28 0.41 against 0.74, 256 at 14 x 14 0.56 against
/// 0.63 (17.8 against 26.4 ms at batch 32), 512 at 7 x 7 0.81-0.90
/// against 0.71-0.79 (23.6 against 20.4 at batch 32): Winograd's tiles of
/// a 7 x 7 image are too few (docs/kernels.md).
constexpr int64_t kBf16WinogradPixels = 64;

bool mxc::bf16Convolution(mx::Conv2DKernelOp op) {
  auto ws = cast<ShapedType>(op.getWeight().getType()).getShape();
  auto ys = cast<ShapedType>(op.getInit().getType()).getShape();
  auto ones = [](ArrayRef<int64_t> v) {
    return llvm::all_of(v, [](int64_t s) { return s == 1; });
  };
  bool winograd = ws[2] == 3 && ws[3] == 3 && op.getGroups() == 1 &&
                  ones(op.getStrides()) && ones(op.getDilations());
  int64_t oh = ys[op.getNhwc() ? 1 : 2], ow = ys[op.getNhwc() ? 2 : 3];
  bool small = !ShapedType::isDynamic(oh) && !ShapedType::isDynamic(ow) &&
               oh * ow <= kBf16WinogradPixels;
  return !winograd || small;
}
