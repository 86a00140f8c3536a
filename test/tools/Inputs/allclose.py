#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Compares what a tool test produced with a NumPy reference, for the RUN lines
# under test/tools: `allclose.py ACTUAL REF.npy [--atol A] [--rtol R]`. ACTUAL
# is a .npy file or a text file of numbers (one or more per line, as printed by
# the C test programs). Prints `OK <n> values` or the worst mismatch; exit 1 on
# a mismatch.
import argparse
import sys

import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument("actual")
parser.add_argument("reference")
parser.add_argument("--atol", type=float, default=1e-5)
parser.add_argument("--rtol", type=float, default=1e-4)
args = parser.parse_args()

ref = np.load(args.reference)
if args.actual.endswith(".npy"):
    actual = np.load(args.actual)
    if actual.shape != ref.shape or actual.dtype != ref.dtype:
        sys.exit("%s: %s %s, expected %s %s" % (args.actual, actual.shape, actual.dtype,
                                                 ref.shape, ref.dtype))
else:
    actual = np.loadtxt(args.actual, dtype=np.float64, ndmin=1)
    if actual.size != ref.size:
        sys.exit("%s: %d values, expected %d" % (args.actual, actual.size, ref.size))
    actual = actual.reshape(ref.shape)
if not np.allclose(actual, ref, atol=args.atol, rtol=args.rtol):
    worst = np.unravel_index(np.argmax(np.abs(actual - ref)), ref.shape)
    sys.exit("%s: mismatch at %s: %r, expected %r" % (args.actual, worst, actual[worst], ref[worst]))
print("OK %d values" % ref.size)
