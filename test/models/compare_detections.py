# SPDX-License-Identifier: Apache-2.0
# Compares a detector's outputs (boxes, scores, labels .npy files in two folders) with
# a reference's: the same number of detections; scores within --max-rel of the largest
# score; and, detection by detection, the same label and a box within --max-rel of the
# largest coordinate. Detections whose reference scores lie within that tolerance of
# each other may come in either order (float32 rounding decides such near-ties: two of
# ssdlite's 300 scores differ by 1.3e-7), so they are matched as a group.
# Usage: compare_detections.py OUT_DIR REF_DIR [--prefix torch_] [--max-rel 1e-4]
import argparse
import os
import sys

import numpy as np

NAMES = ("boxes", "scores", "labels")


def match(ours, reference, max_rel):
    """Matches (boxes, scores, labels) against the reference's; returns the largest
    score and box differences relative to the largest reference score and coordinate
    and how many detections came in another order, or raises ValueError."""
    boxes, scores, labels = ours
    rboxes, rscores, rlabels = reference
    if [x.shape for x in ours] != [x.shape for x in reference]:
        raise ValueError(f"shapes differ: {[x.shape for x in ours]} against "
                         f"{[x.shape for x in reference]}")
    n = len(rscores)
    score_scale = float(np.abs(rscores).max(initial=0)) or 1.0
    box_scale = float(np.abs(rboxes).max(initial=0)) or 1.0
    score_tol, box_tol = max_rel * score_scale, max_rel * box_scale
    worst_score = float(np.abs(scores.astype(np.float64) - rscores).max(initial=0))
    if worst_score > score_tol:
        raise ValueError(f"scores differ by {worst_score:.3g} > {score_tol:.3g}")
    # Groups of consecutive reference detections with scores within the tolerance.
    start, swapped, worst_box = 0, 0, 0.0
    while start < n:
        end = start + 1
        while end < n and abs(rscores[end - 1] - rscores[end]) <= score_tol:
            end += 1
        left = list(range(start, end))
        for i in range(start, end):
            errors = [float(np.abs(boxes[i] - rboxes[j]).max())
                      if labels[i] == rlabels[j] else np.inf for j in left]
            k = int(np.argmin(errors))
            if errors[k] > box_tol:
                raise ValueError(
                    f"detection {i} (label {labels[i]}, score {scores[i]:.6g}, box "
                    f"{boxes[i].tolist()}) matches no reference detection of scores "
                    f"{rscores[start]:.6g}..{rscores[end - 1]:.6g}")
            worst_box = max(worst_box, errors[k])
            swapped += left[k] != i
            left.pop(k)
        start = end
    return worst_score / score_scale, worst_box / box_scale, swapped


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("ref")
    p.add_argument("--prefix", default="torch_", help="of the reference's file names")
    p.add_argument("--max-rel", type=float, default=1e-4)
    a = p.parse_args()
    load = lambda folder, prefix: [np.load(os.path.join(folder, prefix + k + ".npy"))
                                   for k in NAMES]
    try:
        score, box, swapped = match(load(a.out, ""), load(a.ref, a.prefix), a.max_rel)
    except ValueError as e:
        sys.exit(str(e))
    print(f"{len(np.load(os.path.join(a.ref, a.prefix + 'scores.npy')))} detections "
          f"match: scores within {score:.3g} of the largest, boxes within {box:.3g} "
          f"({swapped} in another order among near-tied scores)")


if __name__ == "__main__":
    main()
