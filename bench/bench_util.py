# SPDX-License-Identifier: Apache-2.0
"""What the Python benchmarks share, as bench_util.h does for the C ones: the
start of their command line (where the built mxc and mxrun are) and the mxc
version line their reports cite, and the OpenBLAS settings under PyTorch
(import this module before torch)."""
import argparse
import ctypes
import os
import struct
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tool_parser(doc):
    """A parser that prints `doc` as written, with --mxc and --mxrun
    defaulting to the build folder's."""
    p = argparse.ArgumentParser(description=doc,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mxc", default=os.path.join(ROOT, "build", "bin", "mxc"))
    p.add_argument("--mxrun", default=os.path.join(ROOT, "build", "bin", "mxrun"))
    return p


def rounds_args(doc, rows):
    """The arguments of a bench of interleaved rounds over `rows` (names), parsed:
    tool_parser's, --rows (a comma-separated subset, all by default), --threads, --rounds,
    --runs, --warmup, --tolerance and --work; args.threads a list, args.rows the names
    asked for. Exits with a usage error on an unknown row or fewer than one round or run."""
    p = tool_parser(doc)
    p.add_argument("--rows", default=",".join(rows),
                   help="comma-separated subset of " + ",".join(rows))
    p.add_argument("--threads", default="1,2", help="thread counts (default 1,2)")
    p.add_argument("--rounds", type=int, default=5,
                   help="interleaved rounds; each time is the median of the rounds' "
                        "medians (default 5)")
    p.add_argument("--runs", type=int, default=5,
                   help="timed runs per peer, row and thread count in each round "
                        "(default 5)")
    p.add_argument("--warmup", type=int, default=1,
                   help="untimed runs before each round's timed ones (default 1)")
    p.add_argument("--tolerance", type=float, default=1e-4,
                   help="largest max |diff| / max |PyTorch's output| (default 1e-4)")
    p.add_argument("--work", help="keep the models, libraries and outputs here "
                                  "(default: a temporary folder)")
    args = p.parse_args()
    args.threads = [int(t) for t in args.threads.split(",")]
    args.rows = args.rows.split(",")
    unknown = set(args.rows) - set(rows)
    if unknown or args.rounds < 1 or args.runs < 1:
        p.error(f"unknown rows: {', '.join(sorted(unknown))}" if unknown else
                "--rounds and --runs must be at least 1")
    return args


ORT_VERSION = "1.30.0"


def ensure_onnxruntime_node(peers_dir, version=ORT_VERSION, install=True):
    """npm's onnxruntime-node `version` in `peers_dir` (bench/.peers), installed
    unless there (or, with `install` False, an exit saying so)."""
    import json
    import shutil
    import sys
    for tool in ("node", "npm"):
        if not shutil.which(tool):
            sys.exit(f"`{tool}` not found: install Node.js and npm "
                     "(e.g. apt-get install nodejs npm)")
    package = os.path.join(peers_dir, "node_modules", "onnxruntime-node", "package.json")
    if os.path.exists(package) and json.load(open(package))["version"] == version:
        return
    if not install:
        sys.exit(f"onnxruntime-node {version} is not in {peers_dir} "
                 "(run without --no-install)")
    print(f"installing onnxruntime-node@{version} into {peers_dir} ...", file=sys.stderr,
          flush=True)
    os.makedirs(peers_dir, exist_ok=True)
    subprocess.run(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund",
                    "--prefix", peers_dir, "onnxruntime-node@" + version], check=True,
                   stdout=subprocess.DEVNULL)


def first_lines(r):
    """A failed command's first two lines of stderr, fit for a table cell."""
    text = r.stderr.strip() or f"exit status {r.returncode}"
    return " ".join(text.splitlines()[:2]).replace("|", "\\|")


def prepare_rows(rows, peers, tolerance, log):
    """Exports, compiles and checks each row (its export(), the peers' compile() and
    check()), logging how each peer's output compares with PyTorch's."""
    for row in rows:
        log(f"{row.key}: exporting, compiling with mxc, checking ...")
        row.export()
        peers.compile(row)
        peers.check(row, tolerance)
        log(f"{row.key}: " + "; ".join(
            [f"{p} vs PyTorch {d:.1e}" for p, d in row.diffs.items()] +
            [f"{p}: {e}" for p, e in row.errors.items()]))


def time_rounds(args, rows, peers, names, log, before_round=None):
    """Interleaved rounds: in each, every peer in `names` (but those a row's errors
    name) times every row at every thread count (peers.measure), appended to
    row.times[(peer, threads)]; a failed run becomes the row's error for that peer.
    `before_round(r)` runs first in each round."""
    for r in range(args.rounds):
        if before_round:
            before_round(r)
        for row in rows:
            for t in args.threads:
                for peer in names:
                    if peer in row.errors:
                        continue
                    log(f"round {r + 1}/{args.rounds}: {row.key}, {peer}, {t} thread(s)")
                    try:
                        ms = peers.measure(peer, row, t, args.warmup, args.runs)
                    except RuntimeError as e:
                        row.errors[peer] = f"run failed: {e}"
                        continue
                    row.times.setdefault((peer, t), []).append(ms)


def mxc_version(mxc):
    """The first line of `mxc --version`."""
    return subprocess.run([mxc, "--version"], capture_output=True,
                          text=True).stdout.strip().splitlines()[0]


def cpu_name():
    """The CPU's model name from /proc/cpuinfo, or on ARM (whose cpuinfo
    has only part numbers) lscpu's decoding of them ("Neoverse-V1")."""
    with open("/proc/cpuinfo") as f:
        name = next((line.split(":", 1)[1].strip() for line in f
                     if line.startswith("model name")), None)
    if name:
        return name
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    except OSError:
        return "unknown CPU"
    fields = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    vendor = fields.get("Vendor ID", "").strip()
    model = fields.get("Model name", "").strip()
    return " ".join(x for x in (vendor, model) if x) or "unknown CPU"


def openblas_coretype():
    """The OpenBLAS kernels for this CPU's SIMD: SkylakeX with AVX-512,
    Haswell with AVX2, else None (let OpenBLAS choose)."""
    try:
        flags = open("/proc/cpuinfo").read().split()
    except OSError:
        return None
    if "avx512f" in flags:
        return "SkylakeX"
    return "Haswell" if "avx2" in flags else None


# Debian's OpenBLAS (the SGEMM peer, and PyTorch's BLAS) is built with
# DYNAMIC_ARCH: it picks its kernels by CPU model and falls back to
# Prescott (SSE3) on a model it does not know, as on VMs that report a
# generic "Intel(R) Xeon(R) Processor" (26 against ~100 GFLOP/s). Name the
# kernels for the SIMD the CPU has, unless the caller did; this must happen
# before torch loads OpenBLAS.
if openblas_coretype() and "OPENBLAS_CORETYPE" not in os.environ:
    os.environ["OPENBLAS_CORETYPE"] = openblas_coretype()


def set_openblas_threads(threads):
    """Limits the OpenBLAS that PyTorch's matrix products call (Debian's
    torch links libopenblas, which has its own pthreads pool and takes
    every core whatever torch.set_num_threads says: its SGEMM ran faster
    on "one thread" than one core's peak)."""
    try:
        ctypes.CDLL("libopenblas.so.0").openblas_set_num_threads(threads)
    except (OSError, AttributeError):
        pass


def read_params(path):
    """name -> array from an MXNet .params file (V2/V3 float32 records)."""
    import numpy as np
    with open(path, "rb") as f:
        data = f.read()
    pos = 0

    def take(fmt):
        nonlocal pos
        v = struct.unpack_from(fmt, data, pos)
        pos += struct.calcsize(fmt)
        return v

    magic, _, count = take("<QQQ")
    assert magic == 0x112, hex(magic)
    arrays = []
    for _ in range(count):
        nd_magic, _ = take("<Ii")
        assert nd_magic in (0xF993FAC9, 0xF993FACA), hex(nd_magic)
        (ndim,) = take("<I")
        shape = take("<%dq" % ndim)
        _, _, flag = take("<iii")
        assert flag == 0, flag
        n = int(np.prod(shape)) if ndim else 1
        arrays.append(np.frombuffer(data, "<f4", n, pos).reshape(shape))
        pos += 4 * n
    (names,) = take("<Q")
    out = {}
    for a in arrays:
        (length,) = take("<Q")
        out[data[pos:pos + length].decode()] = a
        pos += length
    return out
