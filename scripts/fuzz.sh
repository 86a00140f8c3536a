#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs mxc's libFuzzer targets (fuzz/, issue #27).
#
# Usage: scripts/fuzz.sh TARGET SECONDS   run one target for SECONDS
#        scripts/fuzz.sh all SECONDS      run every target in turn (CI smoke)
#        scripts/fuzz.sh --list           the targets, one a line
#
# Builds ./build-fuzz (or the folder MXC_FUZZ_BUILD names, e.g. build-asan
# in CI) first if needed (clang-22, -DMXC_SANITIZE=address,
# undefined -DMXC_FUZZ=ON; incremental; MXC_FUZZ_JOBS sets ninja's -j, 2 by
# default; MXC_FUZZ_NO_BUILD=1 runs the programs already built;
# MXC_FUZZ_SEED=N fixes libFuzzer's seed, as CI's smoke does). The working
# corpus grows in build-fuzz/corpus/TARGET, seeded from fuzz/corpus/TARGET
# and the test data (gathered into build-fuzz/seeds/TARGET on every run);
# findings (crash-*, leak-*, oom-*, timeout-*) land in
# build-fuzz/artifacts/TARGET/ and the log in build-fuzz/logs/TARGET.log.
# Exits non-zero when the fuzzer reports any finding. Reproduce one with
#   build-fuzz/bin/fuzz_TARGET build-fuzz/artifacts/TARGET/crash-...
# and when fixed, keep the (minimized: -minimize_crash=1) input as a
# regression test in fuzz/regressions/TARGET/ (CTest runs it in every build).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${MXC_FUZZ_BUILD:-$root/build-fuzz}
targets=(npy model_desc symbol_json params onnx compile)

usage() { sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

[ $# -ge 1 ] || usage
if [ "$1" = --list ]; then printf '%s\n' "${targets[@]}"; exit 0; fi
[ $# -eq 2 ] || usage
target=$1 seconds=$2
[[ $seconds =~ ^[0-9]+$ ]] || usage
if [ "$target" != all ] && ! printf '%s\n' "${targets[@]}" | grep -qx "$target"; then
  echo "fuzz.sh: unknown target '$target' (scripts/fuzz.sh --list)" >&2
  exit 2
fi

configure() {
  [ -f "$build/build.ninja" ] && return
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLLVM_USE_LINKER=lld \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DPython3_EXECUTABLE=/usr/bin/python3 \
    -DMXC_SANITIZE=address,undefined -DMXC_FUZZ=ON -DMXC_BUILD_TESTS=OFF
}

# copy_seeds DEST MAX_BYTES FILES...: the files no larger than MAX_BYTES,
# named after their paths so that equal base names do not collide.
copy_seeds() {
  local dest=$1 max=$2 file name
  shift 2
  for file in "$@"; do
    [ -f "$file" ] && [ "$(stat -c %s "$file")" -le "$max" ] || continue
    name=${file#"$root"/}
    name=${name//\//_}
    cp "$file" "$dest/$name"
  done
}

# Seeds from the test data, beyond the committed fuzz/corpus/TARGET.
gather_seeds() {
  local t=$1 dest=$build/seeds/$1
  rm -rf "$dest"
  mkdir -p "$dest"
  shopt -s nullglob globstar
  local shared=$root/../shared/testdata/mxnet
  local onnx=/usr/share/libonnx-testdata/data
  case $t in
  npy)
    copy_seeds "$dest" 65536 "$root"/test/runtime/data/*.npy \
      "$root"/test/e2e/**/*.npy "$shared"/*.npy ;;
  params)
    copy_seeds "$dest" 65536 "$root"/test/**/*.params "$shared"/*.params ;;
  symbol_json)
    copy_seeds "$dest" 65536 "$root"/test/**/*.json "$root"/examples/models/*.json \
      "$shared"/*.json ;;
  onnx)
    copy_seeds "$dest" 16384 "$onnx"/node/*/model.onnx ;;
  compile)
    # The input-shape line of each case (its case.json) over its symbol JSON.
    /usr/bin/python3 - "$dest" "$root"/test/e2e/*/*/ <<'PY'
import json, os, sys
dest = sys.argv[1]
for case in sys.argv[2:]:
    try:
        inputs = json.load(open(os.path.join(case, "case.json")))["inputs"]
        text = open(os.path.join(case, "symbol.json"), "rb").read()
    except (OSError, KeyError, ValueError):
        continue
    line = " ".join(f"{k}={'x'.join(map(str, v)) if v else 'scalar'}"
                    for k, v in inputs.items())
    name = "_".join(case.rstrip("/").split("/")[-2:])
    with open(os.path.join(dest, name + ".txt"), "wb") as out:
        out.write(line.encode() + b"\n" + text)
PY
    ;;
  esac
}

run_target() {
  local t=$1 timeout max_len dict
  case $t in
  npy | model_desc) timeout=10 max_len=4096 ;;
  symbol_json | params) timeout=10 max_len=65536 ;;
  onnx) timeout=30 max_len=16384 ;;
  compile) timeout=60 max_len=16384 ;;
  esac
  dict=$root/fuzz/dicts/$t.dict
  local corpus=$build/corpus/$t artifacts=$build/artifacts/$t log=$build/logs/$t.log
  mkdir -p "$corpus" "$artifacts" "$build/logs"
  gather_seeds "$t"
  local before
  before=$(find "$artifacts" -type f | wc -l)
  echo "== fuzz_$t for ${seconds}s (log: ${log#"$root"/})"
  local args=(-max_total_time="$seconds" -rss_limit_mb=2048
    -timeout="$timeout" -max_len="$max_len" -detect_leaks=1
    -print_final_stats=1 -artifact_prefix="$artifacts/")
  [ -f "$dict" ] && args+=(-dict="$dict")
  # A fixed seed (CI's smoke runs): the same mutations every run, so that
  # a finding there comes from a change to the code, not from chance.
  [ -n "${MXC_FUZZ_SEED:-}" ] && args+=(-seed="$MXC_FUZZ_SEED")
  local status=0
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    "$build/bin/fuzz_$t" "${args[@]}" "$corpus" "$root/fuzz/corpus/$t" \
    "$build/seeds/$t" >"$log" 2>&1 || status=$?
  grep -E '^(#[0-9]+[[:space:]]+DONE|Done [0-9]+ runs|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" || true
  local after
  after=$(find "$artifacts" -type f | wc -l)
  if [ "$status" -ne 0 ] || [ "$after" -ne "$before" ]; then
    echo "fuzz_$t: FINDING (exit $status); see ${log#"$root"/} and ${artifacts#"$root"/}/" >&2
    grep -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY' "$log" | head -5 >&2 || true
    return 1
  fi
  echo "fuzz_$t: no findings"
}

run=("$target")
[ "$target" = all ] && run=("${targets[@]}")
if [ -z "${MXC_FUZZ_NO_BUILD:-}" ]; then
  configure
  ninja -C "$build" -j"${MXC_FUZZ_JOBS:-2}" "${run[@]/#/fuzz_}"
fi
failed=()
for t in "${run[@]}"; do
  run_target "$t" || failed+=("$t")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: findings in: ${failed[*]}" >&2
  exit 1
fi
