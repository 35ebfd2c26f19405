// Plain C++ command-line parsing for the symflame subcommands: options with or without values
// ("--width 800", "--width=800", "-n 5", "-n5"), positionals, "--" to end options. No Qt, so
// the headless commands never touch a display.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace symflame::app {

/// Exit codes of the symflame executable.
enum ExitCode : int {
    ExitOk = 0,
    ExitFailure = 1, ///< could not run at all (no display for the GUI)
    ExitBadInput = 2, ///< unreadable or invalid input file, unwritable output
    ExitUsage = 64, ///< bad command line (as sysexits' EX_USAGE)
};

struct OptionSpec {
    std::string_view longName; ///< without the dashes: "sample-type"
    char shortName = 0; ///< 'n' for -n, 0 for none
    bool takesValue = false;
};

struct ParsedArgs {
    std::vector<std::string> positional;
    std::vector<std::pair<std::string_view, std::string>> options; ///< long name, value ("" for flags)

    bool has(std::string_view longName) const;
    /// The last value given for the option.
    std::optional<std::string> value(std::string_view longName) const;
};

/// Parses args (argv without the program and command names). On a usage error returns
/// nullopt and sets error to a one-line message ("unknown option '--foo'").
std::optional<ParsedArgs> parseArgs(std::span<char* const> args, std::span<const OptionSpec> specs, std::string* error);

/// Parses a non-negative decimal integer that fits in int64; nullopt for anything else.
std::optional<int64_t> parseCount(std::string_view text);

/// Prints "symflame: <message>; see 'symflame --help'" on stderr and returns ExitUsage.
int usageError(std::string_view message);

/// Prints "symflame: <path>: <message>" on stderr (one line) and returns ExitBadInput.
int inputError(std::string_view path, std::string_view message);

} // namespace symflame::app
