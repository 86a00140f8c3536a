// SPDX-License-Identifier: Apache-2.0
// For bench/gpu-check.sh on a machine with an NVIDIA GPU: the bandwidth of
// a compiled elementwise model (mxc --target=cuda; a ReLU over N floats)
// run on device buffers in place (mxrt_instance_options.device_buffers)
// against cuMemcpyDtoD of the same bytes, medians of 20 timed runs each
// (CUDA events), bytes read plus written per second. Prints one line:
//   relu 268435456 bytes: mxc 2791.3 GB/s, cuMemcpyDtoD 3012.8 GB/s, 0.93
// Build: cc -O2 -Iruntime/include -I$CUDA_HOME/include gpu_elementwise.c
//        -Lbuild/lib -lmxrt -lcuda -Wl,-rpath,$PWD/build/lib
#include "mxrt/mxrt.h"

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

static void check(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS) {
    const char *text = "?";
    cuGetErrorString(r, &text);
    fprintf(stderr, "gpu_elementwise: %s: %s\n", what, text);
    exit(1);
  }
}

static int compare(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: gpu_elementwise LIB FLOATS\n");
    return 2;
  }
  size_t n = strtoull(argv[2], NULL, 10), bytes = n * sizeof(float);
  CUdevice device;
  CUcontext context;
  check(cuInit(0), "cuInit");
  check(cuDeviceGet(&device, 0), "cuDeviceGet");
  check(cuDevicePrimaryCtxRetain(&context, device), "primary context");
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
  mxrt_model *model;
  mxrt_instance *instance;
  mxrt_instance_options options;
  mxrt_instance_options_init(&options);
  options.device_buffers = 1;
  if (mxrt_model_open(argv[1], &model) != MXRT_OK ||
      mxrt_instance_create(model, &options, &instance) != MXRT_OK) {
    fprintf(stderr, "gpu_elementwise: %s\n", mxrt_last_error());
    return 1;
  }
  CUdeviceptr in, out;
  check(cuMemAlloc(&in, bytes), "cuMemAlloc");
  check(cuMemAlloc(&out, bytes), "cuMemAlloc");
  check(cuMemsetD32(in, 0x3f800000u, n), "cuMemsetD32"); // 1.0f
  CUevent start, stop;
  check(cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
  check(cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
  float ours[20], copy[20];
  const void *inputs[1] = {(const void *)in};
  void *outputs[1] = {(void *)out};
  for (int r = -3; r < 20; ++r) { // 3 warm-up rounds
    float ms;
    check(cuEventRecord(start, 0), "cuEventRecord");
    if (mxrt_instance_run_raw(instance, inputs, outputs) != MXRT_OK) {
      fprintf(stderr, "gpu_elementwise: %s\n", mxrt_last_error());
      return 1;
    }
    check(cuEventRecord(stop, 0), "cuEventRecord");
    check(cuEventSynchronize(stop), "cuEventSynchronize");
    check(cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
    if (r >= 0)
      ours[r] = ms;
    check(cuEventRecord(start, 0), "cuEventRecord");
    check(cuMemcpyDtoD(out, in, bytes), "cuMemcpyDtoD");
    check(cuEventRecord(stop, 0), "cuEventRecord");
    check(cuEventSynchronize(stop), "cuEventSynchronize");
    check(cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
    if (r >= 0)
      copy[r] = ms;
  }
  // The model's result, on inputs it changes: ReLU(-1) = 0.
  check(cuMemsetD32(in, 0xbf800000u, n), "cuMemsetD32"); // -1.0f
  if (mxrt_instance_run_raw(instance, inputs, outputs) != MXRT_OK) {
    fprintf(stderr, "gpu_elementwise: %s\n", mxrt_last_error());
    return 1;
  }
  float last = -1.0f;
  check(cuMemcpyDtoH(&last, out + bytes - sizeof(float), sizeof(float)),
        "cuMemcpyDtoH");
  qsort(ours, 20, sizeof(float), compare);
  qsort(copy, 20, sizeof(float), compare);
  double gbOurs = 2.0 * bytes / (ours[10] * 1e-3) / 1e9;
  double gbCopy = 2.0 * bytes / (copy[10] * 1e-3) / 1e9;
  printf("relu %zu bytes: mxc %.1f GB/s, cuMemcpyDtoD %.1f GB/s, %.2f\n", bytes,
         gbOurs, gbCopy, gbOurs / gbCopy);
  mxrt_instance_release(instance);
  mxrt_model_release(model);
  if (last != 0.0f) {
    fprintf(stderr, "gpu_elementwise: ReLU(-1) gave %g\n", last);
    return 1;
  }
  return 0;
}
