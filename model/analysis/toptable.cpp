// The top-functions table: flat and cum per symbol, summed per distinct stack first. Cum
// counts a symbol once per stack even when it recurses, using an epoch per symbol instead of
// a set cleared for every stack. A big profile's stacks are counted in parts on several threads.
#include "model/analysis/toptable.h"

#include "model/core/parallel.h"

#include <algorithm>

namespace symflame::model {

static int64_t magnitude(int64_t v)
{
    return v < 0 ? -v : v;
}

std::vector<TopEntry> topFunctions(
    const Profile& profile, const SymbolTable& symbols, size_t sampleType, const StackFilter* filter)
{
    if (filter && filter->isIdentity())
        filter = nullptr;
    std::vector<TopEntry> out;
    const size_t nTypes = profile.sampleTypes.size();
    if (sampleType >= nTypes)
        return out;

    const std::vector<int64_t> stackValue = profile.valuePerStack(sampleType);

    const size_t nSym = symbols.size();
    // Each part of the stacks is counted on a thread of its own into its own sums, which are
    // then added up: the same totals in any order.
    struct Part {
        std::vector<int64_t> flat, cum;
        std::vector<uint32_t> seen; ///< the last stack (numbered from 1) that counted a symbol's cum
        std::vector<uint32_t> ranks;
    };
    const unsigned threads = threadsFor(profile.stackLocations.size());
    std::vector<Part> parts(threads);
    const std::vector<size_t> runs = profile.stackRunsByFrames(threads); // part g counts run g
    const auto count = [&](Part& part, size_t from, size_t to) {
        std::vector<int64_t>& flat = part.flat;
        std::vector<int64_t>& cum = part.cum;
        std::vector<uint32_t>& seen = part.seen;
        flat.assign(nSym, 0);
        cum.assign(nSym, 0);
        seen.assign(nSym, 0);
        uint32_t epoch = 0;
        for (size_t s = from; s < to; ++s) {
            const int64_t v = stackValue[s];
            if (v == 0)
                continue;
            const auto locs = profile.stack(StackId(s));
            if (locs.empty())
                continue;
            ++epoch;
            if (filter) {
                // The stack as name ranks, leaf first, reshaped; then the same counting.
                std::vector<uint32_t>& ranks = part.ranks;
                ranks.clear();
                for (const LocationId loc : locs)
                    for (const SymbolId f : symbols.frames(loc))
                        ranks.push_back(symbols.nameRank(f));
                const auto kept = filter->apply(ranks.data(), ranks.size(), false);
                if (!kept || *kept == 0)
                    continue;
                flat[symbols.symbolAtRank(ranks[0]).index()] += v;
                for (size_t k = 0; k < *kept; ++k) {
                    const size_t f = symbols.symbolAtRank(ranks[k]).index();
                    if (seen[f] != epoch) {
                        seen[f] = epoch;
                        cum[f] += v;
                    }
                }
                continue;
            }
            const auto leaf = symbols.frames(locs[0]);
            if (!leaf.empty())
                flat[leaf[0].index()] += v;
            for (const LocationId loc : locs)
                for (const SymbolId f : symbols.frames(loc)) {
                    uint32_t& mark = seen[f.index()];
                    if (mark != epoch) {
                        mark = epoch;
                        cum[f.index()] += v;
                    }
                }
        }
    };
    parallelFor(parts.size(), threads, [&](size_t g) { count(parts[g], runs[g], runs[g + 1]); });
    std::vector<int64_t>& flat = parts[0].flat;
    std::vector<int64_t>& cum = parts[0].cum;
    for (size_t g = 1; g < parts.size(); ++g)
        for (size_t i = 0; i < nSym; ++i) {
            flat[i] += parts[g].flat[i];
            cum[i] += parts[g].cum[i];
        }

    for (size_t i = 0; i < nSym; ++i)
        if (flat[i] != 0 || cum[i] != 0)
            out.push_back(TopEntry { SymbolId(i), flat[i], cum[i] });

    // pprof's FlatNameOrder: |flat| desc, name asc, |cum| desc. nameRank orders by name and
    // then id, so two symbols of the same name fall back to cum and then rank.
    std::sort(out.begin(), out.end(), [&](const TopEntry& a, const TopEntry& b) {
        if (const int64_t fa = magnitude(a.flat), fb = magnitude(b.flat); fa != fb)
            return fa > fb;
        const std::string& na = symbols.displayName(a.symbol);
        const std::string& nb = symbols.displayName(b.symbol);
        if (const int c = na.compare(nb); c != 0)
            return c < 0;
        if (const int64_t ca = magnitude(a.cum), cb = magnitude(b.cum); ca != cb)
            return ca > cb;
        return symbols.nameRank(a.symbol) < symbols.nameRank(b.symbol);
    });
    return out;
}

} // namespace symflame::model
