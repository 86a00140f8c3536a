// SPDX-License-Identifier: Apache-2.0
// The sliding window behind convolutions and poolings, forward and backward
// (passes/lowering/linalg/Convolution.cpp, Pooling.cpp): its geometry with
// MXNet's defaults, how far it reaches past the input, how many elements an
// average divides by, and the loop nest of a pooling reduction, so that
// every op reads a window the same way.
#ifndef MXC_PASSES_LOWERING_WINDOWLOOPS_H
#define MXC_PASSES_LOWERING_WINDOWLOOPS_H

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

namespace mxc::lowering {

/// The window along the spatial axes of NC... data. What an op leaves out
/// takes MXNet's defaults: stride and dilation 1, no padding.
struct WindowGeometry {
  llvm::SmallVector<int64_t> kernel, stride, dilate, pad;

  WindowGeometry(llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> stride,
                 llvm::ArrayRef<int64_t> dilate, llvm::ArrayRef<int64_t> pad);

  unsigned numSpatial() const { return kernel.size(); }

  /// The padded input position that window `o`'s tap `k` reads along
  /// spatial axis `s`.
  mlir::AffineExpr tap(unsigned s, mlir::AffineExpr o,
                       mlir::AffineExpr k) const {
    return o * stride[s] + k * dilate[s];
  }

  /// The padded input extent along spatial axis `s` that `outExtent`
  /// windows read: one past the last window's last tap.
  int64_t reach(unsigned s, int64_t outExtent) const {
    return (outExtent - 1) * stride[s] + (kernel[s] - 1) * dilate[s] + 1;
  }

  /// How far past the input's end (of `inSpatial`, padded low by `pad`) each
  /// spatial axis must be padded for the last window of `outSpatial`
  /// ("full" convention: it may reach past the input).
  llvm::SmallVector<int64_t>
  highPadding(llvm::ArrayRef<int64_t> inSpatial,
              llvm::ArrayRef<int64_t> outSpatial) const;

  /// `x` (N, C, S...) padded with `pad` low by the window's padding and high
  /// as far as the windows of `outSpatial` reach (`x` itself when neither).
  mlir::Value padForWindows(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value x, llvm::ArrayRef<int64_t> outSpatial,
                            mlir::Value pad) const;
  /// padForWindows with `value` as a constant of the element type, made only
  /// when something is padded.
  mlir::Value padForWindows(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value x, llvm::ArrayRef<int64_t> outSpatial,
                            double value) const;

  /// MXNet's average-pooling divisor of every output position (row-major
  /// over `outSpatial`): the window clipped to the padded input
  /// (`countIncludePad`) or to the real input.
  llvm::SmallVector<int64_t> windowCounts(llvm::ArrayRef<int64_t> inSpatial,
                                          llvm::ArrayRef<int64_t> outSpatial,
                                          bool countIncludePad) const;
};

/// The window of an op that spells its geometry as MXNet's attributes
/// (kernel, stride, dilate, pad): Deconvolution and the gradient ops.
template <typename OpTy> WindowGeometry windowOf(OpTy op) {
  return WindowGeometry(op.getKernel(), op.getStride(), op.getDilate(),
                        op.getPad());
}

/// Loops n, c, o... (parallel) and k... (reduction) over NC + spatial data:
/// the padded input is read at o * stride + k * dilate, a shape-only window
/// operand (of the kernel's shape) at k..., the output written at n, c, o....
struct PoolingLoops {
  mlir::AffineMap input, window, output;
  llvm::SmallVector<mlir::utils::IteratorType> iterators;
};

/// The loop nest of a pooling over `geo`'s window.
PoolingLoops poolingLoops(mlir::MLIRContext *ctx, const WindowGeometry &geo);

} // namespace mxc::lowering

#endif // MXC_PASSES_LOWERING_WINDOWLOOPS_H
