#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Training throughput (issue #4): images/s of one optimizer step of LeNet
and the MLP (examples/models) compiled with `mxc --train`, against PyTorch
(Debian's python3-torch) on the same model, batch, optimizer and thread
count, in one run. mxc's step is timed by `mxrun --function train_step
--bench N` (median over N calls after warm-up); PyTorch's is forward,
cross-entropy, backward and SGD step, median over N. Prints a Markdown table:

    /usr/bin/python3 bench/train_bench.py [--mxc build/bin/mxc] [--runs 20]
"""
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

import bench_util
from bench_util import ROOT


def lenet():
    # examples/models/lenet.json: conv 20 5x5, tanh, max pool 2, conv 50 5x5,
    # tanh, max pool 2, FC 500, tanh, FC 10.
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 20, 5), torch.nn.Tanh(), torch.nn.MaxPool2d(2, 2),
        torch.nn.Conv2d(20, 50, 5), torch.nn.Tanh(), torch.nn.MaxPool2d(2, 2),
        torch.nn.Flatten(), torch.nn.Linear(800, 500), torch.nn.Tanh(),
        torch.nn.Linear(500, 10))


def mlp():
    # examples/models/mlp.json: FC 128, relu, FC 64, relu, FC 10.
    return torch.nn.Sequential(
        torch.nn.Flatten(), torch.nn.Linear(784, 128), torch.nn.ReLU(),
        torch.nn.Linear(128, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))


MODELS = [("LeNet", "lenet-fashion.json", lenet, (1, 28, 28)),
          ("MLP", "mlp-fashion.json", mlp, (784,))]


def torch_step_ms(make, shape, batch, threads, runs):
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = make()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.rand((batch,) + shape)
    y = torch.randint(0, 10, (batch,))
    times = []
    for i in range(runs + 3):
        start = time.perf_counter()
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        if i >= 3:
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def mxc_step_ms(mxc, mxrun, model, shape, batch, threads, runs, work):
    lib = os.path.join(work, "lib%s_%d.so" % (model.split(".")[0], batch))
    if not os.path.exists(lib):
        dims = "x".join(str(d) for d in (batch,) + shape)
        subprocess.run([mxc, os.path.join(ROOT, "examples", "models", model),
                        "--input", "data=" + dims, "--train", "-o", lib],
                       check=True)
    labels = os.path.join(work, "labels_%d.npy" % batch)
    np.save(labels, np.random.default_rng(0).integers(0, 10, batch).astype(np.float32))
    rate = os.path.join(work, "lr.npy")
    np.save(rate, np.array(0.01, np.float32))
    out = subprocess.run([mxrun, lib, "--function", "train_step", "--input",
                          "softmax_label=" + labels, "--input", "learning_rate=" + rate,
                          "--threads", str(threads), "--bench", str(runs), "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["bench"]["median_ms"]


def main():
    p = bench_util.tool_parser(__doc__)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--threads", default="1,2")
    a = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name, model, make, shape in MODELS:
            for threads in [int(t) for t in a.threads.split(",")]:
                print("timing %s, %d thread(s) ..." % (name, threads), file=sys.stderr)
                m = mxc_step_ms(a.mxc, a.mxrun, model, shape, a.batch, threads, a.runs, work)
                t = torch_step_ms(make, shape, a.batch, threads, a.runs)
                rows.append((name, threads, m, t))
    version = bench_util.mxc_version(a.mxc)
    print("Training step, batch %d, SGD, medians of %d steps after 3 warm-up "
          "steps (%s, PyTorch %s, %s, %d CPUs):\n"
          % (a.batch, a.runs, version, torch.__version__, platform.machine(),
             os.cpu_count()))
    print("| model | threads | mxc images/s | PyTorch images/s | mxc / PyTorch time |")
    print("|---|---:|---:|---:|---:|")
    for name, threads, m, t in rows:
        print("| %s | %d | %.0f | %.0f | %.2f |"
              % (name, threads, a.batch * 1e3 / m, a.batch * 1e3 / t, m / t))
    print("\nmxc runs one thread whatever --threads says (the runtime's thread "
          "pool is issue #6); its code is plain loops, not yet tiled or "
          "vectorized.")


if __name__ == "__main__":
    main()
