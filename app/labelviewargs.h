// Command-line options that choose and group samples by their labels and times (top, collapse,
// render, symbolize): --group-by, --group-leaf, --tag-focus, --tag-ignore, --time-range.
#pragma once

#include "app/cmdline.h"
#include "model/analysis/labelview.h"

#include <optional>
#include <string>

namespace symflame::app {

/// The option specs, to append to a command's own.
inline constexpr OptionSpec kLabelViewOptionSpecs[] = {
    { "group-by", 0, true },
    { "group-leaf", 0, true },
    { "tag-focus", 0, true },
    { "tag-ignore", 0, true },
    { "time-range", 0, true },
};

/// The view the options ask for on profile (--time-range offsets count from its start; --group-by
/// none: no grouping); nullopt with *error set for a bad value.
std::optional<model::LabelView> labelViewFrom(const ParsedArgs& args, const model::Profile& profile, std::string* error);

/// Applies the options to profile in place; false (the message printed, *exitCode set) when an
/// option is bad. With none of the options the profile is left as it is.
bool applyLabelViewOptions(const ParsedArgs& args, model::Profile& profile, int* exitCode);

} // namespace symflame::app
