// Comparing two profiles as `go tool pprof -diff_base BASE NEW` does: one profile of NEW's samples
// and BASE's samples with their values negated, so that every sum over it (a function's flat and
// cum, a stack's value, a node of a call tree) is new minus base. Frames meet by what they mean:
// the call trees and the top table group frames by function (SymbolTable), so a rebuilt binary,
// other build ID and addresses, compares with the old one by name.
#pragma once

#include "model/core/profile.h"
#include "model/core/result.h"

#include <vector>

namespace symflame::model {

struct DiffOptions {
    /// pprof's -normalize: NEW's values scaled, per sample type, so that its total is BASE's
    /// (rounded per sample as pprof rounds), before the subtraction.
    bool normalize = false;
};

struct DiffProfile {
    Profile profile; ///< NEW's samples first, then BASE's, negated
    size_t baseSampleStart = 0; ///< the first of BASE's samples in profile
    /// Per sample type, BASE's total of absolute values: what pprof's percentages of a diff are
    /// of (its computeTotal over the samples of the diff base).
    std::vector<int64_t> baseTotals;
};

/// Errors: InvalidInput when the two have other sample types or period types, as merging does
/// (naming which is BASE and which NEW).
Result<DiffProfile> diffProfiles(Profile base, Profile next, const DiffOptions& options = {});

} // namespace symflame::model
