// SPDX-License-Identifier: Apache-2.0
// Builders of linalg / tensor ops on static tensors shared by every lowering
// of mx ops to linalg (passes/lowering/linalg/), so that each family builds a
// generic, a reduction, a fill, a reshape, a pad or a slice the same way.
#ifndef MXC_PASSES_LOWERING_LINALGBUILDERS_H
#define MXC_PASSES_LOWERING_LINALGBUILDERS_H

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

/// `axis` counted from the end when negative (MXNet's and ONNX's convention).
inline int64_t normalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

//===----------------------------------------------------------------------===//
// Fresh tensors
//===----------------------------------------------------------------------===//

/// A tensor.empty of `shape` and `elementType`; its dynamic extents are
/// `extents` (one per dynamic axis) when given, else those of the op being
/// lowered (DynamicExtents.h).
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                        llvm::ArrayRef<int64_t> shape, mlir::Type elementType,
                        mlir::ValueRange extents = {});

/// A fresh tensor of `shape` filled with the scalar `value` (linalg.fill);
/// dynamic extents as emptyTensor's.
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::ArrayRef<int64_t> shape, mlir::Value value,
                         mlir::ValueRange extents = {});

/// A fresh tensor of `shape` filled with `value` as a constant of
/// `elementType` (see constScalar).
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::ArrayRef<int64_t> shape, mlir::Type elementType,
                         double value);

//===----------------------------------------------------------------------===//
// Iteration spaces and indexing maps
//===----------------------------------------------------------------------===//

/// `n` parallel iterators.
llvm::SmallVector<mlir::utils::IteratorType> parallel(unsigned n);

/// `nParallel` parallel iterators followed by `nReduction` reduction ones.
llvm::SmallVector<mlir::utils::IteratorType> iterators(unsigned nParallel,
                                                       unsigned nReduction);

/// The map of `nDims` loops to `exprs`.
mlir::AffineMap loopMap(mlir::MLIRContext *ctx, unsigned nDims,
                        llvm::ArrayRef<mlir::AffineExpr> exprs);

/// Map reading an operand of `shape`, broadcast NumPy-style (aligned from the
/// right) into an iteration space of `outShape`.
mlir::AffineMap broadcastMap(mlir::MLIRContext *ctx,
                             llvm::ArrayRef<int64_t> shape,
                             llvm::ArrayRef<int64_t> outShape);

/// Map reading a 1-D per-channel operand along `axis` of a rank-`rank` space.
mlir::AffineMap channelMap(mlir::MLIRContext *ctx, unsigned rank,
                           unsigned axis);

/// Map of a rank-`rank` space to its `count` axes from `first` on (the
/// spatial axes of NC... data read by a per-position operand).
mlir::AffineMap axesMap(mlir::MLIRContext *ctx, unsigned rank, unsigned first,
                        unsigned count);

//===----------------------------------------------------------------------===//
// linalg.generic
//===----------------------------------------------------------------------===//

/// Builds the value a linalg.generic yields from its block arguments.
using BodyFn = llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                              mlir::ValueRange)>;

/// One linalg.generic writing a fresh tensor of `shape`: `inputs` read
/// through `inputMaps`, the output through `outputMap` (identity if null),
/// and `body` returns the value to yield from the block arguments (inputs
/// followed by the output's current value). `init` (default: a tensor.empty)
/// is the output's initial value, which reductions accumulate into.
mlir::Value generic(mlir::OpBuilder &b, mlir::Location loc,
                    llvm::ArrayRef<int64_t> shape, mlir::Type elementType,
                    mlir::ValueRange inputs,
                    llvm::ArrayRef<mlir::AffineMap> inputMaps,
                    llvm::ArrayRef<mlir::utils::IteratorType> iterators,
                    BodyFn body, mlir::Value init = nullptr,
                    mlir::AffineMap outputMap = {});

/// Elementwise map over tensors of one shape (identity maps everywhere).
mlir::Value elementwise(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::RankedTensorType type, mlir::ValueRange inputs,
                        BodyFn body);

/// A fresh tensor of `shape` whose elements are `input` read through `map`
/// (a broadcast, a reversal, a permutation): a generic yielding its input.
mlir::Value readThrough(mlir::OpBuilder &b, mlir::Location loc,
                        llvm::ArrayRef<int64_t> shape, mlir::Value input,
                        mlir::AffineMap map);

/// The body of a contraction, `acc + lhs * rhs` of the block arguments
/// (lhs, rhs, acc), on floats or integers.
mlir::Value multiplyAccumulate(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::ValueRange args);

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The iteration space of a reduction of a tensor of `inShape` over `axes`:
/// iterator types, the map to the reduced result and its shape.
struct ReductionSpace {
  llvm::SmallVector<mlir::utils::IteratorType> iters;
  /// The reduced result read from a loop nest in the tensor's own axis
  /// order (an elementwise generic over the input's shape).
  mlir::AffineMap outMap;
  llvm::SmallVector<int64_t> shape;
  int64_t count = 1; ///< Elements folded into each result.
  /// The reduction's own loops: the kept axes first (parallel and
  /// outermost, so the thread pool can split them), then the reduced ones
  /// in the tensor's order. Each result still folds its elements in the
  /// tensor's order. loopIn reads the input, loopOut the result, and
  /// loopOf[axis] is the loop of a tensor axis.
  llvm::SmallVector<mlir::utils::IteratorType> loopIters;
  mlir::AffineMap loopIn, loopOut;
  llvm::SmallVector<unsigned> loopOf;

  ReductionSpace(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> inShape,
                 llvm::ArrayRef<int64_t> axes);
};

/// One step of a reduction: the new accumulator from an element, the
/// accumulator and the elements of the `extras` at the same result position.
using StepFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::Value element, mlir::Value acc,
    mlir::ValueRange extras)>;

/// Folds `x` over the reduced axes of `space`, starting from `init` (a
/// scalar); `extras` are tensors of the reduced shape read alongside.
mlir::Value reduction(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      const ReductionSpace &space, mlir::Value init,
                      StepFn step, mlir::ValueRange extras = {});

//===----------------------------------------------------------------------===//
// Reshapes, padding and slices
//===----------------------------------------------------------------------===//

/// Reshape between equal-sized shapes (bufferizes to a view); the dynamic
/// extents of `shape` are `extents` when given, else as emptyTensor's.
mlir::Value reshapeTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                      llvm::ArrayRef<int64_t> shape,
                      mlir::ValueRange extents = {});

/// `v` with `axis` split into (`parts`, extent / `parts`): the group axis of
/// a grouped convolution's data (axis 1), weight or bias (axis 0) made
/// explicit.
mlir::Value splitAxis(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                      unsigned axis, int64_t parts);

/// Pads the axes from `firstAxis` on with the scalar `pad`: `low` before and
/// `high` after each axis (`v` itself when both are all zero).
mlir::Value padAxes(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                    unsigned firstAxis, llvm::ArrayRef<int64_t> low,
                    llvm::ArrayRef<int64_t> high, mlir::Value pad);

/// padAxes with `value` as a constant of the element type (see constScalar),
/// made even when nothing is padded.
mlir::Value padAxes(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                    unsigned firstAxis, llvm::ArrayRef<int64_t> low,
                    llvm::ArrayRef<int64_t> high, double value);

/// padAxes with `value`, making no constant when nothing is padded.
mlir::Value padAxesIfAny(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                         unsigned firstAxis, llvm::ArrayRef<int64_t> low,
                         llvm::ArrayRef<int64_t> high, double value);

/// The static position of a strided slice: all of a tensor of `sizes` with
/// unit strides until changed.
struct Box {
  llvm::SmallVector<int64_t> offsets, sizes, strides;
  explicit Box(llvm::ArrayRef<int64_t> sizes);
};

/// The elements of `source` in `box` (tensor.extract_slice).
mlir::Value extractSlice(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value source, const Box &box);

/// `dest` with the elements in `box` replaced by `source`
/// (tensor.insert_slice).
mlir::Value insertSlice(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value source, mlir::Value dest, const Box &box);

/// `dest` with `part` added to its elements in `box` (of `part`'s shape):
/// the scatter-free accumulation of a backward op's contributions.
mlir::Value addToSlice(mlir::OpBuilder &b, mlir::Location loc, mlir::Value dest,
                       mlir::Value part, const Box &box);

/// (n, c, h, w) -> (n, h, w, c) and back, as linalg.transpose permutations
/// (result axis i is input axis perm[i]): the channels-last layout passes'.
inline constexpr int64_t kNchwToNhwc[] = {0, 2, 3, 1};
inline constexpr int64_t kNhwcToNchw[] = {0, 3, 1, 2};

/// `v` permuted by `perm`: the input of a transpose by the inverse
/// permutation, a new tensor.empty for an empty one, else a new
/// linalg.transpose (dynamic extents are v's, permuted).
mlir::Value transposed(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                       llvm::ArrayRef<int64_t> perm,
                       llvm::ArrayRef<int64_t> inverse);

/// Calls `fn` with every index of a box of `extents` (row-major).
void forEachIndex(llvm::ArrayRef<int64_t> extents,
                  llvm::function_ref<void(llvm::ArrayRef<int64_t>)> fn);

} // namespace mxc::lowering

#endif // MXC_PASSES_LOWERING_LINALGBUILDERS_H
