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

/// The bomb check of the limits after produced output bytes from consumed input bytes: the ratio
/// that was exceeded (maxRatio, or earlyMaxRatio early on), or 0 while the output is within them.
uint64_t exceededRatio(const DecompressLimits& limits, uint64_t produced, uint64_t consumed);
/// The TooLarge error for a bomb that exceededRatio found ("gzip data expands more than ...").
Error bombError(const char* format, uint64_t ratio, uint64_t produced, uint64_t consumed);

/// The TooLarge error for output past limits.maxOutputBytes ("decompressed data exceeds ...").
Error sizeLimitError(uint64_t limit);

/// Compresses data as one gzip member.
Result<std::vector<uint8_t>> gzipCompress(std::span<const uint8_t> data, int level = 6);

} // namespace symflame::model
