#include "symbolize/object/gobuildinfo.h"

#include <cstring>
#include <string_view>

namespace symflame::symbolize {

using model::ErrorCode;
using model::makeError;
using model::Result;

namespace {

constexpr char kMagic[] = "\xff Go buildinf:";
constexpr size_t kMagicSize = 14;
constexpr size_t kHeaderSize = 32;
constexpr uint8_t kFlagBigEndian = 0x1, kFlagInline = 0x2;

uint64_t loadWord(const uint8_t* p, bool big, unsigned size)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < size; ++i)
        v |= uint64_t(p[big ? i : size - 1 - i]) << (8 * (size - 1 - i));
    return v;
}

// A varint-prefixed string at data[*pos], advancing pos.
bool readInlineString(std::span<const uint8_t> data, size_t* pos, std::string* out)
{
    uint64_t len = 0;
    for (int shift = 0;; shift += 7) {
        if (*pos >= data.size() || shift > 63)
            return false;
        const uint8_t b = data[(*pos)++];
        len |= uint64_t(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
    }
    if (len > data.size() - *pos)
        return false;
    out->assign(reinterpret_cast<const char*>(data.data() + *pos), len);
    *pos += len;
    return true;
}

// A Go string header {data pointer, length} at address, read through the loaded segments.
bool readGoString(const ElfFile& elf, uint64_t address, bool big, unsigned ptr, std::string* out)
{
    const auto header = elfBytesAt(elf, address);
    if (header.size() < 2 * ptr)
        return false;
    const uint64_t data = loadWord(header.data(), big, ptr), len = loadWord(header.data() + ptr, big, ptr);
    const auto bytes = elfBytesAt(elf, data);
    if (len > bytes.size())
        return false;
    out->assign(reinterpret_cast<const char*>(bytes.data()), len);
    return true;
}

// The main package path from the module info text ("path\t<import path>" line).
std::string mainPathOf(std::string_view modinfo)
{
    for (size_t pos = 0; pos < modinfo.size();) {
        size_t end = modinfo.find('\n', pos);
        if (end == std::string_view::npos)
            end = modinfo.size();
        std::string_view line = modinfo.substr(pos, end - pos);
        // Module info is framed by 16 sentinel bytes: the first line may carry them.
        if (const size_t at = line.find("path\t"); at != std::string_view::npos && (at == 0 || at == 16))
            return std::string(line.substr(at + 5));
        pos = end + 1;
    }
    return {};
}

std::span<const uint8_t> findBuildInfo(const ElfFile& elf, uint64_t* address)
{
    if (const ElfSection* s = elf.findSection(".go.buildinfo"); s && s->hasData()) {
        *address = s->addr;
        return elf.sectionData(*s);
    }
    // Without section headers: the header is 16-byte aligned in writable data.
    for (const ElfSegment& seg : elf.segments()) {
        if (seg.type != elf::PT_LOAD || !(seg.flags & elf::PF_W))
            continue;
        const auto data = elf.segmentData(seg);
        for (size_t off = (16 - seg.vaddr % 16) % 16; off + kHeaderSize <= data.size(); off += 16)
            if (std::memcmp(data.data() + off, kMagic, kMagicSize) == 0) {
                *address = seg.vaddr + off;
                return data.subspan(off);
            }
    }
    return {};
}

} // namespace

Result<GoBuildInfo> readGoBuildInfo(const ElfFile& elf)
{
    uint64_t address = 0;
    const auto data = findBuildInfo(elf, &address);
    if (data.empty())
        return makeError(ErrorCode::NotFound, "no .go.buildinfo", elf.path());
    if (data.size() < kHeaderSize)
        return makeError(ErrorCode::Truncated, ".go.buildinfo is shorter than its header", elf.path());
    if (std::memcmp(data.data(), kMagic, kMagicSize) != 0)
        return makeError(ErrorCode::InvalidInput, ".go.buildinfo does not start with its magic", elf.path());
    const unsigned ptr = data[14];
    const uint8_t flags = data[15];
    GoBuildInfo info;
    info.buildId = elf.goBuildId();
    std::string modinfo;
    if (flags & kFlagInline) {
        size_t pos = kHeaderSize;
        if (!readInlineString(data, &pos, &info.goVersion) || !readInlineString(data, &pos, &modinfo))
            return makeError(ErrorCode::Truncated, ".go.buildinfo strings run past its end", elf.path());
    } else {
        if (ptr != 4 && ptr != 8)
            return makeError(ErrorCode::InvalidInput,
                ".go.buildinfo has an invalid pointer size " + std::to_string(ptr), elf.path());
        const bool big = flags & kFlagBigEndian;
        const uint64_t versionAt = loadWord(data.data() + 16, big, ptr);
        const uint64_t modinfoAt = loadWord(data.data() + 16 + ptr, big, ptr);
        if (!readGoString(elf, versionAt, big, ptr, &info.goVersion))
            return makeError(ErrorCode::InvalidInput, ".go.buildinfo version string is not in the file", elf.path());
        readGoString(elf, modinfoAt, big, ptr, &modinfo); // optional: older toolchains leave it empty
    }
    if (!info.goVersion.starts_with("go") && !info.goVersion.starts_with("devel"))
        return makeError(ErrorCode::InvalidInput, ".go.buildinfo version '" + info.goVersion + "' is not a Go version",
            elf.path());
    info.mainPath = mainPathOf(modinfo);
    return info;
}

} // namespace symflame::symbolize
