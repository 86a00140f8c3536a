// SPDX-License-Identifier: Apache-2.0
// mxc-gpu-tile-loops (see GpuTileLoopsPass in Passes.td): each outermost
// scf.parallel's innermost dimension split into blocks of `threads`
// iterations, so that gpu-map-parallel-loops gives every GPU block that many
// threads instead of one.
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace mxc {
#define GEN_PASS_DEF_GPUTILELOOPSPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

struct GpuTileLoopsPass : mxc::impl::GpuTileLoopsPassBase<GpuTileLoopsPass> {
  using GpuTileLoopsPassBase::GpuTileLoopsPassBase;

  void runOnOperation() override {
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        outermost.push_back(loop);
    });
    for (scf::ParallelOp loop : outermost) {
      SmallVector<int64_t> sizes(loop.getNumLoops(), 1);
      // A block as wide as the last dimension (a whole number of warps) up
      // to `threads`: a 32-wide image row takes 32 threads, not 256 of
      // which 224 would idle.
      std::optional<int64_t> last = constantTrips(loop, loop.getNumLoops() - 1);
      sizes.back() =
          last ? std::clamp<int64_t>(llvm::PowerOf2Ceil(*last), 32, threads)
               : int64_t(threads);
      // The blocks loop's trip counts (its bounds are not folded yet);
      // unknown: -1.
      SmallVector<int64_t> trips;
      for (unsigned d = 0; d < loop.getNumLoops(); ++d) {
        std::optional<int64_t> n = constantTrips(loop, d);
        trips.push_back(n ? (*n + sizes[d] - 1) / sizes[d] : -1);
      }
      // Guards instead of min bounds: every block has the same number of
      // threads, those past the end doing nothing.
      auto [blocks, tile] =
          scf::tileParallelLoop(loop, sizes, /*noMinMaxBounds=*/true);
      if (failed(mapLoops(blocks, tile, trips)))
        return signalPassFailure();
    }
  }

  /// Dimension d's trip count, if its bounds and step are constants.
  static std::optional<int64_t> constantTrips(scf::ParallelOp loop,
                                              unsigned d) {
    std::optional<int64_t> lo = getConstantIntValue(loop.getLowerBound()[d]),
                           hi = getConstantIntValue(loop.getUpperBound()[d]),
                           step = getConstantIntValue(loop.getStep()[d]);
    if (!lo || !hi || !step || *step <= 0)
      return std::nullopt;
    return (*hi - *lo + *step - 1) / *step;
  }

  /// The tile's last dimension to thread x (its others have one trip);
  /// the blocks' dimensions, from the last (the widest: the image's
  /// flattened pixels, a row's tiles) outwards, to block x, y and z, as
  /// far as the grid allows (y and z at most 65535); the rest run
  /// serially in each thread.
  LogicalResult mapLoops(scf::ParallelOp blocks, scf::ParallelOp tile,
                         ArrayRef<int64_t> trips) {
    MLIRContext *ctx = &getContext();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(1, ctx);
    auto dim = [&](gpu::Processor p) {
      return gpu::ParallelLoopDimMappingAttr::get(ctx, p, identity, identity);
    };
    SmallVector<gpu::ParallelLoopDimMappingAttr> threadMap(
        tile.getNumLoops(), dim(gpu::Processor::Sequential));
    threadMap.back() = dim(gpu::Processor::ThreadX);
    SmallVector<gpu::ParallelLoopDimMappingAttr> blockMap(
        blocks.getNumLoops(), dim(gpu::Processor::Sequential));
    const gpu::Processor grid[] = {
        gpu::Processor::BlockX, gpu::Processor::BlockY, gpu::Processor::BlockZ};
    unsigned next = 0;
    for (int64_t d = int64_t(blocks.getNumLoops()) - 1; d >= 0 && next < 3;
         --d) {
      if (trips[d] < 0 || (next > 0 && trips[d] > 65535))
        continue;
      blockMap[d] = dim(grid[next++]);
    }
    if (failed(gpu::setMappingAttr(blocks, blockMap)) ||
        failed(gpu::setMappingAttr(tile, threadMap)))
      return blocks.emitError("mxc-gpu-tile-loops: cannot map the loop");
    return success();
  }
};

} // namespace
