// Shared by the perf.data tests (tst_perfdata, tst_perfdwarf): little-endian builders for
// synthesized files, and a sample's numeric label.
#pragma once

#include "model/core/profile.h"

#include <cstddef>
#include <cstdint>
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

} // namespace symflame::testing
