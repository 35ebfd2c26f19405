#include "model/core/merge.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace symflame::model {

namespace {

bool sameTypes(const Profile& a, const Profile& b)
{
    if (a.sampleTypes.size() != b.sampleTypes.size())
        return false;
    for (size_t i = 0; i < a.sampleTypes.size(); ++i)
        if (a.str(a.sampleTypes[i].type) != b.str(b.sampleTypes[i].type)
            || a.str(a.sampleTypes[i].unit) != b.str(b.sampleTypes[i].unit))
            return false;
    return true;
}

std::string typesOf(const Profile& p)
{
    std::string s;
    for (const ValueType& t : p.sampleTypes)
        s += (s.empty() ? "" : ", ") + std::string(p.str(t.type)) + "/" + std::string(p.str(t.unit));
    return s.empty() ? "none" : s;
}

/// Adds one profile to the merged one; ids of the source are translated as they are met.
class Merger {
public:
    Merger(Profile& out, bool stacksApart)
        : m_out(out)
        , m_stacksApart(stacksApart)
    {
        m_out.links.assign(1, SampleLink {}); // links[0] is "none"
    }

    /// Adds p: its values go to columns[k] for its sample type k; ownAttributes (the attributes
    /// not every merged profile has) become labels of each of its samples, before their own.
    void add(const Profile& p, std::span<const size_t> columns, std::span<const Label> ownAttributes)
    {
        m_strings.assign(p.strings.size(), UINT32_MAX);
        const auto str = [&](StringId id) {
            if (id.index() >= m_strings.size())
                return StringId();
            uint32_t& s = m_strings[id.index()];
            if (s == UINT32_MAX)
                s = m_out.strings.intern(p.str(id)).value;
            return StringId(s);
        };

        // Mappings: the same file (build ID, else path), size and offset is one mapping; a later
        // one at another start keeps the first one's, and its locations move with it.
        std::vector<MappingId> mappingOf(p.mappings.size());
        std::vector<int64_t> shift(p.mappings.size(), 0);
        for (size_t i = 0; i < p.mappings.size(); ++i) {
            const Mapping& m = p.mappings[i];
            const std::string id(p.str(!p.str(m.buildId).empty() ? m.buildId : m.file));
            const auto key = std::make_tuple(id, m.limit - m.start, m.offset, std::string(p.str(m.file)));
            auto [it, inserted] = m_mappings.try_emplace(key, MappingId(uint32_t(m_out.mappings.size())));
            if (inserted) {
                Mapping copy = m;
                copy.file = str(m.file);
                copy.buildId = str(m.buildId);
                copy.goBuildId = str(m.goBuildId);
                copy.htlHash = str(m.htlHash);
                m_out.mappings.push_back(copy);
            }
            mappingOf[i] = it->second;
            shift[i] = int64_t(m_out.mappings[it->second.index()].start - m.start);
        }

        std::vector<FunctionId> functionOf(p.functions.size());
        for (size_t i = 0; i < p.functions.size(); ++i) {
            Function f = p.functions[i];
            f.name = str(f.name);
            f.systemName = str(f.systemName);
            f.file = str(f.file);
            const auto key = std::make_tuple(f.name.value, f.systemName.value, f.file.value, f.startLine);
            auto [it, inserted] = m_functions.try_emplace(key, FunctionId(uint32_t(m_out.functions.size())));
            if (inserted)
                m_out.functions.push_back(f);
            functionOf[i] = it->second;
        }

        // A line may name no function (OTLP's function_index 0): it stays without one.
        const auto functionFor = [&](FunctionId f) {
            return f.valid() && f.index() < functionOf.size() ? functionOf[f.index()] : FunctionId();
        };
        std::vector<LocationId> locationOf(p.locations.size());
        const size_t locationsBefore = m_out.locations.size();
        m_locations.reserve(locationsBefore + p.locations.size());
        std::vector<Line> lines; // the location's inline chain in our ids
        for (size_t i = 0; i < p.locations.size(); ++i) {
            const Location& l = p.locations[i];
            const bool mapped = l.mapping.valid() && l.mapping.index() < mappingOf.size();
            Location key = l;
            key.mapping = mapped ? mappingOf[l.mapping.index()] : MappingId();
            if (mapped && !p.mappings[l.mapping.index()].has(Mapping::ElfAddresses))
                key.address = l.address + uint64_t(shift[l.mapping.index()]);
            lines.clear();
            for (const Line& line : p.linesOf(l))
                lines.push_back({ functionFor(line.function), line.line, line.column });
            locationOf[i] = m_locations.intern(m_out, key, lines);
        }
        // Every location new to a profile with no stacks yet: its stacks stay distinct, and
        // are appended without looking each up (the index is built when the next profile needs it).
        // Kept apart (MergeOptions::stacksApart), every profile's are appended so.
        const bool stacksDistinct = m_stacksApart
            || (m_out.stackCount() == 0 && m_out.locations.size() - locationsBefore == p.locations.size());

        std::vector<StackId> stackOf(p.stackCount());
        if (stacksDistinct) {
            // The stack arrays translated whole: stack s becomes stack stacksBefore + s (the
            // index is built from them when a stack is next looked up).
            const auto stacksBefore = uint32_t(m_out.stackCount());
            const auto framesBefore = uint32_t(m_out.stackLocations.size());
            m_out.stackLocations.reserve(m_out.stackLocations.size() + p.stackLocations.size());
            for (const LocationId l : p.stackLocations)
                m_out.stackLocations.push_back(locationOf[l.index()]);
            m_out.stackBegin.reserve(m_out.stackBegin.size() + p.stackCount());
            for (size_t s = 1; s < p.stackBegin.size(); ++s)
                m_out.stackBegin.push_back(framesBefore + p.stackBegin[s]);
            for (size_t s = 0; s < stackOf.size(); ++s)
                stackOf[s] = StackId(uint32_t(stacksBefore + s));
        } else {
            std::vector<LocationId> frames;
            for (size_t s = 0; s < p.stackCount(); ++s) {
                frames.clear();
                for (LocationId l : p.stack(StackId(uint32_t(s))))
                    frames.push_back(locationOf[l.index()]);
                stackOf[s] = m_out.internStack(frames);
            }
        }

        // Label sets are translated once each; timestamps and links go straight into the result,
        // for every sample; finish() drops each kind that no sample has.
        std::vector<uint32_t> setOf(p.labelSetCount(), UINT32_MAX);
        std::vector<Label> labels;
        std::vector<int64_t> row(m_out.sampleTypes.size(), 0);
        for (size_t i = 0; i < p.sampleCount(); ++i) {
            const auto values = p.values(i);
            for (size_t k = 0; k < values.size(); ++k)
                row[columns[k]] = values[k];
            m_out.addSample(stackOf[p.sampleStacks[i].index()], row);
            uint32_t& set = setOf[p.sampleLabelSet(i)];
            if (set == UINT32_MAX) {
                labels.clear();
                for (const Label& l : ownAttributes)
                    labels.push_back({ str(l.key), str(l.str), l.num, str(l.numUnit) });
                for (const Label& l : p.sampleLabels(i))
                    labels.push_back({ str(l.key), str(l.str), l.num, str(l.numUnit) });
                set = m_out.internLabelSet(labels);
            }
            m_out.setSampleLabelSet(m_out.sampleCount() - 1, set);
            m_out.sampleTimestamps.push_back(p.sampleTimestamps.empty() ? 0 : p.sampleTimestamps[i]);
            m_anyTimestamps |= m_out.sampleTimestamps.back() != 0;
            const uint32_t link = p.sampleLinks.empty() ? 0 : p.sampleLinks[i];
            if (link == 0 || link >= p.links.size()) {
                m_out.sampleLinks.push_back(0);
            } else {
                m_out.sampleLinks.push_back(uint32_t(m_out.links.size()));
                m_out.links.push_back(p.links[link]);
            }
        }
    }

    void finish()
    {
        if (m_out.labelSetCount() == 1)
            m_out.sampleLabelSets.clear();
        if (!m_anyTimestamps)
            std::vector<int64_t>().swap(m_out.sampleTimestamps);
        if (m_out.links.size() == 1) {
            m_out.links.clear();
            std::vector<uint32_t>().swap(m_out.sampleLinks);
        }
    }

private:
    /// The merged locations, told apart by mapping, address, folding and inline chain (functions,
    /// lines and columns in the merged ids): an open-addressing table of (hash, location id) whose
    /// keys are the merged profile's own locations. Locations are the most numerous of the tables
    /// merged (hundreds of thousands in a big profile); a node-based map with a key vector per
    /// location was about a third of diffing two 1M-sample profiles.
    class LocationIndex {
    public:
        void reserve(size_t count)
        {
            size_t capacity = 1024;
            while (capacity < count * 2)
                capacity *= 2;
            if (capacity > m_slots.size())
                rehash(capacity);
        }
        /// The id of out's location equal to key with lines, adding it (key's linesBegin and
        /// lineCount are set here) when there is none.
        LocationId intern(Profile& out, Location key, std::span<const Line> lines)
        {
            const uint32_t h = hash(key, lines);
            size_t slot = h & m_mask;
            for (; m_slots[slot].idPlusOne != 0; slot = (slot + 1) & m_mask) {
                const Slot s = m_slots[slot];
                if (s.hash == h && same(out, out.locations[s.idPlusOne - 1], key, lines))
                    return LocationId(s.idPlusOne - 1);
            }
            const auto id = uint32_t(out.locations.size());
            key.linesBegin = uint32_t(out.lines.size());
            key.lineCount = uint32_t(lines.size());
            out.lines.insert(out.lines.end(), lines.begin(), lines.end());
            out.locations.push_back(key);
            m_slots[slot] = { h, id + 1 };
            if (++m_count * 2 > m_slots.size())
                rehash(m_slots.size() * 2);
            return LocationId(id);
        }

    private:
        struct Slot {
            uint32_t hash = 0;
            uint32_t idPlusOne = 0; // 0: empty
        };
        static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x9e3779b97f4a7c15ull; }
        static uint32_t hash(const Location& key, std::span<const Line> lines)
        {
            uint64_t h = mix(mix(mix(0x243f6a8885a308d3ull, key.mapping.value), key.address), key.isFolded);
            for (const Line& l : lines)
                h = mix(mix(mix(h, l.function.value), uint64_t(l.line)), uint64_t(l.column));
            h ^= h >> 33;
            h *= 0xff51afd7ed558ccdull;
            h ^= h >> 33;
            return uint32_t(h);
        }
        static bool same(const Profile& out, const Location& have, const Location& key, std::span<const Line> lines)
        {
            if (have.mapping != key.mapping || have.address != key.address || have.isFolded != key.isFolded
                || have.lineCount != lines.size())
                return false;
            const auto haveLines = out.linesOf(have);
            for (size_t i = 0; i < lines.size(); ++i)
                if (haveLines[i].function != lines[i].function || haveLines[i].line != lines[i].line
                    || haveLines[i].column != lines[i].column)
                    return false;
            return true;
        }
        void rehash(size_t capacity)
        {
            std::vector<Slot> old(capacity);
            old.swap(m_slots);
            m_mask = capacity - 1;
            for (const Slot& s : old)
                if (s.idPlusOne != 0) {
                    size_t slot = s.hash & m_mask;
                    while (m_slots[slot].idPlusOne != 0)
                        slot = (slot + 1) & m_mask;
                    m_slots[slot] = s;
                }
        }

        std::vector<Slot> m_slots = std::vector<Slot>(1024);
        size_t m_mask = 1023;
        size_t m_count = 0;
    };

    Profile& m_out;
    bool m_stacksApart = false;
    std::vector<uint32_t> m_strings; // the source's string id -> ours
    std::map<std::tuple<std::string, uint64_t, uint64_t, std::string>, MappingId> m_mappings;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, int64_t>, FunctionId> m_functions;
    LocationIndex m_locations;
    bool m_anyTimestamps = false;
};

} // namespace

bool sameLabel(const Profile& a, const Label& x, const Profile& b, const Label& y)
{
    return a.str(x.key) == b.str(y.key) && a.str(x.str) == b.str(y.str) && x.num == y.num
        && a.str(x.numUnit) == b.str(y.numUnit);
}

Result<Profile> mergeProfiles(std::span<const Profile> profiles, size_t* differing, const MergeOptions& options)
{
    if (profiles.empty())
        return makeError(ErrorCode::InvalidInput, "no profiles to merge");
    const Profile& first = profiles.front();
    for (size_t i = 1; i < profiles.size() && !options.oneCapture; ++i) {
        const Profile& p = profiles[i];
        if (differing)
            *differing = i;
        if (!sameTypes(first, p))
            return makeError(ErrorCode::InvalidInput,
                "profile " + std::to_string(i + 1) + " has other sample types (" + typesOf(p) + ") than the first ("
                    + typesOf(first) + "): only profiles of the same types merge");
        if (first.str(first.periodType.type) != p.str(p.periodType.type)
            || first.str(first.periodType.unit) != p.str(p.periodType.unit))
            return makeError(ErrorCode::InvalidInput,
                "profile " + std::to_string(i + 1) + " has another period type ("
                    + std::string(p.str(p.periodType.type)) + "/" + std::string(p.str(p.periodType.unit))
                    + ") than the first (" + std::string(first.str(first.periodType.type)) + "/"
                    + std::string(first.str(first.periodType.unit)) + ")");
    }
    Profile out;
    // Sample types: the first profile's, then (oneCapture) each new one in order.
    std::vector<std::vector<size_t>> columns(profiles.size());
    for (size_t i = 0; i < profiles.size(); ++i) {
        const Profile& p = profiles[i];
        for (const ValueType& t : p.sampleTypes) {
            const ValueType vt { out.strings.intern(p.str(t.type)), out.strings.intern(p.str(t.unit)) };
            size_t c = 0;
            while (c < out.sampleTypes.size() && (out.sampleTypes[c].type != vt.type || out.sampleTypes[c].unit != vt.unit))
                ++c;
            if (c == out.sampleTypes.size())
                out.sampleTypes.push_back(vt);
            columns[i].push_back(c);
        }
        if (out.periodType.type.empty())
            out.periodType = { out.strings.intern(p.str(p.periodType.type)), out.strings.intern(p.str(p.periodType.unit)) };
    }
    out.defaultSampleType = first.defaultSampleType < columns[0].size() ? columns[0][first.defaultSampleType] : 0;
    out.dropFrames = out.strings.intern(first.str(first.dropFrames));
    out.keepFrames = out.strings.intern(first.str(first.keepFrames));
    out.docUrl = out.strings.intern(first.str(first.docUrl));
    out.formatVersion = first.formatVersion;
    std::vector<std::string> comments;
    int64_t captureEnd = 0; // oneCapture: the latest end of a part
    for (const Profile& p : profiles) {
        out.period = std::max(out.period, p.period);
        if (p.timeNanos != 0 && (out.timeNanos == 0 || p.timeNanos < out.timeNanos))
            out.timeNanos = p.timeNanos;
        out.durationNanos += p.durationNanos;
        if (p.timeNanos != 0)
            captureEnd = std::max(captureEnd, p.timeNanos + std::max<int64_t>(p.durationNanos, 0));
        for (StringId c : p.comments) {
            const std::string text(p.str(c));
            if (std::find(comments.begin(), comments.end(), text) == comments.end()) {
                comments.push_back(text);
                out.comments.push_back(out.strings.intern(text));
            }
        }
    }
    // Parts of one capture cover the same time: its span, not the sum (when they have times).
    if (options.oneCapture && out.timeNanos != 0)
        out.durationNanos = captureEnd - out.timeNanos;
    // Attributes describe a profile (OTLP: its resource): those every profile has stay the
    // result's, the others go to the samples of the profile that has them, as labels.
    const auto everywhere = [&](const Label& a) {
        return std::all_of(profiles.begin() + 1, profiles.end(), [&](const Profile& p) {
            return std::any_of(p.attributes.begin(), p.attributes.end(),
                [&](const Label& b) { return sameLabel(first, a, p, b); });
        });
    };
    std::vector<Label> common;
    for (const Label& a : first.attributes)
        if (everywhere(a)) {
            common.push_back(a);
            out.attributes.push_back({ out.strings.intern(first.str(a.key)), out.strings.intern(first.str(a.str)),
                a.num, out.strings.intern(first.str(a.numUnit)) });
        }
    {
        // The sample and stack arrays at their final size at most (stacks the profiles share
        // take less): grown by doubling, their copies and page faults were a fifth of diffing
        // two 1M-sample profiles. Room never written is never touched.
        size_t stacks = 0, frames = 0, samples = 0;
        for (const Profile& p : profiles) {
            stacks += p.stackCount();
            frames += p.stackLocations.size();
            samples += p.sampleCount();
        }
        out.stackBegin.reserve(stacks + 1);
        out.stackLocations.reserve(frames);
        out.sampleStacks.reserve(samples);
        out.sampleValues.reserve(samples * out.sampleTypes.size());
        out.sampleTimestamps.reserve(samples);
        out.sampleLinks.reserve(samples);
    }
    Merger merger(out, options.stacksApart);
    for (size_t i = 0; i < profiles.size(); ++i) {
        const Profile& p = profiles[i];
        std::vector<Label> own;
        for (const Label& a : p.attributes)
            if (std::none_of(common.begin(), common.end(), [&](const Label& b) { return sameLabel(p, a, first, b); }))
                own.push_back(a);
        merger.add(p, columns[i], own);
    }
    merger.finish();
    out.finishBuilding();
    return out;
}

} // namespace symflame::model
