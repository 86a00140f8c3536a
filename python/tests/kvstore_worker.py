# SPDX-License-Identifier: Apache-2.0
# One rank of test_kvstore.py's dist_sync job (mpirun -np 2): rank r inits
# key 0 with r + w0 (rank 0's value wins), pushes the gradient (r + 1) * g,
# and with SGD set the pulled value must be what one process computes on the
# summed gradients: w0 - lr * (1 + 2) * g. Prints one line per rank.
import sys

import numpy as np

import mxc

kv = mxc.KVStore("dist_sync")
rank, workers = kv.rank, kv.num_workers
w0 = np.arange(6, dtype=np.float32).reshape(2, 3)
g = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
kv.set_optimizer("sgd", learning_rate=0.1)
kv.init(0, w0 + rank)
kv.push(0, (rank + 1) * g)
got = kv.pull(0, shape=(2, 3))
want = w0 - np.float32(0.1) * sum(r + 1 for r in range(workers)) * g
ok = np.allclose(got, want, rtol=1e-6, atol=1e-6)
print("rank %d of %d: %s" % (rank, workers, "ok" if ok else "got %s, want %s" % (got, want)))
sys.exit(0 if ok else 1)
