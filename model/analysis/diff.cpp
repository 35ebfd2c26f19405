// pprof's -diff_base: NEW (normalized when asked) merged with BASE scaled by -1.
#include "model/analysis/diff.h"

#include "model/core/merge.h"
#include "model/core/valueformat.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

namespace symflame::model {

namespace {

std::vector<int64_t> totals(const Profile& p, bool absolute)
{
    std::vector<int64_t> out(p.sampleTypes.size(), 0);
    const size_t n = p.sampleTypes.size();
    if (n == 0)
        return out;
    for (size_t i = 0; i < p.sampleValues.size(); ++i) {
        const int64_t v = p.sampleValues[i];
        out[i % n] += absolute && v < 0 ? -v : v;
    }
    return out;
}

/// Per binary file name, the builds of it the profile has (build ID, else path).
std::map<std::string, std::set<std::string>> buildsByName(const Profile& p)
{
    std::map<std::string, std::set<std::string>> out;
    for (const Mapping& m : p.mappings) {
        const std::string_view file = p.str(m.file);
        if (file.empty() || isUnsymbolizableMappingName(file))
            continue;
        out[std::string(baseName(file))].insert(std::string(p.str(!p.str(m.buildId).empty() ? m.buildId : m.file)));
    }
    return out;
}

/// Names the locations of p without a named line in the mappings of the binaries in rebuilt
/// "[file name]", a function of that name (so that they meet by name alone).
void nameByBinary(Profile& p, const std::set<std::string>& rebuilt)
{
    std::vector<FunctionId> functionOf(p.mappings.size()); // invalid: not rebuilt
    for (size_t i = 0; i < p.mappings.size(); ++i) {
        const std::string name(baseName(p.str(p.mappings[i].file)));
        if (!rebuilt.count(name))
            continue;
        Function f;
        f.name = p.strings.intern("[" + name + "]");
        f.systemName = f.name;
        functionOf[i] = FunctionId(uint32_t(p.functions.size()));
        p.functions.push_back(f);
    }
    for (Location& loc : p.locations) {
        if (!loc.mapping.valid() || loc.mapping.index() >= functionOf.size() || !functionOf[loc.mapping.index()].valid())
            continue;
        const auto lines = p.linesOf(loc);
        const bool named = std::any_of(lines.begin(), lines.end(), [&](const Line& l) {
            return l.function.valid() && l.function.index() < p.functions.size()
                && !(p.functions[l.function.index()].name.empty() && p.functions[l.function.index()].systemName.empty());
        });
        if (named)
            continue;
        // The frame stays unsymbolized (its status is kept); only its name is the binary's.
        loc.linesBegin = uint32_t(p.lines.size());
        loc.lineCount = 1;
        p.lines.push_back({ functionOf[loc.mapping.index()], 0, 0 });
    }
}

/// Each line's function renamed "name (file)" or "name (file:line)" (match File or Line), so that
/// frames meet by place too; functions without a file keep their names.
void nameByPlace(Profile& p, DiffOptions::Match match)
{
    std::unordered_map<uint64_t, FunctionId> made; // (function, line) -> the renamed function
    for (Line& l : p.lines) {
        if (!l.function.valid() || l.function.index() >= p.functions.size())
            continue;
        const Function f = p.functions[l.function.index()]; // a copy: functions grows
        if (f.file.empty())
            continue;
        const int64_t line = match == DiffOptions::Match::Line && l.line > 0 ? l.line : 0;
        const uint64_t key = (uint64_t(l.function.value) << 32) | uint32_t(line);
        auto [it, inserted] = made.try_emplace(key, FunctionId());
        if (inserted) {
            Function g = f;
            std::string name(p.str(f.name.empty() ? f.systemName : f.name));
            name += " (" + std::string(baseName(p.str(f.file))) + (line > 0 ? ":" + std::to_string(line) : "") + ")";
            g.name = p.strings.intern(name);
            g.systemName = g.name;
            it->second = FunctionId(uint32_t(p.functions.size()));
            p.functions.push_back(g);
        }
        l.function = it->second;
    }
}

/// Keeps p's sample types that are in keep ("type/unit"), in keep's order, and their values.
void keepSampleTypes(Profile& p, const std::vector<std::string>& keep)
{
    const size_t n = p.sampleTypes.size();
    std::vector<size_t> from;
    for (const std::string& k : keep)
        for (size_t t = 0; t < n; ++t)
            if (std::string(p.str(p.sampleTypes[t].type)) + "/" + std::string(p.str(p.sampleTypes[t].unit)) == k)
                from.push_back(t);
    if (from.size() == n && std::is_sorted(from.begin(), from.end()))
        return;
    const std::string defaultType = n == 0 ? std::string() : std::string(p.str(p.sampleTypes[p.defaultSampleType].type));
    std::vector<int64_t> values(p.sampleCount() * from.size());
    for (size_t i = 0; i < p.sampleCount(); ++i)
        for (size_t k = 0; k < from.size(); ++k)
            values[i * from.size() + k] = p.sampleValues[i * n + from[k]];
    std::vector<ValueType> types;
    for (const size_t t : from)
        types.push_back(p.sampleTypes[t]);
    p.sampleValues = std::move(values);
    p.sampleTypes = std::move(types);
    p.defaultSampleType = 0;
    for (size_t k = 0; k < p.sampleTypes.size(); ++k)
        if (p.str(p.sampleTypes[k].type) == defaultType)
            p.defaultSampleType = k;
}

std::vector<std::string> typeNames(const Profile& p)
{
    std::vector<std::string> out;
    for (const ValueType& t : p.sampleTypes)
        out.push_back(std::string(p.str(t.type)) + "/" + std::string(p.str(t.unit)));
    return out;
}

} // namespace

std::optional<DiffOptions::Match> parseDiffMatch(std::string_view word)
{
    if (word == "function")
        return DiffOptions::Match::Function;
    if (word == "file")
        return DiffOptions::Match::File;
    if (word == "line")
        return DiffOptions::Match::Line;
    return std::nullopt;
}

Result<DiffProfile> diffProfiles(Profile base, Profile next, const DiffOptions& options)
{
    DiffProfile out;
    if (options.match != DiffOptions::Match::Function) {
        nameByPlace(base, options.match);
        nameByPlace(next, options.match);
    }
    {
        // Sample types: those of both (NEW's order), the others dropped (a CPU profile of one
        // build compares with a CPU and wall-time profile of the other); none in common is an
        // error, as merging says.
        const std::vector<std::string> baseTypes = typeNames(base), nextTypes = typeNames(next);
        std::vector<std::string> common;
        for (const std::string& t : nextTypes)
            if (std::find(baseTypes.begin(), baseTypes.end(), t) != baseTypes.end()
                && std::find(common.begin(), common.end(), t) == common.end())
                common.push_back(t);
        if (!common.empty() && (common != baseTypes || common != nextTypes)) {
            keepSampleTypes(base, common);
            keepSampleTypes(next, common);
        }
    }
    {
        // Binaries rebuilt between the two: the same file name, other builds.
        const auto baseBuilds = buildsByName(base), nextBuilds = buildsByName(next);
        std::set<std::string> rebuilt;
        for (const auto& [name, builds] : baseBuilds)
            if (const auto it = nextBuilds.find(name); it != nextBuilds.end() && it->second != builds)
                rebuilt.insert(name);
        if (!rebuilt.empty()) {
            nameByBinary(base, rebuilt);
            nameByBinary(next, rebuilt);
        }
    }
    out.baseTotals = totals(base, true);
    const size_t n = next.sampleTypes.size();
    if (options.normalize && n > 0 && base.sampleTypes.size() == n) {
        // As pprof's Profile.Normalize: ratio = base total / new total per type (0 when NEW's
        // total is 0), each value rounded to the nearest integer.
        const std::vector<int64_t> baseSum = totals(base, false), nextSum = totals(next, false);
        std::vector<double> ratio(n, 0.0);
        for (size_t t = 0; t < n; ++t)
            ratio[t] = nextSum[t] == 0 ? 0.0 : double(baseSum[t]) / double(nextSum[t]);
        for (size_t i = 0; i < next.sampleValues.size(); ++i)
            if (ratio[i % n] != 1.0)
                next.sampleValues[i] = int64_t(std::llround(double(next.sampleValues[i]) * ratio[i % n]));
    }
    for (int64_t& v : base.sampleValues)
        v = -v;
    const size_t nextSamples = next.sampleCount();
    Profile both[] = { std::move(next), std::move(base) };
    size_t differing = 0;
    MergeOptions mergeOptions;
    mergeOptions.stacksApart = true; // each side's are summed apart: looking BASE's up among NEW's is wasted
    auto merged = mergeProfiles(both, &differing, mergeOptions);
    if (!merged) {
        Error e = merged.error();
        if (e.code == ErrorCode::InvalidInput)
            e.message = "the base and the new profile cannot be compared: " + e.message;
        return e;
    }
    out.profile = std::move(merged).value();
    out.baseSampleStart = nextSamples;
    return out;
}

Profile sideBySide(DiffProfile diff)
{
    Profile p = std::move(diff.profile);
    const size_t n = p.sampleTypes.size();
    const size_t samples = p.sampleCount();
    std::vector<int64_t> values(samples * 2 * n, 0);
    for (size_t i = 0; i < samples; ++i) {
        const bool base = i >= diff.baseSampleStart;
        for (size_t t = 0; t < n; ++t) {
            const int64_t v = p.sampleValues[i * n + t];
            values[i * 2 * n + (base ? n + t : t)] = base ? -v : v;
        }
    }
    p.sampleValues = std::move(values);
    for (size_t t = 0; t < n; ++t)
        p.sampleTypes.push_back(p.sampleTypes[t]);
    return p;
}

std::vector<NodeId> matchNodes(const CallTree& shown, const CallTree& other, const SymbolTable& symbols)
{
    std::vector<NodeId> match(shown.size());
    if (shown.size() == 0 || other.size() == 0)
        return match;
    match[0] = other.root();
    // Breadth-first ids: a parent is matched before its children are met.
    for (size_t i = 0; i < shown.size(); ++i) {
        const NodeId q = match[i];
        if (!q.valid())
            continue;
        const auto mine = shown.children(NodeId(i)), theirs = other.children(q);
        size_t a = 0, b = 0;
        while (a < mine.size() && b < theirs.size()) {
            const uint32_t ra = symbols.nameRank(shown.node(mine[a]).symbol);
            const uint32_t rb = symbols.nameRank(other.node(theirs[b]).symbol);
            if (ra == rb)
                match[mine[a++].index()] = theirs[b++];
            else if (ra < rb)
                ++a;
            else
                ++b;
        }
    }
    return match;
}

} // namespace symflame::model
