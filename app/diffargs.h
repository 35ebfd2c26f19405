// Command-line options of a comparison (top --diff-base, diff top|collapse|render, render
// --diff-base): --normalize and --match function|file|line.
#pragma once

#include "app/cmdline.h"
#include "model/analysis/diff.h"

#include <optional>
#include <string>

namespace symflame::app {

/// The options given; nullopt with *error when one is wrong.
std::optional<model::DiffOptions> diffOptionsFrom(const ParsedArgs& args, std::string* error);

} // namespace symflame::app
