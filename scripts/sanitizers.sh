#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The sanitizer builds of issue #27 (docs/security.md), after scripts/setup.sh
# (./build must exist: its mxc compiles the model the ThreadSanitizer run
# uses):
#   build-asan  compiler and runtime with -DMXC_SANITIZE=address,undefined
#               -DMXC_FUZZ=ON: the GoogleTest suites, the fuzz targets'
#               regression inputs, the lit suites that run mxc and mxrun
#               (robustness, tools, e2e, train), leaks checked; then each
#               fuzz target for 15 s (MXC_FUZZ_SMOKE_SECONDS).
#   build-tsan  the runtime alone with -DMXC_SANITIZE=thread: its GoogleTest
#               suites and mxrt-stress (8 threads x 1000 runs of ResNet-20).
# Neither builds the Python package: its extensions load into an interpreter
# that is not built with the sanitizers.
# Any report fails the run. `scripts/sanitizers.sh asan` or `... tsan` runs
# one of them.
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}
jobs=$(nproc)
common=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
        -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22
        -DLLVM_USE_LINKER=lld -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir
        -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
        -DPython3_EXECUTABLE=/usr/bin/python3
        -DMXC_ARM64_RUNTIME=OFF) # the plain build's ARM runtime is tested
# Every finding stops the program with a non-zero exit (the builds also
# pass -fno-sanitize-recover=all).
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1:detect_stack_use_after_return=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Open MPI is not built with the sanitizer: scripts/tsan.supp leaves its
# internals out (each line says why).
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/scripts/tsan.supp"

if [ "$which" = all ] || [ "$which" = asan ]; then
  # One build for the sanitized tests and the fuzz targets (-DMXC_FUZZ=ON:
  # libFuzzer programs, which CTest runs over their regression inputs).
  [ -f build-asan/build.ninja ] || cmake "${common[@]}" -S . -B build-asan \
    -DMXC_SANITIZE=address,undefined -DMXC_FUZZ=ON -DMXC_BUILD_PYTHON=OFF
  ninja -C build-asan -j"$jobs"
  # GoogleTest suites and the fuzz targets' regression inputs. The kernels
  # run once, on the machine's instruction set with their own choice of
  # algorithm; their avx2 / portable copies and the forced-algorithm reruns
  # (.avx512.winograd2 ...) run in the plain build only (the same code in
  # other intrinsics or other tile sizes, most of the sanitized time). Open
  # MPI does not free what it allocates at MPI_Finalize: the distributed
  # KVStore tests (mpirun workers) run without leak checking.
  ctest --test-dir build-asan --output-on-failure -j"$jobs" \
    -E '^lit$|[.](avx2|portable)|[.]avx512[.]|DistKVStore'
  ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 ctest --test-dir build-asan \
    --output-on-failure -j"$jobs" -R DistKVStore
  # The lit suites that drive the sanitized mxc, mxrun and libmxrt. Python
  # tests that load libmxrt into the interpreter (ctypes) are left out: the
  # interpreter is not built with the sanitizer. The operator fixtures run
  # once (e2e/ops.test): their reruns with the naive memory plan and on two
  # threads compile through the same sanitized code, and TSan's stress run
  # below covers the thread pool. e2e/onnx-export.test (every fixture
  # written as ONNX and compiled again) runs in the plain build; the
  # sanitized converter runs in tools/mxc/emit-onnx.test.
  /usr/lib/llvm-22/bin/lit -sv \
    --filter-out 'e2e/ops-(naive-plan|parallel)|e2e/onnx-export' \
    build-asan/test/robustness build-asan/test/tools build-asan/test/e2e \
    build-asan/test/train
  # A short run of every fuzz target (scripts/fuzz.sh TARGET 600 is the long
  # one).
  # A fixed seed: the smoke explores the same inputs on every run, so that
  # CI fails for a change, not by chance (the long runs use random seeds).
  MXC_FUZZ_BUILD=$PWD/build-asan MXC_FUZZ_SEED=${MXC_FUZZ_SEED:-1} \
    scripts/fuzz.sh all "${MXC_FUZZ_SMOKE_SECONDS:-15}"
fi

if [ "$which" = all ] || [ "$which" = tsan ]; then
  [ -f build-tsan/build.ninja ] || cmake "${common[@]}" -S . -B build-tsan \
    -DMXC_SANITIZE=thread -DMXC_BUILD_COMPILER=OFF -DMXC_BUILD_PYTHON=OFF
  ninja -C build-tsan -j"$jobs"
  # The kernels once, as in the ASan build (their thread pool is the same
  # for every ISA and algorithm).
  ctest --test-dir build-tsan --output-on-failure -j"$jobs" \
    -E '[.](avx2|portable)|[.]avx512[.]'
  model=build-tsan/stress/libresnet20.so
  mkdir -p build-tsan/stress
  build/bin/mxc ../shared/testdata/mxnet/cifar_resnet20_v1-symbol.json \
    --params ../shared/testdata/mxnet/cifar_resnet20_v1-0000.params \
    --input data=1x3x32x32 -o "$model"
  # The model links the sanitized libmxrt of build-tsan (the same soname).
  LD_LIBRARY_PATH=build-tsan/lib build-tsan/bin/mxrt-stress "$model" \
    --threads 8 --runs 1000
fi
