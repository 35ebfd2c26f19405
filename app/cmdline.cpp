// Command-line parsing and the one-line error reports shared by all subcommands.
#include "app/cmdline.h"

#include <charconv>
#include <cstdio>

namespace symflame::app {

bool ParsedArgs::has(std::string_view longName) const
{
    for (const auto& [name, v] : options)
        if (name == longName)
            return true;
    return false;
}

std::optional<std::string> ParsedArgs::value(std::string_view longName) const
{
    std::optional<std::string> result;
    for (const auto& [name, v] : options)
        if (name == longName)
            result = v;
    return result;
}

std::optional<ParsedArgs> parseArgs(std::span<char* const> args, std::span<const OptionSpec> specs, std::string* error)
{
    ParsedArgs out;
    bool optionsEnded = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string_view arg = args[i];
        if (optionsEnded || arg.size() < 2 || arg[0] != '-') {
            out.positional.emplace_back(arg);
            continue;
        }
        if (arg == "--") {
            optionsEnded = true;
            continue;
        }
        const OptionSpec* spec = nullptr;
        std::optional<std::string> inlineValue;
        std::string shown; // how the option reads in messages
        if (arg.starts_with("--")) {
            std::string_view name = arg.substr(2);
            if (const auto eq = name.find('='); eq != std::string_view::npos) {
                inlineValue = std::string(name.substr(eq + 1));
                name = name.substr(0, eq);
            }
            for (const auto& s : specs)
                if (s.longName == name)
                    spec = &s;
            shown = "--" + std::string(name);
        } else {
            for (const auto& s : specs)
                if (s.shortName != 0 && s.shortName == arg[1])
                    spec = &s;
            shown = std::string(arg.substr(0, 2));
            if (spec && arg.size() > 2) {
                if (!spec->takesValue) {
                    spec = nullptr; // "-jx" style bundles are not supported
                    shown = std::string(arg);
                } else {
                    inlineValue = std::string(arg.substr(arg[2] == '=' ? 3 : 2));
                }
            }
        }
        if (!spec) {
            *error = "unknown option '" + (arg.starts_with("--") ? shown : std::string(arg)) + "'";
            return std::nullopt;
        }
        if (!spec->takesValue) {
            if (inlineValue) {
                *error = "option '" + shown + "' takes no value";
                return std::nullopt;
            }
            out.options.emplace_back(spec->longName, std::string());
            continue;
        }
        if (!inlineValue) {
            if (i + 1 >= args.size()) {
                *error = "option '" + shown + "' needs a value";
                return std::nullopt;
            }
            inlineValue = std::string(args[++i]);
        }
        out.options.emplace_back(spec->longName, std::move(*inlineValue));
    }
    return out;
}

std::optional<int64_t> parseCount(std::string_view text)
{
    if (text.empty())
        return std::nullopt;
    int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || v < 0)
        return std::nullopt;
    return v;
}

// Messages are printed as one line even when a lower layer put a newline in them.
static std::string oneLine(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        if (c == '\n' || c == '\r')
            c = ' ';
    return out;
}

int usageError(std::string_view message)
{
    std::fprintf(stderr, "symflame: %s; see 'symflame --help'\n", oneLine(message).c_str());
    return ExitUsage;
}

int inputError(std::string_view path, std::string_view message)
{
    std::fprintf(stderr, "symflame: %s: %s\n", oneLine(path).c_str(), oneLine(message).c_str());
    return ExitBadInput;
}

} // namespace symflame::app
