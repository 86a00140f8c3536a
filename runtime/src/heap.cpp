// SPDX-License-Identifier: Apache-2.0
// The heap of compiled code: buffers the memory plan cannot place in the
// instance's arena (sizes that do not follow from the call's dimensions
// alone, or a function the planner leaves alone) are allocated and freed
// by every call. mxc lowers them to the generic
// allocation functions below (finalize-memref-to-llvm's
// use-generic-functions) rather than to malloc and free: freed blocks of
// 64 KiB and more are kept for the next call, so that a step does not map
// fresh pages for every buffer (glibc returns large blocks to the system,
// and the page faults of their first touch were 28% of a GPT-2-small
// decode step's time).
#include "mxrt/mxrt.h"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>

namespace {

/// Blocks below this many bytes go to malloc and free directly.
constexpr size_t kCachedFrom = size_t(64) << 10;
/// The most bytes the cache keeps.
constexpr size_t kCacheLimit = size_t(512) << 20;
/// Bytes before each block's data: its base and capacity.
constexpr size_t kHeader = 64;

struct Header {
  void *base;
  size_t capacity; // bytes from the data on
};

Header &headerOf(void *data) {
  return *reinterpret_cast<Header *>(static_cast<char *>(data) -
                                     sizeof(Header));
}

class BlockCache {
public:
  /// A block of at least `bytes`, its data 64-byte aligned, or NULL.
  void *take(size_t bytes) {
    if (bytes >= kCachedFrom) {
      std::lock_guard<std::mutex> lock(mutex);
      // The smallest kept block that fits, if it wastes at most half.
      auto it = free.lower_bound(bytes);
      if (it != free.end() && it->first <= 2 * bytes) {
        void *data = it->second;
        kept -= it->first;
        free.erase(it);
        return data;
      }
    }
    if (bytes > SIZE_MAX / 2)
      return nullptr;
    // Rounded up to pages, so that nearby sizes share blocks; small ones to
    // the alignment, which aligned_alloc requires of the size.
    size_t granule = bytes < kCachedFrom ? kHeader : 4096;
    size_t capacity = (bytes + granule - 1) / granule * granule;
    void *base = std::aligned_alloc(kHeader, kHeader + capacity);
    if (!base)
      return nullptr;
    void *data = static_cast<char *>(base) + kHeader;
    headerOf(data) = {base, capacity};
    return data;
  }

  void give(void *data) {
    if (!data)
      return;
    Header header = headerOf(data);
    if (header.capacity >= kCachedFrom) {
      std::lock_guard<std::mutex> lock(mutex);
      if (kept + header.capacity <= kCacheLimit) {
        free.emplace(header.capacity, data);
        kept += header.capacity;
        return;
      }
    }
    std::free(header.base);
  }

  ~BlockCache() {
    for (auto &[capacity, data] : free)
      std::free(headerOf(data).base);
  }

private:
  std::mutex mutex;
  std::multimap<size_t, void *> free; // capacity -> data
  size_t kept = 0;
};

BlockCache &cache() {
  static BlockCache *blocks = new BlockCache; // outlives every model call
  return *blocks;
}

} // namespace

extern "C" {

MXRT_API void *_mlir_memref_to_llvm_alloc(size_t bytes) {
  return cache().take(bytes);
}

MXRT_API void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                  size_t bytes) {
  if (alignment > kHeader)
    return nullptr; // compiled code asks for 64 at most
  return cache().take(bytes);
}

MXRT_API void _mlir_memref_to_llvm_free(void *data) { cache().give(data); }

} // extern "C"
