// symflame-benchsourcemap: resolves generated positions through a source map, timed; the same
// work as sourcemap-bench.js does with @jridgewell/trace-mapping.
//   symflame-benchsourcemap MAP POSITIONS
// POSITIONS: one "line column" per line (0-based). Prints the times of reading, parsing
// (decoding every segment) and resolving, and a checksum of the answers (source, line, column,
// name of each position; FNV-1a, as the JavaScript side computes it) to compare the two.
#include "symbolize/js/sourcemap.h"

#include "model/io/fileio.h"

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

using namespace symflame;

namespace {

double secondsSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

struct Fnv {
    uint32_t h = 2166136261u;
    void add(std::string_view s)
    {
        for (unsigned char c : s) {
            h ^= c;
            h *= 16777619u;
        }
        add(uint32_t(0xffffffffu));
    }
    void add(uint32_t v)
    {
        for (int i = 0; i < 4; ++i) {
            h ^= (v >> (8 * i)) & 0xff;
            h *= 16777619u;
        }
    }
};

} // namespace

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s MAP POSITIONS\n", argv[0]);
        return 64;
    }
    auto positionsText = model::readWholeFile(argv[2]);
    if (!positionsText) {
        std::fprintf(stderr, "%s: %s\n", argv[2], positionsText.error().message.c_str());
        return 2;
    }
    std::vector<std::pair<uint32_t, uint32_t>> positions;
    {
        const char* p = reinterpret_cast<const char*>(positionsText->data());
        const char* end = p + positionsText->size();
        while (p < end) {
            uint32_t line = 0, column = 0;
            while (p < end && *p >= '0' && *p <= '9')
                line = line * 10 + uint32_t(*p++ - '0');
            ++p;
            while (p < end && *p >= '0' && *p <= '9')
                column = column * 10 + uint32_t(*p++ - '0');
            while (p < end && *p != '\n')
                ++p;
            ++p;
            positions.emplace_back(line, column);
        }
    }

    const auto t0 = std::chrono::steady_clock::now();
    auto bytes = model::readWholeFile(argv[1]);
    if (!bytes) {
        std::fprintf(stderr, "%s: %s\n", argv[1], bytes.error().message.c_str());
        return 2;
    }
    const double readTime = secondsSince(t0);
    const auto t1 = std::chrono::steady_clock::now();
    auto map = symbolize::SourceMap::parse(
        std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
    if (!map) {
        std::fprintf(stderr, "%s: %s\n", argv[1], map.error().message.c_str());
        return 2;
    }
    const double parseTime = secondsSince(t1);
    const auto t2 = std::chrono::steady_clock::now();
    std::vector<std::optional<symbolize::OriginalPosition>> answers(positions.size());
    for (size_t i = 0; i < positions.size(); ++i)
        answers[i] = map->lookup(positions[i].first, positions[i].second);
    const double lookupTime = secondsSince(t2);
    // The checksum, outside the timed part.
    Fnv fnv;
    size_t mapped = 0;
    for (const auto& pos : answers) {
        if (!pos) {
            fnv.add(uint32_t(0xfffffffeu));
            continue;
        }
        ++mapped;
        fnv.add(pos->source);
        fnv.add(pos->line);
        fnv.add(pos->column);
        fnv.add(pos->name);
    }
    std::printf("symflame: %zu bytes, %zu segments; %zu positions, %zu mapped\n", bytes->size(), map->segmentCount(),
        positions.size(), mapped);
    std::printf("symflame: read %.3f s, parse %.3f s, resolve %.3f s, parse+resolve %.3f s, checksum %08x\n",
        readTime, parseTime, lookupTime, parseTime + lookupTime, fnv.h);
    return 0;
}
