# SPDX-License-Identifier: Apache-2.0
# fuse-elementwise-cap.test: `gen` prints a function chaining 300 mx.unary
# exps; `check` reads the fused module and prints how many generics hold
# the exps and the largest body's operation count (terminator included).
import re
import sys

N = 300
if sys.argv[1] == "gen":
    print("func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {")
    prev = "%x"
    for i in range(N):
        print('  %%v%d = mx.unary %s {op = "exp"} : tensor<4xf32>' % (i, prev))
        prev = "%%v%d" % i
    print("  return %s : tensor<4xf32>" % prev)
    print("}")
    sys.exit(0)

groups, exps, largest, body = 0, 0, 0, None
for line in sys.stdin:
    if "linalg.generic" in line:
        groups, body = groups + 1, 0
    elif body is not None:
        body += 1
        exps += "math.exp" in line
        if "linalg.yield" in line:
            largest, body = max(largest, body), None
print("%d exps in %d groups, the largest body %d ops" % (exps, groups, largest))
