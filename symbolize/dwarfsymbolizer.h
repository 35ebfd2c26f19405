// Symbolizes addresses of one module (a binary and its debug info) with LLVM 19's DWARF reader:
// for each ELF virtual address the inline chain, innermost first, with function (demangled; the
// raw name kept as system name), file, line and column. The physical (outermost) frame is named
// from the symbol table when it covers the address, and without DWARF the symbol table alone
// names the frame: the same rules as llvm-symbolizer, whose answers the tests compare against.
//
// dwz-processed debug files (.gnu_debugaltlink): LLVM 19 reads their line tables and inline
// chains but cannot follow DW_FORM_GNU_ref_alt / DW_FORM_GNU_strp_alt (nor their DWARF 5
// equivalents DW_FORM_ref_sup4/8, DW_FORM_strp_sup) into the supplementary file, so functions
// whose DIEs dwz moved there come out nameless. We keep LLVM for everything else and resolve those
// references ourselves: a second DWARFContext over the supplementary file, and the frame's name and
// start line looked up the way LLVM's DWARFDie::findRecursively does (the DIE, then depth first
// through DW_AT_specification and DW_AT_abstract_origin), except that alt references lead into the
// supplementary file. We chose this over libdw because it keeps one engine for line tables, file
// names and inline chains, so the answers on dwz output are exactly llvm-symbolizer's answers on
// the same debug info before dwz.
//
// One DwarfSymbolizer per module and per thread: it keeps LLVM's parse caches and is not
// thread-safe; there is no global state, so instances on different threads are independent.
#pragma once

#include "model/result.h"
#include "model/stringtable.h"
#include "symbolize/elffile.h"
#include "symbolize/symboltable.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
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

/// The files of one module, as DebugInfoLocator found them.
struct ModuleFiles {
    ElfFilePtr binary; ///< sections give the address's section index; may be null
    ElfFilePtr dwarf; ///< DWARF is read from this file; null for none
    ElfFilePtr symbols; ///< its symbol table names physical frames; null for none
    SymbolTable::Kind symbolKind = SymbolTable::Kind::Static;
    /// The dwz supplementary file named by dwarf's .gnu_debugaltlink; null when there is none
    /// (or it was not found: names moved into it are then unknown).
    ElfFilePtr supplementary;
    /// A second table (.dynsym) for addresses symbols does not cover: MiniDebugInfo's .symtab
    /// leaves out the functions .dynsym already names. Null for none.
    ElfFilePtr dynamicSymbols;
};

class DwarfSymbolizer {
public:
    struct Options {
        bool demangle = true;
        size_t maxWarnings = 20; ///< LLVM warnings kept as text (all are counted)
    };

    ~DwarfSymbolizer();
    DwarfSymbolizer(const DwarfSymbolizer&) = delete;
    DwarfSymbolizer& operator=(const DwarfSymbolizer&) = delete;

    /// Opens the module: LLVM's object file and DWARF context over the mapped debug file, and
    /// the symbol table. Errors when LLVM rejects the object file or the symbol table is
    /// malformed.
    static model::Result<std::unique_ptr<DwarfSymbolizer>> create(const ModuleFiles& files, Options options);
    static model::Result<std::unique_ptr<DwarfSymbolizer>> create(const ModuleFiles& files)
    {
        return create(files, Options {});
    }

    /// Appends one entry per address (ELF virtual addresses) to out, in the given order.
    /// Sorted addresses are fastest. Stops with a Cancelled error once cancel becomes true.
    model::Status symbolize(
        std::span<const uint64_t> addresses, SymbolizedAddresses& out, const std::atomic<bool>* cancel = nullptr);

    bool hasDwarf() const;
    /// True when names are resolved through a dwz supplementary file.
    bool usesSupplementary() const;
    size_t symbolCount() const;
    /// Problems LLVM reported while reading the DWARF (malformed units, missing .dwo ...).
    size_t warningCount() const;
    const std::vector<std::string>& warnings() const;

private:
    DwarfSymbolizer();
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace symflame::symbolize
