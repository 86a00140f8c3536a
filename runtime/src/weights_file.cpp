// SPDX-License-Identifier: Apache-2.0
//
// The weights file of a model compiled with mxc --weights=file
// (mxrt/model_abi.h): found beside the library that holds the descriptor,
// checked against the descriptor, mapped read-only for the model's life.

#include "internal.h"

#include <cerrno>
#include <cstring>
#include <string>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

using mxrt::fail;

mxrt_status mxrt::mapWeightsFile(const mxrt_model_desc *desc,
                                 const std::string &origin, mxrt_model &model) {
  Dl_info info{};
  if (!dladdr(desc, &info) || !info.dli_fname || !*info.dli_fname)
    return fail(MXRT_NOT_FOUND,
                "%s: cannot tell which file holds the model, so its weights "
                "file '%s' cannot be found",
                origin.c_str(), desc->weights_file);
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  path =
      (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) +
      desc->weights_file;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fail(errno == ENOENT ? MXRT_NOT_FOUND : MXRT_IO_ERROR,
                "%s: cannot open its weights file '%s': %s", origin.c_str(),
                path.c_str(), std::strerror(errno));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  const uint64_t expected =
      uint64_t(MXRT_WEIGHTS_FILE_HEADER_SIZE) + uint64_t(desc->weights_size);
  struct stat st;
  mxrt_weights_file_header header;
  if (fstat(fd, &st) != 0 ||
      ::pread(fd, &header, sizeof header, 0) != ssize_t(sizeof header))
    return fail(MXRT_IO_ERROR,
                "%s: weights file '%s' is not readable or shorter than its "
                "header",
                origin.c_str(), path.c_str());
  if (std::memcmp(header.magic, MXRT_WEIGHTS_FILE_MAGIC, 8) != 0)
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: '%s' is not an mxc weights file (bad magic)",
                origin.c_str(), path.c_str());
  if (header.weights_size != desc->weights_size ||
      header.weights_hash != desc->weights_hash)
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: weights file '%s' belongs to another compile of the "
                "model (%lld bytes, hash %016llx; the library expects %lld "
                "bytes, hash %016llx): copy the library and its weights file "
                "together",
                origin.c_str(), path.c_str(),
                static_cast<long long>(header.weights_size),
                static_cast<unsigned long long>(header.weights_hash),
                static_cast<long long>(desc->weights_size),
                static_cast<unsigned long long>(desc->weights_hash));
  if (uint64_t(st.st_size) != expected)
    return fail(MXRT_INVALID_ARGUMENT,
                "%s: weights file '%s' holds %lld bytes, expected %llu (a "
                "truncated or altered file)",
                origin.c_str(), path.c_str(),
                static_cast<long long>(st.st_size),
                static_cast<unsigned long long>(expected));
  void *map = mmap(nullptr, expected, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED)
    return fail(MXRT_OUT_OF_MEMORY, "%s: cannot map weights file '%s': %s",
                origin.c_str(), path.c_str(), std::strerror(errno));
  model.weightsMap = map;
  model.weightsMapSize = expected;
  model.weights =
      static_cast<const uint8_t *>(map) + MXRT_WEIGHTS_FILE_HEADER_SIZE;
  return MXRT_OK;
}
