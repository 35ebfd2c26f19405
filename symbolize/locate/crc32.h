// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320): the checksum .gnu_debuglink stores
// for the whole separate debug file. zlib's crc32_z computes it; this wrapper keeps zlib's
// header out of the callers.
#pragma once

#include <cstdint>
#include <span>

namespace symflame::symbolize {

/// Continues a CRC-32 over data; start with crc = 0. crc32(crc32(0, a), b) == crc32(0, a + b).
uint32_t crc32(uint32_t crc, std::span<const uint8_t> data);

} // namespace symflame::symbolize
