// SPDX-License-Identifier: Apache-2.0
// MXRT_TARGET_BEGIN("feature,...") ... MXRT_TARGET_END: the functions
// defined between them are compiled for those instruction set features
// (clang's attribute push, GCC's target options), so that one translation
// unit holds a kernel family's copy for each instruction set and picks one
// at run time. Not installed.

#ifndef MXRT_SRC_KERNELS_ISA_TARGET_H
#define MXRT_SRC_KERNELS_ISA_TARGET_H

#define MXRT_PRAGMA(x) _Pragma(#x)
#if defined(__clang__)
#define MXRT_TARGET_BEGIN(features)                                            \
  MXRT_PRAGMA(clang attribute push(__attribute__((target(features))),          \
                                   apply_to = function))
#define MXRT_TARGET_END MXRT_PRAGMA(clang attribute pop)
#else
#define MXRT_TARGET_BEGIN(features)                                            \
  MXRT_PRAGMA(GCC push_options) MXRT_PRAGMA(GCC target(features))
#define MXRT_TARGET_END MXRT_PRAGMA(GCC pop_options)
#endif

#endif // MXRT_SRC_KERNELS_ISA_TARGET_H
