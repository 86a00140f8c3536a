// SPDX-License-Identifier: Apache-2.0
//
// Writing files atomically, shared by the .npy and .params writers: a reader
// (another process, or a training run resumed after a crash) must never see a
// half-written file, and a failed write must leave no file behind.

#include "internal.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace {

bool writeAll(int fd, const void *data, size_t size) {
  const char *bytes = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t written = ::write(fd, bytes, size);
    if (written < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    bytes += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

} // namespace

mxrt_status mxrt::writeFileAtomically(const char *path, const FileChunk *chunks,
                                      size_t numChunks) {
  // Write beside the target and rename over it.
  static std::atomic<unsigned> counter{0};
  std::string tempPath;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tempPath = std::string(path) + ".tmp." + std::to_string(getpid()) + "." +
               std::to_string(counter++);
    fd =
        ::open(tempPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0)
    return fail(MXRT_IO_ERROR, "cannot create '%s': %s", path,
                std::strerror(errno));
  bool ok = true;
  for (size_t i = 0; ok && i < numChunks; ++i)
    ok = writeAll(fd, chunks[i].data, chunks[i].size);
  int savedErrno = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    savedErrno = errno;
  }
  if (ok && std::rename(tempPath.c_str(), path) != 0) {
    ok = false;
    savedErrno = errno;
  }
  if (!ok) {
    ::unlink(tempPath.c_str());
    return fail(MXRT_IO_ERROR, "cannot write '%s': %s", path,
                std::strerror(savedErrno));
  }
  return MXRT_OK;
}
