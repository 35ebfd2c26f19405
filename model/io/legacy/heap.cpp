// Heap, growth and fragmentation profiles in text (gperftools' HEAPPROFILE dumps, Google's
// heapz), read as google/pprof's profile/legacy_profile.go reads them (parseHeap,
// parseHeapHeader, parseHeapSample, scaleHeapSample, parseAdditionalSections), with its regular
// expressions (RE2, as Go's).
#include "model/io/legacy/legacy.h"
#include "model/io/legacy/linematch.h"
#include "model/io/legacy/procmaps.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace symflame::model {

namespace {

// A line of 64 KiB or more is an error, as in pprof.
constexpr size_t kMaxLine = 64 * 1024;

const RE2& heapHeaderRe()
{
    static const RE2 re(
        R"(heap profile: *(\d+): *(\d+) *\[ *(\d+): *(\d+) *\] *@ *(heap[_a-z0-9]*)/?(\d*))");
    return re;
}
const RE2& growthHeaderRe()
{
    static const RE2 re(R"(heap profile: *(\d+): *(\d+) *\[ *(\d+): *(\d+) *\] @ growthz?)");
    return re;
}
const RE2& fragmentationHeaderRe()
{
    static const RE2 re(R"(heap profile: *(\d+): *(\d+) *\[ *(\d+): *(\d+) *\] @ fragmentationz?)");
    return re;
}
const RE2& heapSampleRe()
{
    static const RE2 re(R"((-?\d+): *(-?\d+) *\[ *(\d+): *(\d+) *\] @([ x0-9a-f]*))");
    return re;
}

std::string_view firstLine(std::span<const uint8_t> data)
{
    std::string_view all(reinterpret_cast<const char*>(data.data()), data.size());
    const size_t nl = all.find('\n');
    std::string_view line = all.substr(0, nl);
    if (line.ends_with('\r'))
        line.remove_suffix(1);
    return line;
}

bool parseInt(const std::string& s, int64_t& out)
{
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 10);
    return ec == std::errc() && end == s.data() + s.size();
}

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Go's int64(float64): the value in range, the most negative int64 out of it (as amd64 does).
int64_t toInt64(double d)
{
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
        return INT64_MIN;
    return int64_t(d);
}

void scaleHeapSample(int64_t& count, int64_t& size, int64_t rate)
{
    if (count == 0 || size == 0) {
        count = size = 0;
        return;
    }
    if (rate <= 1)
        return;
    const double avgSize = double(size) / double(count);
    const double scale = 1 / (1 - std::exp(-avgSize / double(rate)));
    count = toInt64(double(count) * scale);
    size = toInt64(double(size) * scale);
}

Error bad(size_t line, const std::string& what)
{
    return makeError(ErrorCode::InvalidInput, "heap profile: line " + std::to_string(line) + ": " + what);
}

} // namespace

bool looksLikeHeapProfile(std::span<const uint8_t> data)
{
    const std::string_view line = firstLine(data);
    if (line.find("heap profile:") == std::string_view::npos)
        return false;
    return searchLine(line, heapHeaderRe()) || searchLine(line, growthHeaderRe())
        || searchLine(line, fragmentationHeaderRe());
}

Result<Profile> readHeapProfile(std::span<const uint8_t> data)
{
    const std::string_view header = firstLine(data);
    if (header.size() >= kMaxLine)
        return bad(1, "longer than " + std::to_string(kMaxLine) + " bytes");
    std::string sampling;
    int64_t period = 0;
    bool hasAlloc = false;
    LineMatch h;
    if (searchLine(header, heapHeaderRe(), &h)) {
        if (!h[6].empty() && !parseInt(h.str(6), period))
            return bad(1, "sampling rate " + h.str(6) + " is not a number");
        hasAlloc = (h[3] != h[1] && h[3] != "0") || (h[4] != h[2] && h[4] != "0");
        const std::string kind = h.str(5);
        if (kind == "heapz_v2" || kind == "heap_v2")
            sampling = "v2";
        else if (kind == "heapprofile")
            period = 1;
        else if (kind == "heap") {
            sampling = "v2";
            period /= 2;
        } else
            return bad(1, "unknown heap profile kind '" + kind + "'");
    } else if (searchLine(header, growthHeaderRe()) || searchLine(header, fragmentationHeaderRe())) {
        period = 1;
    } else {
        return bad(1, "no 'heap profile: N: B [ N: B ] @ kind' header");
    }

    Profile p;
    const auto type = [&p](const char* t, const char* u) { return ValueType{p.strings.intern(t), p.strings.intern(u)}; };
    p.periodType = type("space", "bytes");
    p.period = period;
    if (hasAlloc) {
        p.sampleTypes = {type("alloc_objects", "count"), type("alloc_space", "bytes"), type("inuse_objects", "count"),
            type("inuse_space", "bytes")};
    } else {
        p.sampleTypes = {type("objects", "count"), type("space", "bytes")};
    }
    p.defaultSampleType = p.sampleTypes.size() - 1;
    p.dropFrames = p.strings.intern(kAllocDropFrames);
    p.keepFrames = p.strings.intern(kAllocKeepFrames);
    const StringId bytesKey = p.strings.intern("bytes");

    const std::string_view all(reinterpret_cast<const char*>(data.data()), data.size());
    size_t pos = all.find('\n');
    pos = pos == std::string_view::npos ? all.size() : pos + 1;
    size_t lineNo = 1;
    std::vector<std::vector<uint64_t>> stacks;
    std::vector<std::vector<int64_t>> values;
    std::vector<int64_t> blockSizes;
    size_t mapsAt = all.size();
    while (pos < all.size()) {
        const size_t nl = all.find('\n', pos);
        const size_t end = nl == std::string_view::npos ? all.size() : nl;
        std::string_view raw = all.substr(pos, end - pos);
        pos = nl == std::string_view::npos ? all.size() : nl + 1;
        ++lineNo;
        if (raw.size() >= kMaxLine)
            return bad(lineNo, "longer than " + std::to_string(kMaxLine) + " bytes");
        if (raw.find("--- Memory map: ---") != std::string_view::npos
            || raw.find("MAPPED_LIBRARIES:") != std::string_view::npos) {
            mapsAt = pos;
            break;
        }
        while (!raw.empty() && isSpace(raw.front()))
            raw.remove_prefix(1);
        while (!raw.empty() && isSpace(raw.back()))
            raw.remove_suffix(1);
        if (raw.empty() || raw.front() == '#')
            continue;
        LineMatch m;
        if (!searchLine(raw, heapSampleRe(), &m))
            return bad(lineNo, "not a sample ('count: bytes [ count: bytes ] @ addresses')");
        std::vector<int64_t> v;
        int64_t blockSize = 0;
        const auto add = [&](int countGroup, const char* label) -> std::optional<Error> {
            int64_t count = 0, size = 0;
            if (!parseInt(m.str(countGroup), count) || !parseInt(m.str(countGroup + 1), size))
                return bad(lineNo, "a count or size out of range");
            if (count == 0 && size != 0)
                return bad(lineNo, std::string(label) + " count was 0 but " + label + " bytes was " + std::to_string(size));
            if (count != 0) {
                blockSize = (count == -1 && size == INT64_MIN) ? INT64_MIN : size / count;
                if (sampling == "v2")
                    scaleHeapSample(count, size, period);
            }
            v.push_back(count);
            v.push_back(size);
            return std::nullopt;
        };
        if (hasAlloc)
            if (auto e = add(3, "allocation"))
                return *e;
        if (auto e = add(1, "inuse"))
            return *e;
        std::vector<uint64_t> addrs;
        const std::string_view hex = m[5];
        for (size_t i = hex.find("0x"); i != std::string::npos; i = hex.find("0x", i)) {
            size_t j = i + 2;
            while (j < hex.size() && ((hex[j] >= '0' && hex[j] <= '9') || (hex[j] >= 'a' && hex[j] <= 'f')))
                ++j;
            if (j == i + 2) {
                i += 1;
                continue;
            }
            uint64_t a = 0;
            const auto [e, ec] = std::from_chars(hex.data() + i + 2, hex.data() + j, a, 16);
            if (ec != std::errc())
                return bad(lineNo, "address " + std::string(hex.substr(i, j - i)) + " is larger than 64 bits");
            addrs.push_back(a - 1);
            i = j;
        }
        stacks.push_back(std::move(addrs));
        values.push_back(std::move(v));
        blockSizes.push_back(blockSize);
    }

    auto maps = parseProcMaps(data.subspan(std::min(mapsAt, data.size())));
    if (!maps)
        return makeError(maps.error().code, "heap profile: " + maps.error().message);
    const auto locationOf = addMappingsAndLocations(p, *maps, stacks);
    std::vector<LocationId> ids;
    for (size_t i = 0; i < stacks.size(); ++i) {
        ids.clear();
        for (uint64_t a : stacks[i])
            ids.push_back(locationOf.at(a));
        p.addSample(p.internStack(ids), values[i]);
        const Label label{bytesKey, StringId(), blockSizes[i], StringId()};
        p.setSampleLabelSet(i, p.internLabelSet(std::span(&label, 1)));
    }
    p.updateFrameStatuses();
    p.finishBuilding();
    return p;
}

} // namespace symflame::model
