// The symbolization pass over a model::Profile: locations grouped by binary (path + build ID),
// mappings that can't be symbolized marked not applicable, each binary located with its debug
// info, addresses normalized, deduplicated and sorted, looked up on worker threads (one
// DwarfSymbolizer per thread), and the answers written back on the calling thread: new
// functions appended, strings interned, each location re-pointed at newly appended lines, the
// mapping's has_* flags and the frame statuses set. Reports one line per mapping. Then the
// JavaScript frames are resolved through their scripts' source maps (sourcemapresolver.h),
// with the same path maps; one report line per script.
#pragma once

#include "model/profile.h"
#include "model/progress.h"
#include "model/result.h"
#include "symbolize/answercache.h"
#include "symbolize/debuginfodclient.h"
#include "symbolize/debuginfolocator.h"
#include "symbolize/sourcemapresolver.h"

#include <string>
#include <vector>

namespace symflame::symbolize {

struct SymbolizeOptions {
    LocatorOptions locator;
    /// Servers asked, after the local sources, for a binary that is not found locally (its
    /// executable) or has no DWARF (its debuginfo); binaries with the most samples first.
    /// Disabled unless servers are given and offline is false.
    DebuginfodOptions debuginfod;
    /// A property of the producer, set by the importer, never guessed per frame: true when
    /// non-leaf frames carry return addresses (the instruction after the call), so that
    /// address - 1 is looked up to land inside the call. False for Go's runtime/pprof (it writes
    /// call-site PCs), for gperftools profiles converted by pprof and for Parca Agent (both
    /// already subtract 1). A location used both as a leaf and as a non-leaf frame is split: the
    /// non-leaf uses get a copy of the location, looked up at address - 1.
    bool nonLeafAddressesAreReturnAddresses = false;
    /// Also redo locations that already have lines (default: leave them as they are).
    bool resymbolize = false;
    bool demangle = true;
    /// Worker threads; 0 = one per hardware thread. Binaries are spread over them.
    unsigned threads = 0;
    /// Directories searched for <script name>.map, and where a sourceMappingURL may point
    /// besides the script's own directory. The path maps are locator.pathMaps.
    std::vector<std::string> sourceMapDirs;
    SourceMapLimits sourceMapLimits;
};

struct MappingReport {
    model::MappingId mapping;
    std::string path; ///< as recorded
    std::string buildId; ///< as recorded
    LocateStatus status = LocateStatus::NotFound;
    DebugSource source = DebugSource::None;
    bool unverified = false;
    std::string binaryPath; ///< local file used
    std::string debugPath; ///< file the DWARF came from (empty for none)
    std::string summary; ///< LocateResult::summary(), or why the module could not be read
    std::string error; ///< set when the binary was found but could not be used
    std::vector<std::string> tried;
    /// What the debuginfod servers answered, when they were asked ("executable from URL",
    /// "debuginfo: debuginfod: timeout (...)"); empty when no server was asked.
    std::string debuginfod;
    uint64_t locations = 0; ///< locations of the mapping
    uint64_t resolved = 0; ///< of those, with a function after the pass
    size_t dwarfWarnings = 0;
    std::vector<std::string> warnings; ///< first LLVM warnings, if any

    /// "path  build-id  status  source  resolved/total" on one line.
    std::string line() const;
};

struct SymbolizeReport {
    std::vector<MappingReport> mappings; ///< one per mapping of the profile, in mapping order
    uint64_t locations = 0;
    uint64_t resolved = 0;
    uint64_t addressesLookedUp = 0; ///< distinct (binary, address) pairs
    uint64_t locationsSplit = 0; ///< locations copied for non-leaf return-address lookups
    uint64_t downloads = 0; ///< files asked of debuginfod servers
    uint64_t addressesFromCache = 0; ///< of addressesLookedUp, answered by an earlier run
    SourceMapReport sourceMaps; ///< the JavaScript frames: one entry per script
};

class Symbolizer {
public:
    explicit Symbolizer(SymbolizeOptions options);

    /// Symbolizes profile in place. Answers are kept for the next run of this Symbolizer (by
    /// build ID, debug files and address), which looks up only addresses it has not seen. Progress counts locations; cancelling stops the workers
    /// and returns a Cancelled error, leaving the binaries finished before that symbolized
    /// (the profile stays consistent).
    model::Result<SymbolizeReport> run(model::Profile& profile, model::Progress* progress = nullptr);

    const DebugInfoLocator& locator() const { return m_locator; }

private:
    SymbolizeOptions m_options;
    DebugInfoLocator m_locator;
    bool m_indexed = false;
    AnswerCache m_cache; ///< answers of earlier runs, by module and address
};

/// Convenience: Symbolizer(options).run(profile, progress).
model::Result<SymbolizeReport> symbolizeProfile(
    model::Profile& profile, const SymbolizeOptions& options, model::Progress* progress = nullptr);

} // namespace symflame::symbolize
