#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Peak resident memory of compiling a model with mxc, against the bytes of
its weights (the issue's line: VGG-11's ONNX export, 531 MB, compiles below
1.5x its weights). Exports torchvision's VGG-11 (random weights, no
download; 1x3x224x224) or a 100 MB MLP (1x2048 -> 4096 -> 4096 -> 10) with
torch.onnx.export (opset 13), compiles it to a shared library under GNU
time -v, and prints the weights' bytes, the peak RSS and their ratio. A
second compile with MXC_REPORT_MEMORY=1 splits the peak into import +
lowering and codegen (docs/compile-memory.md). The library then runs under
mxrun on one input, and its output must match PyTorch's.

    /usr/bin/python3 bench/compile_memory.py                 # VGG-11, < 1.5x
    /usr/bin/python3 bench/compile_memory.py --model mlp --codegen-only

Exit status: 0 when the checked figure is below its limit and the outputs
agree, 1 otherwise, 2 on bad usage or a failed step.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GNU_TIME = "/usr/bin/time"
STAGE = re.compile(r"^mxc: memory: (.+?): rss (\d+) MiB, peak (\d+) MiB",
                   re.M)


def die(msg):
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(2)


def mib(n):
    return f"{n / 2**20:,.1f}"


def export(model_name, work):
    """Writes model.onnx, input.npy and torch_output.npy into `work`; returns
    the bytes of the model's parameters and buffers (its weights)."""
    import numpy as np
    import torch

    torch.manual_seed(0)
    if model_name == "vgg11":
        import torchvision
        model = torchvision.models.vgg11(weights=None)
        x = torch.randn(1, 3, 224, 224)
    else:
        model = torch.nn.Sequential(
            torch.nn.Linear(2048, 4096), torch.nn.ReLU(),
            torch.nn.Linear(4096, 4096), torch.nn.ReLU(),
            torch.nn.Linear(4096, 10))
        x = torch.randn(1, 2048)
    model.eval()
    with torch.no_grad():
        y = model(x)
    torch.onnx.export(model, x, os.path.join(work, "model.onnx"),
                      opset_version=13, input_names=["input"],
                      output_names=["output"])
    np.save(os.path.join(work, "input.npy"), x.numpy())
    np.save(os.path.join(work, "torch_output.npy"), y.numpy())
    return sum(t.numel() * t.element_size()
               for t in model.state_dict().values())


def compile_model(mxc, work, name, prefix=(), env=None):
    """Compiles model.onnx to lib<name>.so (under the `prefix` command);
    returns mxc's stderr."""
    cmd = [*prefix, mxc, os.path.join(work, "model.onnx"),
           "-o", os.path.join(work, f"lib{name}.so")]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, env=env)
    if r.returncode:
        die(f"{' '.join(cmd)} failed:\n{r.stderr}")
    return r.stderr


def timed_peak(mxc, work, name):
    """mxc's peak RSS in bytes as GNU time -v reports it (the largest of mxc
    and the ld.lld it runs)."""
    report = os.path.join(work, "time.txt")
    compile_model(mxc, work, name, prefix=[GNU_TIME, "-v", "-o", report])
    with open(report) as f:
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", f.read())
    if not m:
        die(f"no peak in {report}")
    return int(m.group(1)) * 1024


def stages(mxc, work, name):
    """MXC_REPORT_MEMORY's figures, in bytes: (peak before codegen, RSS when
    codegen starts, codegen's peak)."""
    env = dict(os.environ, MXC_REPORT_MEMORY="1")
    found = STAGE.findall(compile_model(mxc, work, name, env=env))
    if not found or found[0][0] != "before codegen":
        die("mxc printed no memory report (MXC_REPORT_MEMORY=1)")
    start_rss, before_peak = int(found[0][1]), int(found[0][2])
    codegen_peak = max(int(peak) for _, _, peak in found[1:])
    return before_peak * 2**20, start_rss * 2**20, codegen_peak * 2**20


def check_output(mxrun, work, name, tolerance):
    """Runs the library on input.npy; returns the largest absolute difference
    from PyTorch's output, or None when it exceeds the tolerance."""
    import numpy as np
    out = os.path.join(work, "out")
    cmd = [mxrun, os.path.join(work, f"lib{name}.so"),
           "--input", "input=" + os.path.join(work, "input.npy"),
           "--output-dir", out]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode:
        die(f"{' '.join(cmd)} failed:\n{r.stderr}")
    got = np.load(os.path.join(out, "output.npy"))
    want = np.load(os.path.join(work, "torch_output.npy"))
    if got.shape != want.shape:
        return None
    err = float(np.max(np.abs(got.astype(np.float64) - want)))
    return err if err <= tolerance * max(1.0, float(np.max(np.abs(want)))) \
        else None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", choices=["vgg11", "mlp"], default="vgg11")
    p.add_argument("--mxc", default=os.path.join(ROOT, "build", "bin", "mxc"))
    p.add_argument("--mxrun",
                   default=os.path.join(ROOT, "build", "bin", "mxrun"))
    p.add_argument("--work-dir", help="keep the files here (default: a "
                   "temporary folder, removed afterwards)")
    p.add_argument("--max-ratio", type=float, default=1.5,
                   help="fail unless the peak RSS is below this many times "
                   "the weights' bytes (default 1.5)")
    p.add_argument("--codegen-only", action="store_true",
                   help="check codegen instead: what it adds to the RSS it "
                   "starts with must stay below --max-codegen-growth times "
                   "the weights (it holds no copy of them)")
    p.add_argument("--max-codegen-growth", type=float, default=0.5)
    p.add_argument("--tolerance", type=float, default=1e-4,
                   help="output agreement, scaled by max(1, max |output|)")
    a = p.parse_args()
    for tool in (a.mxc, a.mxrun, GNU_TIME):
        if not os.access(tool, os.X_OK):
            die(f"{tool} is missing (GNU time: apt-get install time)")

    with tempfile.TemporaryDirectory() as tmp:
        work = a.work_dir or tmp
        os.makedirs(work, exist_ok=True)
        weights = export(a.model, work)
        peak = timed_peak(a.mxc, work, a.model)
        before, start, codegen = stages(a.mxc, work, a.model)
        err = check_output(a.mxrun, work, a.model, a.tolerance)
        version = subprocess.run([a.mxc, "--version"], stdout=subprocess.PIPE,
                                 text=True).stdout.strip()

    ratio, growth = peak / weights, (codegen - start) / weights
    print(f"Compiling {a.model} (ONNX, opset 13) to a shared library with "
          f"{version}; peak resident set size from GNU time -v, stages from "
          "MXC_REPORT_MEMORY=1, in MiB.\n")
    print("| model | weights | peak RSS | peak / weights | import + lowering "
          "peak | RSS at codegen | codegen peak | codegen growth / weights |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {a.model} | {mib(weights)} | {mib(peak)} | {ratio:.2f} | "
          f"{mib(before)} | {mib(start)} | {mib(codegen)} | {growth:.3f} |\n")
    print(f"weights {weights} bytes, peak {peak} bytes, ratio {ratio:.3f}")
    failed = False
    if err is None:
        print("FAIL: the library's output differs from PyTorch's")
        failed = True
    else:
        print(f"outputs agree with PyTorch: max abs error {err:.3g}")
    if a.codegen_only:
        ok = growth < a.max_codegen_growth
        print(f"{'OK' if ok else 'FAIL'}: codegen adds {mib(codegen - start)} "
              f"MiB = {growth:.3f}x the weights (limit "
              f"{a.max_codegen_growth}x)")
    else:
        ok = ratio < a.max_ratio
        print(f"{'OK' if ok else 'FAIL'}: peak {ratio:.3f}x the weights "
              f"(limit {a.max_ratio}x)")
    sys.exit(1 if failed or not ok else 0)


if __name__ == "__main__":
    main()
