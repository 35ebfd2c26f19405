// Folded stacks ("root;caller;leaf value" lines, as Brendan Gregg's stackcollapse writes them).
#pragma once

#include "model/calltree.h"
#include "model/result.h"

#include <cstdint>
#include <span>
#include <string>

namespace symflame::model {

/// One line per distinct stack (after merging symbols), root first, frames joined by ';',
/// then a space and the summed value; stacks with value 0 are left out. Lines are sorted.
std::string collapseStacks(const Profile& profile, const SymbolTable& symbols, size_t sampleType);

/// Reads folded stacks into a profile with one sample type ("samples", "count"). Each frame
/// becomes a function; a malformed line is an error naming its line number. The value is
/// what follows the last space (or tab), so frames may contain spaces; trailing whitespace
/// and blank lines are ignored.
Result<Profile> readFolded(std::span<const uint8_t> data);

} // namespace symflame::model
