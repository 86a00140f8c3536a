// SPDX-License-Identifier: Apache-2.0
//
// What of libmxrt's cuBLAS / cuDNN path can be checked without a GPU: the
// GEMM plan (a strided row-major product as one column-major cuBLAS call),
// run here by a reference that reads its arguments as cuBLAS documents
// them and compared with the product computed from the views directly;
// the entry points' declarations against the toolkit's headers, where
// they are installed; and the calls' no-GPU path (an error, not a crash).
#include "../../runtime/src/cuda.h"
#include "../../runtime/src/cuda_libraries.h"

#include "mxrt/cuda_kernels.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#ifdef MXRT_TEST_CUDA_HEADERS
#include <cublas_api.h>
#include <cudnn.h>
#endif

// Inside the namespace, so that its declarations win over the headers'.
namespace mxrt::cuda {
namespace {

/// cublasSgemmStridedBatched's result for `plan` (beta = 1 when
/// `accumulate`), as its documentation defines it: column-major, op(X) =
/// X or its transpose, each problem `stride` elements after the last.
void referenceCublas(const GemmPlan &plan, bool accumulate) {
  auto opA = [&](int64_t q, int64_t i, int64_t p) {
    const float *a = plan.a + q * plan.strideA;
    return plan.transA == CUBLAS_OP_N ? a[i + p * plan.lda]
                                      : a[p + i * plan.lda];
  };
  auto opB = [&](int64_t q, int64_t p, int64_t j) {
    const float *b = plan.b + q * plan.strideB;
    return plan.transB == CUBLAS_OP_N ? b[p + j * plan.ldb]
                                      : b[j + p * plan.ldb];
  };
  for (int64_t q = 0; q < plan.batch; ++q)
    for (int64_t i = 0; i < plan.m; ++i)
      for (int64_t j = 0; j < plan.n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < plan.k; ++p)
          sum += double(opA(q, i, p)) * opB(q, p, j);
        float &c = plan.c[q * plan.strideC + i + j * plan.ldc];
        c = float(sum + (accumulate ? c : 0.0));
      }
}

/// A random m x n operand: row-major (rows contiguous) or column-major,
/// its leading stride padded or not, `batch` of them apart.
struct Operand {
  int64_t rows, cols, bs, rs, cs;
  std::vector<float> data;

  Operand(int64_t rows, int64_t cols, int64_t batch, std::mt19937 &rng)
      : rows(rows), cols(cols) {
    bool rowMajor = rng() % 2;
    int64_t pad = rng() % 3;
    rs = rowMajor ? cols + pad : 1;
    cs = rowMajor ? 1 : rows + pad;
    bs = (rowMajor ? rows * rs : cols * cs) + int64_t(rng() % 2);
    data.resize(size_t(batch * bs + 1));
    std::uniform_real_distribution<float> value(-1, 1);
    for (float &v : data)
      v = value(rng);
  }
  StridedMatrix view() const { return {data.data(), bs, rs, cs}; }
  float at(int64_t q, int64_t i, int64_t j) const {
    return data[size_t(q * bs + i * rs + j * cs)];
  }
};

TEST(CudaGemmPlan, RowAndColumnMajorOperandsGiveTheProduct) {
  std::mt19937 rng(7);
  int checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    int64_t batch = 1 + rng() % 3, m = 1 + rng() % 6, n = 1 + rng() % 6,
            k = 1 + rng() % 6;
    Operand a(m, k, batch, rng), b(k, n, batch, rng), c(m, n, batch, rng);
    bool accumulate = rng() % 2;
    std::vector<float> before = c.data;
    GemmPlan plan;
    std::string why;
    ASSERT_TRUE(
        planGemm(batch, m, n, k, a.view(), b.view(), c.view(), plan, why))
        << why;
    // cuBLAS's own argument checks.
    EXPECT_GE(plan.lda, std::max<int64_t>(
                            1, plan.transA == CUBLAS_OP_N ? plan.m : plan.k));
    EXPECT_GE(plan.ldb, std::max<int64_t>(
                            1, plan.transB == CUBLAS_OP_N ? plan.k : plan.n));
    EXPECT_GE(plan.ldc, std::max<int64_t>(1, plan.m));
    referenceCublas(plan, accumulate);
    for (int64_t q = 0; q < batch; ++q)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double want = 0;
          for (int64_t p = 0; p < k; ++p)
            want += double(a.at(q, i, p)) * b.at(q, p, j);
          if (accumulate)
            want += before[size_t(q * c.bs + i * c.rs + j * c.cs)];
          ASSERT_NEAR(c.at(q, i, j), want, 1e-5)
              << "trial " << trial << " (" << q << ", " << i << ", " << j
              << ")";
          ++checked;
        }
  }
  EXPECT_GT(checked, 1000);
}

TEST(CudaGemmPlan, BroadcastOperandsKeepAZeroBatchStride) {
  std::vector<float> a(6, 1), b(12, 2), c(2 * 8, 0);
  GemmPlan plan;
  std::string why;
  // A (2 x 3) shared by both problems, B (3 x 4) and C (2 x 4) per problem.
  ASSERT_TRUE(planGemm(2, 2, 4, 3, {a.data(), 0, 3, 1}, {b.data(), 0, 4, 1},
                       {c.data(), 8, 4, 1}, plan, why))
      << why;
  referenceCublas(plan, false);
  for (float v : c)
    EXPECT_FLOAT_EQ(v, 6.0f);
}

TEST(CudaGemmPlan, AnOperandWithoutAUnitStrideIsRefusedByName) {
  std::vector<float> a(64), b(64), c(64);
  GemmPlan plan;
  std::string why;
  // A read every other element both ways: cuBLAS cannot.
  EXPECT_FALSE(planGemm(1, 2, 2, 2, {a.data(), 0, 8, 2}, {b.data(), 0, 2, 1},
                        {c.data(), 0, 2, 1}, plan, why));
  EXPECT_NE(why.find("A (2 x 2) has strides 8, 2"), std::string::npos) << why;
  EXPECT_FALSE(planGemm(1, 2, 2, 2, {a.data(), 0, 2, 1}, {b.data(), 0, 2, 1},
                        {c.data(), 0, 4, 2}, plan, why));
  EXPECT_NE(why.find("C (2 x 2)"), std::string::npos) << why;
}

TEST(CudaLibraries, CallsWithoutADriverReportInsteadOfCrashing) {
  std::string why;
  if (ready(why))
    GTEST_SKIP() << "a CUDA device is present: the no-GPU path is not taken";
  // No device memory exists here; the calls must not touch the pointers.
  float *p = reinterpret_cast<float *>(64);
  mxrt_cuda_sgemm(1, 2, 2, 2, p, 0, 2, 1, p, 0, 2, 1, p, 0, 2, 1, nullptr, 0, 0,
                  0, 0);
  mxrt_cuda_sconv2d(1, 1, 4, 4, 1, 4, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, p, p,
                    nullptr, p, 0);
  mxrt_cuda_sconv2d_backward(1, 1, 4, 4, 1, 4, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, p,
                             p, p, p, p, 0);
  EXPECT_FALSE(synchronize(why));
  EXPECT_NE(why.find("libcuda"), std::string::npos) << why;
}

#ifdef MXRT_TEST_CUDA_HEADERS
/// sizeof of a function's result and of each parameter: what a call
/// through a pointer of the wrong type would get wrong.
template <typename R, typename... A>
constexpr std::array<size_t, sizeof...(A) + 1> shape(R (*)(A...)) {
  return {sizeof(R), sizeof(A)...};
}
template <typename F, typename G> constexpr bool sameShape(F f, G g) {
  auto a = shape(f);
  auto b = shape(g);
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i])
      return false;
  return true;
}
#define MXRT_EXPECT_SHAPE(api, member, real)                                   \
  static_assert(sameShape(decltype(api::member){}, &::real), #real)

MXRT_EXPECT_SHAPE(CublasApi, create, cublasCreate_v2);
MXRT_EXPECT_SHAPE(CublasApi, setMathMode, cublasSetMathMode);
MXRT_EXPECT_SHAPE(CublasApi, statusString, cublasGetStatusString);
MXRT_EXPECT_SHAPE(CublasApi, gemm, cublasSgemmStridedBatched_64);
MXRT_EXPECT_SHAPE(CudnnApi, create, cudnnCreate);
MXRT_EXPECT_SHAPE(CudnnApi, errorString, cudnnGetErrorString);
MXRT_EXPECT_SHAPE(CudnnApi, createTensor, cudnnCreateTensorDescriptor);
MXRT_EXPECT_SHAPE(CudnnApi, setTensor4d, cudnnSetTensor4dDescriptor);
MXRT_EXPECT_SHAPE(CudnnApi, createFilter, cudnnCreateFilterDescriptor);
MXRT_EXPECT_SHAPE(CudnnApi, setFilter4d, cudnnSetFilter4dDescriptor);
MXRT_EXPECT_SHAPE(CudnnApi, createConv, cudnnCreateConvolutionDescriptor);
MXRT_EXPECT_SHAPE(CudnnApi, setConv2d, cudnnSetConvolution2dDescriptor);
MXRT_EXPECT_SHAPE(CudnnApi, setGroupCount, cudnnSetConvolutionGroupCount);
MXRT_EXPECT_SHAPE(CudnnApi, setMathType, cudnnSetConvolutionMathType);
MXRT_EXPECT_SHAPE(CudnnApi, outputDim, cudnnGetConvolution2dForwardOutputDim);
MXRT_EXPECT_SHAPE(CudnnApi, forwardAlgo,
                  cudnnGetConvolutionForwardAlgorithm_v7);
MXRT_EXPECT_SHAPE(CudnnApi, dataAlgo,
                  cudnnGetConvolutionBackwardDataAlgorithm_v7);
MXRT_EXPECT_SHAPE(CudnnApi, filterAlgo,
                  cudnnGetConvolutionBackwardFilterAlgorithm_v7);
MXRT_EXPECT_SHAPE(CudnnApi, forward, cudnnConvolutionForward);
MXRT_EXPECT_SHAPE(CudnnApi, backwardData, cudnnConvolutionBackwardData);
MXRT_EXPECT_SHAPE(CudnnApi, backwardFilter, cudnnConvolutionBackwardFilter);

static_assert(int(::CUBLAS_OP_N) == CUBLAS_OP_N &&
              int(::CUBLAS_OP_T) == CUBLAS_OP_T);
static_assert(int(::CUBLAS_DEFAULT_MATH) == CUBLAS_DEFAULT_MATH &&
              int(::CUBLAS_TF32_TENSOR_OP_MATH) == CUBLAS_TF32_TENSOR_OP_MATH);
static_assert(int(::CUDNN_TENSOR_NCHW) == CUDNN_TENSOR_NCHW &&
              int(::CUDNN_DATA_FLOAT) == CUDNN_DATA_FLOAT &&
              int(::CUDNN_CROSS_CORRELATION) == CUDNN_CROSS_CORRELATION &&
              int(::CUDNN_TENSOR_OP_MATH) == CUDNN_TENSOR_OP_MATH &&
              int(::CUDNN_FMA_MATH) == CUDNN_FMA_MATH);
// The three perf structs share cudnnAlgoPerf's layout.
#define MXRT_EXPECT_PERF(T)                                                    \
  static_assert(sizeof(T) == sizeof(cudnnAlgoPerf) &&                          \
                    offsetof(T, algo) == offsetof(cudnnAlgoPerf, algo) &&      \
                    offsetof(T, status) == offsetof(cudnnAlgoPerf, status) &&  \
                    offsetof(T, memory) == offsetof(cudnnAlgoPerf, memory),    \
                #T)
MXRT_EXPECT_PERF(cudnnConvolutionFwdAlgoPerf_t);
MXRT_EXPECT_PERF(cudnnConvolutionBwdDataAlgoPerf_t);
MXRT_EXPECT_PERF(cudnnConvolutionBwdFilterAlgoPerf_t);

TEST(CudaLibraries, DeclarationsMatchTheToolkitHeaders) {
  SUCCEED() << "checked at compile time against cublas_api.h and cudnn.h";
}
#endif

} // namespace
} // namespace mxrt::cuda
