// A read-only view of a whole file, memory-mapped, shared by the objects that read it (the ELF
// reader, the symbol table, LLVM's object file). Also wraps bytes held in memory (decompressed
// data, tests) behind the same interface.
#pragma once

#include "model/core/result.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace symflame::symbolize {

class MappedFile {
public:
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    ~MappedFile();

    /// Maps the file at path read-only. Errors: NotFound, Io ("cannot open file: ..."), or
    /// InvalidInput when path is not a regular file.
    static model::Result<std::shared_ptr<const MappedFile>> open(const std::string& path);
    /// Wraps bytes held in memory; path is only used in messages.
    static std::shared_ptr<const MappedFile> fromBytes(std::vector<uint8_t> bytes, std::string path = {});

    std::span<const uint8_t> bytes() const { return { m_data, m_size }; }
    size_t size() const { return m_size; }
    const std::string& path() const { return m_path; }
    /// Device and inode of a mapped file (0, 0 for bytes in memory): tells whether two paths
    /// name the same file.
    uint64_t device() const { return m_device; }
    uint64_t inode() const { return m_inode; }

private:
    MappedFile() = default;
    const uint8_t* m_data = nullptr;
    size_t m_size = 0;
    bool m_mapped = false;
    std::vector<uint8_t> m_owned;
    std::string m_path;
    uint64_t m_device = 0;
    uint64_t m_inode = 0;
};

using MappedFilePtr = std::shared_ptr<const MappedFile>;

/// Device and inode of path without opening it; false when it can't be stat'ed.
bool fileIdentity(const std::string& path, uint64_t* device, uint64_t* inode);

/// strerror(err) with a lower-case first letter, for one-line messages.
std::string systemErrorText(int err);

} // namespace symflame::symbolize
