#include "symbolize/object/symboltable.h"

#include <algorithm>
#include <cstring>

namespace symflame::symbolize {

using model::ErrorCode;
using model::makeError;
using model::Result;

namespace {

// Mapping symbols ($x, $d, $a, $t) mark code/data boundaries on ARM, AArch64 and RISC-V; LLVM
// treats them as format specific and never names code with them.
bool isMappingSymbol(uint16_t machine, std::string_view name)
{
    if (name.size() < 2 || name[0] != '$')
        return false;
    const char c = name[1];
    switch (machine) {
    case elf::EM_AARCH64:
    case elf::EM_RISCV:
        return c == 'x' || c == 'd';
    case elf::EM_ARM:
        return c == 'a' || c == 'd' || c == 't';
    default:
        return false;
    }
}

struct RawSymbol {
    uint32_t nameOff;
    uint8_t info;
    uint16_t shndx;
    uint64_t value, size;
};

// The symbol table entry at p (24 bytes in ELF64, 16 in ELF32).
RawSymbol readRaw(const ElfFile& elf, const uint8_t* p)
{
    if (elf.is64())
        return RawSymbol { elf.read32(p), p[4], elf.read16(p + 6), elf.read64(p + 8), elf.read64(p + 16) };
    return RawSymbol { elf.read32(p), p[12], elf.read16(p + 14), elf.read32(p + 4), elf.read32(p + 8) };
}

std::string_view nameAt(std::span<const uint8_t> strtab, uint32_t off)
{
    if (off >= strtab.size())
        return {};
    const char* s = reinterpret_cast<const char*>(strtab.data() + off);
    const void* nul = std::memchr(s, 0, strtab.size() - off);
    return std::string_view(s, nul ? static_cast<const char*>(nul) - s : strtab.size() - off);
}

} // namespace

std::optional<uint64_t> SymbolTable::addressOf(const ElfFile& elf, std::string_view name)
{
    const auto& sections = elf.sections();
    const uint64_t entSize = elf.is64() ? 24 : 16;
    for (const ElfSection& sec : sections) {
        if (sec.type != elf::SHT_SYMTAB || !sec.hasData() || sec.link >= sections.size()
            || !sections[sec.link].hasData())
            continue;
        const auto strtab = elf.sectionData(sections[sec.link]);
        const auto data = elf.sectionData(sec);
        for (uint64_t off = entSize; off + entSize <= data.size(); off += entSize) {
            const RawSymbol r = readRaw(elf, data.data() + off);
            if (r.shndx != elf::SHN_UNDEF && nameAt(strtab, r.nameOff) == name)
                return r.value;
        }
    }
    return std::nullopt;
}

Result<SymbolTable> SymbolTable::load(const ElfFilePtr& elf, Kind kind)
{
    SymbolTable t;
    t.m_elf = elf;
    t.m_kind = kind;
    const uint32_t wantType = kind == Kind::Static ? elf::SHT_SYMTAB : elf::SHT_DYNSYM;
    const auto& sections = elf->sections();
    const ElfSection* sec = nullptr;
    for (const ElfSection& s : sections)
        if (s.type == wantType) {
            sec = &s;
            break;
        }
    if (!sec || !sec->hasData())
        return t;
    const uint64_t entSize = elf->is64() ? 24 : 16;
    const char* what = kind == Kind::Static ? "symbol table" : "dynamic symbol table";
    if (sec->entsize != 0 && sec->entsize != entSize)
        return makeError(ErrorCode::InvalidInput,
            std::string(what) + " has entry size " + std::to_string(sec->entsize) + ", expected "
                + std::to_string(entSize),
            elf->path());
    if (sec->link >= sections.size() || !sections[sec->link].hasData())
        return makeError(ErrorCode::InvalidInput,
            std::string(what) + " links to string table section " + std::to_string(sec->link)
                + ", which does not exist or has no data",
            elf->path());
    const auto strtab = elf->sectionData(sections[sec->link]);
    const auto data = elf->sectionData(*sec);
    const uint64_t count = data.size() / entSize;
    const uint16_t machine = elf->machine();
    const bool isRel = elf->type() == ElfType::Relocatable;
    // Big-endian PowerPC64 (ELFv1): function symbols name descriptors in .opd whose first word
    // is the code address; name the code, as LLVM does.
    const ElfSection* opd = nullptr;
    if (machine == elf::EM_PPC64 && !elf->isLittleEndian() && elf->is64())
        if (const ElfSection* o = elf->findSection(".opd"); o && o->hasData())
            opd = o;

    t.m_symbols.reserve(static_cast<size_t>(count));
    for (uint64_t i = 1; i < count; ++i) {
        const uint8_t* p = data.data() + i * entSize;
        auto [nameOff, info, shndx, value, size] = readRaw(*elf, p);
        const uint8_t type = info & 0xf, bind = info >> 4;
        const std::string_view name = nameAt(strtab, nameOff);
        // Undefined, absolute, common and extended-index symbols have no section here.
        if (shndx == elf::SHN_UNDEF || shndx >= elf::SHN_LORESERVE || shndx >= sections.size()) {
            if (type == elf::STT_FILE)
                t.m_files.emplace_back(static_cast<uint32_t>(i), name);
            continue;
        }
        const ElfSection& owner = sections[shndx];
        if ((owner.flags & elf::SHF_ALLOC) == 0)
            continue;
        if (type != elf::STT_NOTYPE && type != elf::STT_FUNC && type != elf::STT_OBJECT && type != elf::STT_GNU_IFUNC)
            continue;
        if (isMappingSymbol(machine, name))
            continue;
        if (machine == elf::EM_ARM && type == elf::STT_FUNC)
            value &= ~uint64_t(1); // Thumb bit
        if (isRel)
            value += owner.addr;
        if (opd && value >= opd->addr && value - opd->addr <= opd->size && opd->size - (value - opd->addr) >= 8)
            value = elf->read64(elf->sectionData(*opd).data() + (value - opd->addr));
        t.m_symbols.push_back(Symbol { value, size, name, bind == elf::STB_LOCAL ? static_cast<uint32_t>(i) : 0u });
    }
    // Stable sort by (address, size), then keep the last of each address: the largest size, and
    // among equal sizes the one that comes last in the table (as LLVM's SymbolizableObjectFile).
    std::stable_sort(t.m_symbols.begin(), t.m_symbols.end(), [](const Symbol& a, const Symbol& b) {
        return a.address != b.address ? a.address < b.address : a.size < b.size;
    });
    size_t out = 0;
    for (size_t i = 0; i < t.m_symbols.size(); ++i) {
        if (i + 1 < t.m_symbols.size() && t.m_symbols[i + 1].address == t.m_symbols[i].address)
            continue;
        t.m_symbols[out++] = t.m_symbols[i];
    }
    t.m_symbols.resize(out);
    t.m_symbols.shrink_to_fit();
    return t;
}

const SymbolTable::Symbol* SymbolTable::find(uint64_t address) const
{
    auto it = std::upper_bound(
        m_symbols.begin(), m_symbols.end(), address, [](uint64_t a, const Symbol& s) { return a < s.address; });
    if (it == m_symbols.begin())
        return nullptr;
    --it;
    if (it->size != 0 && address - it->address >= it->size)
        return nullptr;
    return &*it;
}

std::string_view SymbolTable::fileOf(const Symbol& s) const
{
    if (s.localIndex == 0)
        return {};
    auto it = std::upper_bound(
        m_files.begin(), m_files.end(), s.localIndex, [](uint32_t idx, const auto& f) { return idx < f.first; });
    if (it == m_files.begin())
        return {};
    return std::prev(it)->second;
}

} // namespace symflame::symbolize
