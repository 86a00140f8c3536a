// SPDX-License-Identifier: Apache-2.0
// The mx dialect's C++ declarations: include this to use the dialect and its
// ops (MxOps.td holds the definitions).
#ifndef MXC_DIALECTS_MX_MXDIALECT_H
#define MXC_DIALECTS_MX_MXDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/mx/MxDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/mx/MxTypes.h.inc"

#include "dialects/mx/MxInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialects/mx/MxOps.h.inc"

namespace mxc::mx {

/// The flags of the runtime's kernel calls (mxrt/kernels.h's
/// MXRT_KERNEL_*, which the generated calls pass as literals).
enum KernelFlags : int32_t {
  kKernelAccumulate = 1,
  kKernelRelu = 2,
  kKernelConstA = 4,
  kKernelConstB = 8,
  kKernelNhwc = 16,
  kKernelPoolAvg = 32,
  kKernelPoolSum = 64,
  kKernelPoolCountPad = 128,
  kKernelParamA = 256,
  kKernelAttentionDivide = 512,
  kKernelSelectSmallest = 1024,
  kKernelNmsCenter = 2048,
  kKernelSignedA = 4096,
  kKernelUnsignedB = 8192,
  kKernelBf16 = 16384,
};

/// Builds mx op `OpTy` from operands and attributes; its inference gives the
/// result types. Defaulted attributes are materialized first, since (without
/// properties) inference reads them from the dictionary. Returns result 0.
template <typename OpTy>
mlir::Value createInferred(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::ValueRange operands,
                           llvm::ArrayRef<mlir::NamedAttribute> attrs = {}) {
  mlir::NamedAttrList all(attrs);
  OpTy::populateDefaultAttrs(
      mlir::OperationName(OpTy::getOperationName(), b.getContext()), all);
  return OpTy::create(b, loc, operands, all.getAttrs())->getResult(0);
}

/// Attaches GradientOpInterface to every differentiable op (MxGradients.cpp).
void registerGradientModels(mlir::MLIRContext *ctx);
/// Attaches BufferizableOpInterface to the mx.kernel.* ops.
void registerKernelModels(mlir::MLIRContext *ctx);
/// Whether `op` is one of the mx.kernel.* ops (calls into libmxrt).
bool isKernelOp(mlir::Operation *op);

/// Whether kernel op `op`'s runtime function reads and writes contiguous
/// row-major buffers only (the convolution kernels and the pooling
/// gradient; the GEMM and the forward pooling take strides).
bool needsContiguousBuffers(mlir::Operation *op);

/// Whether buffer `v` is row-major without gaps.
bool isContiguousBuffer(mlir::Value v);
/// Builds the registered op `name` generically (as frontends do, from a name
/// and attributes): defaulted attributes are materialized and the op's
/// inference gives the result types. On failure nothing is created and
/// `error` holds the first diagnostic inference emitted.
mlir::FailureOr<mlir::Operation *>
createByName(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
             mlir::ValueRange operands,
             llvm::ArrayRef<mlir::NamedAttribute> attrs, std::string &error);

} // namespace mxc::mx

#endif // MXC_DIALECTS_MX_MXDIALECT_H
