// SPDX-License-Identifier: Apache-2.0
// The main of a fuzz target in a build without libFuzzer (-DMXC_FUZZ=OFF):
// runs LLVMFuzzerTestOneInput once on every file given, and on every file in
// every folder given, so that CTest replays the regression inputs and seeds.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv)
    __attribute__((weak));

namespace fs = std::filesystem;

static bool runFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read '%s'\n", path.c_str());
    return false;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  // A copy of exactly the input's size, so that ASan sees reads past it.
  std::vector<uint8_t> data(bytes.begin(), bytes.end());
  std::fprintf(stderr, "running %s (%zu bytes)\n", path.c_str(), data.size());
  LLVMFuzzerTestOneInput(data.data(), data.size());
  return true;
}

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  bool ok = true;
  size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    fs::path arg(argv[i]);
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<fs::path> files;
      for (const auto &entry : fs::recursive_directory_iterator(arg, ec))
        if (entry.is_regular_file() && entry.path().filename() != "README.md")
          files.push_back(entry.path());
      std::sort(files.begin(), files.end());
      for (const fs::path &file : files)
        ok &= runFile(file), ++count;
    } else if (fs::exists(arg, ec)) {
      ok &= runFile(arg), ++count;
    }
    // A target with no regression inputs yet has no folder: nothing to run.
  }
  std::fprintf(stderr, "%zu inputs ran\n", count);
  return ok ? 0 : 1;
}
