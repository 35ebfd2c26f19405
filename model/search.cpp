// Symbol search: each symbol is matched once (not once per node), then the tree is walked in
// id order, where parents come before children, to count frames and the samples under the
// outermost matching frame of each path.
#include "model/search.h"

#include <algorithm>
#include <regex>

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

// libstdc++'s std::regex matches by recursion, about one stack frame per character of the text:
// a function name of some 30 000 characters (a profile may hold any) overflowed the stack with
// "a.*z", and fewer with alternations. Regular expressions see at most this much of each text,
// which 8 MB of stack takes with every pattern tried; names are rarely longer.
constexpr size_t kRegexTextLimit = 2048;

} // namespace

Result<std::vector<uint8_t>> matchSymbols(const Profile& profile, const SymbolTable& symbols, const SearchQuery& query)
{
    std::vector<uint8_t> out(symbols.size(), 0);
    if (query.pattern.empty())
        return out;
    std::regex re;
    if (query.regex) {
        // std::regex reports a bad pattern by throwing; it does not leave this function.
        try {
            auto flags = std::regex::ECMAScript | std::regex::optimize;
            if (!query.caseSensitive)
                flags |= std::regex::icase;
            re = std::regex(query.pattern, flags);
        } catch (const std::regex_error& e) {
            return makeError(ErrorCode::Usage, "invalid regular expression '" + query.pattern + "': " + e.what());
        }
    }
    const auto matches = [&](std::string_view text) {
        if (text.empty())
            return false;
        if (query.regex) {
            text = text.substr(0, kRegexTextLimit);
            return std::regex_search(text.begin(), text.end(), re);
        }
        return containsText(text, query.pattern, query.caseSensitive);
    };
    // Matching may throw too (the standard allows regex_error with error_complexity or
    // error_stack from regex_search): an error value, never an escaping exception.
    try {
        for (size_t i = 0; i < symbols.size(); ++i) {
            const SymbolId id(i);
            const Symbol& sym = symbols.symbol(id);
            const std::string_view binary = sym.mapping.valid() && sym.mapping.index() < profile.mappings.size()
                ? profile.str(profile.mappings[sym.mapping.index()].file)
                : std::string_view();
            out[i] = matches(symbols.displayName(id)) || matches(profile.str(sym.file)) || matches(binary);
        }
    } catch (const std::regex_error& e) {
        return makeError(ErrorCode::Usage, "regular expression '" + query.pattern + "' cannot be matched: " + e.what());
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
    std::stable_sort(stats.nodes.begin(), stats.nodes.end(),
        [&](NodeId a, NodeId b) { return tree.node(a).total > tree.node(b).total; });
    return stats;
}

} // namespace symflame::model
