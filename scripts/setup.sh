#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sets up a fresh Debian 12 machine for mxc and builds it: installs the
# toolchain (LLVM/MLIR 22, clang, lld, GoogleTest, NumPy, ONNX + its test
# data, PyTorch + torchvision for reference outputs, Fashion-MNIST, OpenBLAS
# for bench/perf_bench.py, Open MPI for the KVStore, clang's sanitizer and
# libFuzzer runtimes, pybind11 and pytest for the Python package) with apt,
# then configures and builds into ./build with clang++-22 + lld +
# libMLIR.so, and makes its Python package (build/python) importable by
# /usr/bin/python3 (a .pth file in the user site-packages).
# Idempotent: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build clang-22 lld-22 llvm-22 llvm-22-dev llvm-22-tools
          libmlir-22-dev mlir-22-tools libgtest-dev python3 python3-numpy
          libonnx-dev libprotobuf-dev python3-onnx libonnx-testdata
          python3-torch python3-torchvision dataset-fashion-mnist zlib1g-dev
          libopenblas-dev pkg-config time libopenmpi-dev openmpi-bin graphviz
          libclang-rt-22-dev pybind11-dev python3-dev python3-pytest
          qemu-user-static libc6-dev-arm64-cross libstdc++-12-dev-arm64-cross
          libgcc-12-dev-arm64-cross binutils-aarch64-linux-gnu)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  # libmlir-22-dev conflicts with other libmlir-NN-dev versions.
  others=$(dpkg-query -W -f='${Package}\n' 'libmlir-*-dev' 2>/dev/null | grep -v '^libmlir-22-dev$' || true)
  [ -n "$others" ] && $sudo apt-get remove -y $others
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi

if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -S . -B build \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DPython3_EXECUTABLE=/usr/bin/python3
fi
ninja -C build -j"$(nproc)"
# The build's Python package importable by Debian's python3 from anywhere, as
# `pip install --user -e` would make it: a .pth file in the user's
# site-packages naming build/python (remove it to undo).
site=$(/usr/bin/python3 -m site --user-site)
mkdir -p "$site"
echo "$PWD/build/python" > "$site/mxc-build.pth"
