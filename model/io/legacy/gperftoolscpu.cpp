// gperftools' binary CPU profile, read as google/pprof's profile/legacy_profile.go reads it
// (parseCPU, cpuProfile, parseCPUSamples, ParseMemoryMap, massageMappings, remapMappingIDs,
// cleanupDuplicateLocations): the same stacks, locations and mappings as
// `go tool pprof -proto -symbolize=none` writes.
#include "model/io/legacy/legacy.h"
#include "model/io/legacy/procmaps.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace symflame::model {

namespace {

// One of the four word layouts; get() reads word i (i counted from the start of the data).
struct Words {
    unsigned size = 8;
    bool bigEndian = false;

    uint64_t get(std::span<const uint8_t> d, size_t at) const
    {
        uint64_t v = 0;
        for (unsigned i = 0; i < size; ++i) {
            const unsigned shift = 8 * (bigEndian ? size - 1 - i : i);
            v |= uint64_t(d[at + i]) << shift;
        }
        return v;
    }
};

constexpr Words kLayouts[] = {{4, false}, {4, true}, {8, false}, {8, true}};
constexpr char kPrefix[] = "gperftools cpu profile: ";

// The layout whose header fits, its third word (0: C++, 1: Java) in *kind and period in *period.
const Words* headerLayout(std::span<const uint8_t> d, uint64_t* kind = nullptr, uint64_t* period = nullptr)
{
    for (const Words& w : kLayouts) {
        if (d.size() < 5 * size_t(w.size))
            continue;
        const uint64_t n1 = w.get(d, 0), n2 = w.get(d, w.size), n3 = w.get(d, 2 * w.size),
                       n4 = w.get(d, 3 * w.size), n5 = w.get(d, 4 * w.size);
        if (n1 == 0 && n2 == 3 && (n3 == 0 || n3 == 1) && n4 > 0 && n5 == 0) {
            if (kind)
                *kind = n3;
            if (period)
                *period = n4;
            return &w;
        }
    }
    return nullptr;
}

Error bad(ErrorCode code, const std::string& what)
{
    return makeError(code, kPrefix + what);
}

// A CPU profile's sample types (samples/count, cpu/nanoseconds), period and drop frames, as
// pprof's cpuProfile and javaCPUProfile give them.
Profile cpuProfileShell(int64_t period)
{
    Profile p;
    p.sampleTypes.push_back({p.strings.intern("samples"), p.strings.intern("count")});
    p.sampleTypes.push_back({p.strings.intern("cpu"), p.strings.intern("nanoseconds")});
    p.defaultSampleType = 1;
    p.periodType = p.sampleTypes[1];
    p.period = period;
    p.dropFrames = p.strings.intern(kCpuProfilerDropFrames);
    return p;
}

} // namespace

bool looksLikeGperftoolsCpu(std::span<const uint8_t> data)
{
    return headerLayout(data) != nullptr;
}

Result<Profile> readGperftoolsCpu(std::span<const uint8_t> data)
{
    uint64_t kind = 0;
    uint64_t periodUs = 0;
    const Words* w = headerLayout(data, &kind, &periodUs);
    if (!w) {
        if (data.size() < 20)
            return bad(ErrorCode::Truncated, "the file ends inside the header (" + std::to_string(data.size()) + " bytes)");
        return bad(ErrorCode::InvalidInput, "no header of the words 0, 3, 0, period, 0");
    }
    // pprof keeps the period in nanoseconds in an int64.
    if (periodUs > uint64_t(INT64_MAX) / 1000)
        return bad(ErrorCode::InvalidInput, "sampling period " + std::to_string(periodUs) + " us is too large");
    const int64_t period = int64_t(periodUs) * 1000;
    const size_t ws = w->size;

    // Samples as address lists (leaf first, non-leaf addresses less 1), locations by address in
    // the order first seen.
    std::vector<std::vector<uint64_t>> stacks;
    std::vector<uint64_t> counts;
    size_t at = 5 * ws;
    bool ended = false;
    while (at < data.size()) {
        const size_t record = stacks.size();
        if (data.size() - at < 2 * ws)
            return bad(ErrorCode::Truncated,
                "record " + std::to_string(record) + " at byte " + std::to_string(at) + " ends inside its count and depth");
        const uint64_t count = w->get(data, at);
        const uint64_t depth = w->get(data, at + ws);
        at += 2 * ws;
        const size_t wordsLeft = (data.size() - at) / ws;
        if (depth > wordsLeft)
            return bad(ErrorCode::Truncated,
                "record " + std::to_string(record) + " has a depth of " + std::to_string(depth) + " but only "
                    + std::to_string(wordsLeft) + " words are left in the file");
        std::vector<uint64_t> addrs(depth);
        for (size_t i = 0; i < depth; ++i, at += ws)
            addrs[i] = w->get(data, at);
        if (count == 0 && depth == 1 && addrs[0] == 0) {
            ended = true;
            break;
        }
        if (kind == 0) // Java's addresses are ids of the frames named after the samples
            for (size_t i = 1; i < addrs.size(); ++i)
                --addrs[i];
        if (count > uint64_t(INT64_MAX) || (period != 0 && int64_t(count) > INT64_MAX / period))
            return bad(ErrorCode::InvalidInput,
                "record " + std::to_string(record) + " has a count of " + std::to_string(count) + ", too large");
        stacks.push_back(std::move(addrs));
        counts.push_back(count);
    }
    (void)ended; // pprof reads a profile without the end marker too (no memory map then)

    if (kind == 1) {
        // Java (pprof's javaCPUProfile): the text after the samples names the frames.
        Profile p = cpuProfileShell(period);
        std::vector<std::vector<int64_t>> values;
        for (uint64_t c : counts)
            values.push_back({int64_t(c), int64_t(c) * period});
        const auto rest = data.subspan(std::min(at, data.size()));
        if (auto e = nameJavaLocations(p, {reinterpret_cast<const char*>(rest.data()), rest.size()}, 0, stacks, values))
            return bad(e->code, e->message);
        p.updateFrameStatuses();
        p.finishBuilding();
        return p;
    }

    // The signal handler's frame: a second frame shared by all samples but one in 32.
    const size_t margin = stacks.size() / 32;
    for (int iter = 0; iter < 2; ++iter) {
        std::unordered_map<uint64_t, size_t> second;
        for (const auto& s : stacks)
            if (s.size() > 1)
                ++second[s[1]];
        for (const auto& [addr, n] : second) {
            if (n >= stacks.size() - margin) {
                for (auto& s : stacks)
                    if (s.size() > 1 && s[1] == addr)
                        s.erase(s.begin() + 1);
                break;
            }
        }
    }

    auto maps = parseProcMaps(data.subspan(std::min(at, data.size())));
    if (!maps)
        return bad(maps.error().code, maps.error().message);

    Profile p = cpuProfileShell(period);

    // Locations in the order the samples first use them (pprof's remapLocationIDs), each placed
    // in a mapping (remapMappingIDs).
    const auto locationOf = addMappingsAndLocations(p, *maps, stacks);

    std::vector<LocationId> ids;
    for (size_t i = 0; i < stacks.size(); ++i) {
        auto& s = stacks[i];
        // cleanupDuplicateLocations: the leaf, seen both in the signal context and unwound.
        if (s.size() > 1 && s[0] == s[1] + 1)
            s.erase(s.begin() + 1);
        ids.clear();
        for (uint64_t a : s)
            ids.push_back(locationOf.at(a));
        const int64_t values[2] = {int64_t(counts[i]), int64_t(counts[i]) * period};
        p.addSample(p.internStack(ids), values);
    }
    p.updateFrameStatuses();
    p.finishBuilding();
    return p;
}

} // namespace symflame::model
