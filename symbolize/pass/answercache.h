// Answers already looked up, kept by module and address, so that a SymbolizationPass that runs again
// (the next profile of the same binaries, a second pass after more debug info arrived) looks up
// only addresses it has not answered before. A module is identified by its build ID together
// with the files its answers came from: adding a debug directory that yields another debug file
// gives another key, so a stale answer is never reused. Modules without a build ID are not
// cached (a path alone does not say the file is the same).
#pragma once

#include "symbolize/locate/debuginfolocator.h"
#include "symbolize/engines/answers.h"

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace symflame::symbolize {

/// Copies entries of one SymbolizedAddresses into another, interning each string and function
/// of the source once.
class AnswerCopier {
public:
    AnswerCopier(const SymbolizedAddresses& from, SymbolizedAddresses& to);
    /// Appends entry i of from to to (ending the address).
    void copy(size_t i);

private:
    model::StringId string(model::StringId id);
    const SymbolizedAddresses& m_from;
    SymbolizedAddresses& m_to;
    std::vector<model::StringId> m_strings;
    std::vector<bool> m_stringDone;
    std::vector<uint32_t> m_functions;
};

class AnswerCache {
public:
    /// Holds at most about maxAddresses answers; when a store would exceed it, older modules go.
    explicit AnswerCache(size_t maxAddresses = 4'000'000);

    /// The cache key of a located module; empty when it is not cacheable.
    static std::string keyOf(const LocateResult& located);

    struct Entry {
        std::vector<uint64_t> addresses; ///< sorted, unique
        SymbolizedAddresses answers; ///< parallel to addresses
        DebugSource source = DebugSource::None;
        std::string engine;
        std::string engineDetail; ///< SymbolizerEngine::description()
    };
    /// The entry of key, or null.
    const Entry* find(const std::string& key) const;

    /// Of addresses (sorted, unique), those the entry of key does not answer.
    std::vector<uint64_t> missing(const std::string& key, std::span<const uint64_t> addresses) const;

    /// The answers for all of addresses, in order: the cached ones from the entry of key, the rest
    /// from fresh (parallel to freshAddresses, a sorted subset of addresses). Stores the fresh
    /// answers in the entry.
    SymbolizedAddresses combine(const std::string& key, std::span<const uint64_t> addresses,
        std::span<const uint64_t> freshAddresses, const SymbolizedAddresses& fresh, DebugSource source,
        const std::string& engine, const std::string& engineDetail = {});

    size_t addressCount() const { return m_addresses; }

private:
    size_t m_max;
    size_t m_addresses = 0;
    std::unordered_map<std::string, Entry> m_entries;
    std::vector<std::string> m_order; // keys, oldest first
};

} // namespace symflame::symbolize
