// Whether a source file found for the source view is the one a binary was built from, by the
// MD5 its DWARF 5 line tables record for it (DW_LNCT_MD5; clang writes it, gcc 12 does not).
#pragma once

#include "symbolize/locate/sourcefiles.h"

#include <cstdint>
#include <string>

namespace symflame::symbolize {

struct SourceMd5Check {
    bool recorded = false; ///< a line table of the debug file records an MD5 for the path
    bool matches = false; ///< the local file's MD5 equals it
    std::string recordedMd5, fileMd5; ///< lowercase hex
    std::string error; ///< the debug file or the local file could not be read (recorded is false)
};

/// Compares the MD5 of localPath with the one the DWARF 5 line table of debugFile's compile unit
/// at address (an ELF virtual address of the function's code: only that unit's line table is
/// read, so a big binary costs no more than a small one) records for recordedPath (a path as the
/// debug info gives it to the symbolizer: the compilation directory joined). Nothing recorded
/// (DWARF 4, gcc, another file, no unit there): recorded is false.
SourceMd5Check checkSourceMd5(
    const std::string& debugFile, uint64_t address, const std::string& recordedPath, const std::string& localPath);

/// Where the debug info and binary of a function shown with its source are (for
/// sourceChangeWarning); empty paths for what is unknown.
struct SourceBuild {
    std::string binary; ///< the binary file (its mtime is the build's time)
    std::string debugFile; ///< the file holding its DWARF (the binary, or a separate debug file)
    uint64_t address = 0; ///< an ELF virtual address in the function's code (its compile unit)
};

/// Why the source file found for a function may not be the text that was measured, or empty:
/// it is shorter than the last line the debug info names; its MD5 is not the one a DWARF 5 line
/// table records for it (that decides when recorded, whatever the file's time); or, with no MD5
/// recorded, it was modified after the binary. recordedPath is the file as the debug info names
/// it, lastLine the highest line with a cost. Source-map text (file.origin) gets the first check only.
std::string sourceChangeWarning(
    const SourceFile& file, const std::string& recordedPath, int64_t lastLine, const SourceBuild& build);

} // namespace symflame::symbolize
