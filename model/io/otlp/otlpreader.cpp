// OTLP profiles reader: decodes ProfilesData (or an ExportProfilesServiceRequest body, which has
// the same fields) straight from the wire into a Profile, one profile at a time.
//
// 1. The top level, the dictionary and every resource/scope/profile are walked once, keeping
//    spans of each table entry (nothing is converted yet).
// 2. The layout is told apart from wire types where the layouts differ (profile-formats.md §2,
//    "wire hints"): every field that fits only some layouts narrows the candidate set; what is
//    left decides (the newest when several layouts read the same fields the same way). Fields
//    that fit no layout are reported with everything that narrowed the set.
// 3. The chosen profile is decoded: its samples are read in order, and dictionary entries
//    (strings, stacks, locations, mappings, functions, attributes, links) are converted the
//    first time a sample uses them, so a file of many profiles costs only what the chosen one
//    uses.
//
// Errors name the element: "profile 0, sample 12: stack_index 99 out of range (stack_table has
// 10 entries)", "location_table[3]: ...".
#include "model/io/otlp/otlp.h"

#include "model/core/hex.h"
#include "model/io/protowire.h"
#include "model/io/sha256.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace symflame::model {

namespace {

using protowire::DecodeError;
using protowire::Decoder;
using protowire::Field;
using protowire::WireType;

constexpr uint32_t kUnset = std::numeric_limits<uint32_t>::max();

// --- layouts
enum : uint8_t { V17 = 1, V18 = 2, V19 = 4, V110 = 8, kAllLayouts = 15 };

const char* layoutName(uint8_t v)
{
    switch (v) {
    case V17:
        return "1.7.0";
    case V18:
        return "1.8.0";
    case V19:
        return "1.9.0";
    case V110:
        return "1.10.0";
    }
    return "?";
}

std::string describeLayouts(uint8_t set)
{
    if (set == 0)
        return "no known layout";
    std::string s;
    for (uint8_t v : { V17, V18, V19, V110 })
        if (set & v)
            s += (s.empty() ? "" : " or ") + std::string(layoutName(v));
    return s;
}

/// Field numbers of the messages that moved between layouts.
struct Layout {
    uint8_t version = V110;
    // Profile
    uint32_t pTime = 3, pDuration = 4, pPeriodType = 5, pPeriod = 6, pComments = 0, pAttributes = 11,
             pLocationIndices = 0;
    bool timeIsFixed64 = true;
    // Sample
    uint32_t sStack = 1, sLocStart = 0, sLocLength = 0, sValues = 4, sAttributes = 2, sLink = 3, sTimestamps = 5;
    bool timestampsAreFixed64 = true;
    // Location
    uint32_t lAttributes = 4, lFolded = 0;
    // Mapping has_* flags at 6..9 (1.7)
    bool mappingFlags = false;
    // Index 0 of the location, function and attribute tables means "unset" (1.8 on; 1.7 says
    // so only of the mapping and link tables)
    bool zeroIsUnset = true;
    // attribute_table entries are KeyValueAndUnit (1.8 on) or common.v1.KeyValue (1.7)
    bool keyValueAndUnit = true;

    static Layout of(uint8_t version)
    {
        Layout l;
        l.version = version;
        switch (version) {
        case V110:
            break;
        case V19:
        case V18:
            l.sValues = 2;
            l.sAttributes = 3;
            l.sLink = 4;
            if (version == V18) {
                l.pComments = 7;
                l.pAttributes = 12;
            }
            break;
        case V17:
            l.pLocationIndices = 3;
            l.pTime = 4;
            l.timeIsFixed64 = false;
            l.pDuration = 5;
            l.pPeriodType = 6;
            l.pPeriod = 7;
            l.pComments = 8;
            l.pAttributes = 13;
            l.sStack = 0;
            l.sLocStart = 1;
            l.sLocLength = 2;
            l.sValues = 3;
            l.sAttributes = 4;
            l.sLink = 5;
            l.sTimestamps = 6;
            l.timestampsAreFixed64 = false;
            l.lAttributes = 5;
            l.lFolded = 4;
            l.mappingFlags = true;
            l.zeroIsUnset = false;
            l.keyValueAndUnit = false;
            break;
        }
        return l;
    }
};

/// The candidate layouts, narrowed by every field whose number and wire type only some layouts
/// have. Repeated scalars are taken as packed (proto3 writers pack them).
class LayoutHints {
public:
    uint8_t set() const { return m_set; }
    bool failed() const { return m_set == 0; }

    void narrow(uint8_t versions, std::string what)
    {
        if (m_set == 0 || (m_set & versions) == m_set)
            return;
        m_set &= versions;
        m_seen.push_back(what + " (" + describeLayouts(versions) + ")");
    }

    std::string seen() const
    {
        std::string s;
        for (size_t i = 0; i < m_seen.size(); ++i)
            s += (i ? "; " : "") + m_seen[i];
        return s;
    }

    void profileField(const Field& f)
    {
        const bool len = f.type == WireType::Len;
        const bool var = f.type == WireType::Varint;
        const std::string what = "profile field " + std::to_string(f.number) + " as " + protowire::wireTypeName(f.type);
        switch (f.number) {
        case 3:
            if (f.type == WireType::Fixed64)
                narrow(V18 | V19 | V110, what);
            else
                narrow(V17, what);
            break;
        case 4:
            if (!var)
                narrow(0, what);
            break;
        case 5:
            narrow(var ? V17 : len ? V18 | V19 | V110 : 0, what);
            break;
        case 6:
            narrow(len ? V17 : var ? V18 | V19 | V110 : 0, what);
            break;
        case 7:
            narrow(var ? V17 : len ? V18 | V19 | V110 : 0, what);
            break;
        case 8:
            narrow(len ? V17 | V18 : var ? V19 | V110 : 0, what);
            break;
        case 9:
            narrow(var ? V18 : len ? V17 | V19 | V110 : 0, what);
            break;
        case 10:
            narrow(var ? V17 : len ? V18 | V19 | V110 : 0, what);
            break;
        case 11:
            narrow(len ? kAllLayouts : var ? V19 | V110 : 0, what);
            break;
        case 12:
            narrow(len ? V17 | V18 : var ? V18 : 0, what);
            break;
        case 13:
            narrow(len || var ? V17 : 0, what);
            break;
        default:
            break;
        }
    }

    void valueTypeField(const Field& f)
    {
        if (f.number == 3)
            narrow(V17 | V18, "value type field 3 (aggregation_temporality)");
    }

    void sampleField(const Field& f)
    {
        const bool len = f.type == WireType::Len;
        const bool var = f.type == WireType::Varint;
        const std::string what = "sample field " + std::to_string(f.number) + " as " + protowire::wireTypeName(f.type);
        switch (f.number) {
        case 1:
            if (!var)
                narrow(0, what);
            break;
        case 2:
            narrow(var ? V17 : len ? V18 | V19 | V110 : 0, what);
            break;
        case 3:
            narrow(len ? V17 | V18 | V19 : var ? V110 : 0, what);
            break;
        case 4:
            narrow(len ? V17 | V110 : var ? V18 | V19 : 0, what);
            break;
        case 5:
            narrow(var ? V17 : (len || f.type == WireType::Fixed64) ? V18 | V19 | V110 : 0, what);
            break;
        case 6:
            narrow(len || var ? V17 : 0, what);
            break;
        default:
            break;
        }
    }

    void locationField(const Field& f)
    {
        if (f.number == 4)
            narrow(f.type == WireType::Varint ? V17 : V18 | V19 | V110,
                "location field 4 as " + std::string(protowire::wireTypeName(f.type)));
        else if (f.number == 5)
            narrow(V17, "location field 5");
    }

    void mappingField(const Field& f)
    {
        if (f.number >= 6 && f.number <= 9)
            narrow(V17, "mapping field " + std::to_string(f.number) + " (has_* flags)");
    }

    // First field of an attribute_table entry: a key string (KeyValue) or a key index.
    void attributeEntryField(const Field& f)
    {
        if (f.number == 1)
            narrow(f.type == WireType::Len ? V17 : V18 | V19 | V110,
                "attribute_table entry key as " + std::string(protowire::wireTypeName(f.type)));
        else if (f.number == 3)
            narrow(V18 | V19 | V110, "attribute_table entry field 3 (unit_strindex)");
    }

    // dictionary field 7: stack_table (packed location indices) or attribute_units (two varints).
    void dictionaryField7Entry(const Field& f)
    {
        if (f.number == 1)
            narrow(f.type == WireType::Len ? V18 | V19 | V110 : V17,
                "dictionary field 7 entry field 1 as " + std::string(protowire::wireTypeName(f.type)));
        else if (f.number == 2)
            narrow(V17, "dictionary field 7 entry field 2 (attribute_units)");
    }

    void keyValueField(const Field& f)
    {
        if (f.number == 3)
            narrow(V110, "KeyValue field 3 (key_strindex)");
    }

    void anyValueField(const Field& f)
    {
        if (f.number == 8)
            narrow(V110, "AnyValue field 8 (string_value_strindex)");
    }

private:
    uint8_t m_set = kAllLayouts;
    std::vector<std::string> m_seen;
};

std::string counted(size_t n, const char* one, const char* many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

Error invalid(std::string message)
{
    return makeError(ErrorCode::InvalidInput, std::move(message));
}

FrameKind frameKindOf(std::string_view type)
{
    static constexpr std::pair<std::string_view, FrameKind> kKinds[] = {
        { "native", FrameKind::Native },
        { "kernel", FrameKind::Kernel },
        { "go", FrameKind::Go },
        { "rust", FrameKind::Rust },
        { "cpython", FrameKind::Python },
        { "python", FrameKind::Python },
        { "php", FrameKind::Php },
        { "phpjit", FrameKind::Php },
        { "jvm", FrameKind::Jvm },
        { "ruby", FrameKind::Ruby },
        { "perl", FrameKind::Perl },
        { "v8js", FrameKind::JavaScript },
        { "dotnet", FrameKind::DotNet },
        { "beam", FrameKind::Beam },
    };
    for (const auto& [name, kind] : kKinds)
        if (type == name)
            return kind;
    return FrameKind::Unknown;
}

/// Names the element an error is about, built only when an error is reported (reading a
/// million samples must not format a million names): a fixed text, "table[i]",
/// "table[i].lines[k]" or "<profile>, sample i".
struct Where {
    const std::string* text = nullptr;
    const char* table = nullptr;
    uint64_t index = 0;
    const char* sub = nullptr;
    uint64_t subIndex = 0;
    bool sample = false;

    Where(const std::string& t) // NOLINT: implicit on purpose, a fixed name
        : text(&t)
    {
    }
    Where(const char* t, uint64_t i)
        : table(t)
        , index(i)
    {
    }
    static Where sampleOf(const std::string& profile, uint64_t i)
    {
        Where w(profile);
        w.sample = true;
        w.index = i;
        return w;
    }
    Where lineOf(uint64_t k) const
    {
        Where w = *this;
        w.sub = "lines";
        w.subIndex = k;
        return w;
    }
    std::string str() const
    {
        if (sample)
            return *text + ", sample " + std::to_string(index);
        if (!table)
            return *text;
        std::string s = std::string(table) + "[" + std::to_string(index) + "]";
        if (sub)
            s += "." + std::string(sub) + "[" + std::to_string(subIndex) + "]";
        return s;
    }
};

/// A profile of the file: where it is and what it belongs to.
struct ProfileRef {
    size_t resource = 0, scope = 0, profile = 0; // positions in the file, for messages
    std::span<const uint8_t> resourceBytes; // resource.v1.Resource (may be empty)
    std::span<const uint8_t> scopeBytes; // common.v1.InstrumentationScope (may be empty)
    std::span<const uint8_t> bytes; // Profile
};

class OtlpDecoder {
public:
    OtlpDecoder(std::span<const uint8_t> data, const OtlpReadOptions& options, Progress* progress)
        : m_data(data)
        , m_origin(data.data())
        , m_options(options)
        , m_progress(progress)
    {
    }

    Result<Profile> run()
    {
        if (Status s = scanStructure(); !s)
            return s.error();
        if (Status s = detectLayout(); !s)
            return s.error();
        m_layout = Layout::of(m_version);
        m_stringIds.assign(m_strings.size(), kUnset);
        if (!m_strings.empty())
            m_stringIds[0] = 0;
        m_profile.formatVersion = layoutName(m_version);
        if (Status s = listProfiles(); !s)
            return s.error();
        if (m_options.listOnly)
            return std::move(m_profile);
        if (m_profiles.empty())
            return invalid(
                "no profiles in the file (it holds " + counted(m_resourceCount, "resource", "resources") + ")");
        std::vector<size_t> chosen;
        if (m_options.profileIndex) {
            if (*m_options.profileIndex >= m_profiles.size())
                return makeError(ErrorCode::NotFound,
                    "no profile " + std::to_string(*m_options.profileIndex) + ": the file holds "
                        + counted(m_profiles.size(), "profile", "profiles") + " (0 to "
                        + std::to_string(m_profiles.size() - 1) + ")");
            chosen.push_back(*m_options.profileIndex);
        } else {
            for (size_t i = 0; i < m_profiles.size(); ++i)
                chosen.push_back(i);
        }
        m_profile.profileIndex = m_options.profileIndex;
        if (Status s = decodeProfiles(chosen); !s)
            return s.error();
        m_profile.updateFrameStatuses();
        // Kernel frames without names can't be looked up in a file.
        for (Location& loc : m_profile.locations)
            if (loc.kind == FrameKind::Kernel && loc.status != FrameStatus::Symbolized)
                loc.status = FrameStatus::NotApplicable;
        m_profile.finishBuilding();
        return std::move(m_profile);
    }

private:
    size_t offsetOf(std::span<const uint8_t> bytes) const { return static_cast<size_t>(bytes.data() - m_origin); }

    Error malformed(const Where& element, std::span<const uint8_t> bytes, const Decoder& d) const
    {
        if (d.error() == DecodeError::Truncated && offsetOf(bytes) == 0)
            return makeError(ErrorCode::Truncated, "truncated protobuf: " + d.errorText());
        return invalid("malformed " + element.str() + " (message at byte " + std::to_string(offsetOf(bytes))
            + "): " + d.errorText());
    }

    Error wrongType(const Where& element, const Field& f, const char* name, WireType want) const
    {
        return invalid(element.str() + ": field " + std::to_string(f.number) + " (" + name + ") has wire type "
            + protowire::wireTypeName(f.type) + ", expected " + protowire::wireTypeName(want) + " in the "
            + layoutName(m_version) + " layout");
    }

    // --- pass 1: structure
    Status scanStructure()
    {
        Decoder d(m_data, m_origin);
        Field f;
        bool sawKnown = false;
        while (d.next(f)) {
            if (f.number != 1 && f.number != 2)
                continue;
            if (f.type != WireType::Len)
                return invalid("not OTLP profiles: top-level field " + std::to_string(f.number) + " at byte "
                    + std::to_string(f.offset) + " has wire type " + protowire::wireTypeName(f.type)
                    + ", expected length-delimited");
            sawKnown = true;
            if (f.number == 1) {
                if (Status s = scanResource(f.bytes, m_resourceCount++); !s)
                    return s;
            } else if (Status s = scanDictionary(f.bytes); !s) {
                return s;
            }
        }
        if (d.failed()) {
            if (d.error() == DecodeError::Truncated)
                return makeError(ErrorCode::Truncated, "truncated protobuf: " + d.errorText());
            return invalid("not a protobuf message: " + d.errorText());
        }
        if (!sawKnown)
            return invalid("not OTLP profiles: no resource_profiles and no dictionary");
        return Status::success();
    }

    Status scanResource(std::span<const uint8_t> bytes, size_t r)
    {
        const std::string elementText = "resource_profiles[" + std::to_string(r) + "]";
        const Where element(elementText);
        Decoder d(bytes, m_origin);
        Field f;
        std::span<const uint8_t> resource;
        size_t scopeIndex = 0;
        while (d.next(f)) {
            if (f.number == 1 || f.number == 2) {
                if (f.type != WireType::Len)
                    return wrongTypeScan(element, f);
                if (f.number == 1) {
                    resource = f.bytes;
                    continue;
                }
                if (Status s = scanScope(f.bytes, r, scopeIndex++, resource); !s)
                    return s;
            }
        }
        if (d.failed())
            return malformed(element, bytes, d);
        // A resource written after its scopes still belongs to them.
        for (ProfileRef& p : m_profiles)
            if (p.resource == r)
                p.resourceBytes = resource;
        return Status::success();
    }

    Error wrongTypeScan(const Where& element, const Field& f) const
    {
        return invalid(element.str() + ": field " + std::to_string(f.number) + " has wire type "
            + protowire::wireTypeName(f.type) + ", expected length-delimited");
    }

    Status scanScope(std::span<const uint8_t> bytes, size_t r, size_t s, std::span<const uint8_t> resource)
    {
        const std::string elementText
            = "resource_profiles[" + std::to_string(r) + "].scope_profiles[" + std::to_string(s) + "]";
        const Where element(elementText);
        Decoder d(bytes, m_origin);
        Field f;
        std::span<const uint8_t> scope;
        const size_t first = m_profiles.size();
        size_t p = 0;
        while (d.next(f)) {
            if (f.number == 1 || f.number == 2) {
                if (f.type != WireType::Len)
                    return wrongTypeScan(element, f);
                if (f.number == 1)
                    scope = f.bytes;
                else
                    m_profiles.push_back(ProfileRef { r, s, p++, resource, {}, f.bytes });
            }
        }
        if (d.failed())
            return malformed(element, bytes, d);
        for (size_t i = first; i < m_profiles.size(); ++i)
            m_profiles[i].scopeBytes = scope;
        return Status::success();
    }

    Status scanDictionary(std::span<const uint8_t> bytes)
    {
        m_hasDictionary = true;
        Decoder d(bytes, m_origin);
        Field f;
        while (d.next(f)) {
            if (f.number < 1 || f.number > 7)
                continue;
            if (f.type != WireType::Len)
                return invalid("dictionary: field " + std::to_string(f.number) + " at byte " + std::to_string(f.offset)
                    + " has wire type " + protowire::wireTypeName(f.type) + ", expected length-delimited");
            switch (f.number) {
            case 1:
                m_mappings.push_back(f.bytes);
                break;
            case 2:
                m_locations.push_back(f.bytes);
                break;
            case 3:
                m_functions.push_back(f.bytes);
                break;
            case 4:
                m_links.push_back(f.bytes);
                break;
            case 5:
                m_strings.push_back(f.bytes);
                break;
            case 6:
                m_attributes.push_back(f.bytes);
                break;
            case 7:
                m_field7.push_back(f.bytes);
                break;
            }
        }
        if (d.failed())
            return malformed(std::string("dictionary"), bytes, d);
        if (m_strings.size() >= kUnset || m_locations.size() >= kUnset || m_field7.size() >= kUnset)
            return makeError(ErrorCode::TooLarge, "dictionary tables are too large (over 4 billion entries)");
        return Status::success();
    }

    // --- pass 2: which layout
    template <typename Fn> void forFields(std::span<const uint8_t> bytes, Fn&& fn, size_t limit = SIZE_MAX) const
    {
        Decoder d(bytes, m_origin);
        Field f;
        for (size_t n = 0; n < limit && d.next(f); ++n)
            fn(f);
    }

    void hintKeyValues(std::span<const uint8_t> owner, uint32_t field)
    {
        forFields(owner, [&](const Field& f) {
            if (f.number != field || f.type != WireType::Len)
                return;
            forFields(f.bytes, [&](const Field& kv) {
                m_hints.keyValueField(kv);
                if (kv.number == 2 && kv.type == WireType::Len)
                    forFields(kv.bytes, [&](const Field& av) { m_hints.anyValueField(av); });
            });
        });
    }

    Status detectLayout()
    {
        constexpr size_t kLook = 32; // entries of each table looked at
        for (size_t i = 0; i < std::min(kLook, m_attributes.size()); ++i)
            forFields(m_attributes[i], [&](const Field& f) {
                m_hints.attributeEntryField(f);
                if (f.number == 2 && f.type == WireType::Len)
                    forFields(f.bytes, [&](const Field& av) { m_hints.anyValueField(av); });
            });
        for (size_t i = 0; i < std::min(kLook, m_field7.size()); ++i)
            forFields(m_field7[i], [&](const Field& f) { m_hints.dictionaryField7Entry(f); });
        for (size_t i = 0; i < std::min(kLook, m_locations.size()); ++i)
            forFields(m_locations[i], [&](const Field& f) { m_hints.locationField(f); });
        for (size_t i = 0; i < std::min(kLook, m_mappings.size()); ++i)
            forFields(m_mappings[i], [&](const Field& f) { m_hints.mappingField(f); });
        for (const ProfileRef& p : m_profiles) {
            hintKeyValues(p.resourceBytes, 1);
            hintKeyValues(p.scopeBytes, 3);
            size_t samples = 0;
            forFields(p.bytes, [&](const Field& f) {
                if (f.number == 2 && f.type == WireType::Len) {
                    if (samples++ < kLook)
                        forFields(f.bytes, [&](const Field& sf) { m_hints.sampleField(sf); });
                    return;
                }
                m_hints.profileField(f);
                if (f.type == WireType::Len && (f.number == 1 || f.number == 5 || f.number == 6))
                    forFields(f.bytes, [&](const Field& vf) {
                        // field 1 is always sample_type; 5 or 6 is period_type in some layouts
                        if (f.number == 1 || vf.number == 3)
                            m_hints.valueTypeField(vf);
                    });
            });
            if (m_hints.failed())
                break;
        }
        if (m_hints.failed())
            return makeError(ErrorCode::Unsupported,
                "unknown OTLP profiles layout: " + m_hints.seen()
                    + " fit none of the layouts this reader knows (1.7.0 to 1.10.0)");
        for (uint8_t v : { V110, V19, V18, V17 })
            if (m_hints.set() & v) {
                m_version = v;
                break;
            }
        return Status::success();
    }

    // --- strings, attributes
    bool stringAt(uint64_t index, StringId& out)
    {
        if (index >= m_strings.size()) {
            // Index 0 is "" even with no string table at all.
            if (index == 0) {
                out = StringId();
                return true;
            }
            return false;
        }
        uint32_t& id = m_stringIds[static_cast<size_t>(index)];
        if (id == kUnset) {
            const auto b = m_strings[static_cast<size_t>(index)];
            id = m_profile.strings.intern({ reinterpret_cast<const char*>(b.data()), b.size() }).value;
        }
        out = StringId(id);
        return true;
    }

    Error badIndex(const Where& element, const char* field, uint64_t index, const char* table, size_t size) const
    {
        const bool negative = index > uint64_t(std::numeric_limits<int32_t>::max());
        return invalid(element.str() + ": " + field + " "
            + std::to_string(static_cast<int64_t>(static_cast<int32_t>(index)))
            + (negative ? " is negative" : " out of range") + " (" + table + " has " + counted(size, "entry", "entries")
            + ")");
    }

    Status resolveString(uint64_t index, StringId& out, const Where& element, const char* field)
    {
        if (stringAt(index, out))
            return Status::success();
        if (m_strings.empty() && !m_hasDictionary)
            return invalid(element.str() + ": " + field + " " + std::to_string(index)
                + " refers to the string table, but the file has no dictionary");
        return badIndex(element, field, index, "string_table", m_strings.size());
    }

    // A value as text for a label: strings as they are, the rest printed.
    std::string anyValueText(std::span<const uint8_t> bytes, int depth, bool* isInt, int64_t* intValue)
    {
        std::string text;
        Decoder d(bytes, m_origin);
        Field f;
        while (d.next(f)) {
            switch (f.number) {
            case 1:
                if (f.type == WireType::Len)
                    text = std::string(f.asString());
                break;
            case 2:
                if (f.type == WireType::Varint)
                    text = f.value ? "true" : "false";
                break;
            case 3:
                if (f.type == WireType::Varint) {
                    if (isInt) {
                        *isInt = true;
                        *intValue = f.asInt64();
                    }
                    text = std::to_string(f.asInt64());
                }
                break;
            case 4:
                if (f.type == WireType::Fixed64) {
                    double v;
                    std::memcpy(&v, &f.value, sizeof v);
                    char buf[40];
                    std::snprintf(buf, sizeof buf, "%.17g", v);
                    text = buf;
                }
                break;
            case 5:
            case 6:
                if (f.type == WireType::Len && depth < 8) {
                    // ArrayValue: 1 repeated AnyValue; KeyValueList: 1 repeated KeyValue.
                    std::string inner;
                    Decoder ad(f.bytes, m_origin);
                    Field e;
                    while (ad.next(e)) {
                        if (e.number != 1 || e.type != WireType::Len)
                            continue;
                        if (!inner.empty())
                            inner += ", ";
                        if (f.number == 5) {
                            inner += anyValueText(e.bytes, depth + 1, nullptr, nullptr);
                        } else {
                            Decoder kd(e.bytes, m_origin);
                            Field k;
                            std::string key, value;
                            while (kd.next(k)) {
                                if (k.number == 1 && k.type == WireType::Len)
                                    key = std::string(k.asString());
                                else if (k.number == 2 && k.type == WireType::Len)
                                    value = anyValueText(k.bytes, depth + 1, nullptr, nullptr);
                                else if (k.number == 3 && k.type == WireType::Varint) {
                                    StringId id;
                                    if (stringAt(k.value, id))
                                        key = std::string(m_profile.str(id));
                                }
                            }
                            inner += key + "=" + value;
                        }
                    }
                    text = f.number == 5 ? "[" + inner + "]" : "{" + inner + "}";
                }
                break;
            case 7:
                if (f.type == WireType::Len)
                    text = hexBytes(f.bytes);
                break;
            case 8:
                if (f.type == WireType::Varint) {
                    StringId id;
                    if (stringAt(f.value, id))
                        text = std::string(m_profile.str(id));
                }
                break;
            default:
                break;
            }
        }
        return text;
    }

    // A KeyValue of a resource or scope (1 key string, 2 value, 3 key_strindex in 1.10).
    Status decodeKeyValue(std::span<const uint8_t> bytes, const Where& element, Label& out)
    {
        Decoder d(bytes, m_origin);
        Field f;
        out = Label();
        bool isInt = false;
        int64_t num = 0;
        std::string value;
        while (d.next(f)) {
            if (f.number == 1 && f.type == WireType::Len)
                out.key = m_profile.strings.intern(f.asString());
            else if (f.number == 2 && f.type == WireType::Len)
                value = anyValueText(f.bytes, 0, &isInt, &num);
            else if (f.number == 3 && f.type == WireType::Varint) {
                if (Status s = resolveString(f.value, out.key, element, "key_strindex"); !s)
                    return s;
            }
        }
        if (d.failed())
            return malformed(element, bytes, d);
        if (isInt)
            out.num = num;
        else
            out.str = m_profile.strings.intern(value);
        return Status::success();
    }

    // attribute_table[i] as a label (converted once).
    Status attributeAt(uint64_t index, const Where& element, const Label*& out)
    {
        if (index >= m_attributes.size())
            return badIndex(element, "attribute index", index, "attribute_table", m_attributes.size());
        if (m_attributeCache.empty()) {
            m_attributeCache.resize(m_attributes.size());
            m_attributeDone.assign(m_attributes.size(), 0);
        }
        const size_t i = static_cast<size_t>(index);
        if (!m_attributeDone[i]) {
            const Where entry("attribute_table", i);
            Label& label = m_attributeCache[i];
            if (m_layout.keyValueAndUnit) {
                Decoder d(m_attributes[i], m_origin);
                Field f;
                bool isInt = false;
                int64_t num = 0;
                std::string value;
                while (d.next(f)) {
                    if (f.number == 1) {
                        if (f.type != WireType::Varint)
                            return wrongType(entry, f, "key_strindex", WireType::Varint);
                        if (Status s = resolveString(f.value, label.key, entry, "key_strindex"); !s)
                            return s;
                    } else if (f.number == 2) {
                        if (f.type != WireType::Len)
                            return wrongType(entry, f, "value", WireType::Len);
                        value = anyValueText(f.bytes, 0, &isInt, &num);
                    } else if (f.number == 3) {
                        if (f.type != WireType::Varint)
                            return wrongType(entry, f, "unit_strindex", WireType::Varint);
                        if (Status s = resolveString(f.value, label.numUnit, entry, "unit_strindex"); !s)
                            return s;
                    }
                }
                if (d.failed())
                    return malformed(entry, m_attributes[i], d);
                if (isInt)
                    label.num = num;
                else
                    label.str = m_profile.strings.intern(value);
            } else if (Status s = decodeKeyValue(m_attributes[i], entry, label); !s) {
                return s;
            }
            if (!label.str.empty())
                label.numUnit = StringId();
            m_attributeDone[i] = 1;
        }
        out = &m_attributeCache[i];
        return Status::success();
    }

    // Calls fn(label) for every attribute index of a packed or unpacked repeated int32 field;
    // index 0 is skipped where it means "unset".
    template <typename Fn> Status forAttributes(const Field& f, const Where& element, Fn&& fn)
    {
        Status st;
        const DecodeError e = protowire::forEachVarint(f, [&](uint64_t index) {
            if (!st || (index == 0 && m_layout.zeroIsUnset))
                return;
            const Label* label = nullptr;
            st = attributeAt(index, element, label);
            if (st)
                fn(*label);
        });
        if (e != DecodeError::None)
            return invalid(element.str() + ": attribute_indices: packed varints end early");
        return st;
    }

    // --- dictionary entries
    Status mappingAt(uint64_t index, const Where& element, MappingId& out)
    {
        if (index == 0) {
            out = MappingId();
            return Status::success();
        }
        if (index >= m_mappings.size())
            return badIndex(element, "mapping_index", index, "mapping_table", m_mappings.size());
        if (m_mappingRow.empty())
            m_mappingRow.assign(m_mappings.size(), kUnset);
        uint32_t& row = m_mappingRow[static_cast<size_t>(index)];
        if (row == kUnset) {
            const Where entry("mapping_table", index);
            const auto bytes = m_mappings[static_cast<size_t>(index)];
            Mapping m;
            m.sourceId = index;
            m.flags = Mapping::ElfAddresses;
            StringId gnu, go, htl;
            Decoder d(bytes, m_origin);
            Field f;
            while (d.next(f)) {
                switch (f.number) {
                case 1:
                case 2:
                case 3:
                case 4: {
                    static const char* names[]
                        = { "", "memory_start", "memory_limit", "file_offset", "filename_strindex" };
                    if (f.type != WireType::Varint)
                        return wrongType(entry, f, names[f.number], WireType::Varint);
                    if (f.number == 1)
                        m.start = f.value;
                    else if (f.number == 2)
                        m.limit = f.value;
                    else if (f.number == 3)
                        m.offset = f.value;
                    else if (Status s = resolveString(f.value, m.file, entry, "filename_strindex"); !s)
                        return s;
                    break;
                }
                case 5:
                    if (Status s = forAttributes(f, entry,
                            [&](const Label& a) {
                                const std::string_view key = m_profile.str(a.key);
                                if (key == "process.executable.build_id.gnu")
                                    gnu = a.str;
                                else if (key == "process.executable.build_id.go")
                                    go = a.str;
                                else if (key == "process.executable.build_id.htlhash")
                                    htl = a.str;
                                else if (key.starts_with("pprof.mapping.has_")) {
                                    const bool on = m_profile.str(a.str) == "true" || a.num != 0;
                                    const std::string_view flag = key.substr(18);
                                    const uint8_t bit = flag == "functions" ? Mapping::HasFunctions
                                        : flag == "filenames"               ? Mapping::HasFilenames
                                        : flag == "line_numbers"            ? Mapping::HasLineNumbers
                                        : flag == "inline_frames"           ? Mapping::HasInlineFrames
                                                                            : 0;
                                    if (on)
                                        m.flags |= bit;
                                }
                            });
                        !s)
                        return s;
                    break;
                case 6:
                case 7:
                case 8:
                case 9:
                    if (m_layout.mappingFlags && f.type == WireType::Varint && f.value) {
                        static const uint8_t bits[] = { Mapping::HasFunctions, Mapping::HasFilenames,
                            Mapping::HasLineNumbers, Mapping::HasInlineFrames };
                        m.flags |= bits[f.number - 6];
                    }
                    break;
                default:
                    break;
                }
            }
            if (d.failed())
                return malformed(entry, bytes, d);
            m.buildId = !gnu.empty() ? gnu : go;
            m.goBuildId = go;
            m.htlHash = htl;
            row = static_cast<uint32_t>(m_profile.mappings.size());
            m_profile.mappings.push_back(m);
        }
        out = MappingId(row);
        return Status::success();
    }

    Status functionAt(uint64_t index, const Where& element, FunctionId& out)
    {
        if (index == 0 && m_layout.zeroIsUnset) {
            out = FunctionId();
            return Status::success();
        }
        if (index >= m_functions.size())
            return badIndex(element, "function_index", index, "function_table", m_functions.size());
        if (m_functionRow.empty())
            m_functionRow.assign(m_functions.size(), kUnset);
        uint32_t& row = m_functionRow[static_cast<size_t>(index)];
        if (row == kUnset) {
            const Where entry("function_table", index);
            const auto bytes = m_functions[static_cast<size_t>(index)];
            Function fn;
            fn.sourceId = index;
            Decoder d(bytes, m_origin);
            Field f;
            while (d.next(f)) {
                if (f.number < 1 || f.number > 4)
                    continue;
                static const char* names[]
                    = { "", "name_strindex", "system_name_strindex", "filename_strindex", "start_line" };
                if (f.type != WireType::Varint)
                    return wrongType(entry, f, names[f.number], WireType::Varint);
                StringId* target = f.number == 1 ? &fn.name : f.number == 2 ? &fn.systemName : &fn.file;
                if (f.number == 4)
                    fn.startLine = f.asInt64();
                else if (Status s = resolveString(f.value, *target, entry, names[f.number]); !s)
                    return s;
            }
            if (d.failed())
                return malformed(entry, bytes, d);
            row = static_cast<uint32_t>(m_profile.functions.size());
            m_profile.functions.push_back(fn);
        }
        out = FunctionId(row);
        return Status::success();
    }

    Status locationAt(uint64_t index, const Where& element, LocationId& out)
    {
        if (index == 0 && m_layout.zeroIsUnset)
            return invalid(element.str() + ": location index 0 (the unset entry of location_table) in a stack");
        if (index >= m_locations.size())
            return badIndex(element, "location index", index, "location_table", m_locations.size());
        uint32_t& row = m_locationRow[static_cast<size_t>(index)];
        if (row != kUnset) {
            out = LocationId(row);
            return Status::success();
        }
        const Where entry("location_table", index);
        const auto bytes = m_locations[static_cast<size_t>(index)];
        Location loc;
        loc.sourceId = index;
        m_lineScratch.clear();
        Decoder d(bytes, m_origin);
        Field f;
        while (d.next(f)) {
            if (f.number == 1 || f.number == 2) {
                if (f.type != WireType::Varint)
                    return wrongType(entry, f, f.number == 1 ? "mapping_index" : "address", WireType::Varint);
                if (f.number == 1) {
                    if (Status s = mappingAt(f.value, entry, loc.mapping); !s)
                        return s;
                } else {
                    loc.address = f.value;
                }
            } else if (f.number == 3) {
                if (f.type != WireType::Len)
                    return wrongType(entry, f, "lines", WireType::Len);
                Line line;
                Decoder ld(f.bytes, m_origin);
                Field lf;
                const Where lineElement = entry.lineOf(m_lineScratch.size());
                while (ld.next(lf)) {
                    if (lf.number < 1 || lf.number > 3)
                        continue;
                    if (lf.type != WireType::Varint)
                        return wrongType(lineElement, lf,
                            lf.number == 1       ? "function_index"
                                : lf.number == 2 ? "line"
                                                 : "column",
                            WireType::Varint);
                    if (lf.number == 1) {
                        if (Status s = functionAt(lf.value, lineElement, line.function); !s)
                            return s;
                    } else if (lf.number == 2) {
                        line.line = lf.asInt64();
                    } else {
                        line.column = lf.asInt64();
                    }
                }
                if (ld.failed())
                    return malformed(lineElement, f.bytes, ld);
                m_lineScratch.push_back(line);
            } else if (f.number == m_layout.lAttributes) {
                if (Status s = forAttributes(f, entry,
                        [&](const Label& a) {
                            if (m_profile.str(a.key) == "profile.frame.type")
                                loc.kind = frameKindOf(m_profile.str(a.str));
                        });
                    !s)
                    return s;
            } else if (f.number == m_layout.lFolded && f.type == WireType::Varint) {
                loc.isFolded = f.value != 0;
            }
        }
        if (d.failed())
            return malformed(entry, bytes, d);
        if (m_profile.lines.size() + m_lineScratch.size() >= kUnset)
            return makeError(ErrorCode::TooLarge, "too many location lines");
        loc.linesBegin = static_cast<uint32_t>(m_profile.lines.size());
        loc.lineCount = static_cast<uint32_t>(m_lineScratch.size());
        m_profile.lines.insert(m_profile.lines.end(), m_lineScratch.begin(), m_lineScratch.end());
        row = static_cast<uint32_t>(m_profile.locations.size());
        m_profile.locations.push_back(loc);
        out = LocationId(row);
        return Status::success();
    }

    // Appends the locations of packed (or unpacked) index field f to m_stack.
    Status appendLocations(const Field& f, const Where& element)
    {
        // The hot loop of reading (every distinct stack passes here): locations converted
        // before are looked up inline; only new ones (or bad indices) take the full path.
        Status st;
        const auto one = [&](uint64_t index) {
            if (index < m_locationRow.size() && m_locationRow[index] != kUnset && (index != 0 || !m_layout.zeroIsUnset))
                [[likely]] {
                m_stack.push_back(LocationId(m_locationRow[index]));
                return true;
            }
            LocationId id;
            st = locationAt(index, element, id);
            if (!st)
                return false;
            m_stack.push_back(id);
            return true;
        };
        bool ended = false;
        if (f.type == WireType::Len) {
            const uint8_t* q = f.bytes.data();
            const uint8_t* end = q + f.bytes.size();
            const uint8_t* safeEnd = f.bytes.size() >= 10 ? end - 10 : q; // before it, 10 bytes follow
            while (q < end) {
                uint64_t index;
                if (*q < 0x80) {
                    index = *q++;
                } else if (q < safeEnd) {
                    q = protowire::readVarintUnchecked(q, index);
                    if (!q) {
                        ended = true;
                        break;
                    }
                } else if (protowire::readVarint(q, end, index) != protowire::VarintStatus::Ok) {
                    ended = true;
                    break;
                }
                if (!one(index))
                    return st;
            }
        } else if (f.type == WireType::Varint) {
            if (!one(f.value))
                return st;
        } else {
            ended = true;
        }
        if (ended)
            return invalid(element.str() + ": location indices: packed varints end early");
        if (m_stack.size() > m_options.maxStackDepth)
            return makeError(ErrorCode::TooLarge,
                element.str() + ": stack deeper than " + std::to_string(m_options.maxStackDepth) + " frames");
        return Status::success();
    }

    Status stackAt(uint64_t index, const Where& element, StackId& out)
    {
        if (index >= m_field7.size()) {
            if (m_field7.empty() && index == 0) {
                // No stack table at all: stack 0 is the empty (unset) stack.
                out = m_profile.internStack({});
                return Status::success();
            }
            if (!m_hasDictionary)
                return invalid(element.str() + ": stack_index " + std::to_string(index)
                    + " refers to the dictionary's stack_table, but the file has no dictionary");
            return badIndex(element, "stack_index", index, "stack_table", m_field7.size());
        }
        if (m_stackRow.empty())
            m_stackRow.assign(m_field7.size(), kUnset);
        uint32_t& row = m_stackRow[static_cast<size_t>(index)];
        if (row != kUnset) {
            out = StackId(row);
            return Status::success();
        }
        const Where entry("stack_table", index);
        m_stack.clear();
        Decoder d(m_field7[static_cast<size_t>(index)], m_origin);
        Field f;
        while (d.next(f)) {
            if (f.number != 1)
                continue;
            if (f.type != WireType::Len && f.type != WireType::Varint)
                return wrongType(entry, f, "location_indices", WireType::Len);
            if (Status s = appendLocations(f, entry); !s)
                return s;
        }
        if (d.failed())
            return malformed(entry, m_field7[static_cast<size_t>(index)], d);
        if (index == 0 && !m_stack.empty())
            return invalid("stack_table[0] holds " + counted(m_stack.size(), "location", "locations")
                + ": entry 0 of every table must be the zero value (index 0 means unset)");
        if (m_profile.stackLocations.size() + m_stack.size() >= kUnset)
            return makeError(ErrorCode::TooLarge, "too many distinct stack frames (over 4 billion)");
        out = m_profile.internStack(m_stack);
        row = out.value;
        return Status::success();
    }

    Status linkAt(uint64_t index, const Where& element, uint32_t& out)
    {
        if (index == 0) {
            out = 0;
            return Status::success();
        }
        if (index >= m_links.size())
            return badIndex(element, "link_index", index, "link_table", m_links.size());
        if (m_linkRow.empty())
            m_linkRow.assign(m_links.size(), kUnset);
        uint32_t& row = m_linkRow[static_cast<size_t>(index)];
        if (row == kUnset) {
            const Where entry("link_table", index);
            SampleLink link;
            Decoder d(m_links[static_cast<size_t>(index)], m_origin);
            Field f;
            while (d.next(f)) {
                if (f.number != 1 && f.number != 2)
                    continue;
                if (f.type != WireType::Len)
                    return wrongType(entry, f, f.number == 1 ? "trace_id" : "span_id", WireType::Len);
                const size_t want = f.number == 1 ? 16 : 8;
                if (f.bytes.size() != want)
                    return invalid(entry.str() + ": " + (f.number == 1 ? "trace_id" : "span_id") + " has "
                        + counted(f.bytes.size(), "byte", "bytes") + ", expected " + std::to_string(want));
                std::memcpy(f.number == 1 ? link.traceId : link.spanId, f.bytes.data(), want);
            }
            if (d.failed())
                return malformed(entry, m_links[static_cast<size_t>(index)], d);
            if (m_profile.links.empty())
                m_profile.links.emplace_back(); // entry 0: none
            row = static_cast<uint32_t>(m_profile.links.size());
            m_profile.links.push_back(link);
        }
        out = row;
        return Status::success();
    }

    // --- profiles
    std::string profileElement(const ProfileRef& p, size_t index) const
    {
        return "profile " + std::to_string(index) + " (resource_profiles[" + std::to_string(p.resource)
            + "].scope_profiles[" + std::to_string(p.scope) + "].profiles[" + std::to_string(p.profile) + "])";
    }

    Status decodeValueType(std::span<const uint8_t> bytes, const Where& element, ValueType& out)
    {
        Decoder d(bytes, m_origin);
        Field f;
        while (d.next(f)) {
            if (f.number != 1 && f.number != 2)
                continue;
            if (f.type != WireType::Varint)
                return wrongType(element, f, f.number == 1 ? "type_strindex" : "unit_strindex", WireType::Varint);
            if (Status s = resolveString(f.value, f.number == 1 ? out.type : out.unit, element,
                    f.number == 1 ? "type_strindex" : "unit_strindex");
                !s)
                return s;
        }
        if (d.failed())
            return malformed(element, bytes, d);
        return Status::success();
    }

    // Resource attributes of interest for the list, without touching the model's tables more
    // than interning a few strings.
    Status resourceAttributes(const ProfileRef& p, std::vector<Label>& out)
    {
        for (auto [bytes, field, what] :
            { std::tuple { p.resourceBytes, 1u, "resource" }, { p.scopeBytes, 3u, "scope" } }) {
            const std::string elementText
                = "resource_profiles[" + std::to_string(p.resource) + "]." + (field == 1 ? "resource" : "scope");
            const Where element(elementText);
            Decoder d(bytes, m_origin);
            Field f;
            while (d.next(f)) {
                if (field == 3 && (f.number == 1 || f.number == 2) && f.type == WireType::Len) {
                    Label l;
                    l.key = m_profile.strings.intern(f.number == 1 ? "otel.scope.name" : "otel.scope.version");
                    l.str = m_profile.strings.intern(f.asString());
                    if (!l.str.empty())
                        out.push_back(l);
                    continue;
                }
                if (f.number != field || f.type != WireType::Len)
                    continue;
                Label l;
                if (Status s = decodeKeyValue(f.bytes, element.str() + " attribute", l); !s)
                    return s;
                out.push_back(l);
            }
            if (d.failed())
                return malformed(element, bytes, d);
            (void)what;
        }
        return Status::success();
    }

    Status listProfiles()
    {
        m_profile.profilesInFile.reserve(m_profiles.size());
        for (size_t i = 0; i < m_profiles.size(); ++i) {
            const ProfileRef& p = m_profiles[i];
            const std::string elementText = profileElement(p, i);
            const Where element(elementText);
            ProfileChoice c;
            std::vector<Label> attrs;
            if (Status s = resourceAttributes(p, attrs); !s)
                return s;
            for (const Label& a : attrs) {
                if (m_profile.str(a.key) == "service.name")
                    c.serviceName = std::string(m_profile.str(a.str));
                else if (m_profile.str(a.key) == "process.executable.name")
                    c.executableName = std::string(m_profile.str(a.str));
                else if (m_profile.str(a.key) == "process.pid")
                    c.pid = a.str.empty() ? a.num : std::atoll(std::string(m_profile.str(a.str)).c_str());
            }
            Decoder d(p.bytes, m_origin);
            Field f;
            std::string types;
            while (d.next(f)) {
                if (f.number == 2)
                    ++c.samples;
                else if (f.number == 1 && f.type == WireType::Len) {
                    ValueType vt;
                    if (Status s = decodeValueType(f.bytes, element.str() + " sample_type", vt); !s)
                        return s;
                    types += (types.empty() ? "" : ", ") + std::string(m_profile.str(vt.type)) + " ("
                        + std::string(m_profile.str(vt.unit)) + ")";
                }
            }
            if (d.failed())
                return malformed(element, p.bytes, d);
            c.sampleType = types;
            m_profile.profilesInFile.push_back(std::move(c));
        }
        return Status::success();
    }

    /// The header of one profile to read: what its samples need and what merges into the result.
    struct Header {
        std::vector<ValueType> types;
        ValueType periodType;
        int64_t period = 0;
        int64_t time = 0;
        int64_t duration = 0;
        std::vector<uint64_t> comments;
        std::vector<Label> attributes; ///< resource, scope and profile attributes
        size_t sampleCount = 0;
        // Filled when the result's sample types are known:
        std::vector<size_t> columns; ///< the result's column of each of types
        size_t derivedColumn = SIZE_MAX; ///< count × period goes here (count-only samples)
        uint32_t labelSet = 0; ///< the attributes not common to every profile read, as a label set
        std::vector<Label> ownLabels; ///< the same, as labels (sample attributes follow them)
    };

    Status readHeader(const ProfileRef& ref, size_t index, Header& h)
    {
        const std::string elementText = profileElement(ref, index);
        const Where element(elementText);
        if (Status s = resourceAttributes(ref, h.attributes); !s)
            return s;
        Decoder d(ref.bytes, m_origin);
        Field f;
        while (d.next(f)) {
            const uint32_t n = f.number;
            if (n == 1) {
                if (f.type != WireType::Len)
                    return wrongType(element, f, "sample_type", WireType::Len);
                ValueType vt;
                if (Status s = decodeValueType(f.bytes, element.str() + " sample_type", vt); !s)
                    return s;
                h.types.push_back(vt);
            } else if (n == 2) {
                if (f.type != WireType::Len)
                    return wrongType(element, f, "samples", WireType::Len);
                ++h.sampleCount;
            } else if (n == m_layout.pTime) {
                if (f.type != (m_layout.timeIsFixed64 ? WireType::Fixed64 : WireType::Varint))
                    return wrongType(
                        element, f, "time_unix_nano", m_layout.timeIsFixed64 ? WireType::Fixed64 : WireType::Varint);
                h.time = f.asInt64();
            } else if (n == m_layout.pDuration) {
                if (f.type != WireType::Varint)
                    return wrongType(element, f, "duration_nano", WireType::Varint);
                h.duration = f.asInt64();
            } else if (n == m_layout.pPeriodType) {
                if (f.type != WireType::Len)
                    return wrongType(element, f, "period_type", WireType::Len);
                if (Status s = decodeValueType(f.bytes, element.str() + " period_type", h.periodType); !s)
                    return s;
            } else if (n == m_layout.pPeriod) {
                if (f.type != WireType::Varint)
                    return wrongType(element, f, "period", WireType::Varint);
                h.period = f.asInt64();
            } else if (n == m_layout.pComments) {
                if (protowire::forEachVarint(f, [&](uint64_t v) { h.comments.push_back(v); }) != DecodeError::None)
                    return invalid(element.str() + ": comment_strindices: packed varints end early");
            } else if (n == m_layout.pAttributes) {
                if (Status s = forAttributes(f, element, [&](const Label& a) { h.attributes.push_back(a); }); !s)
                    return s;
            }
        }
        if (d.failed())
            return malformed(element, ref.bytes, d);
        if (h.sampleCount > 0 && h.types.empty())
            return invalid(element.str() + ": it has samples but no sample_type");
        return Status::success();
    }

    // The result's sample types: each (type, unit) of the profiles read once, in order of first
    // appearance. A profile of count-only samples ("samples"/"count") with a period gets its
    // time too (count × period, as the period type: "cpu"/"nanoseconds"), right after the count.
    void combineSampleTypes(std::vector<Header>& headers)
    {
        Profile& p = m_profile;
        const auto column = [&](ValueType vt) {
            for (size_t c = 0; c < p.sampleTypes.size(); ++c)
                if (p.sampleTypes[c].type == vt.type && p.sampleTypes[c].unit == vt.unit)
                    return c;
            p.sampleTypes.push_back(vt);
            return p.sampleTypes.size() - 1;
        };
        // A time some profile holds as its sample type (a file symflame wrote) is not derived.
        const auto explicitType = [&](const ValueType& vt) {
            return std::any_of(headers.begin(), headers.end(), [&](const Header& h) {
                return std::any_of(h.types.begin(), h.types.end(),
                    [&](const ValueType& t) { return t.type == vt.type && t.unit == vt.unit; });
            });
        };
        for (size_t i = 0; i < headers.size(); ++i) {
            Header& h = headers[i];
            for (const ValueType& vt : h.types)
                h.columns.push_back(column(vt));
            const bool countOnly = h.types.size() == 1 && p.str(h.types[0].unit) == "count";
            const ValueType& pt = h.periodType;
            if (countOnly && h.period > 0 && !pt.type.empty() && !pt.unit.empty() && p.str(pt.unit) != "count"
                && pt.type != h.types[0].type && !explicitType(pt))
                h.derivedColumn = column(pt);
            if (i == 0 && !h.columns.empty())
                p.defaultSampleType = h.derivedColumn != SIZE_MAX ? h.derivedColumn : h.columns.back();
        }
    }

    // Attributes every profile read has (the same key and value) stay the profile's; the rest
    // become labels of each sample, so that samples keep the process they came from.
    void combineAttributes(std::vector<Header>& headers)
    {
        Profile& p = m_profile;
        for (const Label& a : headers.front().attributes) {
            const bool everywhere = std::all_of(headers.begin() + 1, headers.end(), [&](const Header& h) {
                return std::find(h.attributes.begin(), h.attributes.end(), a) != h.attributes.end();
            });
            if (everywhere)
                p.attributes.push_back(a);
        }
        for (Header& h : headers) {
            for (const Label& a : h.attributes)
                if (std::find(p.attributes.begin(), p.attributes.end(), a) == p.attributes.end())
                    h.ownLabels.push_back(a);
            h.labelSet = p.internLabelSet(h.ownLabels);
        }
    }

    void combineHeaders(const std::vector<Header>& headers)
    {
        Profile& p = m_profile;
        int64_t start = 0, end = 0;
        for (const Header& h : headers) {
            if (p.periodType.type.empty() && !h.periodType.type.empty())
                p.periodType = h.periodType;
            p.period = std::max(p.period, h.period);
            if (h.time != 0) {
                start = start == 0 ? h.time : std::min(start, h.time);
                end = std::max(end, h.time + std::max<int64_t>(h.duration, 0));
            }
        }
        p.timeNanos = start;
        p.durationNanos = start != 0 ? end - start : headers.front().duration;
    }

    Status addComments(const ProfileRef& ref, size_t index, const Header& h)
    {
        const std::string elementText = profileElement(ref, index);
        for (uint64_t c : h.comments) {
            StringId id;
            if (Status s = resolveString(c, id, Where(elementText), "comment_strindices"); !s)
                return s;
            if (std::find(m_profile.comments.begin(), m_profile.comments.end(), id) == m_profile.comments.end())
                m_profile.comments.push_back(id);
        }
        return Status::success();
    }

    // Reads the chosen profiles into one: their headers first (sample types, attributes), then
    // the samples of each in file order.
    Status decodeProfiles(const std::vector<size_t>& chosen)
    {
        std::vector<Header> headers(chosen.size());
        size_t total = 0;
        for (size_t i = 0; i < chosen.size(); ++i) {
            if (Status s = readHeader(m_profiles[chosen[i]], chosen[i], headers[i]); !s)
                return s;
            total += headers[i].sampleCount;
        }
        combineSampleTypes(headers);
        combineAttributes(headers);
        combineHeaders(headers);
        m_locationRow.assign(m_locations.size(), kUnset);
        m_profile.sampleStacks.reserve(total);
        m_profile.sampleValues.reserve(total * m_profile.sampleTypes.size());
        if (m_progress && total > 0)
            m_progress->setStage("reading samples");
        m_samplesTotal = total;
        for (size_t i = 0; i < chosen.size(); ++i) {
            const ProfileRef& ref = m_profiles[chosen[i]];
            if (Status s = addComments(ref, chosen[i], headers[i]); !s)
                return s;
            if (headers[i].sampleCount == 0)
                continue;
            if (Status s = readLocationIndices(ref, chosen[i]); !s)
                return s;
            if (Status s = decodeSamples(ref, headers[i], profileElement(ref, chosen[i])); !s)
                return s;
        }
        if (m_progress)
            m_progress->setProgress(m_samplesRead, m_samplesTotal);
        return Status::success();
    }

    // 1.7: the profile's location_indices, which its samples slice.
    Status readLocationIndices(const ProfileRef& ref, size_t index)
    {
        m_locationIndices.clear();
        m_legacySlices.clear();
        if (m_layout.pLocationIndices == 0)
            return Status::success();
        Decoder d(ref.bytes, m_origin);
        Field f;
        while (d.next(f))
            if (f.number == m_layout.pLocationIndices
                && protowire::forEachVarint(f, [&](uint64_t v) { m_locationIndices.push_back(v); }) != DecodeError::None)
                return invalid(profileElement(ref, index) + ": location_indices: packed varints end early");
        return Status::success();
    }

    Status decodeSamples(const ProfileRef& ref, const Header& header, const std::string& profileElement)
    {
        Profile& p = m_profile;
        const Layout& L = m_layout;
        const size_t nTypes = header.types.size();
        std::vector<int64_t> row(p.sampleTypes.size(), 0);
        // Label sets by the bytes of the samples' attribute_indices: threads repeat.
        std::unordered_map<std::string_view, uint32_t> setOfAttributes;
        std::vector<int64_t> values;
        std::vector<int64_t> timestamps;
        std::vector<Label> labels;
        Decoder top(ref.bytes, m_origin);
        Field f;
        Field sf;
        size_t index = 0;
        while (top.next(f)) {
            if (f.number != 2)
                continue;
            values.clear();
            timestamps.clear();
            labels.clear();
            uint64_t stackIndex = 0, locStart = 0, locLength = 0, linkIndex = 0;
            bool sawAttributes = false;
            std::span<const uint8_t> attributeBytes;
            Field attributeField;
            Decoder sd(f.bytes, m_origin);
            while (sd.next(sf)) {
                const uint32_t n = sf.number;
                if (n == L.sStack || n == L.sLocStart || n == L.sLocLength || n == L.sLink) {
                    if (sf.type != WireType::Varint)
                        return wrongType(Where::sampleOf(profileElement, index), sf,
                            n == L.sStack          ? "stack_index"
                                : n == L.sLink     ? "link_index"
                                : n == L.sLocStart ? "locations_start_index"
                                                   : "locations_length",
                            WireType::Varint);
                    (n == L.sStack             ? stackIndex
                            : n == L.sLink     ? linkIndex
                            : n == L.sLocStart ? locStart
                                               : locLength)
                        = sf.value;
                } else if (n == L.sValues) {
                    if (protowire::forEachVarint(sf, [&](uint64_t v) { values.push_back(static_cast<int64_t>(v)); })
                        != DecodeError::None)
                        return invalid(
                            Where::sampleOf(profileElement, index).str() + ": values: packed varints end early");
                } else if (n == L.sAttributes) {
                    sawAttributes = true;
                    attributeField = sf;
                    (void)attributeBytes;
                } else if (n == L.sTimestamps) {
                    if (L.timestampsAreFixed64) {
                        if (sf.type == WireType::Fixed64) {
                            timestamps.push_back(sf.asInt64());
                        } else if (sf.type == WireType::Len && sf.bytes.size() % 8 == 0) {
                            for (size_t k = 0; k < sf.bytes.size(); k += 8) {
                                uint64_t v = 0;
                                for (int b = 7; b >= 0; --b)
                                    v = (v << 8) | sf.bytes[k + b];
                                timestamps.push_back(static_cast<int64_t>(v));
                            }
                        } else {
                            return invalid(Where::sampleOf(profileElement, index).str()
                                + ": timestamps_unix_nano is not packed fixed64 values");
                        }
                    } else if (protowire::forEachVarint(
                                   sf, [&](uint64_t v) { timestamps.push_back(static_cast<int64_t>(v)); })
                        != DecodeError::None) {
                        return invalid(Where::sampleOf(profileElement, index).str()
                            + ": timestamps_unix_nano: packed varints end early");
                    }
                }
            }
            if (sd.failed())
                return malformed(Where::sampleOf(profileElement, index), f.bytes, sd);

            // The stack.
            StackId stack;
            if (L.sStack != 0 && stackIndex < m_stackRow.size() && m_stackRow[stackIndex] != kUnset) [[likely]] {
                stack = StackId(m_stackRow[stackIndex]); // a stack seen before
            } else if (L.sStack != 0) {
                if (Status s = stackAt(stackIndex, Where::sampleOf(profileElement, index), stack); !s)
                    return s;
            } else if (Status s = legacyStack(locStart, locLength, Where::sampleOf(profileElement, index), stack); !s) {
                return s;
            }
            uint32_t labelSet = header.labelSet;
            if (sawAttributes) {
                const std::string_view key(reinterpret_cast<const char*>(attributeField.bytes.data()),
                    attributeField.type == WireType::Len ? attributeField.bytes.size() : 0);
                const auto known = attributeField.type == WireType::Len ? setOfAttributes.find(key) : setOfAttributes.end();
                if (known != setOfAttributes.end()) {
                    labelSet = known->second;
                } else {
                    labels = header.ownLabels;
                    // A sample attribute that repeats one of the profile's adds nothing.
                    if (Status s = forAttributes(attributeField, Where::sampleOf(profileElement, index),
                            [&](const Label& a) {
                                if (std::find(header.attributes.begin(), header.attributes.end(), a)
                                    == header.attributes.end())
                                    labels.push_back(a);
                            });
                        !s)
                        return s;
                    labelSet = p.internLabelSet(labels);
                    if (attributeField.type == WireType::Len)
                        setOfAttributes.emplace(key, labelSet);
                }
            }
            uint32_t link = 0;
            if (linkIndex != 0)
                if (Status s = linkAt(linkIndex, Where::sampleOf(profileElement, index), link); !s)
                    return s;

            // Values and timestamps into model samples, in the result's columns.
            const auto put = [&](const int64_t* v, int64_t timestamp) {
                for (size_t k = 0; k < nTypes; ++k)
                    row[header.columns[k]] = v[k];
                if (header.derivedColumn != SIZE_MAX)
                    row[header.derivedColumn] = v[0] * header.period;
                addSample(stack, row.data(), timestamp, link, labelSet);
            };
            if (nTypes == 1) {
                if (values.empty() && timestamps.empty())
                    return invalid(
                        Where::sampleOf(profileElement, index).str() + ": it has neither values nor timestamps");
                if (!values.empty() && !timestamps.empty() && values.size() != timestamps.size())
                    return invalid(Where::sampleOf(profileElement, index).str() + ": it has "
                        + counted(values.size(), "value", "values") + " but "
                        + counted(timestamps.size(), "timestamp", "timestamps")
                        + " (with both, the counts must be equal)");
                if (timestamps.empty()) {
                    int64_t sum = 0;
                    for (int64_t v : values)
                        sum += v;
                    put(&sum, 0);
                } else {
                    for (size_t k = 0; k < timestamps.size(); ++k) {
                        const int64_t v = values.empty() ? 1 : values[k];
                        put(&v, timestamps[k]);
                    }
                }
            } else {
                // Several sample types (early 1.7 writers): values per type, as pprof.
                if (values.size() != nTypes)
                    return invalid(Where::sampleOf(profileElement, index).str() + ": it has "
                        + counted(values.size(), "value", "values") + " but the profile has "
                        + counted(nTypes, "sample type", "sample types"));
                put(values.data(), timestamps.empty() ? 0 : timestamps.front());
            }
            if (p.sampleCount() > m_options.maxSamples)
                return makeError(ErrorCode::TooLarge,
                    profileElement + ": more than " + std::to_string(m_options.maxSamples) + " samples");

            ++index;
            if ((++m_samplesRead & 0xffff) == 0 && m_progress) {
                if (m_progress->isCancelled())
                    return makeError(ErrorCode::Cancelled, "cancelled");
                m_progress->setProgress(m_samplesRead, m_samplesTotal);
            }
        }
        return Status::success();
    }

    static std::string sampleElement(const std::string& profile, size_t index)
    {
        return profile + ", sample " + std::to_string(index);
    }

    // 1.7: a slice of the profile's location_indices.
    Status legacyStack(uint64_t start, uint64_t length, const Where& element, StackId& out)
    {
        const uint64_t n = m_locationIndices.size();
        if (start > n || length > n - start)
            return invalid(element.str() + ": locations [" + std::to_string(start) + ", +" + std::to_string(length)
                + ") out of range (location_indices has " + counted(n, "entry", "entries") + ")");
        if (length > m_options.maxStackDepth)
            return makeError(ErrorCode::TooLarge,
                element.str() + ": stack deeper than " + std::to_string(m_options.maxStackDepth) + " frames");
        // Each slice is walked once: samples naming the same slice again cost no time, and the
        // frames of distinct slices are limited.
        const auto [cached, added] = m_legacySlices.try_emplace({ start, length }, StackId());
        if (!added) {
            out = cached->second;
            return Status::success();
        }
        if (length > m_options.maxStackFrames - std::min(m_legacyFrames, m_options.maxStackFrames)) {
            m_legacySlices.erase(cached);
            return makeError(ErrorCode::TooLarge,
                element.str() + ": the samples' stacks hold more than " + std::to_string(m_options.maxStackFrames)
                    + " frames");
        }
        m_legacyFrames += length;
        m_stack.clear();
        for (uint64_t k = start; k < start + length; ++k) {
            LocationId id;
            if (Status s = locationAt(m_locationIndices[k], element, id); !s) {
                m_legacySlices.erase(cached);
                return s;
            }
            m_stack.push_back(id);
        }
        out = m_profile.internStack(m_stack);
        cached->second = out;
        return Status::success();
    }

    struct SliceHash {
        size_t operator()(const std::pair<uint64_t, uint64_t>& s) const
        {
            return std::hash<uint64_t>()(s.first * 0x9e3779b97f4a7c15ull ^ s.second);
        }
    };

    void addSample(StackId stack, const int64_t* values, int64_t timestamp, uint32_t link, uint32_t labelSet)
    {
        Profile& p = m_profile;
        const size_t index = p.sampleCount();
        p.sampleStacks.push_back(stack);
        p.sampleValues.insert(p.sampleValues.end(), values, values + p.sampleTypes.size());
        // The first sample with a timestamp (or link) gives the samples before it none.
        if (timestamp != 0 || !p.sampleTimestamps.empty()) {
            p.sampleTimestamps.resize(index, 0);
            p.sampleTimestamps.push_back(timestamp);
        }
        if (link != 0 || !p.sampleLinks.empty()) {
            p.sampleLinks.resize(index, 0);
            p.sampleLinks.push_back(link);
        }
        if (labelSet != 0 || !p.sampleLabelSets.empty())
            p.setSampleLabelSet(index, labelSet);
    }

    std::span<const uint8_t> m_data;
    const uint8_t* m_origin;
    const OtlpReadOptions& m_options;
    Progress* m_progress;
    Profile m_profile;

    LayoutHints m_hints;
    uint8_t m_version = V110;
    Layout m_layout;

    // Structure
    size_t m_resourceCount = 0;
    bool m_hasDictionary = false;
    std::vector<ProfileRef> m_profiles;
    std::vector<std::span<const uint8_t>> m_mappings, m_locations, m_functions, m_links, m_strings, m_attributes,
        m_field7;

    // Conversions done so far: dictionary index -> model row (kUnset: not yet)
    std::vector<uint32_t> m_stringIds, m_mappingRow, m_functionRow, m_locationRow, m_stackRow, m_linkRow;
    std::vector<Label> m_attributeCache;
    std::vector<uint8_t> m_attributeDone;
    size_t m_samplesRead = 0, m_samplesTotal = 0; // over all profiles read, for progress
    std::vector<uint64_t> m_locationIndices; // 1.7
    std::unordered_map<std::pair<uint64_t, uint64_t>, StackId, SliceHash> m_legacySlices; // 1.7: (start, length)
    uint64_t m_legacyFrames = 0; // 1.7: frames of the slices in m_legacySlices
    std::vector<LocationId> m_stack;
    std::vector<Line> m_lineScratch;
};

} // namespace

bool looksLikeOtlpProtobuf(std::span<const uint8_t> data)
{
    Decoder d(data);
    Field f;
    bool evidence = false;
    for (int fields = 0; fields < 64 && d.next(f); ++fields) {
        if (f.number != 1 && f.number != 2)
            return false;
        if (f.type != WireType::Len)
            return false;
        Decoder inner(f.bytes, data.data());
        Field g;
        if (f.number == 1) {
            // ResourceProfiles: resource, scope_profiles, schema_url: all length-delimited; a
            // pprof sample_type (its field 1) holds varints.
            bool any = false, allLen = true;
            for (int k = 0; k < 8 && inner.next(g); ++k) {
                any = true;
                allLen = allLen && g.type == WireType::Len;
            }
            if (any && !allLen)
                return false;
            evidence = evidence || (any && !inner.failed());
        } else {
            // ProfilesDictionary has fields 4-7 (links, strings, attributes, stacks); a pprof
            // sample (its field 2) only 1-3.
            for (int k = 0; k < 100000 && inner.next(g); ++k)
                if (g.number >= 4 && g.number <= 7 && g.type == WireType::Len) {
                    evidence = true;
                    break;
                }
        }
    }
    if (d.failed() && d.error() != DecodeError::Truncated)
        return false;
    return evidence;
}

bool looksLikeOtlpJson(std::span<const uint8_t> data)
{
    size_t i = 0;
    if (data.size() >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf)
        i = 3; // UTF-8 byte order mark
    while (i < data.size() && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t'))
        ++i;
    if (i == data.size() || data[i] != '{')
        return false;
    const std::string_view text(reinterpret_cast<const char*>(data.data()), data.size());
    return text.find("\"resourceProfiles\"") != std::string_view::npos
        || text.find("\"resource_profiles\"") != std::string_view::npos
        || (text.find("\"dictionary\"") != std::string_view::npos
            && (text.find("\"stackTable\"") != std::string_view::npos
                || text.find("\"stack_table\"") != std::string_view::npos
                || text.find("\"stringTable\"") != std::string_view::npos
                || text.find("\"string_table\"") != std::string_view::npos));
}

Result<Profile> readOtlp(std::span<const uint8_t> data, const OtlpReadOptions& options, Progress* progress)
{
    std::vector<uint8_t> inflated;
    auto raw = decompressIfCompressed(data, inflated, options.limits, progress);
    if (!raw)
        return raw.error();
    if (progress)
        progress->setStage("reading OTLP tables");
    OtlpDecoder decoder(*raw, options, progress);
    return decoder.run();
}

} // namespace symflame::model

namespace symflame::model {

std::string htlHashOf(std::span<const uint8_t> file)
{
    constexpr size_t kPart = 4096;
    Sha256 h;
    h.update(file.first(std::min(kPart, file.size())));
    h.update(file.last(std::min(kPart, file.size())));
    uint8_t size[8];
    for (int i = 0; i < 8; ++i)
        size[i] = static_cast<uint8_t>(uint64_t(file.size()) >> (56 - 8 * i));
    h.update(size);
    const auto digest = h.finish();
    return hexBytes(std::span(digest).first(16));
}

} // namespace symflame::model
