// The text legacy profiles other than heap profiles, read as google/pprof's
// profile/legacy_profile.go reads them: contention and mutex profiles (parseContention,
// parseContentionSample), thread profiles (parseThread, parseThreadSample) and Go's count
// profiles (parseGoCount), each followed by its memory map (parseAdditionalSections).
#include "model/io/legacy/legacy.h"
#include "model/io/legacy/linematch.h"
#include "model/io/legacy/procmaps.h"

#include <charconv>
#include <cmath>
#include <unordered_map>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace symflame::model {

namespace {

// Go's bufio.Scanner's longest line: past it pprof fails with "token too long".
constexpr size_t kMaxLine = 64 * 1024;

inline constexpr char kLockDropFrames[] = "RecordLockProfileData|(base::)?RecordLockProfileData.*|"
                                          "(base::)?SubmitMutexProfileData.*|(base::)?SubmitSpinLockProfileData.*|"
                                          "(base::Mutex::)?AwaitCommon.*|(base::Mutex::)?Unlock.*|"
                                          "(base::Mutex::)?UnlockSlow.*|(base::Mutex::)?ReaderUnlock.*|"
                                          "(base::MutexLock::)?~MutexLock.*|(Mutex::)?AwaitCommon.*|"
                                          "(Mutex::)?Unlock.*|(Mutex::)?UnlockSlow.*|(Mutex::)?ReaderUnlock.*|"
                                          "(MutexLock::)?~MutexLock.*|(SpinLock::)?Unlock.*|"
                                          "(SpinLock::)?SlowUnlock.*|(SpinLockHolder::)?~SpinLockHolder.*";

// Lines as Go's bufio.Scanner yields them: split at '\n', a trailing '\r' dropped, no empty
// last line after a final newline.
class Lines {
public:
    explicit Lines(std::span<const uint8_t> data)
        : all_(reinterpret_cast<const char*>(data.data()), data.size())
    {
    }
    // The next line into text(); false at the end (text() is then empty, as Scanner.Text()).
    bool scan()
    {
        if (pos_ >= all_.size()) {
            text_ = {};
            return false;
        }
        const size_t nl = all_.find('\n', pos_);
        const size_t end = nl == std::string_view::npos ? all_.size() : nl;
        text_ = all_.substr(pos_, end - pos_);
        pos_ = nl == std::string_view::npos ? all_.size() : nl + 1;
        if (text_.ends_with('\r'))
            text_.remove_suffix(1);
        ++number_;
        if (text_.size() >= kMaxLine)
            tooLong_ = true;
        return !tooLong_;
    }
    std::string_view text() const { return text_; }
    size_t number() const { return number_; }
    bool tooLong() const { return tooLong_; }
    // The bytes after the current line.
    std::span<const uint8_t> rest() const
    {
        return {reinterpret_cast<const uint8_t*>(all_.data()) + pos_, all_.size() - pos_};
    }

private:
    std::string_view all_;
    std::string_view text_;
    size_t pos_ = 0;
    size_t number_ = 0;
    bool tooLong_ = false;
};

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && isSpace(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

bool isSpaceOrComment(std::string_view line)
{
    const std::string_view t = trim(line);
    return t.empty() || t.front() == '#';
}

bool isMemoryMapSentinel(std::string_view line)
{
    return line.find("--- Memory map: ---") != std::string_view::npos
        || line.find("MAPPED_LIBRARIES:") != std::string_view::npos;
}

// Go's strconv.ParseInt(s, 0, 64) without underscores: a sign, then 0x/0o/0b or a leading 0
// (octal) or decimal digits.
std::optional<int64_t> parseGoInt(std::string_view s)
{
    bool neg = false;
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
        neg = s.front() == '-';
        s.remove_prefix(1);
    }
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s.remove_prefix(2);
    } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) {
        base = 8;
        s.remove_prefix(2);
    } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
        base = 2;
        s.remove_prefix(2);
    } else if (s.size() > 1 && s[0] == '0') {
        base = 8;
        s.remove_prefix(1);
    }
    if (s.empty())
        return std::nullopt;
    uint64_t u = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), u, base);
    if (ec != std::errc() || end != s.data() + s.size())
        return std::nullopt;
    if (neg ? u > uint64_t(INT64_MAX) + 1 : u > uint64_t(INT64_MAX))
        return std::nullopt;
    return neg ? int64_t(0 - u) : int64_t(u);
}

// pprof's parseHexAddresses: every "0x[0-9a-f]+" of s, leftmost first; false when one is larger
// than 64 bits.
bool hexAddresses(std::string_view s, std::vector<uint64_t>& out)
{
    for (size_t i = s.find("0x"); i != std::string_view::npos; i = s.find("0x", i)) {
        size_t j = i + 2;
        while (j < s.size() && ((s[j] >= '0' && s[j] <= '9') || (s[j] >= 'a' && s[j] <= 'f')))
            ++j;
        if (j == i + 2) {
            i += 1;
            continue;
        }
        uint64_t a = 0;
        const auto [e, ec] = std::from_chars(s.data() + i + 2, s.data() + j, a, 16);
        if (ec != std::errc())
            return false;
        out.push_back(a);
        i = j;
    }
    return true;
}

// Go's int64(float64) on amd64: the value in range, the most negative int64 out of it.
int64_t toInt64(double d)
{
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
        return INT64_MIN;
    return int64_t(d);
}

int64_t wrappingMul(int64_t a, int64_t b)
{
    return int64_t(uint64_t(a) * uint64_t(b));
}

const RE2& contentionSampleRe()
{
    static const RE2 re(R"((\d+) *(\d+) @([ x0-9a-f]*))");
    return re;
}
const RE2& threadzStartRe()
{
    static const RE2 re(R"(--- threadz \d+ ---)");
    return re;
}
const RE2& threadStartRe()
{
    static const RE2 re(R"(--- Thread ([0-9A-Fa-f]+) \(name: (.*)/(\d+)\) stack: ---)");
    return re;
}
const RE2& countStartRe()
{
    static const RE2 re(R"(^(\S+) profile: total \d+$)");
    return re;
}
const RE2& countRe()
{
    static const RE2 re(R"(^(\d+) @(( 0x[0-9a-f]+)+)$)");
    return re;
}

std::string_view firstLine(std::span<const uint8_t> data)
{
    Lines lines(data);
    lines.scan();
    return lines.text();
}

// The first line that is not blank or a comment.
std::string_view firstContentLine(std::span<const uint8_t> data)
{
    Lines lines(data);
    while (lines.scan())
        if (!isSpaceOrComment(lines.text()))
            return lines.text();
    return {};
}

// parseAdditionalSections: the memory map after a sentinel line, from the current line on.
Result<std::vector<MapEntry>> memoryMapFrom(Lines& lines)
{
    while (!isMemoryMapSentinel(lines.text()) && lines.scan()) {
    }
    if (lines.tooLong())
        return makeError(ErrorCode::InvalidInput,
            "line " + std::to_string(lines.number()) + ": longer than " + std::to_string(kMaxLine) + " bytes");
    if (!isMemoryMapSentinel(lines.text()))
        return std::vector<MapEntry>();
    return parseProcMaps(lines.rest());
}

// The samples, after the stacks and the memory map are read.
void addSamples(Profile& p, std::vector<MapEntry>& maps, std::vector<std::vector<uint64_t>>& stacks,
    const std::vector<std::vector<int64_t>>& values, bool dropDuplicateLeaf)
{
    const auto locationOf = addMappingsAndLocations(p, maps, stacks);
    std::vector<LocationId> ids;
    for (size_t i = 0; i < stacks.size(); ++i) {
        auto& s = stacks[i];
        // cleanupDuplicateLocations: the leaf, seen both in the signal context and unwound.
        if (dropDuplicateLeaf && s.size() > 1 && s[0] == s[1] + 1)
            s.erase(s.begin() + 1);
        ids.clear();
        for (uint64_t a : s)
            ids.push_back(locationOf.at(a));
        p.addSample(p.internStack(ids), values[i]);
    }
    p.updateFrameStatuses();
    p.finishBuilding();
}

ValueType type(Profile& p, std::string_view t, std::string_view u)
{
    return ValueType{p.strings.intern(std::string(t)), p.strings.intern(std::string(u))};
}

} // namespace

bool looksLikeContentionProfile(std::span<const uint8_t> data)
{
    const std::string_view l = firstLine(data);
    return l.starts_with("--- contentionz ") || l.starts_with("--- mutex:") || l.starts_with("--- contention:");
}

Result<Profile> readContentionProfile(std::span<const uint8_t> data)
{
    const auto bad = [](size_t line, const std::string& what) {
        return makeError(ErrorCode::InvalidInput, "contention profile: line " + std::to_string(line) + ": " + what);
    };
    Lines lines(data);
    lines.scan();
    if (!looksLikeContentionProfile(data))
        return bad(1, "no '--- contentionz', '--- mutex:' or '--- contention:' header");

    Profile p;
    p.periodType = type(p, "contentions", "count");
    p.period = 1;
    p.sampleTypes = {type(p, "contentions", "count"), type(p, "delay", "nanoseconds")};
    p.defaultSampleType = 1;
    p.dropFrames = p.strings.intern(kLockDropFrames);

    int64_t cpuHz = 0;
    while (lines.scan()) {
        const std::string_view line = trim(lines.text());
        if (isSpaceOrComment(line))
            continue;
        if (line.starts_with("---"))
            break;
        const size_t eq = line.find('=');
        if (eq == std::string_view::npos)
            break;
        const std::string_view key = trim(line.substr(0, eq));
        const std::string_view val = trim(line.substr(eq + 1));
        const auto number = [&](int64_t& out) -> bool {
            const auto v = parseGoInt(val);
            if (v)
                out = *v;
            return bool(v);
        };
        int64_t ms = 0;
        if (key == "cycles/second") {
            if (!number(cpuHz))
                return bad(lines.number(), "cycles/second '" + std::string(val) + "' is not a number");
        } else if (key == "sampling period") {
            if (!number(p.period))
                return bad(lines.number(), "sampling period '" + std::string(val) + "' is not a number");
        } else if (key == "ms since reset") {
            if (!number(ms))
                return bad(lines.number(), "ms since reset '" + std::string(val) + "' is not a number");
            p.durationNanos = wrappingMul(ms, 1000 * 1000);
        } else if (key != "discarded samples") {
            // pprof then tries it as a Java profile (`format = java`, `resolution = ...`).
            if (looksLikeJavaProfile(data))
                return readJavaProfile(data);
            return bad(lines.number(), "unknown header key '" + std::string(key) + "'");
        }
    }
    if (lines.tooLong())
        return bad(lines.number(), "longer than " + std::to_string(kMaxLine) + " bytes");

    std::vector<std::vector<uint64_t>> stacks;
    std::vector<std::vector<int64_t>> values;
    for (;;) {
        const std::string_view line = trim(lines.text());
        if (line.starts_with("---"))
            break;
        if (!isSpaceOrComment(line)) {
            LineMatch m;
            if (!searchLine(line, contentionSampleRe(), &m))
                return bad(lines.number(), "not a sample ('delay count @ addresses')");
            // Decimal (pprof's ParseInt base 10): a leading 0 does not make it octal.
            int64_t d1 = 0, d2 = 0;
            const auto dec = [](std::string_view s, int64_t& out) {
                const auto [e, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 10);
                return ec == std::errc() && e == s.data() + s.size();
            };
            if (!dec(m[1], d1) || !dec(m[2], d2))
                return bad(lines.number(), "a delay or count out of range");
            if (p.period > 0) {
                if (cpuHz > 0) {
                    const double cpuGHz = double(cpuHz) / 1e9;
                    d1 = toInt64(double(d1) * double(p.period) / cpuGHz);
                }
                d2 = wrappingMul(d2, p.period);
            }
            std::vector<uint64_t> addrs;
            if (!hexAddresses(m[3], addrs))
                return bad(lines.number(), "an address larger than 64 bits");
            for (uint64_t& a : addrs)
                --a;
            stacks.push_back(std::move(addrs));
            values.push_back({d2, d1});
        }
        if (!lines.scan())
            break;
    }
    if (lines.tooLong())
        return bad(lines.number(), "longer than " + std::to_string(kMaxLine) + " bytes");

    auto maps = memoryMapFrom(lines);
    if (!maps)
        return makeError(maps.error().code, "contention profile: " + maps.error().message);
    addSamples(p, *maps, stacks, values, false);
    return p;
}

bool looksLikeThreadProfile(std::span<const uint8_t> data)
{
    const std::string_view l = firstContentLine(data);
    return searchLine(l, threadzStartRe()) || searchLine(l, threadStartRe());
}

Result<Profile> readThreadProfile(std::span<const uint8_t> data)
{
    const auto bad = [](size_t line, const std::string& what) {
        return makeError(ErrorCode::InvalidInput, "thread profile: line " + std::to_string(line) + ": " + what);
    };
    const auto tooLong = [&](const Lines& l) { return bad(l.number(), "longer than " + std::to_string(kMaxLine) + " bytes"); };
    Lines lines(data);
    while (lines.scan() && isSpaceOrComment(lines.text())) {
    }
    if (lines.tooLong())
        return tooLong(lines);
    std::string_view line = lines.text();
    if (searchLine(line, threadzStartRe())) {
        while (lines.scan()) {
            line = lines.text();
            if (isMemoryMapSentinel(line) || line.starts_with("-"))
                break;
        }
        if (lines.tooLong())
            return tooLong(lines);
    } else if (!searchLine(line, threadStartRe())) {
        return bad(lines.number(), "no '--- threadz N ---' or '--- Thread ... stack: ---' header");
    }

    Profile p;
    p.sampleTypes = {type(p, "thread", "count")};
    p.periodType = type(p, "thread", "count");
    p.period = 1;
    p.dropFrames = p.strings.intern(kCpuProfilerDropFrames);

    std::vector<std::vector<uint64_t>> stacks;
    std::vector<std::vector<int64_t>> values;
    while (!isMemoryMapSentinel(line)) {
        if (line.starts_with("---- no stack trace for"))
            break;
        if (!searchLine(line, threadStartRe()))
            return bad(lines.number(), "expected '--- Thread ID (name: NAME/TID) stack: ---' or the memory map");
        // parseThreadSample: the addresses of the lines up to the next '---' line.
        std::vector<uint64_t> addrs;
        bool sameAsPrevious = false;
        while (lines.scan()) {
            line = trim(lines.text());
            if (line.empty())
                continue;
            if (line.starts_with("---"))
                break;
            if (line.find("same as previous thread") != std::string_view::npos) {
                sameAsPrevious = true;
                continue;
            }
            if (!hexAddresses(line, addrs))
                return bad(lines.number(), "an address larger than 64 bits");
        }
        if (lines.tooLong())
            return tooLong(lines);
        if (sameAsPrevious || addrs.empty()) {
            if (!values.empty())
                ++values.back()[0];
            continue;
        }
        for (size_t i = 1; i < addrs.size(); ++i)
            --addrs[i];
        stacks.push_back(std::move(addrs));
        values.push_back({1});
    }

    auto maps = memoryMapFrom(lines);
    if (!maps)
        return makeError(maps.error().code, "thread profile: " + maps.error().message);
    addSamples(p, *maps, stacks, values, true);
    return p;
}

bool looksLikeGoCountProfile(std::span<const uint8_t> data)
{
    // Cheap test first: most files sniffed here are of other formats.
    const std::string_view line = firstContentLine(data);
    return line.find(" profile: total ") != std::string_view::npos && searchLine(line, countStartRe());
}

Result<Profile> readGoCountProfile(std::span<const uint8_t> data)
{
    const auto bad = [](size_t line, const std::string& what) {
        return makeError(ErrorCode::InvalidInput, "count profile: line " + std::to_string(line) + ": " + what);
    };
    Lines lines(data);
    while (lines.scan() && isSpaceOrComment(lines.text())) {
    }
    LineMatch h;
    if (lines.tooLong() || !searchLine(lines.text(), countStartRe(), &h))
        return bad(lines.number(), "no 'NAME profile: total N' header");

    Profile p;
    const std::string name = h.str(1);
    p.periodType = type(p, name, "count");
    p.period = 1;
    p.sampleTypes = {type(p, name, "count")};
    p.dropFrames = p.strings.intern(kCpuProfilerDropFrames);

    std::vector<std::vector<uint64_t>> stacks;
    std::vector<std::vector<int64_t>> values;
    while (lines.scan()) {
        const std::string_view line = lines.text();
        if (isSpaceOrComment(line))
            continue;
        if (line.starts_with("---"))
            break;
        LineMatch m;
        if (!searchLine(line, countRe(), &m))
            return bad(lines.number(), "not a sample ('N @ 0xaddress...')");
        const auto n = parseGoInt(m[1]);
        if (!n)
            return bad(lines.number(), "count " + m.str(1) + " is not a number");
        std::vector<uint64_t> addrs;
        if (!hexAddresses(m[2], addrs))
            return bad(lines.number(), "an address larger than 64 bits");
        for (uint64_t& a : addrs)
            --a;
        stacks.push_back(std::move(addrs));
        values.push_back({*n});
    }
    if (lines.tooLong())
        return bad(lines.number(), "longer than " + std::to_string(kMaxLine) + " bytes");

    auto maps = memoryMapFrom(lines);
    if (!maps)
        return makeError(maps.error().code, "count profile: " + maps.error().message);
    addSamples(p, *maps, stacks, values, false);
    return p;
}

std::optional<Error> nameJavaLocations(Profile& p, std::string_view all, size_t lineNo,
    const std::vector<std::vector<uint64_t>>& stacks, const std::vector<std::vector<int64_t>>& values)
{
    // The locations: every distinct address, in the order the samples first use it; the lines
    // after the samples name them (`0xADDR function (file:line)`), and a named one loses its
    // address, as pprof strips it.
    std::unordered_map<uint64_t, size_t> locationOf;
    for (const auto& st : stacks)
        for (uint64_t a : st)
            if (locationOf.try_emplace(a, p.locations.size()).second) {
                Location loc;
                loc.address = a;
                loc.sourceId = p.locations.size() + 1;
                p.locations.push_back(loc);
            }
    static const RE2 locationRe(R"(^\s*0x([0-9A-Fa-f]+)\s+(.*)\s*$)");
    static const RE2 fileLineRe(R"(^(.*)\s+\((.+):(-?[0-9]+)\)$)");
    static const RE2 pathRe(R"(^(.*)\s+\((.*)\)$)");
    std::unordered_map<std::string, FunctionId> functionOf;
    std::vector<std::vector<Line>> linesOf(p.locations.size());
    size_t pos = 0;
    std::string_view line;
    while (pos < all.size()) {
        const size_t nl = all.find('\n', pos);
        line = trim(all.substr(pos, (nl == std::string_view::npos ? all.size() : nl) - pos));
        pos = nl == std::string_view::npos ? all.size() : nl + 1;
        ++lineNo;
        LineMatch m;
        if (line.empty() || !searchLine(line, locationRe, &m))
            continue;
        uint64_t addr = 0;
        const auto [e, ec] = std::from_chars(m[1].data(), m[1].data() + m[1].size(), addr, 16);
        if (ec != std::errc())
            return makeError(ErrorCode::InvalidInput, "java profile: line " + std::to_string(lineNo) + ": an address larger than 64 bits");
        const auto it = locationOf.find(addr);
        if (it == locationOf.end())
            continue;
        const std::string_view rest = m[2];
        std::string func, file;
        int64_t lineNumber = 0;
        LineMatch f;
        if (searchLine(rest, fileLineRe, &f)) {
            func = f.str(1);
            file = f.str(2);
            int64_t n = 0;
            const auto [e2, ec2] = std::from_chars(f[3].data(), f[3].data() + f[3].size(), n, 10);
            if (ec2 == std::errc() && e2 == f[3].data() + f[3].size() && n > 0)
                lineNumber = n;
        } else if (searchLine(rest, pathRe, &f)) {
            func = f.str(1);
            file = f.str(2);
            const size_t slash = file.find_last_of('/');
            if (slash != std::string::npos && slash + 1 < file.size())
                file = file.substr(slash + 1);
            else if (file.empty())
                file = ".";
        } else if (rest.find("generated stub/JIT") != std::string_view::npos) {
            func = "STUB";
        } else {
            func = std::string(rest);
        }
        auto [fit, added] = functionOf.try_emplace(func, FunctionId(p.functions.size()));
        if (added) {
            Function fn;
            fn.name = fn.systemName = p.strings.intern(func);
            fn.file = p.strings.intern(file);
            fn.sourceId = p.functions.size() + 1;
            p.functions.push_back(fn);
        }
        linesOf[it->second] = {Line{fit->second, lineNumber, 0}};
        p.locations[it->second].address = 0;
    }
    for (size_t i = 0; i < p.locations.size(); ++i) {
        p.locations[i].linesBegin = uint32_t(p.lines.size());
        p.locations[i].lineCount = uint32_t(linesOf[i].size());
        p.lines.insert(p.lines.end(), linesOf[i].begin(), linesOf[i].end());
    }
    std::vector<LocationId> ids;
    for (size_t i = 0; i < stacks.size(); ++i) {
        ids.clear();
        for (uint64_t a : stacks[i])
            ids.push_back(LocationId(locationOf.at(a)));
        p.addSample(p.internStack(ids), values[i]);
    }
    return std::nullopt;
}

bool looksLikeJavaProfile(std::span<const uint8_t> data)
{
    const std::string_view all(reinterpret_cast<const char*>(data.data()), data.size());
    const size_t nl = all.find('\n');
    if (nl == std::string_view::npos)
        return false;
    const std::string_view h = trim(all.substr(0, nl));
    return h == "--- heapz 1 ---" || h == "--- contentionz 1 ---";
}

Result<Profile> readJavaProfile(std::span<const uint8_t> data)
{
    const auto bad = [](size_t line, const std::string& what) {
        return makeError(ErrorCode::InvalidInput, "java profile: line " + std::to_string(line) + ": " + what);
    };
    if (!looksLikeJavaProfile(data))
        return bad(1, "no '--- heapz 1 ---' or '--- contentionz 1 ---' header");
    const std::string_view all(reinterpret_cast<const char*>(data.data()), data.size());
    size_t pos = all.find('\n') + 1;
    const bool heap = trim(all.substr(0, pos)) == "--- heapz 1 ---";
    size_t lineNo = 1;
    // Only lines that end in a newline count, as pprof splits them.
    const auto nextLine = [&](std::string_view& line) {
        const size_t nl = all.find('\n', pos);
        if (nl == std::string_view::npos)
            return false;
        line = trim(all.substr(pos, nl - pos));
        return true;
    };
    const auto advance = [&] {
        pos = all.find('\n', pos) + 1;
        ++lineNo;
    };

    Profile p;
    static const RE2 attributeRe(R"(([\w ]+)=([\w ]+))");
    std::string_view line;
    while (nextLine(line)) {
        if (line.size() >= kMaxLine)
            return bad(lineNo + 1, "longer than " + std::to_string(kMaxLine) + " bytes");
        if (!line.empty()) {
            LineMatch m;
            if (!searchLine(line, attributeRe, &m))
                break;
            const std::string_view key = trim(m[1]);
            const std::string_view value = trim(m[2]);
            const std::string k = std::string(heap ? "heap/" : "contention/") + std::string(key);
            int64_t ms = 0;
            if (key == "format") {
                if (value != "java")
                    return bad(lineNo + 1, "format '" + std::string(value) + "' is not java");
            } else if (k == "heap/resolution") {
                p.sampleTypes = {type(p, "inuse_objects", "count"), type(p, "inuse_space", value)};
            } else if (k == "contention/resolution") {
                p.sampleTypes = {type(p, "contentions", "count"), type(p, "delay", value)};
            } else if (k == "contention/sampling period") {
                p.periodType = type(p, "contentions", "count");
                const auto v = parseGoInt(value);
                if (!v)
                    return bad(lineNo + 1, "sampling period '" + std::string(value) + "' is not a number");
                p.period = *v;
            } else if (k == "contention/ms since reset") {
                const auto v = parseGoInt(value);
                if (!v)
                    return bad(lineNo + 1, "ms since reset '" + std::string(value) + "' is not a number");
                ms = *v;
                p.durationNanos = wrappingMul(ms, 1000 * 1000);
            } else {
                return bad(lineNo + 1, "unknown attribute '" + std::string(key) + "'");
            }
        }
        advance();
    }

    static const RE2 sampleRe(R"( *(\d+) +(\d+) +@ +([ x0-9a-f]*))");
    std::vector<std::vector<uint64_t>> stacks;
    std::vector<std::vector<int64_t>> values;
    std::vector<int64_t> blockSizes;
    while (nextLine(line)) {
        if (line.size() >= kMaxLine)
            return bad(lineNo + 1, "longer than " + std::to_string(kMaxLine) + " bytes");
        if (!line.empty()) {
            LineMatch m;
            if (!searchLine(line, sampleRe, &m))
                break;
            std::vector<uint64_t> addrs;
            if (!hexAddresses(m[3], addrs))
                return bad(lineNo + 1, "an address larger than 64 bits");
            const auto v0 = parseGoInt(m[2]);
            const auto v1 = parseGoInt(m[1]);
            if (!v0 || !v1)
                return bad(lineNo + 1, "a value out of range");
            int64_t a = *v0, b = *v1;
            if (heap) {
                if (a == 0)
                    return bad(lineNo + 1, "the count (second value) is 0");
                blockSizes.push_back((a == -1 && b == INT64_MIN) ? INT64_MIN : b / a);
                if (b != 0 && a != 0) {
                    const double scale = 1 / (1 - std::exp(-(double(b) / double(a)) / 524288.0));
                    a = toInt64(double(a) * scale);
                    b = toInt64(double(b) * scale);
                } else {
                    a = b = 0;
                }
            } else if (p.period != 0) {
                a = wrappingMul(a, p.period);
                b = wrappingMul(b, p.period);
            }
            stacks.push_back(std::move(addrs));
            values.push_back({a, b});
        }
        advance();
    }
    if (p.sampleTypes.empty())
        return bad(lineNo, "no 'resolution' attribute (the sample types)");
    p.defaultSampleType = 1;
    p.dropFrames = p.strings.intern(heap ? kAllocDropFrames : kLockDropFrames);
    if (heap)
        p.keepFrames = p.strings.intern(kAllocKeepFrames);

    if (auto e = nameJavaLocations(p, all.substr(pos), lineNo, stacks, values))
        return *e;
    if (heap) {
        const StringId bytesKey = p.strings.intern("bytes");
        for (size_t i = 0; i < stacks.size(); ++i) {
            const Label label{bytesKey, StringId(), blockSizes[i], StringId()};
            p.setSampleLabelSet(i, p.internLabelSet(std::span(&label, 1)));
        }
    }
    p.updateFrameStatuses();
    p.finishBuilding();
    return p;
}

} // namespace symflame::model
