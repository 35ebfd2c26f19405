#include "symbolize/engines/answers.h"

#include <atomic>

namespace symflame::symbolize {

uint64_t SymbolizedAddresses::Serial::next()
{
    static std::atomic<uint64_t> counter { 0 };
    return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

uint32_t SymbolizedAddresses::addFunction(const SymbolizedFunction& f)
{
    auto [it, inserted] = m_functionIndex.try_emplace(f, static_cast<uint32_t>(m_functions.size()));
    if (inserted)
        m_functions.push_back(f);
    return it->second;
}

} // namespace symflame::symbolize
