// SPDX-License-Identifier: Apache-2.0
// The mx dialect's C++ declarations: include this to use the dialect and its
// ops (MxOps.td holds the definitions).
#ifndef MXC_DIALECTS_MX_MXDIALECT_H
#define MXC_DIALECTS_MX_MXDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/mx/MxDialect.h.inc"
#include "dialects/mx/MxInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialects/mx/MxOps.h.inc"

namespace mxc::mx {
/// Attaches GradientOpInterface to every differentiable op (MxGradients.cpp).
void registerGradientModels(mlir::MLIRContext *ctx);
} // namespace mxc::mx

#endif // MXC_DIALECTS_MX_MXDIALECT_H
