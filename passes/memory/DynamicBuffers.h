// SPDX-License-Identifier: Apache-2.0
// The arena's dynamic part (docs/dynamic-shapes.md): buffers whose sizes
// are known only at run time (a function compiled with dynamic extents)
// are placed after the statically planned part, at offsets the function
// computes on entry from the model's dimensions. Buffers share space only
// where their sizes are provably equal (the same extents' values): each
// size class gets as many slots as it has buffers alive at once. The bytes
// a call needs are a sibling function `<name>_scratch` of the dimensions.
#ifndef MXC_PASSES_MEMORY_DYNAMICBUFFERS_H
#define MXC_PASSES_MEMORY_DYNAMICBUFFERS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <string>
#include <vector>

namespace mxc {

/// Bytes of one element of `type`: its bit width rounded up to bytes, 8 for
/// `index` (the shapes that dynamic reshapes read; both targets' index is 64
/// bits wide). 0 for element types the plan does not place.
int64_t elementBytes(mlir::MemRefType type);

/// A buffer of a dynamic size and its lifetime in the function's order.
struct DynamicBuffer {
  mlir::memref::AllocOp alloc;
  unsigned start = 0, end = 0;
};

/// One size class of the dynamic part: the bytes of each of its buffers as
/// a formula of the dimensions ("align64(H*W*64)"), its buffers and the
/// slots they share.
struct DynamicClass {
  std::string bytes;
  size_t buffers = 0, slots = 0;
};

/// Places `buffers` of `func` after `staticBytes` of `arena` (a memref<Nxi8>
/// argument) and adds `<func>_scratch`, the arena's bytes for a call;
/// `dimNames` name the dimension array's entries in the formulas. Fails
/// (changing nothing) when a size does not follow from the function's
/// dimension array alone.
mlir::FailureOr<std::vector<DynamicClass>>
placeDynamicBuffers(mlir::func::FuncOp func,
                    llvm::ArrayRef<DynamicBuffer> buffers, mlir::Value arena,
                    int64_t staticBytes, llvm::ArrayRef<std::string> dimNames);

} // namespace mxc

#endif // MXC_PASSES_MEMORY_DYNAMICBUFFERS_H
