// SPDX-License-Identifier: Apache-2.0
// What mxc tells about a network besides compiling it: the forward graph
// after the graph passes drawn as Graphviz (--emit=dot, as MXNet's
// plot_network) and a per-layer table (--summary: output shape,
// parameters, multiply-accumulates).
#ifndef MXC_COMPILER_DRIVER_GRAPHREPORT_H
#define MXC_COMPILER_DRIVER_GRAPHREPORT_H

#include "mlir/IR/BuiltinOps.h"

#include <set>
#include <string>

namespace mxc {

/// The function "forward" of `module` (mx ops on tensors) as a Graphviz
/// digraph: an oval per data input, a box per op (its node name, op and
/// output shape; colored by kind; its parameters' sizes), an edge per
/// tensor labeled with its shape. Parameters (mx.param / mx.aux arguments,
/// the arguments after the model's `numInputs` inputs, and without --params
/// every argument not in `dataInputs`, the names given --input shapes) are
/// counted in their op's box, not drawn.
std::string forwardGraphDot(mlir::ModuleOp module, llvm::StringRef title,
                            const std::set<std::string> &dataInputs,
                            size_t numInputs);

/// A fixed-width table of the ops of "forward": node name, op, output
/// shape, parameters (elements of the mx.param / mx.aux arguments it reads)
/// and multiply-accumulates (convolutions and fully connected layers), then
/// the totals. Parameters as forwardGraphDot says.
std::string forwardSummary(mlir::ModuleOp module,
                           const std::set<std::string> &dataInputs,
                           size_t numInputs);

} // namespace mxc

#endif // MXC_COMPILER_DRIVER_GRAPHREPORT_H
