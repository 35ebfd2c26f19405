// Buffered output.
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
