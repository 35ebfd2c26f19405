// Symbol search: each symbol is matched once (not once per node), then the tree is walked in
// id order, where parents come before children, to count frames and the samples under the
// outermost matching frame of each path.
#include "model/analysis/search.h"

#include <re2/re2.h>

#include <algorithm>
#include <functional>
#include <memory>

namespace symflame::model {

namespace {

char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool containsText(std::string_view haystack, std::string_view needle, bool caseSensitive)
{
    if (needle.size() > haystack.size())
        return false;
    if (caseSensitive)
        return haystack.find(needle) != std::string_view::npos;
    const auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
        [](char a, char b) { return lower(a) == lower(b); });
    return it != haystack.end();
}

// RE2 rather than std::regex: libstdc++'s std::regex backtracks, by recursion, so that a pattern
// such as "(.*.*)*z" took minutes over a big profile's names (the viewer searches as one types)
// and a name of some 30 000 characters overflowed the stack. RE2 runs in time linear in the
// text and in bounded memory, and its syntax is the one pprof's -focus and friends take.

} // namespace

Result<std::vector<uint8_t>> matchSymbols(const Profile& profile, const SymbolTable& symbols, const SearchQuery& query)
{
    std::vector<uint8_t> out(symbols.size(), 0);
    if (query.pattern.empty())
        return out;
    std::unique_ptr<const re2::RE2> re;
    if (query.regex) {
        re2::RE2::Options options;
        options.set_case_sensitive(query.caseSensitive);
        options.set_log_errors(false); // the error goes back to the caller, not to stderr
        re = std::make_unique<const re2::RE2>(query.pattern, options);
        if (!re->ok())
            return makeError(ErrorCode::Usage, "invalid regular expression '" + query.pattern + "': " + re->error());
    }
    const auto matches = [&](std::string_view text) {
        if (text.empty())
            return false;
        if (re)
            return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re);
        return containsText(text, query.pattern, query.caseSensitive);
    };
    for (size_t i = 0; i < symbols.size(); ++i) {
        const SymbolId id(i);
        const Symbol& sym = symbols.symbol(id);
        const std::string_view binary = sym.mapping.valid() && sym.mapping.index() < profile.mappings.size()
            ? profile.str(profile.mappings[sym.mapping.index()].file)
            : std::string_view();
        out[i] = matches(symbols.displayName(id)) || matches(profile.str(sym.file)) || matches(binary);
    }
    return out;
}

SearchStats searchStats(const CallTree& tree, const std::vector<uint8_t>& symbolMatches)
{
    SearchStats stats;
    // Per node: does it or an ancestor match. Node ids are breadth-first, so a parent's entry
    // is set before its children are visited.
    std::vector<uint8_t> covered(tree.size(), 0);
    for (size_t i = 1; i < tree.size(); ++i) {
        const CallTreeNode& n = tree.node(NodeId(i));
        const bool match = n.symbol.valid() && n.symbol.index() < symbolMatches.size() && symbolMatches[n.symbol.index()];
        const bool parentCovered = n.parent.valid() && covered[n.parent.index()];
        covered[i] = match || parentCovered;
        if (!match || n.total <= 0)
            continue;
        ++stats.frames;
        stats.nodes.push_back(NodeId(i));
        if (!parentCovered)
            stats.value += n.total;
    }
    const auto largerTotal = [&](NodeId a, NodeId b) { return tree.node(a).total > tree.node(b).total; };
    constexpr size_t k = SearchStats::kOrderedMatches;
    if (stats.nodes.size() <= k) {
        std::stable_sort(stats.nodes.begin(), stats.nodes.end(), largerTotal);
        return stats;
    }
    // The k-th largest total, then the nodes above it and as many equal to it as fit, in tree
    // order, sorted; the rest follow in tree order.
    std::vector<int64_t> totals(stats.nodes.size());
    for (size_t i = 0; i < totals.size(); ++i)
        totals[i] = tree.node(stats.nodes[i]).total;
    std::nth_element(totals.begin(), totals.begin() + std::ptrdiff_t(k - 1), totals.end(), std::greater<>());
    const int64_t threshold = totals[k - 1];
    size_t above = 0;
    for (NodeId n : stats.nodes)
        above += tree.node(n).total > threshold;
    size_t equalTaken = 0;
    std::vector<NodeId> ordered, rest;
    ordered.reserve(k);
    rest.reserve(stats.nodes.size() - k);
    for (NodeId n : stats.nodes) {
        const int64_t t = tree.node(n).total;
        if (t > threshold || (t == threshold && above + equalTaken < k && ++equalTaken))
            ordered.push_back(n);
        else
            rest.push_back(n);
    }
    std::stable_sort(ordered.begin(), ordered.end(), largerTotal);
    ordered.insert(ordered.end(), rest.begin(), rest.end());
    stats.nodes = std::move(ordered);
    return stats;
}

} // namespace symflame::model
