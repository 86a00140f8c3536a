# SPDX-License-Identifier: Apache-2.0
# Compares two MXNet .params files (mxrun --save-params) name by name:
# exits non-zero if their names differ or any value differs by more than
# --atol.
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
from bench_util import read_params  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("actual")
    p.add_argument("expected")
    p.add_argument("--atol", type=float, default=1e-4)
    a = p.parse_args()
    got, want = read_params(a.actual), read_params(a.expected)
    if sorted(got) != sorted(want):
        sys.exit(f"parameter names differ: {sorted(got)} vs {sorted(want)}")
    worst = 0.0
    for name in sorted(want):
        if got[name].shape != want[name].shape:
            sys.exit(f"{name}: shape {got[name].shape} vs {want[name].shape}")
        worst = max(worst, float(np.max(np.abs(got[name] - want[name]), initial=0)))
        if worst > a.atol:
            sys.exit(f"{name}: differs by {worst:.3g} (atol {a.atol})")
    print(f"{len(want)} parameters, largest difference {worst:.3g}")


if __name__ == "__main__":
    main()
