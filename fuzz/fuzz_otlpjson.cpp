// Fuzz harness: the OTLP JSON reader (through its conversion to protobuf).
#include "model/analysis/calltree.h"
#include "model/io/otlp/otlp.h"

using namespace symflame::model;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    auto profile = readOtlpJson(std::span(data, size));
    if (!profile)
        return 0;
    const SymbolTable symbols = SymbolTable::build(*profile);
    if (!profile->sampleTypes.empty())
        (void)CallTree::build(*profile, symbols, 0, CallTree::Direction::TopDown);
    return 0;
}
