// Fuzz harness: the pprof reader (gzip or raw protobuf) and, for what it accepts, the analyses a
// loaded profile goes through (symbols, top table, call trees both ways, folded stacks) and the
// writer, whose output must read back.
#include "model/analysis/calltree.h"
#include "model/analysis/collapse.h"
#include "model/io/pprof/pprof.h"
#include "model/analysis/toptable.h"

#include <cstdlib>

using namespace symflame::model;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    PprofReadOptions options;
    options.limits.maxOutputBytes = 64u << 20; // the fuzzer's memory, not the product's limit
    auto profile = readPprof(std::span(data, size), options);
    if (!profile)
        return 0;
    const SymbolTable symbols = SymbolTable::build(*profile);
    for (size_t t = 0; t < profile->sampleTypes.size() && t < 4; ++t) {
        (void)topFunctions(*profile, symbols, t);
        (void)CallTree::build(*profile, symbols, t, CallTree::Direction::TopDown);
        (void)CallTree::build(*profile, symbols, t, CallTree::Direction::BottomUp);
        (void)collapseStacks(*profile, symbols, t);
    }
    const std::vector<uint8_t> encoded = encodePprof(*profile);
    if (!readPprof(encoded, options))
        std::abort(); // what we write must read back
    return 0;
}
