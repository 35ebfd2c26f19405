// Buffered output and JSON string escaping.
#include "app/output.h"

#include <charconv>
#include <cstdarg>

namespace symflame::app {

Output& Output::operator<<(int64_t v)
{
    char tmp[24];
    const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    m_buf.append(tmp, r.ptr);
    maybeFlush();
    return *this;
}

Output& Output::operator<<(uint64_t v)
{
    char tmp[24];
    const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    m_buf.append(tmp, r.ptr);
    maybeFlush();
    return *this;
}

Output& Output::padLeft(std::string_view s, size_t width)
{
    if (s.size() < width)
        m_buf.append(width - s.size(), ' ');
    m_buf.append(s);
    maybeFlush();
    return *this;
}

Output& Output::format(const char* fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    const int n = std::vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        m_buf.append(tmp, std::min<size_t>(static_cast<size_t>(n), sizeof tmp - 1));
    maybeFlush();
    return *this;
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not valid.
static size_t utf8SequenceLength(std::string_view s, size_t i)
{
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0) {
        len = 2;
        cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3;
        cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (i + len > s.size())
        return 0;
    for (size_t k = 1; k < len; ++k) {
        if ((b(i + k) & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (b(i + k) & 0x3f);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not valid UTF-8.
    static constexpr uint32_t kMin[] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (cp < kMin[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

Output& Output::jsonStringArray(std::span<const std::string> items)
{
    m_buf.push_back('[');
    for (size_t i = 0; i < items.size(); ++i) {
        if (i)
            m_buf.push_back(',');
        jsonString(items[i]);
    }
    m_buf.push_back(']');
    maybeFlush();
    return *this;
}

Output& Output::jsonString(std::string_view s)
{
    static constexpr char kHex[] = "0123456789abcdef";
    m_buf.push_back('"');
    size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            // Copy the run of plain characters at once.
            size_t j = i + 1;
            while (j < s.size()) {
                const auto d = static_cast<unsigned char>(s[j]);
                if (d < 0x20 || d >= 0x80 || d == '"' || d == '\\')
                    break;
                ++j;
            }
            m_buf.append(s.data() + i, j - i);
            i = j;
            continue;
        }
        switch (c) {
        case '"':
            m_buf.append("\\\"");
            break;
        case '\\':
            m_buf.append("\\\\");
            break;
        case '\n':
            m_buf.append("\\n");
            break;
        case '\t':
            m_buf.append("\\t");
            break;
        case '\r':
            m_buf.append("\\r");
            break;
        default:
            if (c < 0x20) {
                m_buf.append("\\u00");
                m_buf.push_back(kHex[c >> 4]);
                m_buf.push_back(kHex[c & 15]);
            } else if (const size_t len = utf8SequenceLength(s, i)) {
                m_buf.append(s.data() + i, len);
                i += len;
                continue;
            } else {
                m_buf.append("\xef\xbf\xbd"); // U+FFFD for a byte that is not UTF-8
            }
        }
        ++i;
    }
    m_buf.push_back('"');
    maybeFlush();
    return *this;
}

void Output::flush()
{
    if (!m_file)
        return;
    if (!m_buf.empty()) {
        std::fwrite(m_buf.data(), 1, m_buf.size(), m_file);
        m_buf.clear();
    }
    std::fflush(m_file);
}

} // namespace symflame::app
