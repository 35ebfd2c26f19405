#include "symbolize/object/mappedfile.h"

#include <cctype>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace symflame::symbolize {

using model::ErrorCode;
using model::makeError;

std::string systemErrorText(int err)
{
    std::string s = std::strerror(err);
    if (!s.empty())
        s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
    return s;
}

MappedFile::~MappedFile()
{
    if (m_mapped)
        ::munmap(const_cast<uint8_t*>(m_data), m_size);
}

model::Result<std::shared_ptr<const MappedFile>> MappedFile::open(const std::string& path)
{
    // O_NONBLOCK: the path may come from an untrusted profile or debug link, and opening a FIFO
    // for reading would otherwise wait for a writer forever (only regular files are mapped).
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        const int err = errno;
        return makeError(
            err == ENOENT ? ErrorCode::NotFound : ErrorCode::Io, "cannot open file: " + systemErrorText(err), path);
    }
    struct stat st { };
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return makeError(ErrorCode::Io, "cannot stat file: " + systemErrorText(err), path);
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        return makeError(ErrorCode::InvalidInput, "not a regular file", path);
    }
    std::shared_ptr<MappedFile> f(new MappedFile);
    f->m_path = path;
    f->m_device = static_cast<uint64_t>(st.st_dev);
    f->m_inode = static_cast<uint64_t>(st.st_ino);
    f->m_size = static_cast<size_t>(st.st_size);
    if (f->m_size > 0) {
        void* p = ::mmap(nullptr, f->m_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            const int err = errno;
            ::close(fd);
            return makeError(ErrorCode::Io, "cannot map file: " + systemErrorText(err), path);
        }
        f->m_data = static_cast<const uint8_t*>(p);
        f->m_mapped = true;
    }
    ::close(fd);
    return std::shared_ptr<const MappedFile>(std::move(f));
}

std::shared_ptr<const MappedFile> MappedFile::fromBytes(std::vector<uint8_t> bytes, std::string path)
{
    std::shared_ptr<MappedFile> f(new MappedFile);
    f->m_owned = std::move(bytes);
    f->m_data = f->m_owned.data();
    f->m_size = f->m_owned.size();
    f->m_path = std::move(path);
    return f;
}

bool fileIdentity(const std::string& path, uint64_t* device, uint64_t* inode)
{
    struct stat st { };
    if (::stat(path.c_str(), &st) != 0)
        return false;
    *device = static_cast<uint64_t>(st.st_dev);
    *inode = static_cast<uint64_t>(st.st_ino);
    return true;
}

} // namespace symflame::symbolize
