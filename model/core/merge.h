// Merging profiles into one, as `go tool pprof a b` merges the files it is given: the same
// sample types (type and unit, in order) and period type are required; mappings, functions and
// locations that are the same in several profiles become one (a mapping of the same file at
// another address keeps the first one's, its locations' addresses moved with it); every sample
// is kept, with its labels, timestamp and link. Attributes (OTLP resources) that every profile has
// stay the result's; the others become labels of the samples of the profiles that have them. The header is combined as pprof combines it:
// the earliest start time, the durations summed, the largest period, each comment once.
#pragma once

#include "model/core/profile.h"
#include "model/core/result.h"

#include <span>

namespace symflame::model {

struct MergeOptions {
    /// The profiles are parts of one capture (a Collector file's requests), not separate runs:
    /// profiles of other sample types merge too (the result has each type once, a sample 0 for
    /// the types its profile lacks: CPU and off-CPU), and the duration is the capture's time
    /// span (from the earliest start to the latest end) instead of the sum of the durations.
    bool oneCapture = false;
    /// Each profile's stacks stay its own: appended with their locations translated, not looked
    /// up among the stacks merged before, so that a stack two profiles have is two stacks. Every
    /// sum over samples (call trees, top tables) is the same; a comparison, whose two sides
    /// are summed apart anyway, saves hashing and looking up each of BASE's stacks.
    bool stacksApart = false;
};

/// One profile of all of profiles (at least one). Errors: InvalidInput when the sample types or
/// period types differ (unless options.oneCapture), naming the first profile (from 1) that
/// differs; its index goes to *differing when given.
Result<Profile> mergeProfiles(
    std::span<const Profile> profiles, size_t* differing = nullptr, const MergeOptions& options = {});

} // namespace symflame::model
