// pprof reader: decodes perftools.profiles.Profile straight from the wire into a Profile.
//
// One pass over the top-level fields records where each table's entries are (the string table
// usually comes after everything that refers to it) and decodes the strings; then the sample
// types, mappings, functions and locations are decoded and checked, and a last pass over the
// sample fields fills the flat sample arrays, deduplicating stacks. pprof ids (any nonzero
// uint64) become dense indices; the original id is kept in sourceId.
//
// Most samples repeat a stack seen before, so a sample's packed location_id bytes are first
// looked up as bytes; only bytes not seen before are decoded frame by frame (and deduplicated
// by content, which also catches the same stack written differently).
//
// gzip input is not inflated whole: an InflatePipe inflates it on a thread of its own, a second
// thread splits its chunks into top-level fields and decodes the samples among them, and the
// reading thread interns their stacks as they come (scanStream). Writers put the samples
// first (Go's runtime/pprof, pprof itself, and symflame write samples, then the tables, then the
// strings), so a streamed sample's location ids are kept tentatively as rows (id - 1), checked or
// mapped once the location table is read, and its labels keep their string indices until the
// string table is known (finishStreamedSamples). Only the tables' messages are copied; the 871 MB
// that a 10M-sample profile inflates to are never held. Any error, and the rare layouts this
// does not take (a sample type after a sample, ids of 2^32 and more), send the file to be read
// whole: errors are always those of the whole read.
//
// Messages name mappings, functions and locations by their pprof id and samples by their
// position in the file, counted from 0.
#include "model/io/pprof/pprof.h"

#include "model/io/inflatepipe.h"
#include "model/core/handoff.h"
#include "model/io/protowire.h"
#include "model/core/bigarray.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <bit>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <system_error>
#include <thread>

namespace symflame::model {

namespace {

using protowire::DecodeError;
using protowire::Decoder;
using protowire::Field;
using protowire::WireType;

// Field numbers of perftools.profiles.Profile.
enum : uint32_t {
    kSampleType = 1,
    kSample = 2,
    kMapping = 3,
    kLocation = 4,
    kFunction = 5,
    kStringTable = 6,
    kDropFrames = 7,
    kKeepFrames = 8,
    kTimeNanos = 9,
    kDurationNanos = 10,
    kPeriodType = 11,
    kPeriod = 12,
    kComment = 13,
    kDefaultSampleType = 14,
    kDocUrl = 15,
};

constexpr uint32_t kMaxSchemaField = 16;

/// The scalar layout of one message: its name (for messages) and the name and wire type of each
/// field number it knows. Fields it does not know are skipped.
struct Schema {
    const char* name;
    const char* fields[kMaxSchemaField];
    WireType types[kMaxSchemaField];
};

constexpr WireType V = WireType::Varint;
constexpr WireType L = WireType::Len;

constexpr Schema kProfileSchema {
    "profile",
    { nullptr, "sample_type", "sample", "mapping", "location", "function", "string_table", "drop_frames", "keep_frames",
        "time_nanos", "duration_nanos", "period_type", "period", "comment", "default_sample_type", "doc_url" },
    { V, L, L, L, L, L, L, V, V, V, V, L, V, V, V, V },
};
constexpr Schema kValueTypeSchema { "value type", { nullptr, "type", "unit" }, { V, V, V } };
constexpr Schema kSampleSchema { "sample", { nullptr, "location_id", "value", "label" }, { V, V, V, L } };
constexpr Schema kLabelSchema { "label", { nullptr, "key", "str", "num", "num_unit" }, { V, V, V, V, V } };
constexpr Schema kMappingSchema { "mapping",
    { nullptr, "id", "memory_start", "memory_limit", "file_offset", "filename", "build_id", "has_functions",
        "has_filenames", "has_line_numbers", "has_inline_frames" },
    { V, V, V, V, V, V, V, V, V, V, V } };
constexpr Schema kLocationSchema { "location", { nullptr, "id", "mapping_id", "address", "line", "is_folded" },
    { V, V, V, V, L, V } };
constexpr Schema kLineSchema { "line", { nullptr, "function_id", "line", "column" }, { V, V, V, V } };
constexpr Schema kFunctionSchema { "function", { nullptr, "id", "name", "system_name", "filename", "start_line" },
    { V, V, V, V, V, V } };

std::string counted(size_t n, const char* one, const char* many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

Error invalid(std::string message)
{
    return makeError(ErrorCode::InvalidInput, std::move(message));
}

/// Maps pprof ids to dense row indices: the identity when the ids are 1..n in order (what every
/// known writer does), a flat table when they are small, else an open-addressing hash table.
class IdIndex {
public:
    static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

    /// ids[i] is the (nonzero) id of row i. Returns the first duplicate id, or 0 when none.
    uint64_t build(const std::vector<uint64_t>& ids)
    {
        m_count = ids.size();
        bool identity = true;
        uint64_t maxId = 0;
        for (size_t i = 0; i < ids.size(); ++i) {
            identity = identity && ids[i] == i + 1;
            maxId = std::max(maxId, ids[i]);
        }
        if (identity) {
            m_mode = Mode::Identity;
            return 0;
        }
        if (maxId <= 4 * uint64_t(ids.size()) + 1024) {
            m_mode = Mode::Dense;
            m_dense.assign(static_cast<size_t>(maxId) + 1, kNone);
            for (size_t i = 0; i < ids.size(); ++i) {
                if (m_dense[ids[i]] != kNone)
                    return ids[i];
                m_dense[ids[i]] = static_cast<uint32_t>(i);
            }
            return 0;
        }
        m_mode = Mode::Hash;
        const unsigned bits = std::max(4u, static_cast<unsigned>(std::bit_width(ids.size() * 2)));
        m_shift = 64 - bits;
        m_mask = (uint64_t(1) << bits) - 1;
        m_keys.assign(size_t(1) << bits, 0); // id 0 is never valid, so it marks an empty slot
        m_values.assign(size_t(1) << bits, kNone);
        for (size_t i = 0; i < ids.size(); ++i) {
            uint64_t slot = hash(ids[i]);
            while (m_keys[slot] != 0) {
                if (m_keys[slot] == ids[i])
                    return ids[i];
                slot = (slot + 1) & m_mask;
            }
            m_keys[slot] = ids[i];
            m_values[slot] = static_cast<uint32_t>(i);
        }
        return 0;
    }

    /// True when ids are 1..n in order: row = id - 1.
    bool isIdentity() const { return m_mode == Mode::Identity; }
    uint64_t size() const { return m_count; }

    /// Row of id, or kNone.
    uint32_t find(uint64_t id) const
    {
        switch (m_mode) {
        case Mode::Identity:
            return id - 1 < m_count ? static_cast<uint32_t>(id - 1) : kNone; // id 0 wraps to huge
        case Mode::Dense:
            return id < m_dense.size() ? m_dense[id] : kNone;
        case Mode::Hash:
            if (id == 0)
                return kNone;
            for (uint64_t slot = hash(id);; slot = (slot + 1) & m_mask) {
                if (m_keys[slot] == id)
                    return m_values[slot];
                if (m_keys[slot] == 0)
                    return kNone;
            }
        }
        return kNone;
    }

private:
    uint64_t hash(uint64_t id) const { return (id * 0x9e3779b97f4a7c15ull) >> m_shift; }

    enum class Mode { Identity, Dense, Hash };
    Mode m_mode = Mode::Identity;
    uint64_t m_count = 0;
    std::vector<uint32_t> m_dense;
    std::vector<uint64_t> m_keys;
    std::vector<uint32_t> m_values;
    uint64_t m_mask = 0;
    unsigned m_shift = 63;
};

/// Maps the encoded bytes of a packed location_id field to the stack they decoded to, so that a
/// stack seen before costs a hash and a memcmp of its bytes instead of decoding every frame.
/// Entries point into the input (which outlives the reading): nothing is copied. Entries are
/// numbered in the order they were inserted.
///
/// Bytes in the shortest encoding of each id (canonical: what every writer produces) stand for
/// one sequence of ids, and so of locations: stacks found by such bytes alone need no second
/// look-up by their locations (see PprofDecoder::decodeSampleRange).
class RawStackCache {
public:
    explicit RawStackCache(const uint8_t* origin)
        : m_origin(origin)
    {
        rehash(1024);
    }

    static uint32_t hash(std::span<const uint8_t> bytes)
    {
        uint64_t h = 0x9ae16a3b2f90404full ^ bytes.size();
        const uint8_t* p = bytes.data();
        size_t n = bytes.size();
        for (; n >= 8; p += 8, n -= 8) {
            uint64_t w;
            std::memcpy(&w, p, 8);
            h = (h ^ w) * 0x9e3779b97f4a7c15ull;
            h ^= h >> 29;
        }
        if (n > 0) {
            uint64_t w = 0;
            std::memcpy(&w, p, n);
            h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        }
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 33;
        return static_cast<uint32_t>(h);
    }

    /// The stack these bytes decoded to before, or an invalid id.
    StackId find(std::span<const uint8_t> bytes, uint32_t h) const
    {
        for (size_t slot = h & m_mask;; slot = (slot + 1) & m_mask) {
            const Slot s = m_slots[slot];
            if (s.entryPlusOne == 0)
                return StackId();
            if (s.hash != h)
                continue;
            const Entry& e = m_entries[s.entryPlusOne - 1];
            if (e.length == bytes.size() && std::memcmp(m_origin + e.offset, bytes.data(), bytes.size()) == 0)
                return e.stack;
        }
    }

    size_t size() const { return m_entries.size(); }
    /// The bytes of entry i.
    std::span<const uint8_t> bytes(size_t i) const
    {
        return { m_origin + m_entries[i].offset, m_entries[i].length };
    }

    void insert(std::span<const uint8_t> bytes, uint32_t h, StackId stack)
    {
        if (m_entries.size() == m_entries.capacity())
            reserveBig(m_entries, std::max<size_t>(1024, m_entries.size() * 2));
        m_entries.push_back(
            { static_cast<uint64_t>(bytes.data() - m_origin), static_cast<uint32_t>(bytes.size()), stack });
        size_t slot = h & m_mask;
        while (m_slots[slot].entryPlusOne != 0)
            slot = (slot + 1) & m_mask;
        m_slots[slot] = { h, static_cast<uint32_t>(m_entries.size()) };
        if (m_entries.size() * 2 > m_slots.size())
            rehash(m_slots.size() * 2);
    }

private:
    struct Slot {
        uint32_t hash = 0;
        uint32_t entryPlusOne = 0; // 0: empty
    };
    struct Entry {
        uint64_t offset;
        uint32_t length;
        StackId stack;
    };

    void rehash(size_t capacity)
    {
        std::vector<Slot> old = std::move(m_slots);
        assignBig(m_slots, capacity, Slot {});
        m_mask = capacity - 1;
        for (const Slot& s : old) {
            if (s.entryPlusOne == 0)
                continue;
            size_t slot = s.hash & m_mask;
            while (m_slots[slot].entryPlusOne != 0)
                slot = (slot + 1) & m_mask;
            m_slots[slot] = s;
        }
    }

    const uint8_t* m_origin;
    std::vector<Slot> m_slots;
    std::vector<Entry> m_entries;
    size_t m_mask = 0;
};

/// Copies of bytes in blocks that never move, so that spans into them stay valid.
class ByteArena {
public:
    std::span<const uint8_t> keep(std::span<const uint8_t> bytes)
    {
        if (bytes.empty())
            return {};
        if (bytes.size() > m_room) {
            const size_t n = std::max(kBlock, bytes.size());
            m_blocks.push_back(std::make_unique_for_overwrite<uint8_t[]>(n));
            m_next = m_blocks.back().get();
            m_room = n;
        }
        std::memcpy(m_next, bytes.data(), bytes.size());
        const std::span<const uint8_t> out(m_next, bytes.size());
        m_next += bytes.size();
        m_room -= bytes.size();
        return out;
    }

private:
    static constexpr size_t kBlock = size_t(1) << 20;
    std::vector<std::unique_ptr<uint8_t[]>> m_blocks;
    uint8_t* m_next = nullptr;
    size_t m_room = 0;
};

struct RawLine {
    uint64_t functionId;
    int64_t line;
    int64_t column;
};

// The most frames the stack array reserves room for before the samples are read: 4 GiB of
// address space, of which only what is used becomes memory.
constexpr size_t kMaxReservedFrames = size_t(1) << 30;

class PprofDecoder {
public:
    PprofDecoder(std::span<const uint8_t> data, Progress* progress)
        : m_data(data)
        , m_origin(data.data())
        , m_progress(progress)
    {
    }

    /// A decoder of the stream that pipe inflates (sizeHint: the inflated size, if known, to
    /// reserve room by).
    PprofDecoder(InflatePipe& pipe, uint64_t sizeHint, std::function<void(size_t)> inputDoneBefore, Progress* progress)
        : m_origin(nullptr)
        , m_progress(progress)
        , m_pipe(&pipe)
        , m_sizeHint(sizeHint)
        , m_inputDoneBefore(std::move(inputDoneBefore))
        , m_streaming(true)
    {
    }

    Result<Profile> run()
    {
        if (Status s = m_streaming ? scanStream() : scanTopLevel(); !s)
            return s.error();
        if (Status s = decodeSampleTypes(); !s)
            return s.error();
        if (Status s = decodeScalars(); !s)
            return s.error();
        if (Status s = decodeMappings(); !s)
            return s.error();
        if (Status s = decodeFunctions(); !s)
            return s.error();
        if (Status s = decodeLocations(); !s)
            return s.error();
        if (Status s = m_streaming ? finishStreamedSamples() : decodeSamples(); !s)
            return s.error();
        m_profile.updateFrameStatuses();
        markJavaScriptFrames();
        m_profile.finishBuilding();
        return std::move(m_profile);
    }

private:
    // Node profilers (@datadog/pprof, pprof-nodejs) write JavaScript frames as locations without
    // a mapping or address whose function's file is the script: a path or file:// URL ending in
    // .js, .mjs or .cjs, or node's own node:... modules. A function whose system name differs
    // from its name was source-mapped already (the generated position is in the system name)
    // and is not mapped again.
    void markJavaScriptFrames()
    {
        const auto isScript = [](std::string_view file) {
            if (file.starts_with("node:"))
                return true;
            if (!file.starts_with("/") && !file.starts_with("file://"))
                return false;
            return file.ends_with(".js") || file.ends_with(".mjs") || file.ends_with(".cjs");
        };
        std::vector<int8_t> scriptFunction(m_profile.functions.size(), -1);
        for (Location& loc : m_profile.locations) {
            if (loc.mapping.valid() || loc.address != 0 || loc.lineCount == 0)
                continue;
            const Line& physical = m_profile.lines[loc.linesBegin + loc.lineCount - 1];
            if (!physical.function.valid())
                continue;
            int8_t& known = scriptFunction[physical.function.index()];
            if (known < 0) {
                const Function& f = m_profile.functions[physical.function.index()];
                known = isScript(m_profile.str(f.file)) && (f.systemName.empty() || f.systemName == f.name) ? 1 : 0;
            }
            if (known == 1)
                loc.kind = FrameKind::JavaScript;
        }
    }

    // --- messages
    // A streamed file's messages are copies: its errors give no offsets (and are not shown: the
    // file is read again whole for them, see readPprof).
    size_t offsetOf(std::span<const uint8_t> bytes) const
    {
        return m_origin ? static_cast<size_t>(bytes.data() - m_origin) : 0;
    }

    Error malformed(const Schema& schema, std::span<const uint8_t> bytes, const Decoder& d) const
    {
        return invalid("malformed " + std::string(schema.name) + " message at byte " + std::to_string(offsetOf(bytes))
            + ": " + d.errorText());
    }

    Error wrongType(const Schema& schema, std::span<const uint8_t> bytes, const Field& f, const char* expected) const
    {
        return invalid("malformed " + std::string(schema.name) + " message at byte " + std::to_string(offsetOf(bytes))
            + ": field " + std::to_string(f.number) + " (" + schema.fields[f.number] + ") has wire type "
            + protowire::wireTypeName(f.type) + ", expected " + expected);
    }

    /// Decodes a message of varint fields (last occurrence wins) into values[field number];
    /// length-delimited fields the schema knows go to onLen.
    template <typename OnLen>
    Status decodeFlat(
        std::span<const uint8_t> bytes, const Schema& schema, uint64_t (&values)[kMaxSchemaField], OnLen&& onLen) const
    {
        Decoder d(bytes, m_origin);
        Field f;
        while (d.next(f)) {
            if (f.number >= kMaxSchemaField || schema.fields[f.number] == nullptr)
                continue; // unknown field: skipped
            const WireType want = schema.types[f.number];
            if (f.type != want)
                return wrongType(schema, bytes, f, protowire::wireTypeName(want));
            if (f.type == WireType::Varint)
                values[f.number] = f.value;
            else if (Status s = onLen(f); !s)
                return s;
        }
        if (d.failed())
            return malformed(schema, bytes, d);
        return Status::success();
    }

    Status decodeFlat(std::span<const uint8_t> bytes, const Schema& schema, uint64_t (&values)[kMaxSchemaField]) const
    {
        return decodeFlat(bytes, schema, values, [](const Field&) { return Status::success(); });
    }

    // --- strings
    bool lookupString(uint64_t index, StringId& out) const
    {
        if (index >= m_stringIds.size())
            return false;
        out = m_stringIds[static_cast<size_t>(index)];
        return true;
    }

    Error badString(uint64_t index, const std::string& where) const
    {
        return invalid("string index " + std::to_string(static_cast<int64_t>(index))
            + " out of range (string table has " + counted(m_fileStringCount, "entry", "entries") + ") in " + where);
    }

    // Resolves a string index, or returns the error naming where it was used.
    std::optional<Error> resolve(uint64_t index, StringId& out, const std::string& where) const
    {
        if (lookupString(index, out))
            return std::nullopt;
        return badString(index, where);
    }

    // --- passes
    Status scanTopLevel()
    {
        Decoder d(m_data, m_origin);
        Field f;
        while (d.next(f))
            if (Status s = topLevelField(f); !s)
                return s;
        if (d.failed()) {
            if (d.error() == DecodeError::Truncated)
                return makeError(ErrorCode::Truncated, "truncated protobuf: " + d.errorText());
            return invalid("not a protobuf message: " + d.errorText());
        }
        if (!m_sawKnown)
            return invalid("not a pprof profile: none of its fields is a pprof field");
        return Status::success();
    }

    /// One top-level field: tables are noted, strings and scalars read; samples are noted for
    /// later when the input is held whole, decoded at once when it is streamed.
    Status topLevelField(const Field& f)
    {
        if (f.number >= kMaxSchemaField || kProfileSchema.fields[f.number] == nullptr)
            return Status::success();
        m_sawKnown = true;
        const WireType want = kProfileSchema.types[f.number];
        const bool repeatedScalar = f.number == kComment;
        if (f.type != want && !(repeatedScalar && f.type == WireType::Len))
            return invalid("not a pprof profile: field " + std::to_string(f.number) + " ("
                + kProfileSchema.fields[f.number] + ") at byte " + std::to_string(f.offset) + " has wire type "
                + protowire::wireTypeName(f.type) + ", expected " + protowire::wireTypeName(want));
        switch (f.number) {
        case kSampleType:
            if (m_streaming && m_sampleCount > 0)
                return streamGivesUp("a sample type after the first sample");
            m_sampleTypeSpans.push_back(f.bytes);
            break;
        case kSample:
            if (m_streaming) // its wire type is checked above: splitField decodes the others
                return streamGivesUp("a sample the splitting thread did not take");
            if (m_sampleCount == 0)
                m_samplesBegin = f.offset;
            if (m_sampleCount % kSampleMarkEvery == 0)
                m_sampleMarks.push_back({ m_sampleCount, f.offset });
            m_samplesEnd = static_cast<size_t>(f.bytes.data() + f.bytes.size() - m_origin);
            ++m_sampleCount;
            break;
        case kMapping:
            m_mappingSpans.push_back(f.bytes);
            break;
        case kLocation:
            m_locationSpans.push_back(f.bytes);
            break;
        case kFunction:
            m_functionSpans.push_back(f.bytes);
            break;
        case kStringTable:
            if (m_fileStringCount == 0 && !f.bytes.empty())
                return invalid("string_table[0] must be empty");
            if (m_fileStringCount == 0)
                m_stringIds.clear(); // the implicit "" is replaced by the file's own
            m_stringIds.push_back(m_profile.strings.intern(f.asString()));
            ++m_fileStringCount;
            break;
        case kDropFrames:
            m_dropFrames = f.value;
            break;
        case kKeepFrames:
            m_keepFrames = f.value;
            break;
        case kTimeNanos:
            if (m_sawTime)
                return invalid("concatenated profiles: a second time_nanos field at byte "
                    + std::to_string(f.offset) + " (pprof rejects them too)");
            m_sawTime = true;
            m_profile.timeNanos = f.asInt64();
            break;
        case kDurationNanos:
            m_profile.durationNanos = f.asInt64();
            break;
        case kPeriodType:
            m_periodTypeSpans.push_back(f.bytes);
            break;
        case kPeriod:
            m_profile.period = f.asInt64();
            break;
        case kComment:
            if (protowire::forEachVarint(f, [&](uint64_t v) { m_comments.push_back(v); }) != DecodeError::None)
                return invalid(
                    "malformed comment field at byte " + std::to_string(f.offset) + ": packed varints end early");
            break;
        case kDefaultSampleType:
            m_defaultSampleType = f.value;
            break;
        case kDocUrl:
            m_docUrl = f.value;
            break;
        default:
            break;
        }
        return Status::success();
    }

    Status decodeValueType(std::span<const uint8_t> bytes, const std::string& what, ValueType& out) const
    {
        uint64_t v[kMaxSchemaField] = {};
        if (Status s = decodeFlat(bytes, kValueTypeSchema, v); !s)
            return s;
        if (auto e = resolve(v[1], out.type, what + " type"))
            return *e;
        if (auto e = resolve(v[2], out.unit, what + " unit"))
            return *e;
        return Status::success();
    }

    Status decodeSampleTypes()
    {
        m_profile.sampleTypes.resize(m_sampleTypeSpans.size());
        for (size_t i = 0; i < m_sampleTypeSpans.size(); ++i)
            if (Status s
                = decodeValueType(m_sampleTypeSpans[i], "sample type " + std::to_string(i), m_profile.sampleTypes[i]);
                !s)
                return s;
        // Several period_type fields merge, as protobuf merges repeated occurrences of a message.
        if (!m_periodTypeSpans.empty()) {
            uint64_t v[kMaxSchemaField] = {};
            for (auto bytes : m_periodTypeSpans)
                if (Status s = decodeFlat(bytes, kValueTypeSchema, v); !s)
                    return s;
            if (auto e = resolve(v[1], m_profile.periodType.type, "period type"))
                return *e;
            if (auto e = resolve(v[2], m_profile.periodType.unit, "period unit"))
                return *e;
        }
        return Status::success();
    }

    Status decodeScalars()
    {
        if (auto e = resolve(m_dropFrames, m_profile.dropFrames, "drop_frames"))
            return *e;
        if (auto e = resolve(m_keepFrames, m_profile.keepFrames, "keep_frames"))
            return *e;
        if (auto e = resolve(m_docUrl, m_profile.docUrl, "doc_url"))
            return *e;
        m_profile.comments.resize(m_comments.size());
        for (size_t i = 0; i < m_comments.size(); ++i)
            if (auto e = resolve(m_comments[i], m_profile.comments[i], "comment " + std::to_string(i)))
                return *e;
        StringId defaultType;
        if (auto e = resolve(m_defaultSampleType, defaultType, "default_sample_type"))
            return *e;
        // pprof's rule: the named type if there is one, else the last.
        const auto& types = m_profile.sampleTypes;
        m_profile.defaultSampleType = types.empty() ? 0 : types.size() - 1;
        if (!defaultType.empty()) {
            for (size_t i = 0; i < types.size(); ++i) {
                if (types[i].type == defaultType) {
                    m_profile.defaultSampleType = i;
                    break;
                }
            }
        }
        return Status::success();
    }

    Status checkIds(const char* what, const std::vector<uint64_t>& ids, IdIndex& index)
    {
        if (ids.size() >= IdIndex::kNone)
            return makeError(ErrorCode::TooLarge, std::string("too many ") + what + "s");
        if (const uint64_t dup = index.build(ids); dup != 0)
            return invalid(std::string("duplicate ") + what + " id " + std::to_string(dup));
        return Status::success();
    }

    Status decodeMappings()
    {
        auto& out = m_profile.mappings;
        out.resize(m_mappingSpans.size());
        std::vector<uint64_t> ids(m_mappingSpans.size());
        for (size_t i = 0; i < m_mappingSpans.size(); ++i) {
            uint64_t v[kMaxSchemaField] = {};
            if (Status s = decodeFlat(m_mappingSpans[i], kMappingSchema, v); !s)
                return s;
            if (v[1] == 0)
                return invalid("mapping id 0 is not allowed");
            Mapping& m = out[i];
            const std::string id = std::to_string(v[1]);
            m.sourceId = ids[i] = v[1];
            m.start = v[2];
            m.limit = v[3];
            m.offset = v[4];
            if (auto e = resolve(v[5], m.file, "mapping " + id + " file name"))
                return *e;
            if (auto e = resolve(v[6], m.buildId, "mapping " + id + " build id"))
                return *e;
            m.flags = static_cast<uint8_t>((v[7] ? Mapping::HasFunctions : 0) | (v[8] ? Mapping::HasFilenames : 0)
                | (v[9] ? Mapping::HasLineNumbers : 0) | (v[10] ? Mapping::HasInlineFrames : 0));
        }
        return checkIds("mapping", ids, m_mappingIndex);
    }

    Status decodeFunctions()
    {
        auto& out = m_profile.functions;
        out.resize(m_functionSpans.size());
        std::vector<uint64_t> ids(m_functionSpans.size());
        for (size_t i = 0; i < m_functionSpans.size(); ++i) {
            uint64_t v[kMaxSchemaField] = {};
            if (Status s = decodeFlat(m_functionSpans[i], kFunctionSchema, v); !s)
                return s;
            if (v[1] == 0)
                return invalid("function id 0 is not allowed");
            Function& fn = out[i];
            fn.sourceId = ids[i] = v[1];
            // The common case resolves without building any text.
            if (!lookupString(v[2], fn.name))
                return badString(v[2], "function " + std::to_string(v[1]) + " name");
            if (!lookupString(v[3], fn.systemName))
                return badString(v[3], "function " + std::to_string(v[1]) + " system name");
            if (!lookupString(v[4], fn.file))
                return badString(v[4], "function " + std::to_string(v[1]) + " file name");
            fn.startLine = static_cast<int64_t>(v[5]);
        }
        return checkIds("function", ids, m_functionIndex);
    }

    Status decodeLocations()
    {
        auto& out = m_profile.locations;
        out.resize(m_locationSpans.size());
        std::vector<uint64_t> ids(m_locationSpans.size());
        std::vector<RawLine> rawLines;
        m_profile.lines.reserve(m_locationSpans.size());
        for (size_t i = 0; i < m_locationSpans.size(); ++i) {
            uint64_t v[kMaxSchemaField] = {};
            rawLines.clear();
            Status s = decodeFlat(m_locationSpans[i], kLocationSchema, v, [&](const Field& f) -> Status {
                uint64_t lv[kMaxSchemaField] = {};
                if (Status ls = decodeFlat(f.bytes, kLineSchema, lv); !ls)
                    return ls;
                rawLines.push_back({ lv[1], static_cast<int64_t>(lv[2]), static_cast<int64_t>(lv[3]) });
                return Status::success();
            });
            if (!s)
                return s;
            if (v[1] == 0)
                return invalid("location id 0 is not allowed");
            Location& loc = out[i];
            loc.sourceId = ids[i] = v[1];
            loc.address = v[3];
            loc.isFolded = v[5] != 0;
            if (v[2] != 0) {
                const uint32_t m = m_mappingIndex.find(v[2]);
                if (m == IdIndex::kNone)
                    return invalid("location " + std::to_string(v[1]) + " refers to mapping " + std::to_string(v[2])
                        + ", which does not exist");
                loc.mapping = MappingId(m);
            }
            if (m_profile.lines.size() + rawLines.size() >= std::numeric_limits<uint32_t>::max())
                return makeError(ErrorCode::TooLarge, "too many location lines");
            loc.linesBegin = static_cast<uint32_t>(m_profile.lines.size());
            loc.lineCount = static_cast<uint32_t>(rawLines.size());
            for (const RawLine& raw : rawLines) {
                Line line;
                if (raw.functionId != 0) {
                    const uint32_t fn = m_functionIndex.find(raw.functionId);
                    if (fn == IdIndex::kNone)
                        return invalid("line of location " + std::to_string(v[1]) + " refers to function "
                            + std::to_string(raw.functionId) + ", which does not exist");
                    line.function = FunctionId(fn);
                }
                line.line = raw.line;
                line.column = raw.column;
                m_profile.lines.push_back(line);
            }
        }
        return checkIds("location", ids, m_locationIndex);
    }

    enum class PackedResult { Ok, UnknownId, Malformed };

    /// The tentative row of location id (id - 1), kept in *maxRow's maximum; kNone when it does not
    /// fit (id 0 wraps to huge).
    static uint32_t tentativeRow(uint64_t id, uint32_t* maxRow)
    {
        if (id - 1 >= IdIndex::kNone)
            return IdIndex::kNone;
        const auto row = static_cast<uint32_t>(id - 1);
        *maxRow = std::max(*maxRow, row);
        return row;
    }

    // The hot loop of reading: decodes packed location ids straight into the stack, with the
    // identity id mapping (what every known writer produces) as a plain range check.
    // stack is scratch space whose first depth entries are used; it only ever grows, so that
    // no sample pays for initialising it.
    // *canonical becomes false when an id is not in its shortest encoding.
    //
    // Tentative: the location table is not read yet (a streamed file has its samples first): id
    // n becomes row n - 1 for now, to be checked or mapped to its row once the table is known
    // (finishStreamedSamples); *maxRow becomes the largest row written.
    template <bool Tentative = false>
    PackedResult appendPackedLocations(std::span<const uint8_t> bytes, std::vector<LocationId>& stack, size_t& depth,
        uint64_t* badId, bool* canonical, uint32_t* maxRow = nullptr) const
    {
        if (stack.size() < depth + bytes.size()) // each id takes at least one byte
            stack.resize(std::max(stack.size() * 2, depth + bytes.size()));
        LocationId* out = stack.data() + depth;
        const uint8_t* q = bytes.data();
        const uint8_t* end = q + bytes.size();
        const uint8_t* safeEnd = bytes.size() >= 10 ? end - 10 : q; // before it, 10 bytes follow
        const bool identity = m_locationIndex.isIdentity();
        const uint64_t count = m_locationIndex.size();
        size_t k = 0;
        PackedResult result = PackedResult::Ok;
        while (q < end) {
            uint64_t id;
            if (*q < 0x80) {
                id = *q++;
            } else {
                const uint8_t* start = q;
                if (q < safeEnd) {
                    q = protowire::readVarintUnchecked(q, id);
                    if (!q) {
                        result = PackedResult::Malformed;
                        break;
                    }
                } else if (protowire::readVarint(q, end, id) != protowire::VarintStatus::Ok) {
                    result = PackedResult::Malformed;
                    break;
                }
                if (size_t(q - start) != protowire::varintSize(id)) [[unlikely]]
                    *canonical = false;
            }
            uint32_t row;
            if constexpr (Tentative) {
                row = tentativeRow(id, maxRow);
            } else if (identity) {
                row = static_cast<uint32_t>(id - 1);
                if (id - 1 >= count) [[unlikely]]
                    row = IdIndex::kNone;
            } else {
                row = m_locationIndex.find(id);
            }
            if (row == IdIndex::kNone) [[unlikely]] {
                *badId = id;
                result = PackedResult::UnknownId;
                break;
            }
            out[k++] = LocationId(row);
        }
        depth += k;
        return result;
    }

    Error sampleLocationError(size_t sample, uint64_t id) const
    {
        return invalid("sample " + std::to_string(sample) + " refers to location " + std::to_string(id)
            + ", which does not exist");
    }

    Status decodeLabel(const Field& f, size_t sample, std::vector<Label>& out) const
    {
        uint64_t v[kMaxSchemaField] = {};
        if (Status s = decodeFlat(f.bytes, kLabelSchema, v); !s)
            return s;
        return addLabel(v, sample, out);
    }

    /// The label of a label message's fields (v: by field number), kept as pprof keeps labels.
    Status addLabel(const uint64_t (&v)[kMaxSchemaField], size_t sample, std::vector<Label>& out) const
    {
        Label label;
        if (!lookupString(v[1], label.key))
            return badString(v[1], "sample " + std::to_string(sample) + " label key");
        if (!lookupString(v[2], label.str))
            return badString(v[2], "sample " + std::to_string(sample) + " label value");
        if (!lookupString(v[4], label.numUnit))
            return badString(v[4], "sample " + std::to_string(sample) + " label unit");
        label.num = static_cast<int64_t>(v[3]);
        // pprof keeps a label only when it has a string value, a number or a unit.
        if (label.str.empty() && label.num == 0 && label.numUnit.empty())
            return Status::success();
        if (!label.str.empty()) {
            label.num = 0;
            label.numUnit = StringId();
        }
        out.push_back(label);
        return Status::success();
    }

    // Decodes one packed or unpacked location_id field into stack[depth...]; *canonical becomes
    // false when a packed id is not in its shortest encoding.
    Status appendLocationField(const Field& sf, const Field& f, size_t index, std::vector<LocationId>& stack,
        size_t& depth, bool* canonical = nullptr) const
    {
        if (sf.type == WireType::Len) {
            uint64_t badId = 0;
            bool shortest = true;
            const PackedResult packed = appendPackedLocations(sf.bytes, stack, depth, &badId, &shortest);
            if (canonical)
                *canonical = shortest;
            switch (packed) {
            case PackedResult::Ok:
                return Status::success();
            case PackedResult::UnknownId:
                return sampleLocationError(index, badId);
            case PackedResult::Malformed:
                return invalid(
                    "malformed sample " + std::to_string(index) + ": packed location_id ends inside a varint");
            }
        }
        if (sf.type == WireType::Varint) {
            const uint32_t loc = m_locationIndex.find(sf.value);
            if (loc == IdIndex::kNone)
                return sampleLocationError(index, sf.value);
            if (stack.size() == depth)
                stack.resize(stack.size() * 2 + 16);
            stack[depth++] = LocationId(loc);
            return Status::success();
        }
        return wrongType(kSampleSchema, f.bytes, sf, "varint or length-delimited");
    }

    /// Decodes the sample fields in [begin, end) of the input (the first is sample number
    /// firstIndex, for messages) into p's samples, stacks and labels. Stops with a Cancelled
    /// error when stop is set; reports progress only when progress is given.
    ///
    /// rawStacks (empty at first) keeps the bytes of each packed location_id field met. While
    /// rawOnly holds, every stack of p came from canonical bytes (RawStackCache), the i-th from
    /// the cache's i-th entry: new bytes are then a new stack, appended without being looked
    /// up by its locations. The first stack made another way (unpacked ids, several fields,
    /// ids encoded longer than they need) ends that, and from then on stacks are interned.
    Status decodeSampleRange(Profile& p, size_t begin, size_t end, size_t firstIndex, size_t count,
        const std::atomic<bool>& stop, Progress* progress, RawStackCache& rawStacks, bool& rawOnly) const
    {
        const size_t nTypes = m_profile.sampleTypes.size();
        reserveBig(p.sampleStacks, count);
        reserveBig(p.sampleValues, count * nTypes);
        // Room for as many frames as the bytes could hold (a location id takes at least one):
        // address space only until used, and no copying each time the array would grow (a
        // 10M-sample profile has about 275M frames in its distinct stacks: with room for 2^28
        // the array was copied once, 1 GB, and twice its size was held meanwhile).
        reserveBig(p.stackLocations, std::min(end - begin, kMaxReservedFrames));
        reserveBig(p.stackBegin, count + 1);

        std::vector<LocationId> stack(256);
        std::vector<Label> sampleLabels;
        Decoder top(m_data.subspan(begin, end - begin), m_origin);
        Field f;
        Field sf;
        size_t index = firstIndex;
        size_t local = 0; // index - firstIndex: the sample's row in p
        while (top.next(f)) {
            if (f.number != kSample)
                continue;
            size_t depth = 0;
            sampleLabels.clear();
            const size_t valuesBegin = p.sampleValues.size();
            // The usual sample has one packed location_id field: it is looked up by its bytes
            // first, and decoded only when those bytes were not seen before.
            std::span<const uint8_t> packedIds;
            int idFields = 0;
            Decoder sd(f.bytes, m_origin);
            while (sd.next(sf)) {
                switch (sf.number) {
                case 1: // location_id, leaf first
                    if (idFields == 0 && sf.type == WireType::Len) {
                        packedIds = sf.bytes;
                        idFields = 1;
                        break;
                    }
                    if (idFields == 1) { // a second field: decode both the plain way
                        Field first = sf;
                        first.type = WireType::Len;
                        first.bytes = packedIds;
                        if (Status st = appendLocationField(first, f, index, stack, depth); !st)
                            return st;
                    }
                    idFields = 2;
                    if (Status st = appendLocationField(sf, f, index, stack, depth); !st)
                        return st;
                    break;
                case 2: // value, packed or not
                    if (protowire::forEachVarint(
                            sf, [&](uint64_t v) { p.sampleValues.push_back(static_cast<int64_t>(v)); })
                        != DecodeError::None) {
                        if (sf.type != WireType::Varint && sf.type != WireType::Len)
                            return wrongType(kSampleSchema, f.bytes, sf, "varint or length-delimited");
                        return invalid(
                            "malformed sample " + std::to_string(index) + ": packed value ends inside a varint");
                    }
                    break;
                case 3:
                    if (sf.type != WireType::Len)
                        return wrongType(kSampleSchema, f.bytes, sf, "length-delimited");
                    if (Status st = decodeLabel(sf, index, sampleLabels); !st)
                        return st;
                    break;
                default:
                    break;
                }
            }
            if (sd.failed())
                return invalid("malformed sample " + std::to_string(index) + " (message at byte "
                    + std::to_string(offsetOf(f.bytes)) + "): " + sd.errorText());
            const size_t nValues = p.sampleValues.size() - valuesBegin;
            if (nValues != nTypes)
                return invalid("sample " + std::to_string(index) + " has " + counted(nValues, "value", "values")
                    + " but the profile has " + counted(nTypes, "sample type", "sample types"));

            StackId stackId;
            if (idFields == 1) {
                const uint32_t hash = RawStackCache::hash(packedIds);
                stackId = rawStacks.find(packedIds, hash);
                if (!stackId.valid()) {
                    Field only = sf;
                    only.type = WireType::Len;
                    only.bytes = packedIds;
                    bool canonical = true;
                    if (Status st = appendLocationField(only, f, index, stack, depth, &canonical); !st)
                        return st;
                    if (p.stackLocations.size() + depth >= std::numeric_limits<uint32_t>::max())
                        return makeError(ErrorCode::TooLarge, "too many distinct stack frames (over 4 billion)");
                    rawOnly = rawOnly && canonical;
                    stackId = rawOnly ? p.appendNewStack({ stack.data(), depth }) : p.internStack({ stack.data(), depth });
                    rawStacks.insert(packedIds, hash, stackId);
                }
            } else {
                if (p.stackLocations.size() + depth >= std::numeric_limits<uint32_t>::max())
                    return makeError(ErrorCode::TooLarge, "too many distinct stack frames (over 4 billion)");
                rawOnly = false;
                stackId = p.internStack({ stack.data(), depth });
            }
            p.sampleStacks.push_back(stackId);

            if (!sampleLabels.empty() || p.hasLabels())
                p.setSampleLabelSet(local, p.internLabelSet(sampleLabels));

            ++index;
            ++local;
            if ((index & 0xffff) == 0) {
                if (stop.load(std::memory_order_relaxed) || (progress && progress->isCancelled()))
                    return makeError(ErrorCode::Cancelled, "cancelled");
                if (progress)
                    progress->setProgress(index, m_sampleCount);
            }
        }
        return Status::success();
    }

    /// The samples, in two halves on two threads when there are many: the second half's stacks
    /// go to a profile of their own, then are interned into the first's in the order they
    /// first occur, which gives every stack the id one pass would have given it.
    Status decodeSamples()
    {
        Profile& p = m_profile;
        const size_t nTypes = p.sampleTypes.size();
        if (m_sampleCount > 0 && nTypes == 0)
            return invalid("profile has samples but no sample types");
        if (m_sampleCount == 0)
            return Status::success();
        if (m_progress)
            m_progress->setStage("reading samples");
        std::atomic<bool> stop { false };
        // The mark nearest the middle, if the work is worth a thread.
        const SampleMark* mid = nullptr;
        if (m_sampleCount >= kParallelSamples && std::thread::hardware_concurrency() > 1)
            for (const SampleMark& m : m_sampleMarks)
                if (!mid || std::abs(double(m.index) - double(m_sampleCount) / 2) < std::abs(double(mid->index) - double(m_sampleCount) / 2))
                    mid = &m;
        RawStackCache firstRaw(m_origin);
        bool firstRawOnly = true;
        if (!mid || mid->index == 0) {
            Status st = decodeSampleRange(
                p, m_samplesBegin, m_samplesEnd, 0, m_sampleCount, stop, m_progress, firstRaw, firstRawOnly);
            if (st && m_progress)
                m_progress->setProgress(m_sampleCount, m_sampleCount);
            return st;
        }
        // The first half's arrays also take the second's new stacks.
        reserveBig(p.stackLocations, std::min(m_samplesEnd - m_samplesBegin, kMaxReservedFrames));
        reserveBig(p.stackBegin, m_sampleCount + 1);
        Profile second;
        RawStackCache secondRaw(m_origin);
        bool secondRawOnly = true;
        Status secondStatus = Status::success();
        const auto decodeSecond = [&] {
            secondStatus = decodeSampleRange(second, mid->offset, m_samplesEnd, mid->index, m_sampleCount - mid->index,
                stop, nullptr, secondRaw, secondRawOnly);
            if (!secondStatus)
                stop.store(true);
        };
        std::thread worker;
        try {
            worker = std::thread(decodeSecond);
        } catch (const std::system_error&) {
        }
        Status firstStatus
            = decodeSampleRange(p, m_samplesBegin, mid->offset, 0, mid->index, stop, m_progress, firstRaw, firstRawOnly);
        if (!firstStatus)
            stop.store(true);
        if (worker.joinable())
            worker.join();
        else if (firstStatus)
            decodeSecond(); // no thread to be had: the second half after the first
        // The first half's error comes first, as it would reading in order; a Cancelled of the
        // first half stopped by the second's error is not one.
        if (!firstStatus && !(firstStatus.error().code == ErrorCode::Cancelled && !secondStatus))
            return firstStatus;
        if (!secondStatus)
            return secondStatus;
        if (m_progress && m_progress->isCancelled())
            return makeError(ErrorCode::Cancelled, "cancelled");

        // When both halves made every stack from canonical bytes, the second's stack s (from its
        // cache's entry s) is the first's stack with the same bytes, or new.
        const bool byBytes = firstRawOnly && secondRawOnly && secondRaw.size() == second.stackCount();
        std::vector<StackId> idOf(second.stackCount());
        for (size_t s = 0; s < idOf.size(); ++s) {
            const auto locs = second.stack(StackId(s));
            if (p.stackLocations.size() + locs.size() >= std::numeric_limits<uint32_t>::max())
                return makeError(ErrorCode::TooLarge, "too many distinct stack frames (over 4 billion)");
            if (byBytes) {
                const auto bytes = secondRaw.bytes(s);
                idOf[s] = firstRaw.find(bytes, RawStackCache::hash(bytes));
                if (!idOf[s].valid())
                    idOf[s] = p.appendNewStack(locs);
            } else {
                idOf[s] = p.internStack(locs);
            }
        }
        const size_t firstCount = p.sampleStacks.size();
        reserveBig(p.sampleStacks, firstCount + second.sampleStacks.size());
        for (const StackId s : second.sampleStacks)
            p.sampleStacks.push_back(idOf[s.index()]);
        p.sampleValues.insert(p.sampleValues.end(), second.sampleValues.begin(), second.sampleValues.end());
        if (second.hasLabels()) {
            std::vector<uint32_t> setOf(second.labelSetCount());
            for (size_t s = 0; s < setOf.size(); ++s)
                setOf[s] = p.internLabelSet(second.labelSet(static_cast<uint32_t>(s)));
            for (size_t i = 0; i < second.sampleStacks.size(); ++i)
                p.setSampleLabelSet(firstCount + i, setOf[second.sampleLabelSet(i)]);
        }
        if (m_progress)
            m_progress->setProgress(m_sampleCount, m_sampleCount);
        return Status::success();
    }

    // --- streamed input (InflatePipe): samples come before the tables they refer to

    /// An error that sends the file to be read whole (readPprof), for a layout the stream does
    /// not take; its text is not shown.
    static Error streamGivesUp(const char* why)
    {
        return invalid(std::string("streamed reading gives up: ") + why);
    }

    /// What the splitting thread hands over: one chunk's top-level fields in order, the samples
    /// among them decoded (location ids as tentative rows, labels with their string indices as
    /// written), every other known field with its bytes kept in m_kept.
    struct StreamBatch {
        static constexpr uint32_t kSampleItem = std::numeric_limits<uint32_t>::max();
        struct Item {
            uint32_t field = kSampleItem; ///< the field's index in fields, or kSampleItem
            uint32_t frames = 0, values = 0, labels = 0; ///< a sample's counts in frames, values, labels
        };
        std::vector<Item> items;
        std::vector<LocationId> frames = std::vector<LocationId>(4096); ///< frameCount used, scratch beyond
        size_t frameCount = 0;
        std::vector<int64_t> values;
        std::vector<Label> labels;
        std::vector<Field> fields;
        uint32_t maxRow = 0;
        size_t sampleBytes = 0;
        uint64_t consumed = 0; ///< the compressed bytes the inflater had consumed

        void clear()
        {
            items.clear();
            frameCount = 0;
            values.clear();
            labels.clear();
            fields.clear();
            maxRow = 0;
            sampleBytes = 0;
        }
    };
    using StreamHandoff = Handoff<StreamBatch, 4>;

    /// Reads the stream's top-level fields in order. Three threads share the work: the pipe's
    /// inflates, a second splits the inflated chunks into fields and decodes the samples
    /// (splitStream), and this one takes the batches in order (takeBatch): it interns stacks and
    /// label sets and reads the tables' fields.
    Status scanStream()
    {
        if (m_progress)
            m_progress->setStage("reading samples");
        StreamHandoff handoff;
        std::optional<Error> splitError;
        std::thread splitter;
        try {
            splitter = std::thread([&] {
                try {
                    splitError = splitStream(handoff);
                } catch (const std::bad_alloc&) { // not thrown past the thread: the whole read reports it
                    splitError = streamGivesUp("out of memory while splitting");
                }
                handoff.finish();
            });
        } catch (const std::system_error&) {
            return streamGivesUp("no thread to split on");
        }
        struct Joined {
            StreamHandoff& handoff;
            std::thread& thread;
            ~Joined()
            {
                handoff.stop();
                thread.join();
            }
        } joined { handoff, splitter };
        const uint64_t inputSize = m_pipe->inputSize();
        while (StreamBatch* batch = handoff.next()) {
            const Status taken = takeBatch(*batch);
            const uint64_t consumed = batch->consumed;
            handoff.release(batch);
            if (!taken)
                return taken;
            if (m_progress) {
                if (m_progress->isCancelled())
                    return makeError(ErrorCode::Cancelled, "cancelled");
                m_progress->setProgress(consumed, inputSize);
            }
            // The inflater is past what it consumed; a margin for what it may still look at.
            constexpr uint64_t kMargin = uint64_t(1) << 20;
            if (m_inputDoneBefore && consumed > kMargin)
                m_inputDoneBefore(static_cast<size_t>(consumed - kMargin));
        }
        if (splitError) // written before finish(), which next() saw
            return *splitError;
        if (!m_sawKnown) // also an empty stream
            return invalid("not a pprof profile: none of its fields is a pprof field");
        if (m_progress)
            m_progress->setProgress(inputSize, inputSize);
        return Status::success();
    }

    /// The splitting thread: the pipe's chunks split into top-level fields, a batch per chunk. A
    /// message cut in two by a chunk's end is carried into the room before the next chunk's bytes
    /// (or, when larger than that room, collected in a buffer of its own until it is whole).
    /// Returns why the stream ended early, if it did. Touches only m_kept and m_prefault of the
    /// decoder (and its constant parts) while the decoding thread runs.
    std::optional<Error> splitStream(StreamHandoff& handoff)
    {
        InflatePipe& pipe = *m_pipe;
        int held = -1; // the chunk the carried bytes are in
        std::span<const uint8_t> carry;
        std::vector<uint8_t> spill;
        bool spilling = false;
        const auto releaseHeld = [&] {
            if (held >= 0)
                pipe.release(held);
            held = -1;
        };
        for (;;) {
            const InflatePipe::Chunk chunk = pipe.next();
            if (chunk.buffer < 0)
                break;
            std::span<const uint8_t> window;
            if (!spilling && carry.size() <= InflatePipe::kHeadroom) {
                uint8_t* start = chunk.bytes.data() - carry.size();
                if (!carry.empty())
                    std::memmove(start, carry.data(), carry.size());
                window = { start, carry.size() + chunk.bytes.size() };
                releaseHeld();
                held = chunk.buffer;
            } else {
                if (!spilling) {
                    spill.assign(carry.begin(), carry.end());
                    spilling = true;
                }
                releaseHeld();
                spill.insert(spill.end(), chunk.bytes.begin(), chunk.bytes.end());
                pipe.release(chunk.buffer);
                window = spill;
            }
            StreamBatch* batch = handoff.acquire();
            if (!batch) { // the decoding thread stopped: nobody reads on
                releaseHeld();
                return makeError(ErrorCode::Cancelled, "stopped");
            }
            batch->clear();
            Decoder d(window);
            Field f;
            size_t used = 0;
            std::optional<Error> error;
            while (d.next(f)) {
                if ((error = splitField(f, *batch)))
                    break;
                used = d.position();
            }
            if (!error && d.failed()) {
                if (d.error() != DecodeError::Truncated)
                    error = invalid("not a protobuf message: " + d.errorText());
                used = f.offset; // the field the window ends inside
            }
            if (error) {
                handoff.release(batch);
                releaseHeld();
                return error;
            }
            batch->consumed = pipe.consumed();
            handoff.publish(batch);
            m_prefault.run(kPrefaultAhead);
            carry = window.subspan(used);
            if (spilling && carry.size() <= InflatePipe::kHeadroom) {
                // Carried on from the spill buffer, which stays as it is until the next chunk.
                spilling = false;
            } else if (spilling) {
                spill.erase(spill.begin(), spill.begin() + static_cast<std::ptrdiff_t>(used));
                carry = spill;
            }
        }
        releaseHeld();
        if (pipe.error())
            return *pipe.error();
        if (!carry.empty())
            return makeError(ErrorCode::Truncated, "truncated protobuf");
        return std::nullopt;
    }

    /// One top-level field into the batch: a sample decoded, another known field kept for
    /// topLevelField (which checks it), an unknown one skipped.
    std::optional<Error> splitField(const Field& f, StreamBatch& batch)
    {
        if (f.number == kSample && f.type == WireType::Len)
            return splitSample(f, batch);
        if (f.number >= kMaxSchemaField || kProfileSchema.fields[f.number] == nullptr)
            return std::nullopt;
        Field kept = f;
        kept.bytes = m_kept.keep(f.bytes);
        batch.items.push_back({ static_cast<uint32_t>(batch.fields.size()) });
        batch.fields.push_back(kept);
        return std::nullopt;
    }

    /// The usual sample, nothing but packed location ids and packed values: read without the
    /// general walk over its fields. False, with the batch as it was, for any other sample,
    /// which splitSample then reads field by field.
    bool splitPlainSample(std::span<const uint8_t> bytes, StreamBatch& batch) const
    {
        constexpr uint8_t kPackedLocations = 1 << 3 | 2, kPackedValues = 2 << 3 | 2; // field << 3 | Len
        const size_t framesBegin = batch.frameCount;
        const size_t valuesBegin = batch.values.size();
        uint32_t maxRow = batch.maxRow;
        const uint8_t* q = bytes.data();
        const uint8_t* const end = q + bytes.size();
        const auto undo = [&] {
            batch.frameCount = framesBegin;
            batch.values.resize(valuesBegin);
            return false;
        };
        while (q < end) {
            const uint8_t tag = *q++;
            if ((tag != kPackedLocations && tag != kPackedValues) || q == end)
                return undo();
            uint64_t len;
            if (protowire::readVarint(q, end, len) != protowire::VarintStatus::Ok || len > uint64_t(end - q))
                return undo();
            Field field;
            field.type = WireType::Len;
            field.bytes = { q, static_cast<size_t>(len) };
            q += len;
            if (tag == kPackedLocations) {
                uint64_t badId = 0;
                bool canonical = true;
                if (appendPackedLocations<true>(field.bytes, batch.frames, batch.frameCount, &badId, &canonical, &maxRow)
                    != PackedResult::Ok)
                    return undo();
            } else if (protowire::forEachVarint(field, [&](uint64_t v) { batch.values.push_back(static_cast<int64_t>(v)); })
                != DecodeError::None) {
                return undo();
            }
        }
        batch.maxRow = maxRow;
        return true;
    }

    /// One sample into the batch, its location ids tentative (appendPackedLocations) and its
    /// labels' string indices as they are (the string table comes last).
    std::optional<Error> splitSample(const Field& f, StreamBatch& batch) const
    {
        const size_t framesBegin = batch.frameCount;
        const size_t valuesBegin = batch.values.size();
        const size_t labelsBegin = batch.labels.size();
        if (!splitPlainSample(f.bytes, batch))
            if (std::optional<Error> e = splitSampleFields(f.bytes, batch))
                return e;
        constexpr size_t kMax = std::numeric_limits<uint32_t>::max();
        if (batch.frameCount - framesBegin >= kMax || batch.values.size() - valuesBegin >= kMax)
            return streamGivesUp("a sample of over 2^32 frames or values");
        StreamBatch::Item item;
        item.frames = static_cast<uint32_t>(batch.frameCount - framesBegin);
        item.values = static_cast<uint32_t>(batch.values.size() - valuesBegin);
        item.labels = static_cast<uint32_t>(batch.labels.size() - labelsBegin);
        batch.items.push_back(item);
        batch.sampleBytes += f.bytes.size();
        return std::nullopt;
    }

    /// A sample's fields one by one, for any layout splitPlainSample does not take.
    std::optional<Error> splitSampleFields(std::span<const uint8_t> bytes, StreamBatch& batch) const
    {
        Decoder sd(bytes);
        Field sf;
        while (sd.next(sf)) {
            switch (sf.number) {
            case 1: // location_id, leaf first
                if (sf.type == WireType::Len) {
                    uint64_t badId = 0;
                    bool canonical = true;
                    if (appendPackedLocations<true>(
                            sf.bytes, batch.frames, batch.frameCount, &badId, &canonical, &batch.maxRow)
                        != PackedResult::Ok)
                        return streamGivesUp("a bad or large location id");
                } else if (sf.type == WireType::Varint) {
                    const uint32_t row = tentativeRow(sf.value, &batch.maxRow);
                    if (row == IdIndex::kNone)
                        return streamGivesUp("a bad or large location id");
                    if (batch.frames.size() == batch.frameCount)
                        batch.frames.resize(batch.frames.size() * 2 + 16);
                    batch.frames[batch.frameCount++] = LocationId(row);
                } else {
                    return streamGivesUp("a location id of another wire type");
                }
                break;
            case 2: // value, packed or not
                if (protowire::forEachVarint(sf, [&](uint64_t v) { batch.values.push_back(static_cast<int64_t>(v)); })
                    != DecodeError::None)
                    return streamGivesUp("a malformed value");
                break;
            case 3: {
                if (sf.type != WireType::Len)
                    return streamGivesUp("a label of another wire type");
                uint64_t v[kMaxSchemaField] = {};
                if (Status st = decodeFlat(sf.bytes, kLabelSchema, v); !st)
                    return st.error();
                constexpr uint64_t kMax = std::numeric_limits<uint32_t>::max();
                if (v[1] > kMax || v[2] > kMax || v[4] > kMax)
                    return streamGivesUp("a label string index over 2^32");
                batch.labels.push_back({ StringId(static_cast<uint32_t>(v[1])), StringId(static_cast<uint32_t>(v[2])),
                    static_cast<int64_t>(v[3]), StringId(static_cast<uint32_t>(v[4])) });
                break;
            }
            default:
                break;
            }
        }
        if (sd.failed())
            return streamGivesUp("a malformed sample");
        return std::nullopt;
    }

    /// A batch's items in order: samples appended to the profile (their stacks interned), other
    /// fields read as topLevelField reads them.
    Status takeBatch(const StreamBatch& batch)
    {
        Profile& p = m_profile;
        const LocationId* frames = batch.frames.data();
        const int64_t* values = batch.values.data();
        const Label* labels = batch.labels.data();
        for (const StreamBatch::Item& item : batch.items) {
            if (item.field != StreamBatch::kSampleItem) {
                if (Status s = topLevelField(batch.fields[item.field]); !s)
                    return s;
                continue;
            }
            m_sawKnown = true;
            const size_t nTypes = m_sampleTypeSpans.size();
            if (nTypes == 0)
                return invalid("profile has samples but no sample types");
            if (item.values != nTypes)
                return streamGivesUp("a sample with another number of values");
            p.sampleValues.insert(p.sampleValues.end(), values, values + item.values);
            values += item.values;
            if (p.stackLocations.size() + item.frames >= std::numeric_limits<uint32_t>::max())
                return makeError(ErrorCode::TooLarge, "too many distinct stack frames (over 4 billion)");
            p.sampleStacks.push_back(p.internStack({ frames, item.frames }));
            frames += item.frames;
            if (item.labels != 0 || !m_rawSetOfSample.empty()) {
                if (m_rawSetOfSample.empty())
                    m_rawSetOfSample.assign(m_sampleCount, 0);
                m_rawSetOfSample.push_back(m_rawLabels.internLabelSet({ labels, item.labels }));
            }
            labels += item.labels;
            ++m_sampleCount;
        }
        m_maxRow = std::max(m_maxRow, batch.maxRow);
        m_sampleBytes += batch.sampleBytes;
        if (!m_reserved && m_sampleCount >= kReserveAfter)
            reserveStreamed(m_sampleBytes);
        if (m_reserved)
            reportWritten();
        return Status::success();
    }

    /// Room for the samples, guessed from the first ones and the inflated size when known: the
    /// arrays then grow without copying (reserveBig takes address space, used as written).
    void reserveStreamed(size_t sampleBytes)
    {
        m_reserved = true;
        if (m_sizeHint == 0 || sampleBytes == 0)
            return;
        const double perSample = double(sampleBytes) / double(m_sampleCount);
        const size_t samples = static_cast<size_t>(double(m_sizeHint) / perSample * 1.1) + 1024;
        Profile& p = m_profile;
        reserveBig(p.sampleStacks, samples);
        reserveBig(p.sampleValues, samples * p.sampleTypes.size());
        reserveBig(p.stackBegin, samples + 1);
        reserveBig(p.stackLocations, std::min<size_t>(m_sizeHint, kMaxReservedFrames));
        const auto reserved = [](const auto& v) { return v.capacity() * sizeof(*v.data()); };
        m_prefault.set(0, p.stackLocations.data(), reserved(p.stackLocations));
        m_prefault.set(1, p.sampleStacks.data(), reserved(p.sampleStacks));
        m_prefault.set(2, p.sampleValues.data(), reserved(p.sampleValues));
        m_prefault.set(3, p.stackBegin.data(), reserved(p.stackBegin));
    }

    /// Where the arrays that reserveStreamed reserved are filled to, for m_prefault.
    void reportWritten()
    {
        const Profile& p = m_profile;
        m_prefault.written(0, p.stackLocations.data() + p.stackLocations.size());
        m_prefault.written(1, p.sampleStacks.data() + p.sampleStacks.size());
        m_prefault.written(2, p.sampleValues.data() + p.sampleValues.size());
        m_prefault.written(3, p.stackBegin.data() + p.stackBegin.size());
    }

    /// With the tables read: tentative location rows checked (or mapped to the rows of the ids,
    /// which keeps distinct stacks distinct) and labels resolved as decodeLabel would have.
    Status finishStreamedSamples()
    {
        Profile& p = m_profile;
        if (m_sampleCount == 0)
            return Status::success();
        if (m_locationIndex.isIdentity()) {
            if (m_maxRow >= m_locationIndex.size())
                return streamGivesUp("a location id that does not exist");
        } else {
            for (LocationId& loc : p.stackLocations) {
                const uint32_t row = m_locationIndex.find(uint64_t(loc.value) + 1);
                if (row == IdIndex::kNone)
                    return streamGivesUp("a location id that does not exist");
                loc = LocationId(row);
            }
        }
        if (!m_rawSetOfSample.empty()) {
            std::vector<std::optional<std::vector<Label>>> resolved(m_rawLabels.labelSetCount());
            for (size_t i = 0; i < m_sampleCount; ++i) {
                const uint32_t raw = m_rawSetOfSample[i];
                std::optional<std::vector<Label>>& labels = resolved[raw];
                if (!labels) {
                    labels.emplace();
                    for (const Label& l : m_rawLabels.labelSet(raw)) {
                        const uint64_t v[kMaxSchemaField]
                            = { 0, l.key.value, l.str.value, static_cast<uint64_t>(l.num), l.numUnit.value };
                        if (Status st = addLabel(v, i, *labels); !st)
                            return st;
                    }
                }
                if (!labels->empty() || p.hasLabels())
                    p.setSampleLabelSet(i, p.internLabelSet(*labels));
            }
        }
        return Status::success();
    }

    std::span<const uint8_t> m_data;
    const uint8_t* m_origin;
    Progress* m_progress;
    Profile m_profile;

    InflatePipe* m_pipe = nullptr;
    uint64_t m_sizeHint = 0;
    std::function<void(size_t)> m_inputDoneBefore;
    bool m_streaming = false;
    ByteArena m_kept; ///< the tables' messages of a streamed file
    PrefaultAhead m_prefault; ///< the sample arrays' pages, mapped by the splitting thread
    static constexpr size_t kPrefaultAhead = size_t(8) << 20;
    uint32_t m_maxRow = 0;
    Profile m_rawLabels; ///< a streamed file's label sets, with their string indices as written
    std::vector<uint32_t> m_rawSetOfSample; ///< each sample's set in m_rawLabels (empty: none has labels)
    size_t m_sampleBytes = 0;
    bool m_reserved = false;
    static constexpr size_t kReserveAfter = 4096;
    bool m_sawKnown = false;

    // What the top-level pass found.
    std::vector<std::span<const uint8_t>> m_sampleTypeSpans;
    std::vector<std::span<const uint8_t>> m_periodTypeSpans;
    std::vector<std::span<const uint8_t>> m_mappingSpans;
    std::vector<std::span<const uint8_t>> m_locationSpans;
    std::vector<std::span<const uint8_t>> m_functionSpans;
    std::vector<StringId> m_stringIds { StringId() }; // pprof string index -> interned id
    size_t m_fileStringCount = 0;
    std::vector<uint64_t> m_comments;
    size_t m_sampleCount = 0;
    /// Where every kSampleMarkEvery-th sample starts, to split the samples between threads.
    struct SampleMark {
        size_t index;
        size_t offset;
    };
    static constexpr size_t kSampleMarkEvery = 1u << 14;
    static constexpr size_t kParallelSamples = 1u << 17;
    std::vector<SampleMark> m_sampleMarks;
    size_t m_samplesBegin = 0;
    size_t m_samplesEnd = 0;
    uint64_t m_dropFrames = 0;
    uint64_t m_keepFrames = 0;
    uint64_t m_defaultSampleType = 0;
    uint64_t m_docUrl = 0;
    bool m_sawTime = false;

    IdIndex m_mappingIndex;
    IdIndex m_functionIndex;
    IdIndex m_locationIndex;
};

} // namespace

Result<Profile> readPprof(std::span<const uint8_t> data, const PprofReadOptions& options, Progress* progress)
{
    // gzip is inflated on a thread of its own while the samples are decoded as they come. Any
    // error, and any layout the stream does not take (streamGivesUp), sends the file to be read
    // whole, which gives the answer a whole file gets: the stream's errors are never shown.
    if (isGzip(data)) {
        Result<Profile> streamed = makeError(ErrorCode::InvalidInput, "no thread to inflate on");
        {
            // A gzip member ends with its inflated size modulo 2^32: a hint for room.
            uint64_t hint = 0;
            if (data.size() >= 18)
                for (size_t i = 1; i <= 4; ++i)
                    hint = hint << 8 | data[data.size() - i]; // little-endian
            InflatePipe pipe(data, options.limits, hint);
            if (pipe.start()) {
                PprofDecoder decoder(pipe, hint < data.size() ? 0 : hint, options.inputDoneBefore, progress);
                streamed = decoder.run();
            }
        }
        if (streamed || streamed.error().code == ErrorCode::Cancelled)
            return streamed;
    }
    std::vector<uint8_t> inflated;
    auto raw = decompressIfCompressed(data, inflated, options.limits, progress);
    if (!raw)
        return raw.error();
    if (progress)
        progress->setStage("reading pprof tables");
    PprofDecoder decoder(*raw, progress);
    return decoder.run();
}

} // namespace symflame::model
