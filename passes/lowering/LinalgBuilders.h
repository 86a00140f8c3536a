// SPDX-License-Identifier: Apache-2.0
// Small builders of linalg / tensor / arith ops on static tensors, shared by
// the lowerings of mx ops (MxToLinalg.cpp, GradOpsToLinalg.cpp,
// OnnxOpsToLinalg.cpp), so that each builds a generic, a fill or a reshape
// the same way.
#ifndef MXC_PASSES_LOWERING_LINALGBUILDERS_H
#define MXC_PASSES_LOWERING_LINALGBUILDERS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mxc::lowering {

/// The type of `v`, which must be a ranked tensor.
inline mlir::RankedTensorType tensorType(mlir::Value v) {
  return mlir::cast<mlir::RankedTensorType>(v.getType());
}

/// An arith.constant of the float type `type`.
inline mlir::Value constFloat(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Type type, double value) {
  return mlir::arith::ConstantOp::create(b, loc, type,
                                         b.getFloatAttr(type, value));
}

/// A small integer constant (booleans: nonzero is true).
inline mlir::Value constInt(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Type type, int64_t value) {
  unsigned width = type.getIntOrFloatBitWidth();
  llvm::APInt v = width == 1 ? llvm::APInt(1, value != 0)
                             : llvm::APInt(width, value, /*isSigned=*/true);
  return mlir::arith::ConstantOp::create(b, loc, type,
                                         b.getIntegerAttr(type, v));
}

/// `value` as a constant of the element type `type`. Integers take it
/// truncated toward zero and saturated to the signed range (NaN: 0);
/// booleans are true when it is nonzero.
inline mlir::Value constScalar(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Type type, double value) {
  if (mlir::isa<mlir::FloatType>(type))
    return constFloat(b, loc, type, value);
  unsigned width = type.getIntOrFloatBitWidth();
  if (width == 1)
    return constInt(b, loc, type, value != 0.0);
  llvm::APSInt v(width, /*isUnsigned=*/false);
  bool exact;
  (void)llvm::APFloat(value).convertToInteger(v, llvm::APFloat::rmTowardZero,
                                              &exact);
  return mlir::arith::ConstantOp::create(b, loc, type,
                                         b.getIntegerAttr(type, v));
}

/// A tensor.empty of `shape` and `elementType`.
inline mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                               llvm::ArrayRef<int64_t> shape,
                               mlir::Type elementType) {
  return mlir::tensor::EmptyOp::create(b, loc, shape, elementType);
}

/// A fresh tensor of `shape` filled with the scalar `value` (linalg.fill).
inline mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                                llvm::ArrayRef<int64_t> shape,
                                mlir::Value value) {
  mlir::Value init = emptyTensor(b, loc, shape, value.getType());
  return mlir::linalg::FillOp::create(b, loc, value, init).getResult(0);
}

/// A fresh tensor of `shape` filled with `value` as a constant of
/// `elementType` (see constScalar).
inline mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                                llvm::ArrayRef<int64_t> shape,
                                mlir::Type elementType, double value) {
  return filledTensor(b, loc, shape, constScalar(b, loc, elementType, value));
}

/// `n` parallel iterators.
inline llvm::SmallVector<mlir::utils::IteratorType> parallel(unsigned n) {
  return llvm::SmallVector<mlir::utils::IteratorType>(
      n, mlir::utils::IteratorType::parallel);
}

/// Builds the value a linalg.generic yields from its block arguments.
using BodyFn = llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                              mlir::ValueRange)>;

/// One linalg.generic writing a fresh tensor of `shape`: `inputs` read
/// through `inputMaps`, the output through `outputMap` (identity if null),
/// and `body` returns the value to yield from the block arguments (inputs
/// followed by the output's current value).
inline mlir::Value generic(mlir::OpBuilder &b, mlir::Location loc,
                           llvm::ArrayRef<int64_t> shape,
                           mlir::Type elementType, mlir::ValueRange inputs,
                           llvm::ArrayRef<mlir::AffineMap> inputMaps,
                           llvm::ArrayRef<mlir::utils::IteratorType> iterators,
                           BodyFn body, mlir::Value init = nullptr,
                           mlir::AffineMap outputMap = {}) {
  if (!init)
    init = emptyTensor(b, loc, shape, elementType);
  llvm::SmallVector<mlir::AffineMap> maps(inputMaps);
  maps.push_back(outputMap ? outputMap
                           : b.getMultiDimIdentityMap(iterators.size()));
  auto op = mlir::linalg::GenericOp::create(
      b, loc, mlir::TypeRange{init.getType()}, inputs, mlir::ValueRange{init},
      maps, iterators,
      [&](mlir::OpBuilder &nb, mlir::Location nloc, mlir::ValueRange args) {
        mlir::linalg::YieldOp::create(nb, nloc, body(nb, nloc, args));
      });
  return op.getResult(0);
}

/// Elementwise map over tensors of one shape (identity maps everywhere).
inline mlir::Value elementwise(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::RankedTensorType type,
                               mlir::ValueRange inputs, BodyFn body) {
  unsigned rank = type.getRank();
  llvm::SmallVector<mlir::AffineMap> maps(inputs.size(),
                                          b.getMultiDimIdentityMap(rank));
  return generic(b, loc, type.getShape(), type.getElementType(), inputs, maps,
                 parallel(rank), body);
}

/// Map reading an operand of `shape`, broadcast NumPy-style (aligned from the
/// right) into an iteration space of `outShape`.
inline mlir::AffineMap broadcastMap(mlir::MLIRContext *ctx,
                                    llvm::ArrayRef<int64_t> shape,
                                    llvm::ArrayRef<int64_t> outShape) {
  llvm::SmallVector<mlir::AffineExpr> exprs;
  int64_t offset = outShape.size() - shape.size();
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == 1 && outShape[offset + i] != 1)
      exprs.push_back(mlir::getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(mlir::getAffineDimExpr(offset + i, ctx));
  }
  return mlir::AffineMap::get(outShape.size(), 0, exprs, ctx);
}

/// Reshape between equal-sized static shapes (bufferizes to a view).
inline mlir::Value reshapeTo(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value v, llvm::ArrayRef<int64_t> shape) {
  auto type = tensorType(v);
  if (type.getShape() == shape)
    return v;
  auto target = mlir::RankedTensorType::get(shape, type.getElementType());
  mlir::Value flat = v;
  if (type.getRank() != 1) {
    if (type.getRank() == 0) {
      return mlir::tensor::ExpandShapeOp::create(
          b, loc, target, v, llvm::ArrayRef<mlir::ReassociationIndices>{});
    }
    mlir::ReassociationIndices all;
    for (int64_t i = 0; i < type.getRank(); ++i)
      all.push_back(i);
    flat =
        mlir::tensor::CollapseShapeOp::create(b, loc, v, llvm::ArrayRef{all});
  }
  if (shape.empty())
    return mlir::tensor::CollapseShapeOp::create(
        b, loc, target, flat, llvm::ArrayRef<mlir::ReassociationIndices>{});
  if (shape.size() == 1)
    return flat;
  mlir::ReassociationIndices all;
  for (size_t i = 0; i < shape.size(); ++i)
    all.push_back(i);
  return mlir::tensor::ExpandShapeOp::create(b, loc, target, flat,
                                             llvm::ArrayRef{all});
}

/// Pads the spatial axes (from `firstAxis`) with the scalar `pad`: `low`
/// before and `high` after each axis.
inline mlir::Value padAxes(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value v, unsigned firstAxis,
                           llvm::ArrayRef<int64_t> low,
                           llvm::ArrayRef<int64_t> high, mlir::Value pad) {
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return v;
  auto type = tensorType(v);
  llvm::SmallVector<mlir::OpFoldResult> lo(type.getRank(), b.getIndexAttr(0)),
      hi(type.getRank(), b.getIndexAttr(0));
  llvm::SmallVector<int64_t> shape(type.getShape());
  for (size_t i = 0; i < low.size(); ++i) {
    lo[firstAxis + i] = b.getIndexAttr(low[i]);
    hi[firstAxis + i] = b.getIndexAttr(high[i]);
    shape[firstAxis + i] += low[i] + high[i];
  }
  return mlir::tensor::PadOp::create(
      b, loc, mlir::RankedTensorType::get(shape, type.getElementType()), v, lo,
      hi, pad);
}

/// padAxes with `value` as a constant of the element type (see constScalar),
/// made even when nothing is padded.
inline mlir::Value padAxes(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value v, unsigned firstAxis,
                           llvm::ArrayRef<int64_t> low,
                           llvm::ArrayRef<int64_t> high, double value) {
  mlir::Value pad = constScalar(b, loc, tensorType(v).getElementType(), value);
  return padAxes(b, loc, v, firstAxis, low, high, pad);
}

} // namespace mxc::lowering

#endif // MXC_PASSES_LOWERING_LINALGBUILDERS_H
