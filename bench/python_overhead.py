#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The cost of a call from Python: a small model (an ONNX Relu of 1x16
floats, or --width) run through mxc's Python package (`lib(x)`: argument
parsing, the output array, the GIL released around the call), through the C
API (`mxrun --bench`, mxrt_instance_run on tensors), and through ONNX
Runtime's Node binding (bench/ort_run.js, `session.run`), in interleaved
rounds; medians per call, and Python's over the C API's.

    PYTHONPATH=build/python python3 bench/python_overhead.py [--rounds 5]

ONNX Runtime comes from bench/.peers (perf_bench.py installs it there);
--no-ort leaves it out."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

import bench_util
import mxc

HERE = os.path.dirname(os.path.abspath(__file__))


def make_model(path, width):
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "small",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, width])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, width])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def python_us(lib, x, calls):
    """Microseconds per lib(x) over `calls` calls."""
    start = time.perf_counter_ns()
    for _ in range(calls):
        lib(x)
    return (time.perf_counter_ns() - start) / calls / 1e3


def mxrun_us(args, library, x_path, calls):
    out = subprocess.run([args.mxrun, library, "--input", "x=" + x_path, "--bench",
                          str(calls), "--warmup", "100", "--json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["bench"]["median_ms"] * 1e3


def ort_us(args, model, x_path, calls):
    env = dict(os.environ, NODE_PATH=os.path.join(args.peers_dir, "node_modules"))
    out = subprocess.run(["node", os.path.join(HERE, "ort_run.js"), model, "--threads", "1",
                          "--input", "x=" + x_path, "--warmup", "100", "--runs", str(calls)],
                         capture_output=True, text=True, check=True, env=env).stdout
    result = json.loads(out.strip().splitlines()[-1])
    return result["median_ms"] * 1e3, result["version"]


def main():
    p = bench_util.tool_parser(__doc__)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--calls", type=int, default=20000, help="calls per round and peer")
    p.add_argument("--width", type=int, default=16)
    p.add_argument("--peers-dir", default=os.path.join(HERE, ".peers"))
    p.add_argument("--no-ort", action="store_true")
    args = p.parse_args()
    ort = not args.no_ort and os.path.exists(
        os.path.join(args.peers_dir, "node_modules", "onnxruntime-node"))
    if not args.no_ort and not ort:
        print("python_overhead: onnxruntime-node is not in %s (bench/perf_bench.py installs "
              "it); timing without it" % args.peers_dir, file=sys.stderr)
    with tempfile.TemporaryDirectory() as work:
        model = os.path.join(work, "small.onnx")
        make_model(model, args.width)
        library = os.path.join(work, "libsmall.so")
        lib = mxc.compile(model, output=library)
        x = np.random.default_rng(0).normal(0, 1, (1, args.width)).astype(np.float32)
        x_path = os.path.join(work, "x.npy")
        np.save(x_path, x)
        assert np.array_equal(lib(x), np.maximum(x, 0))
        python_us(lib, x, 1000)  # warm-up
        times = {"Python": [], "C API (mxrun)": [], "ONNX Runtime (Node)": []}
        version = None
        for _ in range(args.rounds):
            times["Python"].append(python_us(lib, x, args.calls))
            times["C API (mxrun)"].append(mxrun_us(args, library, x_path, args.calls))
            if ort:
                us, version = ort_us(args, model, x_path, args.calls)
                times["ONNX Runtime (Node)"].append(us)
    print("CPU: %s; %s; %d rounds of %d calls, one thread; Relu of 1x%d floats"
          % (bench_util.cpu_name(), bench_util.mxc_version(args.mxc), args.rounds,
             args.calls, args.width))
    c_api = statistics.median(times["C API (mxrun)"])
    print("| caller | microseconds per call (median of rounds) | over the C API |")
    print("|---|---:|---:|")
    for name, values in times.items():
        if values:
            label = name + (" %s" % version if name.startswith("ONNX") and version else "")
            median = statistics.median(values)
            print("| %s | %.2f | %.1fx |" % (label, median, median / c_api))


if __name__ == "__main__":
    main()
