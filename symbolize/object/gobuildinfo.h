// What a Go binary says about its build: the Go version and main package path from its
// .go.buildinfo data (both encodings: pointers to Go strings before Go 1.18, inline
// varint-prefixed strings since), and the Go build ID from its .note.go.buildid note (read by
// ElfFile). Bounds-checked: malformed data gives an error, never a crash.
#pragma once

#include "model/core/result.h"
#include "symbolize/object/elffile.h"

#include <string>

namespace symflame::symbolize {

struct GoBuildInfo {
    std::string goVersion; ///< "go1.19.8"
    std::string mainPath; ///< the main package's import path ("command-line-arguments", ...); may be empty
    std::string buildId; ///< the Go build ID ("actionID/contentID"); empty when the note is missing
};

/// Reads the build information of a Go binary. Errors (NotFound) when the file has no
/// .go.buildinfo data, InvalidInput/Truncated when it is malformed.
model::Result<GoBuildInfo> readGoBuildInfo(const ElfFile& elf);

} // namespace symflame::symbolize
