// SPDX-License-Identifier: Apache-2.0
// Every mxc pass, declared once: tablegen generates the base classes and the
// registration used by mxc-opt and the mxc pipeline.
#ifndef MXC_PASSES_PASSES_TD
#define MXC_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertMxToLinalgPass : Pass<"mxc-convert-mx-to-linalg"> {
  let summary = "Lower mx ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Every mx op becomes linalg.generic (or linalg.transpose / tensor ops)
    computing MXNet's formula. Before: `mx.Activation %x {act_type = "relu"}`;
    after: a linalg.generic whose body is `arith.maxnumf %in, %zero`.
    Fails, naming the op, if an mx op has no lowering.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def MemrefCopyToLinalgPass : Pass<"mxc-memref-copy-to-linalg"> {
  let summary = "Rewrite memref.copy as linalg.copy";
  let description = [{
    Bufferization copies into strided views (e.g. for tensor.pad) with
    memref.copy, which lowers to a call into MLIR's C runner library when a
    layout is not the identity. As linalg.copy the copy becomes plain loops,
    so a compiled model needs nothing but libmxrt.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

#endif // MXC_PASSES_PASSES_TD
