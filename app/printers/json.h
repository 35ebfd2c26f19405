// JSON for the commands' machine-readable output: result values are built as nlohmann-json
// values (keys in the order they are added) and written compactly, one document per call.
#pragma once

#include "app/output.h"

#include <nlohmann/json.hpp>

namespace symflame::app {

/// A JSON value whose object keys keep the order they were added in (the order users and tests
/// read them in).
using Json = nlohmann::ordered_json;

/// Appends value as compact JSON (no spaces, no newline). Strings are written as UTF-8; a string
/// that is not valid UTF-8 (names in a profile or a binary are bytes) gets U+FFFD for each
/// invalid sequence instead of failing.
void writeJson(Output& out, const Json& value);

/// A JSON array of strings.
Json jsonArray(const std::vector<std::string>& items);

} // namespace symflame::app
