#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sets everything up (scripts/setup.sh) and runs the whole test suite:
# GoogleTest (runtime, frontend readers) and lit (dialect, passes, tools,
# end-to-end models and operator fixtures) through CTest; with
# MXC_TEST_SANITIZERS=1 also the same suites in the AddressSanitizer /
# UndefinedBehaviorSanitizer and ThreadSanitizer builds (scripts/sanitizers.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
# The sanitizer builds, their tests and a short run of every fuzz target
# (docs/security.md) join here once a whole run of scripts/sanitizers.sh has
# passed on a clean clone: MXC_TEST_SANITIZERS=1 runs them now.
if [ "${MXC_TEST_SANITIZERS:-0}" = 1 ]; then
  scripts/sanitizers.sh
fi
