// SPDX-License-Identifier: Apache-2.0
//
// .npy reading and writing, checked against files written by real NumPy
// (test/runtime/data, see gen_fixtures.py): exact values, byte-for-byte
// output, round trips of every dtype, and the errors for corrupt files.

#include "TestUtil.h"

#include <cstring>
#include <filesystem>
#include <vector>

using namespace mxrt_test;
using ::testing::HasSubstr;

namespace {

std::string fixture(const std::string &name) {
  return std::string(MXRT_TEST_DATA_DIR) + "/" + name;
}

TensorPtr load(const std::string &path) {
  mxrt_tensor *tensor = nullptr;
  mxrt_status status = mxrt_tensor_load_npy(path.c_str(), &tensor);
  EXPECT_EQ(status, MXRT_OK) << path << ": " << mxrt_last_error();
  return TensorPtr(tensor);
}

std::vector<int64_t> shapeOf(const mxrt_tensor *tensor) {
  const int64_t *shape = mxrt_tensor_shape(tensor);
  return std::vector<int64_t>(shape, shape + mxrt_tensor_ndim(tensor));
}

template <typename T> std::vector<T> valuesOf(mxrt_tensor *tensor) {
  auto *data = static_cast<const T *>(mxrt_tensor_data(tensor));
  return std::vector<T>(data, data + mxrt_tensor_num_elements(tensor));
}

using Shape = std::vector<int64_t>;

TEST(NpyLoad, NumPyFixturesHaveTheirValues) {
  TensorPtr f32 = load(fixture("f32_2x3.npy"));
  ASSERT_TRUE(f32);
  EXPECT_EQ(mxrt_tensor_dtype(f32.get()), MXRT_F32);
  EXPECT_EQ(shapeOf(f32.get()), (Shape{2, 3}));
  EXPECT_EQ(valuesOf<float>(f32.get()),
            (std::vector<float>{-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f}));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(mxrt_tensor_data(f32.get())) % 64, 0u);

  TensorPtr f64 = load(fixture("f64_scalar.npy"));
  ASSERT_TRUE(f64);
  EXPECT_EQ(mxrt_tensor_dtype(f64.get()), MXRT_F64);
  EXPECT_EQ(mxrt_tensor_ndim(f64.get()), 0);
  EXPECT_EQ(valuesOf<double>(f64.get()), std::vector<double>{3.25});

  // 1.0, -2.5 and 65504 (the largest finite half) as IEEE half bits.
  TensorPtr f16 = load(fixture("f16_3.npy"));
  ASSERT_TRUE(f16);
  EXPECT_EQ(mxrt_tensor_dtype(f16.get()), MXRT_F16);
  EXPECT_EQ(valuesOf<uint16_t>(f16.get()),
            (std::vector<uint16_t>{0x3C00, 0xC100, 0x7BFF}));

  // 1.0, -2.5 and NaN as bfloat16 bits, tagged by a structured dtype.
  TensorPtr bf16 = load(fixture("bf16_3.npy"));
  ASSERT_TRUE(bf16);
  EXPECT_EQ(mxrt_tensor_dtype(bf16.get()), MXRT_BF16);
  EXPECT_EQ(valuesOf<uint16_t>(bf16.get()),
            (std::vector<uint16_t>{0x3F80, 0xC020, 0x7FC0}));

  TensorPtr u8 = load(fixture("u8_4.npy"));
  ASSERT_TRUE(u8);
  EXPECT_EQ(mxrt_tensor_dtype(u8.get()), MXRT_U8);
  EXPECT_EQ(valuesOf<uint8_t>(u8.get()),
            (std::vector<uint8_t>{0, 1, 254, 255}));

  TensorPtr i8 = load(fixture("i8_4.npy"));
  ASSERT_TRUE(i8);
  EXPECT_EQ(mxrt_tensor_dtype(i8.get()), MXRT_I8);
  EXPECT_EQ(valuesOf<int8_t>(i8.get()),
            (std::vector<int8_t>{-128, -1, 0, 127}));

  TensorPtr i32 = load(fixture("i32_2x2.npy"));
  ASSERT_TRUE(i32);
  EXPECT_EQ(mxrt_tensor_dtype(i32.get()), MXRT_I32);
  EXPECT_EQ(shapeOf(i32.get()), (Shape{2, 2}));
  EXPECT_EQ(valuesOf<int32_t>(i32.get()),
            (std::vector<int32_t>{1, -2, INT32_MAX, INT32_MIN}));

  TensorPtr i64 = load(fixture("i64_3.npy"));
  ASSERT_TRUE(i64);
  EXPECT_EQ(mxrt_tensor_dtype(i64.get()), MXRT_I64);
  EXPECT_EQ(valuesOf<int64_t>(i64.get()),
            (std::vector<int64_t>{1, -1, int64_t(1) << 40}));

  TensorPtr b = load(fixture("bool_5.npy"));
  ASSERT_TRUE(b);
  EXPECT_EQ(mxrt_tensor_dtype(b.get()), MXRT_BOOL);
  EXPECT_EQ(valuesOf<uint8_t>(b.get()), (std::vector<uint8_t>{1, 0, 1, 1, 0}));

  TensorPtr empty = load(fixture("f32_2x0x3.npy"));
  ASSERT_TRUE(empty);
  EXPECT_EQ(shapeOf(empty.get()), (Shape{2, 0, 3}));
  EXPECT_EQ(mxrt_tensor_num_elements(empty.get()), 0);

  TensorPtr deep = load(fixture("i32_1x1x1x1x1x1x1x2.npy"));
  ASSERT_TRUE(deep);
  EXPECT_EQ(shapeOf(deep.get()), (Shape{1, 1, 1, 1, 1, 1, 1, 2}));
  EXPECT_EQ(valuesOf<int32_t>(deep.get()), (std::vector<int32_t>{7, -7}));
}

// NumPy text ('<U', UTF-32) and byte strings ('|S') become string tensors
// holding UTF-8.
TEST(NpyLoad, TextArraysBecomeStringTensors) {
  TensorPtr text = load(fixture("str_2x2.npy"));
  ASSERT_TRUE(text);
  EXPECT_EQ(mxrt_tensor_dtype(text.get()), MXRT_STRING);
  EXPECT_EQ(shapeOf(text.get()), (Shape{2, 2}));
  EXPECT_STREQ(mxrt_tensor_get_string(text.get(), 0), "a");
  EXPECT_STREQ(mxrt_tensor_get_string(text.get(), 1), "h\xc3\xa9llo");
  EXPECT_STREQ(mxrt_tensor_get_string(text.get(), 2), "");
  EXPECT_STREQ(mxrt_tensor_get_string(text.get(), 3),
               "\xe6\x97\xa5\xe6\x9c\xac");
  TensorPtr bytes = load(fixture("bytes_3.npy"));
  ASSERT_TRUE(bytes);
  EXPECT_EQ(mxrt_tensor_dtype(bytes.get()), MXRT_STRING);
  EXPECT_STREQ(mxrt_tensor_get_string(bytes.get(), 0), "ab");
  EXPECT_STREQ(mxrt_tensor_get_string(bytes.get(), 1), "");
  EXPECT_STREQ(mxrt_tensor_get_string(bytes.get(), 2), "xyz");
}

TEST(NpySave, StringTensorsAsNumPyText) {
  TempDir dir;
  // What np.save writes for the same strings, byte for byte.
  TensorPtr text = load(fixture("str_2x2.npy"));
  ASSERT_TRUE(text);
  std::string out = dir.file("s.npy");
  ASSERT_EQ(mxrt_tensor_save_npy(text.get(), out.c_str()), MXRT_OK)
      << mxrt_last_error();
  EXPECT_EQ(readFile(out), readFile(fixture("str_2x2.npy")));
  // Text that is not UTF-8 cannot be written as '<U'; no file appears.
  const Shape one = {1};
  mxrt_tensor *raw = nullptr;
  ASSERT_EQ(mxrt_tensor_create(MXRT_STRING, 1, one.data(), &raw), MXRT_OK);
  TensorPtr bad(raw);
  ASSERT_EQ(mxrt_tensor_set_string(raw, 0, "\xff"), MXRT_OK);
  std::string badPath = dir.file("bad.npy");
  EXPECT_EQ(mxrt_tensor_save_npy(raw, badPath.c_str()), MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("not valid UTF-8"));
  EXPECT_FALSE(std::filesystem::exists(badPath));
}

TEST(NpyLoad, HeaderVersions2And3) {
  TensorPtr v2 = load(fixture("f32_3_v2.npy"));
  ASSERT_TRUE(v2);
  EXPECT_EQ(shapeOf(v2.get()), Shape{3});
  EXPECT_EQ(valuesOf<float>(v2.get()), (std::vector<float>{1.5f, 2.5f, -3.5f}));
  TensorPtr v3 = load(fixture("i64_2_v3.npy"));
  ASSERT_TRUE(v3);
  EXPECT_EQ(valuesOf<int64_t>(v3.get()), (std::vector<int64_t>{-5, 5}));
}

// Loading a file np.save wrote and saving it again reproduces it exactly.
TEST(NpySave, MatchesNumPyByteForByte) {
  TempDir dir;
  for (const char *name :
       {"f32_2x3.npy", "f64_scalar.npy", "f16_3.npy", "bf16_3.npy", "u8_4.npy",
        "i8_4.npy", "i32_2x2.npy", "i64_3.npy", "bool_5.npy", "f32_2x0x3.npy",
        "i32_1x1x1x1x1x1x1x2.npy"}) {
    TensorPtr tensor = load(fixture(name));
    ASSERT_TRUE(tensor);
    std::string out = dir.file(name);
    ASSERT_EQ(mxrt_tensor_save_npy(tensor.get(), out.c_str()), MXRT_OK)
        << mxrt_last_error();
    EXPECT_EQ(readFile(out), readFile(fixture(name))) << name;
  }
}

std::string headerText(const std::string &file) {
  return file.substr(10, file[8] | (file[9] << 8));
}

TEST(NpySave, HeaderIsPaddedTo64Bytes) {
  TempDir dir;
  mxrt_tensor *raw = nullptr;
  int64_t shape[] = {3};
  ASSERT_EQ(mxrt_tensor_create(MXRT_I8, 1, shape, &raw), MXRT_OK);
  TensorPtr tensor(raw);
  ASSERT_EQ(mxrt_tensor_save_npy(raw, dir.file("a.npy").c_str()), MXRT_OK);
  std::string file = readFile(dir.file("a.npy"));
  ASSERT_EQ(file.size() % 64, 3u);
  EXPECT_EQ(file.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(file[file.size() - 4], '\n');
  EXPECT_THAT(headerText(file),
              HasSubstr("{'descr': '|i1', 'fortran_order': False, "
                        "'shape': (3,), }"));
}

/// Fills a tensor with a byte pattern valid for its dtype.
void fillPattern(mxrt_tensor *tensor, unsigned salt) {
  auto *bytes = static_cast<unsigned char *>(mxrt_tensor_data(tensor));
  size_t size = mxrt_tensor_size_bytes(tensor);
  for (size_t i = 0; i < size; ++i)
    bytes[i] = mxrt_tensor_dtype(tensor) == MXRT_BOOL
                   ? (i * 7 + salt) % 3 == 0
                   : static_cast<unsigned char>(i * 37 + salt);
}

TEST(NpyRoundTrip, EveryDtypeAndOddShapes) {
  TempDir dir;
  const std::vector<Shape> shapes = {{},
                                     {0},
                                     {1},
                                     {3},
                                     {2, 3},
                                     {5, 7, 3},
                                     {2, 0, 3},
                                     {1, 1, 1, 1, 1, 1, 1, 1},
                                     {1, 2, 1, 3, 1, 2, 1, 2},
                                     {1000}};
  for (mxrt_dtype dtype :
       {MXRT_F32, MXRT_F64, MXRT_F16, MXRT_U8, MXRT_I32, MXRT_I8, MXRT_I64,
        MXRT_BOOL, MXRT_I16, MXRT_U16, MXRT_U32, MXRT_U64, MXRT_BF16}) {
    for (const Shape &shape : shapes) {
      SCOPED_TRACE(std::string(mxrt_dtype_name(dtype)) + " rank " +
                   std::to_string(shape.size()));
      mxrt_tensor *raw = nullptr;
      ASSERT_EQ(mxrt_tensor_create(dtype, static_cast<int32_t>(shape.size()),
                                   shape.data(), &raw),
                MXRT_OK);
      TensorPtr original(raw);
      fillPattern(raw, static_cast<unsigned>(dtype + shape.size()));
      std::string path = dir.file("t.npy");
      ASSERT_EQ(mxrt_tensor_save_npy(raw, path.c_str()), MXRT_OK)
          << mxrt_last_error();
      TensorPtr loaded = load(path);
      ASSERT_TRUE(loaded);
      EXPECT_EQ(mxrt_tensor_dtype(loaded.get()), dtype);
      EXPECT_EQ(shapeOf(loaded.get()), shape);
      ASSERT_EQ(mxrt_tensor_size_bytes(loaded.get()),
                mxrt_tensor_size_bytes(raw));
      EXPECT_EQ(std::memcmp(mxrt_tensor_data(loaded.get()),
                            mxrt_tensor_data(raw), mxrt_tensor_size_bytes(raw)),
                0);
    }
  }
}

TEST(NpySave, ReplacesAndLeavesNoTemporaryFiles) {
  TempDir dir;
  std::string path = dir.file("out.npy");
  writeFile(path, "old contents");
  TensorPtr tensor = load(fixture("i64_3.npy"));
  ASSERT_TRUE(tensor);
  ASSERT_EQ(mxrt_tensor_save_npy(tensor.get(), path.c_str()), MXRT_OK);
  EXPECT_EQ(readFile(path), readFile(fixture("i64_3.npy")));
  int files = 0;
  for (const auto &entry : std::filesystem::directory_iterator(dir.path)) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST(NpySave, FailureLeavesNoFile) {
  TempDir dir;
  TensorPtr tensor = load(fixture("f32_2x3.npy"));
  ASSERT_TRUE(tensor);
  std::string path = dir.file("missing-dir/out.npy");
  EXPECT_EQ(mxrt_tensor_save_npy(tensor.get(), path.c_str()), MXRT_IO_ERROR);
  EXPECT_THAT(mxrt_last_error(), HasSubstr(path));
  EXPECT_FALSE(std::filesystem::exists(path));

  EXPECT_EQ(mxrt_tensor_save_npy(nullptr, path.c_str()), MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("tensor is NULL"));
  EXPECT_EQ(mxrt_tensor_save_npy(tensor.get(), nullptr), MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("path is NULL"));
}

TEST(NpySave, FailedRenameRemovesTheTemporaryFile) {
  TempDir dir;
  TensorPtr tensor = load(fixture("u8_4.npy"));
  ASSERT_TRUE(tensor);
  // A non-empty directory in the way: the data is written, the rename fails.
  std::string path = dir.file("taken.npy");
  std::filesystem::create_directory(path);
  writeFile(path + "/keep", "x");
  EXPECT_EQ(mxrt_tensor_save_npy(tensor.get(), path.c_str()), MXRT_IO_ERROR);
  EXPECT_THAT(mxrt_last_error(), HasSubstr(path));
  std::vector<std::string> names;
  for (const auto &entry : std::filesystem::directory_iterator(dir.path))
    names.push_back(entry.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"taken.npy"});
}

/// Loads `path`, expecting `status` and a message naming the file and
/// containing `word`.
void expectLoadError(const std::string &path, mxrt_status status,
                     const char *word) {
  mxrt_tensor *sentinel = reinterpret_cast<mxrt_tensor *>(0x1);
  mxrt_tensor *out = sentinel;
  EXPECT_EQ(mxrt_tensor_load_npy(path.c_str(), &out), status)
      << mxrt_last_error();
  EXPECT_THAT(mxrt_last_error(), HasSubstr(path));
  EXPECT_THAT(mxrt_last_error(), HasSubstr(word));
  EXPECT_EQ(out, sentinel);
}

TEST(NpyLoad, RefusesUnsupportedNumPyFiles) {
  expectLoadError(fixture("f32_fortran.npy"), MXRT_UNSUPPORTED, "Fortran");
  expectLoadError(fixture("f32_bigendian.npy"), MXRT_UNSUPPORTED, "'>f4'");
  expectLoadError(fixture("c64_2.npy"), MXRT_UNSUPPORTED, "'<c8'");
  expectLoadError(fixture("u2x2_struct.npy"), MXRT_UNSUPPORTED,
                  "unsupported structured dtype");
}

TEST(NpyLoad, ReportsMissingAndCorruptFiles) {
  TempDir dir;
  expectLoadError(dir.file("nope.npy"), MXRT_NOT_FOUND, "No such file");

  std::string good = readFile(fixture("f32_2x3.npy"));
  ASSERT_EQ(good.size(), 152u); // 128 bytes of header, 24 of data.

  writeFile(dir.file("magic.npy"), "NOTNUMPY" + good.substr(8));
  expectLoadError(dir.file("magic.npy"), MXRT_IO_ERROR, "bad magic");

  writeFile(dir.file("empty.npy"), "");
  expectLoadError(dir.file("empty.npy"), MXRT_IO_ERROR, "truncated");

  writeFile(dir.file("short-header.npy"), good.substr(0, 40));
  expectLoadError(dir.file("short-header.npy"), MXRT_IO_ERROR,
                  "truncated .npy header");

  writeFile(dir.file("short-data.npy"), good.substr(0, good.size() - 4));
  expectLoadError(dir.file("short-data.npy"), MXRT_IO_ERROR,
                  "needs 24 bytes of data, found 20");

  std::string version4 = good;
  version4[6] = 4;
  writeFile(dir.file("v4.npy"), version4);
  expectLoadError(dir.file("v4.npy"), MXRT_UNSUPPORTED, "version 4.0");

  EXPECT_EQ(mxrt_tensor_load_npy(nullptr, nullptr), MXRT_INVALID_ARGUMENT);
  mxrt_tensor *out = nullptr;
  EXPECT_EQ(mxrt_tensor_load_npy(fixture("f32_2x3.npy").c_str(), nullptr),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("out_tensor"));
  EXPECT_EQ(out, nullptr);
}

/// A v1 file with the given header dict and `dataBytes` zero bytes of data.
std::string npyWithHeader(const std::string &dict, size_t dataBytes) {
  std::string header = dict + "\n";
  std::string file("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(header.size() & 0xff);
  file += static_cast<char>(header.size() >> 8);
  return file + header + std::string(dataBytes, '\0');
}

TEST(NpyLoad, ReportsMalformedHeaders) {
  TempDir dir;
  struct {
    const char *dict;
    mxrt_status status;
    const char *word;
  } cases[] = {
      {"{'descr': '<f4', 'fortran_order': False}", MXRT_IO_ERROR,
       "missing key 'shape'"},
      {"{'descr': '<f4', 'shape': (2,)}", MXRT_IO_ERROR,
       "missing key 'fortran_order'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }",
       MXRT_IO_ERROR, "non-negative"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2], }",
       MXRT_IO_ERROR, "not a tuple"},
      {"{'descr': '<f4', 'fortran_order': maybe, 'shape': (2,), }",
       MXRT_IO_ERROR, "True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
       MXRT_IO_ERROR, "unexpected key 'x'"},
      {"['descr', '<f4']", MXRT_IO_ERROR, "expected '{'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,) 'z'}",
       MXRT_IO_ERROR, "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(1, 1, 1, 1, 1, 1, 1, 1, 2), }",
       MXRT_UNSUPPORTED, "9 dimensions"},
      {"{'descr': '|O', 'fortran_order': False, 'shape': (2,), }",
       MXRT_UNSUPPORTED, "'|O'"},
      {"{'descr': '>U3', 'fortran_order': False, 'shape': (2,), }",
       MXRT_UNSUPPORTED, "not little-endian"},
      // Text needs 2 x 3 UTF-32 units: 24 bytes, not 8.
      {"{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }",
       MXRT_IO_ERROR, "needs 24 bytes"},
      {"{'descr': [('bfloat16', '>u2')], 'fortran_order': False, "
       "'shape': (2,), }",
       MXRT_UNSUPPORTED, "structured dtype"},
      {"{'descr': [('bfloat16' '<u2')], 'fortran_order': False, "
       "'shape': (2,), }",
       MXRT_IO_ERROR, "expected ',' after a field name"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(4294967296, 4294967296, 4294967296), }",
       MXRT_IO_ERROR, "too large"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000, ), }",
       MXRT_IO_ERROR, "truncated"},
  };
  int n = 0;
  for (const auto &c : cases) {
    SCOPED_TRACE(c.dict);
    std::string path = dir.file("case" + std::to_string(n++) + ".npy");
    writeFile(path, npyWithHeader(c.dict, 8));
    expectLoadError(path, c.status, c.word);
  }
}

TEST(NpyLoad, AcceptsEquivalentSpellings) {
  TempDir dir;
  struct {
    const char *dict;
    mxrt_dtype dtype;
    Shape shape;
  } cases[] = {
      // Any key order, double quotes, Python 2 longs, no trailing commas.
      {"{\"shape\": (2L,), \"fortran_order\": False, \"descr\": \"<f4\"}",
       MXRT_F32,
       {2}},
      {"{'descr': '=i4', 'fortran_order': False, 'shape': (1, 2)}",
       MXRT_I32,
       {1, 2}},
      {"{'descr': '<u1', 'fortran_order': False, 'shape': (8,), }",
       MXRT_U8,
       {8}},
      {"{'descr': '=i1', 'fortran_order': False, 'shape': (), }", MXRT_I8, {}},
      {"{'descr': [ ( 'bfloat16' , '=u2' ) , ], 'fortran_order': False, "
       "'shape': (3,)}",
       MXRT_BF16,
       {3}},
      {"{'descr': '|b1', 'fortran_order': False, 'shape': ( 2 , 4 ), }",
       MXRT_BOOL,
       {2, 4}},
      {"{'descr': '<u2', 'fortran_order': False, 'shape': (4,), }",
       MXRT_U16,
       {4}},
      {"{'descr': '<i2', 'fortran_order': False, 'shape': (2, 2), }",
       MXRT_I16,
       {2, 2}},
      {"{'descr': '<u8', 'fortran_order': False, 'shape': (1,), }",
       MXRT_U64,
       {1}},
  };
  for (const auto &c : cases) {
    SCOPED_TRACE(c.dict);
    std::string path = dir.file("ok.npy");
    writeFile(path, npyWithHeader(c.dict, 8));
    TensorPtr tensor = load(path);
    ASSERT_TRUE(tensor);
    EXPECT_EQ(mxrt_tensor_dtype(tensor.get()), c.dtype);
    EXPECT_EQ(shapeOf(tensor.get()), c.shape);
  }
}

} // namespace
