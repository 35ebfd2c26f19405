// Interned strings: each distinct string is stored once and named by a StringId.
#pragma once

#include "model/core/ids.h"

#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace symflame::model {

class StringTable {
public:
    StringTable();
    StringTable(const StringTable& other);
    StringTable& operator=(const StringTable& other);
    StringTable(StringTable&&) noexcept = default;
    StringTable& operator=(StringTable&&) noexcept = default;

    /// The id of s, adding it if it is new. Id 0 is always "".
    StringId intern(std::string_view s);
    /// The id of s if present.
    bool find(std::string_view s, StringId* out) const;
    std::string_view get(StringId id) const { return m_strings[id.index()]; }
    const std::string& str(StringId id) const { return m_strings[id.index()]; }
    bool contains(StringId id) const { return id.index() < m_strings.size(); }
    size_t size() const { return m_strings.size(); }

private:
    void rebuildIndex();
    // A deque never moves its elements, so the string_view keys stay valid.
    std::deque<std::string> m_strings;
    std::unordered_map<std::string_view, uint32_t> m_index;
};

} // namespace symflame::model
