# SPDX-License-Identifier: Apache-2.0
# Runs make_gpt_decode.py's step library as a greedy decoder through the mxc Python
# package: the prompt, then one token at a time, each step's present keys and values
# fed back as the next step's past (the cache grows by one position a step, from an
# empty one). Checks every step's last logits against PyTorch's own cached decode
# (reference_logits.npy, max |diff| / max |reference| <= --tolerance) and the tokens
# against reference_tokens.npy; prints one line per 8 steps and a summary.
# A library compiled with --kv-cache=in-place takes its caches as buffers of a
# fixed capacity, appended to in place, and their filled length as an input:
# the loop then passes the same arrays every step and checks that the rows
# past the filled length stay untouched.
#
#   python3 check_gpt_decode.py LIB DIR [--threads T] [--tolerance 1e-4]
import argparse
import os
import sys

import numpy as np

import mxc


def main():
    p = argparse.ArgumentParser()
    p.add_argument("lib")
    p.add_argument("dir")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--tolerance", type=float, default=1e-4)
    a = p.parse_args()
    lib = mxc.load(a.lib, threads=a.threads)
    prompt = np.load(os.path.join(a.dir, "prompt.npy"))
    reference = np.load(os.path.join(a.dir, "reference_logits.npy"))
    tokens = np.load(os.path.join(a.dir, "reference_tokens.npy"))
    in_place = any(t.cache for t in lib.inputs)
    past = [np.zeros([0 if d == "past" else d for d in t.shape], np.float32)
            for t in lib.inputs[2:] if not t.length]
    if in_place:  # NaN marks the rows no step has written yet
        for cache in past:
            cache[:] = np.nan
        # A cache the call could not write in place is refused, not copied.
        frozen = past[0].copy()
        frozen.flags.writeable = False
        try:
            lib(prompt, prompt, frozen, *past[1:], np.int64(0))
            sys.exit("a read-only cache was accepted")
        except mxc.Error as e:
            assert "appends to in place" in str(e), e
    filled = 0
    ids, worst, ok = prompt, 0.0, True
    for step in range(len(reference)):
        start = filled
        positions = np.arange(start, start + ids.shape[1], dtype=np.int64)[None]
        if in_place:
            logits = lib(ids, positions, *past, np.array(start, np.int64))
            for cache in past:
                assert not np.isnan(cache[:, :, :start + ids.shape[1]]).any()
                assert np.isnan(cache[:, :, start + ids.shape[1]:]).all()
        else:
            logits, *past = lib(ids, positions, *past)
            assert past[0].shape[2] == start + ids.shape[1], past[0].shape
        filled = start + ids.shape[1]
        last = logits[0, -1]
        diff = float(np.abs(last - reference[step]).max() / np.abs(reference[step]).max())
        worst = max(worst, diff)
        token = int(last.argmax())
        if diff > a.tolerance or token != tokens[step]:
            print(f"step {step}: diff {diff:.2e}, token {token} (PyTorch {tokens[step]})")
            ok = False
        elif step % 8 == 0:
            print(f"step {step}: cache {start} positions, ok")
        ids = np.array([[token]], np.int64)
    print(f"{len(reference)} steps, cache {filled} positions, "
          f"worst diff {worst:.1e}: {'ok' if ok else 'FAILED'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
