// Reading folded stacks ("root;caller;leaf value" lines, as Brendan Gregg's stackcollapse writes
// them); analysis/collapse.h writes them.
#pragma once

#include "model/core/profile.h"
#include "model/core/result.h"

#include <cstdint>
#include <span>
#include <string>

namespace symflame::model {

/// Reads folded stacks into a profile with one sample type ("samples", "count"). Each frame
/// becomes a function; a malformed line is an error naming its line number. The value is
/// what follows the last space (or tab), so frames may contain spaces; trailing whitespace
/// and blank lines are ignored.
Result<Profile> readFolded(std::span<const uint8_t> data);

} // namespace symflame::model
