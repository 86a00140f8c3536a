// SPDX-License-Identifier: Apache-2.0
//
// Which instruction set the runtime's kernels run on: the best this CPU has,
// or the one MXRT_KERNEL_ISA forces (avx512, avx2 or portable on x86-64; sve,
// neon or portable on 64-bit ARM; for tests and measurements). Chosen once, by
// kernels/gemm/gemm.cpp's dispatch; every family follows it. Not installed.

#ifndef MXRT_SRC_KERNELS_ISA_ISA_H
#define MXRT_SRC_KERNELS_ISA_ISA_H

namespace mxrt {

/// "avx512", "avx2", "sve512", "sve256", "neon" or "portable".
const char *kernelIsa();

} // namespace mxrt

#endif // MXRT_SRC_KERNELS_ISA_ISA_H
