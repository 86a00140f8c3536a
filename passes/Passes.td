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

def PlanMemoryPass : Pass<"mxc-plan-memory", "::mlir::ModuleOp"> {
  let summary = "Place every intermediate buffer in one static arena";
  let description = [{
    Runs after bufferization. Every statically shaped memref.alloc of a
    function becomes a memref.view into a new trailing `memref<Nxi8>`
    argument (the arena, allocated once per model instance by the runtime);
    the module gets `mxc.arena_size`. Strategies: naive (no sharing),
    inplace (an elementwise op writes into an input whose last use it is),
    coshare (buffers with disjoint lifetimes share a block, MXNet's
    co-share), both (MXNet's combination) and best (in-place, then the
    largest buffers first at the lowest offset free for their lifetime).
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"best\"",
           "naive, inplace, coshare, both or best">,
    Option<"printPlan", "print", "bool", /*default=*/"false",
           "Print every strategy's arena, the lower bound and each buffer">,
    Option<"jsonFile", "json-file", "std::string", /*default=*/"\"\"",
           "Write the same report as JSON to this file">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // MXC_PASSES_PASSES_TD
