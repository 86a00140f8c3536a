// SPDX-License-Identifier: Apache-2.0
// Streams the weights from the parameters' bytes to the output file, param by
// param, through the page cache: the shared library's reserved section is
// filled in place after ld.lld linked it, and the static archive's weights
// member is a small hand-written ELF64 object (ELF header, one data section,
// a symbol) written around the data, so neither path holds a second copy.
#include "compiler/codegen/WeightsWriter.h"
#include "compiler/codegen/Codegen.h"
#include "compiler/codegen/DirectFileStream.h"
#include "mxrt/model_abi.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Object/SymbolicFile.h"
#include "llvm/Support/EndianStream.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <functional>
#include <optional>

using namespace mxc;
using llvm::Twine;

namespace {

/// The section holding the weights, in the shared library and in the
/// archive's weights object alike.
constexpr const char *kWeightsSection = ".mxc.weights";

llvm::Error makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The parameters in the order of their offsets, so that a stream writes
/// forwards.
std::vector<const ParamSpec *> byOffset(const ModelSpec &spec) {
  std::vector<const ParamSpec *> params;
  for (const ParamSpec &p : spec.params)
    params.push_back(&p);
  llvm::sort(params, [](const ParamSpec *a, const ParamSpec *b) {
    return a->offset < b->offset;
  });
  return params;
}

/// raw_ostream::write_zeros counts in `unsigned`.
void writeZeros(llvm::raw_ostream &os, uint64_t n) {
  for (; n > 0; n -= std::min<uint64_t>(n, 1u << 20))
    os.write_zeros(std::min<uint64_t>(n, 1u << 20));
}

/// Writes spec.weightsSize bytes: each parameter at its offset, zeros
/// between.
void streamWeights(llvm::raw_ostream &os, const ModelSpec &spec) {
  uint64_t at = 0;
  for (const ParamSpec *p : byOffset(spec)) {
    uint64_t size = p->sizeBytes();
    if (!size)
      continue;
    assert(p->data.size() >= size && uint64_t(p->offset) >= at &&
           "parameters overlap or lack bytes");
    writeZeros(os, p->offset - at);
    os.write(reinterpret_cast<const char *>(p->data.data()), size);
    at = p->offset + size;
  }
  writeZeros(os, spec.weightsSize - at);
}

uint64_t alignTo8(uint64_t n) { return (n + 7) & ~uint64_t(7); }

/// A relocatable ELF64 little-endian object with the weights in one
/// read-only, 64-byte aligned section and a global hidden symbol at its
/// start. Laid out as [header][weights][.symtab][.strtab][.shstrtab][section
/// headers], so that the weights sit at offset 64 and stream in order.
class WeightsObject {
public:
  WeightsObject(const ModelSpec &spec, uint8_t osabi, uint16_t machine,
                uint32_t flags)
      : spec(spec), symbol(weightsSymbol(spec)), osabi(osabi), machine(machine),
        flags(flags) {
    strtab = std::string(1, '\0') + symbol + '\0';
    shstrtab = std::string(1, '\0');
    for (const char *name : {kWeightsSection, ".note.GNU-stack", ".symtab",
                             ".strtab", ".shstrtab"}) {
      nameOffsets.push_back(shstrtab.size());
      shstrtab += name;
      shstrtab += '\0';
    }
    symtabOffset = alignTo8(kDataOffset + spec.weightsSize);
    strtabOffset = symtabOffset + kSymtabSize;
    shstrtabOffset = strtabOffset + strtab.size();
    headersOffset = alignTo8(shstrtabOffset + shstrtab.size());
  }

  uint64_t size() const { return headersOffset + kNumSections * 64; }

  void write(llvm::raw_ostream &os) const {
    namespace ELF = llvm::ELF;
    llvm::support::endian::Writer w(os, llvm::endianness::little);
    // ELF header.
    os << "\x7f"
          "ELF";
    w.write<uint8_t>(ELF::ELFCLASS64);
    w.write<uint8_t>(ELF::ELFDATA2LSB);
    w.write<uint8_t>(ELF::EV_CURRENT);
    w.write<uint8_t>(osabi);
    os.write_zeros(ELF::EI_NIDENT - ELF::EI_ABIVERSION);
    w.write<uint16_t>(ELF::ET_REL);
    w.write<uint16_t>(machine);
    w.write<uint32_t>(ELF::EV_CURRENT);
    w.write<uint64_t>(0); // e_entry
    w.write<uint64_t>(0); // e_phoff
    w.write<uint64_t>(headersOffset);
    w.write<uint32_t>(flags);
    w.write<uint16_t>(64); // e_ehsize
    w.write<uint16_t>(0);  // e_phentsize
    w.write<uint16_t>(0);  // e_phnum
    w.write<uint16_t>(64); // e_shentsize
    w.write<uint16_t>(kNumSections);
    w.write<uint16_t>(kShstrtab);

    streamWeights(os, spec);
    os.write_zeros(symtabOffset - kDataOffset - spec.weightsSize);
    // .symtab: the null symbol, then the weights' (the first global: info 1).
    os.write_zeros(24);
    w.write<uint32_t>(1); // st_name
    w.write<uint8_t>((ELF::STB_GLOBAL << 4) | ELF::STT_OBJECT);
    w.write<uint8_t>(ELF::STV_HIDDEN);
    w.write<uint16_t>(kWeights);
    w.write<uint64_t>(0); // st_value
    w.write<uint64_t>(spec.weightsSize);
    os << strtab << shstrtab;
    os.write_zeros(headersOffset - shstrtabOffset - shstrtab.size());

    auto section = [&](unsigned index, uint32_t type, uint64_t shFlags,
                       uint64_t offset, uint64_t size, uint32_t link,
                       uint32_t info, uint64_t align, uint64_t entsize) {
      w.write<uint32_t>(nameOffsets[index - 1]);
      w.write<uint32_t>(type);
      w.write<uint64_t>(shFlags);
      w.write<uint64_t>(0); // sh_addr
      w.write<uint64_t>(offset);
      w.write<uint64_t>(size);
      w.write<uint32_t>(link);
      w.write<uint32_t>(info);
      w.write<uint64_t>(align);
      w.write<uint64_t>(entsize);
    };
    os.write_zeros(64); // the null section
    section(kWeights, ELF::SHT_PROGBITS, ELF::SHF_ALLOC, kDataOffset,
            spec.weightsSize, 0, 0, 64, 0);
    // No executable stack wanted (ld warns about objects without this note).
    section(kNoteStack, ELF::SHT_PROGBITS, 0, kDataOffset, 0, 0, 0, 1, 0);
    section(kSymtab, ELF::SHT_SYMTAB, 0, symtabOffset, kSymtabSize, kStrtab, 1,
            8, 24);
    section(kStrtab, ELF::SHT_STRTAB, 0, strtabOffset, strtab.size(), 0, 0, 1,
            0);
    section(kShstrtab, ELF::SHT_STRTAB, 0, shstrtabOffset, shstrtab.size(), 0,
            0, 1, 0);
  }

private:
  enum : uint16_t {
    kWeights = 1,
    kNoteStack,
    kSymtab,
    kStrtab,
    kShstrtab,
    kNumSections
  };
  static constexpr uint64_t kDataOffset = 64;
  static constexpr uint64_t kSymtabSize = 2 * 24;

  const ModelSpec &spec;
  std::string symbol, strtab, shstrtab;
  std::vector<uint32_t> nameOffsets;
  uint8_t osabi;
  uint16_t machine;
  uint32_t flags;
  uint64_t symtabOffset, strtabOffset, shstrtabOffset, headersOffset;
};

/// `text` left-aligned in a `width`-character field of a member header.
void field(llvm::raw_ostream &os, const Twine &text, unsigned width) {
  std::string s = text.str();
  assert(s.size() <= width && "archive header field overflows");
  os << s;
  os.indent(width - s.size());
}

/// A GNU archive member header: name, date, uid, gid, mode (deterministic:
/// zeros and 644, or 0 for the index, as llvm-ar writes them), size.
void memberHeader(llvm::raw_ostream &os, llvm::StringRef name, uint64_t size,
                  llvm::StringRef mode = "644") {
  field(os, name, 16);
  field(os, "0", 12);
  field(os, "0", 6);
  field(os, "0", 6);
  field(os, mode, 8);
  field(os, Twine(size), 10);
  os << "`\n";
}

/// The global symbols a member defines, which the archive's index lists (as
/// llvm-ar does: defined, global, not format-specific).
llvm::Error definedSymbols(llvm::StringRef object,
                           std::vector<std::string> &names) {
  auto file = llvm::object::SymbolicFile::createSymbolicFile(
      llvm::MemoryBufferRef(object, "code object"));
  if (!file)
    return file.takeError();
  for (const llvm::object::BasicSymbolRef &sym : (*file)->symbols()) {
    llvm::Expected<uint32_t> symFlags = sym.getFlags();
    if (!symFlags)
      return symFlags.takeError();
    using Sym = llvm::object::BasicSymbolRef;
    if (!(*symFlags & Sym::SF_Global) || (*symFlags & Sym::SF_Undefined) ||
        (*symFlags & Sym::SF_FormatSpecific))
      continue;
    std::string name;
    llvm::raw_string_ostream os(name);
    if (llvm::Error err = sym.printName(os))
      return err;
    names.push_back(std::move(name));
  }
  return llvm::Error::success();
}

} // namespace

std::string mxc::weightsSymbol(const ModelSpec &spec) {
  return spec.name + "_weights";
}

std::string mxc::weightsLinkerScript(const ModelSpec &spec) {
  // `. +=` allocates without input bytes: ld.lld neither reads nor writes
  // them (it only fills gaps with a non-zero filler), leaving a hole in the
  // file; linking the weights as an input object instead made ld.lld map and
  // copy them, peaking at 2x their size (docs/compile-memory.md).
  return ("/* Generated by mxc: reserves the weights of model '" + spec.name +
          "'. */\nSECTIONS {\n  " + kWeightsSection +
          " : ALIGN(4096) { HIDDEN(" + weightsSymbol(spec) + " = .); . += " +
          Twine(spec.weightsSize) + "; }\n} INSERT BEFORE .rodata;\n")
      .str();
}

llvm::Error mxc::fillReservedWeights(const std::string &path,
                                     const ModelSpec &spec) {
  uint64_t offset = 0;
  {
    // Mapped, not read: only the pages of the headers are touched.
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return makeError("cannot read the linked '" + path +
                       "': " + buffer.getError().message());
    llvm::StringRef bytes = (*buffer)->getBuffer();
    auto elf = llvm::object::ELF64LEFile::create(bytes);
    if (!elf)
      return elf.takeError();
    auto sections = elf->sections();
    if (!sections)
      return sections.takeError();
    const llvm::object::ELF64LE::Shdr *found = nullptr;
    for (const auto &s : *sections) {
      auto name = elf->getSectionName(s);
      if (name && *name == kWeightsSection)
        found = &s;
      else if (!name)
        llvm::consumeError(name.takeError());
    }
    if (!found || found->sh_type != llvm::ELF::SHT_PROGBITS ||
        found->sh_size != uint64_t(spec.weightsSize) ||
        found->sh_offset + found->sh_size > bytes.size())
      return makeError("the linked '" + path + "' has no " + kWeightsSection +
                       " section of " + Twine(spec.weightsSize) + " bytes");
    offset = found->sh_offset;
  }
  std::error_code ec;
  DirectFileStream os(path, ec, /*truncate=*/false, offset);
  if (ec)
    return makeError("cannot write the weights into '" + path +
                     "': " + ec.message());
  streamWeights(os, spec);
  os.close();
  if (os.has_error()) {
    std::string message = os.error().message();
    os.clear_error();
    return makeError("cannot write the weights into '" + path +
                     "': " + message);
  }
  return llvm::Error::success();
}

uint64_t mxc::weightsHash(const ModelSpec &spec) {
  std::string record;
  llvm::raw_string_ostream os(record);
  llvm::support::endian::Writer w(os, llvm::endianness::little);
  for (const ParamSpec &p : spec.params) {
    w.write<int64_t>(p.offset);
    w.write<int64_t>(p.sizeBytes());
    w.write<uint64_t>(llvm::xxh3_64bits(
        llvm::ArrayRef<uint8_t>(p.data.data(), size_t(p.sizeBytes()))));
  }
  return llvm::xxh3_64bits(llvm::StringRef(record));
}

std::string mxc::weightsFilePath(const std::string &libraryPath,
                                 const ModelSpec &spec) {
  llvm::SmallString<256> path(libraryPath);
  llvm::sys::path::remove_filename(path);
  llvm::sys::path::append(path, spec.weightsFile);
  return path.str().str();
}

llvm::Error mxc::writeWeightsFile(const std::string &path,
                                  const ModelSpec &spec) {
  return writeFileAtomically(path, [&](llvm::raw_ostream &os) {
    llvm::support::endian::Writer w(os, llvm::endianness::little);
    os.write(MXRT_WEIGHTS_FILE_MAGIC, 8);
    w.write<int64_t>(spec.weightsSize);
    w.write<uint64_t>(spec.weightsFileHash);
    writeZeros(os, MXRT_WEIGHTS_FILE_HEADER_SIZE - 24);
    streamWeights(os, spec);
    return llvm::Error::success();
  });
}

llvm::Error mxc::writeModelArchive(llvm::raw_ostream &os,
                                   llvm::StringRef codeObject,
                                   const ModelSpec &spec) {
  struct Member {
    std::string name;
    uint64_t size;
    std::function<void(llvm::raw_ostream &)> write;
    std::vector<std::string> symbols;
  };
  std::vector<Member> members(1);
  members[0].name = spec.name + ".o";
  members[0].size = codeObject.size();
  members[0].write = [&](llvm::raw_ostream &out) { out << codeObject; };
  if (llvm::Error err = definedSymbols(codeObject, members[0].symbols))
    return err;

  std::optional<WeightsObject> weights;
  if (spec.weightsSize > 0) {
    auto ident = llvm::object::getElfArchType(codeObject);
    if (ident.first != llvm::ELF::ELFCLASS64 ||
        ident.second != llvm::ELF::ELFDATA2LSB)
      return makeError("the weights object is written for ELF64 "
                       "little-endian targets only");
    auto code = llvm::object::ELF64LEFile::create(codeObject);
    if (!code)
      return code.takeError();
    const auto &h = code->getHeader();
    weights.emplace(spec, h.e_ident[llvm::ELF::EI_OSABI], h.e_machine,
                    h.e_flags);
    members.push_back({spec.name + "_weights.o",
                       weights->size(),
                       [&](llvm::raw_ostream &out) { weights->write(out); },
                       {weightsSymbol(spec)}});
  }

  // GNU names end with '/'; longer ones go in the "//" member, referred to
  // as "/<offset>".
  std::string longNames;
  std::vector<std::string> headerNames;
  for (const Member &m : members) {
    if (m.name.size() < 16) {
      headerNames.push_back(m.name + "/");
      continue;
    }
    headerNames.push_back("/" + std::to_string(longNames.size()));
    longNames += m.name + "/\n";
  }
  if (longNames.size() % 2)
    longNames += '\n';

  // The index: the count, each symbol's member header offset (big-endian
  // 32-bit), the names.
  uint64_t numSymbols = 0, namesSize = 0;
  for (const Member &m : members)
    for (const std::string &s : m.symbols) {
      ++numSymbols;
      namesSize += s.size() + 1;
    }
  uint64_t indexSize = 4 + 4 * numSymbols + namesSize;
  uint64_t at = 8 + 60 + indexSize + indexSize % 2;
  if (!longNames.empty())
    at += 60 + longNames.size();
  std::vector<uint64_t> offsets;
  for (const Member &m : members) {
    if (m.size > 9999999999ull)
      return makeError("'" + m.name + "' is too large for an archive member (" +
                       Twine(m.size) + " bytes, at most 10^10 - 1)");
    offsets.push_back(at);
    at += 60 + m.size + m.size % 2;
  }
  if (offsets.back() > UINT32_MAX)
    return makeError("the model's code is too large for a GNU archive index");

  llvm::support::endian::Writer be(os, llvm::endianness::big);
  os << "!<arch>\n";
  memberHeader(os, "/", indexSize, "0");
  be.write<uint32_t>(numSymbols);
  for (const auto &[m, offset] : llvm::zip(members, offsets))
    for (size_t i = 0; i < m.symbols.size(); ++i)
      be.write<uint32_t>(offset);
  for (const Member &m : members)
    for (const std::string &s : m.symbols)
      os << s << '\0';
  if (indexSize % 2)
    os << '\n';
  if (!longNames.empty()) {
    field(os, "//", 48);
    field(os, Twine(longNames.size()), 10);
    os << "`\n" << longNames;
  }
  for (const auto &[m, name] : llvm::zip(members, headerNames)) {
    memberHeader(os, name, m.size);
    m.write(os);
    if (m.size % 2)
      os << '\n';
  }
  return llvm::Error::success();
}
