#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""What dynamic dimensions cost. --model resnet18: torchvision's ResNet-18
exported with a dynamic batch axis, compiled once by mxc with no --input
(variants for 1, 8 and 64 rows); --model fcn: the fully convolutional network of
test/models/make_fcn_onnx.py exported with dynamic batch, height and width
(dynamic extents in the code). Each against libraries compiled for one fixed
size each, timed by `mxrun --bench` at the same size in interleaved rounds
(every library of every row, then the next round; each time is the median of
its rounds' medians). Also each build's compile time and library size. Prints
Markdown (docs/dynamic-shapes.md).

  /usr/bin/python3 bench/dynamic_bench.py [--model resnet18] [--batches 1,3,64]
      [--threads 1] [--buckets 1,8,64] [--rounds 7] [--seconds 1.0]
  /usr/bin/python3 bench/dynamic_bench.py --model fcn
      [--batches 1x224x224,1x480x640] ...
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_util  # noqa: E402  (sets OpenBLAS up before torch loads)
import perf_models  # noqa: E402
import torch  # noqa: E402


def compile_lib(args, onnx, out, extra):
    start = time.perf_counter()
    subprocess.run([args.mxc, onnx, "-o", out, "--quiet"] + extra, check=True)
    return time.perf_counter() - start, os.path.getsize(out)


def bench(args, lib, npy, runs):
    out = subprocess.run(
        [args.mxrun, lib, "--input", f"{args.input}={npy}", "--bench", str(runs),
         "--warmup", "2", "--threads", str(args.threads), "--json"],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)["bench"]["median_ms"]


def main():
    p = bench_util.tool_parser(__doc__)
    p.add_argument("--model", choices=["resnet18", "fcn"], default="resnet18")
    p.add_argument("--batches", default="",
                   help="batches (resnet18, default 1,3,64) or BxHxW sizes (fcn, "
                   "default 1x224x224,1x480x640)")
    p.add_argument("--buckets", default="",
                   help="the dynamic library's --buckets (default: mxc's)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--seconds", type=float, default=1.0,
                   help="time per library and row, spread over the rounds")
    args = p.parse_args()
    fcn = args.model == "fcn"
    args.input = "image" if fcn else "input"
    batches = (args.batches or ("1x224x224,1x480x640" if fcn else "1,3,64")).split(",")
    # The input's shape for each row.
    shapes = {b: ((int(b.split("x")[0]), 3) + tuple(map(int, b.split("x")[1:]))
                  if fcn else (int(b), 3, 224, 224)) for b in batches}
    work = tempfile.mkdtemp(prefix="mxc-dynamic-bench-")
    onnx = os.path.join(work, args.model + ".onnx")
    if fcn:
        subprocess.run([sys.executable, os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "..", "test", "models",
            "make_fcn_onnx.py"), "--onnx", onnx, "--out-dir", work, "--sizes", "1x8x8"],
            check=True)
    else:
        model = perf_models.seeded(perf_models.resnet18)
        with torch.no_grad():
            torch.onnx.export(model, torch.zeros(2, 3, 224, 224), onnx,
                              opset_version=perf_models.OPSET,
                              input_names=["input"], output_names=["logits"],
                              dynamic_axes={"input": {0: "batch"},
                                            "logits": {0: "batch"}})
    dyn = os.path.join(work, "libdynamic.so")
    builds = {"dynamic": compile_lib(
        args, onnx, dyn, ["--buckets", args.buckets] if args.buckets else [])}
    static = {}
    rng = np.random.default_rng(0)
    inputs = {}
    for b in batches:
        static[b] = os.path.join(work, f"libstatic{b}.so")
        builds[f"static {b}"] = compile_lib(
            args, onnx, static[b],
            ["--input", f"{args.input}=" + "x".join(map(str, shapes[b]))])
        inputs[b] = os.path.join(work, f"input{b}.npy")
        np.save(inputs[b], rng.standard_normal(shapes[b]).astype(np.float32))

    # Runs per round: about --seconds per library and row in all.
    runs = {}
    for b in batches:
        once = bench(args, static[b], inputs[b], 3)
        runs[b] = max(3, int(args.seconds * 1e3 / once / args.rounds))
    times = {(b, kind): [] for b in batches for kind in ("static", "dynamic")}
    for _ in range(args.rounds):
        for b in batches:
            times[(b, "static")].append(bench(args, static[b], inputs[b], runs[b]))
            times[(b, "dynamic")].append(bench(args, dyn, inputs[b], runs[b]))

    what = ("FCN (dynamic N, H, W in the code)" if fcn else
            f"ResNet-18 224x224, dynamic library's buckets: {args.buckets or 'default'}")
    print(f"{what}; {args.threads} thread(s), {bench_util.cpu_name()}, "
          f"{bench_util.mxc_version(args.mxc)}; median of {args.rounds} interleaved "
          "rounds' medians.\n")
    print(f"| {'size' if fcn else 'batch'} | static library (ms) | per row "
          "| dynamic library (ms) | per row | dynamic / static |")
    print("|---:|---:|---:|---:|---:|---:|")
    for b in batches:
        s = float(np.median(times[(b, "static")]))
        d = float(np.median(times[(b, "dynamic")]))
        rows = shapes[b][0]
        print(f"| {b} | {s:.2f} | {s / rows:.2f} | {d:.2f} | {d / rows:.2f} "
              f"| {d / s:.3f} |")
    print("\n| build | compile (s) | library (MB) |")
    print("|---|---:|---:|")
    for name, (seconds, size) in builds.items():
        print(f"| {name} | {seconds:.1f} | {size / 1e6:.1f} |")


if __name__ == "__main__":
    main()
