// Search over the symbols of a profile: a substring or a regular expression matched against
// each symbol's function name, source file and binary; and what the matches add up to in a
// call tree (frames, and the share of the samples that pass through a matching frame).
#pragma once

#include "model/analysis/calltree.h"
#include "model/core/profile.h"
#include "model/core/result.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace symflame::model {

struct SearchQuery {
    std::string pattern;
    bool regex = false;         ///< regular expression (RE2 syntax, as pprof's); else a plain substring
    bool caseSensitive = false;
};

/// Per symbol id, 1 when the function name, the file or the binary's path matches. An empty
/// pattern matches nothing; a bad regular expression is a Usage error naming it. Regular
/// expressions are matched by RE2, in time linear in the text whatever the pattern (no
/// backtracking, no recursion), over the whole of every text.
Result<std::vector<uint8_t>> matchSymbols(const Profile& profile, const SymbolTable& symbols, const SearchQuery& query);

struct SearchStats {
    size_t frames = 0;   ///< nodes of the tree whose symbol matches
    int64_t value = 0;   ///< value of the samples with at least one matching frame
    /// The matching nodes with the largest totals, at most kOrderedMatches of them, largest
    /// first (equal totals in tree order). The others are not listed: a short pattern can match
    /// tens of millions of nodes of a big tree, and MatchStepper finds them as it reaches them.
    std::vector<NodeId> hottest;
    static constexpr size_t kOrderedMatches = 4096;
};

/// What the matches amount to in tree: one pass over the nodes, whatever the number of matches.
SearchStats searchStats(const CallTree& tree, const std::vector<uint8_t>& symbolMatches);

/// Steps through the matching nodes of a search (each node whose symbol matches, with a total
/// above 0): the hottest first, then every other one in tree order (breadth-first), then from
/// the hottest again. A step past the hottest scans the tree from the last node stepped to.
class MatchStepper {
public:
    MatchStepper() = default;
    MatchStepper(std::shared_ptr<const CallTree> tree, std::shared_ptr<const std::vector<uint8_t>> symbolMatches,
                 const SearchStats& stats);

    bool empty() const { return m_frames == 0; }
    /// The next match; an invalid id when there is none.
    NodeId next();

private:
    std::shared_ptr<const CallTree> m_tree;
    std::shared_ptr<const std::vector<uint8_t>> m_symbolMatches;
    std::vector<NodeId> m_hottest;
    std::vector<NodeId> m_hottestById; ///< m_hottest sorted by id, to skip them in the tree-order part
    size_t m_frames = 0;
    size_t m_index = 0;   ///< in m_hottest, while below its size
    size_t m_cursor = 0;  ///< the last node stepped to in tree order (0: none yet)
};

} // namespace symflame::model
