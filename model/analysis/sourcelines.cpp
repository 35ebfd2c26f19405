#include "model/analysis/sourcelines.h"

#include <re2/re2.h>

#include <algorithm>
#include <map>
#include <unordered_map>

namespace symflame::model {

namespace {

constexpr uint32_t kNone = 0xffffffffu;

// A function in a file: what one FunctionLines entry lists.
struct Group {
    StringId name, file;
    int64_t startLine = 0;
    int64_t flat = 0, cum = 0;
    uint32_t seen = 0;
    MappingId mapping; // of the first location seen
    LocationId location; // the first location seen
};

// A frame at a line of a group: what one LineCost counts.
struct Node {
    uint32_t group;
    int64_t line;
    int64_t flat = 0, cum = 0;
    uint32_t seen = 0;
};

} // namespace

Result<SourceLinesResult> sourceLines(const Profile& profile, size_t sampleType, std::string_view pattern)
{
    // RE2, as search.cpp explains: linear time, no recursion on long names.
    re2::RE2::Options options;
    options.set_log_errors(false);
    const re2::RE2 re(re2::StringPiece(pattern.data(), pattern.size()), options);
    if (!re.ok())
        return makeError(ErrorCode::InvalidInput, "invalid pattern '" + std::string(pattern) + "': " + re.error());
    SourceLinesResult out;
    if (sampleType >= profile.sampleTypes.size())
        return out;

    // Which function names match, each name tried once.
    std::unordered_map<uint32_t, bool> nameMatches;
    const auto nameOf = [&](const Function& f) { return f.name.value != 0 ? f.name : f.systemName; };
    std::vector<uint32_t> groupOf(profile.functions.size(), kNone);
    std::vector<Group> groups;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> groupIndex;
    for (size_t i = 0; i < profile.functions.size(); ++i) {
        const Function& f = profile.functions[i];
        const StringId name = nameOf(f);
        if (name.value == 0)
            continue;
        auto [it, inserted] = nameMatches.try_emplace(name.value, false);
        if (inserted) {
            const std::string_view s = profile.str(name);
            it->second = re2::RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), re);
        }
        if (!it->second)
            continue;
        if (f.file.value == 0 || profile.str(f.file).empty()) {
            groupOf[i] = kNone - 1; // matches, but no file to list it under
            continue;
        }
        auto [g, added] = groupIndex.try_emplace({ name.value, f.file.value }, uint32_t(groups.size()));
        if (added)
            groups.push_back(Group { name, f.file });
        Group& group = groups[g->second];
        if (f.startLine > 0 && (group.startLine == 0 || f.startLine < group.startLine))
            group.startLine = f.startLine;
        groupOf[i] = g->second;
    }

    // Each location's frames of matching functions, as nodes, innermost first.
    std::vector<Node> nodes;
    std::unordered_map<uint64_t, uint32_t> nodeIndex; // (group << 32 | line) -> node
    const size_t nLocations = profile.locations.size();
    std::vector<uint32_t> begin(nLocations + 1, 0), frames, leaf(nLocations, kNone);
    for (size_t l = 0; l < nLocations; ++l) {
        begin[l] = uint32_t(frames.size());
        bool innermost = true;
        for (const Line& line : profile.linesOf(profile.locations[l])) {
            const bool first = innermost;
            innermost = false;
            if (!line.function.valid() || line.function.index() >= groupOf.size())
                continue;
            const uint32_t g = groupOf[line.function.index()];
            if (g == kNone)
                continue;
            if (g == kNone - 1) {
                ++out.framesWithoutFile;
                continue;
            }
            const int64_t number = std::max<int64_t>(line.line, 0);
            const uint64_t key = (uint64_t(g) << 32) | uint64_t(uint32_t(std::min<int64_t>(number, 0xffffffff)));
            auto [it, added] = nodeIndex.try_emplace(key, uint32_t(nodes.size()));
            if (added)
                nodes.push_back(Node { g, number });
            frames.push_back(it->second);
            if (!groups[g].mapping.valid())
                groups[g].mapping = profile.locations[l].mapping;
            if (!groups[g].location.valid())
                groups[g].location = LocationId(l);
            if (first)
                leaf[l] = it->second;
        }
    }
    begin[nLocations] = uint32_t(frames.size());

    const std::vector<int64_t> stackValue = profile.valuePerStack(sampleType);
    uint32_t epoch = 0;
    for (size_t s = 0; s < profile.stackCount(); ++s) {
        const int64_t v = stackValue[s];
        out.total += v;
        if (v == 0 || nodes.empty())
            continue;
        const auto locs = profile.stack(StackId(s));
        if (locs.empty())
            continue;
        ++epoch;
        if (const uint32_t n = leaf[locs[0].index()]; n != kNone) {
            nodes[n].flat += v;
            groups[nodes[n].group].flat += v;
        }
        for (const LocationId loc : locs)
            for (uint32_t k = begin[loc.index()]; k < begin[loc.index() + 1]; ++k) {
                Node& n = nodes[frames[k]];
                if (n.seen != epoch) {
                    n.seen = epoch;
                    n.cum += v;
                }
                Group& g = groups[n.group];
                if (g.seen != epoch) {
                    g.seen = epoch;
                    g.cum += v;
                }
            }
    }

    out.functions.resize(groups.size());
    for (size_t g = 0; g < groups.size(); ++g) {
        FunctionLines& f = out.functions[g];
        f.name = std::string(profile.str(groups[g].name));
        f.file = std::string(profile.str(groups[g].file));
        f.startLine = groups[g].startLine;
        f.flat = groups[g].flat;
        f.cum = groups[g].cum;
        f.location = groups[g].location;
        if (const MappingId m = groups[g].mapping; m.valid() && m.index() < profile.mappings.size()) {
            f.binary = std::string(profile.str(profile.mappings[m.index()].file));
            f.buildId = std::string(profile.str(profile.mappings[m.index()].buildId));
        }
    }
    for (const Node& n : nodes) {
        if (n.flat == 0 && n.cum == 0)
            continue;
        FunctionLines& f = out.functions[n.group];
        f.flatSum += n.flat;
        f.cumSum += n.cum;
        f.lines.push_back(LineCost { n.line, n.flat, n.cum });
    }
    std::erase_if(out.functions, [](const FunctionLines& f) { return f.lines.empty(); });
    for (FunctionLines& f : out.functions)
        std::sort(f.lines.begin(), f.lines.end(), [](const LineCost& a, const LineCost& b) { return a.line < b.line; });
    std::sort(out.functions.begin(), out.functions.end(), [](const FunctionLines& a, const FunctionLines& b) {
        return a.name != b.name ? a.name < b.name : a.file < b.file;
    });
    return out;
}

std::vector<ListedLine> listedLines(const FunctionLines& f, bool fileFound, size_t fileLines)
{
    constexpr int64_t kMargin = 5; // lines shown around the ones with a cost, as pprof's -list
    std::vector<LineCost> costed;
    for (const LineCost& c : f.lines)
        if (c.line > 0)
            costed.push_back(c);
    std::vector<ListedLine> out;
    if (costed.empty())
        return out;
    size_t next = 0;
    int64_t last = 0;
    if (fileFound) {
        const int64_t first = std::max<int64_t>(
            f.startLine > 0 ? std::min(f.startLine, costed.front().line) : costed.front().line - kMargin, 1);
        last = std::min<int64_t>(costed.back().line + kMargin, int64_t(fileLines));
        for (int64_t n = first; n <= last; ++n) {
            while (next < costed.size() && costed[next].line < n)
                ++next;
            const bool has = next < costed.size() && costed[next].line == n;
            out.push_back(ListedLine { n, has ? costed[next].flat : 0, has ? costed[next].cum : 0, true });
        }
    }
    for (; next < costed.size(); ++next)
        if (costed[next].line > last)
            out.push_back(ListedLine { costed[next].line, costed[next].flat, costed[next].cum, false });
    return out;
}

} // namespace symflame::model
