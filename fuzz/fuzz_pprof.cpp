// Fuzz harness: the pprof reader (gzip or raw protobuf) and, for what it accepts, the analyses a
// loaded profile goes through (symbols, top table, call trees both ways, folded stacks) and the
// writer, whose output must read back. gzip input is read as a stream (inflated on a thread as
// the samples are decoded): that read must give what the whole read of the inflated bytes gives.
#include "model/analysis/calltree.h"
#include "model/analysis/collapse.h"
#include "model/io/gzip.h"
#include "model/io/pprof/pprof.h"
#include "model/io/zstd.h"
#include "model/analysis/toptable.h"

#include <cstdlib>

using namespace symflame::model;

namespace {

bool sameRead(const Result<Profile>& a, const Result<Profile>& b)
{
    if (a.ok() != b.ok())
        return false;
    if (!a.ok())
        return a.error().code == b.error().code && a.error().message == b.error().message;
    const auto sameLocations = [&] {
        for (size_t i = 0; i < a->locations.size(); ++i)
            if (a->locations[i].sourceId != b->locations[i].sourceId || a->locations[i].kind != b->locations[i].kind)
                return false;
        return true;
    };
    return a->strings.size() == b->strings.size() && a->locations.size() == b->locations.size() && sameLocations()
        && a->stackBegin == b->stackBegin && a->stackLocations == b->stackLocations
        && a->sampleStacks == b->sampleStacks && a->sampleValues == b->sampleValues && a->labels == b->labels
        && a->labelSetBegin == b->labelSetBegin && a->sampleLabelSets == b->sampleLabelSets;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    PprofReadOptions options;
    options.limits.maxOutputBytes = 64u << 20; // the fuzzer's memory, not the product's limit
    const std::span<const uint8_t> input(data, size);
    auto profile = readPprof(input, options);

    // The other read of the same bytes: whole if the input was gzip, streamed if it was not.
    if (isGzip(input)) {
        DecompressLimits small = options.limits; // the comparison only for what inflates to little
        small.maxOutputBytes = 4u << 20;
        if (auto inflated = gunzip(input, small); inflated && !inflated->empty() && !isGzip(*inflated)
            && !isZstd(*inflated))
            if (!sameRead(profile, readPprof(*inflated, options)))
                std::abort();
    } else if (size > 0 && !isZstd(input)) {
        if (auto compressed = gzipCompress(input, 1); compressed)
            if (!sameRead(profile, readPprof(*compressed, options)))
                std::abort();
    }
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
