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
// One DwarfEngine per module and per thread: it keeps LLVM's parse caches and is not
// thread-safe; there is no global state, so instances on different threads are independent.
#pragma once

#include "model/core/progress.h"
#include "model/core/result.h"
#include "symbolize/engines/answers.h"
#include "symbolize/object/elffile.h"
#include "symbolize/object/symboltable.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace symflame::symbolize {

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

class DwarfEngine {
public:
    struct Options {
        bool demangle = true;
        bool namePltStubs = false; ///< EngineOptions::namePltStubs
        size_t maxWarnings = 20; ///< LLVM warnings kept as text (all are counted)
        /// False: the DWARF (and its supplementary file) is checked as for reading (relocations,
        /// a missing dwz file: warnings) but not opened; frames are named from the symbol
        /// tables alone (EngineOptions::symbolTablesOnly).
        bool readDwarf = true;
    };

    ~DwarfEngine();
    DwarfEngine(const DwarfEngine&) = delete;
    DwarfEngine& operator=(const DwarfEngine&) = delete;

    /// Opens the module: LLVM's object file and DWARF context over the mapped debug file, and
    /// the symbol table. Errors when LLVM rejects the object file or the symbol table is
    /// malformed.
    static model::Result<std::unique_ptr<DwarfEngine>> create(const ModuleFiles& files, Options options);
    static model::Result<std::unique_ptr<DwarfEngine>> create(const ModuleFiles& files)
    {
        return create(files, Options {});
    }

    /// Appends one entry per address (ELF virtual addresses) to out, in the given order.
    /// Sorted addresses are fastest. Stops with a Cancelled error once progress->isCancelled().
    model::Status symbolize(
        std::span<const uint64_t> addresses, SymbolizedAddresses& out, model::Progress* progress = nullptr);

    bool hasDwarf() const;
    /// True when names are resolved through a dwz supplementary file.
    bool usesSupplementary() const;
    size_t symbolCount() const;
    /// Problems LLVM reported while reading the DWARF (malformed units, missing .dwo ...).
    size_t warningCount() const;
    const std::vector<std::string>& warnings() const;

private:
    DwarfEngine();
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace symflame::symbolize
