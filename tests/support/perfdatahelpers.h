// Shared by the perf.data tests (tst_perfdata, tst_perfdwarf): little-endian builders for
// synthesized files, a sample's numeric label, and the kernel's build ID read and replaced.
#pragma once

#include "model/core/profile.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
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
/// Whether frame k of a perf.data sample's stack is a caller's call site, which the reader made
/// from its return address (address - 1): every frame but the first of the kernel's part and the
/// first of the user's part (perf script prints frame-pointer and kernel callchains' return
/// addresses as perf recorded them, so tests add the 1 back to compare).
inline bool isCallSite(const model::Profile& p, std::span<const model::LocationId> stack, size_t k)
{
    // The reader leaves addresses in the first page as they are (no code is mapped there).
    if (k == 0 || p.locations[stack[k].index()].address < 4095)
        return false;
    const auto kernel = [&](size_t i) {
        const model::Location& loc = p.locations[stack[i].index()];
        const model::Mapping* m = p.mappingOf(loc);
        return loc.kind == model::FrameKind::Kernel || (m && p.str(m->file).starts_with("[kernel.kallsyms]"));
    };
    // LBR call stacks give the calls' own addresses for the user's part.
    if (!kernel(k) && p.attribute("perf.call_graph") == "lbr")
        return false;
    return kernel(k) == kernel(k - 1);
}

/// For each location of p, whether a stack has it as a call site (isCallSite).
inline std::vector<bool> callSiteLocations(const model::Profile& p)
{
    std::vector<bool> out(p.locations.size());
    for (size_t s = 0; s < p.stackCount(); ++s) {
        const auto stack = p.stack(model::StackId(s));
        for (size_t k = 0; k < stack.size(); ++k)
            if (isCallSite(p, stack, k))
                out[stack[k].index()] = true;
    }
    return out;
}

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
