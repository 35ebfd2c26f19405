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
