# SPDX-License-Identifier: Apache-2.0
# Makes the fixtures of test/models/resnet18_onnx.test and densenet121_onnx.test:
# torchvision's ResNet-18 or DenseNet-121 with seeded random weights (no download),
# exported with torch.onnx.export, and PyTorch's output on a seeded input. The model
# (~45 / ~32 MB) is rebuilt at test time; only the input (the same for both) and the
# reference outputs are committed (test/models/<model>_onnx/). The segmentation
# models (segmentation_onnx.test) and the detector (detection_onnx.test) write their
# reference at test time. Written by
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
DETECTION = ["ssdlite320_mobilenet_v3_large"]
DETECTION_OUTPUTS = ["boxes", "scores", "labels"]


def make_detector(name):
    """A detector with seeded weights whose BatchNorm statistics are measured on
    seeded random images: with a fresh network's statistics the features vanish
    (1e-13 at the head) and every class scores 1/91, a tie that leaves the
    post-processing's order to chance."""
    torch.manual_seed(SEED)
    model = torchvision.models.get_model(name, weights=None, weights_backbone=None)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.reset_running_stats()
            m.momentum = None  # a plain average over the batches
    model.train()
    g = torch.Generator().manual_seed(SEED + 3)
    with torch.no_grad():
        for _ in range(2):
            features = model.backbone(torch.rand(4, 3, 320, 320, generator=g))
            model.head(list(features.values()))
    return model.eval()


def make_model(name):
    if name in DETECTION:
        return make_detector(name)
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
                   help="writes input.npy and torch_output.npy here (a detector: "
                        "image.npy and torch_<output>.npy)")
    p.add_argument("--onnx", help="also export the model to this .onnx file")
    p.add_argument("--model", default="resnet18",
                   choices=["resnet18", "densenet121", "mobilenet_v2"] + SEGMENTATION + DETECTION)
    a = p.parse_args()
    torch.set_num_threads(1)  # one summation order, run to run
    model = make_model(a.model)
    os.makedirs(a.out_dir, exist_ok=True)
    if a.model in DETECTION:
        # One image in [0, 1), as torchvision's detectors take them; boxes,
        # scores and labels of the (at most 300) detections.
        g = torch.Generator().manual_seed(SEED + 2)
        image = torch.rand(3, 320, 320, generator=g)
        with torch.no_grad():
            y = model([image])[0]
        np.save(os.path.join(a.out_dir, "image.npy"), image.numpy())
        for k in DETECTION_OUTPUTS:
            np.save(os.path.join(a.out_dir, f"torch_{k}.npy"), y[k].numpy())
        if a.onnx:
            torch.onnx.export(model, ([image],), a.onnx, opset_version=14,
                              input_names=["image"], output_names=DETECTION_OUTPUTS)
        s = y["scores"]
        print(f"detections {len(s)} scores {float(s.min()):.4g}..{float(s.max()):.4g} "
              f"labels {len(set(y['labels'].tolist()))} distinct")
        return
    x = make_input()
    with torch.no_grad():
        y = model(x)
    if isinstance(y, dict):  # segmentation: the "out" map (no auxiliary head)
        y = y["out"]
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
