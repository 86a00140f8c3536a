// SPDX-License-Identifier: Apache-2.0
//
// mxrt_cuda_* (mxrt/cuda_kernels.h): cuBLAS and cuDNN, loaded on first use,
// on the legacy default stream that the model's kernels run on, so a
// library call runs after the kernels launched before it and before those
// launched after. One handle of each for device 0's primary context;
// calls are serialized (queuing work is cheap; the handles and the plan
// caches are not thread-safe).
#include "cuda_libraries.h"
#include "cuda.h"

#include "mxrt/cuda_kernels.h"

#include <dlfcn.h>

#include <array>
#include <cstdlib>
#include <map>
#include <mutex>
#include <type_traits>
#include <vector>

namespace mxrt::cuda {
namespace {

/// Binds the entry points of a library opened from the first of `names`
/// that loads; `why` says what is missing otherwise.
struct Library {
  void *handle = nullptr;
  std::string why;

  explicit Library(std::initializer_list<const char *> names) {
    for (const char *name : names)
      if ((handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
        return;
    const char *error = dlerror();
    why = error ? error : std::string(*names.begin()) + ": not found";
  }
  template <typename Fn> void bind(Fn &fn, const char *name) {
    fn = handle ? reinterpret_cast<Fn>(dlsym(handle, name)) : nullptr;
    if (!fn && why.empty())
      why = std::string("no ") + name + " in the loaded library";
  }
};

/// Whether MXRT_CUDA_TF32=1 lets cuBLAS and cuDNN multiply float32 in
/// TF32 on tensor cores (faster, about 1e-3 relative error per product);
/// by default they keep float32's precision, as the CPU kernels do.
bool tf32() {
  const char *v = std::getenv("MXRT_CUDA_TF32");
  return v && v[0] == '1';
}

struct Blas : CublasApi {
  cublasHandle_t handle = nullptr;
  std::string why; // empty: ready

  std::string describe(cublasStatus_t s, const char *what) {
    const char *text = statusString ? statusString(s) : nullptr;
    return std::string(what) + ": " +
           (text ? text : "status " + std::to_string(s));
  }
};

struct ConvPlan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  // Chosen on first use: the algorithm and its workspace, per direction.
  int algo[3] = {-1, -1, -1};
  size_t workspace[3] = {0, 0, 0};
};

/// The geometry arguments of mxrt_kernel_sconv2d.
using ConvKey = std::array<int64_t, 16>;

struct Dnn : CudnnApi {
  cudnnHandle_t handle = nullptr;
  std::string why; // empty: ready
  std::map<ConvKey, ConvPlan> plans;

  std::string describe(cudnnStatus_t s, const char *what) {
    const char *text = errorString ? errorString(s) : nullptr;
    return std::string(what) + ": " +
           (text ? text : "status " + std::to_string(s));
  }
};

std::mutex calls; // held by every mxrt_cuda_* call

/// The device scratch that cuDNN's algorithms ask for, grown as needed
/// (after the work queued on the old one is done).
void *workspace(size_t bytes, std::string &why) {
  static void *buffer = nullptr;
  static size_t size = 0;
  if (bytes <= size)
    return buffer;
  waitIdle();
  free(buffer);
  buffer = nullptr;
  size = 0;
  if (!alloc(bytes, &buffer, why))
    return nullptr;
  size = bytes;
  return buffer;
}

Blas &blas() {
  static Blas b;
  static std::once_flag once;
  std::call_once(once, [] {
    if (!ready(b.why))
      return;
    Library lib({"libcublas.so.13", "libcublas.so"});
    lib.bind(b.create, "cublasCreate_v2");
    lib.bind(b.setMathMode, "cublasSetMathMode");
    lib.bind(b.statusString, "cublasGetStatusString");
    lib.bind(b.gemm, "cublasSgemmStridedBatched_64");
    if (!lib.why.empty()) {
      b.why = lib.why;
      return;
    }
    if (cublasStatus_t s = b.create(&b.handle)) {
      b.why = b.describe(s, "cublasCreate");
      return;
    }
    b.setMathMode(b.handle,
                  tf32() ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
  });
  return b;
}

Dnn &dnn() {
  static Dnn d;
  static std::once_flag once;
  std::call_once(once, [] {
    if (!ready(d.why))
      return;
    Library lib({"libcudnn.so.9", "libcudnn.so"});
    lib.bind(d.create, "cudnnCreate");
    lib.bind(d.errorString, "cudnnGetErrorString");
    lib.bind(d.createTensor, "cudnnCreateTensorDescriptor");
    lib.bind(d.setTensor4d, "cudnnSetTensor4dDescriptor");
    lib.bind(d.createFilter, "cudnnCreateFilterDescriptor");
    lib.bind(d.setFilter4d, "cudnnSetFilter4dDescriptor");
    lib.bind(d.createConv, "cudnnCreateConvolutionDescriptor");
    lib.bind(d.setConv2d, "cudnnSetConvolution2dDescriptor");
    lib.bind(d.setGroupCount, "cudnnSetConvolutionGroupCount");
    lib.bind(d.setMathType, "cudnnSetConvolutionMathType");
    lib.bind(d.outputDim, "cudnnGetConvolution2dForwardOutputDim");
    lib.bind(d.forwardAlgo, "cudnnGetConvolutionForwardAlgorithm_v7");
    lib.bind(d.dataAlgo, "cudnnGetConvolutionBackwardDataAlgorithm_v7");
    lib.bind(d.filterAlgo, "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
    lib.bind(d.forward, "cudnnConvolutionForward");
    lib.bind(d.backwardData, "cudnnConvolutionBackwardData");
    lib.bind(d.backwardFilter, "cudnnConvolutionBackwardFilter");
    if (!lib.why.empty()) {
      d.why = lib.why;
      return;
    }
    if (cudnnStatus_t s = d.create(&d.handle))
      d.why = d.describe(s, "cudnnCreate");
  });
  return d;
}

/// The descriptors of the convolution `key` (n, c, h, w, f, oh, ow, kh,
/// kw, strides, pads, dilations, groups), made once; null with the reason
/// in `why`.
ConvPlan *convPlan(Dnn &d, const ConvKey &key, std::string &why) {
  auto found = d.plans.find(key);
  if (found != d.plans.end())
    return &found->second;
  auto [n, c, h, w, f, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw, groups] = key;
  for (int64_t v : key)
    if (v < 0 || v > INT32_MAX) {
      why = "a convolution extent past cuDNN's int";
      return nullptr;
    }
  if (groups < 1 || c % groups || f % groups) {
    why = std::to_string(groups) + " groups do not divide " +
          std::to_string(c) + " channels and " + std::to_string(f) + " filters";
    return nullptr;
  }
  ConvPlan plan;
  cudnnStatus_t s = 0;
  const char *what = "";
  auto step = [&](cudnnStatus_t r, const char *name) {
    if (s == 0 && r != 0) {
      s = r;
      what = name;
    }
  };
  step(d.createTensor(&plan.x), "cudnnCreateTensorDescriptor");
  step(d.createTensor(&plan.y), "cudnnCreateTensorDescriptor");
  step(d.createFilter(&plan.w), "cudnnCreateFilterDescriptor");
  step(d.createConv(&plan.conv), "cudnnCreateConvolutionDescriptor");
  if (s == 0) {
    step(d.setTensor4d(plan.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, int(n),
                       int(c), int(h), int(w)),
         "cudnnSetTensor4dDescriptor");
    step(d.setTensor4d(plan.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, int(n),
                       int(f), int(oh), int(ow)),
         "cudnnSetTensor4dDescriptor");
    step(d.setFilter4d(plan.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, int(f),
                       int(c / groups), int(kh), int(kw)),
         "cudnnSetFilter4dDescriptor");
    step(d.setConv2d(plan.conv, int(ph), int(pw), int(sh), int(sw), int(dh),
                     int(dw), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
         "cudnnSetConvolution2dDescriptor");
    step(d.setGroupCount(plan.conv, int(groups)),
         "cudnnSetConvolutionGroupCount");
    step(d.setMathType(plan.conv,
                       tf32() ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH),
         "cudnnSetConvolutionMathType");
  }
  int on, of, ooh, oow;
  if (s == 0)
    step(d.outputDim(plan.conv, plan.x, plan.w, &on, &of, &ooh, &oow),
         "cudnnGetConvolution2dForwardOutputDim");
  if (s != 0) {
    why = d.describe(s, what);
    return nullptr;
  }
  if (ooh != oh || oow != ow) {
    why = "the output is " + std::to_string(oh) + " x " + std::to_string(ow) +
          " where cuDNN's symmetric padding gives " + std::to_string(ooh) +
          " x " + std::to_string(oow) +
          " (padding after the input that differs from before it)";
    return nullptr;
  }
  return &d.plans.emplace(key, plan).first->second;
}

enum Direction { kForward, kData, kFilter };

/// Runs one convolution direction of `key`: `run(plan, algo, workspace,
/// bytes)` once the algorithm is chosen; failures are kept for the call.
template <typename Run>
void convolve(const char *entry, const ConvKey &key, Direction dir,
              const Run &run) {
  std::lock_guard<std::mutex> lock(calls);
  Dnn &d = dnn();
  std::string why;
  if (!d.why.empty())
    return fail(std::string(entry) + ": cuDNN: " + d.why);
  ConvPlan *plan = convPlan(d, key, why);
  if (!plan)
    return fail(std::string(entry) + ": " + why);
  if (plan->algo[dir] < 0) {
    // cuDNN's heuristic, best first; the first it can run is taken.
    cudnnAlgoPerf perf[16];
    int count = 0;
    cudnnStatus_t s =
        dir == kForward ? d.forwardAlgo(d.handle, plan->x, plan->w, plan->conv,
                                        plan->y, 16, &count, perf)
        : dir == kData  ? d.dataAlgo(d.handle, plan->w, plan->y, plan->conv,
                                     plan->x, 16, &count, perf)
                        : d.filterAlgo(d.handle, plan->x, plan->y, plan->conv,
                                       plan->w, 16, &count, perf);
    if (s != 0)
      return fail(std::string(entry) + ": " +
                  d.describe(s, "choosing the algorithm"));
    for (int i = 0; i < count && plan->algo[dir] < 0; ++i)
      if (perf[i].status == 0) {
        plan->algo[dir] = perf[i].algo;
        plan->workspace[dir] = perf[i].memory;
      }
    if (plan->algo[dir] < 0)
      return fail(std::string(entry) +
                  ": cuDNN has no algorithm for this convolution");
  }
  void *ws = workspace(plan->workspace[dir], why);
  if (plan->workspace[dir] && !ws)
    return fail(std::string(entry) + ": its workspace: " + why);
  if (cudnnStatus_t s =
          run(d, *plan, plan->algo[dir], ws, plan->workspace[dir]))
    fail(std::string(entry) + ": " + d.describe(s, "cuDNN"));
}

constexpr int32_t kIgnored = MXRT_KERNEL_CONST_A | MXRT_KERNEL_CONST_B |
                             MXRT_KERNEL_PARAM_A | MXRT_KERNEL_ACCUMULATE;

} // namespace

} // namespace mxrt::cuda

using namespace mxrt::cuda;

extern "C" {

void mxrt_cuda_sgemm(int64_t batch, int64_t m, int64_t n, int64_t k,
                     const float *a, int64_t a_bs, int64_t a_rs, int64_t a_cs,
                     const float *b, int64_t b_bs, int64_t b_rs, int64_t b_cs,
                     float *c, int64_t c_bs, int64_t c_rs, int64_t c_cs,
                     const float *bias, int64_t, int64_t, int64_t,
                     int32_t flags) {
  if (bias || (flags & ~kIgnored))
    return fail("mxrt_cuda_sgemm: a bias or an epilogue flag other than "
                "MXRT_KERNEL_ACCUMULATE (mxrt/cuda_kernels.h)");
  if (batch == 0 || m == 0 || n == 0)
    return;
  GemmPlan plan;
  std::string why;
  if (!planGemm(batch, m, n, k, {a, a_bs, a_rs, a_cs}, {b, b_bs, b_rs, b_cs},
                {c, c_bs, c_rs, c_cs}, plan, why))
    return fail("mxrt_cuda_sgemm: " + why);
  std::lock_guard<std::mutex> lock(calls);
  Blas &bl = blas();
  if (!bl.why.empty())
    return fail("mxrt_cuda_sgemm: cuBLAS: " + bl.why);
  const float one = 1, zero = 0;
  const float *beta = (flags & MXRT_KERNEL_ACCUMULATE) ? &one : &zero;
  if (cublasStatus_t s = bl.gemm(
          bl.handle, plan.transA, plan.transB, plan.m, plan.n, plan.k, &one,
          plan.a, plan.lda, plan.strideA, plan.b, plan.ldb, plan.strideB, beta,
          plan.c, plan.ldc, plan.strideC, plan.batch))
    fail("mxrt_cuda_sgemm: " + bl.describe(s, "cublasSgemmStridedBatched_64"));
}

void mxrt_cuda_sconv2d(int64_t n, int64_t c, int64_t h, int64_t w, int64_t f,
                       int64_t oh, int64_t ow, int64_t kh, int64_t kw,
                       int64_t stride_h, int64_t stride_w, int64_t pad_h,
                       int64_t pad_w, int64_t dilate_h, int64_t dilate_w,
                       int64_t groups, const float *x, const float *weight,
                       const float *bias, float *y, int32_t flags) {
  if (bias || (flags & ~kIgnored))
    return fail("mxrt_cuda_sconv2d: a bias or an epilogue or layout flag "
                "other than MXRT_KERNEL_ACCUMULATE (mxrt/cuda_kernels.h)");
  if (n == 0 || f == 0 || oh == 0 || ow == 0)
    return;
  const float one = 1, zero = 0;
  const float *beta = (flags & MXRT_KERNEL_ACCUMULATE) ? &one : &zero;
  convolve("mxrt_cuda_sconv2d",
           {n, c, h, w, f, oh, ow, kh, kw, stride_h, stride_w, pad_h, pad_w,
            dilate_h, dilate_w, groups},
           kForward,
           [&](Dnn &d, ConvPlan &p, int algo, void *ws, size_t bytes) {
             return d.forward(d.handle, &one, p.x, x, p.w, weight, p.conv, algo,
                              ws, bytes, beta, p.y, y);
           });
}

void mxrt_cuda_sconv2d_backward(int64_t n, int64_t c, int64_t h, int64_t w,
                                int64_t f, int64_t oh, int64_t ow, int64_t kh,
                                int64_t kw, int64_t stride_h, int64_t stride_w,
                                int64_t pad_h, int64_t pad_w, int64_t dilate_h,
                                int64_t dilate_w, int64_t groups,
                                const float *x, const float *weight,
                                const float *dy, float *dx, float *dweight,
                                int32_t flags) {
  if (flags & ~kIgnored)
    return fail("mxrt_cuda_sconv2d_backward: a layout flag (NCHW only on "
                "CUDA)");
  const float one = 1, zero = 0;
  const float *beta = (flags & MXRT_KERNEL_ACCUMULATE) ? &one : &zero;
  ConvKey key{n,  c,        h,        w,     f,     oh,       ow,       kh,
              kw, stride_h, stride_w, pad_h, pad_w, dilate_h, dilate_w, groups};
  if (dx)
    convolve("mxrt_cuda_sconv2d_backward", key, kData,
             [&](Dnn &d, ConvPlan &p, int algo, void *ws, size_t bytes) {
               return d.backwardData(d.handle, &one, p.w, weight, p.y, dy,
                                     p.conv, algo, ws, bytes, beta, p.x, dx);
             });
  if (dweight)
    convolve("mxrt_cuda_sconv2d_backward", key, kFilter,
             [&](Dnn &d, ConvPlan &p, int algo, void *ws, size_t bytes) {
               return d.backwardFilter(d.handle, &one, p.x, x, p.y, dy, p.conv,
                                       algo, ws, bytes, beta, p.w, dweight);
             });
}

} // extern "C"
