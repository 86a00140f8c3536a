# SPDX-License-Identifier: Apache-2.0
# Cross-compiles the runtime (and apps, and mxc_add_model() libraries) for
# 64-bit ARM Linux on an x86-64 Debian machine: clang with --target and lld,
# Debian's crossbuild-essential-arm64 for the C and C++ libraries, and
# qemu-aarch64 to run the tests (docs/arm.md).
#
#   cmake -G Ninja -B build-arm64 \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#     -DMXC_BUILD_COMPILER=OFF
#
# MXC_ARM_CLANG picks another clang (default clang-22 / clang++-22 on the
# PATH); MXC_ARM_SYSROOT another target root (default /usr/aarch64-linux-gnu,
# where Debian's cross packages install).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(MXC_ARM_TRIPLE aarch64-linux-gnu)
if(NOT MXC_ARM_SYSROOT)
  set(MXC_ARM_SYSROOT /usr/${MXC_ARM_TRIPLE})
endif()
if(NOT MXC_ARM_CLANG)
  set(MXC_ARM_CLANG clang-22)
endif()
find_program(MXC_ARM_CC ${MXC_ARM_CLANG} REQUIRED)
find_program(MXC_ARM_CXX ${MXC_ARM_CLANG}++ clang++-22 REQUIRED)
set(CMAKE_C_COMPILER ${MXC_ARM_CC})
set(CMAKE_CXX_COMPILER ${MXC_ARM_CXX})
set(CMAKE_C_COMPILER_TARGET ${MXC_ARM_TRIPLE})
set(CMAKE_CXX_COMPILER_TARGET ${MXC_ARM_TRIPLE})
set(CMAKE_ASM_COMPILER_TARGET ${MXC_ARM_TRIPLE})
# Debian's cross libraries live in /usr/aarch64-linux-gnu and
# /usr/lib/gcc-cross; clang finds both from the triple.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-fuse-ld=lld")
find_program(MXC_ARM_AR NAMES llvm-ar-22 llvm-ar ${MXC_ARM_TRIPLE}-ar)
find_program(MXC_ARM_NM NAMES ${MXC_ARM_TRIPLE}-nm llvm-nm-22 llvm-nm)
find_program(MXC_ARM_STRIP NAMES ${MXC_ARM_TRIPLE}-strip llvm-strip-22)
set(CMAKE_AR ${MXC_ARM_AR} CACHE FILEPATH "")
set(CMAKE_NM ${MXC_ARM_NM} CACHE FILEPATH "")
set(CMAKE_STRIP ${MXC_ARM_STRIP} CACHE FILEPATH "")

set(CMAKE_FIND_ROOT_PATH ${MXC_ARM_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
# Packages (find_package(mxc)) also from CMAKE_PREFIX_PATH outside the
# target root: a cross runtime is installed in lib/aarch64-linux-gnu there.
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# Tests (and try_run) run under user-mode emulation. MXC_ARM_QEMU_CPU picks
# the emulated core (default: max, every feature qemu has, SVE at 512 bits).
find_program(MXC_ARM_QEMU NAMES qemu-aarch64-static qemu-aarch64)
if(MXC_ARM_QEMU)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${MXC_ARM_QEMU} -L ${MXC_ARM_SYSROOT})
endif()
