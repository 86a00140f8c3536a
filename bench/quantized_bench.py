#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Inference latency of mxc's 8-bit and bfloat16 libraries against its float32 ones and
against ONNX Runtime on the same models (issue #49, acceptance 3), in one interleaved run
on the same seeded weights and inputs, at 1 and 2 threads:

  resnet18-b1, resnet18-b32   torchvision's ResNet-18, 224x224, batch 1 or 32
  resnet50-b1, resnet50-b32   torchvision's ResNet-50, the same

Weights are seeded (no download), with test/models/make_torchvision_onnx.py's seeded
BatchNorm statistics. Each model is exported twice by torch.onnx.export (opset 13, static
shapes): as it is (float32), and quantized as test/onnx/resnet18-int8.test.py quantizes
ResNet-18 -- the same weights in torchvision's quantizable model, torch 1.13's eager
post-training quantization (fuse_model(), fbgemm: per-channel int8 weights, uint8
activations; calibrated on three seeded batches of 4), exported as QDQ. Five peers per row:

  mxc fp32    `mxc float.onnx`, timed by `mxrun --bench`
  mxc int8    `mxc int8.onnx` (mxc's 8-bit kernels)
  mxc bf16    `mxc --precision=bf16 float.onnx`; "n/a" while `mxc --help` has no --precision
  ORT fp32    the float export through bench/ort_run.js (npm onnxruntime-node in
  ORT int8    bench/.peers, installed on first use), and the QDQ export

Before timing, mxc fp32's and ORT fp32's outputs are compared with PyTorch's float ones
(max |diff| / max |reference|, at most --tolerance; mxc bf16's at most 5e-2),
and mxc int8's with ORT int8's on the same QDQ model: how many outputs differ and by how
many quantization steps of the output at most (they should be equal; a difference is
printed, not an error). Every round times every peer of every row and thread count in
turn; each time is the median of the rounds' medians. Printed with the table: the CPU,
its int8/bf16 features and the paths libmxrt's kernel families take (mxrt_kernel_path).
Prints Markdown. With the defaults (5 rounds of 5 runs after 1 warm-up) a full run takes
about 15 minutes on two cores, most of it ResNet-50 at batch 32 (2.3 s a float run on one).

  /usr/bin/python3 bench/quantized_bench.py [--rows resnet18-b1,...] [--threads 1,2]
      [--rounds 5] [--runs 5] [--work DIR]
"""
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "test", "models"))
import bench_util  # noqa: E402  (sets OpenBLAS up before torch loads)

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.ao.quantization as tq  # noqa: E402
import torchvision.models.quantization as quantizable  # noqa: E402

import make_torchvision_onnx  # noqa: E402

ROWS = {"resnet18-b1": ("resnet18", 1), "resnet18-b32": ("resnet18", 32),
        "resnet50-b1": ("resnet50", 1), "resnet50-b32": ("resnet50", 32)}
PEERS = ("mxc fp32", "mxc int8", "mxc bf16", "ORT fp32", "ORT int8")
EXPORT = {p: "int8" if p.endswith("int8") else "fp32" for p in PEERS}  # which .onnx
BF16_TOLERANCE = 5e-2  # bfloat16 keeps 8 bits of mantissa: a sanity bound
FEATURES = ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_int8", "amx_bf16")
NO_BF16 = "n/a (mxc has no --precision=bf16 yet)"


def log(message):
    print(message, file=sys.stderr, flush=True)


def quantize(model, name):
    """`model`'s weights in torchvision's quantizable `name`, quantized as
    test/onnx/resnet18-int8.test.py does it; and its output's quantization step."""
    net = getattr(quantizable, name)(weights=None, quantize=False)
    net.load_state_dict(model.state_dict())
    net.eval().fuse_model()
    net.qconfig = tq.get_default_qconfig("fbgemm")
    tq.prepare(net, inplace=True)
    g = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for _ in range(3):
            net(torch.randn(4, 3, 224, 224, generator=g))
    tq.convert(net, inplace=True)
    return net, float(net.fc.scale)


class Row:
    models = {}  # name: (float model, quantized model, output step), shared by batches

    def __init__(self, key, work):
        self.key = key
        self.name, self.batch = ROWS[key]
        self.title = {"resnet18": "ResNet-18", "resnet50": "ResNet-50"}[self.name]
        self.onnx = {e: os.path.join(work, f"{key}-{e}.onnx") for e in ("fp32", "int8")}
        self.lib = {p: os.path.join(work, f"lib{key}-{p[4:]}.so") for p in PEERS[:3]}
        self.x = torch.randn(self.batch, 3, 224, 224,
                             generator=torch.Generator().manual_seed(2))
        self.npy = os.path.join(work, f"{key}_input.npy")
        np.save(self.npy, self.x.numpy())
        self.errors, self.diffs, self.times, self.compile_s = {}, {}, {}, {}
        self.int8 = None  # (outputs that differ, of how many, most steps)

    def export(self):
        if self.name not in Row.models:
            model = make_torchvision_onnx.make_model(self.name)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                Row.models[self.name] = (model, *quantize(model, self.name))
        model, qmodel, self.step = Row.models[self.name]
        with warnings.catch_warnings():  # the exporter's notes on quantized ops
            warnings.simplefilter("ignore")
            for e, net in (("fp32", model), ("int8", qmodel)):
                torch.onnx.export(net, self.x, self.onnx[e], opset_version=13,
                                  input_names=["input"], output_names=["logits"])

    def reference(self):
        with torch.no_grad():
            return Row.models[self.name][0](self.x).numpy().astype(np.float64)


class Peers:
    def __init__(self, args):
        self.args = args
        self.env = dict(os.environ, NODE_PATH=os.path.join(HERE, ".peers", "node_modules"))
        self.ort_version = None
        usage = subprocess.run([args.mxc, "--help"], capture_output=True, text=True).stdout
        self.bf16 = "--precision" in usage

    def compile(self, row):
        for peer, flags in (("mxc fp32", []), ("mxc int8", []),
                            ("mxc bf16", ["--precision=bf16"])):
            if peer == "mxc bf16" and not self.bf16:
                row.errors[peer] = NO_BF16
                continue
            start = time.perf_counter()
            r = subprocess.run([self.args.mxc, row.onnx[EXPORT[peer]], "-o", row.lib[peer],
                                "--quiet", *flags], capture_output=True, text=True)
            if r.returncode != 0:
                row.errors[peer] = "compile failed: " + bench_util.first_lines(r)
            else:
                row.compile_s[peer] = time.perf_counter() - start

    def measure(self, peer, row, threads, warmup, runs, out_dir=None):
        if peer.startswith("mxc"):
            cmd = [self.args.mxrun, row.lib[peer], "--json", "--threads", str(threads),
                   "--warmup", str(warmup), "--bench", str(runs)]
            env = None
        else:
            cmd = ["node", os.path.join(HERE, "ort_run.js"), row.onnx[EXPORT[peer]],
                   "--threads", str(threads), "--warmup", str(warmup), "--runs", str(runs)]
            env = self.env
        cmd += ["--input", f"input={row.npy}"]
        if out_dir:
            cmd += ["--output-dir", out_dir]
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if r.returncode != 0:
            raise RuntimeError(bench_util.first_lines(r))
        if peer.startswith("ORT") and r.stderr.strip():
            log(f"{row.key}, {peer}: {r.stderr.strip()}")
        out = json.loads(r.stdout)
        if peer.startswith("ORT"):
            self.ort_version = out["version"]
            return out["median_ms"]
        return out["bench"]["median_ms"]

    def check(self, row, tolerance):
        """Runs every peer once at one thread: the float ones against PyTorch (into
        row.diffs), mxc int8 against ORT int8 (row.int8)."""
        outputs = {}
        for peer in PEERS:
            if peer in row.errors:
                continue
            out_dir = os.path.join(self.args.work, "out", row.key, peer.replace(" ", "-"))
            try:
                self.measure(peer, row, 1, 0, 1, out_dir)
            except RuntimeError as e:
                row.errors[peer] = f"run failed: {e}"
                continue
            outputs[peer] = np.load(os.path.join(out_dir, "logits.npy"))
        ref = row.reference()
        for peer in ("mxc fp32", "mxc bf16", "ORT fp32"):
            if peer not in outputs:
                continue
            out = outputs[peer]
            worst = (float(np.abs(out - ref).max() / max(np.abs(ref).max(), 1e-30))
                     if out.shape == ref.shape else float("inf"))
            row.diffs[peer] = worst
            bound = BF16_TOLERANCE if peer == "mxc bf16" else tolerance
            if not worst <= bound:
                row.errors[peer] = f"output differs from PyTorch's by {worst:.2g}"
        if "mxc int8" in outputs and "ORT int8" in outputs:
            ours, theirs = outputs["mxc int8"], outputs["ORT int8"]
            off = np.rint(np.abs(ours.astype(np.float64) - theirs) / row.step)
            row.int8 = (int(np.count_nonzero(ours != theirs)), ours.size, int(off.max()))
            log(f"{row.key}: mxc int8 vs ORT int8: {row.int8[0]} of {row.int8[1]} outputs "
                f"differ, by at most {row.int8[2]} steps of {row.step:.3g}")


def kernel_paths(mxrun):
    """libmxrt's path for each kernel family (mxrt_kernel_path), from the build folder
    beside `mxrun`; "bgemm" only where the library names one."""
    lib = ctypes.CDLL(os.path.join(os.path.dirname(os.path.dirname(mxrun)), "lib",
                                   "libmxrt.so"))
    path = lib.mxrt_kernel_path
    path.restype, path.argtypes = ctypes.c_char_p, [ctypes.c_char_p]
    found = {f: path(f.encode()) for f in ("gemm", "qgemm", "bgemm")}
    return ", ".join(f"{f} {p.decode()}" for f, p in found.items() if p)


def cpu_features():
    with open("/proc/cpuinfo") as f:
        flags = next((line.split(":", 1)[1].split() for line in f
                      if line.startswith("flags")), [])
    has = [f for f in FEATURES if f in flags]
    lacks = [f for f in FEATURES if f not in flags]
    return " ".join(has) + (f" (no {', '.join(lacks)})" if lacks else "")


def ratio(ms, a, b):
    return f"{ms[a] / ms[b]:.2f}" if a in ms and b in ms else "–"


def table(args, rows):
    out = ["| model | batch | threads | " + " | ".join(f"{p} (ms)" for p in PEERS) +
           " | int8 speed-up (mxc fp32 / int8) | mxc int8 / ORT int8 "
           "| bf16 speed-up (mxc fp32 / bf16) |",
           "|---|---:|---:|" + "---:|" * (len(PEERS) + 3)]
    for row in rows:
        for t in args.threads:
            ms = {p: float(np.median(row.times[(p, t)])) for p in PEERS
                  if row.times.get((p, t))}
            cells = [f"{ms[p]:.2f}" if p in ms else row.errors.get(p, "–") for p in PEERS]
            out.append(f"| {row.title} | {row.batch} | {t} | " + " | ".join(cells) +
                       f" | {ratio(ms, 'mxc fp32', 'mxc int8')} | "
                       f"{ratio(ms, 'mxc int8', 'ORT int8')} | "
                       f"{ratio(ms, 'mxc fp32', 'mxc bf16')} |")
    out += ["", "| model | batch | mxc fp32 vs PyTorch | ORT fp32 vs PyTorch "
            "| mxc bf16 vs PyTorch | mxc int8 vs ORT int8 | mxc compile fp32 / int8 / bf16 (s) |",
            "|---|---:|---:|---:|---:|---|---:|"]
    for row in rows:
        diff = lambda p: f"{row.diffs[p]:.1e}" if p in row.diffs else "–"
        int8 = (f"{row.int8[0]} of {row.int8[1]} differ, at most {row.int8[2]} steps"
                if row.int8 else "–")
        compile_s = " / ".join(f"{row.compile_s[p]:.1f}" if p in row.compile_s else "–"
                               for p in PEERS[:3])
        out.append(f"| {row.title} | {row.batch} | {diff('mxc fp32')} | {diff('ORT fp32')} "
                   f"| {diff('mxc bf16')} | {int8} | {compile_s} |")
    return "\n".join(out)


def main():
    args = bench_util.rounds_args(__doc__, ROWS)
    torch.set_num_threads(os.cpu_count())
    load = os.getloadavg()[0]
    paths = kernel_paths(args.mxrun)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mxc-quantized-bench-") as tmp:
        args.work = args.work or tmp
        os.makedirs(args.work, exist_ok=True)
        bench_util.ensure_onnxruntime_node(os.path.join(HERE, ".peers"))
        peers = Peers(args)
        rows = [Row(key, args.work) for key in args.rows]
        bench_util.prepare_rows(rows, peers, args.tolerance, log)
        bench_util.time_rounds(args, rows, peers, PEERS, log)
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{bench_util.cpu_name()} ({os.cpu_count()} CPUs): {cpu_features()}. "
          f"mxc's kernel paths: {paths}.\n")
    print(f"{bench_util.mxc_version(args.mxc)}; onnxruntime-node {peers.ort_version or '?'} "
          f"(Node.js {node}); torch {torch.__version__} eager post-training quantization "
          f"(fbgemm, per-channel) exported as QDQ. Each time the median of {args.rounds} "
          f"interleaved rounds' medians of {args.runs} runs (after {args.warmup} untimed); "
          f"a speed-up above 1 means the int8 or bf16 library is faster, a ratio to ORT "
          f"below 1 that mxc is. Load average {load:.1f} at the start, "
          f"{os.getloadavg()[0]:.1f} at the end.\n")
    print(table(args, rows))
    log(f"done in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
