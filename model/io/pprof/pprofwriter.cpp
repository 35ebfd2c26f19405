// pprof writer: encodes a Profile as perftools.profiles.Profile. Mapping, function and location
// ids are renumbered 1..n in table order; the string table is rebuilt with only the strings the
// profile uses, in order of first use, "" first. Not written, because pprof has no place for
// them: per-sample timestamps, and location lines without a function (pprof requires one).
// Mappings whose addresses are ELF addresses already (OTLP) are written with start, limit and
// offset 0.
#include "model/io/pprof/pprof.h"

#include "model/io/fileio.h"
#include "model/io/protowire.h"

#include <limits>

namespace symflame::model {

namespace {

using protowire::Encoder;

/// Gives each used StringId its index in the written string table.
class StringRemap {
public:
    explicit StringRemap(const StringTable& strings)
        : m_strings(strings)
        , m_index(strings.size(), kUnset)
    {
        m_index[0] = 0;
        m_order.push_back(StringId());
    }

    uint64_t operator()(StringId id)
    {
        uint32_t& slot = m_index[id.index()];
        if (slot == kUnset) {
            slot = static_cast<uint32_t>(m_order.size());
            m_order.push_back(id);
        }
        return slot;
    }

    void write(Encoder& e, uint32_t field) const
    {
        for (StringId id : m_order)
            e.stringField(field, m_strings.get(id));
    }

private:
    static constexpr uint32_t kUnset = std::numeric_limits<uint32_t>::max();
    const StringTable& m_strings;
    std::vector<uint32_t> m_index;
    std::vector<StringId> m_order;
};

void writeIfNonZero(Encoder& e, uint32_t field, uint64_t v)
{
    if (v != 0)
        e.varintField(field, v);
}

void writeValueType(Encoder& e, uint32_t field, const ValueType& vt, StringRemap& s)
{
    const size_t m = e.beginMessage(field);
    writeIfNonZero(e, 1, s(vt.type));
    writeIfNonZero(e, 2, s(vt.unit));
    e.endMessage(m);
}

} // namespace

std::vector<uint8_t> encodePprof(const Profile& p)
{
    std::vector<uint8_t> out;
    // A guess that avoids most regrowth: about three bytes per frame of every sample's stack,
    // a few per value, and more for the tables.
    size_t frames = 0;
    for (StackId id : p.sampleStacks)
        frames += p.stackBegin[id.index() + 1] - p.stackBegin[id.index()];
    out.reserve(frames * 3 + p.sampleCount() * (8 + 4 * p.sampleTypes.size()) + p.labels.size() * 12
        + p.locations.size() * 24 + p.lines.size() * 8 + p.functions.size() * 16 + p.mappings.size() * 48 + 4096);
    Encoder e(out);
    StringRemap s(p.strings);

    for (const ValueType& vt : p.sampleTypes)
        writeValueType(e, 1, vt, s);

    const size_t nTypes = p.sampleTypes.size();
    for (size_t i = 0; i < p.sampleCount(); ++i) {
        const size_t m = e.beginMessage(2);
        const auto stack = p.sampleStack(i);
        e.packedVarintField(1, stack.size(), [&](size_t k) { return uint64_t(stack[k].value) + 1; });
        const int64_t* values = p.sampleValues.data() + i * nTypes;
        e.packedVarintField(2, nTypes, [&](size_t k) { return static_cast<uint64_t>(values[k]); });
        for (const Label& label : p.sampleLabels(i)) {
            const size_t lm = e.beginMessage(3);
            writeIfNonZero(e, 1, s(label.key));
            if (!label.str.empty()) {
                writeIfNonZero(e, 2, s(label.str));
            } else {
                writeIfNonZero(e, 3, static_cast<uint64_t>(label.num));
                writeIfNonZero(e, 4, s(label.numUnit));
            }
            e.endMessage(lm);
        }
        e.endMessage(m);
    }

    for (size_t i = 0; i < p.mappings.size(); ++i) {
        const Mapping& mp = p.mappings[i];
        const size_t m = e.beginMessage(3);
        e.varintField(1, i + 1);
        // Addresses that already are ELF addresses (OTLP) get the range pprof readers take for
        // "file addresses" (start, limit and offset 0), so that a later symbolization of the
        // pprof file looks them up as they are; the runtime range is not kept.
        const bool elf = mp.has(Mapping::ElfAddresses);
        writeIfNonZero(e, 2, elf ? 0 : mp.start);
        writeIfNonZero(e, 3, elf ? 0 : mp.limit);
        writeIfNonZero(e, 4, elf ? 0 : mp.offset);
        writeIfNonZero(e, 5, s(mp.file));
        writeIfNonZero(e, 6, s(mp.buildId));
        writeIfNonZero(e, 7, mp.has(Mapping::HasFunctions));
        writeIfNonZero(e, 8, mp.has(Mapping::HasFilenames));
        writeIfNonZero(e, 9, mp.has(Mapping::HasLineNumbers));
        writeIfNonZero(e, 10, mp.has(Mapping::HasInlineFrames));
        e.endMessage(m);
    }

    for (size_t i = 0; i < p.locations.size(); ++i) {
        const Location& loc = p.locations[i];
        const size_t m = e.beginMessage(4);
        e.varintField(1, i + 1);
        if (loc.mapping.valid())
            e.varintField(2, loc.mapping.index() + 1);
        writeIfNonZero(e, 3, loc.address);
        for (const Line& line : p.linesOf(loc)) {
            if (!line.function.valid())
                continue; // pprof requires a function on every line (go tool pprof rejects the file)
            const size_t lm = e.beginMessage(4);
            e.varintField(1, line.function.index() + 1);
            writeIfNonZero(e, 2, static_cast<uint64_t>(line.line));
            writeIfNonZero(e, 3, static_cast<uint64_t>(line.column));
            e.endMessage(lm);
        }
        writeIfNonZero(e, 5, loc.isFolded);
        e.endMessage(m);
    }

    for (size_t i = 0; i < p.functions.size(); ++i) {
        const Function& fn = p.functions[i];
        const size_t m = e.beginMessage(5);
        e.varintField(1, i + 1);
        writeIfNonZero(e, 2, s(fn.name));
        writeIfNonZero(e, 3, s(fn.systemName));
        writeIfNonZero(e, 4, s(fn.file));
        writeIfNonZero(e, 5, static_cast<uint64_t>(fn.startLine));
        e.endMessage(m);
    }

    // The fields after the string table refer to strings too: number them first.
    const uint64_t dropFrames = s(p.dropFrames);
    const uint64_t keepFrames = s(p.keepFrames);
    const uint64_t docUrl = s(p.docUrl);
    std::vector<uint64_t> comments;
    comments.reserve(p.comments.size());
    for (StringId c : p.comments)
        comments.push_back(s(c));
    // Without default_sample_type readers take the last type, so it is written only when the
    // default is another one.
    uint64_t defaultType = 0;
    if (!p.sampleTypes.empty() && p.defaultSampleType + 1 < p.sampleTypes.size())
        defaultType = s(p.sampleTypes[p.defaultSampleType].type);
    const bool hasPeriodType = !p.periodType.type.empty() || !p.periodType.unit.empty();
    uint64_t periodTypeType = s(p.periodType.type);
    uint64_t periodTypeUnit = s(p.periodType.unit);

    s.write(e, 6);
    writeIfNonZero(e, 7, dropFrames);
    writeIfNonZero(e, 8, keepFrames);
    writeIfNonZero(e, 9, static_cast<uint64_t>(p.timeNanos));
    writeIfNonZero(e, 10, static_cast<uint64_t>(p.durationNanos));
    if (hasPeriodType) {
        const size_t m = e.beginMessage(11);
        writeIfNonZero(e, 1, periodTypeType);
        writeIfNonZero(e, 2, periodTypeUnit);
        e.endMessage(m);
    }
    writeIfNonZero(e, 12, static_cast<uint64_t>(p.period));
    e.packedVarintField(13, std::span<const uint64_t>(comments));
    writeIfNonZero(e, 14, defaultType);
    writeIfNonZero(e, 15, docUrl);
    return out;
}

Status writePprofFile(const Profile& profile, const std::string& path)
{
    const std::vector<uint8_t> raw = encodePprof(profile);
    // Fastest deflate, as Go's runtime/pprof writes profiles: on a 120 MB profile it is about a
    // third faster than level 6 for output a few percent larger.
    auto compressed = gzipCompress(raw, 1);
    if (!compressed)
        return compressed.error().withPath(path);
    if (Status s = writeFileAtomically(path, *compressed); !s)
        return s.error().withPath(path);
    return Status::success();
}

} // namespace symflame::model
