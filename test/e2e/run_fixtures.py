#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
#
# Runs the end-to-end fixtures made by gen_fixtures.py: compiles each case with mxc, runs the
# library with mxrun and compares every output with the NumPy reference; or, for a case holding
# expect_error.txt, checks that mxc fails cleanly (exit 1, each listed keyword on stderr, no -o
# file left behind). Prints `PASS <case>` / `FAIL <case>: <reason>` per case, then a summary.
"""Compile, run and check mxc end-to-end fixture cases.

  run_fixtures.py --mxc PATH --mxrun PATH [--mxc-arg=ARG]... [--mxrun-arg=ARG]...
                  [--filter REGEX]
                  [--workdir DIR] [-j N] [--timeout S] [-v] CASE_DIR_OR_PARENT...

A case folder holds case.json and symbol.json (and model.params, in_<input>.npy, ref_<output>.npy
or expect_error.txt); a parent folder stands for every case folder directly inside it. Exit
status: 0 all passed, 1 some failed, 2 bad usage (missing tool, no case selected).
"""

import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

C_IDENT = re.compile(r"^[a-z_][a-z0-9_]*$")


def die(msg):
    """Bad usage, not a failing case: exit 2 so a wrapper can tell them apart."""
    print(msg, file=sys.stderr)
    sys.exit(2)


def one_line(text, limit=600):
    """Tool output folded onto the case's single report line."""
    text = " | ".join(l.strip() for l in text.strip().splitlines() if l.strip())
    return text if len(text) <= limit else text[:limit] + " ..."


def find_cases(paths):
    cases = []
    for p in paths:
        p = os.path.abspath(p)
        if os.path.isfile(os.path.join(p, "case.json")):
            cases.append(p)
        elif os.path.isdir(p):
            cases += sorted(os.path.dirname(f) for f in glob.glob(os.path.join(p, "*", "case.json")))
        else:
            die("error: no such case folder: %s" % p)
    return cases


def resolve_tool(flag, path):
    found = shutil.which(path) if os.sep not in path else (path if os.path.isfile(path) else None)
    if not found or not os.access(found, os.X_OK):
        die("error: %s binary not found or not executable: %s" % (flag, path))
    return os.path.abspath(found)


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, universal_newlines=True, errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %g s" % timeout


def describe_rc(rc):
    return "timed out" if rc is None else ("killed by signal %d" % -rc if rc < 0 else "exit %d" % rc)


def compare(name, got, ref, atol, rtol):
    """None when `got` matches `ref`, else why not."""
    if got.dtype != ref.dtype:
        return "%s: dtype %s, expected %s" % (name, got.dtype, ref.dtype)
    if got.shape != ref.shape:
        return "%s: shape %s, expected %s" % (name, got.shape, ref.shape)
    if not np.issubdtype(ref.dtype, np.floating):
        bad = got != ref
        if bad.any():
            i = np.unravel_index(np.argmax(bad), ref.shape)
            return "%s: %d of %d elements differ (first at %s: %s vs %s)" % (
                name, bad.sum(), ref.size, i, got[i], ref[i])
        return None
    if np.allclose(got, ref, atol=atol, rtol=rtol):
        return None
    g, r = got.astype(np.float64), ref.astype(np.float64)
    err = np.abs(g - r)
    err[np.isnan(err)] = np.inf
    i = np.unravel_index(np.argmax(err), ref.shape)
    bad = (err > atol + rtol * np.abs(r)).sum()
    return "%s: max abs error %.3g at %s (got %.7g, expected %.7g); %d of %d outside " \
           "atol=%g rtol=%g" % (name, err[i], i, g[i], r[i], bad, ref.size, atol, rtol)


def mxc_command(mxc, case_dir, meta):
    """mxc on a case's symbol, with its .params and its inputs' shapes."""
    cmd = [mxc, os.path.join(case_dir, "symbol.json")]
    params = os.path.join(case_dir, "model.params")
    if os.path.isfile(params):
        cmd += ["--params", params]
    for inp, shape in meta["inputs"].items():
        cmd += ["--input", "%s=%s" % (inp, "x".join(str(d) for d in shape))]
    return cmd


def run_case(case_dir, args):
    """Returns (passed, message, details for -v)."""
    name = os.path.basename(case_dir)
    if not C_IDENT.match(name):
        return False, "case name is not a lowercase C identifier", ""
    with open(os.path.join(case_dir, "case.json")) as f:
        meta = json.load(f)
    lib = os.path.join(args.workdir, "lib%s.so" % name)
    out_dir = os.path.join(args.workdir, "out_%s" % name)
    for stale in (lib, os.path.join(args.workdir, "%s.h" % name)):
        if os.path.exists(stale):
            os.remove(stale)
    shutil.rmtree(out_dir, ignore_errors=True)

    cmd = mxc_command(args.mxc, case_dir, meta) + args.mxc_arg + ["-o", lib]
    rc, out, err = run(cmd, args.timeout)
    details = "$ %s\n%s%s" % (" ".join(cmd), out, err)

    expect_file = os.path.join(case_dir, "expect_error.txt")
    if os.path.isfile(expect_file):
        with open(expect_file) as f:
            keywords = [l.rstrip("\n") for l in f if l.strip()]
        if rc != 1:
            return False, "mxc should fail with exit 1, got %s: %s" % (
                describe_rc(rc), one_line(err)), details
        missing = [k for k in keywords if k not in err]
        if missing:
            return False, "mxc stderr lacks %s: %s" % (
                ", ".join(repr(k) for k in missing), one_line(err)), details
        if os.path.exists(lib):
            return False, "mxc failed but left %s behind" % lib, details
        return True, "", details

    if rc != 0:
        return False, "mxc %s: %s" % (describe_rc(rc), one_line(err)), details
    if not os.path.isfile(lib):
        return False, "mxc succeeded but wrote no %s" % lib, details

    cmd = [args.mxrun, lib] + args.mxrun_arg
    for inp in meta["inputs"]:
        cmd += ["--input", "%s=%s" % (inp, os.path.join(case_dir, "in_%s.npy" % inp))]
    cmd += ["--output-dir", out_dir]
    rc, out, err = run(cmd, args.timeout)
    details += "$ %s\n%s%s" % (" ".join(cmd), out, err)
    if rc != 0:
        return False, "mxrun %s: %s" % (describe_rc(rc), one_line(err)), details

    refs = sorted(glob.glob(os.path.join(case_dir, "ref_*.npy")))
    if not refs:
        return False, "case has neither ref_*.npy nor expect_error.txt", details
    expected = {os.path.basename(r)[4:-4]: r for r in refs}
    produced = {os.path.basename(p)[:-4] for p in glob.glob(os.path.join(out_dir, "*.npy"))}
    problems = []
    if produced - set(expected):
        problems.append("unexpected outputs %s" % ", ".join(sorted(produced - set(expected))))
    for out_name, ref_path in sorted(expected.items()):
        if out_name not in produced:
            problems.append("%s: missing %s.npy" % (out_name, out_name))
            continue
        try:
            got = np.load(os.path.join(out_dir, out_name + ".npy"))
        except Exception as e:  # a malformed .npy is a failure of mxrun, not of this script
            problems.append("%s: unreadable .npy (%s)" % (out_name, e))
            continue
        why = compare(out_name, got, np.load(ref_path), meta.get("atol", 1e-5),
                      meta.get("rtol", 1e-4))
        if why:
            problems.append(why)
    return not problems, "; ".join(problems), details


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mxc", required=True, help="the mxc compiler")
    ap.add_argument("--mxrun", help="the mxrun runner (needed unless every case expects an error)")
    ap.add_argument("--mxc-arg", action="append", default=[], metavar="ARG",
                    help="extra argument for mxc, repeatable; write --mxc-arg=--flag")
    ap.add_argument("--mxrun-arg", action="append", default=[], metavar="ARG",
                    help="extra argument for mxrun, repeatable; write --mxrun-arg=--flag")
    ap.add_argument("--filter", help="only cases whose name matches this regex (re.search)")
    ap.add_argument("--workdir", help="where libraries and outputs go (default: a temp folder)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                    help="cases run in parallel (default: CPU count)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per tool run")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print the commands and full tool output of failing cases")
    ap.add_argument("cases", nargs="+", metavar="CASE_DIR_OR_PARENT")
    args = ap.parse_args()

    cases = find_cases(args.cases)
    if args.filter:
        cases = [c for c in cases if re.search(args.filter, os.path.basename(c))]
    if not cases:
        die("error: no case selected")
    names = [os.path.basename(c) for c in cases]
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        die("error: case names must be unique (they name the libraries): %s"
                         % ", ".join(dups))
    args.mxc = resolve_tool("--mxc", args.mxc)
    needs_mxrun = any(not os.path.isfile(os.path.join(c, "expect_error.txt")) for c in cases)
    if needs_mxrun:
        if not args.mxrun:
            die("error: --mxrun is required for cases that compare outputs")
        args.mxrun = resolve_tool("--mxrun", args.mxrun)
    if args.workdir:
        args.workdir = os.path.abspath(args.workdir)
        os.makedirs(args.workdir, exist_ok=True)
    else:
        args.workdir = tempfile.mkdtemp(prefix="mxc-e2e-")

    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for case_dir, (ok, why, details) in zip(
                cases, pool.map(lambda c: run_case(c, args), cases)):
            name = os.path.basename(case_dir)
            if ok:
                print("PASS %s" % name, flush=True)
            else:
                failed += 1
                print("FAIL %s: %s" % (name, why), flush=True)
                if args.verbose:
                    print("  " + details.rstrip().replace("\n", "\n  "), flush=True)
    print("%d passed, %d failed" % (len(cases) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
