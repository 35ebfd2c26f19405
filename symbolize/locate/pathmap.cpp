#include "symbolize/locate/pathmap.h"

namespace symflame::symbolize {

using model::ErrorCode;
using model::makeError;
using model::Result;

std::string joinPath(const std::string& a, const std::string& b)
{
    if (a.empty())
        return b;
    if (a.back() == '/')
        return a + (b.starts_with('/') ? b.substr(1) : b);
    return a + (b.starts_with('/') ? b : "/" + b);
}

Result<PathMap> parsePathMap(std::string_view spec)
{
    const auto eq = spec.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == spec.size())
        return makeError(ErrorCode::Usage, "path map '" + std::string(spec) + "' is not of the form FROM=TO");
    return PathMap { std::string(spec.substr(0, eq)), std::string(spec.substr(eq + 1)) };
}

std::string applyPathMap(const PathMap& map, std::string_view path)
{
    std::string_view from = map.from;
    while (from.size() > 1 && from.back() == '/')
        from.remove_suffix(1);
    if (!path.starts_with(from))
        return {};
    const std::string_view rest = path.substr(from.size());
    if (!rest.empty() && rest[0] != '/' && from != "/")
        return {}; // "/usr/li" must not match "/usr/lib/x"
    return joinPath(map.to, std::string(rest));
}

} // namespace symflame::symbolize
