// Reader of V8 `.cpuprofile` files (node --cpu-prof, Chrome DevTools): a JSON object with a
// node tree (`nodes`, each with a callFrame and children), `samples` (node ids) and
// `timeDeltas` (microseconds between samples). Each node becomes a JavaScript location with one
// line (function name, url, 1-based line and column from V8's 0-based ones); sample types are
// samples/count and wall/nanoseconds (time until the next sample); timestamps are kept (on V8's
// monotonic clock: the wall-clock start of the profile is unknown).
#pragma once

#include "model/core/profile.h"
#include "model/core/result.h"

#include <cstddef>
#include <span>

namespace symflame::model {

/// True when data looks like a .cpuprofile: a JSON object whose first key is one of its fields.
bool looksLikeCpuProfile(std::span<const uint8_t> data);

struct CpuProfileLimits {
    /// Frames summed over the distinct stacks built from the node tree. Each sampled node's stack
    /// is its whole path to the root, so a chain of N nodes sampled at every depth makes N²/2
    /// frames from a file of O(N) bytes (20,000 nodes, 3.5 MB of JSON: 200 M frames, 800 MB).
    /// The default (64 M frames, 256 MB of location ids) is far above what a sampled program
    /// makes (tens of thousands of sampled nodes, tens of frames deep); past it: TooLarge.
    size_t maxStackFrames = size_t(1) << 26;
};

/// Reads a .cpuprofile. Errors: InvalidInput ("cpuprofile: ..." saying what is wrong), TooLarge
/// past limits.
Result<Profile> readCpuProfile(std::span<const uint8_t> data, const CpuProfileLimits& limits = {});

} // namespace symflame::model
