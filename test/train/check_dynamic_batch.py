#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# A --train library with a dynamic batch (`--input data=Nx... --buckets
# 1,4,8`): its train_step, compiled once per bucket and run on whole batches
# only, takes steps at batches 4 and 8 that give the parameters (and
# BatchNorm's moving statistics) of static libraries compiled for those
# batches, and the parameters of the same steps in PyTorch; a batch that is
# no bucket, and labels whose batch differs from the data's, are refused
# with the dimension, the values and the buckets named, the parameters left
# as they were.
#
# usage: check_dynamic_batch.py MXC MXRUN WORK_DIR
import os
import subprocess
import sys

import numpy as np
import torch

import check_train_step as ts

STEPS = 3


def write_model(d, make_graph, torch_model):
    ts.write_symbol(d, make_graph()[0])
    torch.manual_seed(3)
    model = torch_model()
    arrays = [("arg:" + k, v.detach().numpy().astype(np.float32))
              for k, v in model.named().items()]
    if isinstance(model, ts.TorchConvBn):
        arrays += [("aux:bn_moving_mean", np.full(3, 0.1, np.float32)),
                   ("aux:bn_moving_var", np.full(3, 1.2, np.float32))]
    with open(os.path.join(d, "init.params"), "wb") as f:
        f.write(ts.params_bytes(arrays))


def steps(mxrun, lib, d, tag, batch, extra=()):
    out = os.path.join(d, "out_%s.params" % tag)
    cmd = [mxrun, lib, "--function", "train_step", "--steps", str(STEPS),
           "--input", "data=" + os.path.join(d, "x%d.npy" % batch),
           "--input", "softmax_label=" + os.path.join(d, "y%d.npy" % batch),
           "--input", "learning_rate=" + os.path.join(d, "lr.npy"),
           "--save-params", out] + list(extra)
    return subprocess.run(cmd, capture_output=True, text=True), out


def check(mxc, mxrun, work, name, make_graph, torch_model):
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    write_model(d, make_graph, torch_model)
    feature = make_graph()[1][1:]
    rng = np.random.default_rng(11)
    for batch in (4, 5, 8):
        np.save(os.path.join(d, "x%d.npy" % batch),
                rng.normal(0, 1, (batch,) + feature).astype(np.float32))
        np.save(os.path.join(d, "y%d.npy" % batch),
                rng.integers(0, 4, batch).astype(np.float32))
    np.save(os.path.join(d, "lr.npy"), np.array(ts.LR, np.float32))
    common = [os.path.join(d, "symbol.json"), "--params", os.path.join(d, "init.params"),
              "--train", "--optimizer", "momentum"]
    dims = "x".join(map(str, feature))
    dynamic = os.path.join(d, "libdyn.so")
    ts.run([mxc] + common + ["--input", "data=Nx" + dims, "--buckets", "1,4,8",
                             "-o", dynamic])
    for batch in (4, 8):
        static = os.path.join(d, "libstatic%d.so" % batch)
        ts.run([mxc] + common + ["--input", "data=%dx%s" % (batch, dims), "-o", static])
        r, got_path = steps(mxrun, dynamic, d, "dyn%d" % batch, batch)
        if r.returncode:
            sys.exit("FAIL %s: dynamic train_step at batch %d: %s" % (name, batch, r.stderr))
        r, want_path = steps(mxrun, static, d, "static%d" % batch, batch)
        if r.returncode:
            sys.exit("FAIL %s: static train_step at batch %d: %s" % (name, batch, r.stderr))
        got, want = ts.read_params(got_path), ts.read_params(want_path)
        for k in want:
            if not np.allclose(got[k], want[k], rtol=1e-6, atol=1e-7):
                sys.exit("FAIL %s batch %d: %s differs from the static library's by %g"
                         % (name, batch, k, np.abs(got[k] - want[k]).max()))
        # The same steps in PyTorch (MXNet's rescale_grad 1/batch).
        torch.manual_seed(3)
        model = torch_model()
        named = model.named()
        opt = ts.torch_optimizer("momentum", list(named.values()), 0.0)
        x = torch.from_numpy(np.load(os.path.join(d, "x%d.npy" % batch)))
        y = torch.from_numpy(np.load(os.path.join(d, "y%d.npy" % batch)))
        model.train()
        for _ in range(STEPS):
            opt.zero_grad()
            (ts.torch_loss("softmax-ce", model(x), y) / batch).backward()
            opt.step()
        for k, v in named.items():
            if not np.allclose(got["arg:" + k], v.detach().numpy(), rtol=1e-3, atol=2e-5):
                sys.exit("FAIL %s batch %d: %s differs from PyTorch by %g" % (
                    name, batch, k, np.abs(got["arg:" + k] - v.detach().numpy()).max()))
        print("PASS %s batch %d (static library and PyTorch)" % (name, batch))
    r, out = steps(mxrun, dynamic, d, "dyn5", 5)
    print("batch 5: exit %d: %s" % (r.returncode, r.stderr.strip().splitlines()[-1]
                                     if r.stderr.strip() else ""))
    if os.path.exists(out):
        sys.exit("FAIL %s: a refused call saved parameters" % name)
    r, _ = subprocess.run([mxrun, dynamic, "--function", "train_step",
                           "--input", "data=" + os.path.join(d, "x8.npy"),
                           "--input", "softmax_label=" + os.path.join(d, "y4.npy"),
                           "--input", "learning_rate=" + os.path.join(d, "lr.npy")],
                          capture_output=True, text=True), None
    print("labels of 4 for data of 8: exit %d: %s" % (
        r.returncode, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""))


def main():
    mxc, mxrun, work = sys.argv[1:4]
    check(mxc, mxrun, work, "mlp", ts.mlp, ts.TorchMlp)
    check(mxc, mxrun, work, "convbn", ts.conv_bn, ts.TorchConvBn)


if __name__ == "__main__":
    main()
