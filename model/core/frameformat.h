// How frames read as text, the same everywhere (flame graph, tables, CLI, export); values and
// paths in valueformat.h.
#pragma once

#include "model/core/profile.h"
#include "model/core/valueformat.h"

#include <string>
#include <string_view>

namespace symflame::model {

/// Name of a frame that has no function: "binary+0xoffset" (file offset in the binary,
/// address - start + offset) when the location has a mapping with a file, else "0xaddress".
std::string unsymbolizedName(const Profile& profile, const Location& location);

} // namespace symflame::model
