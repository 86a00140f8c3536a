// SPDX-License-Identifier: Apache-2.0
// DirectFileStream: stages bytes in a block-aligned buffer whose index i is
// the file offset alignDown(offset) + i of its round, and writes each full
// buffer with one direct pwrite.
#include "compiler/codegen/DirectFileStream.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

using namespace mxc;

DirectFileStream::DirectFileStream(const std::string &path,
                                   std::error_code &outEc, bool truncate,
                                   uint64_t offset)
    : raw_ostream(/*unbuffered=*/true), pos(offset),
      stagedStart(offset / kBlock * kBlock), staged(offset % kBlock),
      staging(static_cast<char *>(std::aligned_alloc(kBlock, kStaging)),
              std::free),
      path(path), front(offset % kBlock) {
  int flags = O_WRONLY | O_CLOEXEC | (truncate ? O_CREAT | O_TRUNC : 0);
  bufferedFd = ::open(path.c_str(), flags, 0666);
  if (bufferedFd < 0)
    ec = std::error_code(errno, std::generic_category());
  else if (!staging)
    ec = std::make_error_code(std::errc::not_enough_memory);
  outEc = ec;
}

DirectFileStream::~DirectFileStream() {
  close();
  // Errors must have been read through has_error() before destruction, as
  // for raw_fd_ostream; a forgotten one is dropped rather than fatal here.
}

void DirectFileStream::writeAt(int fd, const char *data, size_t size,
                               uint64_t at) {
  while (size && !ec) {
    ssize_t n = ::pwrite(fd, data, size, off_t(at));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && fd == directFd && errno == EINVAL) {
      // The file system refused the direct write after all: everything
      // from here on is buffered.
      ::close(directFd);
      directFd = -1;
      fd = bufferedFd;
      continue;
    }
    if (n <= 0) {
      ec = std::error_code(n < 0 ? errno : EIO, std::generic_category());
      return;
    }
    if (fd == directFd)
      directBytes += uint64_t(n);
    data += n;
    size -= size_t(n);
    at += uint64_t(n);
  }
}

void DirectFileStream::flushStaging(bool last) {
  size_t begin = front, end = staged;
  front = 0;
  if (!ec && end > begin) {
    const char *base = staging.get();
    // A file (or range) that fits the staging buffer is written as before,
    // through the page cache.
    if (!last && !triedDirect) {
      triedDirect = true;
      directFd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_DIRECT);
    }
    if (directFd < 0) {
      writeAt(bufferedFd, base + begin, end - begin, stagedStart + begin);
    } else {
      // The partial block before the first boundary, then whole blocks,
      // then the partial block at the end of the file.
      size_t directBegin = begin ? std::min(end, kBlock) : 0;
      size_t directEnd = last ? end / kBlock * kBlock : end;
      if (directBegin > begin)
        writeAt(bufferedFd, base + begin, directBegin - begin,
                stagedStart + begin);
      if (directEnd > directBegin)
        writeAt(directFd, base + directBegin, directEnd - directBegin,
                stagedStart + directBegin);
      size_t tail = std::max(directBegin, directEnd);
      if (end > tail)
        writeAt(bufferedFd, base + tail, end - tail, stagedStart + tail);
    }
  }
  stagedStart += end;
  staged = 0;
}

void DirectFileStream::write_impl(const char *ptr, size_t size) {
  pos += size;
  while (size) {
    size_t n = std::min(size, kStaging - staged);
    std::memcpy(staging.get() + staged, ptr, n);
    staged += n;
    ptr += n;
    size -= n;
    if (staged == kStaging)
      flushStaging(/*last=*/false);
  }
}

void DirectFileStream::close() {
  if (bufferedFd < 0)
    return;
  flushStaging(/*last=*/true);
  if (directFd >= 0)
    ::close(directFd);
  if (::close(bufferedFd) != 0 && !ec)
    ec = std::error_code(errno, std::generic_category());
  bufferedFd = directFd = -1;
}
