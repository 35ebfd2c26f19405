// Source maps applied to a model::Profile: for each JavaScript script its frames name (by url),
// the map is found — the `//# sourceMappingURL=` (or `//@`) comment at the end of the script,
// as a relative path or a data: URI; `<script>.map` beside it; `<name>.map` in each user
// source-map directory — with path maps applied to the recorded path first. A map URL that
// points outside the script's directory and the user directories is refused. Mapped frames get
// the original function, source file, line and column and the status SourceMapped; the
// generated function and position are kept in the new function's systemName
// ("name url:line:column"), which pprof keeps too. Frames of a script without a usable map get
// NoSourceMap. One report line per script, with every path tried.
#pragma once

#include "model/core/profile.h"
#include "model/core/result.h"
#include "symbolize/locate/pathmap.h"
#include "symbolize/locate/sourcefiles.h"
#include "symbolize/js/sourcemap.h"

#include <memory>
#include <string>
#include <vector>

namespace symflame::symbolize {

struct SourceMapOptions {
    std::vector<std::string> sourceMapDirs; ///< searched for <script name>.map; allowed for URLs
    std::vector<PathMap> pathMaps; ///< applied to the script paths recorded in the profile
    SourceMapLimits limits;
};

/// An original source that frames of a script were mapped to.
struct MappedSource {
    std::string path; ///< as the frames' function names it (relative sources resolved from the map)
    std::shared_ptr<const std::string> text; ///< the map's `sourcesContent` for it; null when absent
    std::string problem; ///< why there is no text ("sourcesContent[2] is null")
};

struct ScriptReport {
    std::string script; ///< url as recorded
    bool mapped = false; ///< a map was found, read and used
    std::string mapPath; ///< the map used ("data: URI in <script>" for an inline one)
    std::string reason; ///< why there is no map (when !mapped)
    std::vector<std::string> tried; ///< every candidate, with its outcome
    uint64_t locations = 0;
    uint64_t resolved = 0; ///< locations with every line mapped
    std::vector<MappedSource> sources; ///< the sources frames were mapped to, in order of first use

    /// "url  source-mapped  map  resolved/total" or "url  no source map: reason (tried ...)".
    std::string line() const;
};

struct SourceMapReport {
    std::vector<ScriptReport> scripts; ///< in order of first appearance
    uint64_t locations = 0; ///< JavaScript locations with a script
    uint64_t resolved = 0;
    /// Per location of the profile: index into scripts, or kNoScript.
    std::vector<uint32_t> scriptOfLocation;
    static constexpr uint32_t kNoScript = 0xffffffffu;

    /// The report of the script a location belongs to, or null.
    const ScriptReport* scriptOf(size_t location) const
    {
        return location < scriptOfLocation.size() && scriptOfLocation[location] != kNoScript
            ? &scripts[scriptOfLocation[location]]
            : nullptr;
    }
};

/// The text of an original source file a source-mapped frame names (a function's file): the
/// `sourcesContent` of the map that mapped it when the map has the text (the map of script
/// first, when given, then any other script's), else the file on disk found as a native
/// source file is (the path, the path maps, the source directories); a `file://` url is looked
/// for as its path. The result's origin says "sourcesContent of MAP" for embedded text; tried
/// lists every map and path tried, with why each did not give the text.
SourceFile findOriginalSource(const std::string& file, const SourceMapReport& maps, const SourceSearch& search,
    const ScriptReport* script = nullptr);

/// The local path of a script url (file:// URLs decoded, absolute paths as they are); empty
/// for anything else (node:internal/..., http://..., "").
std::string scriptPathOfUrl(std::string_view url);

/// Whether a location is a JavaScript frame the pass looks at: kind JavaScript, a line whose
/// function names a local script, not already source-mapped.
bool isMappableJavaScriptFrame(const model::Profile& profile, const model::Location& location);

/// Rewrites the profile's JavaScript frames whose script has a source map. Frames already
/// source-mapped are left alone (a second run never maps a position twice); frames with no map
/// are tried again. A frame without a column (pprof from @datadog/pprof records only the line)
/// is looked up at the first segment of its line.
SourceMapReport applySourceMaps(model::Profile& profile, const SourceMapOptions& options);

} // namespace symflame::symbolize
