#include "app/diffargs.h"

namespace symflame::app {

std::optional<model::DiffOptions> diffOptionsFrom(const ParsedArgs& args, std::string* error)
{
    model::DiffOptions options;
    options.normalize = args.has("normalize");
    if (const auto match = args.value("match")) {
        const auto parsed = model::parseDiffMatch(*match);
        if (!parsed) {
            *error = "--match is function, file or line, not '" + *match + "'";
            return std::nullopt;
        }
        options.match = *parsed;
    }
    return options;
}

} // namespace symflame::app
