// Fuzz harness: the OTLP profiles reader (protobuf of every layout it tells apart, gzip, export
// requests) and, for what it accepts, the analyses and the OTLP writer, whose output must read back.
#include "model/analysis/calltree.h"
#include "model/io/otlp/otlp.h"
#include "model/analysis/toptable.h"

#include <cstdlib>

using namespace symflame::model;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    OtlpReadOptions options;
    options.limits.maxOutputBytes = 64u << 20;
    auto profile = readOtlp(std::span(data, size), options);
    if (!profile)
        return 0;
    const SymbolTable symbols = SymbolTable::build(*profile);
    for (size_t t = 0; t < profile->sampleTypes.size() && t < 4; ++t) {
        (void)topFunctions(*profile, symbols, t);
        (void)CallTree::build(*profile, symbols, t, CallTree::Direction::TopDown);
    }
    const std::vector<uint8_t> encoded = encodeOtlp(*profile);
    if (!readOtlp(encoded, options))
        std::abort(); // what we write must read back
    return 0;
}
