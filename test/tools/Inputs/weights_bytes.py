# SPDX-License-Identifier: Apache-2.0
# Prints the size and SHA-256 of the bytes at a symbol of an ELF64
# little-endian file (.o, .so, or each member of a GNU .a), so that a test can
# check that every output kind embeds the same weights, whichever writer
# wrote them. A symbol without a size (one a linker script defined) runs to
# the end of its section.
import hashlib
import struct
import sys


def members(data):
    """(name, bytes) of each member of a GNU archive."""
    at, long_names = 8, b""
    while at + 60 <= len(data):
        name = data[at:at + 16].decode().rstrip()
        size = int(data[at + 48:at + 58])
        body = data[at + 60:at + 60 + size]
        at += 60 + size + size % 2
        if name == "//":
            long_names = body
        elif name == "/":
            continue
        elif name.startswith("/"):
            start = int(name[1:])
            yield long_names[start:long_names.index(b"/\n", start)].decode(), body
        else:
            yield name.rstrip("/"), body


def symbol_bytes(elf, symbol):
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shnum, = struct.unpack_from("<H", elf, 0x3c)
    sections = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + 64 * i)
                for i in range(shnum)]
    for _, type_, _, _, offset, size, link, _, _, entsize in sections:
        if type_ != 2:  # SHT_SYMTAB
            continue
        strtab = sections[link]
        for k in range(size // entsize):
            name, _, _, shndx, value, sym_size = struct.unpack_from(
                "<IBBHQQ", elf, offset + k * entsize)
            start = strtab[4] + name
            if shndx == 0 or \
                    elf[start:elf.index(b"\0", start)].decode() != symbol:
                continue  # another symbol, or an undefined reference
            _, _, _, addr, sec_offset, sec_size, _, _, _, _ = sections[shndx]
            is_rel = struct.unpack_from("<H", elf, 0x10)[0] == 1  # ET_REL
            into = value if is_rel else value - addr
            n = sym_size or sec_size - into
            return elf[sec_offset + into:sec_offset + into + n]
    return None


path, symbol = sys.argv[1], sys.argv[2]
with open(path, "rb") as f:
    data = f.read()
files = members(data) if data.startswith(b"!<arch>\n") else [(path, data)]
for name, elf in files:
    found = symbol_bytes(elf, symbol)
    if found is not None:
        print(f"{symbol}: size {len(found)} sha256 "
              f"{hashlib.sha256(found).hexdigest()}")
        sys.exit(0)
sys.exit(f"{path}: no symbol {symbol}")
