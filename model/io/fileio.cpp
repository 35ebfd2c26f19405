// Whole-file reads and atomic writes on POSIX: errors say what the system refused, and a write
// goes to a temporary file in the target's directory that is renamed over the target only once
// it is complete and on disk.
#include "model/io/fileio.h"

#include "model/core/bigarray.h"

#include <algorithm>
#include <cerrno>
#include <atomic>
#include <climits>
#include <cstdint>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <mutex>
#include <string_view>
#include <sys/mman.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace symflame::model {

namespace {

std::string errnoText(int err)
{
    std::string s = std::error_code(err, std::generic_category()).message();
    if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z')
        s[0] = static_cast<char>(s[0] - 'A' + 'a');
    return s;
}

Error openError(int err, const std::string& path)
{
    switch (err) {
    case ENOENT:
        return makeError(ErrorCode::NotFound, "no such file", path);
    case ENOTDIR:
        return makeError(ErrorCode::NotFound, "no such file (a part of the path is not a directory)", path);
    case EACCES:
    case EPERM:
        return makeError(ErrorCode::Io, "permission denied", path);
    case EISDIR:
        return makeError(ErrorCode::Io, "is a directory", path);
    default:
        return makeError(ErrorCode::Io, "cannot open: " + errnoText(err), path);
    }
}

class Fd {
public:
    explicit Fd(int fd)
        : m_fd(fd)
    {
    }
    ~Fd()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    Fd(Fd&& other) noexcept
        : m_fd(other.release())
    {
    }
    Fd& operator=(Fd&&) = delete;
    int get() const { return m_fd; }
    /// Gives the descriptor up: the caller closes it.
    int release() { return std::exchange(m_fd, -1); }
    /// Closes now, returning close()'s errno (0 on success).
    int close()
    {
        const int r = ::close(m_fd);
        m_fd = -1;
        return r == 0 ? 0 : errno;
    }

private:
    int m_fd;
};

// Makes room for n bytes in buffer (reserve, then resize) with the pages of a big buffer mapped
// in one go: the kernel maps a range in about half the time it takes page by page as a first
// write touches each (Linux 5.14's MADV_POPULATE_WRITE; elsewhere pages map as written). A
// std::vector<uint8_t> is zero-filled by the resize, a FileBytes is not.
template <class Buffer>
void resizeMapped(Buffer& buffer, size_t n)
{
    buffer.clear();
    buffer.reserve(n);
    constexpr size_t kFrom = size_t(4) << 20; // below, faults cost too little to matter
    if (n >= kFrom) {
        adviseHugePages(buffer.data(), n); // before populating: then in 2 MiB pages where it can
        populatePages(buffer.data(), n);
    }
    buffer.resize(n);
}

// Reads until end of file into out. expected (the size fstat reported) sizes the buffer; past it
// reads go through a small chunk, so a file that is exactly as large as it said costs no second
// buffer.
template <class Buffer>
int readAll(int fd, Buffer& out, size_t expected, uint64_t maxBytes, bool* tooLarge)
{
    auto readSome = [fd](uint8_t* p, size_t n) {
        ssize_t r;
        do {
            r = ::read(fd, p, std::min<size_t>(n, size_t(1) << 30));
        } while (r < 0 && errno == EINTR);
        return r;
    };
    resizeMapped(out, expected);
    size_t have = 0;
    while (have < out.size()) {
        const ssize_t n = readSome(out.data() + have, out.size() - have);
        if (n < 0)
            return errno;
        if (n == 0)
            break; // the file shrank
        have += static_cast<size_t>(n);
    }
    if (have == out.size()) {
        // The file may have grown, or have reported no size (procfs, pipes): read on until EOF.
        std::vector<uint8_t> chunk(size_t(64) << 10);
        for (;;) {
            const ssize_t n = readSome(chunk.data(), chunk.size());
            if (n < 0)
                return errno;
            if (n == 0)
                break;
            if (uint64_t(have) + uint64_t(n) > maxBytes) {
                *tooLarge = true;
                return 0;
            }
            out.insert(out.end(), chunk.begin(), chunk.begin() + n);
            have += static_cast<size_t>(n);
        }
    }
    out.resize(have);
    return 0;
}

int writeAll(int fd, std::span<const uint8_t> data)
{
    const uint8_t* p = data.data();
    size_t left = data.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, std::min<size_t>(left, size_t(1) << 30));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        p += n;
        left -= static_cast<size_t>(n);
    }
    return 0;
}

std::string baseNameOf(const std::string& path)
{
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Reads an open file whose fstat() is `st`: a regular file's size is checked against the limit
// first, anything else (a pipe, a character device) is read until its end or the limit.
template <class Buffer>
Result<Buffer> readOpenFile(int fd, const struct stat& st, const std::string& path, uint64_t maxBytes)
{
    if (S_ISDIR(st.st_mode))
        return makeError(ErrorCode::Io, "is a directory", path);
    size_t expected = 0;
    if (S_ISREG(st.st_mode)) {
        if (static_cast<uint64_t>(st.st_size) > maxBytes)
            return makeError(ErrorCode::TooLarge,
                "file is too large (" + std::to_string(st.st_size) + " bytes, the limit is " + std::to_string(maxBytes)
                    + ")",
                path);
        expected = static_cast<size_t>(st.st_size);
    }
    Buffer data;
    bool tooLarge = false;
    if (int err = readAll(fd, data, expected, maxBytes, &tooLarge); err != 0)
        return makeError(
            ErrorCode::Io, err == EISDIR ? std::string("is a directory") : "cannot read: " + errnoText(err), path);
    if (tooLarge)
        return makeError(
            ErrorCode::TooLarge, "file is larger than the limit of " + std::to_string(maxBytes) + " bytes", path);
    return data;
}

// Opens `path` and stats it: the descriptor, or the error to report.
Result<Fd> openForReading(const std::string& path, struct stat& st)
{
    if (path.empty())
        return makeError(ErrorCode::Usage, "empty file name");
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0)
        return openError(errno, path);
    if (::fstat(fd.get(), &st) != 0)
        return makeError(ErrorCode::Io, "cannot read: " + errnoText(errno), path);
    return fd;
}

template <class Buffer>
Result<Buffer> readFile(const std::string& path, uint64_t maxBytes)
{
    struct stat st { };
    auto fd = openForReading(path, st);
    if (!fd)
        return fd.error();
    return readOpenFile<Buffer>(fd->get(), st, path, maxBytes);
}

// The SIGBUS guard of mapped files. Each mapping takes a slot with its address range; the handler
// maps zero pages from a faulting page of a slot's range to its end (the file is shorter than it
// was from there on) and marks the slot, and passes any other SIGBUS on as before it was installed.
namespace sigbusguard {

constexpr int kSlots = 256;

struct Slot {
    std::atomic<bool> used { false };
    std::atomic<uintptr_t> begin { 0 };
    std::atomic<uintptr_t> end { 0 };
    std::atomic<bool> hit { false };
};

Slot g_slots[kSlots];
struct sigaction g_previous { };
uintptr_t g_page = 4096;
std::once_flag g_installed;

void onSigbus(int sig, siginfo_t* info, void* context)
{
    const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
    if (info->si_code > 0) { // a fault, not a signal sent by kill()
        for (Slot& slot : g_slots) {
            const uintptr_t begin = slot.begin.load(std::memory_order_acquire);
            const uintptr_t end = slot.end.load(std::memory_order_acquire);
            if (begin == 0 || addr < begin || addr >= end)
                continue;
            const uintptr_t from = addr & ~(g_page - 1);
            if (::mmap(reinterpret_cast<void*>(from), end - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
                != MAP_FAILED) {
                slot.hit.store(true, std::memory_order_release);
                return; // the access runs again and reads zeros
            }
        }
    }
    if (g_previous.sa_flags & SA_SIGINFO) {
        if (g_previous.sa_sigaction) {
            g_previous.sa_sigaction(sig, info, context);
            return;
        }
    } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
        g_previous.sa_handler(sig);
        return;
    }
    ::signal(SIGBUS, SIG_DFL); // a fault happens again and ends the process as it would have
    if (info->si_code <= 0)
        ::raise(SIGBUS);
}

void install()
{
    std::call_once(g_installed, [] {
        g_page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
        struct sigaction sa { };
        sa.sa_sigaction = onSigbus;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        ::sigaction(SIGBUS, &sa, &g_previous);
    });
}

// A slot for [p, p + size), or -1 when all are taken.
int guard(const void* p, size_t size)
{
    install();
    const auto begin = reinterpret_cast<uintptr_t>(p);
    const uintptr_t end = (begin + size + g_page - 1) & ~(g_page - 1);
    for (int i = 0; i < kSlots; ++i) {
        bool expected = false;
        if (g_slots[i].used.compare_exchange_strong(expected, true)) {
            g_slots[i].hit.store(false, std::memory_order_relaxed);
            g_slots[i].end.store(end, std::memory_order_release);
            g_slots[i].begin.store(begin, std::memory_order_release);
            return i;
        }
    }
    return -1;
}

bool hit(int slot)
{
    return slot >= 0 && g_slots[slot].hit.load(std::memory_order_acquire);
}

void unguard(int slot)
{
    if (slot < 0)
        return;
    g_slots[slot].begin.store(0, std::memory_order_release);
    g_slots[slot].end.store(0, std::memory_order_release);
    g_slots[slot].used.store(false, std::memory_order_release);
}

} // namespace sigbusguard

} // namespace

FileContents::~FileContents()
{
    release();
}

FileContents::FileContents(FileContents&& other) noexcept
{
    *this = std::move(other);
}

FileContents& FileContents::operator=(FileContents&& other) noexcept
{
    if (this != &other) {
        release();
        m_read = std::move(other.m_read);
        m_map = std::exchange(other.m_map, nullptr);
        m_mapSize = std::exchange(other.m_mapSize, 0);
        m_fd = std::exchange(other.m_fd, -1);
        m_guard = std::exchange(other.m_guard, -1);
        m_changed = std::exchange(other.m_changed, false);
        m_dropped = std::exchange(other.m_dropped, 0);
        m_bytes = std::exchange(other.m_bytes, {});
        other.m_read.clear();
    }
    return *this;
}

bool FileContents::changedWhileRead() const
{
    if (m_changed || sigbusguard::hit(m_guard))
        return true;
    struct stat st { };
    return m_fd >= 0 && ::fstat(m_fd, &st) == 0 && static_cast<uint64_t>(st.st_size) < m_mapSize;
}

void FileContents::release()
{
    m_changed = changedWhileRead();
    if (m_map) {
        // Out of the guard first: once unmapped, the range may be anyone's.
        sigbusguard::unguard(std::exchange(m_guard, -1));
        ::munmap(m_map, m_mapSize);
        m_map = nullptr;
        m_mapSize = 0;
    }
    if (m_fd >= 0)
        ::close(std::exchange(m_fd, -1));
    FileBytes().swap(m_read);
    m_bytes = {};
    m_dropped = 0;
}

void FileContents::dropPagesBefore(size_t offset)
{
    constexpr size_t kStep = size_t(16) << 20; // madvise once per this many bytes read
    if (!m_map || offset > m_mapSize || offset < m_dropped + kStep)
        return;
    const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const size_t end = offset & ~(page - 1);
    // A private mapping of a file that was never written: its pages come back from the file.
    (void)::madvise(m_map, end, MADV_DONTNEED);
    m_dropped = end;
}

Result<FileContents> readFileContents(const std::string& path, uint64_t maxBytes)
{
    struct stat st { };
    auto fd = openForReading(path, st);
    if (!fd)
        return fd.error();
    FileContents out;
    if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) >= FileContents::kMapFrom
        && static_cast<uint64_t>(st.st_size) <= maxBytes && static_cast<uint64_t>(st.st_size) <= SIZE_MAX) {
        const auto size = static_cast<size_t>(st.st_size);
        void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd->get(), 0);
        if (p != MAP_FAILED) {
            const int slot = sigbusguard::guard(p, size);
            if (slot >= 0) {
                out.m_map = p;
                out.m_mapSize = size;
                out.m_guard = slot;
                out.m_fd = fd->release();
                out.m_bytes = { static_cast<const uint8_t*>(p), size };
                return out;
            }
            ::munmap(p, size); // no guard slot left: read it instead
        }
    }
    // Anything else (small, not regular, not mappable, too large to report) is read from the
    // descriptor already open.
    auto bytes = readOpenFile<FileBytes>(fd->get(), st, path, maxBytes);
    if (!bytes)
        return bytes.error();
    out.m_read = std::move(*bytes);
    out.m_bytes = { out.m_read.data(), out.m_read.size() };
    return out;
}

void resizeForWriting(std::vector<uint8_t>& buffer, size_t n)
{
    resizeMapped(buffer, n); // zeroes: pages already mapped, so about as fast as memset
}

Result<std::vector<uint8_t>> readWholeFile(const std::string& path, uint64_t maxBytes)
{
    return readFile<std::vector<uint8_t>>(path, maxBytes);
}

Result<FileBytes> readFileBytes(const std::string& path, uint64_t maxBytes)
{
    return readFile<FileBytes>(path, maxBytes);
}

Status writeFileAtomically(const std::string& path, std::span<const uint8_t> data)
{
    if (path.empty())
        return makeError(ErrorCode::Usage, "empty file name");

    // Writing through a symbolic link replaces the file it points to, not the link.
    std::string target = path;
    struct stat lst { };
    if (::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
        if (char* real = ::realpath(path.c_str(), nullptr)) {
            target = real;
            std::free(real);
        }
    }

    mode_t mode = 0644;
    struct stat st { };
    if (::stat(target.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return makeError(ErrorCode::Io, "cannot write: is a directory", path);
        mode = st.st_mode & 07777;
    }

    const std::string dir = directoryOf(target);
    std::string tmp = dir + "/." + baseNameOf(target) + ".tmp-XXXXXX";
    const int rawFd = ::mkstemp(tmp.data());
    if (rawFd < 0) {
        const int err = errno;
        return makeError(ErrorCode::Io, "cannot create a temporary file in " + dir + ": " + errnoText(err), path);
    }
    Fd fd(rawFd);
    auto failWith = [&](const std::string& what, int err) {
        ::unlink(tmp.c_str());
        return Status(makeError(ErrorCode::Io, what + ": " + errnoText(err), path));
    };

    if (::fchmod(fd.get(), mode) != 0)
        return failWith("cannot set the permissions of the temporary file", errno);
    if (int err = writeAll(fd.get(), data); err != 0)
        return failWith("cannot write", err);
    if (::fsync(fd.get()) != 0)
        return failWith("cannot write (fsync)", errno);
    if (int err = fd.close(); err != 0)
        return failWith("cannot write (close)", err);
    if (::rename(tmp.c_str(), target.c_str()) != 0)
        return failWith("cannot replace the file", errno);

    // Make the rename itself durable; failing here loses nothing, so it is not an error.
    const int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) {
        ::fsync(dirFd);
        ::close(dirFd);
    }
    return Status::success();
}

bool isSameFile(const std::string& a, const std::string& b)
{
    if (a.empty() || b.empty())
        return false;
    struct stat sa { };
    struct stat sb { };
    if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0)
        return false;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

std::string directoryOf(const std::string& path)
{
    const auto slash = path.rfind('/');
    if (slash == std::string::npos)
        return ".";
    if (slash == 0)
        return "/";
    return path.substr(0, slash);
}

} // namespace symflame::model
