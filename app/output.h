// Buffered stdout for the CLI: text is collected in a large buffer and written with few fwrite
// calls, so printing a million lines costs no more than building them. The printers
// (app/printers/) write through it; JSON is written by nlohmann-json (printers/json.h).
#pragma once

#include "model/core/bigarray.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace symflame::app {

class Output {
public:
    explicit Output(std::FILE* file = stdout)
        : m_file(file)
    {
        m_buf.reserve(kFlushAt + 4096);
    }
    ~Output() { flush(); }
    Output(const Output&) = delete;
    Output& operator=(const Output&) = delete;

    Output& operator<<(std::string_view s)
    {
        m_buf.append(s);
        maybeFlush();
        return *this;
    }
    Output& operator<<(char c)
    {
        m_buf.push_back(c);
        return *this;
    }
    Output& operator<<(int64_t v);
    Output& operator<<(uint64_t v);
    Output& operator<<(int v) { return *this << static_cast<int64_t>(v); }

    /// Appends s right-aligned in a field of width characters.
    Output& padLeft(std::string_view s, size_t width);
    /// Appends a printf-style formatted piece (short texts only: at most 255 characters).
    Output& format(const char* fmt, ...) __attribute__((format(printf, 2, 3)));

    void flush();

    /// An Output that keeps everything in memory (never flushes): text rendered once and then
    /// copied, piece by piece, into another Output.
    static Output inMemory() { return Output(nullptr, 0); }
    std::string_view buffered() const { return m_buf; }
    /// Room for this much text; a big buffer (an in-memory one rendering many answers) in huge
    /// pages.
    void reserve(size_t bytes) { model::reserveBig(m_buf, bytes); }
    size_t bufferedSize() const { return m_buf.size(); }

private:
    Output(std::FILE* file, int)
        : m_file(file)
    {
    }
    static constexpr size_t kFlushAt = 1 << 16;
    void maybeFlush()
    {
        if (m_buf.size() >= kFlushAt && m_file)
            flush();
    }
    std::FILE* m_file;
    std::string m_buf;
};

} // namespace symflame::app
