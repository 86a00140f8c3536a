#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Per-layer training convolutions against PyTorch, side by side: for each
convolution layer of CIFAR ResNet-20 (batch 64) or ResNet-18 (batch 32),
one thread, libmxrt's forward with weights that change between calls
(mxrt_kernel_sconv2d, as a training step calls it) and its backward (data
and weight gradient, mxrt_kernel_sconv2d_backward), against PyTorch's
convolution forward and its autograd backward for both gradients on the
same shapes, in interleaved rounds (ours, then PyTorch's, per layer and
round). The same kernel calls a compiled train_step makes, without the
rest of the step: where a network's step loses to PyTorch, this says
which layers do (docs/training.md). Prints a Markdown table:

    /usr/bin/python3 bench/conv_grad_layers.py [--net resnet20|resnet18]
        [--rounds 5] [--lib build/lib/libmxrt.so]
"""
import argparse
import ctypes
import os
import platform
import statistics
import time

import bench_util  # noqa: F401  (names OpenBLAS's kernels before torch loads it)
from bench_util import ROOT

import numpy as np
import torch
import torch.nn.functional as F

# (c, h, w, f, k, s, p, count): count = how many times the network has it.
NETS = {
    "resnet20": (64, [(3, 32, 32, 16, 3, 1, 1, 1), (16, 32, 32, 16, 3, 1, 1, 6),
                      (16, 32, 32, 32, 3, 2, 1, 1), (16, 32, 32, 32, 1, 2, 0, 1),
                      (32, 16, 16, 32, 3, 1, 1, 5), (32, 16, 16, 64, 3, 2, 1, 1),
                      (32, 16, 16, 64, 1, 2, 0, 1), (64, 8, 8, 64, 3, 1, 1, 5)]),
    "resnet18": (32, [(3, 224, 224, 64, 7, 2, 3, 1), (64, 56, 56, 64, 3, 1, 1, 4),
                      (64, 56, 56, 128, 3, 2, 1, 1), (64, 56, 56, 128, 1, 2, 0, 1),
                      (128, 28, 28, 128, 3, 1, 1, 3), (128, 28, 28, 256, 3, 2, 1, 1),
                      (128, 28, 28, 256, 1, 2, 0, 1), (256, 14, 14, 256, 3, 1, 1, 3),
                      (256, 14, 14, 512, 3, 2, 1, 1), (256, 14, 14, 512, 1, 2, 0, 1),
                      (512, 7, 7, 512, 3, 1, 1, 3)]),
}

I64, PTR = ctypes.c_int64, ctypes.c_void_p


def load(path):
    lib = ctypes.CDLL(path)
    lib.mxrt_kernel_sconv2d.argtypes = [I64] * 16 + [PTR] * 4 + [ctypes.c_int32]
    lib.mxrt_kernel_sconv2d_backward.argtypes = ([I64] * 16 + [PTR] * 5 +
                                                 [ctypes.c_int32])
    return lib


def ptr(a):
    return a.ctypes.data_as(PTR) if a is not None else None


def median_ms(fn, runs):
    fn()  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--net", default="resnet20", choices=sorted(NETS))
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=5, help="calls per round")
    p.add_argument("--lib", default=os.path.join(ROOT, "build", "lib", "libmxrt.so"))
    a = p.parse_args()
    lib = load(a.lib)
    torch.set_num_threads(1)
    n, layers = NETS[a.net]
    rng = np.random.default_rng(0)
    rows = []
    for c, h, w, f, k, s, pad, count in layers:
        oh, ow = (h + 2 * pad - k) // s + 1, (w + 2 * pad - k) // s + 1
        x = rng.standard_normal((n, c, h, w), dtype=np.float32)
        wt = rng.standard_normal((f, c, k, k), dtype=np.float32)
        dy = rng.standard_normal((n, f, oh, ow), dtype=np.float32)
        y, dx, dw = np.empty_like(dy), np.empty_like(x), np.empty_like(wt)
        geo = [n, c, h, w, f, oh, ow, k, k, s, s, pad, pad, 1, 1, 1]

        def ours_fwd():
            lib.mxrt_kernel_sconv2d(*geo, ptr(x), ptr(wt), None, ptr(y), 0)

        def ours_bwd():  # data gradient (not for the first layer), weights
            if c > 3:
                lib.mxrt_kernel_sconv2d_backward(*geo, None, ptr(wt), ptr(dy),
                                                 ptr(dx), None, 0)
            lib.mxrt_kernel_sconv2d_backward(*geo, ptr(x), None, ptr(dy), None,
                                             ptr(dw), 0)

        tx = torch.from_numpy(x).requires_grad_(c > 3)
        tw = torch.from_numpy(wt).requires_grad_(True)
        ty = F.conv2d(tx, tw, stride=s, padding=pad)
        tdy = torch.from_numpy(dy)
        wrt = (tx, tw) if c > 3 else (tw,)

        def torch_fwd():
            with torch.no_grad():
                F.conv2d(tx, tw, stride=s, padding=pad)

        def torch_bwd():
            torch.autograd.grad(ty, wrt, tdy, retain_graph=True)

        got = {"of": [], "ob": [], "tf": [], "tb": []}
        for _ in range(a.rounds):
            got["of"].append(median_ms(ours_fwd, a.runs))
            got["ob"].append(median_ms(ours_bwd, a.runs))
            got["tf"].append(median_ms(torch_fwd, a.runs))
            got["tb"].append(median_ms(torch_bwd, a.runs))
        m = {key: statistics.median(v) for key, v in got.items()}
        rows.append(((c, h, w, f, k, s, pad, count), m))
    cpu = bench_util.cpu_name()
    print("%s convolutions, batch %d, one thread, ms per call, medians of %d "
          "interleaved rounds (PyTorch %s; %s, %s):\n" %
          (a.net, n, a.rounds, torch.__version__, cpu, platform.machine()))
    print("| layer (c h w -> f, k s p) | x | mxc fwd | PyTorch fwd | mxc bwd | "
          "PyTorch bwd | mxc / PyTorch (fwd + bwd) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    total = {"o": 0.0, "t": 0.0}
    for (c, h, w, f, k, s, pad, count), m in rows:
        ours, theirs = m["of"] + m["ob"], m["tf"] + m["tb"]
        total["o"] += count * ours
        total["t"] += count * theirs
        print("| %d %d %d -> %d, %d %d %d | %d | %.3f | %.3f | %.3f | %.3f | %.2f |"
              % (c, h, w, f, k, s, pad, count, m["of"], m["tf"], m["ob"], m["tb"],
                 ours / theirs))
    print("| **network** | | | | | | %.2f (%.1f against %.1f ms) |" %
          (total["o"] / total["t"], total["o"], total["t"]))


if __name__ == "__main__":
    main()
