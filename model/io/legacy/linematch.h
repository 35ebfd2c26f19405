#pragma once
// The regular expressions of the legacy text readers are pprof's, which are Go's: RE2 syntax,
// leftmost-first. RE2 matches them as Go does (its \s is Go's), in time linear in the line and
// without recursion, so a line of any length is safe to match (libstdc++'s std::regex recursed
// per character and overflowed the stack on lines of a few KiB in the sanitizer build).
#include <re2/re2.h>

#include <string>
#include <string_view>

namespace symflame::model {

/// The groups of one match; group 0 is the whole match, a group that took no part is empty.
class LineMatch {
public:
    static constexpr int kMaxGroups = 8;
    std::string_view operator[](int i) const { return { m_groups[i].data(), m_groups[i].size() }; }
    std::string str(int i) const { return std::string((*this)[i]); }

private:
    friend bool searchLine(std::string_view text, const RE2& re, LineMatch* m);
    re2::StringPiece m_groups[kMaxGroups];
};

/// The leftmost match of `re` anywhere in `text`, as Go's FindStringSubmatch finds it. With `m`,
/// `re` may have at most kMaxGroups - 1 groups (pprof's have 6 at most); one with more never
/// matches.
inline bool searchLine(std::string_view text, const RE2& re, LineMatch* m = nullptr)
{
    const re2::StringPiece t(text.data(), text.size());
    if (!m)
        return re.Match(t, 0, t.size(), RE2::UNANCHORED, nullptr, 0);
    const int n = re.NumberOfCapturingGroups() + 1;
    return n <= LineMatch::kMaxGroups && re.Match(t, 0, t.size(), RE2::UNANCHORED, m->m_groups, n);
}

} // namespace symflame::model
