// pprof's -diff_base: NEW (normalized when asked) merged with BASE scaled by -1.
#include "model/analysis/diff.h"

#include "model/core/merge.h"

#include <cmath>
#include <cstdlib>

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

} // namespace

Result<DiffProfile> diffProfiles(Profile base, Profile next, const DiffOptions& options)
{
    DiffProfile out;
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
    auto merged = mergeProfiles(both, &differing);
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

Profile sideBySide(const DiffProfile& diff)
{
    Profile p = diff.profile;
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
