# SPDX-License-Identifier: Apache-2.0
# Makes the fixtures of test/models/resnet18_onnx.test and densenet121_onnx.test:
# torchvision's ResNet-18 or DenseNet-121 with seeded random weights (no download),
# exported with torch.onnx.export, and PyTorch's output on a seeded input. The model
# (~45 / ~32 MB) is rebuilt at test time; only the input (the same for both) and the
# reference outputs are committed (test/models/<model>_onnx/). The segmentation
# models (segmentation_onnx.test) write their reference at test time. Written by
#   /usr/bin/python3 test/models/make_torchvision_onnx.py --out-dir test/models/resnet18_onnx
#   /usr/bin/python3 test/models/make_torchvision_onnx.py --model densenet121 \
#       --out-dir test/models/densenet121_onnx
import argparse
import os

import numpy as np
import torch
import torchvision

OPSET = 13
SEED = 0


SEGMENTATION = ["fcn_resnet50", "lraspp_mobilenet_v3_large"]


def make_model(name):
    torch.manual_seed(SEED)
    if name in SEGMENTATION:  # no pretrained backbone either (a download)
        model = torchvision.models.get_model(name, weights=None, weights_backbone=None)
    else:
        model = torchvision.models.get_model(name, weights=None)
    # Fresh BatchNorm layers are identities (mean 0, var 1, gamma 1, beta 0); give them
    # seeded statistics so the export's folded Conv+BN really carries BN's arithmetic.
    g = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                c = m.num_features
                m.running_mean.copy_(0.1 * torch.randn(c, generator=g))
                m.running_var.copy_(0.5 + torch.rand(c, generator=g))
                m.weight.copy_(0.5 + torch.rand(c, generator=g))
                m.bias.copy_(0.1 * torch.randn(c, generator=g))
    return model.eval()


def make_input():
    g = torch.Generator().manual_seed(SEED + 2)
    return torch.randn(1, 3, 224, 224, generator=g)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out-dir", required=True,
                   help="writes input.npy and torch_output.npy here")
    p.add_argument("--onnx", help="also export the model to this .onnx file")
    p.add_argument("--model", default="resnet18",
                   choices=["resnet18", "densenet121"] + SEGMENTATION)
    a = p.parse_args()
    torch.set_num_threads(1)  # one summation order, run to run
    model, x = make_model(a.model), make_input()
    with torch.no_grad():
        y = model(x)
    if isinstance(y, dict):  # segmentation: the "out" map (no auxiliary head)
        y = y["out"]
    os.makedirs(a.out_dir, exist_ok=True)
    np.save(os.path.join(a.out_dir, "input.npy"), x.numpy())
    np.save(os.path.join(a.out_dir, "torch_output.npy"), y.numpy())
    if a.onnx:
        name = "out" if a.model in SEGMENTATION else "logits"
        torch.onnx.export(model, x, a.onnx, opset_version=OPSET,
                          input_names=["input"], output_names=[name])
    print(f"logits {tuple(y.shape)} min {y.min():.4g} max {y.max():.4g} "
          f"std {y.std():.4g} argmax {int(y.argmax())}")


if __name__ == "__main__":
    main()
