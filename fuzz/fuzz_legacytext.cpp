// Fuzz harness: the text legacy readers other than heap profiles (contention/mutex, thread, Go count
// and Java heap/contention profiles, with their memory maps or frame names), each given every input, and the call tree of what
// they read.
#include "model/analysis/calltree.h"
#include "model/io/legacy/legacy.h"

using namespace symflame::model;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::span<const uint8_t> in(data, size);
    for (auto read : {readContentionProfile, readThreadProfile, readGoCountProfile, readJavaProfile}) {
        auto profile = read(in);
        if (!profile)
            continue;
        const SymbolTable symbols = SymbolTable::build(*profile);
        (void)CallTree::build(*profile, symbols, profile->defaultSampleType, CallTree::Direction::TopDown);
    }
    return 0;
}
