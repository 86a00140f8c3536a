#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Inference latency of mxc against ONNX Runtime and PyTorch (issue #6), in
one run, on the same models, weights and inputs: MLP 784-256-10, LeNet
(batch 1 and 64), the CIFAR-10 ResNet-20 v1 of ../shared/testdata, ResNet-18
at 224x224, and SGEMM 1024^3 in GFLOP/s (with OpenBLAS and the machine's
peak), at 1 and 2 threads; also mxc's compile times.

Peers: ONNX Runtime through its Node binding (npm onnxruntime-node, installed
into bench/.peers by this script; bench/ort_run.js), PyTorch (Debian's
python3-torch, eager, inference mode, in this process), OpenBLAS (Debian's
libopenblas-dev, cblas_sgemm in bench/sgemm.c, compiled here). mxc compiles
the ONNX export of each PyTorch model (the MXNet JSON + .params for ResNet-20)
and mxrun times the library; at one thread the SGEMM library and OpenBLAS
are timed call by call in turn in one process (bench/sgemm_pair.c). Before
any timing, every peer's outputs must agree with PyTorch's; the script stops
otherwise.

    /usr/bin/python3 bench/perf_bench.py [--quick] [--write docs/performance.md]
    /usr/bin/python3 bench/perf_bench.py --check-only --rows mlp --no-install
"""
import datetime
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

import bench_util  # noqa: E402  (names OpenBLAS's kernels before torch loads it)

import numpy as np  # noqa: E402
import torch  # noqa: E402

from bench_util import set_openblas_threads  # noqa: E402
import perf_models as models  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TESTDATA = os.path.join(ROOT, "..", "shared", "testdata", "mxnet")
ORT_VERSION = bench_util.ORT_VERSION
ROW_KEYS = ["mlp", "lenet", "lenet64", "resnet20", "resnet18", "sgemm"]
SGEMM_N = 1024
PEERS = ["mxc", "ORT", "PyTorch", "OpenBLAS"]


def log(message):
    print(message, file=sys.stderr, flush=True)


def run(cmd, **kwargs):
    """Runs `cmd`, failing with its stderr when it fails."""
    r = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if r.returncode != 0:
        sys.exit(f"perf_bench: failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr}")
    return r.stdout


class Workload:
    """One row: a PyTorch callable and its inputs, the ONNX model ORT runs,
    and what mxc compiles (the ONNX model unless `mxc_source` is given)."""

    def __init__(self, key, title, batch, fn, inputs, onnx, mxc_source=None,
                 expected=None, flops=None):
        self.key, self.title, self.batch = key, title, batch
        self.fn, self.inputs, self.onnx = fn, inputs, onnx
        self.mxc_source = mxc_source or [onnx]
        self.expected = expected  # an independent reference output, if any
        self.flops = flops
        self.peers = ["mxc", "ORT", "PyTorch"] + (["OpenBLAS"] if key == "sgemm" else [])
        self.lib = None
        self.compile_s = None
        self.errors = {}    # peer -> scaled error against PyTorch
        self.estimate = {}  # peer -> first timed run (ms), to size the timed runs
        self.times = {}     # (peer, threads) -> {"median_ms", "min_ms", "runs", ...}

    @property
    def label(self):
        return self.title if self.key == "sgemm" else f"{self.title} batch {self.batch}"


def make_workload(key, work):
    """Row `key`, its model exported to ONNX in `work`; None when its data is
    absent. Inputs are seeded per row, so a subset of rows sees the same."""
    rng = np.random.default_rng([models.SEED, ROW_KEYS.index(key)])
    path = os.path.join(work, key + ".onnx")
    if key == "sgemm":
        a, b = (rng.uniform(-1, 1, (SGEMM_N, SGEMM_N)).astype(np.float32) for _ in range(2))
        models.matmul_onnx(SGEMM_N, path)
        return Workload(key, f"SGEMM {SGEMM_N}^3", SGEMM_N, torch.matmul, {"A": a, "B": b},
                        path, flops=2 * SGEMM_N ** 3)
    mxc_source = expected = None
    if key == "mlp":
        net, x = models.seeded(models.mlp), rng.standard_normal((1, 784))
        title, batch = "MLP 784-256-10", 1
    elif key in ("lenet", "lenet64"):
        batch = 64 if key == "lenet64" else 1
        net, x = models.seeded(models.lenet), rng.random((batch, 1, 28, 28))
        title = "LeNet"
    elif key == "resnet18":
        net, x = models.seeded(models.resnet18), rng.standard_normal((1, 3, 224, 224))
        title, batch = "ResNet-18 224x224", 1
    else:
        assert key == "resnet20"
        params = os.path.join(TESTDATA, "cifar_resnet20_v1-0000.params")
        if not os.path.exists(params):
            log(f"skipping ResNet-20: {TESTDATA} is absent (see README)")
            return None
        net = models.CifarResNet20V1(models.read_mxnet_params(params))
        x = np.load(os.path.join(TESTDATA, "cifar_resnet20_v1_ref_in.npy"))
        expected = np.load(os.path.join(TESTDATA, "cifar_resnet20_v1_ref_out.npy"))
        mxc_source = [os.path.join(TESTDATA, "cifar_resnet20_v1-symbol.json"),
                      "--params", params]
        title, batch = "CIFAR ResNet-20 v1", 1
    x = x.astype(np.float32)
    models.export_onnx(net, x, path)
    return Workload(key, title, batch, net, {"data": x}, path, mxc_source, expected)


# ---------------------------------------------------------------------------
# The peers: each runs a workload, optionally writing its output, and times it
# ---------------------------------------------------------------------------

class Peers:
    def __init__(self, args, work):
        self.args, self.work = args, work
        self.mxrun_threads = "--threads" in run([args.mxrun, "--help"])
        self.env = dict(os.environ, NODE_PATH=os.path.join(args.peers_dir, "node_modules"))
        self.versions = {"PyTorch": torch.__version__}
        self.sgemm = self.sgemm_pair = None

    # -- setup --------------------------------------------------------------

    def install(self, openblas):
        """Installs onnxruntime-node unless there, and builds sgemm.c if
        `openblas`."""
        version = self.args.ort_version
        bench_util.ensure_onnxruntime_node(self.args.peers_dir, version,
                                           not self.args.no_install)
        self.versions["ORT"] = f"onnxruntime-node {version} (Node.js " \
            + run(["node", "--version"]).strip() + ")"
        if openblas:
            cc = os.environ.get("CC") or shutil.which("cc") or "clang-22"
            pkg = shutil.which("pkg-config") and subprocess.run(
                ["pkg-config", "--cflags", "--libs", "openblas"], capture_output=True, text=True)
            flags = pkg.stdout.split() if pkg and pkg.returncode == 0 else ["-lopenblas"]
            self.sgemm = os.path.join(self.work, "sgemm")
            r = subprocess.run([cc, "-O2", "-o", self.sgemm, os.path.join(HERE, "sgemm.c")]
                               + flags, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit("perf_bench: cannot build bench/sgemm.c against OpenBLAS "
                         f"(apt-get install libopenblas-dev):\n{r.stderr}")
            self.sgemm_pair = self.build_pair(cc, flags)

    def build_pair(self, cc, blas_flags):
        """bench/sgemm_pair.c built against the libmxrt beside mxrun
        (<prefix>/bin/mxrun, <prefix>/lib), or None (it then times the
        one-thread SGEMM in separate processes, as the other rows)."""
        prefix = os.path.dirname(os.path.dirname(os.path.abspath(self.args.mxrun)))
        lib = os.path.join(prefix, "lib")
        includes = [d for d in (os.path.join(prefix, "include"),
                                os.path.join(ROOT, "runtime", "include"))
                    if os.path.exists(os.path.join(d, "mxrt", "mxrt.h"))]
        if not includes:
            log("no mxrt/mxrt.h found: one-thread SGEMM timed in separate processes")
            return None
        exe = os.path.join(self.work, "sgemm_pair")
        r = subprocess.run([cc, "-O2", "-o", exe, os.path.join(HERE, "sgemm_pair.c"),
                            "-I" + includes[0], "-L" + lib, "-lmxrt", "-Wl,-rpath," + lib]
                           + blas_flags + ["-lm"], capture_output=True, text=True)
        if r.returncode != 0:
            log(f"cannot build bench/sgemm_pair.c ({r.stderr.strip()[:200]}): "
                "one-thread SGEMM timed in separate processes")
            return None
        return exe

    def measure_pair(self, w, warmup, runs):
        """{"mxc": times, "OpenBLAS": times} of the one-thread SGEMM, the two
        timed call by call in turn in one process (bench/sgemm_pair.c)."""
        out = json.loads(run([self.sgemm_pair, w.lib, str(w.batch), str(warmup), str(runs)]
                             + list(w.raw)))
        if not out["difference"] <= self.args.tolerance:
            sys.exit(f"perf_bench: sgemm_pair: mxc and OpenBLAS differ by "
                     f"{out['difference']:.3g} (scaled)")
        return out

    def prepare(self, w):
        """Writes the inputs (.npy; raw for OpenBLAS) and compiles the model."""
        w.npy, w.raw = {}, []
        for name, x in w.inputs.items():
            w.npy[name] = os.path.join(self.work, f"{w.key}_{name}.npy")
            np.save(w.npy[name], x)
            if "OpenBLAS" in w.peers:
                w.raw.append(os.path.join(self.work, f"{w.key}_{name}.bin"))
                x.tofile(w.raw[-1])
        w.lib = os.path.join(self.work, f"lib{w.key}.so")
        shapes = []
        for name, x in w.inputs.items():
            shapes += ["--input", f"{name}=" + "x".join(map(str, x.shape))]
        start = time.perf_counter()
        run([self.args.mxc] + w.mxc_source + shapes + ["-o", w.lib])
        w.compile_s = time.perf_counter() - start

    # -- running ------------------------------------------------------------

    def measure(self, peer, w, threads, warmup, runs, out_dir=None):
        """{"median_ms", "min_ms", "runs"} of `runs` timed runs after one
        untimed run, whose output goes into `out_dir`, and `warmup` more."""
        warmup = str(warmup)
        if peer == "mxc":
            cmd = [self.args.mxrun, w.lib, "--bench", str(runs), "--warmup", warmup,
                   "--json"]
            if self.mxrun_threads:
                cmd += ["--threads", str(threads)]
            for name, path in w.npy.items():
                cmd += ["--input", f"{name}={path}"]
            if out_dir:
                cmd += ["--output-dir", out_dir]
            return json.loads(run(cmd))["bench"]
        if peer == "ORT":
            cmd = ["node", os.path.join(HERE, "ort_run.js"), w.onnx, "--threads",
                   str(threads), "--warmup", warmup, "--runs", str(runs)]
            for name, path in w.npy.items():
                cmd += ["--input", f"{name}={path}"]
            if out_dir:
                cmd += ["--output-dir", out_dir]
            return json.loads(run(cmd, env=self.env))
        if peer == "OpenBLAS":
            files = list(w.raw)
            if out_dir:
                os.makedirs(out_dir, exist_ok=True)
                files.append(os.path.join(out_dir, "C.bin"))
            out = json.loads(run([self.sgemm, str(w.batch), str(threads), warmup,
                                  str(runs)] + files))
            self.versions["OpenBLAS"] = out["config"]
            if out_dir:
                n = w.batch
                np.save(os.path.join(out_dir, "C.npy"),
                        np.fromfile(files[-1], np.float32).reshape(n, n))
                os.remove(files[-1])
            return out
        assert peer == "PyTorch"
        torch.set_num_threads(threads)
        set_openblas_threads(threads)
        tensors = [torch.from_numpy(x) for x in w.inputs.values()]
        times = []
        with torch.inference_mode():
            y = w.fn(*tensors)
            for _ in range(int(warmup)):
                w.fn(*tensors)
            for _ in range(runs):
                start = time.perf_counter()
                w.fn(*tensors)
                times.append((time.perf_counter() - start) * 1e3)
        if out_dir:
            os.makedirs(out_dir, exist_ok=True)
            np.save(os.path.join(out_dir, "out.npy"), y.numpy())
        times.sort()
        return {"median_ms": float(np.median(times)), "min_ms": times[0], "runs": runs}


def output_of(out_dir):
    files = [f for f in os.listdir(out_dir) if f.endswith(".npy")]
    if len(files) != 1:
        sys.exit(f"perf_bench: expected one output in {out_dir}, found {files}")
    return np.load(os.path.join(out_dir, files[0]))


def scaled_error(x, ref):
    """max |x - ref| over max(1, max |ref|): absolute for small outputs,
    relative to the output's scale for large ones."""
    if x.shape != ref.shape:
        return math.inf
    return float(np.abs(x.astype(np.float64) - ref).max() / max(1.0, np.abs(ref).max()))


def plan(args, estimate_ms):
    """(warm-up runs, timed runs) for a peer whose run took about
    `estimate_ms`: as many runs as fill the budget, within [min_runs,
    max_runs], but no more than fit in the cap (and at least 3); 3 warm-up
    runs after the first untimed one, none where one run outlasts the budget."""
    runs = min(args.max_runs, max(args.min_runs, math.ceil(args.budget * 1e3 / estimate_ms)))
    runs = max(3, min(runs, int(args.cap * 1e3 / estimate_ms)))
    return (0 if estimate_ms > args.budget * 1e3 else 3), runs


def check(peers, w, tolerance):
    """Runs every peer once at 1 thread; returns the disagreements."""
    failures = []
    outputs = {}
    for peer in ["PyTorch"] + [p for p in w.peers if p != "PyTorch"]:
        out_dir = os.path.join(peers.work, "out", w.key, peer)
        shutil.rmtree(out_dir, ignore_errors=True)
        w.estimate[peer] = peers.measure(peer, w, 1, 0, 1, out_dir)["median_ms"]
        outputs[peer] = output_of(out_dir)
    ref = outputs["PyTorch"]
    if w.expected is not None:
        w.errors["PyTorch"] = scaled_error(ref, w.expected)
    for peer, out in outputs.items():
        if peer != "PyTorch":
            w.errors[peer] = scaled_error(out, ref)
    for peer, err in w.errors.items():
        if not err <= tolerance:
            against = "the recorded reference" if peer == "PyTorch" else "PyTorch"
            failures.append(f"{w.label}: {peer} differs from {against} "
                            f"by {err:.3g} (scaled; tolerance {tolerance:g})")
    return failures


# ---------------------------------------------------------------------------
# The machine
# ---------------------------------------------------------------------------

def c_probe(source):
    """What bench/<source>, compiled with the C compiler and run, prints, as
    a float; None when there is no compiler or it fails."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("clang-22")
    if not cc:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "probe")
        if subprocess.run([cc, "-O2", "-pthread", "-o", exe, os.path.join(HERE, source)],
                          capture_output=True).returncode != 0:
            return None
        r = subprocess.run([exe], capture_output=True, text=True)
        return float(r.stdout) if r.returncode == 0 else None


def measured_ghz():
    """The clock one busy core runs at (bench/clock.c), or None (not x86-64,
    no C compiler)."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    return c_probe("clock.c")


def core_round_trip_ns():
    """The cache-line round trip between CPU 0 and CPU 1 in ns
    (bench/corelat.c), or None (one CPU, no C compiler)."""
    return c_probe("corelat.c") if (os.cpu_count() or 1) >= 2 else None


def machine(args):
    info = {}
    for line in run(["lscpu"]).splitlines():
        key, _, value = line.partition(":")
        info[key.strip()] = value.strip()
    flags = set(info.get("Flags", "").split())
    cores = int(info.get("Core(s) per socket", 1)) * int(info.get("Socket(s)", 1))
    lanes = 16 if "avx512f" in flags else 8 if {"avx2", "fma"} <= flags else 4
    clock = None if args.ghz else measured_ghz()
    if args.ghz:
        ghz, source = args.ghz, "--ghz"
    elif clock:
        ghz, source = clock, "measured by bench/clock.c"
    elif info.get("CPU max MHz"):
        ghz, source = float(info["CPU max MHz"]) / 1e3, "lscpu CPU max MHz"
    else:
        with open("/proc/cpuinfo") as f:
            mhz = [float(l.split(":")[1]) for l in f if l.startswith("cpu MHz")]
        ghz, source = max(mhz) / 1e3, "/proc/cpuinfo cpu MHz"
    simd = [f for f in ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512_vnni",
                        "avx512_bf16", "amx_tile") if f in flags]
    return {"model": info.get("Model name", platform.processor()), "cores": cores,
            "cpus": int(info.get("CPU(s)", cores)), "lanes": lanes, "ghz": ghz,
            "ghz_source": source, "simd": simd}


def peak_gflops(m, fma_units, threads):
    """cores x FMA units per core x float32 lanes x 2 flops per FMA x GHz."""
    return min(threads, m["cores"]) * fma_units * m["lanes"] * 2 * m["ghz"]


# ---------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------

def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "–"


def tables(args, workloads, m, mxrun_threads):
    """The latency, SGEMM and compile-time tables, as Markdown."""
    out = []
    note = "" if mxrun_threads else "¹"
    thread_list = args.threads
    nets = [w for w in workloads if w.key != "sgemm"]
    sgemm = next((w for w in workloads if w.key == "sgemm"), None)

    def ms(w, peer, t):
        r = w.times.get((peer, t))
        return f"{r['median_ms']:.3f}" if r else "–"

    if nets:
        out += ["| model | batch | threads | mxc (ms) | ONNX Runtime (ms) | PyTorch (ms) "
                "| mxc / ORT | mxc / PyTorch |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for w in nets:
            for t in thread_list:
                mxc = w.times.get(("mxc", t), {}).get("median_ms")
                ort = w.times.get(("ORT", t), {}).get("median_ms")
                pt = w.times.get(("PyTorch", t), {}).get("median_ms")
                out.append(f"| {w.title} | {w.batch} | {t} | {ms(w, 'mxc', t)}"
                           f"{note if t > 1 else ''} | {ms(w, 'ORT', t)} | {ms(w, 'PyTorch', t)} "
                           f"| {ratio(mxc, ort)} | {ratio(mxc, pt)} |")
        out.append("")
    if sgemm:
        out += [f"SGEMM {SGEMM_N}x{SGEMM_N}x{SGEMM_N} (float32, GFLOP/s, higher is better; "
                "peak = cores x FMA units x lanes x 2 x GHz):", "",
                "| threads | mxc | OpenBLAS | ONNX Runtime | PyTorch | peak | mxc % of peak "
                "| OpenBLAS % of peak | mxc / OpenBLAS (time) |",
                "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for t in thread_list:
            gf = {p: sgemm.flops / (sgemm.times[(p, t)]["median_ms"] * 1e6)
                  for p in sgemm.peers if (p, t) in sgemm.times}
            peak = peak_gflops(m, args.fma_units, t)
            cells = [f"{gf[p]:.1f}" if p in gf else "–"
                     for p in ("mxc", "OpenBLAS", "ORT", "PyTorch")]
            if t > 1:
                cells[0] += note
            pct = [f"{100 * gf[p] / peak:.1f}%" if p in gf else "–" for p in ("mxc", "OpenBLAS")]
            out.append(f"| {t} | " + " | ".join(cells) + f" | {peak:.1f} | {pct[0]} | {pct[1]} "
                       f"| {ratio(gf.get('OpenBLAS'), gf.get('mxc'))} |")
        out.append("")
    out += ["mxc compile time (wall seconds of the `mxc` command, to lib<name>.so):", "",
            "| model | source | compile (s) |", "|---|---|---:|"]
    for w in workloads:
        source = "MXNet JSON + .params" if w.mxc_source[0] != w.onnx else "ONNX"
        out.append(f"| {w.label} | {source} | {w.compile_s:.2f} |")
    out.append("")
    if not mxrun_threads:
        out += ["¹ this mxrun has no `--threads`: mxc ran single-threaded.", ""]

    return "\n".join(out).strip()


def round_trip_text(args):
    """What bench/corelat.c read before and after the timing."""
    trips = [t for t in (args.trip_before, args.trip_after) if t]
    if not trips:
        return ""
    return ("A cache line's round trip between the two CPUs took "
            f"{args.trip_before or 0:.0f} ns before the timing and "
            f"{args.trip_after or 0:.0f} ns after (bench/corelat.c): on a VM this "
            "says how near the hypervisor placed the vCPUs (here about 125 ns near, "
            "430-490 ns far), and two-thread speed-ups, every peer's, are lower when "
            "far (docs/kernels.md).")


def report(args, table, workloads, m, versions, mxc_version):
    """docs/performance.md: the tables with how, where and with what they were made."""
    peer_lines = [f"- mxc: {mxc_version}"] + [f"- {p}: {versions[p]}"
                                              for p in ("ORT", "PyTorch", "OpenBLAS")
                                              if p in versions]
    agreement = ["| model | mxc | ONNX Runtime | OpenBLAS | PyTorch vs recorded |",
                 "|---|---:|---:|---:|---:|"]
    for w in workloads:
        cells = [f"{w.errors[p]:.1e}" if p in w.errors else "–"
                 for p in ("mxc", "ORT", "OpenBLAS", "PyTorch")]
        agreement.append(f"| {w.label} | " + " | ".join(cells) + " |")
    prose = [
        f"Machine: {m['model']}, {m['cores']} cores ({m['cpus']} CPUs), {m['ghz']:.2f} GHz "
        f"({m['ghz_source']}); SIMD: {' '.join(m['simd'])}. Peak float32 assumes "
        f"{args.fma_units} FMA units per core (`--fma-units`) of {m['lanes']} lanes. "
        f"Load average when the run began: {args.load:.2f}. "
        f"{round_trip_text(args)}" + (
            " The machine was busy: other processes took turns on these cores, which "
            "slows most of all the thread pools that spin while they wait, so the "
            "multi-threaded numbers especially say more about the load than about the peers."
            if args.load >= m["cores"] else ""),
        "Peers:\n\n" + "\n".join(peer_lines),
        "Latency in milliseconds, the median of many runs after warm-up, each peer on "
        "the same inputs with the same weights; a ratio below 1 means mxc is faster. "
        f"The runs come in {args.rounds} interleaved rounds (every peer of a row, then "
        "the next round), each peer's time the median of its rounds' medians, so that "
        "a slow stretch of the machine does not land on one peer alone.",
        table,
        "How: PyTorch builds each model with seeded weights (ResNet-20 loads GluonCV's "
        "`.params`) and exports it with `torch.onnx.export` (opset "
        f"{models.OPSET}); mxc compiles that ONNX file (ResNet-20: the MXNet JSON + "
        "`.params`) and `mxrun --bench N --warmup W --threads T` times "
        "`mxrt_instance_call`; ONNX Runtime runs the ONNX file through its Node binding "
        "(`bench/ort_run.js`, `intraOpNumThreads` T, sequential execution, all graph "
        "optimizations) and times `await session.run()`; PyTorch runs the eager module "
        "under `torch.inference_mode()` with `torch.set_num_threads(T)`, timed around "
        "the Python call; OpenBLAS is `cblas_sgemm` (`bench/sgemm.c`, "
        "`openblas_set_num_threads(T)`). " + (
            "At one thread, mxc's and OpenBLAS's SGEMM calls alternate in one process "
            "(`bench/sgemm_pair.c`: the compiled model through `mxrt_instance_run_raw`, "
            "then `cblas_sgemm`, on the same matrices), so that both see the same "
            "stretches of the machine's speed. " if args.paired else "") + "Each peer's run count (all rounds) fills about "
        f"{args.budget:g} s (at least {args.min_runs}, at most {args.max_runs}) after 4 "
        f"untimed runs; a slow peer makes as many runs as fit in {args.cap:g} s (at "
        "least 3) after 1. PyTorch's and ONNX Runtime's times include their "
        "Python or Node call overhead (some microseconds), as their users see it; "
        "mxc's is the C call. Other processes on the same cores show up in the "
        "medians: compare numbers from one run.",
        "Before timing, each peer's output was compared with PyTorch's: the largest "
        "absolute difference over max(1, largest |PyTorch output|), which must be at "
        f"most {args.tolerance:g}; ResNet-20's PyTorch output is also compared with the "
        "recorded reference output of ../shared/testdata.",
        "\n".join(agreement),
    ]
    command = "/usr/bin/python3 bench/perf_bench.py " + " ".join(sys.argv[1:])
    doc = ["# Performance: mxc vs ONNX Runtime, PyTorch and OpenBLAS",
           f"Generated on {datetime.date.today()} by\n\n```sh\n{command.strip()}\n```"]
    doc += [p if p.startswith(("|", "Peers")) or "\n|" in p else textwrap.fill(p, 90)
            for p in prose]
    return "\n\n".join(doc) + "\n"


def main():
    p = bench_util.tool_parser(__doc__)
    p.add_argument("--rows", default=",".join(ROW_KEYS),
                   help="comma-separated subset of " + ",".join(ROW_KEYS))
    p.add_argument("--threads", default="1,2", help="thread counts (default 1,2)")
    p.add_argument("--quick", action="store_true", help="fewer repetitions")
    p.add_argument("--rounds", type=int, default=11,
                   help="time every peer in this many interleaved rounds and report the "
                        "median of the rounds' medians (default 11: a VM's speed can "
                        "swing by a third from one second to the next)")
    p.add_argument("--check-only", action="store_true",
                   help="only check that the peers' outputs agree; no timing")
    p.add_argument("--tolerance", type=float, default=1e-4,
                   help="largest scaled output difference allowed (default 1e-4)")
    p.add_argument("--write", metavar="FILE", help="also write the report (Markdown) here")
    p.add_argument("--peers-dir", default=os.path.join(HERE, ".peers"),
                   help="where npm installs onnxruntime-node")
    p.add_argument("--ort-version", default=ORT_VERSION)
    p.add_argument("--no-install", action="store_true",
                   help="fail instead of installing a missing peer")
    p.add_argument("--fma-units", type=int, default=2,
                   help="FMA units per core for the peak (default 2, as on current "
                        "x86 server cores)")
    p.add_argument("--ghz", type=float, help="clock for the peak (default: measured by bench/clock.c)")
    p.add_argument("--work-dir", help="keep models and outputs here (default: a temporary "
                                      "folder)")
    a = p.parse_args()
    a.threads = [int(t) for t in a.threads.split(",")]
    a.budget, a.min_runs, a.max_runs, a.cap = \
        (0.25, 5, 200, 10.0) if a.quick else (1.0, 10, 2000, 30.0)
    if a.rounds < 1:
        p.error("--rounds must be at least 1")
    keys = a.rows.split(",")
    unknown = set(keys) - set(ROW_KEYS)
    if unknown:
        p.error("unknown rows: " + ", ".join(sorted(unknown)))

    torch.set_num_interop_threads(1)
    a.load = os.getloadavg()[0]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        work = a.work_dir or tmp
        os.makedirs(work, exist_ok=True)
        peers = Peers(a, work)
        peers.install(openblas="sgemm" in keys)
        log("exporting models ...")
        workloads = [w for w in (make_workload(k, work) for k in keys) if w]
        for w in workloads:
            log(f"compiling {w.label} with mxc ...")
            peers.prepare(w)
        failures = []
        for w in workloads:
            log(f"checking {w.label} ...")
            failures += check(peers, w, a.tolerance)
        if failures:
            sys.exit("perf_bench: the peers disagree, nothing timed:\n  " + "\n  ".join(failures))
        log("all outputs agree: " + "; ".join(
            f"{w.key} " + " ".join(f"{p} {e:.1e}" for p, e in w.errors.items())
            for w in workloads))
        if a.check_only:
            return
        a.trip_before = core_round_trip_ns()
        a.paired = bool(peers.sgemm_pair) and "sgemm" in keys and 1 in a.threads
        # Each peer's runs come in --rounds rounds, the peers of a row timed
        # one after another within a round: a stretch of seconds in which a
        # noisy VM runs slow then lands in one round of every peer rather
        # than in all of one peer's runs. A peer's time is the median of its
        # rounds' medians.
        cells = [(w, t, peer) for w in workloads for t in a.threads for peer in w.peers]
        plans = {(w.key, t, peer): plan(a, w.estimate[peer]) for w, t, peer in cells}
        rounds = {key: [] for key in plans}
        # The one-thread SGEMM's mxc and OpenBLAS calls alternate in one
        # process instead (bench/sgemm_pair.c): their ratio is the
        # acceptance line, and within one process both see every stretch.
        paired = lambda w, t, peer: (a.paired and w.key == "sgemm" and t == 1
                                     and peer in ("mxc", "OpenBLAS"))
        for r in range(a.rounds):
            for w, t, peer in cells:
                if paired(w, t, peer) and peer == "OpenBLAS":
                    continue  # timed with mxc's
                warmup, runs = plans[(w.key, t, peer)]
                runs = max(3, math.ceil(runs / a.rounds))
                log(f"timing {w.label}, {peer}, {t} thread(s), round {r + 1} of "
                    f"{a.rounds}, {runs} runs ...")
                if paired(w, t, peer):
                    both = peers.measure_pair(w, warmup, runs)
                    for side in ("mxc", "OpenBLAS"):
                        rounds[(w.key, t, side)].append(both[side])
                    continue
                rounds[(w.key, t, peer)].append(peers.measure(peer, w, t, warmup, runs))
        for w, t, peer in cells:
            got = rounds[(w.key, t, peer)]
            w.times[(peer, t)] = {
                "median_ms": float(np.median([g["median_ms"] for g in got])),
                "min_ms": min(g["min_ms"] for g in got),
                "runs": sum(g["runs"] for g in got)}
        a.trip_after = core_round_trip_ns()
    mxc_version = run([a.mxc, "--version"]).strip().splitlines()[0]
    m = machine(a)
    table = tables(a, workloads, m, peers.mxrun_threads)
    print(table)
    if a.trip_before or a.trip_after:
        log(round_trip_text(a))
    if a.write:
        with open(a.write, "w") as f:
            f.write(report(a, table, workloads, m, peers.versions, mxc_version))
        log(f"wrote {a.write}")
    log(f"done in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
