// SPDX-License-Identifier: Apache-2.0
// A Concat whose leading inputs another Concat already joined reads that
// Concat instead (see ShareConcatPrefixesPass in Passes.td).
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

namespace mxc {
#define GEN_PASS_DEF_SHARECONCATPREFIXESPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc::mx;

namespace {

/// A Concat's identity: its axis and its inputs in order.
struct ConcatKey {
  int64_t dim;
  SmallVector<Value, 8> inputs;
};

struct ConcatKeyInfo {
  static ConcatKey getEmptyKey() { return {INT64_MIN, {}}; }
  static ConcatKey getTombstoneKey() { return {INT64_MIN + 1, {}}; }
  static unsigned getHashValue(const ConcatKey &k) {
    return llvm::hash_combine(
        k.dim, llvm::hash_combine_range(k.inputs.begin(), k.inputs.end()));
  }
  static bool isEqual(const ConcatKey &a, const ConcatKey &b) {
    return a.dim == b.dim && a.inputs == b.inputs;
  }
};

struct ShareConcatPrefixesPass
    : mxc::impl::ShareConcatPrefixesPassBase<ShareConcatPrefixesPass> {
  void runOnOperation() override {
    for (Block &block : getOperation().getBody()) {
      // The Concats seen so far in this block, by what they join. Those
      // before an op dominate it.
      llvm::DenseMap<ConcatKey, ConcatOp, ConcatKeyInfo> seen;
      for (Operation &op : llvm::make_early_inc_range(block)) {
        auto concat = dyn_cast<ConcatOp>(op);
        if (!concat)
          continue;
        auto type = cast<RankedTensorType>(concat.getType());
        int64_t dim = static_cast<int64_t>(concat.getDim());
        if (dim < 0)
          dim += type.getRank();
        SmallVector<Value, 8> inputs(concat.getInputs());
        seen.try_emplace(ConcatKey{dim, inputs}, concat);
        // The longest strict prefix of two or more inputs already joined.
        for (size_t n = inputs.size() - 1; n >= 2; --n) {
          ConcatKey prefix{
              dim, SmallVector<Value, 8>(inputs.begin(), inputs.begin() + n)};
          auto it = seen.find(prefix);
          if (it == seen.end())
            continue;
          SmallVector<Value> operands{it->second.getResult()};
          operands.append(inputs.begin() + n, inputs.end());
          concat.getInputsMutable().assign(operands);
          break;
        }
      }
    }
  }
};

} // namespace
