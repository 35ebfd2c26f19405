// Symbol search: each symbol is matched once (not once per node), then the tree is walked in
// id order, where parents come before children, to count frames and the samples under the
// outermost matching frame of each path.
#include "model/analysis/search.h"

#include "model/core/bigarray.h"
#include "model/core/parallel.h"

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

bool symbolMatches(const CallTreeNode& n, const std::vector<uint8_t>& matches)
{
    return n.symbol.valid() && n.symbol.index() < matches.size() && matches[n.symbol.index()];
}

/// A node a search finds: its symbol matches and it has samples below it.
bool isMatch(const CallTreeNode& n, const std::vector<uint8_t>& matches)
{
    return n.total > 0 && symbolMatches(n, matches);
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

SearchStats searchStats(const CallTree& tree, const std::vector<uint8_t>& matches)
{
    // The hottest matches, as a heap whose top is the one to give up first: the smallest total,
    // and of equal totals the latest in tree order. Each part of the work sees its nodes in tree
    // order, so a node replaces the top only with a larger total; a heap never holds more than k
    // nodes, where listing every match took a vector of them as big as the tree. The parts'
    // heaps together hold the k best of all (their order is total), which the end picks.
    constexpr size_t k = SearchStats::kOrderedMatches;
    struct Hot {
        int64_t total;
        uint32_t id;
    };
    // As a heap's order (the "largest" on top) it keeps the worst on top; as a sort's, the best first.
    const auto better = [](const Hot& a, const Hot& b) { return a.total != b.total ? a.total > b.total : a.id < b.id; };
    struct Part {
        size_t frames = 0;
        int64_t value = 0;
        std::vector<Hot> heap;
    };
    // Per node: does it or an ancestor match. Node ids are breadth-first and each depth is a
    // range of ids, so the depths are gone through in order, a depth's parents all set before
    // it; a big depth is cut into parts, one per thread.
    std::vector<uint8_t> covered;
    resizeBig(covered, tree.size()); // 50 MB for a 10M-sample profile's tree: in huge pages
    const auto visit = [&](Part& part, size_t from, size_t to) {
        for (size_t i = from; i < to; ++i) {
            const CallTreeNode& n = tree.node(NodeId(i));
            const bool match = symbolMatches(n, matches);
            const bool parentCovered = n.parent.valid() && covered[n.parent.index()];
            covered[i] = match || parentCovered;
            if (!match || n.total <= 0)
                continue;
            ++part.frames;
            if (!parentCovered)
                part.value += n.total;
            std::vector<Hot>& heap = part.heap;
            if (heap.size() < k) {
                heap.push_back({ n.total, static_cast<uint32_t>(i) });
                std::push_heap(heap.begin(), heap.end(), better);
            } else if (n.total > heap.front().total) {
                std::pop_heap(heap.begin(), heap.end(), better);
                heap.back() = { n.total, static_cast<uint32_t>(i) };
                std::push_heap(heap.begin(), heap.end(), better);
            }
        }
    };
    constexpr size_t kParallelDepth = size_t(1) << 16; // nodes of a depth worth threads
    const unsigned threads = threadsFor(tree.size());
    std::vector<Part> parts(threads);
    if (tree.size() > 0)
        covered[0] = 0;
    const NodeRange top = tree.size() > 0 ? tree.children(tree.root()) : NodeRange {};
    size_t from = top.empty() ? 0 : top.begin()[0].index();
    size_t to = from + top.size();
    while (from < to) {
        if (threads == 1 || to - from < kParallelDepth) {
            visit(parts[0], from, to);
        } else {
            parallelFor(threads, threads, [&](size_t g) {
                visit(parts[g], from + (to - from) * g / threads, from + (to - from) * (g + 1) / threads);
            });
        }
        // The next depth: from the first child of the depth's first parent to the last child of
        // its last parent.
        size_t first = from, last = to;
        while (first < to && tree.node(NodeId(first)).childCount == 0)
            ++first;
        while (last > first && tree.node(NodeId(last - 1)).childCount == 0)
            --last;
        if (first == to)
            break;
        const CallTreeNode& a = tree.node(NodeId(first));
        const CallTreeNode& b = tree.node(NodeId(last - 1));
        from = a.childrenBegin;
        to = size_t(b.childrenBegin) + b.childCount;
    }
    SearchStats stats;
    std::vector<Hot> best;
    for (Part& part : parts) {
        stats.frames += part.frames;
        stats.value += part.value;
        best.insert(best.end(), part.heap.begin(), part.heap.end());
    }
    std::sort(best.begin(), best.end(), better);
    best.resize(std::min(best.size(), k));
    stats.hottest.reserve(best.size());
    for (const Hot& h : best)
        stats.hottest.push_back(NodeId(h.id));
    return stats;
}

MatchStepper::MatchStepper(std::shared_ptr<const CallTree> tree, std::shared_ptr<const std::vector<uint8_t>> symbolMatches,
    const SearchStats& stats)
    : m_tree(std::move(tree))
    , m_symbolMatches(std::move(symbolMatches))
    , m_hottest(stats.hottest)
    , m_hottestById(stats.hottest)
    , m_frames(stats.frames)
{
    std::sort(m_hottestById.begin(), m_hottestById.end());
}

NodeId MatchStepper::next()
{
    if (m_frames == 0 || !m_tree)
        return NodeId();
    if (m_index < m_hottest.size())
        return m_hottest[m_index++];
    if (m_frames > m_hottest.size()) {
        for (size_t i = m_cursor + 1; i < m_tree->size(); ++i) {
            if (!isMatch(m_tree->node(NodeId(i)), *m_symbolMatches)
                || std::binary_search(m_hottestById.begin(), m_hottestById.end(), NodeId(i)))
                continue;
            m_cursor = i;
            return NodeId(i);
        }
    }
    // Past the last: from the start again.
    m_cursor = 0;
    m_index = 0;
    if (!m_hottest.empty())
        return m_hottest[m_index++];
    return NodeId();
}

} // namespace symflame::model
