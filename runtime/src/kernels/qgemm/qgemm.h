// SPDX-License-Identifier: Apache-2.0
// The 8-bit integer GEMM family's internals for tests and benches (its API
// is mxrt_kernel_qgemm_u8s8 in mxrt/kernels.h). Not installed.

#ifndef MXRT_SRC_KERNELS_QGEMM_QGEMM_H
#define MXRT_SRC_KERNELS_QGEMM_QGEMM_H

namespace mxrt {

/// The path mxrt_kernel_qgemm_u8s8 runs on this CPU: "vnni512", "avx2" or
/// "portable" (MXRT_KERNEL_ISA=avx2 or portable forces the lower ones).
const char *qgemmPath();

} // namespace mxrt

#endif // MXRT_SRC_KERNELS_QGEMM_QGEMM_H
