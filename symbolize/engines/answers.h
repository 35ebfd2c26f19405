// What every engine answers for a list of addresses: each address's inline chain, innermost
// first, with functions and strings interned locally so that merging the answers into a profile
// interns each distinct string once.
#pragma once

#include "model/core/stringtable.h"

#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace symflame::symbolize {

/// A function as the symbolizer names it; strings are ids in SymbolizedAddresses::strings.
struct SymbolizedFunction {
    model::StringId name; ///< demangled ("" unknown)
    model::StringId systemName; ///< raw linkage name
    model::StringId file; ///< source file of the frame's line (absolute when DWARF says so)
    uint32_t startLine = 0; ///< DW_AT_decl_line, 0 unknown

    bool operator==(const SymbolizedFunction&) const = default;
};

struct SymbolizedFrame {
    uint32_t function = 0; ///< index into SymbolizedAddresses::functions()
    uint32_t line = 0; ///< 1-based, 0 unknown
    uint32_t column = 0; ///< 1-based, 0 unknown
};

/// The answers for a list of addresses, with strings and functions interned locally so that
/// merging them into a profile interns each distinct string once.
class SymbolizedAddresses {
public:
    /// A number no other SymbolizedAddresses object of the process has (a copy or a moved-to
    /// object gets its own): symbolizers key the ids they cache by it, not by address, since a
    /// new object can take the place of a destroyed one.
    uint64_t serial() const { return m_serial.value; }
    size_t size() const { return m_begin.size() - 1; }
    /// Frames of address i, innermost first; never empty (an unknown address has one frame
    /// whose function has an empty name).
    std::span<const SymbolizedFrame> frames(size_t i) const
    {
        return { m_frames.data() + m_begin[i], m_frames.data() + m_begin[i + 1] };
    }
    const SymbolizedFunction& function(uint32_t i) const { return m_functions[i]; }
    const std::vector<SymbolizedFunction>& functions() const { return m_functions; }
    const model::StringTable& strings() const { return m_strings; }
    std::string_view str(model::StringId id) const { return m_strings.get(id); }

    // --- building
    model::StringId intern(std::string_view s) { return m_strings.intern(s); }
    uint32_t addFunction(const SymbolizedFunction& f);
    void addFrame(uint32_t function, uint32_t line, uint32_t column) { m_frames.push_back({ function, line, column }); }
    /// Ends the frames of the current address.
    void endAddress() { m_begin.push_back(static_cast<uint32_t>(m_frames.size())); }
    size_t frameCount() const { return m_frames.size(); }

private:
    struct FunctionHash {
        size_t operator()(const SymbolizedFunction& f) const noexcept
        {
            uint64_t h = f.name.value;
            h = h * 0x9e3779b97f4a7c15ull ^ f.systemName.value;
            h = h * 0x9e3779b97f4a7c15ull ^ f.file.value;
            h = h * 0x9e3779b97f4a7c15ull ^ f.startLine;
            return static_cast<size_t>(h ^ (h >> 32));
        }
    };
    struct Serial {
        uint64_t value = next();
        Serial() = default;
        Serial(const Serial&) { }
        Serial& operator=(const Serial&)
        {
            value = next();
            return *this;
        }
        static uint64_t next();
    };
    Serial m_serial;
    model::StringTable m_strings;
    std::vector<SymbolizedFunction> m_functions;
    std::unordered_map<SymbolizedFunction, uint32_t, FunctionHash> m_functionIndex;
    std::vector<SymbolizedFrame> m_frames;
    std::vector<uint32_t> m_begin { 0 };
};

} // namespace symflame::symbolize
