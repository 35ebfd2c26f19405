#include "symbolize/object/minidebuginfo.h"

#include <lzma.h>

#include <algorithm>

#include <string>

namespace symflame::symbolize {

using model::ErrorCode;
using model::makeError;
using model::Result;

namespace {

const char* lzmaErrorText(lzma_ret r)
{
    switch (r) {
    case LZMA_MEM_ERROR:
        return "out of memory";
    case LZMA_MEMLIMIT_ERROR:
        return "memory limit reached";
    case LZMA_FORMAT_ERROR:
        return "not xz data";
    case LZMA_OPTIONS_ERROR:
        return "unsupported xz options";
    case LZMA_DATA_ERROR:
        return "corrupt data";
    case LZMA_BUF_ERROR:
        return "truncated data";
    case LZMA_UNSUPPORTED_CHECK:
        return "unsupported integrity check";
    default:
        return "decoder error";
    }
}

} // namespace

Result<std::vector<uint8_t>> decompressXz(std::span<const uint8_t> data, uint64_t maxSize)
{
    lzma_stream strm = LZMA_STREAM_INIT;
    // Memory for the decoder's dictionary: xz -9 needs 65 MiB.
    if (lzma_ret r = lzma_stream_decoder(&strm, uint64_t(256) << 20, 0); r != LZMA_OK)
        return makeError(ErrorCode::Io, std::string("cannot start the xz decoder: ") + lzmaErrorText(r));
    std::vector<uint8_t> out;
    strm.next_in = data.data();
    strm.avail_in = data.size();
    lzma_ret r = LZMA_OK;
    while (r == LZMA_OK) {
        if (out.size() >= maxSize) {
            lzma_end(&strm);
            return makeError(
                ErrorCode::InvalidInput, "xz data decompresses to more than " + std::to_string(maxSize >> 20) + " MiB");
        }
        const size_t done = out.size();
        out.resize(std::min<uint64_t>(maxSize, std::max<size_t>(done * 2, 64 * 1024)));
        strm.next_out = out.data() + done;
        strm.avail_out = out.size() - done;
        // LZMA_FINISH: all input is here; a stream that ends early is an error, not a wait.
        r = lzma_code(&strm, LZMA_FINISH);
        out.resize(out.size() - strm.avail_out);
    }
    lzma_end(&strm);
    if (r != LZMA_STREAM_END)
        return makeError(ErrorCode::InvalidInput, std::string("cannot decompress xz data: ") + lzmaErrorText(r));
    return out;
}

Result<ElfFilePtr> openMiniDebugInfo(const ElfFile& binary)
{
    const ElfSection* s = binary.findSection(".gnu_debugdata");
    if (!s || !s->hasData())
        return makeError(ErrorCode::NotFound, "no .gnu_debugdata section", binary.path());
    auto bytes = decompressXz(binary.sectionData(*s), kMaxMiniDebugInfoSize);
    if (!bytes)
        return makeError(bytes.error().code, ".gnu_debugdata: " + bytes.error().message, binary.path());
    auto elf = ElfFile::parse(MappedFile::fromBytes(std::move(*bytes), binary.path() + "[.gnu_debugdata]"));
    if (!elf)
        return makeError(elf.error().code, ".gnu_debugdata: " + elf.error().message, binary.path());
    return elf;
}

} // namespace symflame::symbolize
