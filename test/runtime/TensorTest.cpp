// SPDX-License-Identifier: Apache-2.0
//
// Status codes, per-thread errors, dtypes and tensor construction: every
// argument check a tensor constructor makes is exercised, with the message
// expected to name the offending argument.

#include "TestUtil.h"

#include <cstring>
#include <thread>

using namespace mxrt_test;
using ::testing::HasSubstr;

namespace {

TEST(Status, NamesEveryCode) {
  EXPECT_STREQ(mxrt_status_string(MXRT_OK), "OK");
  EXPECT_STREQ(mxrt_status_string(MXRT_INVALID_ARGUMENT), "INVALID_ARGUMENT");
  EXPECT_STREQ(mxrt_status_string(MXRT_NOT_FOUND), "NOT_FOUND");
  EXPECT_STREQ(mxrt_status_string(MXRT_IO_ERROR), "IO_ERROR");
  EXPECT_STREQ(mxrt_status_string(MXRT_OUT_OF_MEMORY), "OUT_OF_MEMORY");
  EXPECT_STREQ(mxrt_status_string(MXRT_UNSUPPORTED), "UNSUPPORTED");
  EXPECT_STREQ(mxrt_status_string(MXRT_INTERNAL), "INTERNAL");
  EXPECT_STREQ(mxrt_status_string(static_cast<mxrt_status>(42)), "UNKNOWN");
}

TEST(Status, LastErrorIsPerThread) {
  mxrt_tensor *tensor = nullptr;
  ASSERT_EQ(mxrt_tensor_create(MXRT_F32, -1, nullptr, &tensor),
            MXRT_INVALID_ARGUMENT);
  std::string mine = mxrt_last_error();
  EXPECT_THAT(mine, HasSubstr("ndim"));
  std::string theirs = "unset";
  std::thread([&] { theirs = mxrt_last_error(); }).join();
  EXPECT_EQ(theirs, "");
  // A successful call keeps the last message.
  int64_t shape[] = {2};
  ASSERT_EQ(mxrt_tensor_create(MXRT_F32, 1, shape, &tensor), MXRT_OK);
  mxrt_tensor_release(tensor);
  EXPECT_EQ(std::string(mxrt_last_error()), mine);
}

TEST(Dtype, SizesAndNames) {
  struct {
    mxrt_dtype dtype;
    size_t size;
    const char *name;
  } expected[] = {{MXRT_F32, 4, "float32"},  {MXRT_F64, 8, "float64"},
                  {MXRT_F16, 2, "float16"},  {MXRT_U8, 1, "uint8"},
                  {MXRT_I32, 4, "int32"},    {MXRT_I8, 1, "int8"},
                  {MXRT_I64, 8, "int64"},    {MXRT_BOOL, 1, "bool"},
                  {MXRT_I16, 2, "int16"},    {MXRT_U16, 2, "uint16"},
                  {MXRT_U32, 4, "uint32"},   {MXRT_U64, 8, "uint64"},
                  {MXRT_BF16, 2, "bfloat16"}};
  for (const auto &e : expected) {
    EXPECT_EQ(mxrt_dtype_size(e.dtype), e.size) << e.name;
    EXPECT_STREQ(mxrt_dtype_name(e.dtype), e.name);
  }
  // Codes match MXNet's dtype flags.
  EXPECT_EQ(MXRT_F32, 0);
  EXPECT_EQ(MXRT_I64, 6);
  EXPECT_EQ(mxrt_dtype_size(static_cast<mxrt_dtype>(99)), 0u);
  EXPECT_STREQ(mxrt_dtype_name(static_cast<mxrt_dtype>(99)), "unknown");
}

TEST(Tensor, CreateIsZeroFilledAndAligned) {
  int64_t shape[] = {3, 5, 7};
  mxrt_tensor *raw = nullptr;
  ASSERT_EQ(mxrt_tensor_create(MXRT_F64, 3, shape, &raw), MXRT_OK);
  TensorPtr tensor(raw);
  EXPECT_EQ(mxrt_tensor_dtype(raw), MXRT_F64);
  EXPECT_EQ(mxrt_tensor_ndim(raw), 3);
  EXPECT_EQ(mxrt_tensor_shape(raw)[0], 3);
  EXPECT_EQ(mxrt_tensor_shape(raw)[2], 7);
  EXPECT_EQ(mxrt_tensor_num_elements(raw), 105);
  EXPECT_EQ(mxrt_tensor_size_bytes(raw), 840u);
  auto *data = static_cast<unsigned char *>(mxrt_tensor_data(raw));
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % 64, 0u);
  for (size_t i = 0; i < 840; ++i)
    ASSERT_EQ(data[i], 0) << "byte " << i;
  // The shape is copied, not referenced.
  shape[0] = 100;
  EXPECT_EQ(mxrt_tensor_shape(raw)[0], 3);
}

// Memory the allocator hands out again still reads as zeros.
TEST(Tensor, CreateZeroesRecycledMemory) {
  for (int64_t size : {1, 3, 100, 4096, 4096, 100, 3, 1}) {
    mxrt_tensor *tensor = nullptr;
    ASSERT_EQ(mxrt_tensor_create(MXRT_U8, 1, &size, &tensor), MXRT_OK);
    auto *data = static_cast<unsigned char *>(mxrt_tensor_data(tensor));
    for (int64_t i = 0; i < size; ++i)
      ASSERT_EQ(data[i], 0) << "size " << size << ", byte " << i;
    std::memset(data, 0xAB, static_cast<size_t>(size));
    mxrt_tensor_release(tensor);
  }
}

TEST(Tensor, ScalarAndEmptyShapes) {
  mxrt_tensor *scalar = nullptr;
  ASSERT_EQ(mxrt_tensor_create(MXRT_I64, 0, nullptr, &scalar), MXRT_OK);
  TensorPtr owner(scalar);
  EXPECT_EQ(mxrt_tensor_num_elements(scalar), 1);
  EXPECT_EQ(mxrt_tensor_size_bytes(scalar), 8u);

  int64_t shape[] = {4, 0, 2};
  mxrt_tensor *empty = nullptr;
  ASSERT_EQ(mxrt_tensor_create(MXRT_U8, 3, shape, &empty), MXRT_OK);
  TensorPtr owner2(empty);
  EXPECT_EQ(mxrt_tensor_num_elements(empty), 0);
  EXPECT_EQ(mxrt_tensor_size_bytes(empty), 0u);
  EXPECT_NE(mxrt_tensor_data(empty), nullptr);

  int64_t maxRank[MXRT_MAX_DIMS] = {1, 2, 1, 2, 1, 2, 1, 2};
  mxrt_tensor *deep = nullptr;
  ASSERT_EQ(mxrt_tensor_create(MXRT_BOOL, MXRT_MAX_DIMS, maxRank, &deep),
            MXRT_OK);
  TensorPtr owner3(deep);
  EXPECT_EQ(mxrt_tensor_num_elements(deep), 16);
}

/// Expects `status` to be INVALID_ARGUMENT with a message containing `word`.
void expectInvalid(mxrt_status status, const char *word) {
  EXPECT_EQ(status, MXRT_INVALID_ARGUMENT) << mxrt_status_string(status);
  EXPECT_THAT(mxrt_last_error(), HasSubstr(word));
}

TEST(Tensor, CreateRejectsBadArguments) {
  int64_t shape[] = {2, 3};
  mxrt_tensor *sentinel = reinterpret_cast<mxrt_tensor *>(0x1);
  mxrt_tensor *out = sentinel;
  expectInvalid(mxrt_tensor_create(MXRT_F32, 2, shape, nullptr), "out_tensor");
  expectInvalid(mxrt_tensor_create(MXRT_F32, -1, shape, &out), "ndim is -1");
  expectInvalid(mxrt_tensor_create(MXRT_F32, MXRT_MAX_DIMS + 1, shape, &out),
                "ndim is 9");
  expectInvalid(mxrt_tensor_create(MXRT_F32, 2, nullptr, &out),
                "shape is NULL");
  expectInvalid(mxrt_tensor_create(static_cast<mxrt_dtype>(13), 2, shape, &out),
                "dtype 13");
  int64_t negative[] = {2, -3};
  expectInvalid(mxrt_tensor_create(MXRT_F32, 2, negative, &out),
                "shape[1] is -3");
  int64_t overflow[] = {int64_t(1) << 40, int64_t(1) << 40};
  expectInvalid(mxrt_tensor_create(MXRT_F32, 2, overflow, &out), "too large");
  int64_t huge[] = {int64_t(1) << 47};
  expectInvalid(mxrt_tensor_create(MXRT_F64, 1, huge, &out), "too large");
  int64_t wraps[] = {INT64_MAX, 2, 2, 2};
  expectInvalid(mxrt_tensor_create(MXRT_U8, 4, wraps, &out), "too large");
  // Results are written only on success.
  EXPECT_EQ(out, sentinel);
}

TEST(Tensor, WrapViewsCallerMemory) {
  alignas(64) float data[6] = {1, 2, 3, 4, 5, 6};
  int64_t shape[] = {2, 3};
  mxrt_tensor *raw = nullptr;
  ASSERT_EQ(mxrt_tensor_wrap(MXRT_F32, 2, shape, data, &raw), MXRT_OK);
  EXPECT_EQ(mxrt_tensor_data(raw), data);
  EXPECT_EQ(mxrt_tensor_size_bytes(raw), sizeof(data));
  static_cast<float *>(mxrt_tensor_data(raw))[5] = 42;
  mxrt_tensor_release(raw); // Must not free `data`.
  EXPECT_EQ(data[5], 42);
}

TEST(Tensor, WrapRejectsBadArguments) {
  alignas(64) unsigned char bytes[64] = {};
  int64_t shape[] = {4};
  mxrt_tensor *out = nullptr;
  expectInvalid(mxrt_tensor_wrap(MXRT_F32, 1, shape, nullptr, &out),
                "data is NULL");
  expectInvalid(mxrt_tensor_wrap(MXRT_F32, 1, shape, bytes + 1, &out),
                "not aligned");
  expectInvalid(mxrt_tensor_wrap(MXRT_F32, 1, shape, bytes, nullptr),
                "out_tensor");
  int64_t negative[] = {-1};
  expectInvalid(mxrt_tensor_wrap(MXRT_F32, 1, negative, bytes, &out),
                "shape[0]");
  // An empty view may point nowhere.
  int64_t empty[] = {0};
  ASSERT_EQ(mxrt_tensor_wrap(MXRT_F32, 1, empty, nullptr, &out), MXRT_OK);
  mxrt_tensor_release(out);
}

TEST(Tensor, AccessorsAndReleaseAcceptNull) {
  mxrt_tensor_release(nullptr);
  EXPECT_EQ(mxrt_tensor_ndim(nullptr), 0);
  EXPECT_EQ(mxrt_tensor_shape(nullptr), nullptr);
  EXPECT_EQ(mxrt_tensor_num_elements(nullptr), 0);
  EXPECT_EQ(mxrt_tensor_size_bytes(nullptr), 0u);
  EXPECT_EQ(mxrt_tensor_data(nullptr), nullptr);
}

} // namespace
