#include "model/io/zstd.h"

#include <zstd.h>

#include <algorithm>
#include <memory>
#include <string>

namespace symflame::model {

namespace {

struct DctxFree {
    void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

constexpr size_t kStep = size_t(1) << 20; // output made per call: the limits are checked this often

} // namespace

bool isZstd(std::span<const uint8_t> data)
{
    return data.size() >= 4 && data[0] == 0x28 && data[1] == 0xb5 && data[2] == 0x2f && data[3] == 0xfd;
}

Result<std::vector<uint8_t>> unzstd(std::span<const uint8_t> data, const DecompressLimits& limits)
{
    if (!isZstd(data))
        return makeError(ErrorCode::InvalidInput, "not zstd data (it does not start with 28 b5 2f fd)");
    std::unique_ptr<ZSTD_DCtx, DctxFree> dctx(ZSTD_createDCtx());
    if (!dctx)
        return makeError(ErrorCode::Io, "cannot initialise zstd");
    std::vector<uint8_t> out;
    ZSTD_inBuffer in { data.data(), data.size(), 0 };
    size_t produced = 0;
    size_t pending = 0; // ZSTD_decompressStream's last hint: 0 once a frame is complete
    while (in.pos < in.size || pending != 0) {
        if (produced >= limits.maxOutputBytes)
            return makeError(ErrorCode::TooLarge,
                "zstd data expands past the limit of " + std::to_string(limits.maxOutputBytes) + " bytes");
        const size_t room = static_cast<size_t>(std::min<uint64_t>(kStep, limits.maxOutputBytes - produced));
        try {
            out.resize(produced + room);
        } catch (const std::bad_alloc&) {
            return makeError(ErrorCode::TooLarge, "out of memory while decompressing");
        }
        ZSTD_outBuffer o { out.data() + produced, room, 0 };
        const size_t before = in.pos;
        pending = ZSTD_decompressStream(dctx.get(), &o, &in);
        if (ZSTD_isError(pending))
            return makeError(ErrorCode::InvalidInput,
                std::string("corrupt zstd data at byte ") + std::to_string(before) + ": " + ZSTD_getErrorName(pending));
        produced += o.pos;
        if (const uint64_t exceeded = exceededRatio(limits, produced, in.pos))
            return bombError("zstd", exceeded, produced, in.pos);
        if (o.pos == 0 && in.pos == before) {
            // No progress: the input has ended inside a frame.
            if (in.pos == in.size)
                return makeError(ErrorCode::Truncated, "zstd data ends inside a frame (truncated file)");
            return makeError(ErrorCode::InvalidInput, "corrupt zstd data at byte " + std::to_string(in.pos));
        }
    }
    out.resize(produced);
    return out;
}

Result<std::span<const uint8_t>> decompressIfCompressed(
    std::span<const uint8_t> data, std::vector<uint8_t>& storage, const DecompressLimits& limits, Progress* progress)
{
    if (data.empty())
        return makeError(ErrorCode::InvalidInput, "empty file");
    const bool zstd = isZstd(data);
    if (!zstd && !isGzip(data))
        return data;
    if (progress)
        progress->setStage("decompressing");
    auto r = zstd ? unzstd(data, limits) : gunzip(data, limits);
    if (!r)
        return r.error();
    storage = std::move(r).value();
    if (storage.empty())
        return makeError(ErrorCode::InvalidInput, "empty file after decompression");
    return std::span<const uint8_t>(storage);
}

} // namespace symflame::model
