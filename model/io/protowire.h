// The protobuf wire format, read and written by hand: a zero-copy decoder that walks the fields of
// one message (every read bounds-checked, truncation told apart from corruption, unknown fields
// skipped by the caller, packed and unpacked repeated scalars both accepted) and an encoder that
// appends fields to a byte vector. Readers use it to decode straight into their own tables,
// which is much faster and leaner than building protoc-generated objects for millions of samples.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace symflame::model::protowire {

enum class WireType : uint8_t {
    Varint = 0,
    Fixed64 = 1,
    Len = 2, ///< length-delimited: bytes, strings, messages, packed repeated scalars
    StartGroup = 3,
    EndGroup = 4,
    Fixed32 = 5,
};

/// "varint", "fixed64", "length-delimited", ... for messages.
inline const char* wireTypeName(WireType t)
{
    switch (t) {
    case WireType::Varint:
        return "varint";
    case WireType::Fixed64:
        return "fixed64";
    case WireType::Len:
        return "length-delimited";
    case WireType::StartGroup:
        return "start-group";
    case WireType::EndGroup:
        return "end-group";
    case WireType::Fixed32:
        return "fixed32";
    }
    return "invalid";
}

enum class DecodeError : uint8_t {
    None,
    Truncated, ///< the data ends inside a tag, a value or a length-delimited field
    Malformed, ///< bytes that no encoder writes (bad wire type, field 0, over-long varint, ...)
};

enum class VarintStatus : uint8_t { Ok, Truncated, TooLong };

/// Reads a varint at p when at least 10 bytes follow (so no bounds checks are needed); returns
/// the position after it, or nullptr for a varint longer than 10 bytes.
inline const uint8_t* readVarintUnchecked(const uint8_t* p, uint64_t& out)
{
    // Ids, lengths and small values take one to three bytes: those are unrolled.
    uint64_t b = p[0];
    uint64_t v = b & 0x7f;
    if (b < 0x80) {
        out = v;
        return p + 1;
    }
    b = p[1];
    v |= (b & 0x7f) << 7;
    if (b < 0x80) {
        out = v;
        return p + 2;
    }
    b = p[2];
    v |= (b & 0x7f) << 14;
    if (b < 0x80) {
        out = v;
        return p + 3;
    }
    p += 3;
    for (int shift = 21; shift < 70; shift += 7) {
        b = *p++;
        v |= (b & 0x7f) << shift; // bits past 64 are dropped, as protobuf does
        if (b < 0x80)
            goto done;
    }
    return nullptr;
done:
    out = v;
    return p;
}

/// Reads one base-128 varint at p (advancing it); never reads at or past end.
inline VarintStatus readVarint(const uint8_t*& p, const uint8_t* end, uint64_t& out)
{
    if (p < end && *p < 0x80) {
        out = *p++;
        return VarintStatus::Ok;
    }
    if (end - p >= 10) {
        const uint8_t* q = readVarintUnchecked(p, out);
        if (!q)
            return VarintStatus::TooLong;
        p = q;
        return VarintStatus::Ok;
    }
    uint64_t v = 0;
    const uint8_t* q = p;
    for (int shift = 0; shift < 70; shift += 7) {
        if (q == end)
            return VarintStatus::Truncated;
        const uint8_t b = *q++;
        v |= static_cast<uint64_t>(b & 0x7f) << shift; // bits past 64 are dropped, as protobuf does
        if (b < 0x80) {
            out = v;
            p = q;
            return VarintStatus::Ok;
        }
    }
    return VarintStatus::TooLong;
}

/// Number of bytes the varint encoding of v takes (1..10).
constexpr size_t varintSize(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}

/// One field of a message as read from the wire.
struct Field {
    uint32_t number = 0;
    WireType type = WireType::Varint;
    uint64_t value = 0; ///< Varint, Fixed64 and Fixed32 fields
    std::span<const uint8_t> bytes; ///< Len fields (and the contents of a group)
    size_t offset = 0; ///< where the tag starts, counted from the decoder's origin

    int64_t asInt64() const { return static_cast<int64_t>(value); }
    bool asBool() const { return value != 0; }
    std::string_view asString() const { return { reinterpret_cast<const char*>(bytes.data()), bytes.size() }; }
};

/// Walks the fields of one message. Offsets (for messages) are counted from origin, which is the
/// start of the whole file when nested messages are decoded with the file's start as origin.
class Decoder {
public:
    explicit Decoder(std::span<const uint8_t> data, const uint8_t* origin = nullptr)
        : m_p(data.data())
        , m_end(data.data() + data.size())
        , m_origin(origin ? origin : data.data())
    {
    }

    /// Reads the next field into f. Returns false at the end of the data or on an error; failed()
    /// tells which. On a failure f.number and f.type hold the tag when it could be read (else 0).
    bool next(Field& f)
    {
        if (m_p == m_end)
            return false;
        f.offset = static_cast<size_t>(m_p - m_origin);
        f.number = 0;
        uint64_t tag = 0;
        if (auto st = readVarint(m_p, m_end, tag); st != VarintStatus::Ok)
            return fail(st == VarintStatus::Truncated ? DecodeError::Truncated : DecodeError::Malformed,
                st == VarintStatus::Truncated ? "tag runs past the end" : "tag varint is too long", f.offset);
        const uint64_t number = tag >> 3;
        const auto wt = static_cast<uint8_t>(tag & 7);
        if (number == 0 || number > kMaxFieldNumber)
            return fail(DecodeError::Malformed, number == 0 ? "field number 0" : "field number too large", f.offset);
        if (wt > 5)
            return fail(DecodeError::Malformed, wt == 6 ? "invalid wire type 6" : "invalid wire type 7", f.offset);
        f.number = static_cast<uint32_t>(number);
        f.type = static_cast<WireType>(wt);
        return readValue(f);
    }

    bool failed() const { return m_error != DecodeError::None; }
    DecodeError error() const { return m_error; }
    /// What went wrong and where: "invalid wire type 7 at byte 1234".
    std::string errorText() const { return std::string(m_errorWhat) + " at byte " + std::to_string(m_errorOffset); }
    size_t errorOffset() const { return m_errorOffset; }
    /// Current position, counted from the origin.
    size_t position() const { return static_cast<size_t>(m_p - m_origin); }
    bool atEnd() const { return m_p == m_end; }

    static constexpr uint64_t kMaxFieldNumber = (1u << 29) - 1;
    static constexpr int kMaxGroupDepth = 64;

private:
    bool fail(DecodeError e, const char* what, size_t offset)
    {
        m_error = e;
        m_errorWhat = what;
        m_errorOffset = offset;
        m_p = m_end; // no further fields
        return false;
    }

    bool readValue(Field& f)
    {
        switch (f.type) {
        case WireType::Varint:
            if (auto st = readVarint(m_p, m_end, f.value); st != VarintStatus::Ok)
                return fail(st == VarintStatus::Truncated ? DecodeError::Truncated : DecodeError::Malformed,
                    st == VarintStatus::Truncated ? "varint runs past the end" : "varint is too long", f.offset);
            return true;
        case WireType::Fixed64:
            return readFixed(f, 8);
        case WireType::Fixed32:
            return readFixed(f, 4);
        case WireType::Len: {
            uint64_t len = 0;
            if (auto st = readVarint(m_p, m_end, len); st != VarintStatus::Ok)
                return fail(st == VarintStatus::Truncated ? DecodeError::Truncated : DecodeError::Malformed,
                    st == VarintStatus::Truncated ? "length runs past the end" : "length varint is too long", f.offset);
            if (len > static_cast<uint64_t>(m_end - m_p))
                return fail(DecodeError::Truncated, "length-delimited field runs past the end", f.offset);
            f.bytes = { m_p, static_cast<size_t>(len) };
            m_p += len;
            return true;
        }
        case WireType::StartGroup:
            return skipGroup(f);
        case WireType::EndGroup:
            return fail(DecodeError::Malformed, "end-group without a start-group", f.offset);
        }
        return fail(DecodeError::Malformed, "invalid wire type", f.offset);
    }

    bool readFixed(Field& f, size_t n)
    {
        if (static_cast<size_t>(m_end - m_p) < n)
            return fail(DecodeError::Truncated, "fixed-size value runs past the end", f.offset);
        uint64_t v = 0;
        for (size_t i = 0; i < n; ++i)
            v |= static_cast<uint64_t>(m_p[i]) << (8 * i);
        m_p += n;
        f.value = v;
        return true;
    }

    // Groups are obsolete (proto2 only) but legal in unknown fields: skip to the matching end.
    bool skipGroup(Field& f)
    {
        const uint8_t* begin = m_p;
        uint32_t open[kMaxGroupDepth];
        int depth = 0;
        open[depth++] = f.number;
        while (depth > 0) {
            const uint8_t* tagStart = m_p;
            uint64_t tag = 0;
            if (auto st = readVarint(m_p, m_end, tag); st != VarintStatus::Ok)
                return fail(st == VarintStatus::Truncated ? DecodeError::Truncated : DecodeError::Malformed,
                    st == VarintStatus::Truncated ? "group runs past the end" : "tag varint is too long", f.offset);
            const auto number = static_cast<uint32_t>(tag >> 3);
            const auto wt = static_cast<WireType>(tag & 7);
            if (wt == WireType::EndGroup) {
                if (number != open[depth - 1])
                    return fail(DecodeError::Malformed, "mismatched end-group", f.offset);
                if (--depth == 0) {
                    f.bytes = { begin, static_cast<size_t>(tagStart - begin) };
                    return true;
                }
                continue;
            }
            if (wt == WireType::StartGroup) {
                if (depth == kMaxGroupDepth)
                    return fail(DecodeError::Malformed, "groups nested too deeply", f.offset);
                open[depth++] = number;
                continue;
            }
            Field inner;
            inner.offset = f.offset;
            inner.type = wt;
            if (static_cast<uint8_t>(wt) > 5)
                return fail(DecodeError::Malformed, "invalid wire type in group", f.offset);
            if (!readValue(inner))
                return false;
        }
        return true;
    }

    const uint8_t* m_p;
    const uint8_t* m_end;
    const uint8_t* m_origin;
    DecodeError m_error = DecodeError::None;
    const char* m_errorWhat = "";
    size_t m_errorOffset = 0;
};

/// Calls fn(uint64_t) for every value of a repeated varint field, packed (Len) or not (Varint).
/// Returns Malformed for a packed run that ends inside a varint or any other wire type.
template <typename Fn> inline DecodeError forEachVarint(const Field& f, Fn&& fn)
{
    if (f.type == WireType::Varint) {
        fn(f.value);
        return DecodeError::None;
    }
    if (f.type != WireType::Len)
        return DecodeError::Malformed;
    const uint8_t* p = f.bytes.data();
    const uint8_t* end = p + f.bytes.size();
    while (p < end) {
        uint64_t v;
        if (readVarint(p, end, v) != VarintStatus::Ok)
            return DecodeError::Malformed;
        fn(v);
    }
    return DecodeError::None;
}

/// Appends protobuf fields to a byte vector.
class Encoder {
public:
    explicit Encoder(std::vector<uint8_t>& out)
        : m_out(out)
    {
    }

    std::vector<uint8_t>& buffer() { return m_out; }

    void writeVarint(uint64_t v)
    {
        uint8_t buf[10];
        size_t n = 0;
        while (v >= 0x80) {
            buf[n++] = static_cast<uint8_t>(v | 0x80);
            v >>= 7;
        }
        buf[n++] = static_cast<uint8_t>(v);
        m_out.insert(m_out.end(), buf, buf + n);
    }
    void writeTag(uint32_t field, WireType type)
    {
        writeVarint((static_cast<uint64_t>(field) << 3) | static_cast<uint8_t>(type));
    }

    /// A varint field (uint64, int64 as two's complement, bool, enum), written even when zero.
    void varintField(uint32_t field, uint64_t v)
    {
        writeTag(field, WireType::Varint);
        writeVarint(v);
    }
    void int64Field(uint32_t field, int64_t v) { varintField(field, static_cast<uint64_t>(v)); }
    void boolField(uint32_t field, bool v) { varintField(field, v ? 1 : 0); }
    void fixed64Field(uint32_t field, uint64_t v)
    {
        writeTag(field, WireType::Fixed64);
        writeLittleEndian(v, 8);
    }
    void fixed32Field(uint32_t field, uint32_t v)
    {
        writeTag(field, WireType::Fixed32);
        writeLittleEndian(v, 4);
    }
    void bytesField(uint32_t field, std::span<const uint8_t> bytes)
    {
        writeTag(field, WireType::Len);
        writeVarint(bytes.size());
        m_out.insert(m_out.end(), bytes.begin(), bytes.end());
    }
    void stringField(uint32_t field, std::string_view s)
    {
        bytesField(field, { reinterpret_cast<const uint8_t*>(s.data()), s.size() });
    }

    /// A packed repeated varint field of count values, value(i) giving each. Nothing for count 0.
    template <typename ValueAt> void packedVarintField(uint32_t field, size_t count, ValueAt&& value)
    {
        if (count == 0)
            return;
        size_t len = 0;
        for (size_t i = 0; i < count; ++i)
            len += varintSize(static_cast<uint64_t>(value(i)));
        writeTag(field, WireType::Len);
        writeVarint(len);
        const size_t start = m_out.size();
        m_out.resize(start + len);
        uint8_t* p = m_out.data() + start;
        for (size_t i = 0; i < count; ++i) {
            auto v = static_cast<uint64_t>(value(i));
            while (v >= 0x80) {
                *p++ = static_cast<uint8_t>(v | 0x80);
                v >>= 7;
            }
            *p++ = static_cast<uint8_t>(v);
        }
    }
    template <typename T> void packedVarintField(uint32_t field, std::span<const T> values)
    {
        packedVarintField(field, values.size(), [&](size_t i) { return static_cast<uint64_t>(values[i]); });
    }

    /// Starts a nested message field; pass the result to endMessage once its fields are written.
    size_t beginMessage(uint32_t field)
    {
        writeTag(field, WireType::Len);
        m_out.push_back(0); // length placeholder: one byte, widened in endMessage if needed
        return m_out.size();
    }
    /// Ends the nested message begun at bodyStart, writing its length.
    void endMessage(size_t bodyStart)
    {
        const size_t len = m_out.size() - bodyStart;
        const size_t width = varintSize(len);
        if (width > 1) {
            m_out.insert(m_out.begin() + static_cast<std::ptrdiff_t>(bodyStart), width - 1, uint8_t(0));
        }
        uint8_t* p = m_out.data() + bodyStart - 1;
        uint64_t v = len;
        while (v >= 0x80) {
            *p++ = static_cast<uint8_t>(v | 0x80);
            v >>= 7;
        }
        *p = static_cast<uint8_t>(v);
    }

private:
    void writeLittleEndian(uint64_t v, size_t n)
    {
        uint8_t buf[8];
        for (size_t i = 0; i < n; ++i)
            buf[i] = static_cast<uint8_t>(v >> (8 * i));
        m_out.insert(m_out.end(), buf, buf + n);
    }

    std::vector<uint8_t>& m_out;
};

} // namespace symflame::model::protowire
