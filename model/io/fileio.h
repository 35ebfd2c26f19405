// Reading whole files and writing files atomically (temporary file in the same directory,
// fsync, rename), so a failed write never leaves a half-written file or loses the old one.
#pragma once

#include "model/core/result.h"

#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace symflame::model {

/// Reads the whole file; errors name the path. Files larger than maxBytes are TooLarge.
Result<std::vector<uint8_t>> readWholeFile(const std::string& path, uint64_t maxBytes = 8ull << 30);

/// An allocator whose resize() leaves new elements uninitialized (default-initialized), for
/// buffers that are written right after: a profile's bytes are read over them anyway.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
    template <class U>
    struct rebind {
        using other = DefaultInitAllocator<U>;
    };
    DefaultInitAllocator() = default;
    template <class U>
    DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept
    {
    }
    template <class U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>)
    {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args)
    {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};
/// A file's bytes as readFileBytes gives them.
using FileBytes = std::vector<uint8_t, DefaultInitAllocator<uint8_t>>;

/// readWholeFile without zero-filling the buffer before reading into it (a big perf.data or
/// profile was zeroed, then copied over: a quarter of reading it).
Result<FileBytes> readFileBytes(const std::string& path, uint64_t maxBytes = 8ull << 30);

/// A whole file's bytes for a parser. A regular file of at least kMapFrom bytes is mapped
/// read-only, with its pages mapped at once (no copy: a 225 MB perf.data took 0.36 s to read into
/// fresh memory and 0.01 s to map); other files are read (readFileBytes). If a mapped file
/// shrinks while it is mapped (another program truncates or rewrites it), reading past its new
/// end would kill the process with SIGBUS: a handler, installed with the first mapping, maps zero
/// pages there instead and changedWhileRead() says so (as it does when the file is now shorter
/// than was mapped: the page holding the new end reads zeros past it without a SIGBUS), so the
/// caller can refuse what it parsed.
class FileContents {
public:
    static constexpr uint64_t kMapFrom = uint64_t(1) << 20;

    FileContents() = default;
    ~FileContents();
    FileContents(FileContents&& other) noexcept;
    FileContents& operator=(FileContents&& other) noexcept;
    FileContents(const FileContents&) = delete;
    FileContents& operator=(const FileContents&) = delete;

    std::span<const uint8_t> bytes() const { return m_bytes; }
    bool mapped() const { return m_map != nullptr; }
    /// True when the mapped file shrank: part of bytes() reads as zeros, not as the file was.
    bool changedWhileRead() const;
    /// Unmaps or frees the bytes now (bytes() becomes empty); changedWhileRead() keeps its answer.
    void release();
    /// Tells that bytes()[0, offset) will not be read for a while: a mapped file's pages there
    /// are let go (read from the file again if they are; the bytes stay the same), so that a
    /// reader that streams through a big file does not hold all of it. Read files keep theirs.
    void dropPagesBefore(size_t offset);

private:
    friend Result<FileContents> readFileContents(const std::string& path, uint64_t maxBytes);
    FileBytes m_read;
    void* m_map = nullptr;
    size_t m_mapSize = 0;
    int m_fd = -1; ///< the mapped file, kept open to see whether it shrank
    int m_guard = -1; ///< the SIGBUS guard's slot of the mapping
    bool m_changed = false;
    size_t m_dropped = 0; ///< bytes at the start whose pages were let go
    std::span<const uint8_t> m_bytes;
};

/// The file's bytes, mapped or read (FileContents); errors as readWholeFile's.
Result<FileContents> readFileContents(const std::string& path, uint64_t maxBytes = 8ull << 30);

/// Writes data to path atomically: the file either keeps its old content or has the new one.
Status writeFileAtomically(const std::string& path, std::span<const uint8_t> data);

/// Makes room for n bytes in buffer (its size becomes n, its bytes unspecified until written)
/// with the pages of big buffers mapped in one go: the kernel maps a range in about half the
/// time it takes page by page as a first write touches each (Linux 5.14's
/// MADV_POPULATE_WRITE; elsewhere the pages are mapped as usual when written).
void resizeForWriting(std::vector<uint8_t>& buffer, size_t n);

/// The directory part of path: "/a/b" -> "/a", "/a" -> "/", "a" -> ".".
std::string directoryOf(const std::string& path);

/// True when both paths exist and name the same file (same device and inode).
bool isSameFile(const std::string& a, const std::string& b);

} // namespace symflame::model
