// SPDX-License-Identifier: Apache-2.0
// The loop nest of a pooling window reduction, shared by mx.Pooling
// (MxToLinalg.cpp) and mx.max_pool_with_indices (OnnxOpsToLinalg.cpp), so
// that both read a window the same way.
#ifndef MXC_PASSES_LOWERING_POOLINGLOOPS_H
#define MXC_PASSES_LOWERING_POOLINGLOOPS_H

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"

namespace mxc {

/// Loops n, c, o... (parallel) and k... (reduction) over NC + spatial data:
/// the padded input is read at o * stride + k * dilate, a shape-only window
/// operand (of the kernel's shape) at k..., the output written at n, c, o....
struct PoolingLoops {
  mlir::AffineMap input, window, output;
  llvm::SmallVector<mlir::utils::IteratorType> iterators;
};

inline PoolingLoops poolingLoops(mlir::MLIRContext *ctx,
                                 llvm::ArrayRef<int64_t> stride,
                                 llvm::ArrayRef<int64_t> dilate) {
  unsigned ns = stride.size(), nLoops = 2 + 2 * ns;
  auto d = [&](unsigned i) { return mlir::getAffineDimExpr(i, ctx); };
  llvm::SmallVector<mlir::AffineExpr> xe = {d(0), d(1)}, ke, ye = {d(0), d(1)};
  for (unsigned s = 0; s < ns; ++s) {
    xe.push_back(d(2 + s) * stride[s] + d(2 + ns + s) * dilate[s]);
    ke.push_back(d(2 + ns + s));
    ye.push_back(d(2 + s));
  }
  PoolingLoops loops{mlir::AffineMap::get(nLoops, 0, xe, ctx),
                     mlir::AffineMap::get(nLoops, 0, ke, ctx),
                     mlir::AffineMap::get(nLoops, 0, ye, ctx),
                     {}};
  loops.iterators.assign(2 + ns, mlir::utils::IteratorType::parallel);
  loops.iterators.append(ns, mlir::utils::IteratorType::reduction);
  return loops;
}

} // namespace mxc

#endif // MXC_PASSES_LOWERING_POOLINGLOOPS_H
