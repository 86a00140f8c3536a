# SPDX-License-Identifier: Apache-2.0
# resnet18-int8.test's model: torchvision's quantizable ResNet-18
# (torchvision.models.quantization.resnet18, seeded random weights: nothing is downloaded)
# quantized by torch 1.13's eager post-training quantization as torchvision's own recipe
# does it (fuse_model(), fbgemm: per-channel int8 weights, uint8 activations; calibrated on
# three seeded random batches) and exported as QDQ at batch 2, 224x224. Every layer is in
# int8, the classifier included: torch.flatten after the average pool exports (a reshape
# to a computed shape trips torch 1.13's exporter, export.cpp:891), and each residual
# add_relu becomes DQ, DQ -> Add -> Relu -> Q. `make` writes the model, an input, torch's
# quantized output and its quantization step; `check` compares mxc's output with torch's
# (fbgemm requantizes with arithmetic of its own and the differences carry through 21
# layers: a few steps at most, one today) and with ONNX Runtime's on the same QDQ model
# where bench/.peers holds it (the ONNX operators' arithmetic, as mxc's: exactly).
import os
import shutil
import subprocess
import sys
import warnings

import numpy as np
import torch
import torch.ao.quantization as tq
from torchvision.models.quantization import resnet18

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_MODULES = os.path.join(HERE, "..", "..", "bench", ".peers", "node_modules")


def make(out):
    warnings.filterwarnings("ignore")  # the exporter's notes on quantized ops' shape inference
    torch.manual_seed(0)
    net = resnet18(weights=None, quantize=False).eval()
    net.fuse_model()
    net.qconfig = tq.get_default_qconfig("fbgemm")
    tq.prepare(net, inplace=True)
    with torch.no_grad():
        for _ in range(3):
            net(torch.randn(4, 3, 224, 224))
    tq.convert(net, inplace=True)
    x = torch.randn(2, 3, 224, 224)
    torch.onnx.export(net, x, f"{out}/resnet18.onnx", opset_version=13, input_names=["x"],
                      output_names=["y"])
    np.save(f"{out}/x.npy", x.numpy())
    with torch.no_grad():
        np.save(f"{out}/torch_y.npy", net(x).numpy())
    np.save(f"{out}/step.npy", np.float32(net.fc.scale))


def steps(got, want, step):
    """How many outputs differ, and the largest difference in quantization steps."""
    off = np.abs(got.astype(np.float64) - want) / step
    return np.count_nonzero(np.rint(off)), np.rint(off.max())


def check(out):
    got, step = np.load(f"{out}/y/y.npy"), float(np.load(f"{out}/step.npy"))
    differ, most = steps(got, np.load(f"{out}/torch_y.npy"), step)
    print(f"torch's quantized ResNet-18: {differ} of {got.size} outputs differ, "
          f"by at most {most:.0f} steps")
    assert most <= 3, f"off by {most:.0f} steps of {step}, more than 3"
    if shutil.which("node") and os.path.isdir(os.path.join(ORT_MODULES, "onnxruntime-node")):
        subprocess.run(["node", os.path.join(HERE, "ort_case.js"), f"{out}/resnet18.onnx",
                        "--output-dir", f"{out}/ort", "--input", f"x={out}/x.npy"],
                       check=True, env=dict(os.environ, NODE_PATH=ORT_MODULES))
        theirs = np.load(f"{out}/ort/y.npy")
        differ, most = steps(got, theirs, step)
        print(f"ONNX Runtime: {np.count_nonzero(got != theirs)} of {got.size} outputs differ, "
              f"{differ} by a step or more, at most {most:.0f}", file=sys.stderr)
        assert np.array_equal(got, theirs), \
            f"{differ} of {got.size} differ from ONNX Runtime's, by up to {most:.0f} steps"
    print("ResNet-18 int8 within 3 steps of torch's")


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]](sys.argv[2])
