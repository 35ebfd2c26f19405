// zstd detection and capped decompression (libzstd): the OpenTelemetry Collector's file exporter
// compresses whole files with zstd, and any profile may come so compressed.
#pragma once

#include "model/core/progress.h"
#include "model/core/result.h"
#include "model/io/gzip.h"

#include <cstdint>
#include <span>
#include <vector>

namespace symflame::model {

/// True when data starts with the zstd frame magic 28 b5 2f fd.
bool isZstd(std::span<const uint8_t> data);

/// Decompresses zstd data (several frames one after another too, skippable frames skipped) under
/// the same limits as gunzip. Errors: Truncated for data that ends inside a frame, InvalidInput
/// for corrupt data, TooLarge past the limits.
Result<std::vector<uint8_t>> unzstd(std::span<const uint8_t> data, const DecompressLimits& limits = {});

/// The bytes a reader parses: data itself, or its decompressed bytes (kept in storage) when it
/// starts with the gzip or the zstd magic. Errors: InvalidInput for empty data or an empty
/// decompressed stream ("empty file", "empty file after decompression"), and the decompressor's.
Result<std::span<const uint8_t>> decompressIfCompressed(std::span<const uint8_t> data, std::vector<uint8_t>& storage,
    const DecompressLimits& limits, Progress* progress = nullptr);

} // namespace symflame::model
