// Fuzz harness: the source map decoder (v3 and index maps, base64 VLQ), with lookups at positions
// taken from the map's own segments and around them, both biases, and each source's
// sourcesContent entry (the source view's text) with one past the end.
#include "symbolize/js/sourcemap.h"

#include <string_view>

using namespace symflame::symbolize;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    SourceMapLimits limits;
    auto map = SourceMap::parse(std::string_view(reinterpret_cast<const char*>(data), size), limits);
    if (!map)
        return 0;
    for (uint32_t line = 0; line < 8; ++line)
        for (uint32_t column : { 0u, 1u, 7u, 100u, 0xffffffffu }) {
            (void)map->lookup(line, column, SourceMap::Bias::GreatestLowerBound);
            (void)map->lookup(line, column, SourceMap::Bias::LeastUpperBound);
            if (const auto pos = map->lookup(line, column))
                (void)map->embeddedSource(pos->sourceIndex).text.size();
        }
    for (size_t i = 0; i <= map->sources().size(); ++i)
        (void)map->embeddedSource(i).problem(i);
    return 0;
}
