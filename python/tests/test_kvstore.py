# SPDX-License-Identifier: Apache-2.0
# mxc.KVStore against NumPy: a local store's sums and optimizer, its errors,
# and dist_sync across two processes under mpirun equal to one process on
# the summed gradients (kvstore_worker.py).
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import mxc

HERE = os.path.dirname(os.path.abspath(__file__))


def test_local_store_sums_and_updates():
    kv = mxc.KVStore("local")
    assert (kv.type, kv.rank, kv.num_workers) == ("local", 0, 1)
    kv.init(3, np.ones((2, 2)))
    kv.push(3, [np.full((2, 2), 2.0), np.full((2, 2), 3.0)])  # one value per device
    np.testing.assert_array_equal(kv.pull(3, shape=(2, 2)), np.full((2, 2), 5.0))
    out = np.zeros((2, 2), np.float32)
    kv.pull(3, out=out)
    np.testing.assert_array_equal(out, np.full((2, 2), 5.0))
    np.testing.assert_array_equal(kv.pushpull(3, np.ones((2, 2))), np.ones((2, 2)))

    sgd = mxc.KVStore("local")
    sgd.set_optimizer("momentum", learning_rate=0.5, momentum=0.9)
    w = np.array([1.0, -2.0], np.float32)
    sgd.init(0, w)
    g = np.array([0.25, 0.5], np.float32)
    velocity = np.zeros(2, np.float32)
    for _ in range(3):
        sgd.push(0, g)
        velocity = 0.9 * velocity - 0.5 * g
        w = w + velocity
    np.testing.assert_allclose(sgd.pull(0, shape=(2,)), w, rtol=1e-6)


def test_store_errors():
    kv = mxc.KVStore("local")
    kv.init(1, np.zeros(3))
    with pytest.raises(mxc.Error, match="key 9"):
        kv.pull(9, shape=(3,))
    with pytest.raises(mxc.Error, match="unknown option 'lr'"):
        mxc.KVStore("local").set_optimizer("sgd", lr=0.1)
    with pytest.raises(mxc.Error, match="nope"):
        mxc.KVStore("nope")


@pytest.mark.skipif(shutil.which("mpirun") is None, reason="needs Open MPI's mpirun")
def test_dist_sync_two_ranks_equal_one_process():
    cmd = ["timeout", "120", "mpirun", "--oversubscribe", "--mca",
           "btl_vader_single_copy_mechanism", "none"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    cmd += ["-x", "PYTHONPATH", "-np", "2", sys.executable,
            os.path.join(HERE, "kvstore_worker.py")]
    run = subprocess.run(cmd, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    # The two ranks share mpirun's stdout: one's line may land inside the
    # other's, so the reports are found anywhere in it.
    assert sorted(re.findall(r"rank \d+ of \d+: ok", run.stdout)) == [
        "rank 0 of 2: ok", "rank 1 of 2: ok"], run.stdout
