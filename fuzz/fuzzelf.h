// Shared by the fuzz harnesses that need whole ELF files built from the fuzzer's choices: a
// minimal writer of 64-bit little-endian ELF files (file header, program headers, sections with
// a section name table). Layout: header, program headers, section bytes in order, the name table,
// section headers.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace symflame::fuzz {

struct ElfSectionSpec {
    std::string name;
    uint32_t type = 1; // SHT_PROGBITS
    uint64_t flags = 0;
    std::vector<uint8_t> data; // for SHT_NOBITS: only its size counts (sh_size), nothing is written
};

struct ElfSegmentSpec {
    uint32_t type = 1; // PT_LOAD
    uint64_t offset = 0;
    uint64_t vaddr = 0;
    uint64_t filesz = 0;
    uint64_t memsz = 0;
    uint64_t align = 0x1000;
};

inline void putLe(std::vector<uint8_t>& out, size_t at, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        out[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

/// The file; padTo (when larger) pads the section bytes with zeros so that segments may cover them.
inline std::vector<uint8_t> writeElf(uint16_t type, const std::vector<ElfSectionSpec>& sections,
    const std::vector<ElfSegmentSpec>& segments, size_t padTo = 0)
{
    constexpr size_t kEhdr = 64, kPhdr = 56, kShdr = 64;
    std::vector<uint8_t> out(kEhdr + kPhdr * segments.size(), 0);
    std::vector<uint64_t> offsets;
    for (const ElfSectionSpec& s : sections) {
        offsets.push_back(out.size());
        if (s.type != 8)
            out.insert(out.end(), s.data.begin(), s.data.end());
    }
    if (out.size() < padTo)
        out.resize(padTo, 0);
    // Section names: index 0 is the null section.
    std::string names(1, '\0');
    std::vector<uint32_t> nameOffsets;
    for (const ElfSectionSpec& s : sections) {
        nameOffsets.push_back(static_cast<uint32_t>(names.size()));
        names += s.name;
        names += '\0';
    }
    const uint32_t shstrtabName = static_cast<uint32_t>(names.size());
    names += ".shstrtab";
    names += '\0';
    const uint64_t namesOffset = out.size();
    out.insert(out.end(), names.begin(), names.end());
    while (out.size() % 8)
        out.push_back(0);
    const uint64_t shoff = out.size();
    const size_t shnum = sections.size() + 2;
    out.resize(out.size() + kShdr * shnum, 0);

    const uint8_t ident[] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
    std::copy(std::begin(ident), std::end(ident), out.begin());
    putLe(out, 16, type, 2);
    putLe(out, 18, 62, 2); // EM_X86_64
    putLe(out, 20, 1, 4);
    putLe(out, 32, segments.empty() ? 0 : kEhdr, 8);
    putLe(out, 40, shoff, 8);
    putLe(out, 52, kEhdr, 2);
    putLe(out, 54, kPhdr, 2);
    putLe(out, 56, segments.size(), 2);
    putLe(out, 58, kShdr, 2);
    putLe(out, 60, shnum, 2);
    putLe(out, 62, shnum - 1, 2); // .shstrtab is last
    for (size_t i = 0; i < segments.size(); ++i) {
        const ElfSegmentSpec& g = segments[i];
        const size_t p = kEhdr + kPhdr * i;
        putLe(out, p, g.type, 4);
        putLe(out, p + 4, 5, 4); // R+X
        putLe(out, p + 8, g.offset, 8);
        putLe(out, p + 16, g.vaddr, 8);
        putLe(out, p + 24, g.vaddr, 8);
        putLe(out, p + 32, g.filesz, 8);
        putLe(out, p + 40, g.memsz, 8);
        putLe(out, p + 48, g.align, 8);
    }
    for (size_t i = 0; i < sections.size(); ++i) {
        const ElfSectionSpec& s = sections[i];
        const size_t p = shoff + kShdr * (i + 1);
        putLe(out, p, nameOffsets[i], 4);
        putLe(out, p + 4, s.type, 4);
        putLe(out, p + 8, s.flags, 8);
        putLe(out, p + 24, offsets[i], 8);
        putLe(out, p + 32, s.data.size(), 8);
        putLe(out, p + 48, 1, 8);
    }
    const size_t p = shoff + kShdr * (shnum - 1);
    putLe(out, p, shstrtabName, 4);
    putLe(out, p + 4, 3, 4); // SHT_STRTAB
    putLe(out, p + 24, namesOffset, 8);
    putLe(out, p + 32, names.size(), 8);
    putLe(out, p + 48, 1, 8);
    return out;
}

/// A .note.gnu.build-id section's bytes for id.
inline std::vector<uint8_t> buildIdNote(std::span<const uint8_t> id)
{
    std::vector<uint8_t> n(16, 0);
    putLe(n, 0, 4, 4); // namesz ("GNU\0")
    putLe(n, 4, id.size(), 4);
    putLe(n, 8, 3, 4); // NT_GNU_BUILD_ID
    n[12] = 'G';
    n[13] = 'N';
    n[14] = 'U';
    for (uint8_t b : id) // (not insert(): GCC 12 warns of a bounds problem there that is not one)
        n.push_back(b);
    while (n.size() % 4)
        n.push_back(0);
    return n;
}

} // namespace symflame::fuzz
