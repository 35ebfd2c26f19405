// Search over the symbols of a profile: a substring or a regular expression matched against
// each symbol's function name, source file and binary; and what the matches add up to in a
// call tree (frames, and the share of the samples that pass through a matching frame).
#pragma once

#include "model/analysis/calltree.h"
#include "model/core/profile.h"
#include "model/core/result.h"

#include <cstdint>
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
    /// The matching nodes: the kOrderedMatches largest totals first, largest first (equal totals
    /// in tree order), then the others in tree order (breadth-first). Stepping through matches
    /// visits the hottest first; a short pattern matching millions of nodes is not sorted whole.
    std::vector<NodeId> nodes;
    static constexpr size_t kOrderedMatches = 4096;
};

/// What the matches amount to in tree.
SearchStats searchStats(const CallTree& tree, const std::vector<uint8_t>& symbolMatches);

} // namespace symflame::model
