// What a binary holds for symbolization and which debug info symflame would use for it: the
// engine behind `symflame debuginfo check BIN...`, a check a CI pipeline can run before it
// strips and ships a binary. Build IDs, DWARF (versions, units, compression), symbol tables,
// MiniDebugInfo, gopclntab, debug links, and the locator's verdict with every file it tried.
#pragma once

#include "symbolize/locate/debuginfolocator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace symflame::symbolize {

struct DwarfSummary {
    bool present = false; ///< readable compile units found
    uint16_t minVersion = 0, maxVersion = 0;
    size_t units = 0;
    SectionCompression compression = SectionCompression::None;
    std::string error; ///< why the DWARF could not be read, when it exists but could not be
};

/// Reads the unit headers of file's DWARF through LLVM.
DwarfSummary summarizeDwarf(const ElfFile& file);

enum class CheckVerdict : uint8_t {
    Lines, ///< functions, files and lines (DWARF, or a Go binary's gopclntab)
    NamesOnly, ///< a symbol table or MiniDebugInfo: function names, no lines
    Nothing, ///< nothing names its functions
    Unreadable, ///< not an ELF file, or missing
};
const char* checkVerdictName(CheckVerdict v);

struct BinaryCheck {
    std::string path;
    std::string error; ///< set for Unreadable
    ElfFilePtr elf;
    LocateResult located; ///< the locator's answer for the file and its own build ID
    DwarfSummary dwarf; ///< of the file the DWARF would be read from
    /// A Go binary whose gopclntab reads: its description ("gopclntab (Go 1.18 layout, found
    /// by section), go1.19.8, 1700 functions"); empty otherwise.
    std::string goTable;
    std::string goTableError; ///< a Go binary whose gopclntab could not be read: why
    CheckVerdict verdict = CheckVerdict::Unreadable;
    std::string verdictText; ///< one line: what a profile of this binary would show
};

BinaryCheck checkBinary(const std::string& path, const DebugInfoLocator& locator);

} // namespace symflame::symbolize
