// Fuzz harness: the V8 .cpuprofile reader, and the call tree of what it reads.
#include "model/analysis/calltree.h"
#include "model/io/cpuprofile.h"

using namespace symflame::model;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    auto profile = readCpuProfile(std::span(data, size));
    if (!profile)
        return 0;
    const SymbolTable symbols = SymbolTable::build(*profile);
    if (!profile->sampleTypes.empty())
        (void)CallTree::build(*profile, symbols, 0, CallTree::Direction::TopDown);
    return 0;
}
