// SPDX-License-Identifier: Apache-2.0
// Registers the mx dialect and its ops.
#include "dialects/mx/MxDialect.h"

using namespace mlir;
using namespace mxc::mx;

#include "dialects/mx/MxDialect.cpp.inc"

void MxDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/mx/MxOps.cpp.inc"
      >();
  registerGradientModels(getContext());
}
