// SPDX-License-Identifier: Apache-2.0
//
// cuBLAS and cuDNN as libmxrt calls them: loaded on first use (dlopen of
// libcublas.so.13, libcudnn.so.9), the few entry points and types declared
// here, as cuda.cpp does for the driver (test/runtime/CudaLibrariesTest.cpp
// checks these declarations against the toolkit's headers where it is
// installed). Also the GEMM plan: a strided row-major product as one
// column-major cuBLAS call, kept apart from the calls so that it is tested
// on machines without a GPU.
#ifndef MXRT_SRC_CUDA_LIBRARIES_H
#define MXRT_SRC_CUDA_LIBRARIES_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace mxrt::cuda {

// cublas_api.h
using cublasHandle_t = struct cublasContext *;
using cublasStatus_t = int;
enum cublasOperation_t : int { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
enum cublasMath_t : int {
  CUBLAS_DEFAULT_MATH = 0,
  CUBLAS_TF32_TENSOR_OP_MATH = 3
};

// cudnn_graph.h, cudnn_ops.h, cudnn_cnn.h
using cudnnHandle_t = struct cudnnContext *;
using cudnnTensorDescriptor_t = struct cudnnTensorStruct *;
using cudnnFilterDescriptor_t = struct cudnnFilterStruct *;
using cudnnConvolutionDescriptor_t = struct cudnnConvolutionStruct *;
using cudnnStatus_t = int;
enum cudnnTensorFormat_t : int { CUDNN_TENSOR_NCHW = 0 };
enum cudnnDataType_t : int { CUDNN_DATA_FLOAT = 0 };
enum cudnnConvolutionMode_t : int { CUDNN_CROSS_CORRELATION = 1 };
enum cudnnMathType_t : int { CUDNN_TENSOR_OP_MATH = 1, CUDNN_FMA_MATH = 3 };
/// cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t (one layout).
struct cudnnAlgoPerf {
  int algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
};

/// The cuBLAS entry points libmxrt binds (by their exported names:
/// cublasCreate_v2, cublasSetMathMode, cublasGetStatusString,
/// cublasSgemmStridedBatched_64).
struct CublasApi {
  cublasStatus_t (*create)(cublasHandle_t *);
  cublasStatus_t (*setMathMode)(cublasHandle_t, cublasMath_t);
  const char *(*statusString)(cublasStatus_t);
  cublasStatus_t (*gemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                         int64_t, int64_t, int64_t, const float *,
                         const float *, int64_t, long long, const float *,
                         int64_t, long long, const float *, float *, int64_t,
                         long long, int64_t);
};

/// The cuDNN entry points libmxrt binds (cudnnCreate, cudnnGetErrorString,
/// cudnnCreate/SetTensor4dDescriptor, ...; see dnn() in
/// cuda_libraries.cpp).
struct CudnnApi {
  cudnnStatus_t (*create)(cudnnHandle_t *);
  const char *(*errorString)(cudnnStatus_t);
  cudnnStatus_t (*createTensor)(cudnnTensorDescriptor_t *);
  cudnnStatus_t (*setTensor4d)(cudnnTensorDescriptor_t, cudnnTensorFormat_t,
                               cudnnDataType_t, int, int, int, int);
  cudnnStatus_t (*createFilter)(cudnnFilterDescriptor_t *);
  cudnnStatus_t (*setFilter4d)(cudnnFilterDescriptor_t, cudnnDataType_t,
                               cudnnTensorFormat_t, int, int, int, int);
  cudnnStatus_t (*createConv)(cudnnConvolutionDescriptor_t *);
  cudnnStatus_t (*setConv2d)(cudnnConvolutionDescriptor_t, int, int, int, int,
                             int, int, cudnnConvolutionMode_t, cudnnDataType_t);
  cudnnStatus_t (*setGroupCount)(cudnnConvolutionDescriptor_t, int);
  cudnnStatus_t (*setMathType)(cudnnConvolutionDescriptor_t, cudnnMathType_t);
  cudnnStatus_t (*outputDim)(cudnnConvolutionDescriptor_t,
                             cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,
                             int *, int *, int *, int *);
  cudnnStatus_t (*forwardAlgo)(cudnnHandle_t, cudnnTensorDescriptor_t,
                               cudnnFilterDescriptor_t,
                               cudnnConvolutionDescriptor_t,
                               cudnnTensorDescriptor_t, int, int *,
                               cudnnAlgoPerf *);
  cudnnStatus_t (*dataAlgo)(cudnnHandle_t, cudnnFilterDescriptor_t,
                            cudnnTensorDescriptor_t,
                            cudnnConvolutionDescriptor_t,
                            cudnnTensorDescriptor_t, int, int *,
                            cudnnAlgoPerf *);
  cudnnStatus_t (*filterAlgo)(cudnnHandle_t, cudnnTensorDescriptor_t,
                              cudnnTensorDescriptor_t,
                              cudnnConvolutionDescriptor_t,
                              cudnnFilterDescriptor_t, int, int *,
                              cudnnAlgoPerf *);
  cudnnStatus_t (*forward)(cudnnHandle_t, const void *, cudnnTensorDescriptor_t,
                           const void *, cudnnFilterDescriptor_t, const void *,
                           cudnnConvolutionDescriptor_t, int, void *, size_t,
                           const void *, cudnnTensorDescriptor_t, void *);
  cudnnStatus_t (*backwardData)(cudnnHandle_t, const void *,
                                cudnnFilterDescriptor_t, const void *,
                                cudnnTensorDescriptor_t, const void *,
                                cudnnConvolutionDescriptor_t, int, void *,
                                size_t, const void *, cudnnTensorDescriptor_t,
                                void *);
  cudnnStatus_t (*backwardFilter)(cudnnHandle_t, const void *,
                                  cudnnTensorDescriptor_t, const void *,
                                  cudnnTensorDescriptor_t, const void *,
                                  cudnnConvolutionDescriptor_t, int, void *,
                                  size_t, const void *, cudnnFilterDescriptor_t,
                                  void *);
};

/// One column-major cuBLAS GEMM (cublasSgemmStridedBatched's arguments):
/// for each of `batch` problems, C = op(A) op(B) (+ C when accumulating),
/// C m x n with element (i, j) at c[i + j ldc].
struct GemmPlan {
  cublasOperation_t transA = CUBLAS_OP_N, transB = CUBLAS_OP_N;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  const float *a = nullptr, *b = nullptr;
  float *c = nullptr;
  int64_t lda = 1, ldb = 1, ldc = 1;
  int64_t strideA = 0, strideB = 0, strideC = 0;
};

/// A strided row-major view: element (i, j) of problem q at p[q bs + i rs +
/// j cs] (mxrt_kernel_sgemm's operands).
struct StridedMatrix {
  const float *p;
  int64_t bs, rs, cs;
};

/// The cuBLAS call computing C = A B for the views `a` (m x k), `b` (k x n)
/// and `c` (m x n), or false with the reason in `why` (an operand with no
/// unit stride, which cuBLAS cannot read: "A (m x k) has strides ...").
bool planGemm(int64_t batch, int64_t m, int64_t n, int64_t k, StridedMatrix a,
              StridedMatrix b, StridedMatrix c, GemmPlan &plan,
              std::string &why);

} // namespace mxrt::cuda

#endif // MXRT_SRC_CUDA_LIBRARIES_H
