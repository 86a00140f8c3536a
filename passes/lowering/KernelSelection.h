// SPDX-License-Identifier: Apache-2.0
// What the targets' kernel selections (cpu/KernelSelection.cpp,
// gpu/KernelSelection.cpp) share: mx ops to mx.kernel.* ops on tensors
// where every target's runtime kernel takes them alike (dot and matmul
// through the GEMM, the 2-D convolution gradients). Each LowerFn fails,
// leaving the op to the target-independent lowering, where its kernel does
// not apply.
#ifndef MXC_PASSES_LOWERING_KERNELSELECTION_H
#define MXC_PASSES_LOWERING_KERNELSELECTION_H

#include "dialects/mx/MxDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace mxc::lowering {

bool isF32(mlir::Value v);

/// mx.kernel.matmul of `lhs` and `rhs` (plus `bias`, or onto `init` with
/// `accumulate`) into a tensor of `shape` (a fresh one without `init`),
/// without an epilogue (mxc-fuse-kernel-epilogues adds one).
mlir::Value matmulKernel(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::ArrayRef<int64_t> shape, mlir::Value lhs,
                         mlir::Value rhs, mlir::Value bias, bool transposeA,
                         bool transposeB, mlir::Value init = {},
                         mlir::ValueRange extents = {});

/// `v` (a vector) repeated over the other axes of a tensor of `shape`:
/// axis `axis` of the result is v's; the init of an accumulating kernel
/// op, for targets whose kernels take no bias.
mlir::Value broadcastVector(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value v, llvm::ArrayRef<int64_t> shape,
                            int64_t axis);

/// FullyConnected as mx.kernel.matmul (x reshaped to rows by the
/// transposed weight); the bias the op's bias operand, or with
/// `biasInInit` (kernels that take none) its init, broadcast, accumulated
/// onto.
mlir::FailureOr<mlir::Value>
fullyConnectedKernel(mx::FullyConnectedOp op, mx::FullyConnectedOp::Adaptor a,
                     mlir::OpBuilder &b, bool biasInInit);

/// Rewrites the ops of `fn` that `patterns` (kernel selections) take into
/// mx.kernel.* ops, leaving every other op to the target-independent
/// lowering.
mlir::LogicalResult applyKernelSelection(mlir::Operation *fn,
                                         mlir::RewritePatternSet &&patterns);

mlir::FailureOr<mlir::Value> selectDot(mx::DotOp op, mx::DotOp::Adaptor a,
                                       mlir::OpBuilder &b);
mlir::FailureOr<mlir::Value>
selectMatMul(mx::MatMulOp op, mx::MatMulOp::Adaptor a, mlir::OpBuilder &b);
mlir::FailureOr<mlir::Value>
selectConvolutionGradData(mx::ConvolutionGradDataOp op,
                          mx::ConvolutionGradDataOp::Adaptor a,
                          mlir::OpBuilder &b);
mlir::FailureOr<mlir::Value>
selectConvolutionGradWeight(mx::ConvolutionGradWeightOp op,
                            mx::ConvolutionGradWeightOp::Adaptor a,
                            mlir::OpBuilder &b);

} // namespace mxc::lowering

#endif // MXC_PASSES_LOWERING_KERNELSELECTION_H
