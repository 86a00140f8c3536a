# SPDX-License-Identifier: Apache-2.0
# Makes the fixtures of test/models/dynamic_batch_onnx.test: torchvision's ResNet-18
# (seeded weights and BatchNorm statistics, as make_torchvision_onnx.py makes it) exported
# with a dynamic batch axis, as torch.onnx.export writes it for a server that batches
# requests (dynamic_axes {0: "batch"}), and for each batch size a seeded input and
# PyTorch's output on it.
import argparse
import os

import numpy as np
import torch

from make_torchvision_onnx import OPSET, make_model


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--onnx", required=True, help="the exported model")
    p.add_argument("--out-dir", required=True,
                   help="writes input_<B>.npy and output_<B>.npy here")
    p.add_argument("--batches", default="1,3,8,64")
    a = p.parse_args()
    torch.set_num_threads(1)  # one summation order, run to run
    model = make_model("resnet18")
    os.makedirs(a.out_dir, exist_ok=True)
    g = torch.Generator().manual_seed(7)
    for b in map(int, a.batches.split(",")):
        x = torch.randn(b, 3, 224, 224, generator=g)
        with torch.no_grad():
            y = model(x)
        np.save(os.path.join(a.out_dir, f"input_{b}.npy"), x.numpy())
        np.save(os.path.join(a.out_dir, f"output_{b}.npy"), y.numpy())
    torch.onnx.export(model, torch.zeros(2, 3, 224, 224), a.onnx,
                      opset_version=OPSET, input_names=["input"],
                      output_names=["logits"],
                      dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})


if __name__ == "__main__":
    main()
