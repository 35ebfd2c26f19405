// StackFilter: per-rank flags computed once from the rules, then a single in-place pass per
// stack. Focus and ignore look at the stack as it was recorded; the sandwich cut comes next,
// then hiding, then collapsing runs of the same function.
#include "model/analysis/stackfilter.h"

#include "model/core/frameformat.h"

#include <algorithm>

namespace symflame::model {

const char* filterActionName(FilterRule::Action action)
{
    switch (action) {
    case FilterRule::Action::Focus:
        return "focus";
    case FilterRule::Action::Ignore:
        return "ignore";
    case FilterRule::Action::Hide:
        return "hide";
    }
    return "";
}

namespace {

bool binaryMatches(std::string_view file, const std::string& name)
{
    return !file.empty() && (file == name || baseName(file) == name);
}

} // namespace

StackFilter StackFilter::build(const Profile& profile, const SymbolTable& symbols, std::span<const FilterRule> rules,
    bool collapseRecursion, SymbolId pivot, Sandwich sandwich)
{
    StackFilter f;
    f.m_collapseRecursion = collapseRecursion;
    f.m_sandwich = pivot.valid() && pivot.index() < symbols.size() ? sandwich : Sandwich::None;
    f.m_flags.assign(symbols.size(), 0);
    for (size_t i = 0; i < symbols.size(); ++i) {
        const SymbolId id(i);
        const Symbol& sym = symbols.symbol(id);
        const std::string& name = symbols.displayName(id);
        const std::string_view binary = sym.mapping.valid() && sym.mapping.index() < profile.mappings.size()
            ? profile.str(profile.mappings[sym.mapping.index()].file)
            : std::string_view();
        uint8_t flags = 0;
        for (const FilterRule& rule : rules) {
            const bool match = rule.target == FilterRule::Target::Function ? name == rule.name
                                                                           : binaryMatches(binary, rule.name);
            if (!match)
                continue;
            switch (rule.action) {
            case FilterRule::Action::Focus:
                flags |= FocusFlag;
                break;
            case FilterRule::Action::Ignore:
                flags |= IgnoreFlag;
                break;
            case FilterRule::Action::Hide:
                flags |= HideFlag;
                break;
            }
        }
        if (f.m_sandwich != Sandwich::None && id == pivot)
            flags |= PivotFlag;
        f.m_flags[symbols.nameRank(id)] = flags;
    }
    for (const FilterRule& rule : rules) {
        f.m_anyFocus = f.m_anyFocus || rule.action == FilterRule::Action::Focus;
        f.m_anyIgnore = f.m_anyIgnore || rule.action == FilterRule::Action::Ignore;
        f.m_anyHide = f.m_anyHide || rule.action == FilterRule::Action::Hide;
    }
    f.m_identity = !f.m_anyFocus && !f.m_anyIgnore && !f.m_anyHide && !collapseRecursion
        && f.m_sandwich == Sandwich::None;
    return f;
}

std::optional<size_t> StackFilter::apply(uint32_t* ranks, size_t n, bool rootFirst) const
{
    if (m_identity)
        return n;
    if (m_anyFocus || m_anyIgnore) {
        bool focused = false;
        for (size_t i = 0; i < n; ++i) {
            const uint8_t fl = m_flags[ranks[i]];
            if (fl & IgnoreFlag)
                return std::nullopt;
            focused = focused || (fl & FocusFlag);
        }
        if (m_anyFocus && !focused)
            return std::nullopt;
    }
    if (m_sandwich != Sandwich::None) {
        // Index of the pivot's outermost and innermost frames.
        size_t outer = n, inner = n;
        for (size_t i = 0; i < n; ++i) {
            if (!(m_flags[ranks[i]] & PivotFlag))
                continue;
            if (rootFirst) {
                if (outer == n)
                    outer = i;
                inner = i;
            } else {
                if (inner == n)
                    inner = i;
                outer = i;
            }
        }
        if (outer == n)
            return std::nullopt;
        // Keep [begin, end) of the array.
        size_t begin = 0, end = n;
        if (m_sandwich == Sandwich::Callees) {
            if (rootFirst)
                begin = outer;
            else
                end = outer + 1;
        } else {
            if (rootFirst)
                end = inner + 1;
            else
                begin = inner;
        }
        std::copy(ranks + begin, ranks + end, ranks);
        n = end - begin;
    }
    size_t out = 0;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t r = ranks[i];
        if (m_anyHide && (m_flags[r] & HideFlag))
            continue;
        if (m_collapseRecursion && out > 0 && ranks[out - 1] == r)
            continue;
        ranks[out++] = r;
    }
    return out;
}

} // namespace symflame::model
