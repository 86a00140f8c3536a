// SPDX-License-Identifier: Apache-2.0
#include "compiler/codegen/LoopAlias.h"

#include "llvm/Analysis/ScalarEvolution.h"

llvm::AnalysisKey mxc::LoopAlias::Key;

mxc::LoopAliasResult mxc::LoopAlias::run(llvm::Function &f,
                                         llvm::FunctionAnalysisManager &fam) {
  if (!f.getName().contains("_parallel"))
    return LoopAliasResult(nullptr);
  return LoopAliasResult(&fam.getResult<llvm::ScalarEvolutionAnalysis>(f));
}
