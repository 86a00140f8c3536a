// SPDX-License-Identifier: Apache-2.0
//
// Status codes, per-thread errors, dtypes and tensor construction: every
// argument check a tensor constructor makes is exercised, with the message
// expected to name the offending argument.

#include "TestUtil.h"

#include "mxrt/kernels.h"

#include <cmath>
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
  } expected[] = {{MXRT_F32, 4, "float32"},   {MXRT_F64, 8, "float64"},
                  {MXRT_F16, 2, "float16"},   {MXRT_U8, 1, "uint8"},
                  {MXRT_I32, 4, "int32"},     {MXRT_I8, 1, "int8"},
                  {MXRT_I64, 8, "int64"},     {MXRT_BOOL, 1, "bool"},
                  {MXRT_I16, 2, "int16"},     {MXRT_U16, 2, "uint16"},
                  {MXRT_U32, 4, "uint32"},    {MXRT_U64, 8, "uint64"},
                  {MXRT_BF16, 2, "bfloat16"}, {MXRT_STRING, 8, "string"}};
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
// String tensors hold `const char *` elements: "" until set, copies owned
// by the tensor once set (created and wrapped tensors alike).
TEST(Tensor, StringElements) {
  const int64_t shape[] = {2, 2};
  mxrt_tensor *raw = nullptr;
  ASSERT_EQ(mxrt_tensor_create(MXRT_STRING, 2, shape, &raw), MXRT_OK);
  TensorPtr t(raw);
  EXPECT_EQ(mxrt_tensor_size_bytes(raw), 4 * sizeof(const char *));
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_STREQ(mxrt_tensor_get_string(raw, i), "");
  std::string text = "abc";
  ASSERT_EQ(mxrt_tensor_set_string(raw, 3, text.c_str()), MXRT_OK);
  text[0] = 'X'; // a copy was stored
  EXPECT_STREQ(mxrt_tensor_get_string(raw, 3), "abc");
  EXPECT_EQ(static_cast<const char **>(mxrt_tensor_data(raw))[3],
            mxrt_tensor_get_string(raw, 3));
  ASSERT_EQ(mxrt_tensor_set_string(raw, 3, "longer text"), MXRT_OK);
  EXPECT_STREQ(mxrt_tensor_get_string(raw, 3), "longer text");
  EXPECT_EQ(mxrt_tensor_set_string(raw, 4, "x"), MXRT_INVALID_ARGUMENT);
  EXPECT_EQ(mxrt_tensor_get_string(raw, -1), nullptr);

  const char *mine[] = {"one", nullptr};
  const int64_t two = 2;
  mxrt_tensor *wrapped = nullptr;
  ASSERT_EQ(mxrt_tensor_wrap(MXRT_STRING, 1, &two, mine, &wrapped), MXRT_OK);
  TensorPtr w(wrapped);
  EXPECT_STREQ(mxrt_tensor_get_string(wrapped, 0), "one");
  EXPECT_STREQ(mxrt_tensor_get_string(wrapped, 1), ""); // NULL reads as ""
  ASSERT_EQ(mxrt_tensor_set_string(wrapped, 1, "two"), MXRT_OK);
  EXPECT_STREQ(mine[1], "two");

  mxrt_tensor *floats = nullptr;
  ASSERT_EQ(mxrt_tensor_create(MXRT_F32, 1, &two, &floats), MXRT_OK);
  TensorPtr f(floats);
  EXPECT_EQ(mxrt_tensor_set_string(floats, 0, "x"), MXRT_INVALID_ARGUMENT);
  EXPECT_EQ(mxrt_tensor_get_string(floats, 0), nullptr);
}

// Numbers format as NumPy's str() does (expected texts recorded from NumPy
// 1.24's str(np.float32(v)) / str(np.float64(v))).
TEST(Strings, FormatLikeNumPy) {
  struct {
    double value;
    int32_t bits;
    const char *text;
  } cases[] = {{1e-5, 32, "1e-05"},
               {123456789.0, 32, "123456790.0"},
               {123456789.0, 64, "123456789.0"},
               {0.1, 32, "0.1"},
               {1.0 / 3, 32, "0.33333334"},
               {1.0 / 3, 64, "0.3333333333333333"},
               {1e16, 32, "1e+16"},
               {-0.0, 32, "-0.0"},
               {2.5e-4, 64, "0.00025"},
               {9.999e15, 32, "9999000000000000.0"},
               {100.0, 64, "100.0"},
               {3.4028234663852886e38, 32, "3.4028235e+38"},
               {1e-45, 32, "1e-45"},
               {0.039187793, 32, "0.039187793"},
               {NAN, 32, "NaN"},
               {INFINITY, 64, "INF"},
               {-INFINITY, 32, "-INF"}};
  for (const auto &c : cases)
    EXPECT_STREQ(mxrt_string_from_float(c.value, c.bits), c.text)
        << c.value << " as a " << c.bits << "-bit float";
  EXPECT_STREQ(mxrt_string_from_int(-42, 0), "-42");
  EXPECT_STREQ(mxrt_string_from_int(-1, 1), "18446744073709551615");
}

TEST(Strings, ParseNumbers) {
  EXPECT_EQ(mxrt_string_to_float("0.47892547", 32),
            static_cast<double>(0.47892547f));
  EXPECT_EQ(mxrt_string_to_float("0.1", 64), 0.1);
  EXPECT_EQ(mxrt_string_to_float(" 1E3 ", 64), 1000.0);
  EXPECT_EQ(mxrt_string_to_float("+2.5", 32), 2.5);
  EXPECT_EQ(mxrt_string_to_float("INF", 32), INFINITY);
  EXPECT_EQ(mxrt_string_to_float("+inf", 32), INFINITY);
  EXPECT_EQ(mxrt_string_to_float("-INF", 64), -INFINITY);
  EXPECT_TRUE(std::isnan(mxrt_string_to_float("NaN", 32)));
  EXPECT_TRUE(std::isnan(mxrt_string_to_float("nan", 64)));
  EXPECT_EQ(mxrt_string_to_float("1e50", 32), INFINITY);
  EXPECT_EQ(mxrt_string_to_int("-7", 0), -7);
  EXPECT_EQ(mxrt_string_to_int("100.5", 0), 100);
  EXPECT_EQ(mxrt_string_to_int("-2.9", 0), -2);
  EXPECT_EQ(mxrt_string_to_int("True", 0), 1);
  EXPECT_EQ(mxrt_string_to_int("18446744073709551615", 1), -1);
  EXPECT_EQ(mxrt_string_to_int("1e30", 0), INT64_MAX);
  // Not numbers: NaN / 0 (an instance call would fail, see strings.test).
  EXPECT_TRUE(std::isnan(mxrt_string_to_float("abc", 32)));
  EXPECT_TRUE(std::isnan(mxrt_string_to_float("", 32)));
  EXPECT_TRUE(std::isnan(mxrt_string_to_float("1.5x", 64)));
  EXPECT_TRUE(std::isnan(mxrt_string_to_float("+-1", 64)));
  EXPECT_EQ(mxrt_string_to_int("seven", 0), 0);
  EXPECT_EQ(mxrt_string_to_int(nullptr, 0), 0);
}

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
  expectInvalid(mxrt_tensor_create(static_cast<mxrt_dtype>(14), 2, shape, &out),
                "dtype 14");
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

TEST(ParamsFile, NamedTensorsRoundTripAndTruncationFails) {
  TempDir dir;
  std::string path = dir.file("list.params");
  int64_t shape[2] = {2, 3};
  mxrt_tensor *a, *n;
  ASSERT_EQ(mxrt_tensor_create(MXRT_F32, 2, shape, &a), MXRT_OK);
  ASSERT_EQ(mxrt_tensor_create(MXRT_I64, 0, nullptr, &n), MXRT_OK);
  for (int i = 0; i < 6; ++i)
    static_cast<float *>(mxrt_tensor_data(a))[i] = 0.5f * float(i) - 1;
  *static_cast<int64_t *>(mxrt_tensor_data(n)) = -42;
  const char *names[] = {"arg:a", "count"};
  const mxrt_tensor *tensors[] = {a, n};
  ASSERT_EQ(mxrt_params_save(path.c_str(), 2, names, tensors), MXRT_OK);
  mxrt_params *params = nullptr;
  ASSERT_EQ(mxrt_params_load(path.c_str(), &params), MXRT_OK)
      << mxrt_last_error();
  ASSERT_EQ(mxrt_params_count(params), 2u);
  EXPECT_STREQ(mxrt_params_name(params, 0), "arg:a");
  const mxrt_tensor *la = mxrt_params_find(params, "arg:a");
  ASSERT_NE(la, nullptr);
  EXPECT_EQ(mxrt_tensor_ndim(la), 2);
  EXPECT_EQ(mxrt_tensor_shape(la)[1], 3);
  EXPECT_EQ(std::memcmp(mxrt_tensor_data(const_cast<mxrt_tensor *>(la)),
                        mxrt_tensor_data(a), 24),
            0);
  const mxrt_tensor *ln = mxrt_params_find(params, "count");
  ASSERT_NE(ln, nullptr);
  EXPECT_EQ(mxrt_tensor_dtype(ln), MXRT_I64);
  EXPECT_EQ(mxrt_tensor_ndim(ln), 0);
  EXPECT_EQ(*static_cast<const int64_t *>(
                mxrt_tensor_data(const_cast<mxrt_tensor *>(ln))),
            -42);
  EXPECT_EQ(mxrt_params_find(params, "missing"), nullptr);
  EXPECT_EQ(mxrt_params_name(params, 2), nullptr);
  mxrt_params_release(params);
  // Every cut of the file is an IO_ERROR naming it, never a crash.
  std::string bytes = readFile(path);
  std::string cut = dir.file("cut.params");
  for (size_t size = 0; size < bytes.size(); size += 7) {
    writeFile(cut, bytes.substr(0, size));
    mxrt_params *bad = nullptr;
    EXPECT_EQ(mxrt_params_load(cut.c_str(), &bad), MXRT_IO_ERROR) << size;
    EXPECT_NE(std::strstr(mxrt_last_error(), "cut.params"), nullptr);
    EXPECT_EQ(bad, nullptr);
  }
  mxrt_tensor_release(a);
  mxrt_tensor_release(n);
}
