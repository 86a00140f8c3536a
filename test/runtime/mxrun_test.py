# SPDX-License-Identifier: Apache-2.0
# End-to-end test of mxrun on the hand-written libaffine model (test_model.c):
# its text and JSON output, the .npy files it writes (read back with NumPy),
# and its errors. Run by CTest as `mxrun`:
#   /usr/bin/python3 mxrun_test.py path/to/mxrun path/to/libmxrt_test_affine.so
import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

MXRUN, MODEL = sys.argv[1], sys.argv[2]
W = np.array([[0.5, 1.0, 1.5], [2.0, 2.5, 3.0]], np.float32)
B = np.array([1.0, 2.0, 3.0], np.float32)


def affine(x, scale):
    y = (x * W * np.float32(scale) + B).astype(np.float32)
    return y, y.astype(np.float64).sum()


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
