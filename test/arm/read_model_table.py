# SPDX-License-Identifier: Apache-2.0
# Prints the reflective table (runtime/include/mxrt/model_abi.h) of a
# compiled shared library read straight from its ELF file, without loading
# it: so an x86 machine reads an aarch64 library's table, and a test diffs
# it with the x86 library's (the ABI is the same on both). Pointers in the
# table are resolved through the library's R_*_RELATIVE relocations.
import hashlib
import struct
import sys

MACHINES = {62: "x86-64", 183: "aarch64"}
RELATIVE = {62: 8, 183: 1027}  # R_X86_64_RELATIVE, R_AARCH64_RELATIVE
DTYPES = {0: "float32", 1: "float64", 2: "int32", 3: "int64", 4: "int8",
          5: "uint8", 6: "bool", 7: "float16", 8: "bfloat16", 9: "string"}


class Elf:
    def __init__(self, path):
        self.data = open(path, "rb").read()
        d = self.data
        if d[:4] != b"\x7fELF" or d[4] != 2 or d[5] != 1:
            sys.exit(f"{path}: not a little-endian ELF64 file")
        self.machine = struct.unpack_from("<H", d, 18)[0]
        if self.machine not in MACHINES:
            sys.exit(f"{path}: machine {self.machine} is not x86-64 or aarch64")
        phoff, shoff = struct.unpack_from("<QQ", d, 32)
        phentsize, phnum, shentsize, shnum, shstrndx = struct.unpack_from(
            "<HHHHH", d, 54)
        self.segments = []  # (vaddr, filesz, offset) of PT_LOAD
        for i in range(phnum):
            p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
                "<IIQQQQ", d, phoff + i * phentsize)
            if p_type == 1:
                self.segments.append((p_vaddr, p_filesz, p_offset))
        sections = []
        for i in range(shnum):
            sh_name, sh_type, _, _, sh_offset, sh_size, sh_link, _, _, \
                sh_entsize = struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize)
            sections.append((sh_name, sh_type, sh_offset, sh_size, sh_link, sh_entsize))
        names = sections[shstrndx][2]
        self.section_list = sections
        self.sections = {self.cstring_at(names + s[0]): s for s in sections}
        self.relocated = {}
        for s in sections:
            if s[1] == 4:  # SHT_RELA
                for off in range(s[2], s[2] + s[3], 24):
                    r_offset, r_info, r_addend = struct.unpack_from("<QQq", d, off)
                    if r_info & 0xffffffff == RELATIVE[self.machine]:
                        self.relocated[r_offset] = r_addend

    def cstring_at(self, off):
        return self.data[off:self.data.index(b"\0", off)].decode()

    def offset(self, vaddr):
        for start, size, off in self.segments:
            if start <= vaddr < start + size:
                return off + vaddr - start
        sys.exit(f"address {vaddr:#x} is in no loaded segment")

    def symbol(self, name):
        for table in (".dynsym", ".symtab"):
            if table not in self.sections:
                continue
            _, _, off, size, link, entsize = self.sections[table]
            strings = self.section_list[link][2]
            for e in range(off, off + size, entsize):
                st_name, _, _, _, st_value, _ = struct.unpack_from("<IBBHQQ", self.data, e)
                if st_name and self.cstring_at(strings + st_name) == name:
                    return st_value
        sys.exit(f"no symbol {name}")

    def words(self, vaddr, count):
        return struct.unpack_from(f"<{count}q", self.data, self.offset(vaddr))

    def pointer(self, vaddr):
        return self.relocated.get(vaddr, self.words(vaddr, 1)[0])

    def string(self, vaddr):
        p = self.pointer(vaddr)
        return self.cstring_at(self.offset(p)) if p else None


def tensors(elf, base, count, kind, out):
    for i in range(count):
        at = base + i * 56
        _, dtype, ndim, _, offset, size, flags = elf.words(at, 7)
        shape_at = elf.pointer(at + 24)
        shape = elf.words(shape_at, ndim) if ndim else ()
        out.append(f"  {kind} {elf.string(at)} {DTYPES.get(dtype, dtype)} "
                   f"{'x'.join(map(str, shape)) or 'scalar'} offset {offset} "
                   f"bytes {size} flags {flags}")


def main():
    elf = Elf(sys.argv[1])
    desc = elf.symbol("mxc_model_descriptor")
    (abi, _, nfun, _, nparams, _, _, wsize, nstates, _, flags, _, whash,
     ndims, _) = elf.words(desc, 15)
    out = [f"machine {MACHINES[elf.machine]}",
           f"abi {abi} model {elf.string(desc + 8)} flags {flags}"]
    for f in range(nfun):
        at = elf.pointer(desc + 24) + f * 112
        (_, nin, _, nout, _, _, scratch, fflags, nvar, _, batch_dim, _,
         ncounts, _) = elf.words(at, 14)
        out.append(f"function {elf.string(at)} flags {fflags} scratch {scratch} "
                   f"variants {nvar} counts {ncounts} "
                   f"entry {'yes' if elf.pointer(at + 40) else 'no'}")
        for v in range(nvar):
            vat = elf.pointer(at + 72) + v * 24
            batch, _, vscratch = elf.words(vat, 3)
            out.append(f"  variant batch {batch} scratch {vscratch} "
                       f"entry {'yes' if elf.pointer(vat + 8) else 'no'}")
        tensors(elf, elf.pointer(at + 16), nin, "input", out)
        tensors(elf, elf.pointer(at + 32), nout, "output", out)
    tensors(elf, elf.pointer(desc + 40), nparams, "param", out)
    tensors(elf, elf.pointer(desc + 72), nstates, "state", out)
    for d in range(ndims):
        at = elf.pointer(desc + 112) + d * 32
        out.append(f"dim {elf.string(at)} " + " ".join(map(str, elf.words(at + 8, 3))))
    weights = elf.pointer(desc + 48)
    blob = elf.data[elf.offset(weights):elf.offset(weights) + wsize] if weights else b""
    out.append(f"weights {wsize} bytes sha256 {hashlib.sha256(blob).hexdigest()[:16]} "
               f"file {elf.string(desc + 88)} hash {whash}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
