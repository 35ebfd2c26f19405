#include "model/profile.h"

#include <algorithm>

namespace symflame::model {

const char* frameStatusName(FrameStatus s)
{
    switch (s) {
    case FrameStatus::Symbolized:
        return "symbolized";
    case FrameStatus::AddressOnly:
        return "address only";
    case FrameStatus::BinaryOnly:
        return "binary only";
    case FrameStatus::NotApplicable:
        return "not applicable";
    }
    return "?";
}

const char* frameKindName(FrameKind k)
{
    switch (k) {
    case FrameKind::Unknown:
        return "unknown";
    case FrameKind::Native:
        return "native";
    case FrameKind::Kernel:
        return "kernel";
    case FrameKind::Go:
        return "go";
    case FrameKind::Rust:
        return "rust";
    case FrameKind::Python:
        return "python";
    case FrameKind::Php:
        return "php";
    case FrameKind::Jvm:
        return "jvm";
    case FrameKind::Ruby:
        return "ruby";
    case FrameKind::Perl:
        return "perl";
    case FrameKind::JavaScript:
        return "javascript";
    case FrameKind::DotNet:
        return "dotnet";
    case FrameKind::Beam:
        return "beam";
    }
    return "?";
}

int Profile::findSampleType(std::string_view type) const
{
    for (size_t i = 0; i < sampleTypes.size(); ++i)
        if (str(sampleTypes[i].type) == type)
            return static_cast<int>(i);
    return -1;
}

int64_t Profile::totalValue(size_t type) const
{
    const size_t n = sampleTypes.size();
    int64_t sum = 0;
    for (size_t i = type; i < sampleValues.size(); i += n)
        sum += sampleValues[i];
    return sum;
}

static size_t hashStack(std::span<const LocationId> locs)
{
    // FNV-1a over the ids; cheap and good enough for bucket choice.
    uint64_t h = 1469598103934665603ull;
    for (LocationId l : locs) {
        h ^= l.value;
        h *= 1099511628211ull;
    }
    return static_cast<size_t>(h ^ (h >> 29));
}

StackId Profile::internStack(std::span<const LocationId> locs)
{
    const size_t h = hashStack(locs);
    auto [lo, hi] = m_stackIndex.equal_range(h);
    for (auto it = lo; it != hi; ++it) {
        const auto existing = stack(StackId(it->second));
        if (std::equal(existing.begin(), existing.end(), locs.begin(), locs.end()))
            return StackId(it->second);
    }
    const auto id = static_cast<uint32_t>(stackCount());
    stackLocations.insert(stackLocations.end(), locs.begin(), locs.end());
    stackBegin.push_back(static_cast<uint32_t>(stackLocations.size()));
    m_stackIndex.emplace(h, id);
    return StackId(id);
}

void Profile::addSample(StackId stackId, std::span<const int64_t> vals)
{
    sampleStacks.push_back(stackId);
    sampleValues.insert(sampleValues.end(), vals.begin(), vals.end());
}

void Profile::finishBuilding()
{
    std::unordered_multimap<size_t, uint32_t>().swap(m_stackIndex);
}

bool isUnsymbolizableMappingName(std::string_view file)
{
    const auto slash = file.rfind('/');
    const std::string_view base = slash == std::string_view::npos ? file : file.substr(slash + 1);
    if (base.starts_with('['))
        return true;
    return base.starts_with("linux-vdso") || file.starts_with("/dev/dri/") || file.starts_with("//anon");
}

void Profile::updateFrameStatuses()
{
    for (Location& loc : locations) {
        const bool hasFunction = std::any_of(lines.begin() + loc.linesBegin,
                                             lines.begin() + loc.linesBegin + loc.lineCount,
                                             [](const Line& l) { return l.function.valid(); });
        if (hasFunction)
            loc.status = FrameStatus::Symbolized;
        else if (!loc.mapping.valid())
            loc.status = FrameStatus::AddressOnly;
        else if (isUnsymbolizableMappingName(str(mappings[loc.mapping.index()].file)))
            loc.status = FrameStatus::NotApplicable;
        else
            loc.status = FrameStatus::BinaryOnly;
    }
}

} // namespace symflame::model
