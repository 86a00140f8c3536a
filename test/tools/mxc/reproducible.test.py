# SPDX-License-Identifier: Apache-2.0
# reproducible.test's driver: compiles each output in both folders (absolute
# paths, each folder its own working directory) and compares the bytes.
import os
import subprocess
import sys

mxc, dirs = sys.argv[1], sys.argv[2:]
# output -> (model, mxc options)
outputs = [
    ("liblenet.so", "lenet.json", ["--input", "data=1x1x28x28"]),
    ("liblenet.a", "lenet.json", ["--input", "data=1x1x28x28"]),
    ("lenet.o", "lenet.json", ["--input", "data=1x1x28x28"]),
    ("lenet.ll", "lenet.json", ["--input", "data=1x1x28x28"]),
    ("lenet.h", "lenet.json", ["--input", "data=1x1x28x28"]),
    ("libmlp.so", "mlp.json", ["--input", "data=2x784", "--params", "mlp.params"]),
    ("libmlp.a", "mlp.json", ["--input", "data=2x784", "--params", "mlp.params"]),
    ("mlp.h", "mlp.json", ["--input", "data=2x784", "--params", "mlp.params"]),
    ("libmlp_train.so", "mlp.json", ["--input", "data=2x784", "--params", "mlp.params", "--train"]),
    # The weights in a file beside the library (compared below too).
    ("libmlpw.so", "mlp.json", ["--input", "data=2x784", "--params", "mlp.params",
                                "--weights=file"]),
    # Big enough to be compiled in pieces on several threads.
    ("libinception.so", "inception-bn.json", ["--input", "data=1x3x224x224"]),
]
for out, model, options in outputs:
    for d in dirs:
        args = [os.path.join(d, a) if a.endswith((".json", ".params")) else a
                for a in [model] + options]
        subprocess.run([mxc] + args + ["-o", os.path.join(d, out)], cwd=d,
                       check=True)
    files = [out] + (["libmlpw.weights"] if "--weights=file" in options else [])
    for name in files:
        contents = []
        for d in dirs:
            with open(os.path.join(d, name), "rb") as f:
                contents.append(f.read())
        same = all(c == contents[0] for c in contents)
        print(name, "identical" if same else "DIFFERS (%s)" % ", ".join(
            str(len(c)) for c in contents))
