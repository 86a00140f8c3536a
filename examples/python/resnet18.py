#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Compile torchvision's ResNet-18 from Python and run it on a NumPy batch.

Exports the model (seeded weights, no download) with a dynamic batch axis,
compiles it with mxc.compile, runs a batch through the library and compares
the logits with PyTorch's.

    PYTHONPATH=build/python python3 examples/python/resnet18.py [--batch 4]
"""
import argparse
import os
import tempfile
import time

import numpy as np
import torch
import torchvision

import mxc


def main(batch=4):
    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None).eval()
    images = np.random.default_rng(0).normal(0, 1, (batch, 3, 224, 224)).astype(np.float32)
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "resnet18.onnx")
        torch.onnx.export(model, torch.from_numpy(images[:1]), path, opset_version=13,
                          input_names=["input"], output_names=["logits"],
                          dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})
        start = time.perf_counter()
        lib = mxc.compile(path)
        print("compiled in %.1f s: %s -> %s" % (time.perf_counter() - start,
                                                 lib.inputs[0], lib.outputs[0]))
    logits = lib(images)
    with torch.no_grad():
        want = model(torch.from_numpy(images)).numpy()
    error = np.abs(logits - want).max()
    print("batch %d: logits %s, largest difference from PyTorch %.2g" % (
        batch, logits.shape, error))
    return error


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=4)
    raise SystemExit(0 if main(p.parse_args().batch) < 1e-4 else 1)
