#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Checks that libmxrt exports every function <mxrt/mxrt.h> declares: the
# version script (runtime/src/exports.map) exports mxrt_* by pattern, so a
# declared but undefined or misspelled function would otherwise only show up
# when a program fails to link.
#
# usage: check_exports.py NM LIBMXRT MXRT_H
import re
import subprocess
import sys

nm, library, header = sys.argv[1:4]
with open(header) as f:
    declared = set(re.findall(r"MXRT_API[^;(]*?\b(mxrt_\w+)\s*\(", f.read()))
output = subprocess.run([nm, "-D", "--defined-only", library], check=True,
                        capture_output=True, text=True).stdout
exported = {line.split()[-1] for line in output.splitlines() if line.strip()}
missing = sorted(declared - exported)
if missing:
    print("declared in mxrt.h but not exported by libmxrt:", *missing,
          sep="\n  ")
    sys.exit(1)
print(f"all {len(declared)} functions of mxrt.h are exported")
