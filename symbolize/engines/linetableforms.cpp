#include "symbolize/engines/linetableforms.h"

#include <optional>
#include <vector>

namespace symflame::symbolize {

namespace {

// DW_FORM codes (DWARF 5, section 7.5.6) and the GNU and LLVM extensions LLVM 19 reads.
enum : uint64_t {
    FormAddr = 0x01,
    FormBlock2 = 0x03,
    FormBlock4 = 0x04,
    FormData2 = 0x05,
    FormData4 = 0x06,
    FormData8 = 0x07,
    FormString = 0x08,
    FormBlock = 0x09,
    FormBlock1 = 0x0a,
    FormData1 = 0x0b,
    FormFlag = 0x0c,
    FormSdata = 0x0d,
    FormStrp = 0x0e,
    FormUdata = 0x0f,
    FormRefAddr = 0x10,
    FormRef1 = 0x11,
    FormRef2 = 0x12,
    FormRef4 = 0x13,
    FormRef8 = 0x14,
    FormRefUdata = 0x15,
    FormIndirect = 0x16,
    FormSecOffset = 0x17,
    FormExprloc = 0x18,
    FormFlagPresent = 0x19,
    FormStrx = 0x1a,
    FormAddrx = 0x1b,
    FormRefSup4 = 0x1c,
    FormStrpSup = 0x1d,
    FormData16 = 0x1e,
    FormLineStrp = 0x1f,
    FormRefSig8 = 0x20,
    FormImplicitConst = 0x21,
    FormLoclistx = 0x22,
    FormRnglistx = 0x23,
    FormRefSup8 = 0x24,
    FormStrx1 = 0x25,
    FormStrx2 = 0x26,
    FormStrx3 = 0x27,
    FormStrx4 = 0x28,
    FormAddrx1 = 0x29,
    FormAddrx2 = 0x2a,
    FormAddrx3 = 0x2b,
    FormAddrx4 = 0x2c,
    FormGnuAddrIndex = 0x1f01,
    FormGnuStrIndex = 0x1f02,
    FormGnuRefAlt = 0x1f20,
    FormGnuStrpAlt = 0x1f21,
    FormLlvmAddrxOffset = 0x2001,
};

bool knownForm(uint64_t form)
{
    return (form >= FormAddr && form <= FormAddrx4 && form != 0x02) || form == FormGnuAddrIndex
        || form == FormGnuStrIndex || form == FormGnuRefAlt || form == FormGnuStrpAlt || form == FormLlvmAddrxOffset;
}

/// Reads the header's fields in order; every read fails (nullopt) past the end of the data.
class Reader {
public:
    Reader(std::span<const uint8_t> data, uint64_t at, bool little)
        : m_data(data)
        , m_at(at)
        , m_little(little)
    {
    }
    uint64_t at() const { return m_at; }
    std::optional<uint64_t> fixed(unsigned size)
    {
        if (m_at > m_data.size() || size > m_data.size() - m_at)
            return std::nullopt;
        uint64_t v = 0;
        for (unsigned i = 0; i < size; ++i) {
            const uint64_t byte = m_data[m_at + (m_little ? i : size - 1 - i)];
            v |= byte << (8 * i);
        }
        m_at += size;
        return v;
    }
    std::optional<uint64_t> uleb()
    {
        uint64_t v = 0;
        for (unsigned shift = 0; m_at < m_data.size(); shift += 7) {
            const uint8_t byte = m_data[m_at++];
            if (shift < 64)
                v |= uint64_t(byte & 0x7f) << shift;
            if (!(byte & 0x80))
                return v;
        }
        return std::nullopt;
    }
    bool skip(uint64_t n)
    {
        if (m_at > m_data.size() || n > m_data.size() - m_at)
            return false;
        m_at += n;
        return true;
    }
    bool skipString()
    {
        while (m_at < m_data.size())
            if (m_data[m_at++] == 0)
                return true;
        return false;
    }

private:
    std::span<const uint8_t> m_data;
    uint64_t m_at;
    bool m_little;
};

/// Skips one value of a known form (not indirect); false when the data ends first.
bool skipValue(Reader& r, uint64_t form, unsigned offsetSize, unsigned addressSize)
{
    switch (form) {
    case FormFlagPresent:
    case FormImplicitConst:
        return true;
    case FormData1:
    case FormRef1:
    case FormFlag:
    case FormStrx1:
    case FormAddrx1:
        return r.skip(1);
    case FormData2:
    case FormRef2:
    case FormStrx2:
    case FormAddrx2:
        return r.skip(2);
    case FormStrx3:
    case FormAddrx3:
        return r.skip(3);
    case FormData4:
    case FormRef4:
    case FormRefSup4:
    case FormStrx4:
    case FormAddrx4:
        return r.skip(4);
    case FormData8:
    case FormRef8:
    case FormRefSup8:
    case FormRefSig8:
        return r.skip(8);
    case FormData16:
        return r.skip(16);
    case FormAddr:
        return r.skip(addressSize);
    case FormStrp:
    case FormLineStrp:
    case FormSecOffset:
    case FormRefAddr:
    case FormStrpSup:
    case FormGnuRefAlt:
    case FormGnuStrpAlt:
        return r.skip(offsetSize);
    case FormString:
        return r.skipString();
    case FormBlock1:
    case FormBlock2:
    case FormBlock4: {
        const auto n = r.fixed(form == FormBlock1 ? 1 : form == FormBlock2 ? 2 : 4);
        return n && r.skip(*n);
    }
    case FormBlock:
    case FormExprloc: {
        const auto n = r.uleb();
        return n && r.skip(*n);
    }
    case FormLlvmAddrxOffset:
        return r.uleb() && r.skip(4);
    default: // the LEB128 forms: sdata, udata, ref_udata, strx, addrx, loclistx, rnglistx, GNU indexes
        return r.uleb().has_value();
    }
}

std::string hex(uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    std::string s;
    do {
        s.insert(s.begin(), digits[v & 15]);
        v >>= 4;
    } while (v);
    return "0x" + s;
}

} // namespace

std::string lineTableFormProblem(std::span<const uint8_t> debugLine, uint64_t offset, bool littleEndian)
{
    Reader r(debugLine, offset, littleEndian);
    auto length = r.fixed(4);
    if (!length)
        return {};
    unsigned offsetSize = 4;
    if (*length == 0xffffffffu) {
        offsetSize = 8;
        if (!r.fixed(8))
            return {};
    }
    const auto version = r.fixed(2);
    if (!version || *version != 5)
        return {}; // versions 2 to 4 name no forms
    const auto addressSize = r.fixed(1);
    // segment selector size, header length, minimum instruction length, maximum operations per
    // instruction, default_is_stmt, line_base, line_range
    if (!addressSize || !r.skip(1 + offsetSize + 5))
        return {};
    const auto opcodeBase = r.fixed(1);
    if (!opcodeBase || !r.skip(*opcodeBase > 0 ? *opcodeBase - 1 : 0))
        return {};
    const char* lists[] = { "directory", "file name" };
    for (const char* list : lists) {
        const auto formatCount = r.fixed(1);
        if (!formatCount)
            return {};
        std::vector<uint64_t> forms;
        for (uint64_t i = 0; i < *formatCount; ++i) {
            const auto content = r.uleb();
            const auto form = r.uleb();
            if (!content || !form)
                return {};
            if (*form == FormIndirect || !knownForm(*form))
                return "the line table at offset " + hex(offset) + " of .debug_line declares its " + list
                    + " entries with form " + hex(*form)
                    + (*form == FormIndirect ? " (DW_FORM_indirect)" : ", which is unknown");
            forms.push_back(*form);
        }
        const auto count = r.uleb();
        if (!count)
            return {};
        if (list == lists[1])
            break; // the file name entries are the last that use the formats
        for (uint64_t e = 0; e < *count; ++e) {
            const uint64_t before = r.at();
            for (uint64_t form : forms)
                if (!skipValue(r, form, offsetSize, static_cast<unsigned>(*addressSize)))
                    return {};
            if (r.at() == before)
                break; // entries of no bytes: the rest take none either
        }
    }
    return {};
}

} // namespace symflame::symbolize
