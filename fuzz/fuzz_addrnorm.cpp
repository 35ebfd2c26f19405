// Fuzz harness: address normalization (AddressNormalizer) over arbitrary program headers and
// several mappings per input. Builds an ET_EXEC or ET_DYN file whose PT_LOADs (offsets, sizes,
// virtual addresses, all 64-bit) come from the input, then, for each mapping taken from the input,
// normalizes addresses at and around the mapping's edges and inside every segment, checking:
//  - an address whose file offset lies in exactly one PT_LOAD's file bytes maps into that segment
//    (p_vaddr + file offset - p_offset), whatever the other segments and the mapping look like;
//  - nothing aborts (UBSan catches overflow in signed or shift arithmetic).
// Input: file type and counts (2 bytes), then per segment offset, file size, memory size, vaddr
// (8 bytes each), then per mapping start, limit, offset (8 bytes each), then probe addresses.
#include "fuzz/fuzzelf.h"
#include "fuzz/fuzzhelpers.h"
#include "symbolize/object/addressnormalizer.h"

#include <cstdio>
#include <cstdlib>

using namespace symflame::symbolize;

namespace {

constexpr size_t kFileSize = 0x4000;

[[noreturn]] void fail(const char* what, uint64_t a, uint64_t b, uint64_t c)
{
    std::fprintf(stderr, "fuzz_addrnorm: %s (0x%llx, 0x%llx, 0x%llx)\n", what, static_cast<unsigned long long>(a),
        static_cast<unsigned long long>(b), static_cast<unsigned long long>(c));
    std::abort();
}

struct Load {
    uint64_t offset, filesz, vaddr;
};

void check(const AddressNormalizer& n, const MappingRange& m, const std::vector<Load>& loads, uint64_t x)
{
    const uint64_t got = n.toElfAddress(x);
    // Only addresses inside a mapping that does not wrap around in either space have one meaning.
    const uint64_t length = m.limit - m.start;
    if (m.start == 0 && m.offset == 0 && m.limit == ~uint64_t(0))
        return; // by convention: the addresses already are ELF addresses
    if (m.limit <= m.start || x < m.start || x >= m.limit || m.offset > ~uint64_t(0) - length)
        return;
    const uint64_t fx = x - m.start + m.offset;
    const Load* holder = nullptr;
    for (const Load& l : loads) {
        if (fx >= l.offset && fx - l.offset < l.filesz) {
            if (holder)
                return; // two segments hold the same file bytes: either answer is defensible
            holder = &l;
        }
    }
    if (!holder)
        return;
    const uint64_t want = holder->vaddr + (fx - holder->offset);
    if (got != want)
        fail("address outside the segment holding its file offset (address, got, wanted)", x, got, want);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 2)
        return 0;
    const bool dyn = data[0] & 1;
    const size_t segmentCount = 1 + (data[1] & 3);
    const size_t mappingCount = 1 + ((data[1] >> 2) & 3);
    symflame::fuzz::ByteReader in(std::span(data + 2, size - 2));

    std::vector<symflame::fuzz::ElfSegmentSpec> segments;
    std::vector<Load> loads;
    for (size_t i = 0; i < segmentCount; ++i) {
        symflame::fuzz::ElfSegmentSpec s;
        // The parser rejects PT_LOADs past the end of the file: keep the file bytes inside it.
        s.offset = in.u64() % kFileSize;
        s.filesz = in.u64() % (kFileSize - s.offset + 1);
        s.memsz = in.u64();
        s.vaddr = in.u64();
        segments.push_back(s);
        if (s.filesz > 0)
            loads.push_back({ s.offset, s.filesz, s.vaddr });
    }
    std::vector<MappingRange> mappings;
    for (size_t i = 0; i < mappingCount; ++i) {
        MappingRange m;
        m.start = in.u64();
        m.limit = in.u64();
        m.offset = in.u64();
        mappings.push_back(m);
    }
    std::vector<uint64_t> probes;
    while (!in.rest().empty() && probes.size() < 16)
        probes.push_back(in.u64());

    auto elf = ElfFile::parse(MappedFile::fromBytes(
        symflame::fuzz::writeElf(dyn ? elf::ET_DYN : elf::ET_EXEC, {}, segments, kFileSize), "fuzz"));
    if (!elf)
        fail("the harness's own ELF file did not parse", segmentCount, 0, 0);

    for (const MappingRange& m : mappings) {
        auto n = AddressNormalizer::create(**elf, m);
        if (!n)
            fail("no normalizer for an executable or shared file", m.start, m.limit, m.offset);
        for (uint64_t x : { m.start, m.start + 1, m.limit - 1, m.limit, m.start + (m.limit - m.start) / 2 })
            check(*n, m, loads, x);
        for (const Load& l : loads) // the first, middle and last byte of each segment, where mapped
            for (uint64_t fo : { l.offset, l.offset + l.filesz / 2, l.offset + l.filesz - 1 })
                check(*n, m, loads, fo - m.offset + m.start);
        const uint64_t length = m.limit - m.start;
        for (uint64_t p : probes) {
            check(*n, m, loads, p);
            check(*n, m, loads, m.start + (length ? p % length : 0));
        }
    }
    return 0;
}
