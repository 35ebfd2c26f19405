// Writing folded stacks ("root;caller;leaf value" lines, as Brendan Gregg's stackcollapse writes
// them) from the top-down call tree; io/folded.h reads them back.
#pragma once

#include "model/analysis/calltree.h"

#include <cstddef>
#include <string>

namespace symflame::model {

/// One line per distinct stack (after merging symbols), root first, frames joined by ';',
/// then a space and the summed value; stacks with value 0 are left out. Lines are sorted.
std::string collapseStacks(const Profile& profile, const SymbolTable& symbols, size_t sampleType);

} // namespace symflame::model
