// Fuzz harness: the ELF reader (headers, sections, segments, notes and build IDs, debug links,
// compressed sections), the symbol tables, Go build info, MiniDebugInfo and address
// normalization over a mapping taken from the input's first 24 bytes; the checks run before LLVM
// reads a file's DWARF (relocation tables, line table header forms).
#include "fuzz/fuzzhelpers.h"
#include "symbolize/engines/linetableforms.h"
#include "symbolize/object/addressnormalizer.h"
#include "symbolize/object/elffile.h"
#include "symbolize/object/gobuildinfo.h"
#include "symbolize/object/gopclntab.h"
#include "symbolize/object/minidebuginfo.h"
#include "symbolize/object/symboltable.h"

using namespace symflame::symbolize;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    symflame::fuzz::ByteReader in(std::span(data, size));
    MappingRange mapping;
    mapping.start = in.u64();
    mapping.limit = in.u64();
    mapping.offset = in.u64();
    // The mapping comes first so that seed files (whole ELF files) still start with their magic
    // when the fuzzer has not touched them: then the mapping is read from the ELF header.
    const std::span<const uint8_t> bytes = size >= 4 && data[0] == 0x7f && data[1] == 'E' ? std::span(data, size) : in.rest();
    auto elf = ElfFile::parse(MappedFile::fromBytes(std::vector<uint8_t>(bytes.begin(), bytes.end()), "fuzz"));
    if (!elf)
        return 0;
    const ElfFile& e = **elf;
    (void)e.buildId();
    (void)e.goBuildId();
    (void)e.debugLink();
    (void)e.debugAltLink();
    for (const ElfSection& s : e.sections())
        (void)e.sectionData(s);
    for (auto kind : { SymbolTable::Kind::Static, SymbolTable::Kind::Dynamic })
        if (auto table = SymbolTable::load(*elf, kind); table && !table->symbols().empty())
            (void)table->find(table->symbols().front().address);
    (void)readGoBuildInfo(e);
    if (auto located = locateGoPclntab(e)) {
        if (auto t = GoPclntab::parse(located->input); t && t->functionCount() > 0) {
            std::vector<GoFrame> frames;
            (void)t->lookup(t->minPc(), frames);
        }
    }
    (void)openMiniDebugInfo(e);
    (void)relocationProblem(e);
    if (const ElfSection* line = e.findSection(".debug_line")) {
        const auto table = e.sectionData(*line);
        (void)lineTableFormProblem(table, 0, e.isLittleEndian());
        (void)lineTableFormProblem(table, mapping.offset % (table.size() + 1), e.isLittleEndian());
    }
    if (auto n = AddressNormalizer::create(e, mapping)) {
        (void)n->toElfAddress(mapping.start);
        (void)n->toElfAddress(mapping.limit);
    }
    return 0;
}
