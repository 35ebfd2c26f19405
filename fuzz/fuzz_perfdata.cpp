// Fuzz harness: the perf.data reader (header, attributes, feature sections, records in file and
// pipe mode), and the call tree of what it reads. An unwinder that reads every register and
// every byte of each `--call-graph dwarf` request (and returns a few of them as frames) makes
// the sanitizers check the spans the reader hands out; the real unwinder (libdwfl) is not
// linked here: it reads binaries from the file system.
#include "model/analysis/calltree.h"
#include "model/io/perf/perfdata.h"

using namespace symflame::model;

namespace {

class ReadingUnwinder final : public PerfStackUnwinder {
public:
    void unwind(const PerfUnwindRequest& r, std::vector<uint64_t>& frames) override
    {
        frames.clear();
        uint64_t sum = 0;
        for (uint64_t v : r.regs)
            sum += v;
        for (uint8_t b : r.stack)
            sum += b;
        for (const PerfMapping& m : r.mappings)
            sum += m.start + m.limit + m.file.size();
        uint64_t ip = 0;
        if (r.reg(kPerfRegIp, ip))
            frames.push_back(ip);
        if (sum & 1)
            frames.push_back(sum);
    }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    // Unwound on the reader's thread, as the harness always was (the pool's threads are checked
    // by tst_perfdwarf threadsMakeNoDifference).
    ReadingUnwinder unwinder;
    auto profile = readPerfData(std::span(data, size), nullptr, &unwinder);
    if (!profile)
        return 0;
    const SymbolTable symbols = SymbolTable::build(*profile);
    (void)CallTree::build(*profile, symbols, 1, CallTree::Direction::TopDown);
    return 0;
}
