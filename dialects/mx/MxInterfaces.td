// SPDX-License-Identifier: Apache-2.0
// Interfaces of the mx dialect. GradientOpInterface is MXNet's FGradient: an
// op says how to build the gradients of its operands from the gradients of
// its results, and the gradient pass (--mxc-gradient) chains them.
#ifndef MXC_DIALECTS_MX_MXINTERFACES_TD
#define MXC_DIALECTS_MX_MXINTERFACES_TD

include "mlir/IR/OpBase.td"

def Mx_GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let cppNamespace = "::mxc::mx";
  let description = [{
    Reverse-mode derivative of an mx op. The models live in MxGradients.cpp
    (attached to the ops when the dialect loads, as MXNet registers
    FGradient beside the operator), written with mx ops so that gradients
    lower, fuse and plan memory like any other part of the graph.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds, at the builder's insertion point, the gradient of every
        operand given the gradient of every result (same types as the
        results; never null). Returns one value per operand, null for an
        operand without a gradient (labels, ids, moving statistics). Loss
        heads ignore `resultGrads`: their gradient is the loss's.
      }],
      "::llvm::SmallVector<::mlir::Value>", "buildGradient",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::ValueRange":$resultGrads)>,
  ];
}

#endif // MXC_DIALECTS_MX_MXINTERFACES_TD
