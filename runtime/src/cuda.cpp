// SPDX-License-Identifier: Apache-2.0
//
// The CUDA driver API through dlopen (the few entry points libmxrt uses,
// declared here: no CUDA header or library is needed to build it), and the
// GPU runtime entry points (mgpu*) that MLIR's gpu-to-llvm lowering makes a
// `mxc --target=cuda` library call: module loads from its global
// constructors, kernel launches from its functions. Those return nothing,
// so a failure is kept and reported by the next cuda::synchronize, which
// the instance's call makes after the function returns.
#include "cuda.h"

#include <dlfcn.h>

#include <mutex>
#include <type_traits>

namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;

/// The driver's entry points libmxrt calls, by their exported names (the
/// _v2 ones are what cuda.h's macros name).
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);

  bool ok = false;
  std::string why; // why not ok
  CUcontext context = nullptr;

  std::mutex failures;
  std::string failure; // the first since the last synchronize
};

/// "what: the driver's words for r".
std::string describe(Driver &d, CUresult r, const char *what) {
  const char *text = nullptr;
  d.cuGetErrorString(r, &text);
  return std::string(what) + ": " +
         (text ? text : "error " + std::to_string(r));
}

Driver &driver() {
  static Driver d;
  static std::once_flag once;
  std::call_once(once, [] {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char *error = dlerror();
      d.why = error ? error : "libcuda.so.1: not found";
      return;
    }
    bool all = true;
    auto bind = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(lib, name));
      if (!fn && all) {
        all = false;
        d.why = std::string("libcuda.so.1 has no ") + name;
      }
    };
    bind(d.cuInit, "cuInit");
    bind(d.cuDeviceGetCount, "cuDeviceGetCount");
    bind(d.cuDeviceGet, "cuDeviceGet");
    bind(d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    bind(d.cuCtxSetCurrent, "cuCtxSetCurrent");
    bind(d.cuGetErrorString, "cuGetErrorString");
    bind(d.cuModuleLoadData, "cuModuleLoadData");
    bind(d.cuModuleUnload, "cuModuleUnload");
    bind(d.cuModuleGetFunction, "cuModuleGetFunction");
    bind(d.cuLaunchKernel, "cuLaunchKernel");
    bind(d.cuStreamSynchronize, "cuStreamSynchronize");
    bind(d.cuCtxSynchronize, "cuCtxSynchronize");
    bind(d.cuMemAlloc, "cuMemAlloc_v2");
    bind(d.cuMemFree, "cuMemFree_v2");
    bind(d.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    bind(d.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
    if (!all)
      return;
    auto failed = [&](CUresult r, const char *what) {
      if (r == 0)
        return false;
      d.why = describe(d, r, what);
      return true;
    };
    int count = 0;
    CUdevice device;
    if (failed(d.cuInit(0), "cuInit") ||
        failed(d.cuDeviceGetCount(&count), "cuDeviceGetCount"))
      return;
    if (count == 0) {
      d.why = "no CUDA device";
      return;
    }
    if (failed(d.cuDeviceGet(&device, 0), "cuDeviceGet") ||
        failed(d.cuDevicePrimaryCtxRetain(&d.context, device),
               "cuDevicePrimaryCtxRetain"))
      return;
    d.ok = true;
  });
  return d;
}

/// The driver with device 0's primary context current on this thread, or
/// null.
Driver *current() {
  Driver &d = driver();
  if (!d.ok)
    return nullptr;
  thread_local bool set = false;
  if (!set && d.cuCtxSetCurrent(d.context) != 0)
    return nullptr;
  set = true;
  return &d;
}

bool check(Driver &d, CUresult r, const char *what, std::string &why) {
  if (r == 0)
    return true;
  why = describe(d, r, what);
  return false;
}

} // namespace

namespace mxrt::cuda {

void fail(const std::string &message) {
  Driver &d = driver();
  std::lock_guard<std::mutex> lock(d.failures);
  if (d.failure.empty())
    d.failure = message;
}

void waitIdle() {
  if (Driver *d = current())
    if (CUresult r = d->cuCtxSynchronize())
      fail(describe(*d, r, "cuCtxSynchronize"));
}

bool ready(std::string &why) {
  if (current())
    return true;
  Driver &d = driver();
  why = d.ok ? "cuCtxSetCurrent failed" : d.why;
  return false;
}

bool alloc(size_t bytes, void **out, std::string &why) {
  *out = nullptr;
  if (bytes == 0)
    return true;
  Driver *d = current();
  if (!d)
    return ready(why);
  CUdeviceptr p = 0;
  if (!check(*d, d->cuMemAlloc(&p, bytes), "cuMemAlloc", why))
    return false;
  *out = reinterpret_cast<void *>(p);
  return true;
}

void free(void *device) {
  if (Driver *d = device ? current() : nullptr)
    d->cuMemFree(reinterpret_cast<CUdeviceptr>(device));
}

/// A host <-> device copy of `bytes` by call(driver), named `what` in a
/// failure.
template <typename Call>
bool transfer(size_t bytes, const char *what, std::string &why,
              const Call &call) {
  if (bytes == 0)
    return true;
  Driver *d = current();
  if (!d)
    return ready(why);
  return check(*d, call(*d), what, why);
}

bool toDevice(void *device, const void *host, size_t bytes, std::string &why) {
  return transfer(bytes, "cuMemcpyHtoD", why, [&](Driver &d) {
    return d.cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(device), host, bytes);
  });
}

bool toHost(void *host, const void *device, size_t bytes, std::string &why) {
  return transfer(bytes, "cuMemcpyDtoH", why, [&](Driver &d) {
    return d.cuMemcpyDtoH(host, reinterpret_cast<CUdeviceptr>(device), bytes);
  });
}

bool synchronize(std::string &why) {
  Driver *d = current();
  if (!d)
    return ready(why);
  CUresult r = d->cuCtxSynchronize();
  std::lock_guard<std::mutex> lock(d->failures);
  if (!d->failure.empty()) {
    why = d->failure;
    d->failure.clear();
    return false;
  }
  return check(*d, r, "cuCtxSynchronize", why);
}

} // namespace mxrt::cuda

// The entry points of MLIR's GPU runtime wrappers that gpu-to-llvm emits
// calls to (the same names and signatures; Debian ships no
// libmlir_cuda_runtime, and a compiled model needs only libmxrt). Kernels
// run on the legacy default stream, in the order the host code launches
// them.
extern "C" {

__attribute__((visibility("default"))) void *mgpuModuleLoad(void *data,
                                                            size_t) {
  Driver *d = current();
  if (!d) // reported by the instance (mxrt_model_open checks the driver)
    return nullptr;
  CUmodule module = nullptr;
  if (CUresult r = d->cuModuleLoadData(&module, data)) {
    mxrt::cuda::fail(describe(*d, r, "cuModuleLoadData"));
    return nullptr;
  }
  return module;
}

__attribute__((visibility("default"))) void mgpuModuleUnload(void *module) {
  if (Driver *d = module ? current() : nullptr)
    d->cuModuleUnload(module);
}

__attribute__((visibility("default"))) void *
mgpuModuleGetFunction(void *module, const char *name) {
  Driver *d = module ? current() : nullptr;
  if (!d)
    return nullptr;
  CUfunction function = nullptr;
  if (CUresult r = d->cuModuleGetFunction(&function, module, name)) {
    mxrt::cuda::fail(describe(*d, r, "cuModuleGetFunction") + " (" + name +
                     ")");
    return nullptr;
  }
  return function;
}

__attribute__((visibility("default"))) void *mgpuStreamCreate() {
  return nullptr; // the legacy default stream
}

__attribute__((visibility("default"))) void mgpuStreamDestroy(void *) {}

__attribute__((visibility("default"))) void mgpuStreamSynchronize(void *) {
  // Launches run in order on one stream; the instance synchronizes once
  // after the whole function (cuda::synchronize).
}

__attribute__((visibility("default"))) void
mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                 intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                 int32_t sharedBytes, void *stream, void **params, void **extra,
                 size_t) {
  Driver *d = current();
  if (!d || !function) {
    mxrt::cuda::fail(
        "a kernel of the model is not loaded (see the first CUDA error)");
    return;
  }
  if (CUresult r = d->cuLaunchKernel(
          function, unsigned(gridX), unsigned(gridY), unsigned(gridZ),
          unsigned(blockX), unsigned(blockY), unsigned(blockZ),
          unsigned(sharedBytes), stream, params, extra))
    mxrt::cuda::fail(describe(*d, r, "cuLaunchKernel"));
}

} // extern "C"
