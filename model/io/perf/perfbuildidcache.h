// perf's build-ID cache (~/.debug, or $PERF_BUILDID_DIR): where `perf record` keeps, by build ID,
// a copy of what has no file of its own to read later: the vDSO it saw ("vdso") and the kernel's
// symbol table of the moment ("kallsyms"), as perf report and perf script read them. Layout:
// <cache>/.build-id/xx/yyyy/<name>, xx the build ID's first two hex digits (the folder is a link
// into <cache>/[vdso]/<id>/ or <cache>/[kernel.kallsyms]/<id>/).
#pragma once

#include <string>
#include <string_view>

namespace symflame::model {

/// A build ID that names files in build-ID directories (.build-id/xx/yyyy, here and under
/// /usr/lib/debug): a GNU build ID, in hex. A Go build ID ("a/b/c/d") has no file there.
bool isHexBuildId(std::string_view id);

/// The cache folder: configured when not empty, else $PERF_BUILDID_DIR, else ~/.debug; empty when
/// none of these is known.
std::string perfBuildIdCacheDir(std::string_view configured = {});

/// <cache>/.build-id/xx/yyyy/<name> when that is a regular file, else empty (also for an empty
/// cache or a build ID that is not hex).
std::string perfBuildIdCacheEntry(const std::string& cache, std::string_view buildId, std::string_view name);

} // namespace symflame::model
