// OTLP JSON: the protobuf JSON mapping of ProfilesData, turned into the equivalent protobuf (1.10.0
// layout) by a small schema-driven transcoder and read by the protobuf reader, so both forms go
// through the same checks. Rules (OTLP's JSON encoding): keys are lowerCamelCase (the proto
// names are accepted too), 64-bit integers come as decimal strings or numbers, enums as
// integers, trace and span ids as hex, other bytes as base64; unknown keys are ignored.
// JSON names of older layouts ("sample", "line", "timeNanos") are accepted as aliases.
#include "model/io/otlp/otlp.h"

#include "model/io/protowire.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace symflame::model {

namespace {

using protowire::Encoder;
using protowire::WireType;
using json = nlohmann::json;

// HexBytes: trace and span ids (hex only); IdBytes: profile_id (hex, or base64 as other bytes).
enum class Kind : uint8_t {
    Int32,
    Int64,
    Uint64,
    Fixed64,
    Bool,
    Double,
    String,
    Bytes,
    HexBytes,
    IdBytes,
    Message,
    Enum
};

struct MessageDesc;

struct FieldDesc {
    const char* name; ///< proto name (snake_case); the JSON name is its lowerCamelCase form
    uint32_t number;
    Kind kind;
    bool repeated = false;
    const MessageDesc* message = nullptr;
    const char* alias = nullptr; ///< a JSON name of an older layout
};

struct MessageDesc {
    const char* name;
    std::vector<FieldDesc> fields;
};

// The descriptors refer to each other; they are built once, in dependency order.
struct Schema {
    MessageDesc anyValue { "AnyValue", {} };
    MessageDesc keyValue { "KeyValue", {} };
    MessageDesc arrayValue { "ArrayValue", {} };
    MessageDesc keyValueList { "KeyValueList", {} };
    MessageDesc resource { "Resource", {} };
    MessageDesc scope { "InstrumentationScope", {} };
    MessageDesc valueType { "ValueType", {} };
    MessageDesc sample { "Sample", {} };
    MessageDesc profile { "Profile", {} };
    MessageDesc scopeProfiles { "ScopeProfiles", {} };
    MessageDesc resourceProfiles { "ResourceProfiles", {} };
    MessageDesc mapping { "Mapping", {} };
    MessageDesc line { "Line", {} };
    MessageDesc location { "Location", {} };
    MessageDesc function { "Function", {} };
    MessageDesc link { "Link", {} };
    MessageDesc keyValueAndUnit { "KeyValueAndUnit", {} };
    MessageDesc stack { "Stack", {} };
    MessageDesc dictionary { "ProfilesDictionary", {} };
    MessageDesc profilesData { "ProfilesData", {} };

    Schema()
    {
        anyValue.fields
            = { { "string_value", 1, Kind::String }, { "bool_value", 2, Kind::Bool }, { "int_value", 3, Kind::Int64 },
                  { "double_value", 4, Kind::Double }, { "array_value", 5, Kind::Message, false, &arrayValue },
                  { "kvlist_value", 6, Kind::Message, false, &keyValueList }, { "bytes_value", 7, Kind::Bytes },
                  { "string_value_strindex", 8, Kind::Int32 } };
        keyValue.fields = { { "key", 1, Kind::String }, { "value", 2, Kind::Message, false, &anyValue },
            { "key_strindex", 3, Kind::Int32 } };
        arrayValue.fields = { { "values", 1, Kind::Message, true, &anyValue } };
        keyValueList.fields = { { "values", 1, Kind::Message, true, &keyValue } };
        resource.fields
            = { { "attributes", 1, Kind::Message, true, &keyValue }, { "dropped_attributes_count", 2, Kind::Int32 } };
        scope.fields = { { "name", 1, Kind::String }, { "version", 2, Kind::String },
            { "attributes", 3, Kind::Message, true, &keyValue }, { "dropped_attributes_count", 4, Kind::Int32 } };
        valueType.fields = { { "type_strindex", 1, Kind::Int32 }, { "unit_strindex", 2, Kind::Int32 } };
        sample.fields = { { "stack_index", 1, Kind::Int32 }, { "attribute_indices", 2, Kind::Int32, true },
            { "link_index", 3, Kind::Int32 }, { "values", 4, Kind::Int64, true, nullptr, "value" },
            { "timestamps_unix_nano", 5, Kind::Fixed64, true } };
        profile.fields = { { "sample_type", 1, Kind::Message, false, &valueType },
            { "samples", 2, Kind::Message, true, &sample, "sample" },
            { "time_unix_nano", 3, Kind::Fixed64, false, nullptr, "timeNanos" },
            { "duration_nano", 4, Kind::Uint64, false, nullptr, "durationNanos" },
            { "period_type", 5, Kind::Message, false, &valueType }, { "period", 6, Kind::Int64 },
            { "profile_id", 7, Kind::IdBytes }, { "dropped_attributes_count", 8, Kind::Int32 },
            { "original_payload_format", 9, Kind::String }, { "original_payload", 10, Kind::Bytes },
            { "attribute_indices", 11, Kind::Int32, true } };
        scopeProfiles.fields = { { "scope", 1, Kind::Message, false, &scope },
            { "profiles", 2, Kind::Message, true, &profile }, { "schema_url", 3, Kind::String } };
        resourceProfiles.fields = { { "resource", 1, Kind::Message, false, &resource },
            { "scope_profiles", 2, Kind::Message, true, &scopeProfiles }, { "schema_url", 3, Kind::String } };
        mapping.fields = { { "memory_start", 1, Kind::Uint64 }, { "memory_limit", 2, Kind::Uint64 },
            { "file_offset", 3, Kind::Uint64 }, { "filename_strindex", 4, Kind::Int32 },
            { "attribute_indices", 5, Kind::Int32, true } };
        line.fields
            = { { "function_index", 1, Kind::Int32 }, { "line", 2, Kind::Int64 }, { "column", 3, Kind::Int64 } };
        location.fields = { { "mapping_index", 1, Kind::Int32 }, { "address", 2, Kind::Uint64 },
            { "lines", 3, Kind::Message, true, &line, "line" }, { "attribute_indices", 4, Kind::Int32, true } };
        function.fields = { { "name_strindex", 1, Kind::Int32 }, { "system_name_strindex", 2, Kind::Int32 },
            { "filename_strindex", 3, Kind::Int32 }, { "start_line", 4, Kind::Int64 } };
        link.fields = { { "trace_id", 1, Kind::HexBytes }, { "span_id", 2, Kind::HexBytes } };
        keyValueAndUnit.fields = { { "key_strindex", 1, Kind::Int32 }, { "value", 2, Kind::Message, false, &anyValue },
            { "unit_strindex", 3, Kind::Int32 } };
        stack.fields = { { "location_indices", 1, Kind::Int32, true } };
        dictionary.fields = { { "mapping_table", 1, Kind::Message, true, &mapping },
            { "location_table", 2, Kind::Message, true, &location },
            { "function_table", 3, Kind::Message, true, &function }, { "link_table", 4, Kind::Message, true, &link },
            { "string_table", 5, Kind::String, true }, { "attribute_table", 6, Kind::Message, true, &keyValueAndUnit },
            { "stack_table", 7, Kind::Message, true, &stack } };
        profilesData.fields = { { "resource_profiles", 1, Kind::Message, true, &resourceProfiles },
            { "dictionary", 2, Kind::Message, false, &dictionary } };
    }
};

const Schema& schema()
{
    static const Schema s;
    return s;
}

std::string camelCase(std::string_view snake)
{
    std::string out;
    bool upper = false;
    for (char c : snake) {
        if (c == '_') {
            upper = true;
            continue;
        }
        out += upper ? static_cast<char>(c - 'a' + 'A') : c;
        upper = false;
    }
    return out;
}

const FieldDesc* findField(const MessageDesc& m, const std::string& key)
{
    for (const FieldDesc& f : m.fields) {
        if (key == f.name || key == camelCase(f.name) || (f.alias && key == f.alias))
            return &f;
    }
    return nullptr;
}

std::string jsonKind(const json& v)
{
    switch (v.type()) {
    case json::value_t::null:
        return "null";
    case json::value_t::object:
        return "an object";
    case json::value_t::array:
        return "an array";
    case json::value_t::string:
        return "the string \"" + v.get_ref<const std::string&>().substr(0, 40) + "\"";
    case json::value_t::boolean:
        return v.get<bool>() ? "true" : "false";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
        return "the number " + v.dump();
    default:
        return "a value";
    }
}

int base64Digit(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

bool decodeBase64(std::string_view s, std::vector<uint8_t>& out)
{
    out.clear();
    uint32_t acc = 0;
    int bits = 0;
    for (char c : s) {
        if (c == '=')
            break;
        const int d = base64Digit(c);
        if (d < 0)
            return false;
        acc = (acc << 6) | static_cast<uint32_t>(d);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<uint8_t>(acc >> bits));
        }
    }
    return true;
}

bool decodeHex(std::string_view s, std::vector<uint8_t>& out)
{
    if (s.size() % 2)
        return false;
    out.clear();
    for (size_t i = 0; i < s.size(); i += 2) {
        uint8_t b = 0;
        const auto r = std::from_chars(s.data() + i, s.data() + i + 2, b, 16);
        if (r.ec != std::errc() || r.ptr != s.data() + i + 2)
            return false;
        out.push_back(b);
    }
    return true;
}

class Transcoder {
public:
    explicit Transcoder(std::vector<uint8_t>& out)
        : m_out(out)
        , m_e(out)
    {
    }

    bool message(const json& obj, const MessageDesc& desc, const std::string& path, int depth)
    {
        if (!obj.is_object())
            return fail(path, "expected an object (" + std::string(desc.name) + "), got " + jsonKind(obj));
        if (depth > 64)
            return fail(path, "nested too deeply");
        for (auto it = obj.begin(); it != obj.end(); ++it) {
            const FieldDesc* f = findField(desc, it.key());
            if (!f || it.value().is_null())
                continue; // unknown keys are ignored; null is the default
            const std::string fieldPath = path.empty() ? it.key() : path + "." + it.key();
            if (f->repeated) {
                if (!it.value().is_array())
                    return fail(fieldPath, "expected an array, got " + jsonKind(it.value()));
                if (!repeated(it.value(), *f, fieldPath, depth))
                    return false;
            } else if (!single(it.value(), *f, fieldPath, depth)) {
                return false;
            }
        }
        return true;
    }

    const std::string& error() const { return m_error; }

private:
    bool fail(const std::string& path, std::string what)
    {
        m_error = (path.empty() ? std::string("top level") : path) + ": " + std::move(what);
        return false;
    }

    bool integer(const json& v, Kind kind, const std::string& path, uint64_t& out)
    {
        // Signed kinds accept -2^63..2^63-1 (Int32 its own range), unsigned 0..2^64-1.
        const bool isSigned = kind == Kind::Int32 || kind == Kind::Int64 || kind == Kind::Enum;
        if (v.is_number_unsigned()) {
            out = v.get<uint64_t>();
        } else if (v.is_number_integer()) {
            const int64_t s = v.get<int64_t>();
            if (!isSigned && s < 0)
                return fail(path, "expected an unsigned integer, got " + jsonKind(v));
            out = static_cast<uint64_t>(s);
        } else if (v.is_number_float()) {
            const double d = v.get<double>();
            if (d != std::floor(d) || std::fabs(d) > 9.2e18)
                return fail(path, "expected an integer, got " + jsonKind(v));
            out = static_cast<uint64_t>(static_cast<int64_t>(d));
        } else if (v.is_string()) {
            const std::string& s = v.get_ref<const std::string&>();
            const char* b = s.data();
            const char* e = b + s.size();
            if (isSigned && !s.empty() && s[0] == '-') {
                int64_t x = 0;
                const auto r = std::from_chars(b, e, x);
                if (r.ec != std::errc() || r.ptr != e)
                    return fail(path, "expected an integer, got " + jsonKind(v));
                out = static_cast<uint64_t>(x);
            } else {
                uint64_t x = 0;
                const auto r = std::from_chars(b, e, x);
                if (s.empty() || r.ec != std::errc() || r.ptr != e)
                    return fail(path, "expected an integer, got " + jsonKind(v));
                if (isSigned && x > uint64_t(std::numeric_limits<int64_t>::max()))
                    return fail(path, "integer " + s + " out of range");
                out = x;
            }
        } else {
            return fail(path, "expected an integer, got " + jsonKind(v));
        }
        if (kind == Kind::Int32) {
            const auto s = static_cast<int64_t>(out);
            if (s < std::numeric_limits<int32_t>::min() || s > std::numeric_limits<int32_t>::max())
                return fail(path, "integer " + std::to_string(s) + " out of the int32 range");
        }
        return true;
    }

    bool scalarValue(const json& v, const FieldDesc& f, const std::string& path, uint64_t& bits)
    {
        switch (f.kind) {
        case Kind::Bool:
            if (!v.is_boolean())
                return fail(path, "expected true or false, got " + jsonKind(v));
            bits = v.get<bool>() ? 1 : 0;
            return true;
        case Kind::Double: {
            double d = 0;
            if (v.is_number()) {
                d = v.get<double>();
            } else if (v.is_string()) {
                const std::string& s = v.get_ref<const std::string&>();
                if (s == "NaN")
                    d = std::numeric_limits<double>::quiet_NaN();
                else if (s == "Infinity")
                    d = std::numeric_limits<double>::infinity();
                else if (s == "-Infinity")
                    d = -std::numeric_limits<double>::infinity();
                else
                    return fail(path, "expected a number, got " + jsonKind(v));
            } else {
                return fail(path, "expected a number, got " + jsonKind(v));
            }
            std::memcpy(&bits, &d, sizeof d);
            return true;
        }
        default:
            return integer(v, f.kind, path, bits);
        }
    }

    bool bytesValue(const json& v, const FieldDesc& f, const std::string& path, std::vector<uint8_t>& out)
    {
        if (!v.is_string())
            return fail(path, "expected a string of bytes, got " + jsonKind(v));
        const std::string& s = v.get_ref<const std::string&>();
        if ((f.kind == Kind::HexBytes || f.kind == Kind::IdBytes) && decodeHex(s, out))
            return true;
        if (f.kind != Kind::HexBytes && decodeBase64(s, out))
            return true;
        return fail(path,
            f.kind == Kind::HexBytes ? "expected hex digits, got " + jsonKind(v)
                                     : "expected base64, got " + jsonKind(v));
    }

    bool single(const json& v, const FieldDesc& f, const std::string& path, int depth)
    {
        switch (f.kind) {
        case Kind::Message: {
            const size_t m = m_e.beginMessage(f.number);
            if (!message(v, *f.message, path, depth + 1))
                return false;
            m_e.endMessage(m);
            return true;
        }
        case Kind::String:
            if (!v.is_string())
                return fail(path, "expected a string, got " + jsonKind(v));
            m_e.stringField(f.number, v.get_ref<const std::string&>());
            return true;
        case Kind::Bytes:
        case Kind::HexBytes:
        case Kind::IdBytes: {
            std::vector<uint8_t> bytes;
            if (!bytesValue(v, f, path, bytes))
                return false;
            m_e.bytesField(f.number, bytes);
            return true;
        }
        default: {
            uint64_t bits = 0;
            if (!scalarValue(v, f, path, bits))
                return false;
            if (f.kind == Kind::Fixed64 || f.kind == Kind::Double)
                m_e.fixed64Field(f.number, bits);
            else
                m_e.varintField(f.number, bits);
            return true;
        }
        }
    }

    bool repeated(const json& arr, const FieldDesc& f, const std::string& path, int depth)
    {
        if (f.kind == Kind::Message || f.kind == Kind::String || f.kind == Kind::Bytes || f.kind == Kind::HexBytes
            || f.kind == Kind::IdBytes) {
            for (size_t i = 0; i < arr.size(); ++i)
                if (!single(arr[i], f, path + "[" + std::to_string(i) + "]", depth))
                    return false;
            return true;
        }
        // Packed scalars.
        m_scratch.resize(arr.size());
        for (size_t i = 0; i < arr.size(); ++i)
            if (!scalarValue(arr[i], f, path + "[" + std::to_string(i) + "]", m_scratch[i]))
                return false;
        if (arr.empty())
            return true;
        if (f.kind == Kind::Fixed64 || f.kind == Kind::Double) {
            m_e.writeTag(f.number, WireType::Len);
            m_e.writeVarint(arr.size() * 8);
            for (uint64_t v : m_scratch)
                for (int b = 0; b < 8; ++b)
                    m_out.push_back(static_cast<uint8_t>(v >> (8 * b)));
        } else {
            m_e.packedVarintField(f.number, std::span<const uint64_t>(m_scratch));
        }
        return true;
    }

    std::vector<uint8_t>& m_out;
    Encoder m_e;
    std::vector<uint64_t> m_scratch;
    std::string m_error;
};

} // namespace

Result<std::vector<uint8_t>> otlpJsonToProtobuf(std::span<const uint8_t> text)
{
    json doc;
    try {
        doc = json::parse(text.begin(), text.end());
    } catch (const json::exception& e) {
        // "[json.exception.parse_error.101] parse error at line 3, column 5: ..." without the prefix.
        std::string what = e.what();
        if (const auto p = what.find("] "); p != std::string::npos)
            what = what.substr(p + 2);
        return makeError(ErrorCode::InvalidInput, "invalid JSON: " + what);
    }
    std::vector<uint8_t> out;
    out.reserve(text.size() / 2);
    Transcoder t(out);
    if (!t.message(doc, schema().profilesData, "", 0))
        return makeError(ErrorCode::InvalidInput, "OTLP JSON: " + t.error());
    return out;
}

Result<Profile> readOtlpJson(std::span<const uint8_t> data, const OtlpReadOptions& options, Progress* progress)
{
    std::vector<uint8_t> inflated;
    std::span<const uint8_t> text = data;
    if (isGzip(data)) {
        auto r = gunzip(data, options.limits);
        if (!r)
            return r.error();
        inflated = std::move(r).value();
        text = inflated;
    }
    if (progress)
        progress->setStage("parsing OTLP JSON");
    auto pb = otlpJsonToProtobuf(text);
    if (!pb)
        return pb.error();
    std::vector<uint8_t>().swap(inflated);
    if (pb->empty())
        return makeError(ErrorCode::InvalidInput, "OTLP JSON: no resourceProfiles and no dictionary");
    // The layout is 1.10.0's by construction (JSON names are the same in 1.8 to 1.10).
    return readOtlp(*pb, options, progress);
}

} // namespace symflame::model
