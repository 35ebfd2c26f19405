// The headless subcommands of symflame (info, top, collapse): Qt-free, they run without a
// display and without a QApplication. `render` lives in render.cpp because it paints with Qt.
#pragma once

#include "app/cmdline.h"
#include "model/core/profile.h"

#include <optional>
#include <string>
#include <string_view>

namespace symflame::app {

/// The usage text printed by --help.
const char* usageText();

/// True for the names of the headless commands: info, top, collapse.
bool isHeadlessCommand(std::string_view name);

/// Runs a headless command; args are the arguments after the command name. Returns the exit code.
int runHeadlessCommand(std::string_view command, int argc, char** argv);

/// Reads --profile N (which profile of a multi-profile file) into *index; false with *error set
/// for a value that is not a number.
bool parseProfileOption(const ParsedArgs& args, std::optional<size_t>* index, std::string* error);

/// Resolves --sample-type (a type name such as "cpu", or an index) against the profile; no value
/// means the profile's default. On failure prints a usage error and sets *exitCode.
std::optional<size_t> selectSampleType(
    const model::Profile& profile, const std::optional<std::string>& requested, const std::string& path, int* exitCode);

} // namespace symflame::app
