#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compile time and peak memory of mxc against the model's size, for
torchvision's classification models (issue #26: DenseNet-121 under 5 s on
2 cores, none over 10 s). Each model is exported with torch.onnx.export
(random weights, no download; opset 13, 1x3x224x224, 299x299 for
Inception-v3), compiled with `mxc -o lib<model>.so` under GNU time, and
reported with its weights' size; a model mxc cannot compile is reported
with the first line of its error.

    /usr/bin/python3 bench/compile_time.py                    # every model
    /usr/bin/python3 bench/compile_time.py --models densenet121,resnet50

Prints a Markdown table and the CPU it ran on. Exit status: 0 when every
compiled model took at most --limit seconds (default 10), 1 otherwise.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_util  # noqa: E402  (before torch)

GNU_TIME = "/usr/bin/time"


def classification_models():
    """torchvision's classification model builders, by name."""
    import torchvision
    names = torchvision.models.list_models(module=torchvision.models)
    return sorted(names)


def export(name, path):
    """Exports `name` to ONNX at `path`; returns (weights bytes, input)."""
    import torch
    import torchvision
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    model = torchvision.models.get_model(name, weights=None).eval()
    size = 299 if name.startswith("inception") else 224
    x = torch.randn(1, 3, size, size)
    torch.onnx.export(model, x, path, opset_version=13, input_names=["data"])
    weights = sum(t.numel() * t.element_size()
                  for t in list(model.parameters()) + list(model.buffers()))
    return weights, "data=1x3x%dx%d" % (size, size)


def compile_once(mxc, onnx, shape, out):
    """(seconds, peak MiB, error or None) of one mxc run."""
    run = subprocess.run([GNU_TIME, "-f", "mxc-time %e %M", mxc, onnx,
                          "--input", shape, "-o", out],
                         capture_output=True, text=True)
    m = re.search(r"mxc-time ([\d.]+) (\d+)", run.stderr)
    seconds = float(m.group(1)) if m else float("nan")
    peak = int(m.group(2)) / 1024 if m else float("nan")
    if run.returncode != 0:
        lines = [l for l in run.stderr.splitlines()
                 if l and not l.startswith("mxc-time")]
        return seconds, peak, (lines[0] if lines else "failed")[:160]
    return seconds, peak, None


def main():
    p = bench_util.tool_parser(__doc__)
    p.add_argument("--models", help="comma-separated torchvision names")
    p.add_argument("--limit", type=float, default=10.0)
    a = p.parse_args()
    names = a.models.split(",") if a.models else classification_models()
    print("mxc compile time, %s, %s, %d CPUs\n" % (
        bench_util.mxc_version(a.mxc), bench_util.cpu_name(),
        os.cpu_count()))
    print("| model | weights MB | compile s | peak MB | result |")
    print("|---|---:|---:|---:|---|")
    over = False
    with tempfile.TemporaryDirectory() as work:
        for name in names:
            onnx = os.path.join(work, name + ".onnx")
            try:
                weights, shape = export(name, onnx)
            except Exception as e:  # an export torch cannot do
                print("| %s | | | | export failed: %s |" % (
                    name, str(e).splitlines()[0][:120]))
                continue
            seconds, peak, error = compile_once(
                a.mxc, onnx, shape, os.path.join(work, "lib%s.so" % name))
            if error:
                print("| %s | %.1f | | | mxc failed: %s |" % (
                    name, weights / 1e6, error.replace("|", "/")))
            else:
                over = over or seconds > a.limit
                print("| %s | %.1f | %.2f | %.0f | %s |" % (
                    name, weights / 1e6, seconds, peak,
                    "ok" if seconds <= a.limit else "**over %g s**" % a.limit))
            sys.stdout.flush()
            os.remove(onnx)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
