#include "symbolize/object/elffile.h"

#include "model/core/frameformat.h"
#include "model/core/hex.h"

#include <algorithm>
#include <cstring>

namespace symflame::symbolize {

using model::ErrorCode;
using model::makeError;
using model::Result;
using model::Status;

namespace {

constexpr size_t kIdentSize = 16;
constexpr uint8_t ELFCLASS32 = 1, ELFCLASS64 = 2;
constexpr uint8_t ELFDATA2LSB = 1, ELFDATA2MSB = 2;

// a + b <= limit without overflow.
bool fits(uint64_t offset, uint64_t size, uint64_t limit)
{
    return offset <= limit && size <= limit - offset;
}

uint64_t alignUp(uint64_t v, uint64_t a)
{
    return (v + (a - 1)) & ~(a - 1);
}

} // namespace

std::string elfTypeName(ElfType t)
{
    switch (t) {
    case ElfType::None:
        return "NONE";
    case ElfType::Relocatable:
        return "REL";
    case ElfType::Executable:
        return "EXEC";
    case ElfType::Shared:
        return "DYN";
    case ElfType::Core:
        return "CORE";
    }
    return model::hexNumber(static_cast<uint16_t>(t));
}

const char* sectionCompressionName(SectionCompression c)
{
    switch (c) {
    case SectionCompression::None:
        return "none";
    case SectionCompression::Zlib:
        return "zlib";
    case SectionCompression::Zstd:
        return "zstd";
    case SectionCompression::GnuZdebug:
        return "zlib-gnu";
    case SectionCompression::Unknown:
        return "unknown";
    }
    return "?";
}

std::string toHex(std::span<const uint8_t> bytes)
{
    return model::hexBytes(bytes);
}

std::string normalizeBuildId(std::string_view id)
{
    std::string s(id);
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return s; // not hex (a Go build ID): case matters
    for (char& c : s)
        if (c >= 'A' && c <= 'F')
            c = static_cast<char>(c - 'A' + 'a');
    return s;
}

bool ElfFile::hasElfMagic(std::span<const uint8_t> b)
{
    return b.size() >= 4 && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F';
}

uint16_t ElfFile::read16(const uint8_t* p) const
{
    return m_little ? static_cast<uint16_t>(p[0] | (p[1] << 8)) : static_cast<uint16_t>((p[0] << 8) | p[1]);
}

uint32_t ElfFile::read32(const uint8_t* p) const
{
    if (m_little)
        return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

uint64_t ElfFile::read64(const uint8_t* p) const
{
    const uint64_t a = read32(p), b = read32(p + 4);
    return m_little ? (a | (b << 32)) : ((a << 32) | b);
}

Result<ElfFilePtr> ElfFile::open(const std::string& path)
{
    auto f = MappedFile::open(path);
    if (!f)
        return f.error();
    return parse(std::move(*f));
}

Result<ElfFilePtr> ElfFile::parse(MappedFilePtr file)
{
    std::shared_ptr<ElfFile> elf(new ElfFile(std::move(file)));
    if (Status st = elf->parseImpl(); !st)
        return st.error().withPath(elf->path());
    return ElfFilePtr(std::move(elf));
}

Status ElfFile::parseImpl()
{
    const auto b = bytes();
    const uint64_t size = b.size();
    if (size < 4 || !hasElfMagic(b))
        return makeError(ErrorCode::InvalidInput, "not an ELF file");
    if (size < kIdentSize)
        return makeError(
            ErrorCode::Truncated, "ELF file truncated in its identification (" + std::to_string(size) + " bytes)");
    const uint8_t cls = b[4], data = b[5];
    if (cls != ELFCLASS32 && cls != ELFCLASS64)
        return makeError(ErrorCode::InvalidInput, "invalid ELF class " + std::to_string(cls));
    if (data != ELFDATA2LSB && data != ELFDATA2MSB)
        return makeError(ErrorCode::InvalidInput, "invalid ELF data encoding " + std::to_string(data));
    m_is64 = cls == ELFCLASS64;
    m_little = data == ELFDATA2LSB;

    const uint64_t ehsize = m_is64 ? 64 : 52;
    if (size < ehsize)
        return makeError(ErrorCode::Truncated,
            "ELF file truncated in its header (" + std::to_string(size) + " bytes, header needs "
                + std::to_string(ehsize) + ")");
    const uint8_t* h = b.data();
    m_type = static_cast<ElfType>(read16(h + 16));
    m_machine = read16(h + 18);
    uint64_t phoff, shoff;
    uint32_t phentsize, phnum, shentsize, shnum, shstrndx;
    if (m_is64) {
        m_entry = read64(h + 24);
        phoff = read64(h + 32);
        shoff = read64(h + 40);
        phentsize = read16(h + 54);
        phnum = read16(h + 56);
        shentsize = read16(h + 58);
        shnum = read16(h + 60);
        shstrndx = read16(h + 62);
    } else {
        m_entry = read32(h + 24);
        phoff = read32(h + 28);
        shoff = read32(h + 32);
        phentsize = read16(h + 42);
        phnum = read16(h + 44);
        shentsize = read16(h + 46);
        shnum = read16(h + 48);
        shstrndx = read16(h + 50);
    }
    const uint32_t wantPhent = m_is64 ? 56 : 32, wantShent = m_is64 ? 64 : 40;

    // Extended numbering: the real counts live in section header 0.
    if (shoff != 0 && (shnum == 0 || shstrndx == elf::SHN_XINDEX || phnum == elf::PN_XNUM)) {
        if (shentsize != wantShent)
            return makeError(ErrorCode::InvalidInput, "invalid section header entry size " + std::to_string(shentsize));
        if (!fits(shoff, wantShent, size))
            return makeError(ErrorCode::Truncated,
                "section header table at offset " + model::hexNumber(shoff) + " is past the end of the file ("
                    + std::to_string(size) + " bytes)");
        const uint8_t* s0 = h + shoff;
        const uint64_t s0size = m_is64 ? read64(s0 + 32) : read32(s0 + 20);
        const uint32_t s0link = read32(s0 + (m_is64 ? 40 : 24));
        const uint32_t s0info = read32(s0 + (m_is64 ? 44 : 28));
        if (shnum == 0) {
            if (s0size > 0xffffffffu)
                return makeError(ErrorCode::InvalidInput, "absurd section count " + std::to_string(s0size));
            shnum = static_cast<uint32_t>(s0size);
        }
        if (shstrndx == elf::SHN_XINDEX)
            shstrndx = s0link;
        if (phnum == elf::PN_XNUM)
            phnum = s0info;
    }

    // Program headers.
    if (phnum > 0) {
        if (phentsize != wantPhent)
            return makeError(ErrorCode::InvalidInput, "invalid program header entry size " + std::to_string(phentsize));
        if (!fits(phoff, uint64_t(phnum) * phentsize, size))
            return makeError(ErrorCode::Truncated,
                "program header table (" + std::to_string(phnum) + " entries at offset " + model::hexNumber(phoff)
                    + ") extends past the end of the file (" + std::to_string(size) + " bytes)");
        m_segments.reserve(phnum);
        for (uint32_t i = 0; i < phnum; ++i) {
            const uint8_t* p = h + phoff + uint64_t(i) * phentsize;
            ElfSegment s;
            s.type = read32(p);
            if (m_is64) {
                s.flags = read32(p + 4);
                s.offset = read64(p + 8);
                s.vaddr = read64(p + 16);
                s.filesz = read64(p + 32);
                s.memsz = read64(p + 40);
                s.align = read64(p + 48);
            } else {
                s.offset = read32(p + 4);
                s.vaddr = read32(p + 8);
                s.filesz = read32(p + 16);
                s.memsz = read32(p + 20);
                s.flags = read32(p + 24);
                s.align = read32(p + 28);
            }
            // A segment without file bytes may name any offset (debug-only files shrunk by objcopy).
            if ((s.type == elf::PT_LOAD || s.type == elf::PT_NOTE) && s.filesz > 0 && !fits(s.offset, s.filesz, size))
                return makeError(ErrorCode::Truncated,
                    "program header " + std::to_string(i) + " (offset " + model::hexNumber(s.offset) + ", size " + model::hexNumber(s.filesz)
                        + ") extends past the end of the file (" + std::to_string(size) + " bytes)");
            m_segments.push_back(s);
        }
    }

    if (shoff != 0 && shnum > 0) {
        if (shentsize != wantShent)
            return makeError(ErrorCode::InvalidInput, "invalid section header entry size " + std::to_string(shentsize));
        if (Status st = parseSections(shoff, shnum, shstrndx); !st)
            return st;
    }

    parseNotes();
    parseLinks();
    classify();
    return Status::success();
}

Status ElfFile::parseSections(uint64_t shoff, uint32_t shnum, uint32_t shstrndx)
{
    const auto b = bytes();
    const uint64_t size = b.size();
    const uint64_t entsize = m_is64 ? 64 : 40;
    if (!fits(shoff, uint64_t(shnum) * entsize, size))
        return makeError(ErrorCode::Truncated,
            "section header table (" + std::to_string(shnum) + " entries at offset " + model::hexNumber(shoff)
                + ") extends past the end of the file (" + std::to_string(size) + " bytes)");
    m_sections.resize(shnum);
    std::vector<uint32_t> nameOffsets(shnum);
    for (uint32_t i = 0; i < shnum; ++i) {
        const uint8_t* p = b.data() + shoff + uint64_t(i) * entsize;
        ElfSection& s = m_sections[i];
        s.index = i;
        nameOffsets[i] = read32(p);
        s.type = read32(p + 4);
        if (m_is64) {
            s.flags = read64(p + 8);
            s.addr = read64(p + 16);
            s.offset = read64(p + 24);
            s.size = read64(p + 32);
            s.link = read32(p + 40);
            s.info = read32(p + 44);
            s.addralign = read64(p + 48);
            s.entsize = read64(p + 56);
        } else {
            s.flags = read32(p + 8);
            s.addr = read32(p + 12);
            s.offset = read32(p + 16);
            s.size = read32(p + 20);
            s.link = read32(p + 24);
            s.info = read32(p + 28);
            s.addralign = read32(p + 32);
            s.entsize = read32(p + 36);
        }
        if (s.hasData() && !fits(s.offset, s.size, size))
            return makeError(ErrorCode::Truncated,
                "section " + std::to_string(i) + " (offset " + model::hexNumber(s.offset) + ", size " + model::hexNumber(s.size)
                    + ") extends past the end of the file (" + std::to_string(size) + " bytes)");
    }
    if (shstrndx == elf::SHN_UNDEF)
        return Status::success(); // no names
    if (shstrndx >= shnum)
        return makeError(ErrorCode::InvalidInput,
            "section name table index " + std::to_string(shstrndx) + " is out of range (" + std::to_string(shnum)
                + " sections)");
    const ElfSection& strtab = m_sections[shstrndx];
    if (!strtab.hasData())
        return makeError(
            ErrorCode::InvalidInput, "section name table (section " + std::to_string(shstrndx) + ") has no data");
    const auto names = sectionData(strtab);
    for (uint32_t i = 0; i < shnum; ++i) {
        const uint32_t off = nameOffsets[i];
        if (off >= names.size())
            return makeError(ErrorCode::InvalidInput,
                "name of section " + std::to_string(i) + " (offset " + std::to_string(off)
                    + ") is outside the section name table (" + std::to_string(names.size()) + " bytes)");
        const void* nul = std::memchr(names.data() + off, 0, names.size() - off);
        if (!nul)
            return makeError(ErrorCode::InvalidInput, "name of section " + std::to_string(i) + " is not terminated");
        m_sections[i].name = std::string_view(
            reinterpret_cast<const char*>(names.data() + off), static_cast<const uint8_t*>(nul) - (names.data() + off));
    }
    return Status::success();
}

const ElfSection* ElfFile::findSection(std::string_view name) const
{
    for (const ElfSection& s : m_sections)
        if (s.name == name)
            return &s;
    return nullptr;
}

std::span<const uint8_t> ElfFile::sectionData(const ElfSection& s) const
{
    if (!s.hasData())
        return {};
    return bytes().subspan(s.offset, s.size);
}

std::span<const uint8_t> ElfFile::segmentData(const ElfSegment& s) const
{
    if (!fits(s.offset, s.filesz, bytes().size()))
        return {};
    return bytes().subspan(s.offset, s.filesz);
}

namespace {

// Walks the notes in data; returns false if fn asked to stop.
bool walkNotes(
    const ElfFile& elf, std::span<const uint8_t> data, uint64_t align, const std::function<bool(const ElfNote&)>& fn)
{
    align = align == 8 ? 8 : 4;
    uint64_t off = 0;
    const uint64_t n = data.size();
    while (fits(off, 12, n)) {
        const uint8_t* p = data.data() + off;
        const uint32_t namesz = elf.read32(p), descsz = elf.read32(p + 4), type = elf.read32(p + 8);
        const uint64_t nameOff = off + 12;
        if (!fits(nameOff, namesz, n))
            return true;
        const uint64_t descOff = alignUp(nameOff + namesz, align);
        if (!fits(descOff, descsz, n))
            return true;
        ElfNote note;
        std::string_view name(reinterpret_cast<const char*>(data.data() + nameOff), namesz);
        while (!name.empty() && name.back() == '\0')
            name.remove_suffix(1);
        note.name = name;
        note.type = type;
        note.desc = data.subspan(descOff, descsz);
        if (!fn(note))
            return false;
        const uint64_t next = alignUp(descOff + descsz, align);
        if (next <= off)
            return true;
        off = next;
    }
    return true;
}

} // namespace

void ElfFile::forEachNote(const std::function<bool(const ElfNote&)>& fn) const
{
    bool anyNoteSection = false;
    for (const ElfSection& s : m_sections) {
        if (s.type != elf::SHT_NOTE || !s.hasData())
            continue;
        anyNoteSection = true;
        if (!walkNotes(*this, sectionData(s), s.addralign, fn))
            return;
    }
    if (anyNoteSection)
        return;
    for (const ElfSegment& seg : m_segments) {
        if (seg.type != elf::PT_NOTE)
            continue;
        if (!walkNotes(*this, segmentData(seg), seg.align, fn))
            return;
    }
}

void ElfFile::parseNotes()
{
    forEachNote([this](const ElfNote& n) {
        if (n.type == elf::NT_GNU_BUILD_ID && n.name == "GNU" && m_buildId.empty() && !n.desc.empty())
            m_buildId = toHex(n.desc);
        else if (n.type == elf::NT_GO_BUILD_ID && n.name == "Go" && m_goBuildId.empty())
            m_goBuildId.assign(reinterpret_cast<const char*>(n.desc.data()), n.desc.size());
        return m_buildId.empty() || m_goBuildId.empty();
    });
    if (!m_buildId.empty())
        return;
    // Sections without SHT_NOTE but with the conventional name (seen in odd producers), and
    // PT_NOTE segments when the note sections carried no build ID.
    for (const ElfSegment& seg : m_segments) {
        if (seg.type != elf::PT_NOTE)
            continue;
        walkNotes(*this, segmentData(seg), seg.align, [this](const ElfNote& n) {
            if (n.type == elf::NT_GNU_BUILD_ID && n.name == "GNU" && !n.desc.empty()) {
                m_buildId = toHex(n.desc);
                return false;
            }
            return true;
        });
        if (!m_buildId.empty())
            return;
    }
}

void ElfFile::parseLinks()
{
    if (const ElfSection* s = findSection(".gnu_debuglink"); s && s->hasData()) {
        const auto d = sectionData(*s);
        const void* nul = std::memchr(d.data(), 0, d.size());
        if (nul) {
            const size_t len = static_cast<const uint8_t*>(nul) - d.data();
            const uint64_t crcOff = alignUp(len + 1, 4);
            if (len > 0 && fits(crcOff, 4, d.size()))
                m_debugLink = DebugLink { std::string(reinterpret_cast<const char*>(d.data()), len),
                    read32(d.data() + crcOff) };
        }
    }
    if (const ElfSection* s = findSection(".gnu_debugaltlink"); s && s->hasData()) {
        const auto d = sectionData(*s);
        const void* nul = std::memchr(d.data(), 0, d.size());
        if (nul) {
            const size_t len = static_cast<const uint8_t*>(nul) - d.data();
            m_debugAltLink
                = DebugAltLink { std::string(reinterpret_cast<const char*>(d.data()), len), toHex(d.subspan(len + 1)) };
        }
    }
    // .debug_sup (DWARF 5, uncompressed): u16 version, u8 is_supplementary, file name (NUL
    // terminated), ULEB128 checksum length, checksum.
    if (const ElfSection* s = findSection(".debug_sup"); !m_debugAltLink && s && s->hasData()) {
        const auto d = sectionData(*s);
        const void* nul = d.size() > 3 ? std::memchr(d.data() + 3, 0, d.size() - 3) : nullptr;
        if (nul && read16(d.data()) == 5 && d[2] <= 1) {
            const size_t nameEnd = static_cast<const uint8_t*>(nul) - d.data();
            uint64_t checksumSize = 0;
            size_t p = nameEnd + 1;
            for (int shift = 0; p < d.size() && shift < 64; shift += 7) {
                checksumSize |= uint64_t(d[p] & 0x7f) << shift;
                if (!(d[p++] & 0x80))
                    break;
            }
            if (fits(p, checksumSize, d.size())) {
                const std::string checksum = toHex(d.subspan(p, checksumSize));
                if (d[2] == 1)
                    m_supplementaryChecksum = checksum;
                else
                    m_debugAltLink
                        = DebugAltLink { std::string(reinterpret_cast<const char*>(d.data() + 3), nameEnd - 3),
                              checksum, true };
            }
        }
    }
}

void ElfFile::classify()
{
    ElfContents& c = m_contents;
    SectionCompression compression = SectionCompression::None;
    bool anyExecData = false, anyExecNobits = false;
    const uint64_t symEntSize = m_is64 ? 24 : 16;
    for (const ElfSection& s : m_sections) {
        const std::string_view n = s.name;
        if ((s.flags & elf::SHF_EXECINSTR) && (s.flags & elf::SHF_ALLOC) && s.size > 0) {
            if (s.type == elf::SHT_NOBITS)
                anyExecNobits = true;
            else
                anyExecData = true;
        }
        if (s.type == elf::SHT_SYMTAB && s.hasData() && s.size >= 2 * symEntSize)
            c.symtab = true;
        if (s.type == elf::SHT_DYNSYM && s.hasData() && s.size >= 2 * symEntSize)
            c.dynsym = true;
        if (!s.hasData())
            continue;
        if (n == ".gnu_debugdata")
            c.gnuDebugdata = true;
        else if (n == ".gopclntab" || n == ".data.rel.ro.gopclntab")
            c.gopclntab = true;
        const bool zdebug = n.starts_with(".zdebug_");
        if (!zdebug && !n.starts_with(".debug_"))
            continue;
        const std::string_view base = n.substr(zdebug ? 8 : 7);
        if (base == "info")
            c.debugInfo = true;
        else if (base == "line")
            c.debugLine = true;
        const auto d = sectionData(s);
        SectionCompression sc = SectionCompression::None;
        if (s.flags & elf::SHF_COMPRESSED) {
            const uint32_t t = d.size() >= 4 ? read32(d.data()) : 0;
            sc = t == elf::ELFCOMPRESS_ZLIB  ? SectionCompression::Zlib
                : t == elf::ELFCOMPRESS_ZSTD ? SectionCompression::Zstd
                                             : SectionCompression::Unknown;
        } else if (zdebug && d.size() >= 12 && std::memcmp(d.data(), "ZLIB", 4) == 0) {
            sc = SectionCompression::GnuZdebug;
        } else if (zdebug) {
            sc = SectionCompression::Unknown;
        }
        if (sc != SectionCompression::None && compression == SectionCompression::None)
            compression = sc;
    }
    c.debugCompression = compression;
    c.debugOnly = anyExecNobits && !anyExecData;
}

std::span<const uint8_t> elfBytesAt(const ElfFile& elf, uint64_t address)
{
    for (const ElfSegment& s : elf.segments()) {
        if (s.type != elf::PT_LOAD || s.filesz == 0 || address < s.vaddr || address - s.vaddr >= s.filesz)
            continue;
        const auto data = elf.segmentData(s);
        if (data.size() == s.filesz)
            return data.subspan(address - s.vaddr);
    }
    if (!elf.segments().empty())
        return {};
    for (const ElfSection& s : elf.sections())
        if ((s.flags & elf::SHF_ALLOC) && s.hasData() && address >= s.addr && address - s.addr < s.size)
            return elf.sectionData(s).subspan(address - s.addr);
    return {};
}

namespace {

// Whether a table of entries of entrySize bytes can be read as LLVM's ELFFile::getSectionContentsAsArray
// reads it: the entry size as declared, a whole number of entries, in the file, aligned.
std::string tableProblem(const ElfFile& elf, const ElfSection& s, uint64_t entrySize, const char* what)
{
    const std::string name = "section " + std::to_string(s.index) + " (" + std::string(s.name) + ")";
    if (s.entsize != entrySize)
        return name + ": " + what + " entry size is " + std::to_string(s.entsize) + ", not "
            + std::to_string(entrySize);
    if (s.size % entrySize != 0)
        return name + ": size " + std::to_string(s.size) + " is not a whole number of " + what + " entries";
    if (!fits(s.offset, s.size, elf.bytes().size()))
        return name + " extends past the end of the file";
    const uint64_t align = elf.is64() ? 8 : 4;
    if (s.offset % align != 0)
        return name + ": offset " + model::hexNumber(s.offset) + " is not aligned to " + std::to_string(align);
    return {};
}

} // namespace

std::string relocationProblem(const ElfFile& elf)
{
    if (elf.type() != ElfType::Relocatable)
        return {};
    const auto& sections = elf.sections();
    const bool mips64el = elf.machine() == elf::EM_MIPS && elf.is64() && elf.isLittleEndian();
    for (const ElfSection& s : sections) {
        if (s.type == elf::SHT_CREL)
            return "section " + std::to_string(s.index) + " (" + std::string(s.name)
                + ") holds CREL relocations, which are not applied";
        if (s.type != elf::SHT_REL && s.type != elf::SHT_RELA)
            continue;
        const bool rela = s.type == elf::SHT_RELA;
        const uint64_t entrySize = (elf.is64() ? 16 : 8) + (rela ? (elf.is64() ? 8 : 4) : 0);
        if (std::string p = tableProblem(elf, s, entrySize, rela ? "RELA" : "REL"); !p.empty())
            return p;
        if (s.link >= sections.size())
            return "section " + std::to_string(s.index) + " (" + std::string(s.name) + ") links to symbol table section "
                + std::to_string(s.link) + ", which does not exist (" + std::to_string(sections.size()) + " sections)";
        const auto entries = elf.sectionData(s);
        uint64_t largest = 0; // the largest symbol index named
        for (uint64_t at = 0; at + entrySize <= entries.size(); at += entrySize) {
            const uint8_t* info = entries.data() + at + (elf.is64() ? 8 : 4);
            uint64_t symbol = 0;
            if (elf.is64())
                symbol = mips64el ? (elf.read64(info) & 0xffffffffu) : (elf.read64(info) >> 32);
            else
                symbol = elf.read32(info) >> 8;
            largest = std::max(largest, symbol);
        }
        if (largest == 0)
            continue; // no symbol is read
        const ElfSection& symtab = sections[s.link];
        if (std::string p = tableProblem(elf, symtab, elf.is64() ? 24 : 16, "symbol"); !p.empty())
            return "the symbol table of section " + std::to_string(s.index) + ", " + p;
        if (largest >= symtab.size / symtab.entsize)
            return "section " + std::to_string(s.index) + " (" + std::string(s.name) + ") names symbol "
                + std::to_string(largest) + ", past the end of its symbol table (" + std::to_string(symtab.size / symtab.entsize)
                + " symbols)";
    }
    return {};
}

} // namespace symflame::symbolize
