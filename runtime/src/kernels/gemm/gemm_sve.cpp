// SPDX-License-Identifier: Apache-2.0
//
// The float32 GEMM family (family.inc) for SVE at one vector length: CMake
// compiles this file twice, with -march=armv8.2-a+sve and
// -msve-vector-bits=256 or 512, and gemm.cpp's dispatch picks the copy whose
// length the CPU has (docs/arm.md). Everything here has internal linkage but
// sveTarget<Bits>: no function compiled for SVE can stand in for one that
// other files share.

#include "epilogue.h"
#include "gemm_internal.h"
#include "kernels/isa/sve.h"

#include "kernels/isa/target.h"
#include "mxrt/kernels.h"
#include "threadpool.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#if !defined(__ARM_FEATURE_SVE_BITS) || __ARM_FEATURE_SVE_BITS == 0
#error "gemm_sve.cpp is built with -march=...+sve -msve-vector-bits=N"
#endif

namespace mxrt {
namespace {
namespace sve {
using Isa = isa::Sve;
#include "family.inc"
} // namespace sve
} // namespace

template <> const Target &sveTarget<__ARM_FEATURE_SVE_BITS>() {
  static const Target kernels = [] {
    Target t = MXRT_TARGET(sve);
    t.isa = __ARM_FEATURE_SVE_BITS == 512 ? "sve512" : "sve256";
    return t;
  }();
  return kernels;
}

} // namespace mxrt
