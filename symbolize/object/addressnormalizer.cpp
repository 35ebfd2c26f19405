#include "symbolize/object/addressnormalizer.h"

#include "symbolize/object/symboltable.h"

#include <optional>

namespace symflame::symbolize {

using model::ErrorCode;
using model::makeError;

namespace {
constexpr uint64_t kPage = 4096;
}

MappingRange mappingRangeOf(const model::Mapping& m, std::string_view file)
{
    return MappingRange { m.start, m.limit, m.offset, m.has(model::Mapping::ElfAddresses),
        model::isKernelImageMappingName(file) };
}

model::Result<AddressNormalizer> AddressNormalizer::create(const ElfFile& elf, const MappingRange& m)
{
    AddressNormalizer n;
    n.m_start = m.start;
    n.m_offset = m.offset;
    if (m.elfAddresses || (m.start == 0 && m.offset == 0 && (m.limit == 0 || m.limit == ~uint64_t(0)))
        || (m.kernelImage && m.offset == 0)) {
        n.m_start = 0;
        n.m_offset = 0;
        return n;
    }
    if (m.kernelImage) {
        // perf relocates the vmlinux's symbols by where its reference symbol ran (KASLR).
        std::optional<uint64_t> text = SymbolTable::addressOf(elf, "_text");
        if (!text)
            text = SymbolTable::addressOf(elf, "_stext");
        if (!text)
            return makeError(ErrorCode::Unsupported,
                "the kernel image has no _text or _stext symbol to place it where it ran", elf.path());
        n.m_start = 0;
        n.m_offset = 0;
        n.m_base = m.offset - *text;
        return n;
    }

    switch (elf.type()) {
    case ElfType::Relocatable:
        n.m_base = m.start;
        return n;
    case ElfType::Executable:
    case ElfType::Shared:
        break;
    default:
        return makeError(ErrorCode::Unsupported,
            "cannot map addresses into an ELF file of type " + elfTypeName(elf.type()), elf.path());
    }

    // The mapping in file-offset space; an unknown or empty limit means "to the end".
    const uint64_t mapBegin = m.offset;
    const uint64_t mapEnd = m.limit > m.start ? m.offset + (m.limit - m.start) : ~uint64_t(0);
    std::vector<Candidate> cands;
    for (const ElfSegment& s : elf.segments()) {
        if (s.type != elf::PT_LOAD || s.filesz == 0)
            continue;
        const uint64_t begin = s.offset & ~(kPage - 1);
        // p_memsz comes from the file: an absurd one must not wrap the end around.
        const uint64_t size = std::max(s.memsz, s.filesz);
        const uint64_t end = size > ~uint64_t(0) - s.offset ? ~uint64_t(0) : s.offset + size;
        if (end <= mapBegin || begin >= mapEnd)
            continue;
        // base = start - off + p_offset - p_vaddr (all modulo 2^64).
        cands.push_back(
            Candidate { begin, end, s.offset, s.offset + s.filesz, m.start - m.offset + s.offset - s.vaddr });
    }
    if (cands.empty()) {
        n.m_base = elf.type() == ElfType::Shared ? m.start - m.offset : 0;
        return n;
    }
    n.m_base = cands.front().base;
    if (cands.size() > 1) {
        bool allSame = true;
        for (const Candidate& c : cands)
            allSame = allSame && c.base == n.m_base;
        if (!allSame)
            n.m_segments = std::move(cands);
    }
    return n;
}

uint64_t AddressNormalizer::toElfAddress(uint64_t x) const
{
    if (m_segments.empty())
        return x - m_base;
    const uint64_t fx = x - m_start + m_offset;
    // The segment whose file bytes hold fx first, then one whose memory size reaches it (a
    // malformed p_memsz may reach over the next segment's bytes), then by page (segments share
    // pages at their edges).
    for (const Candidate& c : m_segments)
        if (fx >= c.exactBegin && fx < c.bytesEnd)
            return x - c.base;
    for (const Candidate& c : m_segments)
        if (fx >= c.exactBegin && fx < c.fileEnd)
            return x - c.base;
    for (const Candidate& c : m_segments)
        if (fx >= c.fileBegin && fx < c.fileEnd)
            return x - c.base;
    return x - m_base;
}

} // namespace symflame::symbolize
