// SPDX-License-Identifier: Apache-2.0
// mxc-hoist-constant-loads (see HoistConstantLoadsPass in Passes.td): the
// loads of read-only parameters that do not depend on a parallel loop
// nest's innermost loop, and the arithmetic on them, computed once per
// iteration of the loops outside it.
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

namespace mxc {
#define GEN_PASS_DEF_HOISTCONSTANTLOADSPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

/// Whether `v` is an argument of `fn` marked mxc.constant.
bool isConstantArg(func::FuncOp fn, Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && arg.getOwner() == &fn.getBody().front() &&
         fn.getArgAttr(arg.getArgNumber(), "mxc.constant");
}

/// The ops of `loop`'s body that can run outside its innermost dimension:
/// loads of constant parameters and pure ops, none reading the innermost
/// induction variable or a value computed from it.
SmallVector<Operation *> hoistable(func::FuncOp fn, scf::ParallelOp loop) {
  Value inner = loop.getInductionVars().back();
  llvm::SmallPtrSet<Operation *, 16> chosen;
  SmallVector<Operation *> order;
  auto available = [&](Value v) {
    if (v == inner)
      return false;
    Operation *def = v.getDefiningOp();
    if (!def || !loop->isAncestor(def))
      return true; // defined outside, or an outer induction variable
    return chosen.contains(def);
  };
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (op.getNumRegions() != 0 || !llvm::all_of(op.getOperands(), available))
      continue;
    bool load = isa<memref::LoadOp>(op) &&
                isConstantArg(fn, cast<memref::LoadOp>(op).getMemRef());
    if (!load && !isMemoryEffectFree(&op))
      continue;
    chosen.insert(&op);
    order.push_back(&op);
  }
  // Only worth it when a constant is loaded.
  if (llvm::none_of(order,
                    [](Operation *op) { return isa<memref::LoadOp>(op); }))
    return {};
  return order;
}

/// The iterations of `loop`'s dimensions but the innermost (a large number
/// when not constant). After the split mxc-outline-parallel-loops shares
/// out only those (loops inside loops stay on one thread), so a nest whose
/// outer loops run once stays whole.
int64_t outerTrips(scf::ParallelOp loop) {
  int64_t trips = 1;
  for (unsigned d = 0; d + 1 < loop.getNumLoops(); ++d) {
    auto lo = getConstantIntValue(loop.getLowerBound()[d]);
    auto hi = getConstantIntValue(loop.getUpperBound()[d]);
    auto step = getConstantIntValue(loop.getStep()[d]);
    if (!lo || !hi || !step || *step <= 0)
      return std::numeric_limits<int64_t>::max();
    trips *= std::max<int64_t>((*hi - *lo + *step - 1) / *step, 0);
  }
  return trips;
}

/// Splits `loop` into its outer dimensions and its innermost one, the ops
/// `hoist` of its body in between.
void split(scf::ParallelOp loop, ArrayRef<Operation *> hoist) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  unsigned n = loop.getNumLoops();
  auto lower = loop.getLowerBound(), upper = loop.getUpperBound(),
       step = loop.getStep();
  auto outer =
      scf::ParallelOp::create(b, loc, lower.take_front(n - 1),
                              upper.take_front(n - 1), step.take_front(n - 1));
  IRMapping map;
  for (unsigned d = 0; d + 1 < n; ++d)
    map.map(loop.getInductionVars()[d], outer.getInductionVars()[d]);
  b.setInsertionPoint(outer.getBody()->getTerminator());
  for (Operation *op : hoist)
    b.clone(*op, map);
  auto inner =
      scf::ParallelOp::create(b, loc, lower.back(), upper.back(), step.back());
  map.map(loop.getInductionVars().back(), inner.getInductionVars()[0]);
  b.setInsertionPoint(inner.getBody()->getTerminator());
  llvm::SmallPtrSet<Operation *, 16> moved(hoist.begin(), hoist.end());
  for (Operation &op : loop.getBody()->without_terminator())
    if (!moved.contains(&op))
      b.clone(op, map);
  loop.erase();
}

struct HoistConstantLoadsPass
    : mxc::impl::HoistConstantLoadsPassBase<HoistConstantLoadsPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    SmallVector<std::pair<scf::ParallelOp, SmallVector<Operation *>>> work;
    fn.walk([&](scf::ParallelOp loop) {
      if (loop.getNumLoops() < 2 || loop.getNumReductions() != 0 ||
          outerTrips(loop) < 2)
        return;
      SmallVector<Operation *> ops = hoistable(fn, loop);
      if (!ops.empty())
        work.push_back({loop, std::move(ops)});
    });
    for (auto &[loop, ops] : work)
      split(loop, ops);
  }
};

} // namespace
