// SPDX-License-Identifier: Apache-2.0
// .params reading and writing: the real GluonCV file (values checked against
// an independent NumPy parse), hand-built legacy/V1/V2/V3 records, dtype
// conversion, one case per corrupt-file error, and write/read round trips.

#include "compiler/frontends/mxnet/Params.h"
#include "test/frontend/TestUtil.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/EndianStream.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstring>

using namespace mxc::mxnet;
using mxc::test::errorOf;
using mxc::test::testDataPath;

namespace {

constexpr uint32_t kV1 = 0xF993FAC8;
constexpr uint32_t kV2 = 0xF993FAC9;
constexpr uint32_t kV3 = 0xF993FACA;

/// Little-endian byte builder for handcrafted files.
struct Bytes {
  std::string text;
  template <typename T> Bytes &put(T value) {
    llvm::raw_string_ostream os(text);
    llvm::support::endian::write(os, value, llvm::endianness::little);
    return *this;
  }
  Bytes &raw(llvm::StringRef bytes) {
    text += bytes.str();
    return *this;
  }
  /// The list header for `count` arrays.
  static Bytes header(uint64_t count) {
    Bytes b;
    b.put<uint64_t>(0x112).put<uint64_t>(0).put<uint64_t>(count);
    return b;
  }
  /// The rest of a dense record after its shape: cpu context, dtype, data.
  Bytes &tail(int32_t dtype, llvm::StringRef data) {
    return put<int32_t>(1).put<int32_t>(0).put<int32_t>(dtype).raw(data);
  }
  Bytes &names(std::initializer_list<const char *> list) {
    put<uint64_t>(list.size());
    for (const char *name : list)
      put<uint64_t>(std::strlen(name)).raw(name);
    return *this;
  }
};

template <typename T> std::string le(std::initializer_list<T> values) {
  Bytes b;
  for (T value : values)
    b.put<T>(value);
  return b.text;
}

uint32_t bitsOf(float value) { return llvm::bit_cast<uint32_t>(value); }

std::vector<uint32_t> bitsOf(const std::vector<float> &values) {
  std::vector<uint32_t> bits;
  for (float value : values)
    bits.push_back(bitsOf(value));
  return bits;
}

std::vector<uint8_t> bytesOf(const std::string &text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

std::string parseError(const Bytes &bytes) {
  return errorOf(parseParams(bytes.text, "bad.params"));
}

// Expected values from an independent parse of the file with NumPy
// (struct.unpack of the V2 records, np.frombuffer(..., '<f4')).
TEST(MXNetParams, CifarResNet20) {
  std::string path = testDataPath("mxnet/cifar_resnet20_v1-0000.params");
  if (!llvm::sys::fs::exists(path))
    GTEST_SKIP() << "shared test data not found: " << path
                 << " (expected ../shared/testdata beside the project root)";
  MXC_ASSERT_OK_AND_ASSIGN(arrays, readParamsFile(path));
  ASSERT_EQ(arrays.size(), 107u);
  size_t numArgs = 0, numAux = 0;
  for (const NamedArray &array : arrays) {
    numArgs += array.kind == ArrayKind::Arg;
    numAux += array.kind == ArrayKind::Aux;
    EXPECT_EQ(array.dtype, DType::F32) << array.name;
    EXPECT_FALSE(array.isNone);
    EXPECT_EQ(array.data.size(), array.numElements() * 4u) << array.name;
  }
  EXPECT_EQ(numArgs, 65u);
  EXPECT_EQ(numAux, 42u);

  const NamedArray &conv = arrays[0];
  EXPECT_EQ(conv.name, "cifarresnetv10_conv0_weight");
  EXPECT_EQ(conv.kind, ArrayKind::Arg);
  EXPECT_EQ(conv.savedName(), "arg:cifarresnetv10_conv0_weight");
  EXPECT_EQ(conv.shape, (std::vector<int64_t>{16, 3, 3, 3}));
  MXC_ASSERT_OK_AND_ASSIGN(convValues, conv.toFloat32());
  ASSERT_EQ(convValues.size(), 432u);
  EXPECT_EQ(bitsOf(convValues[0]), 0x3d363a16u);   // 0.044488989
  EXPECT_EQ(bitsOf(convValues[1]), 0xbd892c2au);   // -0.066978768
  EXPECT_EQ(bitsOf(convValues[2]), 0xbdb94d14u);   // -0.090479046
  EXPECT_EQ(bitsOf(convValues[431]), 0x3eb4ea83u); // 0.35335168
  uint64_t wordSum = 0;
  for (float value : convValues)
    wordSum += bitsOf(value);
  EXPECT_EQ(wordSum, 892217316990u);

  const NamedArray &var = arrays[4];
  EXPECT_EQ(var.name, "cifarresnetv10_batchnorm0_running_var");
  EXPECT_EQ(var.kind, ArrayKind::Aux);
  EXPECT_EQ(var.shape, (std::vector<int64_t>{16}));
  MXC_ASSERT_OK_AND_ASSIGN(varValues, var.toFloat32());
  EXPECT_EQ(bitsOf(varValues[2]), 0x40c623beu); // 6.191863

  const NamedArray &dense = arrays[105];
  EXPECT_EQ(dense.name, "cifarresnetv10_dense0_weight");
  EXPECT_EQ(dense.shape, (std::vector<int64_t>{10, 64}));
  MXC_ASSERT_OK_AND_ASSIGN(denseValues, dense.toFloat32());
  wordSum = 0;
  for (float value : denseValues)
    wordSum += bitsOf(value);
  EXPECT_EQ(wordSum, 1326941089377u);

  const NamedArray &bias = arrays[106];
  EXPECT_EQ(bias.name, "cifarresnetv10_dense0_bias");
  MXC_ASSERT_OK_AND_ASSIGN(biasValues, bias.toFloat32());
  EXPECT_EQ(bitsOf(biasValues),
            (std::vector<uint32_t>{
                0x3d0df04f, 0xbde5dc48, 0xbc80a25d, 0x3c86d7b9, 0x3deef769,
                0xbd2c6134, 0x3d3ea1af, 0xbd1af1ff, 0x3e0bc12a, 0xbe1245bc}));
}

// Writing what was read reproduces MXNet's own file byte for byte (V2
// records, cpu(0) context, arg:/aux: names).
TEST(MXNetParams, CifarResNet20RewritesByteExact) {
  std::string path = testDataPath("mxnet/cifar_resnet20_v1-0000.params");
  if (!llvm::sys::fs::exists(path))
    GTEST_SKIP() << "shared test data not found: " << path;
  MXC_ASSERT_OK_AND_ASSIGN(arrays, readParamsFile(path));
  std::string written;
  llvm::raw_string_ostream os(written);
  ASSERT_FALSE(bool(writeParams(os, arrays)));
  auto original = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(original));
  EXPECT_TRUE((*original)->getBuffer() == written);
}

TEST(MXNetParams, V1Record) {
  Bytes b = Bytes::header(1);
  b.put<uint32_t>(kV1).put<uint32_t>(2).put<int64_t>(2).put<int64_t>(1);
  b.tail(/*float64*/ 1, le<double>({0.1, -2.5})).names({"arg:w"});
  MXC_ASSERT_OK_AND_ASSIGN(arrays, parseParams(b.text, "v1.params"));
  ASSERT_EQ(arrays.size(), 1u);
  EXPECT_EQ(arrays[0].name, "w");
  EXPECT_EQ(arrays[0].kind, ArrayKind::Arg);
  EXPECT_EQ(arrays[0].dtype, DType::F64);
  EXPECT_EQ(arrays[0].shape, (std::vector<int64_t>{2, 1}));
  MXC_ASSERT_OK_AND_ASSIGN(values, arrays[0].toFloat32());
  EXPECT_EQ(bitsOf(values), (std::vector<uint32_t>{0x3dcccccd, 0xc0200000}));
}

TEST(MXNetParams, V2Float16) {
  // Half bit patterns and their float32 bits, from NumPy's astype.
  std::initializer_list<uint16_t> halves = {0x3c00, 0xc000, 0x0001, 0x03ff,
                                            0x0400, 0x7bff, 0x7c00, 0xfc00,
                                            0x3555, 0x8000};
  Bytes b = Bytes::header(1);
  b.put<uint32_t>(kV2).put<int32_t>(0).put<int32_t>(1).put<int64_t>(10);
  b.tail(/*float16*/ 2, le<uint16_t>(halves)).names({"aux:h"});
  MXC_ASSERT_OK_AND_ASSIGN(arrays, parseParams(b.text, "f16.params"));
  EXPECT_EQ(arrays[0].kind, ArrayKind::Aux);
  EXPECT_EQ(arrays[0].dtype, DType::F16);
  MXC_ASSERT_OK_AND_ASSIGN(values, arrays[0].toFloat32());
  EXPECT_EQ(bitsOf(values),
            (std::vector<uint32_t>{
                0x3f800000, 0xc0000000, 0x33800000, 0x387fc000, 0x38800000,
                0x477fe000, 0x7f800000, 0xff800000, 0x3eaaa000, 0x80000000}));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7e00)));
}

TEST(MXNetParams, BFloat16AndNonFloatConversion) {
  NamedArray bf;
  bf.name = "b";
  bf.dtype = DType::BF16;
  bf.shape = {2};
  bf.data = bytesOf(le<uint16_t>({0x3f80, 0xc040}));
  MXC_ASSERT_OK_AND_ASSIGN(values, bf.toFloat32());
  EXPECT_EQ(values, (std::vector<float>{1.0f, -3.0f}));

  NamedArray ints;
  ints.name = "i";
  ints.dtype = DType::I32;
  ints.shape = {1};
  ints.data = bytesOf(le<int32_t>({7}));
  EXPECT_EQ(errorOf(ints.toFloat32()),
            "array 'i' has dtype int32; only floating-point arrays convert to "
            "float32");
  ints.shape = {2};
  EXPECT_EQ(errorOf(ints.toFloat32()),
            "array 'i': 4 data bytes do not match its shape");
}

TEST(MXNetParams, V3ScalarsAndUnknownShapes) {
  Bytes b = Bytes::header(3);
  // A 0-d scalar: in NumPy-shape semantics ndim 0 carries one element.
  b.put<uint32_t>(kV3).put<int32_t>(0).put<int32_t>(0);
  b.tail(/*int64*/ 6, le<int64_t>({-42}));
  // ndim -1: unknown shape, no data.
  b.put<uint32_t>(kV3).put<int32_t>(0).put<int32_t>(-1);
  // A -1 dimension: unknown, no data.
  b.put<uint32_t>(kV3)
      .put<int32_t>(0)
      .put<int32_t>(2)
      .put<int64_t>(3)
      .put<int64_t>(-1);
  b.names({"s", "u", "v"});
  MXC_ASSERT_OK_AND_ASSIGN(arrays, parseParams(b.text, "v3.params"));
  ASSERT_EQ(arrays.size(), 3u);
  EXPECT_FALSE(arrays[0].isNone);
  EXPECT_TRUE(arrays[0].shape.empty());
  EXPECT_EQ(arrays[0].numElements(), 1);
  EXPECT_EQ(arrays[0].dtype, DType::I64);
  EXPECT_EQ(arrays[0].data, bytesOf(le<int64_t>({-42})));
  EXPECT_EQ(arrays[0].kind, ArrayKind::None);
  EXPECT_TRUE(arrays[1].isNone);
  EXPECT_TRUE(arrays[2].isNone);
  EXPECT_TRUE(arrays[2].shape.empty());
  EXPECT_EQ(arrays[2].numElements(), 0);
}

TEST(MXNetParams, LegacyRecordsAndNoneArrays) {
  Bytes b = Bytes::header(4);
  // Pre-V1: the first word is ndim, then uint32 dimensions.
  b.put<uint32_t>(2).put<uint32_t>(2).put<uint32_t>(2);
  b.tail(/*int32*/ 4, le<int32_t>({1, -2, 3, -4}));
  // Legacy none array: ndim 0 and nothing else.
  b.put<uint32_t>(0);
  // V2 none array: ndim 0.
  b.put<uint32_t>(kV2).put<int32_t>(0).put<int32_t>(0);
  // V2 zero-size array: a shape with a 0 still has context and dtype.
  b.put<uint32_t>(kV2)
      .put<int32_t>(0)
      .put<int32_t>(2)
      .put<int64_t>(0)
      .put<int64_t>(5);
  b.tail(/*uint8*/ 3, "");
  b.put<uint64_t>(0); // an unnamed list
  MXC_ASSERT_OK_AND_ASSIGN(arrays, parseParams(b.text, "legacy.params"));
  ASSERT_EQ(arrays.size(), 4u);
  EXPECT_EQ(arrays[0].shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(arrays[0].dtype, DType::I32);
  EXPECT_EQ(arrays[0].data, bytesOf(le<int32_t>({1, -2, 3, -4})));
  EXPECT_EQ(arrays[0].name, "");
  EXPECT_EQ(arrays[0].kind, ArrayKind::None);
  EXPECT_TRUE(arrays[1].isNone);
  EXPECT_TRUE(arrays[2].isNone);
  EXPECT_FALSE(arrays[3].isNone);
  EXPECT_EQ(arrays[3].shape, (std::vector<int64_t>{0, 5}));
  EXPECT_EQ(arrays[3].dtype, DType::U8);
  EXPECT_EQ(arrays[3].numElements(), 0);
}

TEST(MXNetParams, HeaderErrors) {
  Bytes wrongMagic;
  wrongMagic.put<uint64_t>(0x113).put<uint64_t>(0).put<uint64_t>(0);
  EXPECT_EQ(parseError(wrongMagic), "'bad.params': not an MXNet .params file "
                                    "(magic 0x113, expected 0x112)");
  EXPECT_EQ(parseError(Bytes().raw("{}")),
            "'bad.params': not an MXNet .params file (only 2 bytes)");
  EXPECT_EQ(parseError(Bytes().put<uint64_t>(0x112)),
            "'bad.params': truncated file: reading the reserved header field "
            "needs 8 bytes at offset 8, but only 0 are left");
  EXPECT_EQ(parseError(Bytes::header(uint64_t(1) << 60)),
            "'bad.params': the file claims 1152921504606846976 arrays, more "
            "than its 0 remaining bytes can hold");
  EXPECT_EQ(parseError(Bytes::header(0)),
            "'bad.params': truncated file: reading the name count needs 8 "
            "bytes at offset 24, but only 0 are left");
  Bytes empty = Bytes::header(0);
  empty.put<uint64_t>(0);
  MXC_ASSERT_OK_AND_ASSIGN(none, parseParams(empty.text, "empty.params"));
  EXPECT_TRUE(none.empty());
}

/// A file with one V2 float32 [2] record, `names` names, and `trim` bytes cut
/// from the end.
Bytes oneArray(std::initializer_list<const char *> names, size_t trim = 0) {
  Bytes b = Bytes::header(1);
  b.put<uint32_t>(kV2).put<int32_t>(0).put<int32_t>(1).put<int64_t>(2);
  b.tail(0, le<float>({1.0f, 2.0f})).names(names);
  b.text.resize(b.text.size() - trim);
  return b;
}

TEST(MXNetParams, TruncatedFiles) {
  // Layout: header 0-24, magic, storage, ndim, dim 24-44, context 44-52,
  // dtype 52-56, data 56-64, name count 64-72, length 72-80, "arg:w" 80-85.
  EXPECT_EQ(parseError(oneArray({"arg:w"}, 25)),
            "'bad.params': truncated file: record 0: reading the float32 data "
            "needs 8 bytes at offset 56, but only 4 are left");
  EXPECT_EQ(parseError(oneArray({"arg:w"}, 33)),
            "'bad.params': truncated file: record 0: reading the dtype needs 4 "
            "bytes at offset 52, but only 0 are left");
  EXPECT_EQ(parseError(oneArray({"arg:w"}, 41)),
            "'bad.params': truncated file: record 0: reading the context "
            "device type needs 4 bytes at offset 44, but only 0 are left");
  EXPECT_EQ(parseError(oneArray({"arg:w"}, 49)),
            "'bad.params': truncated file: record 0: reading the 1 dimensions "
            "needs 8 bytes at offset 36, but only 0 are left");
  EXPECT_EQ(parseError(oneArray({"arg:w"}, 2)),
            "'bad.params': truncated file: name 0: reading the name needs 5 "
            "bytes at offset 80, but only 3 are left");
  Bytes hugeName = oneArray({});
  hugeName.text.resize(hugeName.text.size() - 8);
  hugeName.put<uint64_t>(1).put<uint64_t>(uint64_t(1) << 62);
  EXPECT_EQ(parseError(hugeName),
            "'bad.params': truncated file: name 0: reading the name needs "
            "4611686018427387904 bytes at offset 80, but only 0 are left");
}

TEST(MXNetParams, CorruptRecords) {
  auto record = [](auto build) {
    Bytes b = Bytes::header(1);
    build(b);
    return parseError(b);
  };
  EXPECT_EQ(record([](Bytes &b) {
              b.put<uint32_t>(kV2).put<int32_t>(0).put<int32_t>(1).put<int64_t>(
                  1);
              b.tail(42, "");
            }),
            "'bad.params': record 0: unknown dtype flag 42");
  EXPECT_EQ(record([](Bytes &b) { b.put<uint32_t>(kV2).put<int32_t>(1); }),
            "'bad.params': record 0: unsupported sparse storage (row_sparse); "
            "only dense arrays can be loaded");
  EXPECT_EQ(record([](Bytes &b) { b.put<uint32_t>(kV3).put<int32_t>(2); }),
            "'bad.params': record 0: unsupported sparse storage (csr); only "
            "dense arrays can be loaded");
  EXPECT_EQ(record([](Bytes &b) { b.put<uint32_t>(kV2).put<int32_t>(7); }),
            "'bad.params': record 0: unknown storage type 7");
  EXPECT_EQ(record([](Bytes &b) {
              b.put<uint32_t>(kV2).put<int32_t>(0).put<int32_t>(40);
            }),
            "'bad.params': record 0: ndim 40 is out of range (0..32)");
  EXPECT_EQ(record([](Bytes &b) { b.put<uint32_t>(kV1).put<int32_t>(-2); }),
            "'bad.params': record 0: ndim -2 is out of range (0..32)");
  EXPECT_EQ(record([](Bytes &b) { b.put<uint32_t>(0xdeadbeef); }),
            "'bad.params': record 0: unknown record magic 0xdeadbeef (not an "
            "NDArray V1/V2/V3 magic, and too large for a legacy ndim)");
  EXPECT_EQ(record([](Bytes &b) {
              b.put<uint32_t>(kV2).put<int32_t>(0).put<int32_t>(2);
              b.put<int64_t>(3).put<int64_t>(-4);
            }),
            "'bad.params': record 0: dimension 1 is -4");
  // Sizes are checked against the file before anything is allocated.
  EXPECT_EQ(record([](Bytes &b) {
              b.put<uint32_t>(kV2).put<int32_t>(0).put<int32_t>(2);
              b.put<int64_t>(int64_t(1) << 40).put<int64_t>(int64_t(1) << 30);
              b.tail(0, "");
            }),
            "'bad.params': record 0: the shape's byte size overflows 64 bits");
  EXPECT_EQ(record([](Bytes &b) {
              b.put<uint32_t>(kV2).put<int32_t>(0).put<int32_t>(1);
              b.put<int64_t>(int64_t(1) << 40);
              b.tail(1, "");
            }),
            "'bad.params': truncated file: record 0: reading the float64 data "
            "needs 8796093022208 bytes at offset 56, but only 0 are left");
}

TEST(MXNetParams, NameCountMismatch) {
  EXPECT_EQ(parseError(oneArray({"a", "b"})),
            "'bad.params': 1 arrays but 2 names (expected 0 or 1)");
  MXC_ASSERT_OK_AND_ASSIGN(unnamed, parseParams(oneArray({}).text, "u.params"));
  EXPECT_EQ(unnamed[0].name, "");
  // Only a leading arg:/aux: is a prefix.
  MXC_ASSERT_OK_AND_ASSIGN(plain,
                           parseParams(oneArray({"w:arg:x"}).text, "p.params"));
  EXPECT_EQ(plain[0].name, "w:arg:x");
  EXPECT_EQ(plain[0].kind, ArrayKind::None);
}

TEST(MXNetParams, MissingFile) {
  std::string message = errorOf(readParamsFile("/nonexistent/w.params"));
  EXPECT_EQ(message.rfind("'/nonexistent/w.params': cannot read: ", 0), 0u)
      << message;
}

class MXNetParamsFile : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("mxc-params-test", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }
  std::string path(const char *name) {
    llvm::SmallString<128> result(dir);
    llvm::sys::path::append(result, name);
    return std::string(result);
  }
  llvm::SmallString<128> dir;
};

TEST_F(MXNetParamsFile, RoundTrip) {
  std::vector<NamedArray> arrays(4);
  arrays[0].name = "conv_weight";
  arrays[0].kind = ArrayKind::Arg;
  arrays[0].shape = {2, 1, 1, 1};
  arrays[0].data = bytesOf(le<float>({0.5f, -1.25f}));
  arrays[1].name = "bn_moving_var";
  arrays[1].kind = ArrayKind::Aux;
  arrays[1].dtype = DType::F16;
  arrays[1].shape = {3};
  arrays[1].data = bytesOf(le<uint16_t>({0x3c00, 0x3555, 0x0001}));
  arrays[2].name = "steps";
  arrays[2].dtype = DType::I64;
  arrays[2].shape = {1};
  arrays[2].data = bytesOf(le<int64_t>({1234567890123}));
  arrays[3].name = "unset";
  arrays[3].isNone = true;

  std::string file = path("net-0000.params");
  ASSERT_FALSE(bool(writeParamsFile(file, arrays)));
  MXC_ASSERT_OK_AND_ASSIGN(back, readParamsFile(file));
  ASSERT_EQ(back.size(), arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i) {
    EXPECT_EQ(back[i].name, arrays[i].name);
    EXPECT_EQ(back[i].kind, arrays[i].kind);
    EXPECT_EQ(back[i].dtype, arrays[i].dtype);
    EXPECT_EQ(back[i].shape, arrays[i].shape);
    EXPECT_EQ(back[i].data, arrays[i].data);
    EXPECT_EQ(back[i].isNone, arrays[i].isNone);
  }
  // V2 records throughout (no scalar): the first record's magic.
  auto buffer = llvm::MemoryBuffer::getFile(file);
  ASSERT_TRUE(bool(buffer));
  EXPECT_EQ((*buffer)->getBuffer().substr(24, 4), le<uint32_t>({kV2}));

  // Overwriting leaves no temporary files behind.
  arrays.resize(1);
  ASSERT_FALSE(bool(writeParamsFile(file, arrays)));
  MXC_ASSERT_OK_AND_ASSIGN(again, readParamsFile(file));
  EXPECT_EQ(again.size(), 1u);
  std::error_code ec;
  int numFiles = 0;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec))
    ++numFiles;
  EXPECT_EQ(numFiles, 1);
}

TEST_F(MXNetParamsFile, ScalarsSwitchToV3AndUnnamedListsStayUnnamed) {
  std::vector<NamedArray> arrays(2);
  arrays[0].shape = {};
  arrays[0].data = bytesOf(le<float>({3.0f}));
  arrays[1].isNone = true;
  std::string file = path("scalar.params");
  ASSERT_FALSE(bool(writeParamsFile(file, arrays)));
  auto buffer = llvm::MemoryBuffer::getFile(file);
  ASSERT_TRUE(bool(buffer));
  llvm::StringRef bytes = (*buffer)->getBuffer();
  EXPECT_EQ(bytes.substr(24, 4), le<uint32_t>({kV3}));
  EXPECT_EQ(bytes.take_back(8), le<uint64_t>({0})); // no names
  MXC_ASSERT_OK_AND_ASSIGN(back, parseParams(bytes, file));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_FALSE(back[0].isNone);
  EXPECT_TRUE(back[0].shape.empty());
  EXPECT_EQ(*back[0].toFloat32(), std::vector<float>{3.0f});
  EXPECT_TRUE(back[1].isNone);
}

TEST_F(MXNetParamsFile, InvalidArraysAreNotWritten) {
  std::vector<NamedArray> arrays(1);
  arrays[0].name = "w";
  arrays[0].shape = {2, 2};
  arrays[0].data = bytesOf(le<float>({1.0f}));
  std::string file = path("bad.params");
  EXPECT_EQ(errorOf(writeParamsFile(file, arrays)),
            "cannot write array 0 ('w'): 4 data bytes, but its shape and "
            "float32 need 16");
  EXPECT_FALSE(llvm::sys::fs::exists(file));
  arrays[0].shape = {-1};
  EXPECT_EQ(errorOf(writeParamsFile(file, arrays)),
            "cannot write array 0 ('w'): negative dimension -1");
  arrays[0].shape = {1};
  arrays[0].dtype = DType(99);
  EXPECT_EQ(errorOf(writeParamsFile(file, arrays)),
            "cannot write array 0 ('w'): unknown dtype flag 99");
  std::error_code ec;
  EXPECT_TRUE(llvm::sys::fs::directory_iterator(dir, ec) ==
              llvm::sys::fs::directory_iterator());
  EXPECT_EQ(errorOf(writeParamsFile("/nonexistent/dir/w.params", arrays))
                .rfind("'/nonexistent/dir/w.params': cannot create a "
                       "temporary file: ",
                       0),
            0u);
}

} // namespace
