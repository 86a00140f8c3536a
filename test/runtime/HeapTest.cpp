// SPDX-License-Identifier: Apache-2.0
// The heap of compiled code (runtime/src/heap.cpp): blocks are 64-byte
// aligned and hold what was asked; a freed large block serves the next
// request of about its size (the pages a decode step touched stay mapped);
// small blocks and over-aligned requests go their own ways.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>

extern "C" {
void *_mlir_memref_to_llvm_alloc(size_t bytes);
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t bytes);
void _mlir_memref_to_llvm_free(void *data);
}

namespace {

bool aligned64(const void *p) {
  return reinterpret_cast<uintptr_t>(p) % 64 == 0;
}

TEST(Heap, BlocksAreAlignedAndWritable) {
  for (size_t bytes : {size_t(1), size_t(100), size_t(4096), size_t(1) << 20}) {
    auto *p = static_cast<unsigned char *>(_mlir_memref_to_llvm_alloc(bytes));
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_TRUE(aligned64(p)) << bytes;
    std::memset(p, 0xab, bytes);
    EXPECT_EQ(p[bytes - 1], 0xab);
    _mlir_memref_to_llvm_free(p);
  }
  void *q = _mlir_memref_to_llvm_aligned_alloc(64, 3000);
  ASSERT_NE(q, nullptr);
  EXPECT_TRUE(aligned64(q));
  _mlir_memref_to_llvm_free(q);
  EXPECT_EQ(_mlir_memref_to_llvm_aligned_alloc(128, 64), nullptr);
  EXPECT_EQ(_mlir_memref_to_llvm_alloc(SIZE_MAX - 8), nullptr);
  _mlir_memref_to_llvm_free(nullptr);
}

TEST(Heap, FreedLargeBlocksServeTheNextCall) {
  // A call's buffers, freed, then the next call's of the same sizes: the
  // same blocks come back.
  std::set<void *> first;
  for (size_t bytes : {size_t(1) << 20, size_t(3) << 19, size_t(200000)})
    first.insert(_mlir_memref_to_llvm_alloc(bytes));
  for (void *p : first)
    _mlir_memref_to_llvm_free(p);
  std::set<void *> second;
  for (size_t bytes : {size_t(1) << 20, size_t(3) << 19, size_t(200000)})
    second.insert(_mlir_memref_to_llvm_alloc(bytes));
  EXPECT_EQ(first, second);
  for (void *p : second)
    _mlir_memref_to_llvm_free(p);
  // A much smaller request does not take a kept block twice its size.
  void *small = _mlir_memref_to_llvm_alloc(100000);
  EXPECT_EQ(second.count(small), 0u);
  _mlir_memref_to_llvm_free(small);
}

} // namespace
