# SPDX-License-Identifier: Apache-2.0
"""What the Python benchmarks share, as bench_util.h does for the C ones: the
start of their command line (where the built mxc and mxrun are) and the mxc
version line their reports cite."""
import argparse
import os
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


def mxc_version(mxc):
    """The first line of `mxc --version`."""
    return subprocess.run([mxc, "--version"], capture_output=True,
                          text=True).stdout.strip().splitlines()[0]
