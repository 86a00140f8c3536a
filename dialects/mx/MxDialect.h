// SPDX-License-Identifier: Apache-2.0
// The mx dialect's C++ declarations: include this to use the dialect and its
// ops (MxOps.td holds the definitions).
#ifndef MXC_DIALECTS_MX_MXDIALECT_H
#define MXC_DIALECTS_MX_MXDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/mx/MxDialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/mx/MxOps.h.inc"

#endif // MXC_DIALECTS_MX_MXDIALECT_H
