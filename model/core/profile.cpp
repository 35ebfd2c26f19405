#include "model/core/profile.h"

#include "model/core/bigarray.h"
#include "model/core/valueformat.h"

#include <algorithm>
#include <cstring>

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
    case FrameStatus::SourceMapped:
        return "source-mapped";
    case FrameStatus::NoSourceMap:
        return "no source map";
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
    case FrameKind::Label:
        return "label";
    }
    return "?";
}

std::string ProfileChoice::describe(size_t index) const
{
    std::string s = "#" + std::to_string(index);
    if (!serviceName.empty())
        s += "  " + serviceName;
    if (!executableName.empty())
        s += "  " + executableName;
    if (pid != 0)
        s += (executableName.empty() ? "  pid " : " (pid ") + std::to_string(pid) + (executableName.empty() ? "" : ")");
    if (serviceName.empty() && executableName.empty() && pid == 0)
        s += "  (no service.name)";
    s += "  " + (sampleType.empty() ? std::string("(no sample type)") : sampleType);
    s += "  " + std::to_string(samples) + (samples == 1 ? " sample" : " samples");
    return s;
}

std::string SampleTally::describe() const
{
    std::string s = std::to_string(count);
    if (records)
        return s + (count == 1 ? " sample record" : " sample records");
    return s + (count == 1 ? " sample" : " samples");
}

SampleTally Profile::sampleTally() const
{
    // The count types producers write: pprof and Go "samples (count)", eBPF profilers the same,
    // Node "sample"/"samples". Object counts (alloc_objects) and event counts (contentions) are
    // not samples.
    for (size_t t = 0; t < sampleTypes.size(); ++t) {
        const std::string_view type = str(sampleTypes[t].type);
        const std::string_view unit = str(sampleTypes[t].unit);
        if ((type == "samples" || type == "sample") && (unit == "count" || unit == "samples" || unit.empty()))
            if (const int64_t total = totalValue(t); total >= 0)
                return { uint64_t(total), false };
    }
    return { uint64_t(sampleCount()), true };
}

const Label* Profile::findAttribute(std::string_view key) const
{
    for (const Label& a : attributes)
        if (str(a.key) == key)
            return &a;
    return nullptr;
}

std::string_view Profile::attribute(std::string_view key) const
{
    const Label* a = findAttribute(key);
    return a ? str(a->str) : std::string_view();
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

std::vector<size_t> Profile::stackRunsByFrames(unsigned parts) const
{
    parts = std::max(parts, 1u);
    std::vector<size_t> runs(parts + 1, 0);
    runs[parts] = stackCount();
    for (unsigned g = 1; g < parts; ++g) {
        const uint64_t goal = uint64_t(stackLocations.size()) * g / parts;
        runs[g] = size_t(std::lower_bound(stackBegin.begin() + ptrdiff_t(runs[g - 1]), stackBegin.end() - 1, goal)
            - stackBegin.begin());
    }
    return runs;
}

std::vector<int64_t> Profile::valuePerStack(size_t type) const
{
    std::vector<int64_t> perStack(stackCount(), 0);
    const size_t n = sampleTypes.size();
    if (type >= n || sampleStacks.empty())
        return perStack; // (no samples: sampleValues may be empty, its data() null)
    const int64_t* v = sampleValues.data() + type;
    for (size_t i = 0; i < sampleStacks.size(); ++i, v += n)
        perStack[sampleStacks[i].index()] += *v;
    return perStack;
}

LocationId Profile::addNamedFrame(std::string_view name, FrameKind kind, std::string_view file)
{
    Function fn;
    fn.name = strings.intern(name);
    fn.systemName = fn.name;
    if (!file.empty())
        fn.file = strings.intern(file);
    functions.push_back(fn);
    Location loc;
    loc.linesBegin = static_cast<uint32_t>(lines.size());
    loc.lineCount = 1;
    loc.status = FrameStatus::Symbolized;
    loc.kind = kind;
    lines.push_back({ FunctionId(static_cast<uint32_t>(functions.size() - 1)), 0, 0 });
    locations.push_back(loc);
    return LocationId(static_cast<uint32_t>(locations.size() - 1));
}

StackId Profile::internStack(std::span<const LocationId> locs)
{
    return m_stackIndex.intern(*this, locs);
}

StackId Profile::appendNewStack(std::span<const LocationId> locs)
{
    return m_stackIndex.append(*this, locs);
}

void Profile::addSample(StackId stackId, std::span<const int64_t> vals)
{
    sampleStacks.push_back(stackId);
    sampleValues.insert(sampleValues.end(), vals.begin(), vals.end());
}

uint32_t Profile::internLabelSet(std::span<const Label> set)
{
    return m_labelSetIndex.intern(*this, set);
}

void Profile::setSampleLabelSet(size_t sample, uint32_t set)
{
    if (sampleLabelSets.empty()) {
        if (set == 0)
            return;
        sampleLabelSets.assign(sampleCount(), 0);
    }
    if (sampleLabelSets.size() < sampleCount())
        sampleLabelSets.resize(sampleCount(), 0);
    sampleLabelSets[sample] = set;
}

void Profile::finishBuilding()
{
    m_stackIndex.clear();
    m_labelSetIndex.clear();
    if (!sampleLabelSets.empty())
        sampleLabelSets.resize(sampleCount(), 0); // samples added after the last labelled one
}

void LabelSetIndex::appendKey(std::string& key, std::span<const Label> set)
{
    key.clear();
    for (const Label& l : set) {
        const uint32_t parts[3] = { l.key.value, l.str.value, l.numUnit.value };
        key.append(reinterpret_cast<const char*>(parts), sizeof parts);
        key.append(reinterpret_cast<const char*>(&l.num), sizeof l.num);
    }
}

uint32_t LabelSetIndex::intern(Profile& p, std::span<const Label> set)
{
    if (set.empty())
        return 0;
    // Samples in a row often share their set (one thread's): the last one is tried first.
    if (m_last != 0 && m_last < p.labelSetCount()) {
        const auto last = p.labelSet(m_last);
        if (std::equal(set.begin(), set.end(), last.begin(), last.end()))
            return m_last;
    }
    // Sets added to the profile by other means (a copy, a reader) are indexed first.
    for (; m_indexed + 1 < p.labelSetCount(); ++m_indexed) {
        const auto id = static_cast<uint32_t>(m_indexed + 1);
        appendKey(m_key, p.labelSet(id));
        m_ids.emplace(m_key, id);
    }
    appendKey(m_key, set);
    const auto [it, added] = m_ids.try_emplace(m_key, static_cast<uint32_t>(p.labelSetCount()));
    if (added) {
        p.labels.insert(p.labels.end(), set.begin(), set.end());
        p.labelSetBegin.push_back(static_cast<uint32_t>(p.labels.size()));
        ++m_indexed;
    }
    m_last = it->second;
    return it->second;
}

void LabelSetIndex::clear()
{
    std::unordered_map<std::string, uint32_t>().swap(m_ids);
    m_indexed = 0;
    m_last = 0;
}

bool isUnsymbolizableMappingName(std::string_view file)
{
    const std::string_view base = baseName(file);
    if (base.starts_with('['))
        return true;
    return base.starts_with("linux-vdso") || file.starts_with("/dev/dri/") || file.starts_with("//anon");
}

bool isKernelImageMappingName(std::string_view file)
{
    return file.starts_with("[kernel.kallsyms]");
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

void StackIndex::clear()
{
    std::vector<Slot>().swap(m_slots);
    m_mask = 0;
    m_count = 0;
}

void StackIndex::rehash(size_t capacity)
{
    std::vector<Slot> old = std::move(m_slots);
    assignBig(m_slots, capacity, Slot {});
    m_mask = capacity - 1;
    for (const Slot& s : old) {
        if (s.idPlusOne == 0)
            continue;
        size_t slot = s.hash & m_mask;
        while (m_slots[slot].idPlusOne != 0)
            slot = (slot + 1) & m_mask;
        m_slots[slot] = s;
    }
}

static uint32_t hashStack(std::span<const LocationId> locs)
{
    uint64_t h = 0x243f6a8885a308d3ull ^ locs.size();
    for (LocationId l : locs)
        h = (h ^ l.value) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 33; // the multiplications only carry low bits upwards: mix the high ones down
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return static_cast<uint32_t>(h);
}

void StackIndex::insert(uint32_t hash, uint32_t id)
{
    size_t slot = hash & m_mask;
    while (m_slots[slot].idPlusOne != 0)
        slot = (slot + 1) & m_mask;
    m_slots[slot] = {hash, id + 1};
    if (++m_count * 2 > m_slots.size())
        rehash(m_slots.size() * 2);
}

StackId StackIndex::intern(Profile& p, std::span<const LocationId> locs)
{
    if (m_slots.empty()) {
        rehash(1024);
        // Stacks added before this index existed (or after clear()) are indexed first, so
        // that equal stacks still get one id.
        for (size_t i = 0; i < p.stackCount(); ++i)
            insert(hashStack(p.stack(StackId(i))), static_cast<uint32_t>(i));
    }
    const uint32_t h32 = hashStack(locs);
    for (size_t slot = h32 & m_mask;; slot = (slot + 1) & m_mask) {
        const Slot s = m_slots[slot];
        if (s.idPlusOne == 0)
            break;
        if (s.hash == h32) {
            const auto existing = p.stack(StackId(s.idPlusOne - 1));
            static_assert(sizeof(LocationId) == sizeof(uint32_t));
            if (existing.size() == locs.size()
                && (locs.empty() // memcmp must not see the null pointers of empty spans
                    || std::memcmp(existing.data(), locs.data(), locs.size() * sizeof(LocationId)) == 0))
                return StackId(s.idPlusOne - 1);
        }
    }
    const uint32_t id = addToProfile(p, locs);
    insert(h32, id);
    return StackId(id);
}

StackId StackIndex::append(Profile& p, std::span<const LocationId> locs)
{
    const uint32_t id = addToProfile(p, locs);
    if (!m_slots.empty())
        insert(hashStack(locs), id);
    return StackId(id);
}

uint32_t StackIndex::addToProfile(Profile& p, std::span<const LocationId> locs)
{
    const auto id = static_cast<uint32_t>(p.stackCount());
    p.stackLocations.insert(p.stackLocations.end(), locs.begin(), locs.end());
    p.stackBegin.push_back(static_cast<uint32_t>(p.stackLocations.size()));
    return id;
}

} // namespace symflame::model
