// SPDX-License-Identifier: Apache-2.0
//
// The CUDA driver, loaded on first use (dlopen of libcuda.so.1), so that
// libmxrt neither links nor needs CUDA: a machine without a GPU loads CPU
// models as before and gets an error, not a crash, for a CUDA model
// (docs/cuda.md). Also the home of the GPU runtime entry points (mgpu*) that
// the host code of a `mxc --target=cuda` library calls (cuda.cpp).
#ifndef MXRT_SRC_CUDA_H
#define MXRT_SRC_CUDA_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace mxrt::cuda {

/// Whether the driver loaded and device 0 has a context current on this
/// thread; else false with the reason in `why` ("libcuda.so.1: cannot open
/// shared object file ...", "cuInit: no CUDA-capable device is detected").
bool ready(std::string &why);

/// Device memory (device 0): `bytes` of it at *out (nullptr for 0 bytes);
/// false with the reason in `why`.
bool alloc(size_t bytes, void **out, std::string &why);
void free(void *device);
/// Copies between host and device memory; false with the reason in `why`.
bool toDevice(void *device, const void *host, size_t bytes, std::string &why);
bool toHost(void *host, const void *device, size_t bytes, std::string &why);
/// Waits for the work queued so far (before freeing memory it may use);
/// its failures stay for synchronize.
void waitIdle();
/// Keeps `message` as the failure of work that returns nothing (a launch, a
/// library call) for the next synchronize, unless one is kept already.
void fail(const std::string &message);
/// Waits for every launch; false with the reason of the first failure since
/// the last call (a launch's, or a module load's) in `why`.
bool synchronize(std::string &why);

} // namespace mxrt::cuda

#endif // MXRT_SRC_CUDA_H
