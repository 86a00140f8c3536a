#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sets everything up (scripts/setup.sh), then the main job: compiles the
# bundled LeNet (MXNet symbol JSON + .params) into a shared library with mxc
# and runs it with mxrun; with ../shared/testdata present it also compiles
# the real CIFAR-10 ResNet-20 and runs the C example app on a photo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
out=build/demo
mkdir -p "$out"

echo "== mxc: compile the bundled LeNet =="
lenet=test/e2e/models/lenet
build/bin/mxc "$lenet/symbol.json" --params "$lenet/model.params" \
  --input data=2x1x28x28 -o "$out/liblenet.so"
echo "wrote $out/liblenet.so and $out/lenet.h"
echo "== mxrun: run it =="
build/bin/mxrun "$out/liblenet.so" --input data="$lenet/in_data.npy" \
  --output-dir "$out/lenet-out" --bench 20

data=../shared/testdata/mxnet
if [ -d "$data" ]; then
  echo "== CIFAR-10 ResNet-20 (real weights) + examples/classify =="
  build/bin/mxc "$data/cifar_resnet20_v1-symbol.json" \
    --params "$data/cifar_resnet20_v1-0000.params" \
    --input data=1x3x32x32 -o "$out/libresnet20.so"
  clang-22 -std=c11 -O2 -I"$out" -Iruntime/include examples/classify/classify.c \
    -L"$out" -lresnet20 -Lbuild/lib -lmxrt -Wl,-rpath,"$PWD/$out:$PWD/build/lib" \
    -o "$out/classify"
  "$out/classify" "$data/cifar_resnet20_v1_ref_in.npy"
fi
