// Symbols: frames as the call tree, the filters and the tables see them (an inline chain's
// entries merged by function name, unsymbolized locations by mapping and address), each with a
// rank in name order so that sorting by name needs no string comparison.
#pragma once

#include "model/core/ids.h"
#include "model/core/profile.h"

#include <span>
#include <string>
#include <vector>

namespace symflame::model {

using SymbolId = Id<struct SymbolTag>;

/// A frame identity: one entry of a location's inline chain, merged by function name as
/// `go tool pprof -top` merges functions (JavaScript frames by function name and script, since
/// "(anonymous)" or "get" in two scripts are different functions); an unsymbolized location is
/// its own symbol, merged by mapping and address.
struct Symbol {
    StringId name;      ///< function name; empty for an unsymbolized location
    StringId file;      ///< source file of the first function seen with this name
    MappingId mapping;  ///< mapping of the first location seen
    uint64_t address = 0;
    LocationId exemplar; ///< a location where the symbol occurs
    uint32_t lineIndex = 0; ///< which entry of exemplar's inline chain
    bool symbolized = false;
};

class SymbolTable {
public:
    /// Symbols of every location of the profile. A line's function is named by Function::name
    /// (systemName when name is empty); lines without a usable name are left out of a chain
    /// that has named lines, and a location with no named line at all is one unsymbolized
    /// symbol keyed by (mapping, address).
    static SymbolTable build(const Profile& profile);

    size_t size() const { return m_symbols.size(); }
    const Symbol& symbol(SymbolId id) const { return m_symbols[id.index()]; }
    /// The symbols of a location's inline chain, innermost first (one for an unsymbolized one).
    std::span<const SymbolId> frames(LocationId loc) const
    {
        return {m_frames.data() + m_frameBegin[loc.index()], m_frames.data() + m_frameBegin[loc.index() + 1]};
    }
    /// Function name, or unsymbolizedName() for a location without one.
    const std::string& displayName(SymbolId id) const { return m_names[id.index()]; }
    /// Position of the symbol when all symbols are sorted by display name (ties by id), so
    /// that sorting by name needs no string comparison.
    uint32_t nameRank(SymbolId id) const { return m_rank[id.index()]; }
    /// The symbol at a position of that order (the inverse of nameRank).
    SymbolId symbolAtRank(uint32_t rank) const { return m_byRank[rank]; }

private:
    std::vector<Symbol> m_symbols;
    std::vector<std::string> m_names;
    std::vector<uint32_t> m_rank;
    std::vector<SymbolId> m_byRank;
    std::vector<uint32_t> m_frameBegin; // per location, into m_frames; size locations+1
    std::vector<SymbolId> m_frames;
};

} // namespace symflame::model
