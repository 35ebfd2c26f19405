#include "model/io/perf/perfbuildidcache.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

namespace symflame::model {

bool isHexBuildId(std::string_view id)
{
    return id.size() > 2
        && std::all_of(id.begin(), id.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

std::string perfBuildIdCacheDir(std::string_view configured)
{
    if (!configured.empty())
        return std::string(configured);
    if (const char* p = std::getenv("PERF_BUILDID_DIR"); p && *p)
        return p;
    if (const char* h = std::getenv("HOME"); h && *h)
        return (std::filesystem::path(h) / ".debug").string();
    return {};
}

std::string perfBuildIdCacheEntry(const std::string& cache, std::string_view buildId, std::string_view name)
{
    if (cache.empty() || !isHexBuildId(buildId))
        return {};
    const std::filesystem::path entry = std::filesystem::path(cache) / ".build-id" / buildId.substr(0, 2)
        / buildId.substr(2) / name;
    std::error_code ec;
    return std::filesystem::is_regular_file(entry, ec) ? entry.string() : std::string();
}

} // namespace symflame::model
