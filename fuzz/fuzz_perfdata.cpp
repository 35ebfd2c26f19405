// Fuzz harness: the perf.data reader (header, attributes, feature sections, records in file and
// pipe mode), and the call tree of what it reads.
#include "model/analysis/calltree.h"
#include "model/io/perf/perfdata.h"

using namespace symflame::model;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    auto profile = readPerfData(std::span(data, size));
    if (!profile)
        return 0;
    const SymbolTable symbols = SymbolTable::build(*profile);
    (void)CallTree::build(*profile, symbols, 1, CallTree::Direction::TopDown);
    return 0;
}
