// gzip with zlib: capped decompression (limits are checked while inflating, so a bomb is refused
// after a bounded amount of work and memory) and one-member compression. The usual profile, one
// member whose trailer gives a plausible size, is inflated by libdeflate in one call instead
// (about three times faster); anything else, and every error, goes the zlib way.
#include "model/io/gzip.h"

#include "model/io/fileio.h"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <new>
#include <optional>
#include <string>

namespace symflame::model {

namespace {

// zlib counts in uInt (32 bits): feed and drain it in pieces no larger than this.
constexpr size_t kZlibChunk = size_t(1) << 30;
constexpr size_t kMinBuffer = size_t(64) << 10;
// Output per inflate call, so that the ratio checks see the output as it grows.
constexpr size_t kOutStep = size_t(1) << 20;
// The first buffer when the trailer gives no usable size: small, since only multi-member
// streams, streams over 4 GiB and forged trailers get here.
constexpr size_t kMaxGuess = size_t(4) << 20;

struct InflateGuard {
    z_stream* zs;
    ~InflateGuard() { inflateEnd(zs); }
};
struct DeflateGuard {
    z_stream* zs;
    ~DeflateGuard() { deflateEnd(zs); }
};

std::string zlibMessage(const z_stream& zs, const char* fallback)
{
    return zs.msg ? std::string(zs.msg) : std::string(fallback);
}

// Sizes the first output buffer: the gzip trailer's ISIZE (size mod 2^32 of the last member) is
// right for the usual single member under 4 GiB, but it is untrusted, so it is used only when no
// larger than what the limits would let through anyway.
size_t initialBufferSize(std::span<const uint8_t> data, const DecompressLimits& limits)
{
    const uint64_t cap = limits.maxOutputBytes;
    uint64_t guess = std::clamp<uint64_t>(static_cast<uint64_t>(data.size()) * 4, kMinBuffer, kMaxGuess);
    if (data.size() >= 18) {
        const uint8_t* t = data.data() + data.size() - 4;
        const uint64_t isize = uint64_t(t[0]) | uint64_t(t[1]) << 8 | uint64_t(t[2]) << 16 | uint64_t(t[3]) << 24;
        const uint64_t n = data.size();
        const uint64_t ratioBound = limits.maxRatio > UINT64_MAX / n ? UINT64_MAX : limits.maxRatio * n;
        const uint64_t plausible = std::max<uint64_t>(limits.ratioCheckAfterBytes, ratioBound);
        if (isize > 0 && isize <= plausible)
            guess = isize;
    }
    return static_cast<size_t>(std::min<uint64_t>(guess, cap));
}

// One call of libdeflate into a buffer of the size the trailer announces, when that size is
// plausible under the limits. nullopt when the data is not exactly one such member (several
// members, padding, corruption, a trailer that lies): the zlib way then decides, and words the
// error.
std::optional<std::vector<uint8_t>> gunzipWhole(std::span<const uint8_t> data, const DecompressLimits& limits)
{
    if (data.size() < 18)
        return std::nullopt;
    const size_t size = initialBufferSize(data, limits);
    const uint8_t* t = data.data() + data.size() - 4;
    const uint64_t isize = uint64_t(t[0]) | uint64_t(t[1]) << 8 | uint64_t(t[2]) << 16 | uint64_t(t[3]) << 24;
    if (isize == 0 || size != isize)
        return std::nullopt;
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    if (!d)
        return std::nullopt;
    std::vector<uint8_t> out;
    try {
        resizeForWriting(out, size);
    } catch (const std::bad_alloc&) {
        libdeflate_free_decompressor(d);
        return std::nullopt;
    }
    size_t usedIn = 0, madeOut = 0;
    const libdeflate_result r
        = libdeflate_gzip_decompress_ex(d, data.data(), data.size(), out.data(), out.size(), &usedIn, &madeOut);
    libdeflate_free_decompressor(d);
    if (r != LIBDEFLATE_SUCCESS || usedIn != data.size() || madeOut != size)
        return std::nullopt;
    return out;
}

} // namespace

bool isGzip(std::span<const uint8_t> data)
{
    return data.size() >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

Result<std::vector<uint8_t>> gunzip(std::span<const uint8_t> data, const DecompressLimits& limits)
{
    if (!isGzip(data))
        return makeError(ErrorCode::InvalidInput, "not gzip data (it does not start with 1f 8b)");
    if (auto whole = gunzipWhole(data, limits))
        return std::move(*whole);

    z_stream zs {};
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        return makeError(ErrorCode::Io, "cannot initialise zlib: " + zlibMessage(zs, "unknown error"));
    InflateGuard guard { &zs };

    std::vector<uint8_t> out;
    try {
        out.resize(initialBufferSize(data, limits));
    } catch (const std::bad_alloc&) {
        return makeError(ErrorCode::TooLarge, "out of memory while decompressing");
    }
    size_t produced = 0;
    const uint8_t* in = data.data();
    size_t inLeft = data.size();
    uint64_t consumed = 0;
    uint8_t probe = 0; // one byte of output space past the cap, to tell "exactly at the cap" from "over it"

    for (;;) {
        bool probing = false;
        if (produced == out.size()) {
            if (out.size() >= limits.maxOutputBytes) {
                probing = true;
            } else {
                uint64_t grown = std::min<uint64_t>(
                    std::max<uint64_t>(uint64_t(out.size()) * 2, kMinBuffer), limits.maxOutputBytes);
                // Before the ratio check has had its say, no more room than it lets through.
                if (produced <= limits.ratioCheckAfterBytes)
                    grown = std::min<uint64_t>(
                        grown, std::max<uint64_t>(limits.ratioCheckAfterBytes + 2 * kOutStep, produced + kOutStep));
                try {
                    out.resize(static_cast<size_t>(grown));
                } catch (const std::bad_alloc&) {
                    return makeError(ErrorCode::TooLarge, "out of memory while decompressing");
                }
            }
        }
        const auto inChunk = static_cast<uInt>(std::min(inLeft, kZlibChunk));
        const auto outChunk = probing ? uInt(1) : static_cast<uInt>(std::min(out.size() - produced, kOutStep));
        zs.next_in = const_cast<Bytef*>(in);
        zs.avail_in = inChunk;
        zs.next_out = probing ? &probe : out.data() + produced;
        zs.avail_out = outChunk;

        const int ret = inflate(&zs, Z_NO_FLUSH);

        const size_t usedIn = inChunk - zs.avail_in;
        in += usedIn;
        inLeft -= usedIn;
        consumed += usedIn;
        const size_t madeOut = outChunk - zs.avail_out;
        if (probing && madeOut > 0)
            return sizeLimitError(limits.maxOutputBytes);
        produced += madeOut;

        if (const uint64_t exceeded = exceededRatio(limits, produced, consumed))
            return bombError("gzip", exceeded, produced, consumed);

        switch (ret) {
        case Z_OK:
            break;
        case Z_STREAM_END: {
            if (inLeft == 0) {
                out.resize(produced);
                return out;
            }
            if (inLeft >= 2 && in[0] == 0x1f && in[1] == 0x8b) {
                // Another member follows (concatenated gzip files decompress to the concatenation).
                if (inflateReset(&zs) != Z_OK)
                    return makeError(
                        ErrorCode::InvalidInput, "corrupt gzip stream: " + zlibMessage(zs, "reset failed"));
                break;
            }
            // Some writers pad to a block size with zeros; anything else is not ours to ignore.
            if (std::all_of(in, in + inLeft, [](uint8_t b) { return b == 0; })) {
                out.resize(produced);
                return out;
            }
            return makeError(ErrorCode::InvalidInput,
                "unexpected data after the end of the gzip stream (at byte " + std::to_string(data.size() - inLeft)
                    + ")");
        }
        case Z_BUF_ERROR:
            // No progress possible: either the input ran out (a truncated stream) or the output is
            // full (grown on the next round).
            if (inLeft == 0 && zs.avail_out != 0)
                return makeError(ErrorCode::Truncated,
                    "truncated gzip stream (it ends after " + std::to_string(data.size())
                        + " bytes, before its end marker)");
            break;
        case Z_DATA_ERROR:
            return makeError(ErrorCode::InvalidInput, "corrupt gzip stream: " + zlibMessage(zs, "invalid data"));
        case Z_NEED_DICT:
            return makeError(ErrorCode::InvalidInput, "corrupt gzip stream: it asks for a preset dictionary");
        case Z_MEM_ERROR:
            return makeError(ErrorCode::TooLarge, "out of memory while decompressing");
        default:
            return makeError(ErrorCode::InvalidInput, "corrupt gzip stream: " + zlibMessage(zs, "zlib error"));
        }
    }
}

Error sizeLimitError(uint64_t limit)
{
    return makeError(ErrorCode::TooLarge, "decompressed data exceeds the limit of " + std::to_string(limit) + " bytes");
}

Result<std::vector<uint8_t>> gzipCompress(std::span<const uint8_t> data, int level)
{
    if (level < Z_DEFAULT_COMPRESSION || level > Z_BEST_COMPRESSION)
        return makeError(ErrorCode::Usage, "invalid gzip compression level " + std::to_string(level));
    z_stream zs {};
    if (deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return makeError(ErrorCode::Io, "cannot initialise zlib: " + zlibMessage(zs, "unknown error"));
    DeflateGuard guard { &zs };

    std::vector<uint8_t> out;
    try {
        out.resize(static_cast<size_t>(deflateBound(&zs, static_cast<uLong>(data.size()))));
    } catch (const std::bad_alloc&) {
        return makeError(ErrorCode::TooLarge, "out of memory while compressing");
    }
    size_t produced = 0;
    const uint8_t* in = data.data();
    size_t inLeft = data.size();
    for (;;) {
        if (produced == out.size())
            out.resize(out.size() + std::max(kMinBuffer, out.size() / 4));
        const auto inChunk = static_cast<uInt>(std::min(inLeft, kZlibChunk));
        const auto outChunk = static_cast<uInt>(std::min(out.size() - produced, kZlibChunk));
        zs.next_in = const_cast<Bytef*>(in);
        zs.avail_in = inChunk;
        zs.next_out = out.data() + produced;
        zs.avail_out = outChunk;
        const bool last = inChunk == inLeft;
        const int ret = deflate(&zs, last ? Z_FINISH : Z_NO_FLUSH);
        const size_t usedIn = inChunk - zs.avail_in;
        in += usedIn;
        inLeft -= usedIn;
        produced += outChunk - zs.avail_out;
        if (ret == Z_STREAM_END)
            break;
        if (ret != Z_OK && ret != Z_BUF_ERROR)
            return makeError(ErrorCode::Io, "gzip compression failed: " + zlibMessage(zs, "zlib error"));
    }
    out.resize(produced);
    return out;
}

uint64_t exceededRatio(const DecompressLimits& limits, uint64_t produced, uint64_t consumed)
{
    const uint64_t ratio = produced / std::max<uint64_t>(consumed, 1);
    if (produced > limits.ratioCheckAfterBytes && ratio > limits.maxRatio)
        return limits.maxRatio;
    if (produced > limits.earlyCheckAfterBytes && ratio > limits.earlyMaxRatio)
        return limits.earlyMaxRatio;
    return 0;
}

Error bombError(const char* format, uint64_t ratio, uint64_t produced, uint64_t consumed)
{
    return makeError(ErrorCode::TooLarge,
        std::string(format) + " data expands more than " + std::to_string(ratio) + " times (" + std::to_string(produced)
            + " bytes from " + std::to_string(consumed) + "), refusing what looks like a decompression bomb");
}

} // namespace symflame::model
