// Shared by the perf.data tests (tst_perfdata, tst_perfdwarf): little-endian builders for
// synthesized files, a sample's numeric label, and the kernel's build ID read and replaced.
#pragma once

#include "model/core/profile.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace symflame::testing {

/// Appends the n low bytes of v, little-endian.
inline void put(std::vector<uint8_t>& b, uint64_t v, int n)
{
    for (int i = 0; i < n; ++i)
        b.push_back(uint8_t(v >> (8 * i)));
}

/// Overwrites n bytes at at with v, little-endian.
inline void set(std::vector<uint8_t>& b, size_t at, uint64_t v, int n)
{
    for (int i = 0; i < n; ++i)
        b[at + i] = uint8_t(v >> (8 * i));
}

/// Sample s's numeric label key ("pid", "tid"), or -1 without one.
inline int64_t numLabel(const model::Profile& p, size_t s, std::string_view key)
{
    for (const model::Label& l : p.sampleLabels(s))
        if (p.str(l.key) == key)
            return l.num;
    return -1;
}

/// The build ID perf recorded for the kernel ("[kernel.kallsyms]"), or empty.
inline std::string kernelBuildId(const model::Profile& p)
{
    for (const model::Mapping& m : p.mappings)
        if (p.str(m.file) == "[kernel.kallsyms]")
            return std::string(p.str(m.buildId));
    return {};
}

/// The recording as if another kernel had made it: every copy of the build ID fromHex in bytes
/// replaced by toHex (both 40 hex digits). Returns how many were replaced.
inline size_t replaceBuildId(std::vector<uint8_t>& bytes, std::string_view fromHex, std::string_view toHex)
{
    const auto binary = [](std::string_view hex) {
        std::vector<uint8_t> out;
        for (size_t i = 0; i + 1 < hex.size(); i += 2)
            out.push_back(uint8_t(std::stoul(std::string(hex.substr(i, 2)), nullptr, 16)));
        return out;
    };
    const std::vector<uint8_t> from = binary(fromHex), to = binary(toHex);
    size_t replaced = 0;
    if (from.empty() || from.size() != to.size())
        return 0;
    for (auto it = bytes.begin(); (it = std::search(it, bytes.end(), from.begin(), from.end())) != bytes.end(); ++replaced)
        it = std::copy(to.begin(), to.end(), it);
    return replaced;
}

} // namespace symflame::testing
