// Finding a source file the debug info names, on this machine: the recorded path rewritten by
// the path maps, the recorded path itself, then the user's source directories (the path under
// each, then ever shorter tails of it: /build/src/proj/a/b.cc is looked for as proj/a/b.cc,
// a/b.cc and b.cc), as pprof's -source_path does. Every candidate tried is reported.
#pragma once

#include "symbolize/locate/pathmap.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace symflame::symbolize {

struct SourceSearch {
    std::vector<PathMap> pathMaps;
    std::vector<std::string> sourceDirs;
    /// A larger file is not read (a generated file of gigabytes, or a wrong path to one).
    uint64_t maxBytes = uint64_t(256) << 20;
    /// Asked last, when no local candidate is readable and the binary's build ID is known: a
    /// local copy of the recorded path's file (a debuginfod server's /buildid/ID/source/PATH),
    /// or empty with *outcome saying why not. Unset: nothing is asked.
    std::function<std::string(const std::string& buildId, const std::string& recorded, std::string* outcome)> fetch;
};

struct SourceFile {
    std::string recordedPath;
    std::string path; ///< the local file read (or, with origin, the path the text is of); empty when none was found
    /// Where the text came from when it is not the file at path: "sourcesContent of MAP" for a
    /// JavaScript frame's original source embedded in its source map. Empty for a file.
    std::string origin;
    std::vector<std::string> tried; ///< "candidate: outcome", in the order tried
    std::vector<std::string> lines; ///< the text, line 1 first, without line ends
    uint64_t size = 0;
    int64_t mtime = 0; ///< seconds since the epoch
    bool fetched = false; ///< the file came from SourceSearch::fetch (a debuginfod server)

    bool found() const { return !path.empty(); }
    /// What the text was read from: origin, else path.
    const std::string& from() const { return origin.empty() ? path : origin; }
    /// Line n (1-based), or nullptr beyond the file.
    const std::string* line(int64_t n) const
    {
        return n >= 1 && uint64_t(n) <= lines.size() ? &lines[size_t(n - 1)] : nullptr;
    }
};

/// text as lines, without their ends ("\n" or "\r\n"); no empty last line after a final newline.
std::vector<std::string> splitSourceLines(std::string_view text);

/// The candidates for recorded, in the order they are tried (without duplicates).
std::vector<std::string> sourceCandidates(const std::string& recorded, const SourceSearch& search);

/// Reads the first candidate that is a readable regular file (at most search.maxBytes), else
/// what search.fetch gives for the binary's build ID (when both are there).
SourceFile findSourceFile(const std::string& recorded, const SourceSearch& search, const std::string& buildId = {});

} // namespace symflame::symbolize
