// SPDX-License-Identifier: Apache-2.0
// Fuzzes the runtime's .npy reader (mxrt_tensor_load_npy: magic, version,
// header dictionary, dtype strings, shape, text arrays). What loads must save
// and load again to the same tensor.
#include "TempFile.h"

#include "mxrt/mxrt.h"

#include <cstring>

namespace {

void requireSame(const mxrt_tensor *a, const mxrt_tensor *b) {
  bool same = mxrt_tensor_dtype(a) == mxrt_tensor_dtype(b) &&
              mxrt_tensor_ndim(a) == mxrt_tensor_ndim(b) &&
              mxrt_tensor_size_bytes(a) == mxrt_tensor_size_bytes(b) &&
              std::memcmp(mxrt_tensor_shape(a), mxrt_tensor_shape(b),
                          sizeof(int64_t) * mxrt_tensor_ndim(a)) == 0;
  if (same && mxrt_tensor_dtype(a) == MXRT_STRING) {
    for (int64_t i = 0; same && i < mxrt_tensor_num_elements(a); ++i)
      same = std::strcmp(mxrt_tensor_get_string(a, i),
                         mxrt_tensor_get_string(b, i)) == 0;
  } else if (same) {
    same = std::memcmp(mxrt_tensor_data(const_cast<mxrt_tensor *>(a)),
                       mxrt_tensor_data(const_cast<mxrt_tensor *>(b)),
                       mxrt_tensor_size_bytes(a)) == 0;
  }
  if (!same) {
    std::fprintf(stderr, "a .npy tensor changed in a save/load round trip\n");
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path = mxc::fuzz::writeScratchFile("input.npy", data, size);
  mxrt_tensor *tensor = nullptr;
  if (mxrt_tensor_load_npy(path.c_str(), &tensor) != MXRT_OK)
    return 0;
  std::string copyPath = mxc::fuzz::scratchDir() + "/copy.npy";
  mxrt_tensor *again = nullptr;
  if (mxrt_tensor_save_npy(tensor, copyPath.c_str()) != MXRT_OK ||
      mxrt_tensor_load_npy(copyPath.c_str(), &again) != MXRT_OK) {
    std::fprintf(stderr, "a loaded .npy tensor does not save and reload: %s\n",
                 mxrt_last_error());
    std::abort();
  }
  requireSame(tensor, again);
  mxrt_tensor_release(again);
  mxrt_tensor_release(tensor);
  return 0;
}
