// A guard in front of LLVM's line table reader. LLVM 19 reads the entries of a DWARF 5 line
// table header by the forms the header declares, and its form reader has no case for a form it
// does not know: such a header (a corrupt file) makes it run into unreachable code and crash.
// DIEs are safe (LLVM skips their attributes first, and stops on an unknown form), so the line
// table header is the one place a form is checked here before LLVM reads it.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace symflame::symbolize {

/// Why the line table header at offset in .debug_line declares a form LLVM cannot read (one it
/// does not know, or DW_FORM_indirect, which defers to an unchecked form in the data), described
/// for the user; empty when every declared form is known, and also when the header is not
/// version 5 or ends early, which LLVM reports itself.
std::string lineTableFormProblem(std::span<const uint8_t> debugLine, uint64_t offset, bool littleEndian);

} // namespace symflame::symbolize
