// Fuzz harness: the folded-stacks reader, and the call tree of what it reads.
#include "model/analysis/calltree.h"
#include "model/analysis/collapse.h"
#include "model/io/folded.h"

using namespace symflame::model;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    auto profile = readFolded(std::span(data, size));
    if (!profile)
        return 0;
    const SymbolTable symbols = SymbolTable::build(*profile);
    (void)CallTree::build(*profile, symbols, 0, CallTree::Direction::TopDown);
    (void)collapseStacks(*profile, symbols, 0);
    return 0;
}
