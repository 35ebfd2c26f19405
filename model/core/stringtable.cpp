#include "model/core/stringtable.h"

namespace symflame::model {

StringTable::StringTable()
{
    m_strings.emplace_back();
    m_index.emplace(std::string_view(m_strings.back()), 0u);
}

StringTable::StringTable(const StringTable& other) : m_strings(other.m_strings) { rebuildIndex(); }

StringTable& StringTable::operator=(const StringTable& other)
{
    if (this != &other) {
        m_strings = other.m_strings;
        rebuildIndex();
    }
    return *this;
}

void StringTable::rebuildIndex()
{
    m_index.clear();
    m_index.reserve(m_strings.size());
    for (size_t i = 0; i < m_strings.size(); ++i)
        m_index.emplace(std::string_view(m_strings[i]), static_cast<uint32_t>(i));
}

StringId StringTable::intern(std::string_view s)
{
    auto it = m_index.find(s);
    if (it != m_index.end())
        return StringId(it->second);
    const auto id = static_cast<uint32_t>(m_strings.size());
    m_strings.emplace_back(s);
    m_index.emplace(std::string_view(m_strings.back()), id);
    return StringId(id);
}

bool StringTable::find(std::string_view s, StringId* out) const
{
    auto it = m_index.find(s);
    if (it == m_index.end())
        return false;
    if (out)
        *out = StringId(it->second);
    return true;
}

} // namespace symflame::model
