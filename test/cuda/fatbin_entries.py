#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Lists the CUDA fat binaries embedded in a file (a --target=cuda library,
archive or object) and what each holds, as `cuobjdump --list-elf` and
`--list-ptx` would (the toolkit on these machines ships no cuobjdump):

    fatbins: 1
    elf sm_90
    ptx sm_90

one line per distinct (kind, architecture), sorted. A fat binary starts with
the magic 0xBA55ED50, a 16-bit version, a 16-bit header size and a 64-bit
size of its entries; each entry starts with a 16-bit kind (1 PTX, 2 ELF),
16 bits, a 32-bit header size, a 64-bit payload size, and has its
architecture (sm_XX as XX) as the 32-bit word at offset 28.
"""
import struct
import sys

MAGIC = struct.pack("<I", 0xBA55ED50)
KINDS = {1: "ptx", 2: "elf"}


def entries(data):
    count, found = 0, set()
    at = data.find(MAGIC)
    while at >= 0:
        version, header, size = struct.unpack_from("<HHQ", data, at + 4)
        if version != 1 or header < 16 or at + header + size > len(data):
            sys.exit("%s: a fat binary header at byte %d is malformed" %
                     (sys.argv[1], at))
        count += 1
        p, end = at + header, at + header + size
        while p < end:
            kind, _, entry_header, payload = struct.unpack_from("<HHIQ", data, p)
            arch = struct.unpack_from("<I", data, p + 28)[0]
            if kind not in KINDS or entry_header < 32:
                sys.exit("%s: fat binary at byte %d has an entry of kind %d" %
                         (sys.argv[1], at, kind))
            found.add("%s sm_%d" % (KINDS[kind], arch))
            p += entry_header + payload
        at = data.find(MAGIC, end)
    return count, sorted(found)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: fatbin_entries.py FILE")
    with open(sys.argv[1], "rb") as f:
        count, found = entries(f.read())
    print("fatbins: %d" % count)
    for line in found:
        print(line)


if __name__ == "__main__":
    main()
