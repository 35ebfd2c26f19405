// gzip detection, capped decompression and compression (zlib).
#pragma once

#include "model/core/progress.h"
#include "model/core/result.h"

#include <cstdint>
#include <span>
#include <vector>

namespace symflame::model {

struct DecompressLimits {
    /// Hard cap on the decompressed size.
    uint64_t maxOutputBytes = 4ull << 30;
    /// Past ratioCheckAfterBytes of output, more than maxRatio output bytes per input byte is
    /// taken for a decompression bomb (real profiles compress 5-20x; zeros compress 1000x).
    uint64_t ratioCheckAfterBytes = 64ull << 20;
    uint64_t maxRatio = 200;
    /// The same check early, with a ratio only a run of one repeated byte reaches (deflate's
    /// ceiling is about 1032:1): a bomb of zeros is refused after about a MiB of output, not 64.
    uint64_t earlyCheckAfterBytes = 1ull << 20;
    uint64_t earlyMaxRatio = 900;
};

/// True when data starts with the gzip magic 1f 8b.
bool isGzip(std::span<const uint8_t> data);

/// Decompresses a gzip stream (several concatenated members too). Errors: Truncated for a
/// stream that ends early, InvalidInput for corrupt data, TooLarge past the limits.
Result<std::vector<uint8_t>> gunzip(std::span<const uint8_t> data, const DecompressLimits& limits = {});

/// The bytes a reader parses: data itself, or, when it starts with the gzip magic, its
/// decompressed bytes (kept in storage). Errors: InvalidInput for empty data or an empty
/// decompressed stream ("empty file", "empty file after decompression"), and gunzip's.
Result<std::span<const uint8_t>> decompressIfGzip(std::span<const uint8_t> data, std::vector<uint8_t>& storage,
    const DecompressLimits& limits, Progress* progress = nullptr);

/// Compresses data as one gzip member.
Result<std::vector<uint8_t>> gzipCompress(std::span<const uint8_t> data, int level = 6);

} // namespace symflame::model
