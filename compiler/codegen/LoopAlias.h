// SPDX-License-Identifier: Apache-2.0
// An alias analysis for the loops mxc outlines onto the thread pool: scalar
// evolution's (llvm::SCEVAA), asked only in those small functions. The
// memory plan puts every intermediate buffer at a constant offset in one
// arena and the outlined loops keep constant bounds, so SCEV proves two
// buffers' accesses disjoint where BasicAA, which does not know the
// indices' ranges, cannot; LICM then keeps per-channel values and reduction
// accumulators in registers and the vectorizers take the loops. In the
// model's big entry functions SCEV's queries cost compile time that buys
// nothing (docs/training.md has the figures).
#ifndef MXC_COMPILER_CODEGEN_LOOPALIAS_H
#define MXC_COMPILER_CODEGEN_LOOPALIAS_H

#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/ScalarEvolutionAliasAnalysis.h"
#include "llvm/IR/PassManager.h"

#include <optional>

namespace mxc {

class LoopAliasResult : public llvm::AAResultBase {
public:
  explicit LoopAliasResult(llvm::ScalarEvolution *se) {
    if (se)
      scev.emplace(*se);
  }
  llvm::AliasResult alias(const llvm::MemoryLocation &a,
                          const llvm::MemoryLocation &b,
                          llvm::AAQueryInfo &info, const llvm::Instruction *i) {
    if (!scev)
      return llvm::AliasResult::MayAlias;
    return scev->alias(a, b, info, i);
  }
  bool invalidate(llvm::Function &f, const llvm::PreservedAnalyses &pa,
                  llvm::FunctionAnalysisManager::Invalidator &inv) {
    return scev && scev->invalidate(f, pa, inv);
  }

private:
  std::optional<llvm::SCEVAAResult> scev;
};

/// The analysis: SCEV's answers in functions whose name holds "_parallel"
/// (mxc-outline-parallel-loops' bodies), none elsewhere.
class LoopAlias : public llvm::AnalysisInfoMixin<LoopAlias> {
  friend llvm::AnalysisInfoMixin<LoopAlias>;
  static llvm::AnalysisKey Key;

public:
  using Result = LoopAliasResult;
  Result run(llvm::Function &f, llvm::FunctionAnalysisManager &fam);
};

} // namespace mxc

#endif // MXC_COMPILER_CODEGEN_LOOPALIAS_H
