// Fuzz harness: the gopclntab reader on a raw table (from its magic), with every function's entry
// and PCs between them looked up, and the funcdata bytes (inline trees) the input's tail.
#include "symbolize/object/gopclntab.h"

using namespace symflame::symbolize;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    GoPclntabInput input;
    input.table = std::span(data, size);
    // 1.18+ inline trees live in gofunc: give them the last quarter of the input.
    input.goFunc = std::span(data + size - size / 4, size / 4);
    input.bytesAt = [&](uint64_t address) -> std::span<const uint8_t> {
        return address < size ? std::span(data + address, size - address) : std::span<const uint8_t>();
    };
    auto t = GoPclntab::parse(input);
    if (!t)
        return 0;
    std::vector<GoFrame> frames;
    const size_t n = t->functionCount() < 400 ? t->functionCount() : 400;
    for (size_t i = 0; i < n; ++i) {
        auto f = t->function(i);
        if (!f)
            continue;
        for (uint64_t pc : { f->entry, f->entry + (f->end - f->entry) / 2, f->end - 1 }) {
            frames.clear();
            (void)t->lookup(pc, frames);
        }
    }
    return 0;
}
