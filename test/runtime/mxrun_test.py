# SPDX-License-Identifier: Apache-2.0
# End-to-end test of mxrun on the hand-written libaffine model (test_model.c)
# and, for dynamic dimensions, libbatched (test_dynamic_model.c: batch
# variants) and libwindow (test_shapes_model.c: a derived dimension): its text
# and JSON output, the .npy files it writes (read back with NumPy), and its
# errors. Run by CTest as `mxrun`:
#   /usr/bin/python3 mxrun_test.py path/to/mxrun \
#       path/to/libmxrt_test_affine.so path/to/libmxrt_test_batched.so \
#       path/to/libmxrt_test_window.so
import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

MXRUN, MODEL, BATCHED, WINDOW = sys.argv[1:5]
W = np.array([[0.5, 1.0, 1.5], [2.0, 2.5, 3.0]], np.float32)
B = np.array([1.0, 2.0, 3.0], np.float32)


def affine(x, scale):
    y = (x * W * np.float32(scale) + B).astype(np.float32)
    return y, y.astype(np.float64).sum()


def batched(x):
    """What libbatched computes: its variants of 4, 2 and 1 rows take the
    rows in turn, largest first, and add 100 times their batch."""
    batch = []
    for b in (4, 2, 1):
        while len(x) - len(batch) >= b:
            batch += [b] * b
    return 2 * x + 100 * np.array(batch, np.float32)[:, None], batch[-1]


def mxrun(*args, ok=True):
    result = subprocess.run([MXRUN, *args], capture_output=True, text=True)
    if ok and result.returncode != 0:
        raise AssertionError(f"mxrun {args} failed: {result.stderr}")
    return result


class MxrunTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.tmp = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def save(self, name, array):
        path = os.path.join(self.tmp, name)
        np.save(path, array)
        return path

    def test_help(self):
        result = mxrun("--help")
        self.assertEqual(result.returncode, 0)
        self.assertIn("usage: mxrun LIB", result.stdout)

    def test_inputs_from_files_and_outputs_to_npy(self):
        x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
        xfile = self.save("x.npy", x)
        sfile = self.save("s.npy", np.array(3.0, np.float32))
        out = os.path.join(self.tmp, "new", "dir")
        result = mxrun(MODEL, "--input", f"x={xfile}", f"--input=scale={sfile}",
                       "--output-dir", out)
        lines = result.stdout.splitlines()
        self.assertEqual(lines[0], f"input x float32 2x3 {xfile}")
        self.assertEqual(lines[1], f"input scale float32 scalar {sfile}")
        self.assertTrue(lines[2].startswith("output y float32 2x3 ["), lines)
        self.assertTrue(lines[3].startswith("output total float64 scalar ["))
        y, total = affine(x, 3.0)
        np.testing.assert_array_equal(np.load(os.path.join(out, "y.npy")), y)
        saved_total = np.load(os.path.join(out, "total.npy"))
        self.assertEqual(saved_total.dtype, np.float64)
        self.assertEqual(saved_total.shape, ())
        self.assertEqual(float(saved_total), total)

    def test_random_inputs_are_seeded_and_in_range(self):
        first = json.loads(mxrun(MODEL, "--json", "--seed", "7").stdout)
        again = json.loads(mxrun(MODEL, "--json", "--seed=7").stdout)
        other = json.loads(mxrun(MODEL, "--json").stdout)
        self.assertEqual(first, again)
        self.assertNotEqual(first["outputs"][0]["values"],
                            other["outputs"][0]["values"])
        # With scale from a file, y - b = x * w * scale recovers x.
        sfile = self.save("s.npy", np.array(1.0, np.float32))
        out = os.path.join(self.tmp, "out")
        mxrun(MODEL, "--seed", "7", "--input", f"scale={sfile}",
              "--output-dir", out)
        x = (np.load(os.path.join(out, "y.npy")) - B) / W
        self.assertTrue(np.all(x >= -1.0) and np.all(x < 1.0), x)
        self.assertGreater(len(np.unique(x)), 3)

    def test_json(self):
        out = os.path.join(self.tmp, "o")
        result = mxrun(MODEL, "--json", "--bench", "5", "--threads", "2",
                       "--output-dir", out)
        info = json.loads(result.stdout)
        self.assertEqual(info["model"], "affine")
        self.assertEqual(info["inputs"],
                         [{"name": "x", "dtype": "float32", "shape": [2, 3],
                           "source": "random"},
                          {"name": "scale", "dtype": "float32", "shape": [],
                           "source": "random"}])
        self.assertEqual([o["name"] for o in info["outputs"]], ["y", "total"])
        self.assertEqual(info["outputs"][1]["shape"], [])
        self.assertEqual(info["outputs"][0]["file"], os.path.join(out, "y.npy"))
        self.assertEqual(len(info["outputs"][0]["values"]), 6)
        self.assertEqual(info["bench"]["runs"], 5)
        self.assertLessEqual(info["bench"]["min_ms"],
                             info["bench"]["median_ms"])

    def test_bench_text(self):
        lines = mxrun(MODEL, "--bench", "4").stdout.splitlines()
        self.assertRegex(lines[-1],
                         r"^latency_ms median=[0-9.]+ min=[0-9.]+ runs=4$")

    def test_dynamic_dims_from_a_file(self):
        x = np.arange(14, dtype=np.float32).reshape(7, 2)
        xfile = self.save("x.npy", x)
        out = os.path.join(self.tmp, "out")
        lines = mxrun(BATCHED, "--input", f"x={xfile}", "--output-dir",
                      out).stdout.splitlines()
        self.assertEqual(lines[0], "dim N=7 min=1 max=8")
        self.assertEqual(lines[1], f"input x float32 Nx2=7x2 {xfile}")
        self.assertTrue(lines[2].startswith("output y float32 Nx2=7x2 ["),
                        lines)
        self.assertEqual(lines[3], "output last float32 scalar [1]")
        y, last = batched(x)
        np.testing.assert_array_equal(np.load(os.path.join(out, "y.npy")), y)
        self.assertEqual(float(np.load(os.path.join(out, "last.npy"))), last)

    def test_dynamic_dims_from_the_flag_or_the_minimum(self):
        info = json.loads(mxrun(BATCHED, "--json", "--dim", "N=6").stdout)
        self.assertEqual(info["dims"],
                         [{"name": "N", "value": 6, "min": 1, "max": 8}])
        self.assertEqual(info["inputs"],
                         [{"name": "x", "dtype": "float32", "shape": [6, 2],
                           "model_shape": ["N", 2], "source": "random"}])
        y = info["outputs"][0]
        self.assertEqual((y["shape"], y["model_shape"]), ([6, 2], ["N", 2]))
        self.assertNotIn("model_shape", info["outputs"][1])
        # Random inputs lie in [-1, 1): 2 x + 100 b tells the variant.
        batch = np.round(np.array(y["values"]).reshape(6, 2)[:, 0] / 100)
        self.assertEqual(list(batch), [4] * 4 + [2] * 2)
        self.assertEqual(info["outputs"][1]["values"], [2.0])
        lines = mxrun(BATCHED).stdout.splitlines()
        self.assertEqual(lines[:2], ["dim N=1 min=1 max=8",
                                     "input x float32 Nx2=1x2 random seed=0"])
        self.assertNotIn("dims", json.loads(mxrun(MODEL, "--json").stdout))

    def test_dynamic_dim_errors(self):
        rows9 = self.save("rows9.npy", np.zeros((9, 2), np.float32))
        rows3 = self.save("rows3.npy", np.zeros((3, 2), np.float32))
        wide = self.save("wide.npy", np.zeros((3, 3), np.float32))
        self.assertError([BATCHED, "--dim", "N=9"],
                         "--dim N=9 is above the dimension's bound 8")
        self.assertError([BATCHED, "--dim", "N=0"],
                         "--dim N=0 is below the dimension's minimum 1")
        self.assertError([BATCHED, "--dim", "K=2"],
                         "model 'batched' has no dimension 'K' "
                         "(dimensions: N)")
        self.assertError([MODEL, "--dim", "N=2"],
                         "model 'affine' has no dimension 'N' "
                         "(dimensions: none)")
        self.assertError([BATCHED, "--input", f"x={rows9}"],
                         "bad input shapes: input 'x' axis 0 (dimension N) "
                         "is 9, above its bound 8")
        self.assertError([BATCHED, "--input", f"x={rows3}", "--dim", "N=4"],
                         "--dim N=4, but the inputs read give N = 3")
        self.assertError([BATCHED, "--input", f"x={wide}"],
                         "expected shape Nx2 float32, got 3x3 float32")
        self.assertError([BATCHED, "--dim", "N"], "--dim expects NAME=VALUE")
        self.assertError([BATCHED, "--dim", "N=x"], "--dim N expects an "
                         "integer")
        self.assertError([BATCHED, "--dim", "N=2", "--dim=N=3"],
                         "dimension 'N' is given twice")

    def test_derived_dims_from_a_file(self):
        # Both axes of x are dynamic; y's rows are the derived OH = H - 1.
        x = np.arange(15, dtype=np.float32).reshape(5, 3) ** 2
        xfile = self.save("x.npy", x)
        out = os.path.join(self.tmp, "out")
        lines = mxrun(WINDOW, "--input", f"x={xfile}", "--output-dir",
                      out).stdout.splitlines()
        self.assertEqual(lines[:4], ["dim H=5 min=2 max=8",
                                     "dim W=3 min=1 max=none",
                                     "dim OH=4 (derived)",
                                     f"input x float32 HxW=5x3 {xfile}"])
        self.assertTrue(lines[4].startswith("output y float32 OHxW=4x3 ["),
                        lines)
        np.testing.assert_array_equal(np.load(os.path.join(out, "y.npy")),
                                      x[:-1] + x[1:])

    def test_derived_dims_from_the_flags_or_the_minimum(self):
        out = os.path.join(self.tmp, "out")
        info = json.loads(mxrun(WINDOW, "--json", "--dim", "W=6", "--dim",
                                "H=7", "--output-dir", out).stdout)
        self.assertEqual(info["dims"],
                         [{"name": "H", "value": 7, "min": 2, "max": 8},
                          {"name": "W", "value": 6, "min": 1, "max": None},
                          {"name": "OH", "value": 6, "derived": True}])
        self.assertEqual(info["inputs"],
                         [{"name": "x", "dtype": "float32", "shape": [7, 6],
                           "model_shape": ["H", "W"], "source": "random"}])
        y = info["outputs"][0]
        self.assertEqual((y["shape"], y["model_shape"]), ([6, 6], ["OH", "W"]))
        self.assertEqual(np.load(os.path.join(out, "y.npy")).shape, (6, 6))
        lines = mxrun(WINDOW).stdout.splitlines()
        self.assertEqual(lines[:4], ["dim H=2 min=2 max=8",
                                     "dim W=1 min=1 max=none",
                                     "dim OH=1 (derived)",
                                     "input x float32 HxW=2x1 random seed=0"])
        self.assertTrue(lines[4].startswith("output y float32 OHxW=1x1 ["))

    def test_derived_dim_errors(self):
        self.assertError([WINDOW, "--dim", "OH=3"],
                         "--dim OH=3: dimension 'OH' is derived (an output's "
                         "extent, computed from the other dimensions); it "
                         "cannot be set")
        self.assertError([WINDOW, "--dim", "H=9"],
                         "--dim H=9 is above the dimension's bound 8")
        narrow = self.save("narrow.npy", np.zeros((3, 0), np.float32))
        self.assertError([WINDOW, "--input", f"x={narrow}"],
                         "bad input shapes: input 'x' axis 1 (dimension W) "
                         "is 0, below its minimum 1")

    def assertError(self, args, *words):
        result = mxrun(*args, ok=False)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertTrue(result.stderr.startswith("mxrun: error: "),
                        result.stderr)
        for word in words:
            self.assertIn(word, result.stderr)
        self.assertEqual(result.stdout, "")

    def test_errors(self):
        xfile = self.save("x.npy", np.zeros((2, 3), np.float32))
        bad = self.save("bad.npy", np.zeros((3, 2), np.float32))
        self.assertError([], "no model library")
        self.assertError(["/nonexistent/lib.so"], "/nonexistent/lib.so")
        self.assertError([MODEL, "--input", f"data={xfile}"],
                         "no input 'data'", "inputs: x, scale")
        self.assertError([MODEL, "--input", f"x={bad}"],
                         "input 'x'", "expected shape 2x3 float32",
                         "got 3x2 float32")
        self.assertError([MODEL, "--input", "x"], "NAME=FILE.npy")
        self.assertError([MODEL, "--input", f"x={xfile}", "--input",
                          f"x={xfile}"], "given twice")
        self.assertError([MODEL, "--input", "x=/nonexistent.npy"],
                         "/nonexistent.npy")
        self.assertError([MODEL, "--bench", "0"], "--bench")
        self.assertError([MODEL, "--threads", "-1"], "--threads")
        self.assertError([MODEL, "--seed", "x"], "--seed")
        self.assertError([MODEL, "--frobnicate"], "unknown option")
        self.assertError([MODEL, "--bench"], "expects a value")
        self.assertError([MODEL, MODEL], "only one model library")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
