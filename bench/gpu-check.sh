#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The one check to run where a GPU is lent (issue #25, docs/cuda.md): every
# model compiled for `--target=cuda` against the same model compiled for
# the CPU, on the same seeded inputs (mxrun's), within 1e-3 relative; three
# training steps of MLP, LeNet and ResNet-20 likewise (the loss and every
# parameter after them); the CUDA lit tests; and, with --time, ResNet-18
# and ResNet-50 at batch 1 and 64 (mxrun --bench) beside PyTorch's CUDA
# forward where PyTorch sees the GPU; and an elementwise kernel (ReLU over 64M floats on device buffers,
# bench/gpu_elementwise.c) against cuMemcpyDtoD of the same bytes (goal: at
# least 0.8 of its bandwidth). Prints Markdown tables; exits 1 if a model
# disagrees or fails.
#
# Where there is no GPU it still compiles every model for CUDA (what can be
# checked here), says which device steps it skipped, and exits 0: run it on
# the CPU machines first, so that the lent minutes go to the GPU steps.
#
#   bench/gpu-check.sh [--build DIR] [--time] [--models a,b,...] [--no-lit]
#
# Needs a built tree (scripts/setup.sh or the README's build); about 2
# minutes of compiling on 16 cores, under 8 in all with --time.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build
time_models=0
run_lit=1
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --time) time_models=1; shift ;;
    --models) only="$2"; shift 2 ;;
    --no-lit) run_lit=0; shift ;;
    -h|--help) sed -n '3,22p' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown option $1" >&2; exit 2 ;;
  esac
done
mxc="$build/bin/mxc"
mxrun="$build/bin/mxrun"
for tool in "$mxc" "$mxrun"; do
  [ -x "$tool" ] || { echo "gpu-check: $tool is missing: build first (README)" >&2; exit 2; }
done
py=/usr/bin/python3
work=$(mktemp -d /tmp/gpu-check.XXXXXX)
trap 'rm -rf "$work"' EXIT

gpu=0
if [ -e /dev/nvidiactl ] && command -v nvidia-smi > /dev/null 2>&1; then
  gpu=1
  echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
else
  echo "GPU: none here: compiling for CUDA only; the runs, comparisons and timings are skipped"
fi
testdata=../shared/testdata

# name | model file | --params file or - | input NAME=SHAPE
models="
mlp|examples/models/mlp.json|-|data=4x784
lenet|examples/models/lenet.json|-|data=4x1x28x28
resnet20|$testdata/mxnet/cifar_resnet20_v1-symbol.json|$testdata/mxnet/cifar_resnet20_v1-0000.params|data=2x3x32x32
alexnet|examples/models/alexnet.json|-|data=2x3x224x224
resnet18|examples/models/resnet18_v1.json|-|data=2x3x224x224
mobilenet|examples/models/mobilenet.json|-|data=2x3x224x224
inception-bn|examples/models/inception-bn.json|-|data=2x3x224x224
"

# Whether model $name (file $file, input $input) is to be checked: asked
# for (--models) and present; prints the row of a missing one.
wanted() {
  if [ -n "$only" ] && ! printf ',%s,' "$only" | grep -q ",$name,"; then
    return 1
  fi
  if [ ! -f "$file" ]; then
    printf '| %s | %s | | | skipped: %s missing |\n' "$name" "$input" "$file"
    return 1
  fi
}

# Compiles model $name for CUDA into $1 (mxc's arguments after $2, its
# stderr file), its time in $seconds; prints the row and returns 1 when
# nothing more is to be done (the compile failed, or no GPU runs it).
compile_cuda() {
  local out=$1 err=$2 start
  shift 2
  start=$(date +%s.%N)
  if ! "$mxc" "$@" --target=cuda -o "$out" 2> "$err"; then
    printf '| %s | %s | | | **CUDA compile failed**: %s |\n' "$name" "$input" "$(head -c 200 "$err" | tr '\n' ' ')"
    failed=1
    return 1
  fi
  seconds=$("$py" -c "print($(date +%s.%N) - $start)")
  if [ $gpu -eq 0 ]; then
    printf '| %s | %s | %.1f | | compiled (no GPU to run it) |\n' "$name" "$input" "$seconds"
    return 1
  fi
}

# Runs $1_cpu.so and $1_cuda.so with mxrun (its options after $3), their
# outputs into $2.cpu and $2.cuda, with $3 = 1 their parameters after the
# run into $2.cpu.params and $2.cuda.params; prints the row and returns 1
# when one fails.
run_both() {
  local lib=$1 out=$2 save=$3 t
  shift 3
  for t in cpu cuda; do
    local extra=()
    [ "$save" = 1 ] && extra=(--save-params "$out.$t.params")
    if ! "$mxrun" "${lib}_$t.so" "$@" "${extra[@]}" --output-dir "$out.$t" > /dev/null 2> "$out.$t.err"; then
      printf '| %s | %s | %.1f | | **%s run failed**: %s |\n' "$name" "$input" "$seconds" "$t" "$(head -c 200 "$out.$t.err" | tr '\n' ' ')"
      failed=1
      return 1
    fi
  done
}

# The row of model $name: the largest difference between $1.cpu's and
# $1.cuda's outputs (and parameters, where $1.cpu.params exists) relative
# to the CPU's largest magnitude, and whether it is within 1e-3.
report_difference() {
  local diff
  diff=$(PYTHONPATH=bench "$py" - "$1.cpu" "$1.cuda" <<'EOF'
import os, sys
import numpy as np
from bench_util import read_params
worst = 0.0
def compare(a, b):
    global worst
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    worst = max(worst, np.abs(a - b).max() / max(np.abs(a).max(), 1e-30))
for f in sorted(os.listdir(sys.argv[1])):
    if f.endswith(".npy"):
        compare(np.load(os.path.join(sys.argv[1], f)), np.load(os.path.join(sys.argv[2], f)))
if os.path.exists(sys.argv[1] + ".params"):
    cpu = read_params(sys.argv[1] + ".params")
    cuda = read_params(sys.argv[2] + ".params")
    for name in cpu:
        compare(cpu[name], cuda[name])
print("%.2e" % worst)
EOF
)
  if "$py" -c "import sys; sys.exit(0 if float('$diff') <= 1e-3 else 1)"; then
    printf '| %s | %s | %.1f | %s | agrees |\n' "$name" "$input" "$seconds" "$diff"
  else
    printf '| %s | %s | %.1f | %s | **disagrees** |\n' "$name" "$input" "$seconds" "$diff"
    failed=1
  fi
}

failed=0
printf '\n| model | input | CUDA compile s | max rel. difference to CPU | result |\n|---|---|---:|---:|---|\n'
while IFS='|' read -r name file params input; do
  [ -n "$name" ] && wanted || continue
  args=("$file" --input "$input")
  [ "$params" = "-" ] || args+=(--params "$params")
  compile_cuda "$work/lib${name//-/_}_cuda.so" "$work/$name.cuda.err" "${args[@]}" || continue
  "$mxc" "${args[@]}" -o "$work/lib${name//-/_}_cpu.so"
  run_both "$work/lib${name//-/_}" "$work/$name" 0 || continue
  report_difference "$work/$name"
done <<< "$models"

# Training: three momentum steps of each model's train_step on the GPU
# against the CPU library's, from the same initial parameters and the same
# batch (seeded data, labels 0..9), compared on the loss and on every
# parameter after the steps.
train_models="
mlp|examples/models/mlp.json|-|data=8x784|-
lenet|examples/models/lenet.json|-|data=8x1x28x28|-
resnet20|$testdata/mxnet/cifar_resnet20_v1-symbol.json|$testdata/mxnet/cifar_resnet20_v1-0000.params|data=8x3x32x32|--loss softmax-ce
"
"$py" -c "import numpy as np; np.save('$work/label.npy', (np.arange(8) % 10).astype(np.float32))"
printf '\n| training (3 steps) | input | CUDA compile s | max rel. difference to CPU | result |\n|---|---|---:|---:|---|\n'
while IFS='|' read -r name file params input extra; do
  [ -n "$name" ] && wanted || continue
  args=("$file" --input "$input" --train --optimizer momentum)
  [ "$params" = "-" ] || args+=(--params "$params")
  if [ "$extra" != "-" ]; then
    read -r -a more <<< "$extra"
    args+=("${more[@]}")
  fi
  lib="$work/lib${name//-/_}_train"
  compile_cuda "${lib}_cuda.so" "$work/$name.train.err" "${args[@]}" || continue
  "$mxc" "${args[@]}" -o "${lib}_cpu.so"
  run_both "$lib" "$work/$name.train" 1 --function train_step --steps 3 \
    --input "softmax_label=$work/label.npy" || continue
  report_difference "$work/$name.train"
done <<< "$train_models"

# The CUDA lit tests (fat binary contents, the no-GPU and CLI errors).
if [ $run_lit -eq 1 ] && { command -v lit-22 > /dev/null 2>&1 || [ -x /usr/lib/llvm-22/bin/lit ]; }; then
  lit=$(command -v lit-22 || echo /usr/lib/llvm-22/bin/lit)
  if "$lit" -q "$build/test/cuda" "$build/test/passes/cuda-pipeline.mlir" "$build/test/passes/gpu-tile-loops.mlir"; then
    echo; echo "CUDA lit tests: passed"
  else
    echo; echo "CUDA lit tests: **failed**"; failed=1
  fi
fi

# An elementwise kernel's bandwidth against the device-to-device copy's
# (the goal: at least 0.8), on device buffers in place.
n=$((64 * 1024 * 1024))
cat > "$work/relu.json" <<'EOF'
{"nodes": [{"op": "null", "name": "data", "inputs": []},
           {"op": "Activation", "name": "relu", "attrs": {"act_type": "relu"},
            "inputs": [[0, 0, 0]]}],
 "arg_nodes": [0], "heads": [[1, 0, 0]]}
EOF
# The toolkit's headers and libcuda stub: the first candidate with cuda.h
# (ptxas on the PATH may be a wrapper script, so links are resolved and the
# usual install folders tried after it), as mxc's own search.
cuda_home=
for dir in "${CUDA_HOME:-}" "${CUDA_PATH:-}" "${CUDA_ROOT:-}" \
    "$(dirname "$(dirname "$(readlink -f "$(command -v ptxas || echo /nonexistent)")")")" \
    /usr/local/cuda $(ls -d /usr/local/cuda-* 2>/dev/null | sort -r) /opt/cuda; do
  if [ -n "$dir" ] && [ -f "$dir/include/cuda.h" ]; then cuda_home=$dir; break; fi
done
if "$mxc" "$work/relu.json" --input "data=$n" --target=cuda -o "$work/librelu.so" &&
   cc -O2 -Iruntime/include -I"$cuda_home/include" bench/gpu_elementwise.c \
     -L"$build/lib" -lmxrt -L"$cuda_home/lib64/stubs" -lcuda \
     -Wl,-rpath,"$(cd "$build/lib" && pwd)" -o "$work/gpu_elementwise"; then
  if [ $gpu -eq 1 ]; then
    echo; "$work/gpu_elementwise" "$work/librelu.so" "$n" || failed=1
  else
    echo; echo "elementwise bandwidth: built, not run (no GPU)"
  fi
else
  echo; echo "elementwise bandwidth: **build failed**"; failed=1
fi

if [ $time_models -eq 1 ]; then
  if [ $gpu -eq 0 ]; then
    echo; echo "timings: skipped (no GPU)"
  else
    printf '\n| model | batch | mxc CUDA ms | PyTorch CUDA ms | mxc / PyTorch |\n|---|---:|---:|---:|---:|\n'
    for net in resnet18_v1 resnet-50; do
      for batch in 1 64; do
        lib="$work/lib${net//[-.]/_}_b$batch.so"
        "$mxc" "examples/models/$net.json" --input "data=${batch}x3x224x224" --target=cuda -o "$lib"
        ours=$("$mxrun" "$lib" --bench 20 --json | "$py" -c "import json,sys; print('%.2f' % json.load(sys.stdin)['bench']['median_ms'])")
        theirs=$("$py" - "$net" "$batch" <<'EOF'
import sys, time
try:
    import torch, torchvision
    if not torch.cuda.is_available():
        raise RuntimeError
except Exception:
    print("-"); sys.exit(0)
net = {"resnet18_v1": torchvision.models.resnet18,
       "resnet-50": torchvision.models.resnet50}[sys.argv[1]]().cuda().eval()
x = torch.randn(int(sys.argv[2]), 3, 224, 224, device="cuda")
times = []
with torch.no_grad():
    for i in range(23):
        torch.cuda.synchronize(); t = time.perf_counter(); net(x)
        torch.cuda.synchronize(); times.append(1e3 * (time.perf_counter() - t))
times = sorted(times[3:])
print("%.2f" % times[len(times) // 2])
EOF
)
        ratio=$([ "$theirs" = "-" ] && echo "-" || "$py" -c "print('%.2f' % ($ours / $theirs))")
        printf '| %s | %d | %s | %s | %s |\n' "$net" "$batch" "$ours" "$theirs" "$ratio"
      done
    done
  fi
fi
exit $failed
