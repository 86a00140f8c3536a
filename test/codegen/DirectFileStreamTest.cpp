// SPDX-License-Identifier: Apache-2.0
// DirectFileStream against the bytes it was given: small files (one
// buffered write), files of several staging rounds with a partial last
// block (direct writes where the file system takes them), ranges of an
// existing file starting off a block boundary (the bytes around the range
// untouched), the tmpfs fallback, and errors.
#include "compiler/codegen/DirectFileStream.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <unistd.h>

using mxc::DirectFileStream;

namespace {

std::string randomBytes(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::string s(n, '\0');
  for (char &c : s)
    c = char(gen());
  return s;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Whether `dir`'s file system takes O_DIRECT opens.
bool supportsDirect(const std::string &dir) {
  std::string probe = dir + "/direct-probe";
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_DIRECT, 0600);
  if (fd >= 0)
    ::close(fd);
  std::remove(probe.c_str());
  return fd >= 0;
}

/// Writes `bytes` in chunks of varying, odd sizes (and one large write).
void writeInChunks(DirectFileStream &os, const std::string &bytes) {
  size_t at = 0, chunk = 1;
  while (at < bytes.size()) {
    size_t n =
        std::min(bytes.size() - at,
                 at > (1u << 20) && at < (4u << 20) ? size_t(3) << 20 : chunk);
    os.write(bytes.data() + at, n);
    at += n;
    chunk = chunk * 7 % 100003 + 1;
  }
}

/// Writes `bytes` as the whole file `path` and checks what came out, and
/// whether direct I/O carried any of it.
void writeWholeFile(const std::string &path, const std::string &bytes,
                    bool expectDirect) {
  std::error_code ec;
  DirectFileStream os(path, ec, /*truncate=*/true);
  ASSERT_FALSE(ec);
  writeInChunks(os, bytes);
  EXPECT_EQ(os.tell(), bytes.size());
  os.close();
  EXPECT_FALSE(os.has_error());
  EXPECT_EQ(os.wroteDirect(), expectDirect);
  EXPECT_EQ(readFile(path), bytes);
}

class DirectFileStreamTest : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/mxc-dfs-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
  }
  void TearDown() override {
    std::string cmd = "rm -rf '" + dir + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  std::string dir;
};

} // namespace

TEST_F(DirectFileStreamTest, SmallFileIsOneBufferedWrite) {
  writeWholeFile(dir + "/small", randomBytes(1000, 1), /*expectDirect=*/false);
}

TEST_F(DirectFileStreamTest, LargeFileWithPartialLastBlock) {
  std::string path = dir + "/large";
  std::string bytes =
      randomBytes(2 * DirectFileStream::kStaging + 4096 * 3 + 123, 2);
  // An older, longer file of that name is truncated.
  std::ofstream(path) << std::string(bytes.size() + 5000, 'x');
  writeWholeFile(path, bytes, supportsDirect(dir));
}

TEST_F(DirectFileStreamTest, RangeOfAnExistingFileOffABlockBoundary) {
  std::string path = dir + "/range";
  std::string before = randomBytes(3 * DirectFileStream::kStaging, 3);
  std::ofstream(path, std::ios::binary) << before;
  for (uint64_t offset : {uint64_t(0), uint64_t(4096), uint64_t(100),
                          uint64_t(4096 * 5 + 4000)}) {
    for (size_t size :
         {size_t(10), size_t(5000), DirectFileStream::kStaging + 4096 + 17}) {
      std::string range = randomBytes(size, unsigned(offset + size));
      std::error_code ec;
      DirectFileStream os(path, ec, /*truncate=*/false, offset);
      ASSERT_FALSE(ec);
      writeInChunks(os, range);
      EXPECT_EQ(os.tell(), offset + size);
      os.close();
      ASSERT_FALSE(os.has_error());
      std::string expected = before;
      expected.replace(offset, size, range);
      std::string got = readFile(path);
      ASSERT_EQ(got.size(), expected.size()) << offset << " " << size;
      EXPECT_TRUE(got == expected) << "offset " << offset << " size " << size;
      before = expected;
    }
  }
}

TEST_F(DirectFileStreamTest, FileSystemWithoutDirectIOIsWrittenBuffered) {
  if (access("/dev/shm", W_OK) != 0)
    GTEST_SKIP() << "no writable /dev/shm (tmpfs) on this machine";
  std::string path = "/dev/shm/mxc-dfs-" + std::to_string(getpid());
  writeWholeFile(path, randomBytes(DirectFileStream::kStaging + 999, 4),
                 supportsDirect("/dev/shm"));
  std::remove(path.c_str());
}

TEST_F(DirectFileStreamTest, OpenErrorsAreReported) {
  std::error_code ec;
  DirectFileStream missing(dir + "/no/such/folder/f", ec, /*truncate=*/true);
  EXPECT_EQ(ec, std::errc::no_such_file_or_directory);
  DirectFileStream notThere(dir + "/absent", ec, /*truncate=*/false, 10);
  EXPECT_EQ(ec, std::errc::no_such_file_or_directory);
}
