// From a runtime address in a profile's mapping to the ELF virtual address that debug info and
// symbol tables use (symbolization.md §1). For mapping [start, limit) at file offset off and the
// PT_LOAD (p_offset, p_vaddr) holding the address: x -> x - start + off - p_offset + p_vaddr.
#pragma once

#include "model/core/profile.h"
#include "model/core/result.h"
#include "symbolize/object/elffile.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace symflame::symbolize {

struct MappingRange {
    uint64_t start = 0;
    uint64_t limit = 0;
    uint64_t offset = 0;
    /// The profile's addresses already are ELF virtual addresses (OTLP from the eBPF profiler).
    bool elfAddresses = false;
    /// The kernel image, as perf records it: offset is the runtime address of its reference
    /// symbol _text (perf's kernel MMAP pgoff), which KASLR moves; 0 when not recorded.
    bool kernelImage = false;
};

/// The range of a profile mapping whose file is file (the kernel image by its name).
MappingRange mappingRangeOf(const model::Mapping& m, std::string_view file);

class AddressNormalizer {
public:
    /// The normalizer for a mapping of elf.
    ///  - start 0, offset 0, limit 0 or 2^64-1: addresses already are file addresses;
    ///  - ET_EXEC, ET_DYN: the PT_LOADs (with file bytes) overlapping the mapping in file-offset
    ///    space; with several, each address uses the one holding its file offset; with none,
    ///    ET_DYN uses base = start - offset and ET_EXEC base 0;
    ///  - ET_REL (kernel modules): base = start;
    ///  - the kernel image (a vmlinux): base = offset - the vmlinux's _text (or _stext), as
    ///    perf relocates it; without a recorded offset, addresses already are file addresses.
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
