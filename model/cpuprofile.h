// Reader of V8 `.cpuprofile` files (node --cpu-prof, Chrome DevTools): a JSON object with a
// node tree (`nodes`, each with a callFrame and children), `samples` (node ids) and
// `timeDeltas` (microseconds between samples). Each node becomes a JavaScript location with one
// line (function name, url, 1-based line and column from V8's 0-based ones); sample types are
// samples/count and wall/nanoseconds (time until the next sample); timestamps are kept (on V8's
// monotonic clock: the wall-clock start of the profile is unknown).
#pragma once

#include "model/profile.h"
#include "model/result.h"

#include <span>

namespace symflame::model {

/// True when data looks like a .cpuprofile: a JSON object whose first key is one of its fields.
bool looksLikeCpuProfile(std::span<const uint8_t> data);

Result<Profile> readCpuProfile(std::span<const uint8_t> data);

} // namespace symflame::model
