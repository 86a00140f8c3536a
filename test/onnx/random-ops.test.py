# SPDX-License-Identifier: Apache-2.0
# random-ops.test's model and checks. No two engines share a generator, so the
# draws are checked by their distribution, with bounds six standard errors
# wide (a false failure about once in 10^8 runs):
#   u   RandomUniform [-2, 3), seed 7: inside the range, mean, standard deviation and
#       each tenth of the range holding a tenth of the draws; the same on every run
#   z   RandomNormal mean 1 scale 2, no seed: mean, standard deviation, the share
#       within one scale of the mean; different on every run
#   zl  RandomNormalLike of p as double: the dtype, mean 0, standard deviation 1
#   b   Bernoulli(p), p rising from 0 to 1: 0 or 1, and in each tenth of p the share
#       of ones that tenth's mean p; different on every run
#   bi  Bernoulli(p) as int32, seed 3: the same on every run
#   m   Multinomial of logits lg (4 rows of 5 classes), 20000 samples a row, int64: each
#       class drawn as often as softmax(lg) says; different on every run
# Usage: random-ops.test.py make OUTDIR | check OUTDIR RUN1 RUN2
import os
import sys

import numpy as np

N = 40000
SIX = 6.0
SAMPLES = 20000
LOGITS = np.array([[0, 0, 0, 0, 0], [1, 2, 3, 4, 5], [-3, 0, 3, 0, -3],
                   [5, -5, 0, 0, 2]], np.float32)


def make(out):
    import onnx
    from onnx import TensorProto as T, helper
    nodes = [
        helper.make_node("RandomUniform", [], ["u"], shape=[N], low=-2.0, high=3.0,
                         seed=7.0),
        helper.make_node("RandomNormal", [], ["z"], shape=[N], mean=1.0, scale=2.0),
        helper.make_node("RandomNormalLike", ["p"], ["zl"], dtype=T.DOUBLE),
        helper.make_node("Bernoulli", ["p"], ["b"]),
        helper.make_node("Bernoulli", ["p"], ["bi"], dtype=T.INT32, seed=3.0),
        helper.make_node("Multinomial", ["lg"], ["m"], sample_size=SAMPLES, dtype=T.INT64),
    ]
    outputs = [("u", T.FLOAT), ("z", T.FLOAT), ("zl", T.DOUBLE), ("b", T.FLOAT),
               ("bi", T.INT32)]
    g = helper.make_graph(
        nodes, "random", [helper.make_tensor_value_info("p", T.FLOAT, [N]),
                          helper.make_tensor_value_info("lg", T.FLOAT, LOGITS.shape)],
        [helper.make_tensor_value_info(n, t, [N]) for n, t in outputs] +
        [helper.make_tensor_value_info("m", T.INT64, [LOGITS.shape[0], SAMPLES])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)]),
              os.path.join(out, "random.onnx"))
    np.save(os.path.join(out, "p.npy"), np.linspace(0, 1, N, dtype=np.float32))
    np.save(os.path.join(out, "lg.npy"), LOGITS)


def near(what, got, want, sigma):
    if abs(got - want) > SIX * sigma:
        sys.exit(f"{what}: {got:.5g}, expected {want:.5g} within {SIX * sigma:.3g}")


def check(out, run1, run2):
    p = np.load(os.path.join(out, "p.npy")).astype(np.float64)
    load = lambda run, name: np.load(os.path.join(run, name + ".npy"))
    u, z, zl, b, bi = (load(run1, n) for n in ("u", "z", "zl", "b", "bi"))
    assert u.dtype == np.float32 and zl.dtype == np.float64 and bi.dtype == np.int32
    # Uniform on [-2, 3): variance 25 / 12.
    if not (u.min() >= -2 and u.max() < 3):
        sys.exit(f"u outside [-2, 3): {u.min()} .. {u.max()}")
    near("u mean", u.mean(), 0.5, np.sqrt(25 / 12 / N))
    near("u std", u.std(), np.sqrt(25 / 12), np.sqrt(25 / 12) / np.sqrt(2 * N) * 1.3)
    counts = np.histogram(u, bins=10, range=(-2, 3))[0]
    for k, c in enumerate(counts):
        near(f"u tenth {k}", c / N, 0.1, np.sqrt(0.09 / N))
    # Normal, mean 1, scale 2.
    near("z mean", z.mean(), 1.0, 2 / np.sqrt(N))
    near("z std", z.std(), 2.0, 2 / np.sqrt(2 * N))
    near("z within one scale", np.mean(np.abs(z - 1) < 2), 0.682689,
         np.sqrt(0.682689 * 0.317311 / N))
    near("zl mean", zl.mean(), 0.0, 1 / np.sqrt(N))
    near("zl std", zl.std(), 1.0, 1 / np.sqrt(2 * N))
    # Bernoulli: the share of ones follows p.
    if not set(np.unique(b)) <= {0.0, 1.0} or not set(np.unique(bi)) <= {0, 1}:
        sys.exit("Bernoulli drew something other than 0 and 1")
    for k in range(10):
        part = slice(k * N // 10, (k + 1) * N // 10)
        want = p[part].mean()
        near(f"b ones in tenth {k}", b[part].mean(), want,
             np.sqrt(max(want * (1 - want), 0.01) / (N // 10)))
    # Multinomial: each class as often as its softmax probability.
    m = load(run1, "m")
    assert m.dtype == np.int64 and m.shape == (len(LOGITS), SAMPLES)
    if m.min() < 0 or m.max() >= LOGITS.shape[1]:
        sys.exit(f"m outside the classes: {m.min()} .. {m.max()}")
    probs = np.exp(LOGITS - LOGITS.max(1, keepdims=True))
    probs /= probs.sum(1, keepdims=True)
    for r in range(len(LOGITS)):
        for c in range(LOGITS.shape[1]):
            q = probs[r, c]
            near(f"m row {r} class {c}", np.mean(m[r] == c), q,
                 np.sqrt(max(q * (1 - q), 1e-4) / SAMPLES))
    # Seeds: the seeded draws repeat, the others do not.
    for name, same in (("u", True), ("bi", True), ("z", False), ("zl", False),
                       ("b", False), ("m", False)):
        if np.array_equal(load(run1, name), load(run2, name)) != same:
            sys.exit(f"{name}: two runs drew {'different' if same else 'the same'} numbers")
    print("random draws match their distributions")


if sys.argv[1] == "make":
    make(sys.argv[2])
else:
    check(*sys.argv[2:5])
