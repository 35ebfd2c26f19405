// Errors as values: every library API of model/ and symbolize/ returns Result<T> or Status
// instead of throwing. An Error names what went wrong, and the file where it went wrong.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace symflame::model {

enum class ErrorCode {
    InvalidInput, ///< the bytes do not form a valid file of the expected format
    Truncated,    ///< the file ends before its structure does
    TooLarge,     ///< a limit (decompressed size, table size, depth) was exceeded
    Io,           ///< the operating system refused a read or a write
    Unsupported,  ///< a valid file of a kind or version we do not read
    NotFound,     ///< a file, table entry or object that was asked for does not exist
    Cancelled,    ///< the user cancelled the work
    Usage,        ///< the caller asked for something that makes no sense (bad option)
};

struct Error {
    ErrorCode code = ErrorCode::InvalidInput;
    std::string message; ///< one line, lower case start, no trailing period
    std::string path;    ///< file the error is about; empty when none

    /// "path: message", or just the message when there is no path.
    std::string toString() const { return path.empty() ? message : path + ": " + message; }
    Error withPath(std::string p) const&
    {
        Error e = *this;
        if (e.path.empty())
            e.path = std::move(p);
        return e;
    }
};

inline Error makeError(ErrorCode code, std::string message, std::string path = {})
{
    return Error{code, std::move(message), std::move(path)};
}

/// A value or an error.
template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_v(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : m_v(std::in_place_index<1>, std::move(error)) {}

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() &
    {
        assert(ok());
        return std::get<0>(m_v);
    }
    const T& value() const&
    {
        assert(ok());
        return std::get<0>(m_v);
    }
    T&& value() &&
    {
        assert(ok());
        return std::get<0>(std::move(m_v));
    }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    const Error& error() const
    {
        assert(!ok());
        return std::get<1>(m_v);
    }

private:
    std::variant<T, Error> m_v;
};

/// Success or an error, for operations without a value.
class [[nodiscard]] Status {
public:
    Status() = default;
    Status(Error error) : m_error(std::move(error)), m_failed(true) {}
    static Status success() { return {}; }

    bool ok() const { return !m_failed; }
    explicit operator bool() const { return ok(); }
    const Error& error() const
    {
        assert(m_failed);
        return m_error;
    }

private:
    Error m_error;
    bool m_failed = false;
};

} // namespace symflame::model
