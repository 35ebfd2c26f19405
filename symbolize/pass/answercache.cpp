#include "symbolize/pass/answercache.h"

#include <algorithm>
#include <iterator>
#include <optional>

namespace symflame::symbolize {

AnswerCopier::AnswerCopier(const SymbolizedAddresses& from, SymbolizedAddresses& to)
    : m_from(from)
    , m_to(to)
    , m_strings(from.strings().size())
    , m_stringDone(from.strings().size(), false)
    , m_functions(from.functions().size(), UINT32_MAX)
{
}

model::StringId AnswerCopier::string(model::StringId id)
{
    if (!m_stringDone[id.value]) {
        m_strings[id.value] = m_to.intern(m_from.str(id));
        m_stringDone[id.value] = true;
    }
    return m_strings[id.value];
}

void AnswerCopier::copy(size_t i)
{
    for (const SymbolizedFrame& f : m_from.frames(i)) {
        uint32_t& mapped = m_functions[f.function];
        if (mapped == UINT32_MAX) {
            const SymbolizedFunction& fn = m_from.function(f.function);
            mapped = m_to.addFunction(
                SymbolizedFunction { string(fn.name), string(fn.systemName), string(fn.file), fn.startLine });
        }
        m_to.addFrame(mapped, f.line, f.column);
    }
    m_to.endAddress();
}

AnswerCache::AnswerCache(size_t maxAddresses)
    : m_max(maxAddresses)
{
}

std::string AnswerCache::keyOf(const LocateResult& r)
{
    if (r.status != LocateStatus::Found || r.wantedBuildId.empty() || r.unverified)
        return {};
    std::string key = r.wantedBuildId;
    key += '\n';
    key += r.binaryPath;
    key += '\n';
    key += r.dwarfPath;
    key += '\n';
    key += r.symbols ? r.symbols->path() : std::string();
    key += '\n';
    key += debugSourceName(r.source);
    return key;
}

const AnswerCache::Entry* AnswerCache::find(const std::string& key) const
{
    auto it = m_entries.find(key);
    return it == m_entries.end() ? nullptr : &it->second;
}

std::vector<uint64_t> AnswerCache::missing(const std::string& key, std::span<const uint64_t> addresses) const
{
    const Entry* e = find(key);
    if (!e)
        return std::vector<uint64_t>(addresses.begin(), addresses.end());
    std::vector<uint64_t> out;
    std::set_difference(addresses.begin(), addresses.end(), e->addresses.begin(), e->addresses.end(),
        std::back_inserter(out));
    return out;
}

SymbolizedAddresses AnswerCache::combine(const std::string& key, std::span<const uint64_t> addresses,
    std::span<const uint64_t> freshAddresses, const SymbolizedAddresses& fresh, DebugSource source,
    const std::string& engine, const std::string& engineDetail)
{
    Entry* old = nullptr;
    if (auto it = m_entries.find(key); it != m_entries.end())
        old = &it->second;

    // The answers asked for, in address order.
    SymbolizedAddresses out;
    {
        AnswerCopier fromFresh(fresh, out);
        std::optional<AnswerCopier> fromOld;
        if (old)
            fromOld.emplace(old->answers, out);
        size_t f = 0, o = 0;
        for (uint64_t a : addresses) {
            while (f < freshAddresses.size() && freshAddresses[f] < a)
                ++f;
            if (f < freshAddresses.size() && freshAddresses[f] == a) {
                fromFresh.copy(f);
                continue;
            }
            while (old && o < old->addresses.size() && old->addresses[o] < a)
                ++o;
            if (old && o < old->addresses.size() && old->addresses[o] == a)
                fromOld->copy(o);
            else
                out.endAddress(); // neither: cannot happen when freshAddresses = missing(key, addresses)
        }
    }

    // The new entry: old and fresh merged in address order.
    Entry merged;
    merged.source = source;
    merged.engine = engine;
    merged.engineDetail = engineDetail;
    {
        AnswerCopier fromFresh(fresh, merged.answers);
        std::optional<AnswerCopier> fromOld;
        if (old)
            fromOld.emplace(old->answers, merged.answers);
        size_t f = 0, o = 0;
        const size_t oldSize = old ? old->addresses.size() : 0;
        while (f < freshAddresses.size() || o < oldSize) {
            const bool takeFresh = o >= oldSize || (f < freshAddresses.size() && freshAddresses[f] < old->addresses[o]);
            if (takeFresh) {
                merged.addresses.push_back(freshAddresses[f]);
                fromFresh.copy(f++);
            } else {
                if (f < freshAddresses.size() && freshAddresses[f] == old->addresses[o])
                    ++f; // answered again: keep the old answer
                merged.addresses.push_back(old->addresses[o]);
                fromOld->copy(o++);
            }
        }
    }
    if (old) {
        m_addresses -= old->addresses.size();
        m_order.erase(std::find(m_order.begin(), m_order.end(), key));
    }
    // Make room: drop the oldest modules (a single module larger than the limit is not kept).
    while (!m_order.empty() && m_addresses + merged.addresses.size() > m_max) {
        auto it = m_entries.find(m_order.front());
        m_addresses -= it->second.addresses.size();
        m_entries.erase(it);
        m_order.erase(m_order.begin());
    }
    if (merged.addresses.size() <= m_max) {
        m_addresses += merged.addresses.size();
        m_order.push_back(key);
        m_entries[key] = std::move(merged);
    } else {
        m_entries.erase(key);
    }
    return out;
}

} // namespace symflame::symbolize
