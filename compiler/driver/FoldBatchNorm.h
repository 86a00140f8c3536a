// SPDX-License-Identifier: Apache-2.0
#ifndef MXC_COMPILER_DRIVER_FOLDBATCHNORM_H
#define MXC_COMPILER_DRIVER_FOLDBATCHNORM_H

#include "compiler/model/ModelSpec.h"

#include "mlir/IR/BuiltinOps.h"

namespace mxc {

/// For an inference library: rewrites each mx.BatchNorm of @forward that
/// follows an mx.Convolution (and is its only reader) into that
/// convolution, with the BatchNorm's scale multiplied into the weight and
/// its shift into the bias, in `spec`'s parameter data. The convolution's
/// weight and bias parameters (or, for a convolution without one, the
/// BatchNorm's beta, which becomes its bias) then hold folded values; the
/// BatchNorm's other parameters stay, unread. Returns how many it folded.
int foldBatchNormIntoConvolutions(mlir::ModuleOp module, ModelSpec &spec);

} // namespace mxc

#endif // MXC_COMPILER_DRIVER_FOLDBATCHNORM_H
