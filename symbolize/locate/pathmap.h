// Paths recorded on another machine or in a container, rewritten to local ones ("FROM=TO" on
// the command line and in the settings), for binaries and for JavaScript scripts alike.
#pragma once

#include "model/core/result.h"

#include <string>
#include <string_view>

namespace symflame::symbolize {

/// A prefix rewrite for paths recorded on another machine or in a container.
struct PathMap {
    std::string from; ///< recorded prefix
    std::string to; ///< local prefix
};
/// Parses "FROM=TO" (both non-empty).
model::Result<PathMap> parsePathMap(std::string_view spec);
/// path with the first matching map applied (matching whole path components); empty if none
/// matches.
std::string applyPathMap(const PathMap& map, std::string_view path);

/// a and b joined with one '/' between them (b alone when a is empty).
std::string joinPath(const std::string& a, const std::string& b);

} // namespace symflame::symbolize
