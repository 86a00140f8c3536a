// SPDX-License-Identifier: Apache-2.0
#include "passes/lowering/DynamicExtents.h"

#include "dialects/mx/InferUtil.h"
#include "dialects/mx/MxDialect.h"
#include "passes/lowering/WindowLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mxc::mx;

namespace mxc::lowering {

namespace {
thread_local const DynamicExtentScope *current = nullptr;

Value constIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value dimOf(OpBuilder &b, Location loc, Value v, int64_t axis) {
  return tensor::DimOp::create(b, loc, v, axis);
}

bool hasDynamicExtent(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && shaped.hasRank() && !shaped.hasStaticShape();
}

/// The windows along spatial axis `s` of an input of `in` elements:
/// (in + pads - reach) / stride + 1, where reach is the dilated kernel.
Value windowCount(OpBuilder &b, Location loc, Value in,
                  const WindowGeometry &geo, unsigned s) {
  int64_t reach = (geo.kernel[s] - 1) * geo.dilate[s] + 1;
  int64_t pads = 2 * geo.pad[s];
  Value span =
      arith::AddIOp::create(b, loc, in, constIndex(b, loc, pads - reach));
  Value q =
      arith::DivSIOp::create(b, loc, span, constIndex(b, loc, geo.stride[s]));
  return arith::AddIOp::create(b, loc, q, constIndex(b, loc, 1));
}

int64_t rankOf(Value v) { return cast<ShapedType>(v.getType()).getRank(); }

/// The elements of `values` times each other, built with `b`.
Value product(OpBuilder &b, Location loc, ArrayRef<Value> values) {
  Value p = constIndex(b, loc, 1);
  for (Value v : values)
    p = arith::MulIOp::create(b, loc, p, v);
  return p;
}

/// The first operand whose axis, right-aligned with result axis `axis` of
/// rank `rank`, is dynamic.
std::optional<std::pair<unsigned, int64_t>>
alignedSource(Operation *op, int64_t rank, int64_t axis) {
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      continue;
    int64_t at = axis - (rank - t.getRank());
    if (at >= 0 && t.isDynamicDim(at))
      return std::pair{unsigned(i), at};
  }
  return std::nullopt;
}

/// Extent `axis` of `op`'s result `result`, from its operands.
Value resultExtent(OpBuilder &b, Location loc, Operation *op,
                   ValueRange operands, unsigned result, int64_t axis) {
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    // The inputs' extents summed on the joined axis, the first's elsewhere.
    auto type = cast<RankedTensorType>(concat.getType());
    int64_t dim = concat.getDim() < 0 ? concat.getDim() + type.getRank()
                                      : concat.getDim();
    if (axis != dim)
      return dimOf(b, loc, operands[0], axis);
    Value sum = constIndex(b, loc, 0);
    for (Value in : operands)
      sum = arith::AddIOp::create(b, loc, sum, dimOf(b, loc, in, axis));
    return sum;
  }
  if (auto conv = dyn_cast<ConvolutionOp>(op); conv && axis >= 2)
    return windowCount(b, loc, dimOf(b, loc, operands[0], axis), windowOf(conv),
                       axis - 2);
  if (auto source = extentSource(op, result, axis))
    return dimOf(b, loc, operands[source->first], source->second);
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    // The inferred extent: the input's elements over the others'.
    Value x = operands[0];
    SmallVector<Value> all, others;
    for (int64_t a = 0; a < rankOf(x); ++a)
      all.push_back(dimOf(b, loc, x, a));
    auto type = cast<RankedTensorType>(reshape.getType());
    for (int64_t a = 0; a < type.getRank(); ++a)
      if (a != axis)
        others.push_back(type.isDynamicDim(a)
                             ? resultExtent(b, loc, op, operands, 0, a)
                             : constIndex(b, loc, type.getDimSize(a)));
    return arith::DivSIOp::create(b, loc, product(b, loc, all),
                                  product(b, loc, others));
  }
  llvm::report_fatal_error("mxc: no operand of '" +
                           op->getName().getStringRef() +
                           "' gives the extent of a dynamic result axis");
}
} // namespace

std::optional<std::pair<unsigned, int64_t>>
extentSource(Operation *op, unsigned result, int64_t axis) {
  auto type = cast<RankedTensorType>(op->getResult(result).getType());
  int64_t rank = type.getRank();
  using Source = std::optional<std::pair<unsigned, int64_t>>;
  auto from = [](unsigned operand, int64_t at) -> Source {
    return std::pair{operand, at};
  };
  if (isa<ConvolutionOp>(op))
    return axis == 0 ? from(0, 0) : Source();
  if (auto t = dyn_cast<TransposeOp>(op)) {
    ArrayRef<int64_t> perm = t.getAxes();
    return from(0, perm.empty() ? rank - 1 - axis : perm[axis]);
  }
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    // Only the simple codes keep positions: k > 0, 0 (copy), -1 (infer).
    ArrayRef<int64_t> codes = reshape.getShape();
    if (reshape.getReverse() ||
        llvm::any_of(codes, [](int64_t c) { return c < -1; }) ||
        axis >= int64_t(codes.size()))
      return Source();
    return codes[axis] == 0 ? from(0, axis) : Source();
  }
  if (auto r = dyn_cast<ReshapeToExtentsOp>(op)) {
    // An extent that is one source's own.
    ArrayRef<int64_t> e =
        cast<DenseI64ArrayAttr>(r.getExtents()[axis]).asArrayRef();
    if (e.size() == 5 && e[0] == 1 && e[1] == 1 && e[2] == 0)
      return from(e[3], e[4]);
    return Source();
  }
  if (auto gather = dyn_cast<GatherOp>(op)) {
    // data[:axis] + indices' shape + data[axis + 1:].
    int64_t a = gather.getAxis() < 0
                    ? gather.getAxis() + rankOf(gather.getData())
                    : gather.getAxis();
    int64_t ri = rankOf(gather.getIndices());
    if (axis < a)
      return from(0, axis);
    if (axis < a + ri)
      return from(1, axis - a);
    return from(0, axis - ri + 1);
  }
  if (isa<MatMulOp, DotOp>(op)) {
    bool ta = false, tb = false;
    if (auto dot = dyn_cast<DotOp>(op)) {
      ta = dot.getTransposeA();
      tb = dot.getTransposeB();
    }
    int64_t la = rankOf(op->getOperand(0)), lb = rankOf(op->getOperand(1));
    if (axis == rank - 1)
      return lb == 1 ? Source() : from(1, tb ? lb - 2 : lb - 1);
    if (axis == rank - 2 && la >= 2)
      return from(0, ta ? la - 1 : la - 2);
    // Batch axes broadcast, right-aligned before the matrices.
    for (auto [i, r] : {std::pair{0u, la}, {1u, lb}}) {
      int64_t at = axis - (rank - r);
      if (at >= 0 && at < r - 2 &&
          cast<RankedTensorType>(op->getOperand(i).getType()).isDynamicDim(at))
        return from(i, at);
    }
    return Source();
  }
  if (auto reduce = dyn_cast<ReduceOp>(op); reduce && !reduce.getKeepdims()) {
    auto reduced =
        infer::reducedAxes(std::nullopt, reduce.getAxis(),
                           rankOf(reduce.getData()), reduce.getExclude());
    if (failed(reduced))
      return Source();
    int64_t kept = -1;
    for (auto [a, r] : llvm::enumerate(*reduced))
      if (!r && ++kept == axis)
        return from(0, a);
    return Source();
  }
  return alignedSource(op, rank, axis);
}

DynamicExtentScope::DynamicExtentScope(Operation *op, ValueRange operands)
    : op(op), operands(operands), outer(current) {
  current = this;
}

DynamicExtentScope::~DynamicExtentScope() { current = outer; }

SmallVector<Value> dynamicExtents(OpBuilder &b, Location loc,
                                  ArrayRef<int64_t> shape) {
  SmallVector<Value> extents;
  if (!llvm::any_of(shape, ShapedType::isDynamic))
    return extents;
  if (!current)
    llvm::report_fatal_error(
        "mxc: a tensor of dynamic shape built outside an op's lowering");
  auto fill = [&](auto extentOf) {
    for (auto [axis, d] : llvm::enumerate(shape))
      if (ShapedType::isDynamic(d))
        extents.push_back(extentOf(int64_t(axis)));
    return extents;
  };
  // The op's result first: its extents follow the op's own rules (a
  // transpose's are permuted, though its shape may read as the input's).
  for (OpResult r : current->op->getResults())
    if (cast<ShapedType>(r.getType()).getShape() == shape)
      return fill([&](int64_t axis) {
        return resultExtent(b, loc, current->op, current->operands,
                            r.getResultNumber(), axis);
      });
  // Then an operand of the same shape, where the op keeps its operands'
  // axes in place.
  bool inPlace =
      !isa<TransposeOp, ReshapeOp, ReshapeToExtentsOp, MatMulOp, DotOp>(
          current->op);
  for (Value v : current->operands)
    if (auto t = dyn_cast<RankedTensorType>(v.getType());
        inPlace && t && t.getShape() == shape)
      return fill([&](int64_t axis) { return dimOf(b, loc, v, axis); });
  // An intermediate of the op's rank (a reduction kept with extent 1, a
  // softmax's maxima): its dynamic axes are the operands'.
  if (!isa<ReduceOp, SoftmaxOp>(current->op))
    llvm::report_fatal_error("mxc: '" + current->op->getName().getStringRef() +
                             "' builds a tensor of a dynamic shape that is "
                             "neither an operand's nor its result's");
  return fill([&](int64_t axis) {
    int64_t rank = shape.size();
    for (Value v : current->operands) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (t && t.getRank() == rank && t.isDynamicDim(axis))
        return dimOf(b, loc, v, axis);
    }
    llvm::report_fatal_error("mxc: '" + current->op->getName().getStringRef() +
                             "' builds a tensor of a dynamic shape that is "
                             "neither an operand's nor its result's");
  });
}

bool lowersWithDynamicExtents(Operation *op) {
  if (!llvm::any_of(op->getOperandTypes(), hasDynamicExtent) &&
      !llvm::any_of(op->getResultTypes(), hasDynamicExtent))
    return true;
  if (auto slice = dyn_cast<SliceOp>(op)) {
    // Dynamic axes whole: from 0, step 1, to the end.
    auto data = cast<RankedTensorType>(slice.getData().getType());
    for (auto [i, begin] : llvm::enumerate(slice.getBegin()))
      if (data.isDynamicDim(i) &&
          (begin != 0 || slice.getEnd()[i] < (int64_t(1) << 62) ||
           (!slice.getStep().empty() && slice.getStep()[i] != 1)))
        return false;
    return true;
  }
  if (auto gather = dyn_cast<GatherOp>(op)) {
    // From an axis of static extent (indices wrap and clamp by it).
    auto data = cast<RankedTensorType>(gather.getData().getType());
    int64_t a = gather.getAxis() < 0 ? gather.getAxis() + data.getRank()
                                     : gather.getAxis();
    return !data.isDynamicDim(a);
  }
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    // A mean over static axes only (its count is a constant); the other
    // reductions over any.
    auto data = cast<RankedTensorType>(reduce.getData().getType());
    auto reduced = infer::reducedAxes(std::nullopt, reduce.getAxis(),
                                      data.getRank(), reduce.getExclude());
    if (failed(reduced) || reduce.getAxis().empty())
      return false;
    for (auto [i, r] : llvm::enumerate(*reduced))
      if (r && data.isDynamicDim(i) && reduce.getOp() == "mean")
        return false;
    return true;
  }
  if (auto conv = dyn_cast<ConvolutionOp>(op))
    return cast<RankedTensorType>(conv.getType()).getRank() == 4 &&
           cast<RankedTensorType>(conv.getType()).getElementType().isF32();
  return isa<ActivationOp, LeakyReLUOp, DropoutOp, UnaryOp, ClipOp, BinaryOp,
             ScalarOp, BlockGradOp, CastOp, CompareOp, WhereOp, FmaOp,
             ReshapeOp, ReshapeToExtentsOp, FillToExtentsOp, TriluOp,
             TransposeOp, MatMulOp, DotOp, ReduceOp, SoftmaxOp, ConcatOp>(op);
}

} // namespace mxc::lowering
