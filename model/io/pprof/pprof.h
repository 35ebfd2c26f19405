// pprof (perftools.profiles.Profile) reader and writer. The reader decodes the protobuf wire
// format directly into a Profile and validates it as `go tool pprof` does; the writer emits
// protobuf that `go tool pprof` reads.
#pragma once

#include "model/io/zstd.h"
#include "model/core/profile.h"
#include "model/core/progress.h"
#include "model/core/result.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace symflame::model {

struct PprofReadOptions {
    DecompressLimits limits;
    /// Called now and then while gzip input is streamed with how many bytes at its start the
    /// reader is done with (FileContents::dropPagesBefore), from the reading thread.
    std::function<void(size_t)> inputDoneBefore;
};

/// Reads a pprof profile, gzip-compressed or raw (detected). gzip input is inflated on a second
/// thread while it is decoded, never whole (unless it has to be read again for an error or an
/// unusual layout; the result is the same). Errors carry no path; callers add it.
Result<Profile> readPprof(std::span<const uint8_t> data, const PprofReadOptions& options = {},
                          Progress* progress = nullptr);

/// Encodes the profile as uncompressed pprof protobuf. Ids are renumbered 1..n.
std::vector<uint8_t> encodePprof(const Profile& profile);

/// Writes the profile as gzip-compressed pprof to path, atomically.
Status writePprofFile(const Profile& profile, const std::string& path);

} // namespace symflame::model
