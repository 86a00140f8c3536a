# SPDX-License-Identifier: Apache-2.0
# Compares two .npy files (shape, dtype, values within --atol/--rtol, or
# --max-rel of the largest expected magnitude) and
# prints the largest absolute difference; exit 1 on mismatch.
import argparse
import sys

import numpy as np

p = argparse.ArgumentParser()
p.add_argument("actual")
p.add_argument("expected")
p.add_argument("--atol", type=float, default=1e-5)
p.add_argument("--rtol", type=float, default=0.0)
p.add_argument("--max-rel", type=float,
               help="instead: the largest difference over the largest |expected|")
a = p.parse_args()
x, y = np.load(a.actual), np.load(a.expected)
if x.shape != y.shape or x.dtype != y.dtype:
    sys.exit(f"mismatch: {x.dtype}{x.shape} vs {y.dtype}{y.shape}")
err = float(np.max(np.abs(x.astype(np.float64) - y))) if x.size else 0.0
print(f"max abs error {err:.3g}")
if a.max_rel is not None:
    scale = float(np.max(np.abs(y))) if y.size else 0.0
    rel = err / scale if scale else err
    print(f"relative to the largest |expected| {scale:.4g}: {rel:.3g}")
    if not rel <= a.max_rel:
        sys.exit(f"values differ: relative error {rel:.3g} > {a.max_rel}")
    sys.exit(0)
if not np.allclose(x, y, atol=a.atol, rtol=a.rtol):
    sys.exit(f"values differ: max abs error {err:.3g} > atol {a.atol}")
