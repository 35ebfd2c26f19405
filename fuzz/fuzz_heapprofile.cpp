// Fuzz harness: the heap/growth profile text reader (header, sample lines, the memory map), and
// the call tree of what it reads.
#include "model/analysis/calltree.h"
#include "model/io/legacy/legacy.h"

using namespace symflame::model;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    auto profile = readHeapProfile(std::span(data, size));
    if (!profile)
        return 0;
    const SymbolTable symbols = SymbolTable::build(*profile);
    (void)CallTree::build(*profile, symbols, profile->defaultSampleType, CallTree::Direction::TopDown);
    return 0;
}
