#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
#
# mxc --emit=onnx on the end-to-end fixtures (gen_fixtures.py's MXNet graphs with NumPy
# references): each case's model written as ONNX must pass onnx.checker and compute the
# case's references (within its tolerances) when another runtime runs it -- ONNX Runtime
# (npm onnxruntime-node in bench/.peers) where installed, and mxc's ONNX importer, which
# shares nothing with its MXNet one. A case the converter does not take must fail with one
# clear message (exit 1, naming what it does not convert, no file left behind). Prints
# `PASS` / `REFUSED` / `FAIL` per case, then a summary; exit 1 on any FAIL or when fewer
# than --min-converted cases converted.
"""Check mxc's MXNet -> ONNX export on the end-to-end fixtures.

  run_onnx_export.py --mxc PATH --mxrun PATH [--workdir DIR] [-j N] [--min-converted N]
                     CASE_DIR_OR_PARENT...
"""

import argparse
import concurrent.futures
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run_fixtures import (compare, describe_rc, find_cases, mxc_command, one_line,  # noqa: E402
                          run)

ORT_MODULES = os.path.join(HERE, "..", "..", "bench", ".peers", "node_modules")
ORT_CASE = os.path.join(HERE, "..", "onnx", "ort_case.js")
HAVE_ORT = bool(shutil.which("node")) and os.path.isdir(os.path.join(ORT_MODULES,
                                                                       "onnxruntime-node"))


def check_outputs(case_dir, meta, out_dir, who):
    refs = {os.path.basename(r)[4:-4]: r for r in glob.glob(os.path.join(case_dir, "ref_*.npy"))}
    problems = []
    for name, ref in sorted(refs.items()):
        path = os.path.join(out_dir, name + ".npy")
        if not os.path.isfile(path):
            problems.append("%s: no output %s" % (who, name))
            continue
        why = compare(name, np.load(path), np.load(ref), meta.get("atol", 1e-5),
                      meta.get("rtol", 1e-4))
        if why:
            problems.append("%s: %s" % (who, why))
    return problems


def run_case(case_dir, args):
    """(status, message): status PASS, REFUSED or FAIL."""
    name = os.path.basename(case_dir)
    with open(os.path.join(case_dir, "case.json")) as f:
        meta = json.load(f)
    work = os.path.join(args.workdir, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    model = os.path.join(work, "model.onnx")
    rc, _, err = run(mxc_command(args.mxc, case_dir, meta) + ["-o", model], args.timeout)
    if rc != 0:
        if rc == 1 and "convert" in err and err.count("error:") == 1 and \
                not os.path.exists(model):
            return "REFUSED", one_line(err, 200)
        return "FAIL", "mxc --emit=onnx %s: %s" % (describe_rc(rc), one_line(err))
    try:
        onnx.checker.check_model(onnx.load(model), full_check=True)
    except Exception as e:  # the checker's own exceptions
        return "FAIL", "onnx.checker: %s" % one_line(str(e))
    inputs = ["%s=%s" % (i, os.path.join(case_dir, "in_%s.npy" % i)) for i in meta["inputs"]]
    problems = []
    if HAVE_ORT:
        out = os.path.join(work, "ort")
        cmd = ["node", ORT_CASE, model, "--output-dir", out]
        for i in inputs:
            cmd += ["--input", i]
        env = dict(os.environ, NODE_PATH=ORT_MODULES)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                           universal_newlines=True, timeout=args.timeout)
        if p.returncode != 0:
            problems.append("ONNX Runtime: %s" % one_line(p.stderr))
        else:
            problems += check_outputs(case_dir, meta, out, "ONNX Runtime")
    lib = os.path.join(work, "lib%s.so" % name)
    rc, _, err = run([args.mxc, model, "-o", lib], args.timeout)
    if rc != 0:
        problems.append("mxc on the ONNX form %s: %s" % (describe_rc(rc), one_line(err)))
    else:
        out = os.path.join(work, "mxc")
        cmd = [args.mxrun, lib, "--output-dir", out]
        for i in inputs:
            cmd += ["--input", i]
        rc, _, err = run(cmd, args.timeout)
        if rc != 0:
            problems.append("mxrun %s: %s" % (describe_rc(rc), one_line(err)))
        else:
            problems += check_outputs(case_dir, meta, out, "mxc")
    return ("FAIL", "; ".join(problems)) if problems else ("PASS", "")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mxc", required=True)
    ap.add_argument("--mxrun", required=True)
    ap.add_argument("--workdir")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--min-converted", type=int, default=0)
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    args.workdir = args.workdir or tempfile.mkdtemp(prefix="mxc-onnx-export-")
    os.makedirs(args.workdir, exist_ok=True)
    cases = [c for c in find_cases(args.paths)
             if not os.path.isfile(os.path.join(c, "expect_error.txt"))]
    with concurrent.futures.ThreadPoolExecutor(max(1, args.j)) as pool:
        results = list(pool.map(lambda c: run_case(c, args), cases))
    counts = {"PASS": 0, "REFUSED": 0, "FAIL": 0}
    for case, (status, message) in zip(cases, results):
        counts[status] += 1
        print("%s %s%s" % (status, os.path.basename(case), ": " + message if message else ""))
    runtimes = "ONNX Runtime and mxc" if HAVE_ORT else "mxc (ONNX Runtime not installed)"
    print("%d of %d cases converted and match their references under %s; %d refused "
          "with one message; %d failed" % (counts["PASS"], len(cases), runtimes,
                                           counts["REFUSED"], counts["FAIL"]))
    if counts["FAIL"] or counts["PASS"] < args.min_converted:
        if counts["PASS"] < args.min_converted:
            print("fewer than %d cases converted" % args.min_converted)
        sys.exit(1)


if __name__ == "__main__":
    main()
