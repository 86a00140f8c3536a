#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Checks that a runtime library exports every function its public C headers
# declare (libmxrt: <mxrt/mxrt.h>, <mxrt/engine.h>; libmxrt_kvstore:
# <mxrt/kvstore.h>): the version script (runtime/src/exports.map) exports
# mxrt_* by pattern, so a
# declared but undefined or misspelled function would otherwise only show up
# when a program fails to link.
#
# usage: check_exports.py NM LIBMXRT HEADER...
import re
import subprocess
import sys

nm, library, headers = sys.argv[1], sys.argv[2], sys.argv[3:]
declared = set()
for header in headers:
    with open(header) as f:
        declared |= set(re.findall(r"MXRT_API[^;(]*?\b(mxrt_\w+)\s*\(",
                                   f.read()))
output = subprocess.run([nm, "-D", "--defined-only", library], check=True,
                        capture_output=True, text=True).stdout
exported = {line.split()[-1] for line in output.splitlines() if line.strip()}
missing = sorted(declared - exported)
if missing:
    print("declared but not exported by libmxrt:", *missing,
          sep="\n  ")
    sys.exit(1)
print(f"all {len(declared)} declared functions are exported")
