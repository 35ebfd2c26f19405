// OTLP profiles writer: encodes a Profile as ProfilesData in the 1.10.0 layout. Every table of
// the dictionary starts with its zero entry (index 0 = unset); the string table holds only the
// strings used, "" first; attributes are deduplicated. OTLP profiles have one sample type each,
// so a profile with n sample types becomes n profiles sharing the dictionary and the stacks.
// Not written, because 1.10 has no place for them: Location.is_folded, drop/keep frames, the
// default sample type (the profiles are in the model's order).
#include "model/io/otlp/otlp.h"

#include "model/io/fileio.h"
#include "model/io/protowire.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <limits>
#include <unordered_map>

namespace symflame::model {

namespace {

using protowire::Encoder;

class Strings {
public:
    explicit Strings(const StringTable& table)
        : m_table(table)
        , m_index(table.size(), kUnset)
    {
        m_index[0] = 0;
        m_order.push_back({});
    }
    uint64_t operator()(StringId id)
    {
        uint32_t& slot = m_index[id.index()];
        if (slot == kUnset) {
            slot = static_cast<uint32_t>(m_order.size());
            m_order.push_back(m_table.get(id));
        }
        return slot;
    }
    /// The index of a string that may not be in the profile's table.
    uint64_t operator()(std::string_view text)
    {
        StringId id;
        if (m_table.find(text, &id))
            return (*this)(id);
        auto it = m_extra.find(std::string(text));
        if (it != m_extra.end())
            return it->second;
        m_extraText.emplace_back(text);
        const auto index = static_cast<uint32_t>(m_order.size());
        m_order.push_back(m_extraText.back());
        m_extra.emplace(std::string(text), index);
        return index;
    }
    std::string_view text(uint64_t index) const { return m_order[index]; }
    void write(Encoder& e, uint32_t field) const
    {
        for (std::string_view s : m_order)
            e.stringField(field, s);
    }

private:
    static constexpr uint32_t kUnset = std::numeric_limits<uint32_t>::max();
    const StringTable& m_table;
    std::vector<uint32_t> m_index;
    std::vector<std::string_view> m_order;
    std::deque<std::string> m_extraText; // a deque never moves its strings
    std::unordered_map<std::string, uint32_t> m_extra;
};

/// An attribute_table entry: a key with a string, integer or boolean value (and a unit).
struct AttrKey {
    uint64_t key;
    uint8_t kind; // 0 string, 1 int, 2 bool
    uint64_t value; // string index, integer or bool
    uint64_t unit;
    bool operator==(const AttrKey&) const = default;
};
struct AttrHash {
    size_t operator()(const AttrKey& k) const
    {
        uint64_t h = k.key * 0x9e3779b97f4a7c15ull ^ k.value * 0xff51afd7ed558ccdull ^ (k.unit << 3) ^ k.kind;
        return static_cast<size_t>(h ^ (h >> 29));
    }
};

class Attributes {
public:
    uint32_t add(const AttrKey& k)
    {
        auto [it, inserted] = m_index.try_emplace(k, static_cast<uint32_t>(m_entries.size() + 1));
        if (inserted)
            m_entries.push_back(k);
        return it->second;
    }
    void write(Encoder& e, uint32_t field) const
    {
        const size_t zero = e.beginMessage(field);
        e.endMessage(zero);
        for (const AttrKey& k : m_entries) {
            const size_t m = e.beginMessage(field);
            if (k.key)
                e.varintField(1, k.key);
            const size_t v = e.beginMessage(2);
            if (k.kind == 0)
                e.stringField(1, m_stringOf(k.value));
            else if (k.kind == 1)
                e.varintField(3, k.value);
            else
                e.varintField(2, k.value);
            e.endMessage(v);
            if (k.unit)
                e.varintField(3, k.unit);
            e.endMessage(m);
        }
    }
    std::function<std::string_view(uint64_t)> m_stringOf; ///< text of a string index

private:
    std::unordered_map<AttrKey, uint32_t, AttrHash> m_index;
    std::vector<AttrKey> m_entries;
};

const char* frameTypeName(FrameKind k)
{
    switch (k) {
    case FrameKind::Unknown:
        return nullptr;
    case FrameKind::Native:
        return "native";
    case FrameKind::Kernel:
        return "kernel";
    case FrameKind::Go:
        return "go";
    case FrameKind::Rust:
        return "rust";
    case FrameKind::Python:
        return "cpython";
    case FrameKind::Php:
        return "php";
    case FrameKind::Jvm:
        return "jvm";
    case FrameKind::Ruby:
        return "ruby";
    case FrameKind::Perl:
        return "perl";
    case FrameKind::JavaScript:
        return "v8js";
    case FrameKind::DotNet:
        return "dotnet";
    case FrameKind::Beam:
        return "beam";
    case FrameKind::Label:
        return nullptr;
    }
    return nullptr;
}

void writeIfNonZero(Encoder& e, uint32_t field, uint64_t v)
{
    if (v != 0)
        e.varintField(field, v);
}

void writeValueType(Encoder& e, uint32_t field, uint64_t type, uint64_t unit)
{
    const size_t m = e.beginMessage(field);
    writeIfNonZero(e, 1, type);
    writeIfNonZero(e, 2, unit);
    e.endMessage(m);
}

} // namespace

std::vector<uint8_t> encodeOtlp(const Profile& p)
{
    Strings s(p.strings);
    Attributes attrs;
    // String values are kept as string indices in AttrKey (so equal ones are one entry) and
    // written as string_value text, which every 1.x reader understands.
    attrs.m_stringOf = [&](uint64_t i) { return s.text(i); };
    const auto textAttr = [&](uint64_t key, std::string_view value) {
        return attrs.add(AttrKey { key, 0, s(value), 0 });
    };
    const auto labelAttribute = [&](const Label& l) -> uint32_t {
        const uint64_t key = s(l.key);
        if (!l.str.empty())
            return attrs.add(AttrKey { key, 0, s(l.str), 0 });
        return attrs.add(AttrKey { key, 1, static_cast<uint64_t>(l.num), l.numUnit.empty() ? 0 : s(l.numUnit) });
    };

    std::vector<uint8_t> dict;
    dict.reserve(p.locations.size() * 24 + p.stackLocations.size() * 3 + 4096);
    Encoder d(dict);

    // mapping_table
    {
        const size_t zero = d.beginMessage(1);
        d.endMessage(zero);
    }
    const uint64_t kGnu = s("process.executable.build_id.gnu");
    const uint64_t kGo = s("process.executable.build_id.go");
    const uint64_t kHtl = s("process.executable.build_id.htlhash");
    static constexpr std::pair<uint8_t, const char*> kFlags[]
        = { { Mapping::HasFunctions, "pprof.mapping.has_functions" },
              { Mapping::HasFilenames, "pprof.mapping.has_filenames" },
              { Mapping::HasLineNumbers, "pprof.mapping.has_line_numbers" },
              { Mapping::HasInlineFrames, "pprof.mapping.has_inline_frames" } };
    std::vector<uint32_t> mappingAttrs;
    for (const Mapping& m : p.mappings) {
        mappingAttrs.clear();
        if (!m.buildId.empty() && m.buildId != m.goBuildId)
            mappingAttrs.push_back(textAttr(kGnu, p.str(m.buildId)));
        if (!m.goBuildId.empty())
            mappingAttrs.push_back(textAttr(kGo, p.str(m.goBuildId)));
        if (!m.htlHash.empty())
            mappingAttrs.push_back(textAttr(kHtl, p.str(m.htlHash)));
        for (const auto& [bit, name] : kFlags)
            if (m.flags & bit)
                mappingAttrs.push_back(attrs.add(AttrKey { s(name), 2, 1, 0 }));
        const size_t mm = d.beginMessage(1);
        writeIfNonZero(d, 1, m.start);
        writeIfNonZero(d, 2, m.limit);
        writeIfNonZero(d, 3, m.offset);
        writeIfNonZero(d, 4, s(m.file));
        d.packedVarintField(5, std::span<const uint32_t>(mappingAttrs));
        d.endMessage(mm);
    }

    // location_table
    {
        const size_t zero = d.beginMessage(2);
        d.endMessage(zero);
    }
    const uint64_t kFrameType = s("profile.frame.type");
    for (const Location& loc : p.locations) {
        const size_t m = d.beginMessage(2);
        if (loc.mapping.valid())
            d.varintField(1, loc.mapping.index() + 1);
        writeIfNonZero(d, 2, loc.address);
        for (const Line& line : p.linesOf(loc)) {
            const size_t lm = d.beginMessage(3);
            if (line.function.valid())
                d.varintField(1, line.function.index() + 1);
            writeIfNonZero(d, 2, static_cast<uint64_t>(line.line));
            writeIfNonZero(d, 3, static_cast<uint64_t>(line.column));
            d.endMessage(lm);
        }
        if (const char* type = frameTypeName(loc.kind)) {
            const uint32_t a = textAttr(kFrameType, type);
            d.packedVarintField(4, std::span<const uint32_t>(&a, 1));
        }
        d.endMessage(m);
    }

    // function_table
    {
        const size_t zero = d.beginMessage(3);
        d.endMessage(zero);
    }
    for (const Function& fn : p.functions) {
        const size_t m = d.beginMessage(3);
        writeIfNonZero(d, 1, s(fn.name));
        writeIfNonZero(d, 2, s(fn.systemName));
        writeIfNonZero(d, 3, s(fn.file));
        writeIfNonZero(d, 4, static_cast<uint64_t>(fn.startLine));
        d.endMessage(m);
    }

    // link_table
    {
        const size_t zero = d.beginMessage(4);
        d.endMessage(zero);
    }
    for (size_t i = 1; i < p.links.size(); ++i) {
        const size_t m = d.beginMessage(4);
        d.bytesField(1, std::span<const uint8_t>(p.links[i].traceId, 16));
        d.bytesField(2, std::span<const uint8_t>(p.links[i].spanId, 8));
        d.endMessage(m);
    }

    // stack_table: model stack i is entry i + 1.
    {
        const size_t zero = d.beginMessage(7);
        d.endMessage(zero);
    }
    for (size_t i = 0; i < p.stackCount(); ++i) {
        const auto st = p.stack(StackId(i));
        const size_t m = d.beginMessage(7);
        d.packedVarintField(1, st.size(), [&](size_t k) { return uint64_t(st[k].index()) + 1; });
        d.endMessage(m);
    }

    // The profiles (one per sample type), which add sample label attributes and strings.
    std::vector<uint8_t> profiles;
    Encoder e(profiles);
    const size_t nTypes = p.sampleTypes.size();
    std::vector<uint32_t> sampleAttrs;
    std::vector<uint32_t> labelIndexCache; // per label position: attribute index
    labelIndexCache.reserve(p.labels.size());
    for (const Label& l : p.labels)
        labelIndexCache.push_back(labelAttribute(l));
    // A sample goes to the profile of each type it has a value of (merged captures: a CPU sample
    // has no off-CPU time); one of no value at all goes to the first, so that none is lost.
    const auto writes = [&](size_t i, size_t t) {
        if (p.value(i, t) != 0)
            return true;
        if (t != 0)
            return false;
        const auto v = p.values(i);
        return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 0; });
    };
    const uint64_t periodType = s(p.periodType.type), periodUnit = s(p.periodType.unit);
    std::vector<std::pair<uint64_t, uint64_t>> types;
    for (const ValueType& vt : p.sampleTypes)
        types.emplace_back(s(vt.type), s(vt.unit));
    // A time that is count x period for every sample (the period type's, beside a count type) is
    // not written: the reader derives it again from the count's profile, which carries the period.
    std::vector<uint8_t> derived(nTypes, 0);
    for (size_t t = 0; t < nTypes && p.period > 0; ++t) {
        if (p.sampleTypes[t].type != p.periodType.type || p.sampleTypes[t].unit != p.periodType.unit
            || p.str(p.periodType.unit) == "count")
            continue;
        for (size_t c = 0; c < nTypes; ++c) {
            if (c == t || p.str(p.sampleTypes[c].unit) != "count")
                continue;
            bool all = true;
            for (size_t i = 0; i < p.sampleCount() && all; ++i)
                all = p.value(i, t) == p.value(i, c) * p.period;
            if (all) {
                derived[t] = 1;
                break;
            }
        }
    }
    for (size_t t = 0; t < std::max<size_t>(nTypes, 1); ++t) {
        if (nTypes == 0 && p.sampleCount() > 0)
            break;
        if (nTypes > 0 && derived[t])
            continue;
        const size_t pm = e.beginMessage(2);
        if (nTypes > 0)
            writeValueType(e, 1, types[t].first, types[t].second);
        for (size_t i = 0; i < p.sampleCount(); ++i) {
            if (nTypes > 1 && !writes(i, t))
                continue;
            const size_t sm = e.beginMessage(2);
            writeIfNonZero(e, 1, uint64_t(p.sampleStacks[i].index()) + 1);
            if (const uint32_t set = p.sampleLabelSet(i); set != 0) {
                const uint32_t begin = p.labelSetBegin[set];
                e.packedVarintField(2, p.labelSetBegin[set + 1] - begin,
                    [&](size_t k) { return uint64_t(labelIndexCache[begin + k]); });
            }
            if (!p.sampleLinks.empty())
                writeIfNonZero(e, 3, p.sampleLinks[i]);
            const uint64_t v = static_cast<uint64_t>(p.value(i, t));
            e.packedVarintField(4, 1, [&](size_t) { return v; });
            if (!p.sampleTimestamps.empty() && p.sampleTimestamps[i] != 0) {
                e.writeTag(5, protowire::WireType::Len);
                e.writeVarint(8);
                for (int b = 0; b < 8; ++b)
                    profiles.push_back(static_cast<uint8_t>(static_cast<uint64_t>(p.sampleTimestamps[i]) >> (8 * b)));
            }
            e.endMessage(sm);
        }
        if (p.timeNanos != 0)
            e.fixed64Field(3, static_cast<uint64_t>(p.timeNanos));
        writeIfNonZero(e, 4, static_cast<uint64_t>(p.durationNanos));
        if (periodType || periodUnit)
            writeValueType(e, 5, periodType, periodUnit);
        writeIfNonZero(e, 6, static_cast<uint64_t>(p.period));
        e.endMessage(pm);
    }

    // Dictionary tail: strings and attributes, now that everything has been numbered.
    attrs.write(d, 6);
    s.write(d, 5);

    // ProfilesData: resource_profiles { resource, scope_profiles { scope, profiles } }, dictionary.
    std::vector<uint8_t> out;
    out.reserve(dict.size() + profiles.size() + 1024);
    Encoder o(out);
    const size_t rp = o.beginMessage(1);
    {
        const size_t r = o.beginMessage(1);
        for (const Label& a : p.attributes) {
            const std::string_view key = p.str(a.key);
            if (key == "otel.scope.name" || key == "otel.scope.version")
                continue;
            const size_t kv = o.beginMessage(1);
            o.stringField(1, key);
            const size_t v = o.beginMessage(2);
            if (!a.str.empty() || a.num == 0)
                o.stringField(1, p.str(a.str));
            else
                o.varintField(3, static_cast<uint64_t>(a.num));
            o.endMessage(v);
            o.endMessage(kv);
        }
        o.endMessage(r);
        const size_t sp = o.beginMessage(2);
        const size_t sc = o.beginMessage(1);
        if (const auto name = p.attribute("otel.scope.name"); !name.empty())
            o.stringField(1, name);
        if (const auto version = p.attribute("otel.scope.version"); !version.empty())
            o.stringField(2, version);
        o.endMessage(sc);
        out.insert(out.end(), profiles.begin(), profiles.end());
        o.endMessage(sp);
    }
    o.endMessage(rp);
    const size_t dm = o.beginMessage(2);
    out.insert(out.end(), dict.begin(), dict.end());
    o.endMessage(dm);
    return out;
}

Status writeOtlpFile(const Profile& profile, const std::string& path)
{
    std::vector<uint8_t> raw = encodeOtlp(profile);
    if (path.ends_with(".gz")) {
        auto compressed = gzipCompress(raw, 1);
        if (!compressed)
            return compressed.error().withPath(path);
        raw = std::move(compressed).value();
    }
    if (Status st = writeFileAtomically(path, raw); !st)
        return st.error().withPath(path);
    return Status::success();
}

} // namespace symflame::model
