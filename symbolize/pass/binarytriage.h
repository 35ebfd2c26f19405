// One row per binary of a profile for the missing-debuginfo triage (the viewer's binaries panel,
// and `symflame info`): the binary's name, path and build ID, its share of the samples (self:
// leaf frames in it; total: samples with any frame in it), locations symbolized / total, and
// its status with the reason — from the last symbolization report when there is one. Rows with
// problems come first, hottest first.
#pragma once

#include "model/core/profile.h"
#include "symbolize/pass/symbolizationpass.h"

#include <cstdint>
#include <string>
#include <vector>

namespace symflame::symbolize {

enum class BinaryState : uint8_t {
    Symbolized, ///< debug info read (or named by the producer): every address inside a function has one
    NamesOnly, ///< functions from a symbol table, no lines
    NotFound, ///< the binary was not found (paths searched are in tried)
    BuildIdMismatch, ///< a file was found, with another build ID
    NoDebugInfo, ///< found, but no DWARF, no symbol table, no gopclntab
    NoBuildId, ///< the profile gives no build ID and the file could not be used
    Unreadable, ///< the file found is not a readable ELF file, or its debug info is broken
    NotApplicable, ///< kernel, [vdso], JIT, interpreted: nothing to look up
    NotSymbolized, ///< not attempted yet
};
const char* binaryStateName(BinaryState s);
/// Whether the state is one the user can fix (the "only problems" filter).
bool isProblem(BinaryState s);

struct BinaryRow {
    std::vector<model::MappingId> mappings; ///< the profile's mappings of this binary
    std::string name; ///< base name ("libc.so.6"), or "(anonymous)"
    std::string path; ///< as recorded
    std::string buildId; ///< as recorded
    std::string htlHash; ///< OTLP's file hash, as recorded (identifies the binary when there is no build ID)
    BinaryState state = BinaryState::NotSymbolized;
    std::string detail; ///< one line: where the debug info came from, or why there is none
    std::vector<std::string> tried; ///< files looked at, with their outcome
    DebugSource source = DebugSource::None;
    std::string debugPath; ///< file the DWARF came from
    std::string debuginfod; ///< what the servers answered (also at the end of detail, in brackets)
    std::string mismatchPath, mismatchBuildId; ///< for BuildIdMismatch (from the report's text)
    int64_t self = 0; ///< value of samples whose leaf frame is in this binary
    int64_t total = 0; ///< value of samples with any frame in this binary
    uint64_t locations = 0;
    uint64_t symbolized = 0;
    bool withLines = false; ///< some location has a line number
};

/// Rows for profile, in triage order (problems first, then by total value). report is the last
/// symbolization pass over this profile, or null. sampleType picks the value.
std::vector<BinaryRow> triageBinaries(
    const model::Profile& profile, const SymbolizeReport* report, size_t sampleType);

/// The `parca-debuginfo upload` line that uploads this binary's debuginfo by build ID, as CI
/// pipelines run it (the store address and token left for the user to fill in).
std::string uploadCommand(const BinaryRow& row);

} // namespace symflame::symbolize
