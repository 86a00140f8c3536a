#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The runtime's tests cross-built for 64-bit ARM (build/aarch64, made by the
# main build where Debian's cross C library is installed; docs/arm.md), run
# under qemu-aarch64: the unit tests and the kernel tests on each
# instruction set's emulated core (test/runtime/CMakeLists.txt). By default
# the short set CI runs (about 3 minutes on 2 cores): all but the
# kernels' plain C++ copy (which x86 CI tests too) and the forced-Winograd
# reruns. `scripts/arm-tests.sh --long` runs everything (about 12 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MXC_ARM64_BUILD:-build/aarch64}
if [ ! -f "$build/CTestTestfile.cmake" ]; then
  echo "arm-tests: no ARM runtime build in $build (scripts/setup.sh makes it" \
       "where crossbuild-essential-arm64 is installed)" >&2
  exit 1
fi
exclude='^mxrt-kernel-tests[.](portable[.]|.*[.]winograd[24]$)'
[ "${1:-}" = --long ] && exclude='^$'
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" -E "$exclude"
