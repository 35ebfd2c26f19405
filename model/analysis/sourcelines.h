// Cost per source line of the functions a pattern names: what `symflame source` prints and the
// source view shows, counted as `go tool pprof -list` counts. Every entry of a location's inline
// chain is a frame at a (function, file, line): the leaf frame of a sample (the innermost entry
// of its first location) gets the sample's value as flat; every distinct frame of the sample's
// stack gets it once as cum. So an inlined callee's cost is on its own lines (flat and cum,
// under the callee) and at the call site in the caller (cum).
#pragma once

#include "model/core/profile.h"
#include "model/core/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace symflame::model {

struct LineCost {
    int64_t line = 0;
    int64_t flat = 0;
    int64_t cum = 0;
};

/// One function in one source file (a function whose frames name several files, as an inlined
/// header function's do, has one entry per file).
struct FunctionLines {
    std::string name; ///< Function::name, else systemName
    std::string file; ///< as the debug info gives it
    int64_t startLine = 0; ///< the smallest non-zero start line of the function's entries; 0 = unknown
    /// The binary of the first location where the function was seen (its mapping's file and
    /// build ID): where its debug info, and a debuginfod server's copy of its source, come from.
    std::string binary, buildId;
    /// That first location: a JavaScript frame's script (and so its source map) is known by it.
    LocationId location;
    /// Sums over the lines, as pprof's ROUTINE header gives them (cum counts a sample once per
    /// line it touches, so the cum sum can exceed the function's own cum).
    int64_t flatSum = 0, cumSum = 0;
    /// The function's own flat and cum: each sample counted once.
    int64_t flat = 0, cum = 0;
    std::vector<LineCost> lines; ///< lines with a cost, by line number
};

struct SourceLinesResult {
    int64_t total = 0; ///< the sample type's total over the profile
    std::vector<FunctionLines> functions; ///< by name, then file
    size_t framesWithoutFile = 0; ///< matching frames with no file (counted, not listed)
};

/// One row of a function's listing (`symflame source`, the source view).
struct ListedLine {
    int64_t line = 0;
    int64_t flat = 0, cum = 0;
    bool inFile = false; ///< the file has the line (else: no file, or a line past its end)
};

/// The rows a listing of f shows, as pprof's -list: with the source file (fileLines lines), its
/// lines from f's start line (else 5 before its first line with a cost) to 5 after its last,
/// then any line with a cost past the file's end (a changed file); without the file
/// (fileFound false), the lines with a cost. Costs are f's.
std::vector<ListedLine> listedLines(const FunctionLines& f, bool fileFound, size_t fileLines);

/// The per-line costs of every function whose name the pattern (RE2 syntax, unanchored, as
/// pprof's -list takes it) matches, for the sample type. An invalid pattern is an error.
Result<SourceLinesResult> sourceLines(const Profile& profile, size_t sampleType, std::string_view pattern);

} // namespace symflame::model
