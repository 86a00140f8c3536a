#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sets everything up (scripts/setup.sh) and runs the whole test suite:
# GoogleTest (runtime, frontend readers) and lit (dialect, passes, tools,
# end-to-end models and operator fixtures) through CTest, the ARM runtime's
# tests under qemu (scripts/arm-tests.sh), then the same
# suites in the AddressSanitizer / UndefinedBehaviorSanitizer and
# ThreadSanitizer builds and a short run of every fuzz target
# (scripts/sanitizers.sh, docs/security.md). MXC_TEST_SANITIZERS=0 skips
# the sanitizer builds (about half of CI's time).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
# The runtime cross-built for 64-bit ARM, under qemu (docs/arm.md).
scripts/arm-tests.sh
if [ "${MXC_TEST_SANITIZERS:-1}" != 0 ]; then
  scripts/sanitizers.sh
fi
