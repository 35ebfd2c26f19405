// From a runtime address in a profile's mapping to the ELF virtual address that debug info and
// symbol tables use (symbolization.md §1). For mapping [start, limit) at file offset off and the
// PT_LOAD (p_offset, p_vaddr) holding the address: x -> x - start + off - p_offset + p_vaddr.
#pragma once

#include "model/core/result.h"
#include "symbolize/object/elffile.h"

#include <cstdint>
#include <vector>

namespace symflame::symbolize {

struct MappingRange {
    uint64_t start = 0;
    uint64_t limit = 0;
    uint64_t offset = 0;
    /// The profile's addresses already are ELF virtual addresses (OTLP from the eBPF profiler).
    bool elfAddresses = false;
};

class AddressNormalizer {
public:
    /// The normalizer for a mapping of elf.
    ///  - start 0, offset 0, limit 0 or 2^64-1: addresses already are file addresses;
    ///  - ET_EXEC, ET_DYN: the PT_LOADs (with file bytes) overlapping the mapping in file-offset
    ///    space; with several, each address uses the one holding its file offset; with none,
    ///    ET_DYN uses base = start - offset and ET_EXEC base 0;
    ///  - ET_REL (kernel modules): base = start.
    /// Errors (Unsupported) for other ELF types.
    static model::Result<AddressNormalizer> create(const ElfFile& elf, const MappingRange& mapping);
    /// An identity normalizer (addresses that already are ELF virtual addresses).
    static AddressNormalizer identity() { return AddressNormalizer(); }

    /// The ELF virtual address for runtime address x.
    uint64_t toElfAddress(uint64_t x) const;
    /// base such that elf address = x - base, when one base serves the whole mapping.
    bool hasSingleBase() const { return m_segments.size() <= 1; }
    uint64_t base() const { return m_base; }

private:
    struct Candidate {
        uint64_t fileBegin; // p_offset rounded down to the page
        uint64_t fileEnd; // p_offset + max(p_memsz, p_filesz), at most 2^64-1
        uint64_t exactBegin; // p_offset
        uint64_t bytesEnd; // p_offset + p_filesz (the parser checked it lies in the file)
        uint64_t base;
    };
    uint64_t m_start = 0;
    uint64_t m_offset = 0;
    uint64_t m_base = 0;
    std::vector<Candidate> m_segments; // only when several PT_LOADs overlap the mapping
};

} // namespace symflame::symbolize
