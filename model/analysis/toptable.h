// The top-functions table, computed the way `go tool pprof -top` computes flat and cum.
#pragma once

#include "model/analysis/calltree.h"
#include "model/analysis/stackfilter.h"

#include <vector>

namespace symflame::model {

struct TopEntry {
    SymbolId symbol;
    int64_t flat = 0; ///< value of samples whose innermost frame is this symbol
    int64_t cum = 0;  ///< value of samples with this symbol anywhere in the stack, once per sample
};

/// One entry per symbol that has a non-zero flat or cum, sorted as pprof sorts -top (its
/// FlatNameOrder, checked against `go tool pprof -top`): by |flat| descending, then display
/// name ascending, then |cum| descending.
/// With a filter, flat and cum are those of the reshaped stacks.
std::vector<TopEntry> topFunctions(
    const Profile& profile, const SymbolTable& symbols, size_t sampleType, const StackFilter* filter = nullptr);

} // namespace symflame::model
