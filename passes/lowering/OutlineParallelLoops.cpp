// SPDX-License-Identifier: Apache-2.0
// Runs a function's big parallel loops on the runtime's thread pool: each
// outermost scf.parallel with enough work moves into a function body(ctx,
// begin, end) that runs a contiguous range of one of its dimensions, and
// the loop becomes a call of mxrt_parallel_for(body, ctx, trip count), ctx
// holding the values the loop reads from outside (memrefs as their LLVM
// descriptors, through unrealized casts that the LLVM conversions resolve).
// A loop whose bounds are known only at run time (a dynamic extent) has its
// work computed there, and runs in place when it is too small. Loops inside
// other loops stay, so the pool is never entered from a pool thread.
#include "passes/Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mxc {
#define GEN_PASS_DEF_OUTLINEPARALLELLOOPSPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kParallelFor = "mxrt_parallel_for";

/// Operations one run of `region` executes, counting loops' trip counts;
/// nullopt when a loop's bounds are not constants.
std::optional<int64_t> workOf(Region &region);

std::optional<int64_t> tripCount(Value lb, Value ub, Value step) {
  APInt l, u, s;
  if (!matchPattern(lb, m_ConstantInt(&l)) ||
      !matchPattern(ub, m_ConstantInt(&u)) ||
      !matchPattern(step, m_ConstantInt(&s)) || s.getSExtValue() <= 0)
    return std::nullopt;
  int64_t extent = u.getSExtValue() - l.getSExtValue();
  return extent <= 0 ? 0 : (extent + s.getSExtValue() - 1) / s.getSExtValue();
}

std::optional<int64_t> workOf(Operation *op) {
  int64_t trips = 1;
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    auto n =
        tripCount(loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
    if (!n)
      return std::nullopt;
    trips = *n;
  } else if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
    for (auto [lb, ub, step] : llvm::zip(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      auto n = tripCount(lb, ub, step);
      if (!n)
        return std::nullopt;
      trips *= *n;
    }
  } else if (isa<LoopLikeOpInterface>(op)) {
    return std::nullopt; // while loops: unknown
  }
  int64_t body = 0;
  for (Region &region : op->getRegions()) {
    auto w = workOf(region);
    if (!w)
      return std::nullopt;
    body = std::max(body, *w);
  }
  return 1 + trips * body;
}

std::optional<int64_t> workOf(Region &region) {
  int64_t total = 0;
  for (Block &block : region)
    for (Operation &op : block) {
      auto w = workOf(&op);
      if (!w)
        return std::nullopt;
      total += *w;
    }
  return total;
}

/// Whether `v` is defined outside `loop` (so that it can be read before it).
bool definedOutside(Value v, Operation *loop) {
  return !loop->isAncestor(v.getParentBlock()->getParentOp());
}

/// The trip count of lb..ub by step as an index computed at `b`'s point
/// (0 for an empty range).
Value tripValue(OpBuilder &b, Location loc, Value lb, Value ub, Value step) {
  Value zero = b.createOrFold<arith::ConstantIndexOp>(loc, 0);
  Value one = b.createOrFold<arith::ConstantIndexOp>(loc, 1);
  Value extent = b.createOrFold<arith::MaxSIOp>(
      loc, b.createOrFold<arith::SubIOp>(loc, ub, lb), zero);
  Value rounded = b.createOrFold<arith::AddIOp>(
      loc, extent, b.createOrFold<arith::SubIOp>(loc, step, one));
  return b.createOrFold<arith::DivUIOp>(loc, rounded, step);
}

/// workOf(op) computed at `b`'s point, before `outer` (which holds `op`):
/// the loops' trip counts read from their bounds; null when a bound is
/// defined inside `outer` or a loop is not a for or parallel loop.
Value workValue(OpBuilder &b, Location loc, Operation *op, Operation *outer) {
  if (auto w = workOf(op))
    return b.createOrFold<arith::ConstantIndexOp>(loc, *w);
  SmallVector<std::tuple<Value, Value, Value>> dims;
  if (auto loop = dyn_cast<scf::ForOp>(op))
    dims.push_back(
        {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()});
  else if (auto loop = dyn_cast<scf::ParallelOp>(op))
    for (auto [lb, ub, step] :
         llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))
      dims.push_back({lb, ub, step});
  else if (isa<LoopLikeOpInterface>(op))
    return {};
  Value trips = b.createOrFold<arith::ConstantIndexOp>(loc, 1);
  for (auto [lb, ub, step] : dims) {
    if (!definedOutside(lb, outer) || !definedOutside(ub, outer) ||
        !definedOutside(step, outer))
      return {};
    trips = b.createOrFold<arith::MulIOp>(loc, trips,
                                          tripValue(b, loc, lb, ub, step));
  }
  Value body = b.createOrFold<arith::ConstantIndexOp>(loc, 0);
  for (Region &region : op->getRegions()) {
    Value total = b.createOrFold<arith::ConstantIndexOp>(loc, 0);
    for (Block &block : region)
      for (Operation &inner : block) {
        Value w = workValue(b, loc, &inner, outer);
        if (!w)
          return {};
        total = b.createOrFold<arith::AddIOp>(loc, total, w);
      }
    body = b.createOrFold<arith::MaxUIOp>(loc, body, total);
  }
  return b.createOrFold<arith::AddIOp>(
      loc, b.createOrFold<arith::ConstantIndexOp>(loc, 1),
      b.createOrFold<arith::MulIOp>(loc, trips, body));
}

/// Whether the body function recomputes `op` rather than receiving its
/// result: constants and other side-effect-free ops without regions (views
/// of the arena, index arithmetic), their operands recomputed or received in
/// turn. Recomputing views keeps every buffer an offset from the few base
/// pointers received, so LLVM still sees which buffers are disjoint and
/// vectorizes as it does the loops left in place.
bool recomputable(Operation *op) {
  return op && op->getNumRegions() == 0 && op->getNumResults() == 1 &&
         isMemoryEffectFree(op);
}

struct OutlineParallelLoopsPass
    : mxc::impl::OutlineParallelLoopsPassBase<OutlineParallelLoopsPass> {
  using OutlineParallelLoopsPassBase::OutlineParallelLoopsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<scf::ParallelOp> loops;
    module.walk([&](scf::ParallelOp loop) {
      auto fn = loop->getParentOfType<func::FuncOp>();
      if (fn && loop->getParentOp() == fn && loop.getNumResults() == 0)
        loops.push_back(loop);
    });
    LLVMTypeConverter converter(&getContext());
    unsigned counter = 0;
    for (scf::ParallelOp loop : loops)
      outline(module, loop, converter, counter);
  }

  void outline(ModuleOp module, scf::ParallelOp loop,
               const LLVMTypeConverter &converter, unsigned &counter) {
    auto work = workOf(loop.getOperation());
    if (work && *work < minWork)
      return;
    // Split the first dimension that may have more than one iteration.
    std::optional<unsigned> dim;
    std::optional<int64_t> trips;
    for (unsigned d = 0; d < loop.getNumLoops() && !dim; ++d) {
      auto n = tripCount(loop.getLowerBound()[d], loop.getUpperBound()[d],
                         loop.getStep()[d]);
      if (!n || *n > 1)
        dim = d, trips = n;
    }
    if (!dim)
      return;
    // Bounds known only at run time: the work is computed there, and the
    // loop runs in place below minWork.
    Value runTimeWork;
    if (!work) {
      OpBuilder wb(loop);
      runTimeWork = workValue(wb, loop.getLoc(), loop, loop);
      if (!runTimeWork) {
        // (Its ops are dead: the canonicalizer drops them.)
        return;
      }
    }
    bool calls = false;
    loop.walk([&](CallOpInterface) { calls = true; });
    if (calls) // a kernel call must not enter the pool from a pool thread
      return;

    // What the loop reads from outside: passed in the context, or
    // recomputed in the body function.
    llvm::SetVector<Value> used;
    getUsedValuesDefinedAbove(loop->getRegions(), used);
    for (Value v : loop->getOperands())
      used.insert(v);
    // Split into values received (roots) and ops recomputed, operands
    // before users.
    llvm::SetVector<Value> roots;
    llvm::SetVector<Operation *> remade;
    std::function<void(Value)> classify = [&](Value v) {
      Operation *def = v.getDefiningOp();
      if (!recomputable(def)) {
        roots.insert(v);
        return;
      }
      if (remade.contains(def))
        return;
      for (Value operand : def->getOperands())
        classify(operand);
      remade.insert(def);
    };
    for (Value v : used)
      classify(v);
    SmallVector<Value> passed;
    SmallVector<Type> fields;
    for (Value v : roots) {
      Type t = v.getType();
      Type field;
      if (isa<MemRefType>(t))
        field = converter.convertType(t);
      else if (t.isIndex())
        field = IntegerType::get(&getContext(), 64);
      else if (t.isIntOrFloat())
        field = t;
      if (!field)
        return; // a value the context cannot carry: leave the loop serial
      passed.push_back(v);
      fields.push_back(field);
    }

    MLIRContext *ctx = &getContext();
    Location loc = loop.getLoc();
    auto fn = loop->getParentOfType<func::FuncOp>();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    auto ctxType = LLVM::LLVMStructType::getLiteral(ctx, fields);
    auto bodyType = FunctionType::get(ctx, {ptrType, i64, i64}, {});

    // The body function: unpack the context, run [begin, end) of `dim`.
    OpBuilder mb(module.getBodyRegion());
    mb.setInsertionPoint(fn);
    std::string name = (fn.getSymName() + "_parallel" + Twine(counter++)).str();
    auto body = func::FuncOp::create(mb, loc, name, bodyType);
    body.setPrivate();
    // Local to the model's object: two models in one program each have
    // their own forward_parallel0.
    body->setAttr("llvm.linkage",
                  LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
    Block *entry = body.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockBegin(entry);
    IRMapping map;
    Value ctxArg = entry->getArgument(0);
    for (auto [i, v] : llvm::enumerate(passed)) {
      Value gep = LLVM::GEPOp::create(
          b, loc, ptrType, ctxType, ctxArg,
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
      Value field = LLVM::LoadOp::create(b, loc, fields[i], gep);
      Type t = v.getType();
      if (isa<MemRefType>(t))
        field =
            UnrealizedConversionCastOp::create(b, loc, t, field).getResult(0);
      else if (t.isIndex())
        field = arith::IndexCastOp::create(b, loc, t, field);
      map.map(v, field);
    }
    for (Operation *op : remade)
      b.clone(*op, map);
    auto index = [&](Value v) {
      return arith::IndexCastOp::create(b, loc, b.getIndexType(), v)
          .getResult();
    };
    // The body runs the whole loop, with every iteration outside [begin,
    // end) of `dim` skipped: the bounds stay constants, and LLVM needs them
    // to see that a loop's loads and stores of different buffers in one
    // arena do not overlap (with a [begin, end) range it would not
    // vectorize them).
    Value lb = map.lookup(loop.getLowerBound()[*dim]);
    Value step = map.lookup(loop.getStep()[*dim]);
    Value from = arith::AddIOp::create(
        b, loc, lb,
        arith::MulIOp::create(b, loc, index(entry->getArgument(1)), step));
    Value to = arith::AddIOp::create(
        b, loc, lb,
        arith::MulIOp::create(b, loc, index(entry->getArgument(2)), step));
    auto part = cast<scf::ParallelOp>(b.clone(*loop, map));
    Block *inner = part.getBody();
    OpBuilder ib = OpBuilder::atBlockBegin(inner);
    Value iv = part.getInductionVars()[*dim];
    Value inRange = arith::AndIOp::create(
        ib, loc,
        arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::sge, iv, from),
        arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::slt, iv, to));
    auto guard = scf::IfOp::create(ib, loc, inRange, /*withElse=*/false);
    Block *then = guard.thenBlock();
    // Everything after the guard, up to the terminator, moves inside it.
    then->getOperations().splice(
        then->begin(), inner->getOperations(),
        std::next(Block::iterator(guard.getOperation())),
        std::prev(inner->end()));
    func::ReturnOp::create(b, loc);

    // The call site: pack the context, hand the loop to the pool (when its
    // work at run time is enough; else the loop stays, in the else branch).
    b.setInsertionPoint(loop);
    if (runTimeWork) {
      Value enough = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::uge, runTimeWork,
          arith::ConstantIndexOp::create(b, loc, minWork));
      auto choice = scf::IfOp::create(b, loc, enough, /*withElse=*/true);
      loop->moveBefore(choice.elseBlock()->getTerminator());
      b.setInsertionPoint(choice.thenBlock()->getTerminator());
    }
    Value one = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1));
    Value ctxPtr = LLVM::AllocaOp::create(b, loc, ptrType, ctxType, one);
    for (auto [i, v] : llvm::enumerate(passed)) {
      Value field = v;
      Type t = v.getType();
      if (isa<MemRefType>(t))
        field = UnrealizedConversionCastOp::create(b, loc, fields[i], v)
                    .getResult(0);
      else if (t.isIndex())
        field = arith::IndexCastOp::create(b, loc, i64, v);
      Value gep = LLVM::GEPOp::create(
          b, loc, ptrType, ctxType, ctxPtr,
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
      LLVM::StoreOp::create(b, loc, field, gep);
    }
    Value fnPtr =
        func::ConstantOp::create(b, loc, bodyType, SymbolRefAttr::get(body));
    Value count =
        trips ? arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(*trips))
                    .getResult()
              : arith::IndexCastOp::create(
                    b, loc, i64,
                    tripValue(b, loc, loop.getLowerBound()[*dim],
                              loop.getUpperBound()[*dim], loop.getStep()[*dim]))
                    .getResult();
    func::CallOp::create(b, loc, declareParallelFor(module, bodyType),
                         ValueRange{fnPtr, ctxPtr, count});
    if (!runTimeWork)
      loop.erase();
  }

  func::FuncOp declareParallelFor(ModuleOp module, FunctionType bodyType) {
    if (auto fn = module.lookupSymbol<func::FuncOp>(kParallelFor))
      return fn;
    MLIRContext *ctx = module.getContext();
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto fn = func::FuncOp::create(
        b, module.getLoc(), kParallelFor,
        FunctionType::get(ctx,
                          {bodyType, LLVM::LLVMPointerType::get(ctx),
                           IntegerType::get(ctx, 64)},
                          {}));
    fn.setPrivate();
    return fn;
  }
};

} // namespace
