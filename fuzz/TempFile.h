// SPDX-License-Identifier: Apache-2.0
// A per-process scratch file for fuzz targets whose parser takes a path
// (mxrt_tensor_load_npy, the ONNX importer, the compile pipeline): each input
// is written there, in /dev/shm when it exists so that no disk is touched.
#ifndef MXC_FUZZ_TEMPFILE_H
#define MXC_FUZZ_TEMPFILE_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace mxc::fuzz {

/// A folder of this process's own, created on first use and removed at exit
/// (not after a finding: libFuzzer then ends the process with _exit).
inline const std::string &scratchDir() {
  // Never destroyed: the exit handler below runs after static destructors.
  static const std::string &dir = *new std::string([] {
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : nullptr;
    if (!base)
      base = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
    std::string pattern = std::string(base) + "/mxc-fuzz-XXXXXX";
    if (!mkdtemp(pattern.data())) {
      std::perror("mkdtemp");
      std::abort();
    }
    std::atexit([] { std::filesystem::remove_all(scratchDir()); });
    return pattern;
  }());
  return dir;
}

/// Writes `data` to `scratchDir()/name` and returns the path.
inline std::string writeScratchFile(const std::string &name,
                                    const uint8_t *data, size_t size) {
  std::string path = scratchDir() + "/" + name;
  FILE *file = std::fopen(path.c_str(), "wb");
  if (!file || (size && std::fwrite(data, 1, size, file) != size) ||
      std::fclose(file) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
  return path;
}

} // namespace mxc::fuzz

#endif // MXC_FUZZ_TEMPFILE_H
