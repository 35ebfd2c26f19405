// pprof's memory map parsing (profile/legacy_profile.go: parseProcMapsFromScanner,
// parseMappingEntry, removeLoggingInfo; profile.go: massageMappings), with its regular
// expressions (RE2, as Go's).
#include "model/io/legacy/procmaps.h"
#include "model/io/legacy/linematch.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <utility>

namespace symflame::model {

namespace {

// Go's bufio.Scanner's longest line: past it pprof fails with "token too long".
constexpr size_t kMaxLine = 64 * 1024;

const RE2& procMapsRe()
{
    static const RE2 re(R"(^\s*(?:0x)?([[:xdigit:]]+)[\s-]?\s*(?:0x)?([[:xdigit:]]+):?(?:\s+([-rwxp]+))?)"
                        R"((?:\s+([[:xdigit:]]+))?\s+[[:xdigit:]]+:[[:xdigit:]]+\s+[[:digit:]]+(?:\s+(\S+))?)");
    return re;
}

const RE2& briefMapsRe()
{
    static const RE2 re(R"(^\s*(?:0x)?([[:xdigit:]]+)[\s-]?\s*(?:0x)?([[:xdigit:]]+):?(?:\s+([-rwxp]+))?)"
                        R"((?:\s+(\S+))?(?:\s+\(@([[:xdigit:]]+)\))?(?:\s+([[:xdigit:]]+))?)");
    return re;
}

const RE2& logInfoRe()
{
    static const RE2 re(R"(^[^\[\]]+:[0-9]+\]\s)");
    return re;
}

bool parseHex(const std::string& s, uint64_t& out)
{
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 16);
    return ec == std::errc() && end == s.data() + s.size();
}

enum class Entry { Mapping, Skip, Unrecognized };

Entry parseMappingEntry(const std::string& line, MapEntry& m)
{
    LineMatch me;
    std::string start, end, perm, file, offset, buildId;
    if (searchLine(line, procMapsRe(), &me)) {
        start = me.str(1), end = me.str(2), perm = me.str(3), offset = me.str(4), file = me.str(5);
    } else if (searchLine(line, briefMapsRe(), &me)) {
        start = me.str(1), end = me.str(2), perm = me.str(3), file = me.str(4), offset = me.str(5), buildId = me.str(6);
    } else {
        return Entry::Unrecognized;
    }
    if (!perm.empty() && perm.find('x') == std::string::npos)
        return Entry::Skip;
    m = MapEntry{};
    m.file = file;
    m.buildId = buildId;
    if (!parseHex(start, m.start) || !parseHex(end, m.limit))
        return Entry::Unrecognized;
    if (!offset.empty() && !parseHex(offset, m.offset))
        return Entry::Unrecognized;
    return Entry::Mapping;
}

std::string trimSpace(std::string_view s)
{
    const auto sp = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
    while (!s.empty() && sp(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && sp(s.back()))
        s.remove_suffix(1);
    return std::string(s);
}

// Go's strings.Replacer over (old, new) pairs: at each position the first pair (in order) whose
// old string starts there is replaced; no overlapping matches.
std::string replaceAttrs(const std::string& line, const std::vector<std::pair<std::string, std::string>>& attrs)
{
    if (attrs.empty())
        return line;
    std::string out;
    for (size_t i = 0; i < line.size();) {
        bool replaced = false;
        for (const auto& [from, to] : attrs) {
            if (line.compare(i, from.size(), from) == 0) {
                out += to;
                i += from.size();
                replaced = true;
                break;
            }
        }
        if (!replaced)
            out += line[i++];
    }
    return out;
}

bool adjacent(const MapEntry& a, const MapEntry& b)
{
    if (!a.file.empty() && !b.file.empty() && a.file != b.file)
        return false;
    if (!a.buildId.empty() && !b.buildId.empty() && a.buildId != b.buildId)
        return false;
    if (a.limit != b.start)
        return false;
    if (a.offset != 0 && b.offset != 0 && a.offset + (a.limit - a.start) != b.offset)
        return false;
    return true;
}

// pprof's libRx: `[.]so$|[.]so[._][0-9]+`.
bool looksLikeLibrary(std::string_view f)
{
    if (f.ends_with(".so"))
        return true;
    for (size_t i = f.find(".so"); i != std::string_view::npos; i = f.find(".so", i + 1))
        if (i + 4 < f.size() && (f[i + 3] == '.' || f[i + 3] == '_') && f[i + 4] >= '0' && f[i + 4] <= '9')
            return true;
    return false;
}

void massageMappings(std::vector<MapEntry>& maps)
{
    if (maps.size() > 1) {
        std::vector<MapEntry> merged{maps[0]};
        for (size_t i = 1; i < maps.size(); ++i) {
            MapEntry& last = merged.back();
            if (adjacent(last, maps[i])) {
                last.limit = maps[i].limit;
                if (!maps[i].file.empty())
                    last.file = maps[i].file;
                if (!maps[i].buildId.empty())
                    last.buildId = maps[i].buildId;
                continue;
            }
            merged.push_back(maps[i]);
        }
        maps = std::move(merged);
    }
    for (size_t i = 0; i < maps.size(); ++i) {
        std::string file = maps[i].file;
        for (size_t at; (at = file.find("(deleted)")) != std::string::npos;)
            file.erase(at, 9);
        file = trimSpace(file);
        if (file.empty() || looksLikeLibrary(file) || file[0] == '[')
            continue;
        std::swap(maps[0], maps[i]);
        break;
    }
}

} // namespace

Result<std::vector<MapEntry>> parseProcMaps(std::span<const uint8_t> text)
{
    const std::string_view all(reinterpret_cast<const char*>(text.data()), text.size());
    std::vector<MapEntry> maps;
    std::vector<std::pair<std::string, std::string>> attrs;
    size_t lineNo = 0;
    for (size_t pos = 0; pos < all.size();) {
        size_t nl = all.find('\n', pos);
        const size_t end = nl == std::string_view::npos ? all.size() : nl;
        std::string_view raw = all.substr(pos, end - pos);
        pos = nl == std::string_view::npos ? all.size() : nl + 1;
        ++lineNo;
        if (raw.size() >= kMaxLine)
            return makeError(ErrorCode::InvalidInput,
                "memory map line " + std::to_string(lineNo) + " is longer than " + std::to_string(kMaxLine) + " bytes");
        if (raw.ends_with('\r'))
            raw.remove_suffix(1);
        std::string line(raw);
        if (LineMatch m; searchLine(line, logInfoRe(), &m))
            line.erase(0, m[0].size());
        line = replaceAttrs(line, attrs);
        MapEntry e;
        switch (parseMappingEntry(line, e)) {
        case Entry::Mapping:
            maps.push_back(std::move(e));
            break;
        case Entry::Skip:
            break;
        case Entry::Unrecognized:
            if (const size_t eq = line.find('='); eq != std::string::npos)
                attrs.emplace_back("$" + trimSpace(std::string_view(line).substr(0, eq)),
                    trimSpace(std::string_view(line).substr(eq + 1)));
            break;
        }
    }
    massageMappings(maps);
    return maps;
}

std::vector<int64_t> assignMappings(std::vector<MapEntry>& maps, std::span<const uint64_t> addresses)
{
    if (!maps.empty() && maps[0].file.starts_with("/anon_hugepage") && maps.size() > 1
        && maps[0].limit == maps[1].start)
        maps.erase(maps.begin());
    if (!maps.empty() && maps[0].start - maps[0].offset == 0x400000) {
        maps[0].start = 0x400000;
        maps[0].offset = 0;
    }
    std::vector<int64_t> out(addresses.size(), -1);
    int64_t fake = -1;
    const size_t real = maps.size();
    for (size_t i = 0; i < addresses.size(); ++i) {
        const uint64_t a = addresses[i];
        if (a == 0)
            continue;
        for (size_t m = 0; m < real && out[i] < 0; ++m)
            if (maps[m].start <= a && a < maps[m].limit)
                out[i] = int64_t(m);
        for (size_t m = 0; m < real && out[i] < 0; ++m) {
            if (maps[m].offset != 0 && maps[m].start - maps[m].offset <= a && a < maps[m].start) {
                maps[m].start -= maps[m].offset;
                maps[m].offset = 0;
                out[i] = int64_t(m);
            }
        }
        if (out[i] < 0) {
            if (fake < 0) {
                fake = int64_t(maps.size());
                MapEntry f;
                f.limit = ~uint64_t(0);
                maps.push_back(f);
            }
            out[i] = fake;
        }
    }
    return out;
}

std::unordered_map<uint64_t, LocationId> addMappingsAndLocations(
    Profile& p, std::vector<MapEntry>& mappings, const std::vector<std::vector<uint64_t>>& stacks)
{
    std::unordered_map<uint64_t, LocationId> locationOf;
    std::vector<uint64_t> addresses;
    for (const auto& s : stacks)
        for (uint64_t a : s)
            if (locationOf.try_emplace(a, LocationId(addresses.size())).second)
                addresses.push_back(a);
    const std::vector<int64_t> mappingOfLocation = assignMappings(mappings, addresses);
    for (const MapEntry& e : mappings) {
        Mapping m;
        m.start = e.start;
        m.limit = e.limit;
        m.offset = e.offset;
        m.file = p.strings.intern(e.file);
        m.buildId = p.strings.intern(e.buildId);
        m.sourceId = p.mappings.size() + 1;
        p.mappings.push_back(m);
    }
    for (size_t i = 0; i < addresses.size(); ++i) {
        Location loc;
        loc.address = addresses[i];
        loc.sourceId = i + 1;
        if (mappingOfLocation[i] >= 0)
            loc.mapping = MappingId(size_t(mappingOfLocation[i]));
        p.locations.push_back(loc);
    }
    return locationOf;
}

} // namespace symflame::model
