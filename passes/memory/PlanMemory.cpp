// SPDX-License-Identifier: Apache-2.0
// Static memory planning: every intermediate buffer of a bufferized function
// gets an offset in one arena, an extra trailing function argument that the
// runtime allocates once per model instance. Strategies follow the MXNet
// paper (in-place, co-share, both) plus a size-aware interval placement
// ("best"); the plan of every strategy can be printed for comparison.
#include "passes/Passes.h"
#include "passes/memory/DynamicBuffers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

namespace mxc {
#define GEN_PASS_DEF_PLANMEMORYPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using mxc::DynamicBuffer;
using mxc::placeDynamicBuffers;

namespace {

constexpr int64_t kAlignment = 64;

int64_t alignUp(int64_t n) {
  return (n + kAlignment - 1) / kAlignment * kAlignment;
}

/// One intermediate buffer: where it is defined and last used, in the
/// function's execution order.
struct Buffer {
  memref::AllocOp alloc;
  int64_t size = 0;
  unsigned start = 0, end = 0;
};

/// A plan: an offset per buffer and the arena size.
struct Plan {
  std::vector<int64_t> offsets;
  int64_t arena = 0;
};

/// Whether `op` may write its (single) output into `input`'s memory: an
/// elementwise linalg op whose maps are identities and whose input and
/// output have the same byte size, so every element is read before it is
/// overwritten at the same address.
bool allowsInPlace(Operation *op, Value input, Value output) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInits() != 1)
    return false;
  if (llvm::any_of(generic.getIteratorTypesArray(), [](utils::IteratorType t) {
        return t != utils::IteratorType::parallel;
      }))
    return false;
  if (!llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return false;
  auto in = dyn_cast<MemRefType>(input.getType());
  auto out = dyn_cast<MemRefType>(output.getType());
  return in && out && in.getShape() == out.getShape() &&
         in.getElementTypeBitWidth() == out.getElementTypeBitWidth() &&
         in.getLayout().isIdentity() && out.getLayout().isIdentity();
}

/// Appends the arena argument (`bytes` long) to `func`. Every planned
/// function gets one, so that all entry points share one calling convention.
Value addArena(func::FuncOp func, int64_t bytes) {
  auto type = MemRefType::get({std::max<int64_t>(bytes, 1)},
                              IntegerType::get(func.getContext(), 8));
  unsigned index = func.getNumArguments();
  (void)func.insertArgument(index, type, {}, func.getLoc());
  return func.getBody().front().getArgument(index);
}

class Planner {
public:
  explicit Planner(func::FuncOp func) : func(func) {}

  /// Collects buffers and their lifetimes; false if the function has a
  /// shape the planner does not handle (it is then left alone).
  bool analyze() {
    Block &body = func.getBody().front();
    unsigned index = 0;
    for (Operation &op : body)
      order[&op] = index++;
    for (Operation &op : body) {
      auto alloc = dyn_cast<memref::AllocOp>(op);
      if (!alloc)
        continue;
      auto type = alloc.getType();
      // A buffer of a dynamic shape (a model compiled with dynamic
      // dimensions) goes after the planned part (DynamicBuffers.h).
      if (!type.hasStaticShape() && type.getLayout().isIdentity()) {
        DynamicBuffer d{alloc, order[alloc], order[alloc]};
        if (!extendLifetime(alloc.getResult(), d.end))
          return false;
        dynamicBuffers.push_back(d);
        continue;
      }
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          !mxc::elementBytes(type))
        return false;
      Buffer b;
      b.alloc = alloc;
      b.size = alignUp(std::max<int64_t>(1, type.getNumElements() *
                                                mxc::elementBytes(type)));
      b.start = order[alloc];
      b.end = b.start;
      if (!extendLifetime(alloc.getResult(), b.end))
        return false;
      bufferOf[alloc.getResult()] = buffers.size();
      buffers.push_back(b);
    }
    return true;
  }

  const std::vector<Buffer> &getBuffers() const { return buffers; }
  size_t numDynamicBuffers() const { return dynamicBuffers.size(); }

  /// Each buffer at its own offset.
  Plan naive() const {
    Plan p;
    for (const Buffer &b : buffers) {
      p.offsets.push_back(p.arena);
      p.arena += b.size;
    }
    return p;
  }

  /// Groups of buffers that share memory because an op wrote in place:
  /// representative per buffer, and merged lifetimes/sizes.
  struct Groups {
    std::vector<unsigned> rep;
    std::vector<Buffer> merged; // indexed by representative
  };

  /// MXNet's in-place rule, applied in execution order: an elementwise op
  /// whose input buffer dies at this op writes its output there.
  Groups inPlaceGroups(bool enabled) const {
    Groups g;
    g.merged = buffers;
    for (unsigned i = 0; i < buffers.size(); ++i)
      g.rep.push_back(i);
    if (!enabled)
      return g;
    Block &body = func.getBody().front();
    for (Operation &op : body) {
      auto generic = dyn_cast<linalg::GenericOp>(op);
      if (!generic || generic.getNumDpsInits() != 1)
        continue;
      Value out = generic.getDpsInits()[0];
      auto outIt = bufferOf.find(out);
      if (outIt == bufferOf.end())
        continue;
      unsigned o = outIt->second;
      for (Value in : generic.getDpsInputs()) {
        // Reshapes are views of the same bytes: look through them.
        Value root = in;
        while (Operation *def = root.getDefiningOp()) {
          if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(def))
            break;
          root = def->getOperand(0);
        }
        auto inIt = bufferOf.find(root);
        if (inIt == bufferOf.end())
          continue;
        unsigned r = find(g, inIt->second);
        // The input's group must end exactly here, and the output must be
        // a fresh buffer not yet merged with anything.
        if (g.merged[r].end != order.lookup(&op) || find(g, o) != o ||
            buffers[o].size > g.merged[r].size || !allowsInPlace(&op, in, out))
          continue;
        g.rep[o] = r;
        g.merged[r].end = std::max(g.merged[r].end, buffers[o].end);
        break;
      }
    }
    return g;
  }

  /// MXNet's co-sharing: a buffer reuses a freed block (best fit by size)
  /// of a buffer whose lifetime ended before it starts.
  Plan coShare(const Groups &g) const {
    std::vector<unsigned> reps = representatives(g);
    std::sort(reps.begin(), reps.end(), [&](unsigned a, unsigned b) {
      return g.merged[a].start < g.merged[b].start;
    });
    struct Block {
      int64_t offset, size;
      unsigned freeAt; // the block is free for buffers starting after this
    };
    std::vector<Block> blocks;
    std::map<unsigned, unsigned> blockOf;
    int64_t arena = 0;
    for (unsigned r : reps) {
      const Buffer &b = g.merged[r];
      int best = -1;
      for (unsigned k = 0; k < blocks.size(); ++k)
        if (blocks[k].freeAt < b.start && blocks[k].size >= b.size &&
            (best < 0 || blocks[k].size < blocks[best].size))
          best = k;
      if (best < 0) {
        blocks.push_back({arena, b.size, b.end});
        arena += b.size;
        best = blocks.size() - 1;
      }
      blocks[best].freeAt = b.end;
      blockOf[r] = best;
    }
    Plan p;
    p.arena = arena;
    for (unsigned i = 0; i < buffers.size(); ++i)
      p.offsets.push_back(blocks[blockOf[find(g, i)]].offset);
    return p;
  }

  /// Size-aware placement over lifetime conflicts: buffers in a priority
  /// order, each at the lowest offset that overlaps no placed buffer alive at
  /// the same time. Several priority orders are tried (largest first, longest
  /// lived first, largest area first, earliest first); the smallest arena
  /// wins.
  Plan bestFit(const Groups &g) const {
    std::vector<unsigned> reps = representatives(g);
    auto length = [&](unsigned r) {
      return int64_t(g.merged[r].end - g.merged[r].start + 1);
    };
    using Key = std::function<bool(unsigned, unsigned)>;
    std::vector<Key> orders = {
        [&](unsigned a, unsigned b) {
          return std::make_tuple(-g.merged[a].size, g.merged[a].start) <
                 std::make_tuple(-g.merged[b].size, g.merged[b].start);
        },
        [&](unsigned a, unsigned b) {
          return std::make_tuple(-length(a), -g.merged[a].size) <
                 std::make_tuple(-length(b), -g.merged[b].size);
        },
        [&](unsigned a, unsigned b) {
          return -g.merged[a].size * length(a) < -g.merged[b].size * length(b);
        },
        [&](unsigned a, unsigned b) {
          return std::make_tuple(g.merged[a].start, -g.merged[a].size) <
                 std::make_tuple(g.merged[b].start, -g.merged[b].size);
        }};
    Plan best;
    best.arena = -1;
    for (const Key &order : orders) {
      std::vector<unsigned> sorted = reps;
      // Ties keep buffer order, so plans are deterministic.
      std::sort(sorted.begin(), sorted.end(), [&](unsigned a, unsigned b) {
        if (order(a, b))
          return true;
        return !order(b, a) && a < b;
      });
      Plan p = placeInOrder(g, sorted);
      if (best.arena < 0 || p.arena < best.arena)
        best = std::move(p);
    }
    return best;
  }

  Plan placeInOrder(const Groups &g, ArrayRef<unsigned> order) const {
    std::map<unsigned, int64_t> offsetOf;
    std::vector<unsigned> placed;
    int64_t arena = 0;
    for (unsigned r : order) {
      const Buffer &b = g.merged[r];
      std::vector<std::pair<int64_t, int64_t>> taken;
      for (unsigned q : placed) {
        const Buffer &o = g.merged[q];
        if (o.start <= b.end && b.start <= o.end)
          taken.push_back({offsetOf[q], offsetOf[q] + o.size});
      }
      std::sort(taken.begin(), taken.end());
      // The smallest gap that fits, else the end of the last conflict.
      int64_t offset = 0, bestGap = -1, cursor = 0;
      for (auto [lo, hi] : taken) {
        if (lo - cursor >= b.size && (bestGap < 0 || lo - cursor < bestGap)) {
          bestGap = lo - cursor;
          offset = cursor;
        }
        cursor = std::max(cursor, hi);
      }
      if (bestGap < 0)
        offset = cursor;
      offsetOf[r] = offset;
      placed.push_back(r);
      arena = std::max(arena, offset + b.size);
    }
    Plan p;
    p.arena = arena;
    for (unsigned i = 0; i < buffers.size(); ++i)
      p.offsets.push_back(offsetOf[find(g, i)]);
    return p;
  }

  /// The most bytes live at once (after in-place merging): no placement of
  /// these buffers can use less.
  int64_t lowerBound(const Groups &g) const {
    int64_t best = 0;
    std::vector<unsigned> reps = representatives(g);
    for (unsigned r : reps) {
      unsigned t = g.merged[r].start;
      int64_t live = 0;
      for (unsigned q : reps)
        if (g.merged[q].start <= t && t <= g.merged[q].end)
          live += g.merged[q].size;
      best = std::max(best, live);
    }
    return best;
  }

  /// Replaces every alloc by a view into a new trailing arena argument.
  /// Places every buffer; the dynamic part's size classes are returned
  /// (none when their sizes do not follow from the dimensions: then they
  /// stay on the heap).
  std::vector<mxc::DynamicClass> apply(const Plan &plan,
                                       ArrayRef<std::string> dimNames) {
    Value arena = addArena(func, plan.arena);
    auto dynamic =
        placeDynamicBuffers(func, dynamicBuffers, arena, plan.arena, dimNames);
    for (auto [i, b] : llvm::enumerate(buffers)) {
      OpBuilder builder(b.alloc);
      Value offset = arith::ConstantIndexOp::create(builder, b.alloc.getLoc(),
                                                    plan.offsets[i]);
      Value view =
          memref::ViewOp::create(builder, b.alloc.getLoc(), b.alloc.getType(),
                                 arena, offset, ValueRange{});
      // Deallocations of planned buffers go away with the allocations.
      for (Operation *user : llvm::make_early_inc_range(b.alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      b.alloc.getResult().replaceAllUsesWith(view);
      b.alloc.erase();
    }
    return succeeded(dynamic) ? *dynamic : std::vector<mxc::DynamicClass>{};
  }

private:
  static unsigned find(const Groups &g, unsigned i) {
    while (g.rep[i] != i)
      i = g.rep[i];
    return i;
  }
  std::vector<unsigned> representatives(const Groups &g) const {
    std::vector<unsigned> reps;
    for (unsigned i = 0; i < buffers.size(); ++i)
      if (find(g, i) == i)
        reps.push_back(i);
    return reps;
  }

  /// Extends `end` to the last top-level op that uses `v` or a view of it.
  bool extendLifetime(Value v, unsigned &end) {
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      while (user && user->getBlock() != &func.getBody().front())
        user = user->getParentOp();
      if (!user)
        return false;
      if (isa<func::ReturnOp>(user))
        return false; // returned buffers are not intermediates
      end = std::max(end, order.lookup(user));
      Operation *owner = use.getOwner();
      if (isa<ViewLikeOpInterface>(owner) ||
          isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(owner))
        for (Value r : owner->getResults())
          if (!extendLifetime(r, end))
            return false;
    }
    return true;
  }

  mutable func::FuncOp func;
  llvm::DenseMap<Operation *, unsigned> order;
  llvm::DenseMap<Value, unsigned> bufferOf;
  std::vector<Buffer> buffers;
  std::vector<DynamicBuffer> dynamicBuffers;
};

struct PlanMemoryPass : mxc::impl::PlanMemoryPassBase<PlanMemoryPass> {
  using PlanMemoryPassBase::PlanMemoryPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!llvm::is_contained({"naive", "inplace", "coshare", "both", "best"},
                            strategy)) {
      module.emitError() << "unknown memory-plan strategy '" << strategy
                         << "' (naive, inplace, coshare, both, best)";
      return signalPassFailure();
    }
    llvm::json::Array report;
    int64_t total = 0;
    // The dimension array's names, for the dynamic part's formulas.
    std::vector<std::string> dimNames;
    if (auto names = module->getAttrOfType<ArrayAttr>("mxc.dim_names"))
      for (Attribute name : names)
        dimNames.push_back(cast<StringAttr>(name).str());
    // placeDynamicBuffers adds functions: the list is taken first.
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      // A shape or scratch function allocates nothing.
      if (func.isExternal() || !func.getBody().hasOneBlock() ||
          func->hasAttr("mxc.shape_of") || func->hasAttr("mxc.scratch_of"))
        continue;
      Planner planner(func);
      if (!planner.analyze()) {
        // Unusual control flow: keep heap allocations, same signature.
        func.emitWarning("memory planning skipped; buffers stay on the heap");
        addArena(func, 0);
        continue;
      }
      Planner::Groups none = planner.inPlaceGroups(false);
      Planner::Groups merged = planner.inPlaceGroups(true);
      std::map<std::string, Plan> plans = {{"naive", planner.naive()},
                                           {"coshare", planner.coShare(none)},
                                           {"both", planner.coShare(merged)},
                                           {"best", planner.bestFit(merged)}};
      // In-place alone: merged groups, each group its own block.
      plans["inplace"] = [&] {
        Plan p;
        std::map<unsigned, int64_t> at;
        for (unsigned i = 0; i < merged.rep.size(); ++i) {
          unsigned r = i;
          while (merged.rep[r] != r)
            r = merged.rep[r];
          if (!at.count(r)) {
            at[r] = p.arena;
            p.arena += merged.merged[r].size;
          }
          p.offsets.push_back(at[r]);
        }
        return p;
      }();
      const Plan &chosen = plans[strategy];
      int64_t bound = planner.lowerBound(merged);
      std::vector<mxc::DynamicClass> dynamic = planner.apply(chosen, dimNames);
      if (printPlan || !jsonFile.empty())
        report.push_back(describe(func, planner, plans, bound, dynamic));
      if (printPlan)
        print(func, planner, plans, bound, dynamic);
      total = std::max(total, chosen.arena); // one function runs at a time
    }
    module->setAttr("mxc.arena_size",
                    IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                     std::max<int64_t>(total, 1)));
    if (!jsonFile.empty()) {
      std::error_code ec;
      llvm::raw_fd_ostream os(jsonFile, ec);
      if (ec) {
        module.emitError() << "cannot write '" << jsonFile
                           << "': " << ec.message();
        return signalPassFailure();
      }
      os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report)))
         << "\n";
    }
  }

  llvm::json::Object describe(func::FuncOp func, const Planner &planner,
                              std::map<std::string, Plan> &plans, int64_t bound,
                              ArrayRef<mxc::DynamicClass> dynamic) {
    llvm::json::Array dynamicClasses;
    for (const mxc::DynamicClass &c : dynamic)
      dynamicClasses.push_back(llvm::json::Object{
          {"bytes", c.bytes}, {"buffers", c.buffers}, {"slots", c.slots}});
    llvm::json::Object strategies;
    for (auto &[name, plan] : plans)
      strategies[name] = plan.arena;
    llvm::json::Array buffers;
    const Plan &chosen = plans[strategy];
    for (auto [i, b] : llvm::enumerate(planner.getBuffers()))
      buffers.push_back(llvm::json::Object{{"offset", chosen.offsets[i]},
                                           {"size", b.size},
                                           {"start", b.start},
                                           {"end", b.end}});
    return llvm::json::Object{{"function", func.getName()},
                              {"strategy", strategy},
                              {"arena_bytes", chosen.arena},
                              {"naive_bytes", plans["naive"].arena},
                              {"lower_bound_bytes", bound},
                              {"strategies", std::move(strategies)},
                              {"buffers", std::move(buffers)},
                              {"dynamic", std::move(dynamicClasses)}};
  }

  void print(func::FuncOp func, const Planner &planner,
             std::map<std::string, Plan> &plans, int64_t bound,
             ArrayRef<mxc::DynamicClass> dynamic) {
    llvm::raw_ostream &os = llvm::outs();
    os << "memory plan for @" << func.getName() << " ("
       << planner.getBuffers().size() << " intermediate buffers)\n";
    for (const char *name : {"naive", "inplace", "coshare", "both", "best"})
      os << llvm::formatv("  {0,-8} {1,14} bytes{2}\n", name, plans[name].arena,
                          strategy == name ? "  <- chosen" : "");
    os << llvm::formatv("  {0,-8} {1,14} bytes (most bytes live at once)\n",
                        "bound", bound);
    const Plan &chosen = plans[strategy];
    os << "  buffer   offset        size  lifetime\n";
    for (auto [i, b] : llvm::enumerate(planner.getBuffers()))
      os << llvm::formatv("  {0,6} {1,8} {2,11}  [{3}, {4}]\n", i,
                          chosen.offsets[i], b.size, b.start, b.end);
    if (dynamic.empty())
      return;
    // The arena as a function of the dimensions.
    os << "  dynamic part, after the static bytes (buffers of equal extents "
          "share slots):\n";
    std::string total = std::to_string(chosen.arena);
    for (const mxc::DynamicClass &c : dynamic) {
      os << llvm::formatv("  {0,6} buffers in {1} slots of {2} bytes\n",
                          c.buffers, c.slots, c.bytes);
      total += " + " + std::to_string(c.slots) + "*" + c.bytes;
    }
    os << "  arena = " << total << " bytes\n";
  }
};

} // namespace
